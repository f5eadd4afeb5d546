//! Warm state for a long-lived process (the MCP server): per app, the direct
//! connection, the last `Cache.GetItems` answer, and per window a mirror of what reads had
//! to walk (`tree::Memo`), all kept up to date by the app's own change signals. A signal
//! makes the next read fetch `GetItems` again and ask again about the elements it names;
//! everything else a read needs is taken from the mirror. Where a toolkit is known to leave
//! changes unsignalled the mirror is not used, and every mirror is dropped after `MAX_AGE`.
//! The window list each recent target named is kept too, while nothing about the windows
//! has changed (`Windows`).
//!
//! Before anything kept is used, the app is asked a question over the bus its signals
//! travel on (`Peer.Ping`): its answer comes after every signal it sent before, and the
//! listener is then asked to take in all it has received, so a change another process just
//! saw the app make (an action's effect) is known before the read.
//! Each app has its own lock, so a hung app holds up only the reads of that app; an app
//! no read asked for in [`IDLE`] is let go (its listener ends).

use crate::bus::{Addr, Bus, CallError};
use crate::quiet::Answer;
use crate::tree::{fetch_app_cache, AppCache, Memo, Trust};
use futures_util::StreamExt;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A mirror older than this is read afresh: a safety net for a change no signal told of.
const MAX_AGE: Duration = Duration::from_secs(30);

/// A mirror this old is walked afresh in the background while its app is being read
/// ([`Warm::aging`], [`Warm::refill`]): reads at an agent's tempo, seconds apart, then never
/// pay on their own path for the walk from scratch that [`MAX_AGE`] asks for (a Chromium
/// page of 375 elements: 40–90 ms against 8–12 through the mirror). Checked every
/// [`UPKEEP`], so a mirror in use is walked again before it is 30 s old.
pub const REFILL_AGE: Duration = Duration::from_secs(18);

/// How often a long-lived process looks for mirrors and answers to read again in the
/// background (`LinuxDesktop::refill_warm`): often enough that an answer due at
/// `quiet::REREAD_AGE` (6 s) is read again before its age (10 s); a look that finds nothing
/// due costs a lock per app.
pub const UPKEEP: Duration = Duration::from_secs(2);

/// More signals than this between two reads: the app is rebuilding, read it afresh.
const MAX_PENDING: usize = 4096;

/// Mirrors of one app lent at once, at most: reads that overlap, and those that failed.
const MAX_LENT: usize = 64;

/// An app no read has asked for this long is let go by [`Warm::sweep`].
pub const IDLE: Duration = Duration::from_secs(30);

/// What the listener hands the reads: whether anything changed, and what.
#[derive(Default)]
struct Signals {
    /// Set on any signal from the app; cleared before each fresh `GetItems`.
    dirty: AtomicBool,
    /// Objects named by change events since the last read: path, and whether it was their
    /// children that changed. `None` once more than `MAX_PENDING` came (forget everything).
    touched: Mutex<Option<Vec<(String, bool)>>>,
    /// Change signals (but a box's, and those a kept answer can take in by asking again:
    /// `quiet::absorbable`) and lost listeners so far: a kept answer stands only while this
    /// count is as it was.
    changes: AtomicU64,
    /// Every signal noted so far but a box's, and lost listeners: an answer read while this
    /// count moved may lack what the signals meanwhile said, so it is not kept. (A read asks
    /// for boxes after it hands the signals so far to its mirror, and a box said changed
    /// later is handed to its answer once kept, to be asked again: an animated window's
    /// spinners, 180 a second in gtk3-widget-factory, would let no full read's answer be
    /// kept.)
    heard: AtomicU64,
    /// Objects whose box the app said changed since the last read; `None` past
    /// `MAX_PENDING`.
    moved: Mutex<Option<Vec<String>>>,
}

impl Signals {
    fn new() -> Self {
        Self {
            dirty: AtomicBool::new(true),
            touched: Mutex::new(Some(Vec::new())),
            changes: AtomicU64::new(0),
            heard: AtomicU64::new(0),
            moved: Mutex::new(Some(Vec::new())),
        }
    }

