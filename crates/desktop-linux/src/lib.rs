//! Linux backend of desktop-cli: AT-SPI over D-Bus for trees, X11 for windows, and the
//! headless sandbox. `bus` is the only layer that talks D-Bus; `convert` is pure.
//!
//! The surface is small: [`LinuxDesktop`] (the core's `Desktop` contract), the sandbox, and
//! the process-level helpers below (clipboard, doctor, keeper, sandbox adoption).

mod act;
mod apps;
mod bus;
mod capture;
mod cells;
mod children;
mod clipboard;
mod clues;
mod compositor;
mod convert;
mod damage;
mod desktop;
mod diagnose;
mod displays;
mod events;
mod hydrate;
mod identity;
mod input;
mod keeper;
mod launch;
mod memo;
mod ping;
mod pixels;
mod procs;
mod quiet;
pub mod sandbox;
mod seat;
mod session;
mod showing;
mod tops;
mod tree;
mod warm;
pub(crate) mod wayland;
mod window_ops;
mod windows;
mod x11;

use bus::{Bus, CallError};
pub use compositor::Kind as Compositor;
pub use desktop::AppChanges;
pub use diagnose::{checks as doctor_checks, sandboxes as running_sandboxes};
pub use keeper::{ensure as ensure_keeper, run as run_keeper, socket as keeper_socket};
pub use session::adopt_sandbox;
pub use warm::{IDLE as WARM_IDLE, UPKEEP as WARM_UPKEEP};
pub use wayland::hold_seat as wayland_seat;

/// The clipboard as text: the CLIPBOARD selection on X11, the data-control selection on
/// Wayland.
pub mod clipboard_text {
    use crate::wayland::{clipboard as wl, Client};
    use crate::x11::X;
    use desktop_core::Result;
    use std::time::Duration;

    /// The clipboard's text, `None` when empty; never takes the clipboard from its owner.
    pub fn get(timeout: Duration) -> Result<Option<String>> {
        if crate::is_wayland() {
            return wl::get(&Client::connect()?, timeout);
        }
        crate::clipboard::get(&X::connect()?, timeout)
    }

    /// Puts `text` on the clipboard, kept there by `holder` after this process exits.
    pub fn set(text: &str, holder: std::process::Command, timeout: Duration) -> Result<()> {
        crate::clipboard::hand_over(text, holder, timeout)
    }

    pub fn clear() -> Result<()> {
        if crate::is_wayland() {
            return wl::clear(&Client::connect()?);
        }
        crate::clipboard::clear(&X::connect()?)
    }

    /// The holder's life: serve `text` until another client takes the clipboard.
    pub fn serve(text: &str, ready: impl FnOnce()) -> Result<()> {
        if crate::is_wayland() {
            return wl::serve(&Client::connect()?, text, ready);
        }
        crate::clipboard::serve(&X::connect()?, text, ready)
    }
}
use desktop_core::{Error, ErrorCode, Result, Target, WindowInfo, WindowList};
use std::time::{Duration, Instant};
use x11::X;

/// How long each app gets to answer when a command only lists what is there: longer than
/// any app that is merely busy takes here, short enough that a hung one costs little.
pub const LIST_BUDGET: Duration = Duration::from_millis(250);

/// Longest a background walk of an aging mirror may take (`refill_warm`): the MCP server
/// holds its desktop meanwhile, so a hung app may cost its calls this once, not a timeout
/// every round.
const REFILL_LIMIT: Duration = Duration::from_secs(1);

/// A connection to one desktop: the accessibility bus and (when there is one) X11.
pub struct LinuxDesktop {
    pub(crate) bus: Bus,
    /// The accessibility bus's address (identities and the keeper are per bus).
    pub(crate) address: String,
    pub(crate) x: Option<X>,
    /// A Wayland session's display and compositor (then `x` is `None`).
    pub(crate) wl: Option<wayland::Wl>,
    pub(crate) timeout: Duration,
    /// This process switched `org.a11y.Status.IsEnabled` on (apps started earlier may
    /// need a restart to expose their trees).
    pub(crate) enabled_now: bool,
    /// Milliseconds spent connecting, for `--timing`.
    pub(crate) connect_ms: f64,
    /// Per-app connections and caches kept between calls (long-lived processes only).
    pub(crate) warm: Option<warm::Warm>,
    /// Cells of large tables recent reads were handed (`cells`), shared by commands.
    pub(crate) cells: cells::Cells,
    /// Where this desktop's ids are kept, found once (it asks every sandbox record).
    pub(crate) refs: std::sync::OnceLock<std::path::PathBuf>,
    /// Reads handed to another process (`read_elsewhere`).
    pub(crate) elsewhere: Option<Elsewhere>,
}

/// A read made by another process of this program, from the windows it keeps warm (the
/// desktop's keeper); `None` when this process is to read by itself.
pub type Elsewhere = Box<
    dyn Fn(
            &Target,
            &desktop_core::Filters,
        ) -> std::pin::Pin<
            Box<dyn std::future::Future<Output = Option<Result<desktop_core::ReadData>>> + Send>,
        > + Send
        + Sync,
>;

impl std::fmt::Debug for LinuxDesktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinuxDesktop")
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Turns a failed call into the error an agent sees, naming the app.
pub fn app_error(e: CallError, app: &str, timeout: Duration) -> Error {
    match e {
        CallError::Timeout => Error::new(
            ErrorCode::AppUnresponsive,
            format!("{app} did not answer within {} ms", timeout.as_millis()),
        )
        .suggest(
            "The app is busy or hung: retry later, raise the call timeout, or restart the app",
        ),
        CallError::Gone(d) => Error::new(
            ErrorCode::WindowNotFound,
            format!("{app} went away while reading it"),
        )
        .detail(d)
        .suggest("List the windows to see what is open now"),
        CallError::Unsupported(d) | CallError::Decode(d) | CallError::Other(d) => Error::new(
            ErrorCode::ActionFailed,
            format!("{app} answered with an error"),
        )
        .detail(d),
    }
}

/// `APP_UNRESPONSIVE` for an app listed as unresponsive: stopped, or silent past the timeout.
fn hung_error(u: &desktop_core::Unresponsive, fallback: &str, timeout: Duration) -> Error {
    let app = u.app.clone().unwrap_or_else(|| fallback.to_string());
    if identity::is_stopped(u.pid) {
        return stopped_error(&app, u.pid);
    }
    app_error(CallError::Timeout, &app, timeout)
}

/// `APP_UNRESPONSIVE` for an app whose process is stopped: nothing is sent to it.
pub(crate) fn stopped_error(app: &str, pid: u32) -> Error {
    Error::new(
        ErrorCode::AppUnresponsive,
        format!("{app} (pid {pid}) is stopped and cannot answer; nothing was sent"),
    )
    .suggest("Continue it (kill -CONT, or leave the debugger), then retry")
}

/// The accessibility bus's address, found as [`LinuxDesktop::connect`] finds it, without
/// connecting to the bus.
pub async fn bus_address(timeout: Duration) -> Result<String> {
    if let Some(a) = std::env::var("AT_SPI_BUS_ADDRESS")
        .ok()
        .filter(|a| !a.is_empty())
    {
        return Ok(a);
    }
    let x = if is_wayland() {
        None
    } else {
        X::connect().ok()
    };
    session::a11y_address(x.as_ref(), timeout).await
}

/// Releases the keys and pointer buttons left held down on this X display (see
/// `X::release_held`); how many. On Wayland a virtual keyboard's keys go with its client.
pub fn release_held_input() -> Result<usize> {
    if is_wayland() {
        return Ok(0);
    }
    X::connect()?.release_held()
}

/// Whether this process runs in a Wayland session (`WAYLAND_DISPLAY` is set).
pub fn is_wayland() -> bool {
    std::env::var_os("WAYLAND_DISPLAY").is_some_and(|v| !v.is_empty())
}

impl LinuxDesktop {
    /// The top-level windows as the window system shows them, bottom of the stack first.
    pub(crate) fn tops(&self) -> Result<Vec<x11::XWindow>> {
        match (&self.x, &self.wl) {
            (Some(x), _) => match self.warm.as_ref().and_then(|w| w.tops.as_ref()) {
                Some(tops) => tops.windows(x),
                None => x.windows(),
            },
            (None, Some(wl)) => wl.windows(),
            (None, None) => Ok(Vec::new()),
        }
    }

    /// [`LinuxDesktop::tops`] and the focused one of them.
    fn tops_focused(&self) -> Result<(Vec<x11::XWindow>, Option<u32>)> {
        if let (Some(x), Some(tops)) = (&self.x, self.warm.as_ref().and_then(|w| w.tops.as_ref())) {
            return tops.windows_focused(x);
        }
        let tops = self.tops()?;
        let focused = self.focused_of(&tops);
        Ok((tops, focused))
    }