    fn note(&self, msg: &zbus::Message) {
        // Boxes are never kept (every read asks for them), and a box is in neither the
        // app's cache nor a mirror's records: a moving widget (gtk3-widget-factory's
        // progress bars and spinner: 180 a second) changes nothing kept.
        // Kept answers are given again only after the boxes named are asked again.
        let header = msg.header();
        if header
            .member()
            .is_some_and(|m| m.as_str() == "BoundsChanged")
        {
            let mut moved = self.moved.lock().unwrap_or_else(|e| e.into_inner());
            match (moved.as_mut(), header.path()) {
                (Some(list), Some(path)) if list.len() < MAX_PENDING => list.push(path.to_string()),
                _ => *moved = None,
            }
            return;
        }
        self.heard.fetch_add(1, Ordering::SeqCst);
        if !crate::quiet::absorbable(msg) {
            self.changes.fetch_add(1, Ordering::SeqCst);
        }
        self.dirty.store(true, Ordering::SeqCst);
        let Some((path, children)) = crate::events::object_of(msg) else {
            return;
        };
        let mut touched = self.touched.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(list) = touched.as_mut() {
            if list.len() >= MAX_PENDING {
                *touched = None;
            } else {
                list.push((path, children));
            }
        }
    }

    /// The counts an answer is read against.
    fn heard(&self) -> Heard {
        Heard {
            changes: self.changes.load(Ordering::SeqCst),
            all: self.heard.load(Ordering::SeqCst),
        }
    }

    /// Everything noted since the last call; `None` when too much came to keep.
    fn take(&self) -> Option<Vec<(String, bool)>> {
        let mut touched = self.touched.lock().unwrap_or_else(|e| e.into_inner());
        touched.replace(Vec::new())
    }

    /// The boxes the app said changed since the last call; `None` when too many came.
    fn take_moved(&self) -> Option<Vec<String>> {
        let mut moved = self.moved.lock().unwrap_or_else(|e| e.into_inner());
        moved.replace(Vec::new())
    }

    /// The listener ended (the app is gone or the bus closed): trust nothing kept.
    fn lost(&self) {
        self.changes.fetch_add(1, Ordering::SeqCst);
        self.heard.fetch_add(1, Ordering::SeqCst);
        *self.moved.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.dirty.store(true, Ordering::SeqCst);
        *self.touched.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// An app's counts of signals at one moment: those a kept answer cannot take in, and all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heard {
    pub changes: u64,
    pub all: u64,
}

/// One window's mirror and when it was last filled from scratch.
struct Mirror {
    memo: Memo,
    filled: Instant,
    /// How the last walk through it went, to walk it again afresh ([`Warm::refill`]).
    redo: Refill,
    /// When the walk that asked every element's states began (`Showing`); none when no
    /// walk of it did.
    asked: Option<Instant>,
}

/// How a walk takes the states a window's mirror remembers, for a toolkit that changes
/// which elements show without a signal (Chromium, as a page scrolls).
pub enum Showing<'a> {
    /// As the app's signals keep them.
    Signalled,
    /// Asked again where the window may have scrolled since they were last all asked: it
    /// drew in `area` after [`SHOWING_LAG`] before that (the states change a little after a
    /// scroll is drawn). `drawn` has just taken in what the screen drew.
    Drawn {
        drawn: &'a crate::damage::Drawn,
        area: desktop_core::Rect,
    },
    /// Asked again.
    Asked,
}

/// A window whose mirror nears its age: its root and the limits of the last walk through it.
#[derive(Clone, Debug)]
pub struct Refill {
    pub root: desktop_core::Handle,
    pub limits: crate::tree::Limits,
}

/// A window whose kept answer nears its age ([`Warm::answers_due`]): the request it
/// answered, to read it again in full.
pub struct Reread {
    pub owner: String,
    pub path: String,
    pub window: desktop_core::WindowInfo,
    pub filters: desktop_core::Filters,
}

/// How long after drawing a scroll Chromium may still change which elements show.
const SHOWING_LAG: Duration = Duration::from_millis(500);

struct App {
    bus: Bus,
    cache: Option<AppCache>,
    signals: Arc<Signals>,
    /// By the window's object path.
    mirrors: HashMap<String, Mirror>,
    /// The last answer of each window, by its object path (`quiet`).
    answers: HashMap<String, Answer>,
    /// Mirrors lent to reads now, by lending: the signals applied to the app's mirrors
    /// meanwhile, handed to the mirror when it is kept (`None`: everything was forgotten).
    lent: HashMap<u64, Option<Vec<(String, bool)>>>,
    lends: u64,
    listener: Option<tokio::task::JoinHandle<()>>,
    /// Asks the listener to take in what has come (`barrier`).
    flush: Option<tokio::sync::mpsc::UnboundedSender<Flush>>,
    used: Instant,
}