    /// The whole screen's box, where the window system tells it.
    pub(crate) fn screen_box(&self) -> Option<desktop_core::Rect> {
        match (&self.x, &self.wl) {
            (Some(x), _) => Some(x.screen),
            (None, Some(wl)) => Some(wl.screen()),
            (None, None) => None,
        }
    }

    /// Whether connecting switched accessibility on (apps started before may need a restart).
    pub fn enabled_now(&self) -> bool {
        self.enabled_now
    }

    /// The accessibility bus's address.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Keeps per-app connections and caches between calls, invalidated by the apps' own
    /// change signals, and the last capture's shared memory: for a long-lived process (the
    /// MCP server).
    pub fn keep_warm(&mut self) {
        let mut warm = warm::Warm::default();
        if let Some(x) = &self.x {
            x.frames.keep();
            warm.drawn = damage::Drawn::new();
            warm.tops = tops::Tops::new();
        }
        self.warm = Some(warm);
    }

    /// Hands this process's reads to `reader` first: a process that starts afresh but acts
    /// turn after turn (the agent) then reads from mirrors that outlive it, kept by the
    /// desktop's keeper, instead of walking every window again the first time.
    pub fn read_elsewhere(&mut self, reader: Elsewhere) {
        self.elsewhere = Some(reader);
    }

    /// A direct connection to the app `owner`: the one a long-lived process keeps (a
    /// read's, or one an earlier action opened), else a new one (`Bus::with_peer`), kept.
    pub(crate) async fn peer(&self, owner: &str) -> Result<Bus, CallError> {
        let Some(warm) = self.warm.as_ref() else {
            return self.bus.with_peer(owner).await;
        };
        if let Some(bus) = warm.peer(owner) {
            return Ok(bus);
        }
        let bus = self.bus.with_peer(owner).await?;
        warm.keep_peer(owner, &bus);
        Ok(bus)
    }

    /// Lets go of the warm state of apps no read asked for in `idle`.
    pub fn sweep_warm(&self, idle: Duration) {
        if let Some(w) = &self.warm {
            w.sweep(idle);
        }
    }

    /// Reads again in full, one after the other, the quiet windows whose kept answers near
    /// their age, and walks afresh the window mirrors that near theirs, while their apps
    /// are read (asked for within `idle`), so that no read pays for either.
    /// A walk that fails or takes longer than [`REFILL_LIMIT`] (a hung app) drops its
    /// mirror, so it is not tried again: the next read walks afresh, as it would have.
    pub async fn refill_warm(&self, idle: Duration) {
        let Some(w) = &self.warm else {
            return;
        };
        // Quiet windows' answers first: their reads walk the mirrors too.
        for r in w.answers_due(idle) {
            if warm::Warm::answers(&self.bus, &r.owner).await.is_err() {
                continue;
            }
            if !w.take_due(&r).await {
                continue;
            }
            let read = desktop::read_window_with(self, r.window, &r.filters, None);
            // Failed or too slow: no answer is kept, and the next read reads in full.
            let _ = tokio::time::timeout(REFILL_LIMIT, warm::in_background(read)).await;
        }
        for r in w.aging(idle) {
            let walk = w.refill(&self.bus, &r, Some(&self.cells));
            match tokio::time::timeout(REFILL_LIMIT, walk).await {
                Ok(Ok(())) => self.cells.save(),
                _ => w.forget(&r),
            }
        }
    }

    /// Connects to X (if a display is set) and to the accessibility bus, switching
    /// accessibility on if it is off. Every step is bounded by `timeout`.
    pub async fn connect(timeout: Duration) -> Result<Self> {
        let t = Instant::now();
        // A Wayland session is driven as one even where Xwayland offers an X display: X
        // would see only the X clients, and place nothing else.
        let (x, wl) = if is_wayland() {
            (None, Some(wayland::Wl::connect()?))
        } else {
            (Some(X::connect()?), None)
        };
        let (addr, enabled) = tokio::join!(
            session::a11y_address(x.as_ref(), timeout),
            session::ensure_enabled(timeout)
        );
        let addr = addr?;
        let bus = Bus::open(&addr, timeout).await.map_err(|e| {
            Error::new(ErrorCode::A11yUnavailable, format!("cannot connect to the accessibility bus {addr}: {e}"))
                .suggest("Restart the AT-SPI bus (the doctor check shows how), or use a headless sandbox desktop")
        })?;
        Ok(Self {
            bus,
            x,
            wl,
            timeout,
            enabled_now: enabled.unwrap_or(false),
            connect_ms: t.elapsed().as_secs_f64() * 1000.0,
            warm: None,
            cells: cells::Cells::for_bus(&addr),
            refs: std::sync::OnceLock::new(),
            elsewhere: None,
            address: addr,
        })
    }

    /// How far a read of `window` goes: its cells in view (the window's box on screen) and
    /// a time budget of one call timeout.
    pub(crate) fn limits(&self, window: &WindowInfo) -> tree::Limits {
        let screen = self.screen_box();
        let view = match (window.bounds, screen) {
            (Some(w), Some(s)) => Some(w.intersection(&s).unwrap_or(w)),
            (w, s) => w.or(s),
        };
        tree::Limits {
            view,
            budget: self.timeout,
            ..tree::Limits::default()
        }
    }

    /// The apps `q` asks for, using and extending the bus's identities file.
    async fn app_list(&self, q: &apps::AppQuery) -> Result<apps::Listing> {
        let known = identity::Identities::load(&self.address);
        let listing = apps::list(&self.bus, q, &known)
            .await
            .map_err(|e| match e {
                CallError::Timeout => Error::new(
                    ErrorCode::A11yUnavailable,
                    "the AT-SPI registry did not answer",
                )
                .suggest("Restart the accessibility bus (the doctor command shows how)"),
                other => Error::new(
                    ErrorCode::A11yUnavailable,
                    format!("cannot list applications: {other}"),
                )
                .suggest("Check the accessibility bus with the doctor command"),
            })?;
        if !listing.learned.is_empty() {
            identity::Identities::merge_save(&self.address, &listing.learned, &listing.live);
        }
        Ok(listing)
    }

    /// All windows, joined with X, narrowed to what `target` can match. `budget` bounds
    /// each app's answer when the caller only browses.
    async fn all_windows(&self, target: &Target, budget: Option<Duration>) -> Result<WindowList> {
        let (xwins, focused) = self.tops_focused()?;
        self.windows_among(target, budget, xwins, focused).await
    }

    /// The top-level window with the keyboard focus, of `tops`.
    fn focused_of(&self, tops: &[x11::XWindow]) -> Option<u32> {
        match (&self.x, &self.wl) {
            (Some(x), _) => x.focused(tops),
            (None, Some(wl)) => wl.focused(tops),
            (None, None) => None,
        }
    }

    /// The windows `target` may name. A long-lived process keeps the list it built for the
    /// same target while the window system's windows and focus, the registered apps and the
    /// apps' own windows (their roots' children) are all as they were, for at most 2 s: then
    /// only those are asked, not every app for its frames. `budget` bounds each app's
    /// answer when the caller only browses (`all_windows`).
    pub(crate) async fn target_windows(
        &self,
        target: &Target,
        budget: Option<Duration>,
    ) -> Result<WindowList> {
        // Where the window system lists no windows itself (Wayland without sway's IPC),
        // nothing would tell a kept list from a stale one (the focus among them, say).
        let unseen = self.wl.as_ref().is_some_and(|wl| !wl.positions());
        let Some(warm) = self.warm.as_ref().filter(|_| !unseen) else {
            return self.all_windows(target, budget).await;
        };
        // The registry is asked first: the window system is asked (blocking) while its
        // answer comes.
        let (apps, generation, tops) = tokio::join!(
            apps::registered_names(&self.bus),
            warm.windows.generation(&self.bus),
            async { self.tops_focused() }
        );
        let (tops, focused) = tops?;
        let stamp = match (apps, generation) {
            (Ok(apps), Some(generation)) => Some(warm::Stamp {
                tops: tops.clone(),
                focused,
                apps,
                generation,
            }),
            _ => None,
        };
        let key = format!("{target:?} {budget:?}");
        if let Some((list, stamp)) = stamp
            .as_ref()
            .and_then(|s| Some((warm.windows.get(&key, s)?, s)))
        {
            // Browsing lists every app that does not answer: each is pinged (a read of a
            // window pings its own app anyway).
            let answer = match budget {
                Some(b) => apps::all_answer(&self.bus, &stamp.apps, b).await,
                None => true,
            };
            if answer {
                return Ok(list);
            }
        }
        let list = self.windows_among(target, budget, tops, focused).await?;
        // A list with an app that did not answer is never kept: it may answer next time.
        if let (Some(stamp), true) = (stamp, list.unresponsive.is_empty()) {
            warm.windows.put(key, stamp, list.clone());
        }
        Ok(list)
    }