impl App {
    fn trusted(&self) -> bool {
        self.listener.as_ref().is_some_and(|l| !l.is_finished())
    }

    /// Hands the signals noted since the last read to every mirror and answer of the app.
    fn apply_signals(&mut self) {
        match self.signals.take_moved() {
            Some(list) => {
                for a in self.answers.values_mut() {
                    for path in &list {
                        a.moved(path);
                    }
                }
            }
            None => self.answers.values_mut().for_each(Answer::forget),
        }
        match self.signals.take() {
            Some(list) if self.trusted() => {
                for m in self.mirrors.values_mut() {
                    for (path, children) in &list {
                        m.memo.touched(path, *children);
                    }
                }
                for missed in self.lent.values_mut().flatten() {
                    missed.extend(list.iter().cloned());
                }
                for a in self.answers.values_mut() {
                    for (path, children) in &list {
                        a.named(path, *children);
                    }
                }
            }
            _ => {
                self.mirrors.clear();
                self.answers.clear();
                self.lent.values_mut().for_each(|missed| *missed = None);
            }
        }
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if let Some(l) = self.listener.take() {
            l.abort();
        }
    }
}

tokio::task_local! {
    /// Set while a read runs in the background ([`in_background`]).
    static BACKGROUND: ();
}

/// Runs `read` as a read in the background (`LinuxDesktop::refill_warm`): it does not count
/// as a read of its app, so an app nobody reads is still let go.
pub async fn in_background<F: std::future::Future>(read: F) -> F::Output {
    BACKGROUND.scope((), read).await
}

/// Whether the running task is a read in the background ([`in_background`]).
pub fn is_background() -> bool {
    BACKGROUND.try_with(|_| ()).is_ok()
}

/// One app's warm state behind its own lock (`None` until first connected).
type Slot = Arc<tokio::sync::Mutex<Option<App>>>;

/// Per-app connections, caches and mirrors, and recent window lists, shared by the calls of
/// one process.
#[derive(Default)]
pub struct Warm {
    apps: Mutex<HashMap<String, Slot>>,
    /// Direct connections the actions opened to apps no read here keeps (reads made by
    /// another process: `LinuxDesktop::read_elsewhere`), by the app's unique bus name,
    /// which the bus never gives another app.
    acting: Mutex<HashMap<String, Bus>>,
    pub windows: Windows,
    /// What was drawn on the screen (X11): lets a quiet window's answer be given again.
    pub drawn: Option<crate::damage::Drawn>,
    /// The top-level windows, kept while the X server tells of no change to them.
    pub tops: Option<crate::tops::Tops>,
}

impl std::fmt::Debug for Warm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Warm")
    }
}

/// A request to the listener: take in every signal already received, then answer.
type Flush = tokio::sync::oneshot::Sender<()>;

/// Listens for every signal `owner` sends; `None` when the bus refuses. The sender asks the
/// listener to take in, at once, every signal already received (a read's barrier).
async fn listen(
    main: &Bus,
    owner: &str,
    signals: Arc<Signals>,
) -> Option<(
    tokio::task::JoinHandle<()>,
    tokio::sync::mpsc::UnboundedSender<Flush>,
)> {
    use futures_util::FutureExt;
    let mut stream = crate::events::subscribe(main, owner, None).await.ok()?;
    let (flush, mut flushes) = tokio::sync::mpsc::unbounded_channel::<Flush>();
    let note = move |msg: Option<zbus::Result<zbus::Message>>, signals: &Signals| match msg {
        Some(Ok(msg)) => {
            signals.note(&msg);
            true
        }
        // A signal we could not decode may have named anything.
        Some(Err(_)) => {
            signals.lost();
            true
        }
        None => false,
    };
    let task = tokio::spawn(async move {
        loop {
            tokio::select! {
                msg = stream.next() => if !note(msg, &signals) { break },
                Some(ack) = flushes.recv() => {
                    // What the connection has received is already queued in the stream.
                    while let Some(msg) = stream.next().now_or_never() {
                        if !note(msg, &signals) {
                            signals.lost();
                            return;
                        }
                    }
                    let _ = ack.send(());
                }
            }
        }
        signals.lost();
    });
    Some((task, flush))
}

impl Warm {
    /// The lock of `owner`'s state, made on first use.
    fn slot(&self, owner: &str) -> Slot {
        let mut apps = self.apps.lock().unwrap_or_else(|e| e.into_inner());
        apps.entry(owner.to_string()).or_default().clone()
    }

    /// The app's direct connection and its cache: the remembered one if nothing changed
    /// since, else a fresh `GetItems`.
    pub async fn app(&self, main: &Bus, owner: &str) -> Result<(Bus, AppCache), CallError> {
        self.app_as(main, owner, true).await
    }

    /// [`Warm::app`]; `read`: as a read's (the app is connected if it is not, and counts as
    /// used now), else only for an app kept now.
    async fn app_as(
        &self,
        main: &Bus,
        owner: &str,
        read: bool,
    ) -> Result<(Bus, AppCache), CallError> {
        // A read in the background is no read of the app: it neither connects one let go
        // nor keeps one nobody reads.
        let read = read && !is_background();
        let slot = self.slot(owner);
        let mut guard = slot.lock().await;
        if guard.is_none() && !read {
            return Err(CallError::Other("no longer kept".into()));
        }
        if guard.is_none() {
            let signals = Arc::new(Signals::new());
            let (listener, flush) = listen(main, owner, signals.clone()).await.unzip();
            let bus = main.with_peer(owner).await?;
            *guard = Some(App {
                bus,
                cache: None,
                signals,
                mirrors: HashMap::new(),
                answers: HashMap::new(),
                lent: HashMap::new(),
                lends: 0,
                listener,
                flush,
                used: Instant::now(),
            });
        }
        let Some(app) = guard.as_mut() else {
            return Err(CallError::Other("no app".into()));
        };
        if read {
            app.used = Instant::now();
        }
        if app.cache.is_some() && app.trusted() {
            barrier(main, owner, app).await?;
        }
        let clean = !app.signals.dirty.load(Ordering::SeqCst);
        if let (Some(cache), true) = (&app.cache, app.trusted() && clean) {
            return Ok((app.bus.clone(), cache.clone()));
        }
        // Cleared before asking: a change during the call marks it dirty again.
        app.signals.dirty.store(false, Ordering::SeqCst);
        match fetch_app_cache(&app.bus, owner).await {
            Ok(cache) => {
                app.cache = Some(cache.clone());
                Ok((app.bus.clone(), cache))
            }
            Err(e) => {
                *guard = None;
                Err(e)
            }
        }
    }

    /// The direct connection kept for `owner`, when a read opened one and no read holds the
    /// app now: an action on an element asks its questions over it rather than opening
    /// another (about 2 ms).
    pub fn peer(&self, owner: &str) -> Option<Bus> {
        let slot = self.slot(owner);
        let kept = slot
            .try_lock()
            .ok()
            .and_then(|guard| guard.as_ref().map(|app| app.bus.clone()));
        kept.or_else(|| {
            let acting = self.acting.lock().unwrap_or_else(|e| e.into_inner());
            acting.get(owner).cloned()
        })
    }

    /// Keeps a direct connection an action opened to `owner`, for the next actions.
    pub fn keep_peer(&self, owner: &str, bus: &Bus) {
        let mut acting = self.acting.lock().unwrap_or_else(|e| e.into_inner());
        acting.insert(owner.to_string(), bus.clone());
    }

    /// [`Warm::app`], with the app's cache asked again whatever its signals said: the
    /// window was seen to change where the app may not have said so (`quiet`).
    pub async fn app_afresh(&self, main: &Bus, owner: &str) -> Result<(Bus, AppCache), CallError> {
        if let Some(app) = self.slot(owner).lock().await.as_ref() {
            app.signals.dirty.store(true, Ordering::SeqCst);
        }
        self.app(main, owner).await
    }

    /// Has the next read of the window at `path` of `owner` ask every element its mirror
    /// remembers for its states and children again.
    pub async fn restate(&self, owner: &str, path: &str) {
        if let Some(m) = self
            .slot(owner)
            .lock()
            .await
            .as_mut()
            .and_then(|app| app.mirrors.get_mut(path))
        {
            m.memo.restate();
        }
    }

    /// The window at `root` walked through its mirror (`tree::read_subtree_with` with the
    /// app's cache `cache`), the mirror kept again when the walk succeeded.
    pub async fn walk(
        &self,
        bus: &Bus,
        root: &desktop_core::Handle,
        limits: crate::tree::Limits,
        cells: Option<&crate::cells::Cells>,
        cache: AppCache,
        showing: Showing<'_>,
    ) -> Result<(desktop_core::Node, crate::tree::Stats), CallError> {
        let (owner, path) = (root.owner(), root.path());
        let mut kept = self
            .mirror(owner, path, cache.trust(), showing, false)
            .await;
        let memo = Some(&mut kept.memo);
        let read = crate::tree::read_subtree_with(bus, root, limits, cells, memo, Some(cache));
        let mut read = read.await;
        if let Ok((_, stats)) = read.as_mut() {
            stats.beside = kept.beside;
            let redo = Refill {
                root: root.clone(),
                limits,
            };
            self.keep(owner, path, kept, redo).await;
        }
        read
    }