    /// `all_windows`, with the window system's windows and focus already asked.
    async fn windows_among(
        &self,
        target: &Target,
        budget: Option<Duration>,
        xwins: Vec<x11::XWindow>,
        focused: Option<u32>,
    ) -> Result<WindowList> {
        if let Some(wl) = &self.wl {
            wl.check_target(target)?;
        }
        // A window id or pid narrows the apps to ask before any app is asked anything; so
        // does an empty target (the focused window's app).
        let pid_of = |id: u64| xwins.iter().find(|w| u64::from(w.id) == id)?.pid;
        let pid = target
            .pid
            .or_else(|| target.window_id.and_then(pid_of))
            .or_else(|| {
                (target.is_empty() && budget.is_none())
                    .then(|| focused.and_then(|f| pid_of(u64::from(f))))
                    .flatten()
            });
        let q = apps::AppQuery {
            name: target.app.clone(),
            pid,
            frames: true,
            budget,
        };
        let mut listing = self.app_list(&q).await?;
        if q.name.is_some() && listing.apps.iter().all(|a| !a.matched) {
            // No app has that name: it may be a window's title (`windows::filter`), so
            // every app is asked for its windows.
            listing = self.app_list(&apps::AppQuery { name: None, ..q }).await?;
        }
        // A hung app nobody has named yet: its windows' class (which toolkits derive from
        // the app's name), else its program's full name.
        for u in listing.unresponsive.iter_mut().filter(|u| u.app.is_none()) {
            u.app = xwins
                .iter()
                .find(|w| w.pid == Some(u.pid) && !w.class.is_empty())
                .map(|w| w.class.clone())
                .or_else(|| identity::program_name(u.pid));
        }
        // Popups are looked at only for frames nothing else would show (Chromium's menus).
        let unnamed = listing
            .apps
            .iter()
            .flat_map(|a| &a.frames)
            .any(|f| f.name.is_empty() && f.states.contains(desktop_core::States::SHOWING));
        let popups = match &self.x {
            Some(x) if unnamed => x.popups(),
            _ => Vec::new(),
        };
        let relative = self.wl.is_some();
        let mut windows = windows::join(&listing.apps, &xwins, &popups, focused, relative);
        if let Some(wl) = &self.wl {
            // What the compositor tells beyond sway's IPC, and no frame's box as a window's.
            let skipped: Vec<&str> = listing
                .apps
                .iter()
                .filter(|a| !a.matched)
                .map(|a| a.name.as_str())
                .collect();
            windows = wl.settle_windows(windows, &skipped)?;
        }
        let app_names = listing.apps.into_iter().map(|a| a.name).collect();
        Ok(WindowList {
            windows,
            unresponsive: listing.unresponsive,
            app_names,
        })
    }

    /// The window a command targets (the focused one when `target` is empty).
    pub(crate) async fn resolve_window(&self, target: &Target) -> Result<WindowInfo> {
        let list = self.target_windows(target, None).await?;
        let wanted = |u: &&desktop_core::Unresponsive| {
            let named = target
                .app
                .as_deref()
                .is_some_and(|a| u.app.as_deref().is_some_and(|n| apps::name_matches(n, a)));
            // No target: the focused window's app was the only one asked.
            named || target.pid.is_some_and(|p| p == u.pid) || target.is_empty()
        };
        if let Some(u) = list.unresponsive.iter().find(wanted) {
            if windows::filter(list.windows.clone(), target).is_empty() {
                return Err(hung_error(u, &format!("pid {}", u.pid), self.timeout));
            }
        }
        let w = windows::pick(&list.windows, target, &list.app_names)?;
        // The window of a hung app shows up without its (unanswered) accessibility tree.
        if !w.a11y {
            if let Some(u) = list
                .unresponsive
                .iter()
                .find(|u| u.pid != 0 && u.pid == w.pid)
            {
                return Err(hung_error(u, &w.app, self.timeout));
            }
        }
        Ok(w)
    }
}