    /// The mirrors at least [`REFILL_AGE`] old of apps a read asked for within `idle`
    /// (those [`Warm::sweep`] keeps) and whose mirrors reads use, skipping apps being read
    /// now.
    pub fn aging(&self, idle: Duration) -> Vec<Refill> {
        let mut due = Vec::new();
        self.each_in_use(idle, |_, app| {
            // Where the toolkit's signals are not trusted every read walks afresh anyway.
            let mirrored = app
                .cache
                .as_ref()
                .is_some_and(|c| c.trust() != Trust::Nothing);
            if mirrored {
                due.extend(
                    app.mirrors
                        .values()
                        .filter(|m| m.filled.elapsed() >= REFILL_AGE)
                        .map(|m| m.redo.clone()),
                );
            }
        });
        due
    }

    /// Calls `f` with each app (and its owner) a read asked for within `idle` whose signals
    /// are trusted, skipping apps being read now: those whose state is kept up to date in
    /// the background.
    fn each_in_use(&self, idle: Duration, mut f: impl FnMut(&str, &App)) {
        let slots: Vec<(String, Slot)> = {
            let apps = self.apps.lock().unwrap_or_else(|e| e.into_inner());
            apps.iter().map(|(o, s)| (o.clone(), s.clone())).collect()
        };
        for (owner, slot) in slots {
            let Ok(guard) = slot.try_lock() else {
                continue;
            };
            if let Some(app) = guard
                .as_ref()
                .filter(|a| a.trusted() && a.used.elapsed() < idle)
            {
                f(&owner, app);
            }
        }
    }

    /// Walks the window of `r` afresh into a new mirror, as a read past [`MAX_AGE`] would,
    /// without counting as a read of its app (an app nobody reads is still let go). Nothing
    /// is done for an app already let go.
    pub async fn refill(
        &self,
        main: &Bus,
        r: &Refill,
        cells: Option<&crate::cells::Cells>,
    ) -> Result<(), CallError> {
        let (owner, path) = (r.root.owner(), r.root.path());
        // A hung app is told by a ping it does not answer at once, before anything waits
        // on it longer (the MCP server's calls wait for this walk).
        Self::answers(main, owner).await?;
        let (bus, cache) = self.app_as(main, owner, false).await?;
        let trust = cache.trust();
        let mut kept = self
            .mirror(owner, path, trust, Showing::Signalled, true)
            .await;
        let memo = Some(&mut kept.memo);
        crate::tree::read_subtree_with(&bus, &r.root, r.limits, cells, memo, Some(cache)).await?;
        self.keep(owner, path, kept, r.clone()).await;
        Ok(())
    }

    /// Kept answers due to be read again in full (`Answer::due`) of apps a read asked for
    /// within `idle` and whose signals are trusted, skipping apps being read now.
    pub fn answers_due(&self, idle: Duration) -> Vec<Reread> {
        let mut due = Vec::new();
        self.each_in_use(idle, |owner, app| {
            for (path, answer) in &app.answers {
                if let Some((window, filters)) = answer.due() {
                    due.push(Reread {
                        owner: owner.to_string(),
                        path: path.clone(),
                        window,
                        filters,
                    });
                }
            }
        });
        due
    }

    /// Takes the answer of `r` out, if it is still due (no read has replaced it since), for
    /// a read in full ([`in_background`]) to keep a new one.
    pub async fn take_due(&self, r: &Reread) -> bool {
        let slot = self.slot(&r.owner);
        let mut guard = slot.lock().await;
        let Some(app) = guard.as_mut() else {
            return false;
        };
        let due = app.answers.get(&r.path).is_some_and(Answer::is_due);
        if due {
            app.answers.remove(&r.path);
        }
        due
    }

    /// Whether `owner` answers a ping within [`crate::LIST_BUDGET`]: a hung app is told
    /// before anything in the background waits on it longer.
    pub async fn answers(main: &Bus, owner: &str) -> Result<(), CallError> {
        let ping = main.call::<_, ()>(owner, crate::bus::ROOT_PATH, PEER, "Ping", &());
        match tokio::time::timeout(crate::LIST_BUDGET, ping).await {
            Ok(result) => result,
            Err(_) => Err(CallError::Timeout),
        }
    }

    /// Drops the mirror a refill was for (the refill failed or took too long), when no read
    /// holds its app now; the next read walks the window afresh.
    pub fn forget(&self, r: &Refill) {
        let slot = self.slot(r.root.owner());
        let Ok(mut guard) = slot.try_lock() else {
            return;
        };
        if let Some(app) = guard.as_mut() {
            app.mirrors.remove(r.root.path());
        }
    }

    /// The mirror of the window at `path` of `owner`, brought up to date with the app's
    /// signals (empty when there is none yet, it is too old, or the toolkit's signals are
    /// not trusted at all); handed back with [`Warm::keep`] after the read.
    /// `afresh`: an empty one whatever is kept.
    async fn mirror(
        &self,
        owner: &str,
        path: &str,
        trust: Trust,
        showing: Showing<'_>,
        afresh: bool,
    ) -> Kept {
        // Children lists are asked again on every read, whatever the toolkit: GTK 3, Qt 5 and
        // Chromium leave some structural changes unsignalled, and GTK 4, which signals them
        // all, signals a new child only once it is realized, at its next frame, while asking
        // shows it at once (a read right after an insertion missed it: `cargo test --test
        // mirror`, the keeper's reads).
        let now = Instant::now();
        let fresh = |lend, beside| Kept {
            memo: Memo::rechecking(true, trust == Trust::Names),
            filled: now,
            lend,
            beside,
            asked: Some(now),
        };
        let slot = self.slot(owner);
        let mut guard = slot.lock().await;
        let Some(app) = guard.as_mut() else {
            return fresh(None, 0);
        };
        app.apply_signals();
        // Reads of one app may overlap: signals another takes in meanwhile are kept for this
        // one too.
        let beside = app.lent.len();
        app.lends += 1;
        let lend = app.lends;
        app.lent.insert(lend, Some(Vec::new()));
        // A read that failed never hands its mirror back: the oldest lendings are let go.
        while app.lent.len() > MAX_LENT {
            let Some(&oldest) = app.lent.keys().min() else {
                break;
            };
            app.lent.remove(&oldest);
        }
        // A walk afresh leaves the kept mirror to the reads meanwhile (`keep` keeps the
        // fresher of the two).
        let mirror = if afresh {
            None
        } else {
            app.mirrors.remove(path)
        };
        match mirror {
            Some(mut m) if trust != Trust::Nothing && m.filled.elapsed() < MAX_AGE => {
                let scrolled = |drawn: &crate::damage::Drawn, area| {
                    m.asked
                        .and_then(|t| t.checked_sub(SHOWING_LAG))
                        .is_none_or(|from| drawn.drawn_after(from, area))
                };
                let restate = match showing {
                    Showing::Signalled => false,
                    Showing::Drawn { drawn, area } => scrolled(drawn, area),
                    Showing::Asked => true,
                };
                if restate {
                    m.memo.restate();
                }
                Kept {
                    asked: if m.memo.restating() {
                        Some(now)
                    } else {
                        m.asked
                    },
                    memo: m.memo,
                    filled: m.filled,
                    lend: Some(lend),
                    beside,
                }
            }
            _ => fresh(Some(lend), beside),
        }
    }

    /// Keeps the mirror of the window at `path` after a read that used it.
    async fn keep(&self, owner: &str, path: &str, kept: Kept, redo: Refill) {
        let slot = self.slot(owner);
        let mut guard = slot.lock().await;
        let Some(app) = guard.as_mut() else {
            return;
        };
        let Kept {
            mut memo,
            filled,
            lend,
            beside: _,
            asked,
        } = kept;
        // What was applied to the other mirrors while this one was out is applied to it; a
        // mirror lent before the app's state was made again, or while everything was
        // forgotten, is not kept.
        match lend.and_then(|l| app.lent.remove(&l)) {
            Some(Some(missed)) => {
                for (path, children) in &missed {
                    memo.touched(path, *children);
                }
            }
            _ => return,
        }
        // A walk afresh kept meanwhile (`refill`) stands over a mirror filled before it.
        if app.mirrors.get(path).is_some_and(|m| m.filled > filled) {
            app.apply_signals();
            return;
        }
        app.mirrors.insert(
            path.to_string(),
            Mirror {
                memo,
                filled,
                redo,
                asked,
            },
        );
        // Signals that came during the read name what it may have missed.
        app.apply_signals();
    }

    /// The last answer kept for the window at `path` of `owner`, the signals since applied,
    /// with the app's count of change signals now; `None` when there is none, or the app's
    /// signals cannot be trusted now.
    pub async fn answer(&self, owner: &str, path: &str) -> Option<(Answer, Heard)> {
        let slot = self.slot(owner);
        let mut guard = slot.lock().await;
        let app = guard.as_mut().filter(|a| a.trusted())?;
        app.apply_signals();
        let answer = app.answers.remove(path)?;
        Some((answer, app.signals.heard()))
    }

    /// The app's count of change signals now (after the read's barrier); `None` when its
    /// signals cannot be trusted, so no answer read now may be given again.
    pub async fn changes(&self, owner: &str) -> Option<Heard> {
        let slot = self.slot(owner);
        let guard = slot.lock().await;
        let app = guard.as_ref().filter(|a| a.trusted())?;
        Some(app.signals.heard())
    }

    /// Keeps a window's answer to give it again while the window stays quiet.
    pub async fn keep_answer(&self, owner: &str, path: &str, answer: Answer) {
        let slot = self.slot(owner);
        let mut guard = slot.lock().await;
        let Some(app) = guard.as_mut() else {
            return;
        };
        // Signals noted while it was read or asked about (handed to no answer, for none
        // was kept meanwhile) may tell what it lacks: not kept then.
        if answer.heard() == app.signals.heard.load(Ordering::SeqCst) {
            app.answers.insert(path.to_string(), answer);
        }
        app.apply_signals();
    }

    /// Lets go of apps no read has asked for in `idle`, and of apps that are gone (their
    /// listeners ended): a long-lived process listens only to the apps it is reading.
    pub fn sweep(&self, idle: Duration) {
        // Opened again by the next action that needs one (an app gone leaves its own).
        self.acting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        let mut apps = self.apps.lock().unwrap_or_else(|e| e.into_inner());
        apps.retain(|_, slot| match slot.try_lock() {
            // Being read now.
            Err(_) => true,
            Ok(guard) => guard
                .as_ref()
                .is_some_and(|a| a.trusted() && a.used.elapsed() < idle),
        });
    }
}

/// Makes sure every signal `owner` sent before now has been noted: the app answers a ping
/// over the bus its signals travel on only after them, so once the answer is here they have
/// all been received, and the listener is asked to take them in before the read goes on.
/// An app that cannot be asked is taken as changed.
async fn barrier(main: &Bus, owner: &str, app: &App) -> Result<(), CallError> {
    match main
        .call::<_, ()>(owner, crate::bus::ROOT_PATH, PEER, "Ping", &())
        .await
    {
        Ok(()) => {}
        Err(CallError::Timeout) => return Err(CallError::Timeout),
        Err(_) => app.signals.dirty.store(true, Ordering::SeqCst),
    }
    let (ack, taken) = tokio::sync::oneshot::channel();
    let asked = app.flush.as_ref().is_some_and(|f| f.send(ack).is_ok());
    if !asked || tokio::time::timeout(main.timeout, taken).await.is_err() {
        app.signals.dirty.store(true, Ordering::SeqCst);
    }
    Ok(())
}

const PEER: &str = "org.freedesktop.DBus.Peer";

/// A window's mirror lent to one read.
struct Kept {
    memo: Memo,
    filled: Instant,
    /// Which lending of the app's mirrors this is (`App::lent`); none when the app had no
    /// state yet.
    lend: Option<u64>,
    /// Other lendings of the app's mirrors out when this one was lent: reads of the app
    /// running beside this one (or failed ones, which never hand theirs back).
    beside: usize,
    /// As [`Mirror::asked`], this walk's start when it asks every state.
    asked: Option<Instant>,
}

/// What a window list was seen against: the window system's top-level windows and focus,
/// the apps the registry knows, and how many windows apps had added or removed by then.
#[derive(Clone, Debug, PartialEq)]
pub struct Stamp {
    pub tops: Vec<crate::x11::XWindow>,
    pub focused: Option<u32>,
    pub apps: Vec<String>,
    pub generation: u64,
}

/// A target's window list and what it was seen against.
struct Seen {
    key: String,
    stamp: Stamp,
    list: desktop_core::WindowList,
    at: Instant,
}

/// A window list older than this is built afresh whatever the stamps say.
const WINDOWS_MAX_AGE: Duration = Duration::from_secs(2);

/// Window lists kept for the targets asked last.
const WINDOWS_KEPT: usize = 8;

/// Window lists of recent targets, and a count of the windows apps add or remove (their
/// roots' children), kept by one listener on the whole bus.
#[derive(Default)]
pub struct Windows {
    seen: Mutex<Vec<Seen>>,
    generation: Arc<std::sync::atomic::AtomicU64>,
    /// `None` until first used; a finished listener means no list is kept any more.
    listener: tokio::sync::OnceCell<Option<tokio::task::JoinHandle<()>>>,
}

impl std::fmt::Debug for Windows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Windows")
    }
}

impl Windows {
    /// The count of windows added or removed so far; `None` when no listener can tell.
    pub async fn generation(&self, main: &Bus) -> Option<u64> {
        let listener = self
            .listener
            .get_or_init(|| async {
                let mut stream = crate::events::roots(main).await.ok()?;
                let generation = self.generation.clone();
                Some(tokio::spawn(async move {
                    while stream.next().await.is_some() {
                        generation.fetch_add(1, Ordering::SeqCst);
                    }
                }))
            })
            .await;
        let alive = listener.as_ref().is_some_and(|l| !l.is_finished());
        alive.then(|| self.generation.load(Ordering::SeqCst))
    }

    /// The list last built for `key`, if nothing it was seen against has changed since.
    pub fn get(&self, key: &str, stamp: &Stamp) -> Option<desktop_core::WindowList> {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.iter()
            .find(|s| s.key == key && &s.stamp == stamp && s.at.elapsed() < WINDOWS_MAX_AGE)
            .map(|s| s.list.clone())
    }

    /// Keeps `list` for `key`, seen against `stamp`.
    pub fn put(&self, key: String, stamp: Stamp, list: desktop_core::WindowList) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.retain(|s| s.key != key);
        if seen.len() >= WINDOWS_KEPT {
            seen.remove(0);
        }
        seen.push(Seen {
            key,
            stamp,
            list,
            at: Instant::now(),
        });
    }
}

#[cfg(test)]
mod tests {
    //! A kept window list answers only while everything it was seen against is unchanged.

    use super::*;
    use crate::x11::XWindow;
    use desktop_core::{Rect, WindowInfo, WindowList};

    fn stamp(title: &str, focused: Option<u32>, generation: u64) -> Stamp {
        Stamp {
            tops: vec![XWindow {
                id: 7,
                pid: Some(42),
                title: title.into(),
                class: "App".into(),
                bounds: Rect::new(0, 0, 640, 480),
                state: Default::default(),
                modal: false,
            }],
            focused,
            apps: vec![":1.5".into()],
            generation,
        }
    }

    fn list(title: &str) -> WindowList {
        WindowList {
            windows: vec![WindowInfo {
                app: "App".into(),
                pid: 42,
                title: title.into(),
                id: Some(7),
                bounds: None,
                focused: true,
                a11y: true,
                modal: false,
                state: Default::default(),
                display: None,
                handle: None,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_list_answers_only_for_its_target_and_stamp() {
        let w = Windows::default();
        w.put("app".into(), stamp("Doc", Some(7), 3), list("Doc"));
        let hit = w.get("app", &stamp("Doc", Some(7), 3));
        assert_eq!(
            hit.map(|l| l.windows[0].title.clone()).as_deref(),
            Some("Doc")
        );
        assert!(w.get("other", &stamp("Doc", Some(7), 3)).is_none());
        // A new title, another focus, a window added or removed by an app: built afresh.
        assert!(w.get("app", &stamp("Doc 2", Some(7), 3)).is_none());
        assert!(w.get("app", &stamp("Doc", None, 3)).is_none());
        assert!(w.get("app", &stamp("Doc", Some(7), 4)).is_none());
        let mut other_apps = stamp("Doc", Some(7), 3);
        other_apps.apps.push(":1.9".into());
        assert!(w.get("app", &other_apps).is_none());
    }

    #[test]
    fn only_the_latest_targets_are_kept() {
        let w = Windows::default();
        for i in 0..=WINDOWS_KEPT {
            w.put(format!("t{i}"), stamp("Doc", None, 0), list("Doc"));
        }
        assert!(w.get("t0", &stamp("Doc", None, 0)).is_none());
        assert!(w
            .get(&format!("t{WINDOWS_KEPT}"), &stamp("Doc", None, 0))
            .is_some());
    }
}
