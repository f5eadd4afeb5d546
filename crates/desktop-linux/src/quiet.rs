//! A window's last answer given again while the window is quiet (X11, long-lived processes):
//! no other window covers it, its app has signalled nothing since but what the answer can
//! take in (a state or value of an element it shows: that element is asked again whole),
//! and nothing was drawn in it but inside elements of the answer that hold nothing else (a
//! caret in its field, a spinner, a ticked box) — those, and any whose box the app says
//! changed or that reaches past the screen, are asked again and must be as they were.
//!
//! Why drawing tells what signals do not: whatever moves, appears or changes in a window
//! that shows is drawn, where it was and where it is (scrolling included, which no toolkit
//! signals as boxes changing, and structural changes some toolkits leave unsignalled);
//! drawing under another window is not, hence the cover. An answer is given again for
//! [`MAX_AGE`] at most after it was read in full, and for [`LOOSE_AGE`] where the window
//! draws what its boxes do not explain.
//!
//! Drawing the boxes cannot explain (one rectangle around a spinner and a progress bar
//! across a window, as GTK 3 draws them) is held to the window's pixels, captured before
//! its last full read (`pixels`): every pixel that changed must lie in an element that
//! holds nothing else, which is asked again. A change that leaves every pixel as it was
//! goes unseen that way; so would one made and undone while the window was read.
//!
//! Drawing that no element of the answer holds (a spinner the filters drop) has the window
//! read in full; where it comes again and again, each time with the answer found as it
//! was, it is learned (`pixels::Restless`) and needs nothing asked again. What appears
//! silently where a window animates goes unseen that way until the answer's age is up.

use crate::bus::{Addr, Bus};
use crate::damage::Drawn;
use crate::pixels::Restless;
use desktop_core::shot::Capture;
use desktop_core::{Filters, Node, ReadData, Rect, Role, States, WindowInfo};
use futures_util::future::join_all;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// An answer is read in full again once it is this old, whatever was seen meanwhile: the
/// bound on a change the app neither signalled nor drew (what no one can see changed, as
/// a tooltip's text set silently). Long enough to span an agent's turn (a model thinks for
/// seconds between two reads): each read within it that finds the window quiet costs a few
/// ms, against 15–50 for a walk of a Chromium page through its mirror.
const MAX_AGE: Duration = Duration::from_secs(10);

/// An answer this old, of a window still being read, is read again in full in the
/// background (`Warm::answers_due`), before [`MAX_AGE`]: a window that stays quiet is
/// answered again at any tempo, and the read in full the age asks for is still made.
const REREAD_AGE: Duration = Duration::from_secs(6);

/// [`MAX_AGE`] of an answer whose window draws what its boxes do not explain (its pixels
/// kept, or cells learned restless): there a change that leaves every pixel as it was, or
/// one that appears exactly where the window animates, goes unseen until then.
const LOOSE_AGE: Duration = Duration::from_secs(3);

/// The window's pixels are kept with its answers while it was seen drawing what its boxes
/// do not explain within this long; then the next full read lets them go, and with them
/// the [`LOOSE_AGE`]. A window that scrolled once (Chromium's page) is answered like any
/// other once it holds still; should it draw so again, that read is full and keeps them.
const PIXELS_KEPT: Duration = Duration::from_secs(10);

/// After drawing nothing explained, the window is read in full (as if drawn again) for this
/// long: Chromium marks what a scroll hid a little after it draws the scroll, silently.
const SETTLE: Duration = Duration::from_millis(500);

/// Elements asked again in one look at most; past that the window is read in full.
const MAX_ASKED: usize = 64;

/// A read's answer and what it was read against.
pub struct Answer {
    filters: Filters,
    screen: Option<Rect>,
    window: WindowInfo,
    data: ReadData,
    /// The app's counts of signals when it was read.
    heard: crate::warm::Heard,
    /// The number of the first rectangle drawn after it was read ([`Drawn::now`]).
    drawn: u64,
    /// Elements whose box the app said changed since (`None`: too many to keep).
    moved: Option<HashSet<String>>,
    /// Elements the app's other signals named since (`None`: too many to keep).
    named: Option<HashSet<String>>,
    /// Elements whose children the app said changed since (`None`: too many to keep).
    reshaped: Option<HashSet<String>>,
    /// Added to boxes the toolkit gives from its window's corner (GTK 4).
    shift: (i32, i32),
    /// When drawing nothing explained was last seen, if before this answer's read.
    drew: Option<Instant>,
    /// The window's pixels just before it was read, where it draws what its boxes do not
    /// explain (`pixels`).
    pixels: Option<Capture>,
    /// When such drawing was last seen, where the pixels are kept.
    unexplained: Option<Instant>,
    /// Where it draws without end what no element holds.
    restless: Restless,
    at: Instant,
}

/// What a full read was asked and saw, kept to answer the same read again.
pub struct Seen<'a> {
    pub filters: &'a Filters,
    pub screen: Option<Rect>,
    pub heard: crate::warm::Heard,
    pub drawn: u64,
    pub shift: (i32, i32),
    /// When drawing nothing explained was last seen (`Outcome::Drew`), if it was.
    pub drew: Option<Instant>,
    /// The window's shown part captured after `drawn` was taken and before the read.
    pub pixels: Option<Capture>,
    /// When drawing the boxes do not explain was last seen, with `pixels`.
    pub unexplained: Option<Instant>,
    /// What the last answer of the window learned of where it draws without end, and the
    /// drawing found unexplained since, to learn from ([`Outcome`]).
    pub restless: Restless,
}

/// Elements the app named kept per answer, at most, for each kind of signal.
const MAX_NAMED: usize = 1024;

/// Adds `path` to `set`, which becomes `None` (too many to keep) past [`MAX_NAMED`].
fn note(set: &mut Option<HashSet<String>>, path: &str) {
    match set.as_mut() {
        Some(s) if s.len() < MAX_NAMED => {
            s.insert(path.to_string());
        }
        _ => *set = None,
    }
}

impl Answer {
    pub fn new(seen: Seen<'_>, data: &ReadData) -> Answer {
        let area = shown(&data.window, seen.screen).unwrap_or_default();
        let mut leaves = Vec::new();
        for n in &data.elements {
            n.walk(&mut |x| {
                if let Some(b) = x.bounds.filter(|b| x.children.is_empty() && b.is_valid()) {
                    leaves.push(b);
                }
            });
        }
        let restless = seen
            .restless
            .after_read(area, shape(&data.elements), &leaves);
        Answer {
            filters: seen.filters.clone(),
            screen: seen.screen,
            window: data.window.clone(),
            data: data.clone(),
            heard: seen.heard,
            drawn: seen.drawn,
            moved: Some(HashSet::new()),
            named: Some(HashSet::new()),
            reshaped: Some(HashSet::new()),
            shift: seen.shift,
            drew: seen.drew,
            unexplained: seen.unexplained.filter(|_| seen.pixels.is_some()),
            pixels: seen.pixels,
            restless,
            at: Instant::now(),
        }
    }

    /// The window and the request, if this answer is due to be read again in full in the
    /// background ([`REREAD_AGE`]): only one that lasts [`MAX_AGE`] (a window that animates
    /// keeps what it learned of its drawing from answer to answer, on the reads' path).
    pub fn due(&self) -> Option<(WindowInfo, Filters)> {
        self.is_due()
            .then(|| (self.window.clone(), self.filters.clone()))
    }

    /// Whether it is due to be read again in full in the background ([`Answer::due`]).
    pub fn is_due(&self) -> bool {
        self.max_age() == MAX_AGE && self.at.elapsed() >= REREAD_AGE
    }

    /// How long it may be given again after its full read ([`MAX_AGE`], [`LOOSE_AGE`]).
    fn max_age(&self) -> Duration {
        if self.pixels.is_some() || self.restless.learned() > 0 {
            LOOSE_AGE
        } else {
            MAX_AGE
        }
    }

    /// When the window was last seen drawing what its boxes could not explain, where its
    /// pixels were kept with the answer and that was within [`PIXELS_KEPT`]: the next
    /// answer keeps them too, as it may draw so again.
    pub fn unexplained_lately(&self) -> Option<Instant> {
        self.unexplained
            .filter(|at| self.pixels.is_some() && at.elapsed() < PIXELS_KEPT)
    }

    /// The app's counts of signals it was read (or last asked about) at.
    pub fn heard(&self) -> u64 {
        self.heard.all
    }

    /// The app said the box of the element at `path` changed.
    pub fn moved(&mut self, path: &str) {
        note(&mut self.moved, path);
    }

    /// A signal of the app named the element at `path` (said its `children` changed).
    pub fn named(&mut self, path: &str, children: bool) {
        if children {
            note(&mut self.reshaped, path);
        } else {
            note(&mut self.named, path);
        }
    }

    /// The app's signals can no longer be told apart: nothing kept can be trusted.
    pub fn forget(&mut self) {
        self.moved = None;
        self.named = None;
        self.reshaped = None;
    }

    /// Whether a change of children outside what the answer shows can leave it as it is:
    /// only the interactive filter drops all an element may gain (text, containers), and
    /// only an answer with nothing cut off at its limit shows every element kept.
    fn takes_outside_changes(&self) -> bool {
        let f = &self.filters;
        f.interactive
            && f.visible_only
            && f.roles.is_none()
            && f.text.is_none()
            && !f.full
            && self.data.total == self.data.shown
    }
}

/// What a read asks now, to compare with an answer.
pub struct Asked<'a> {
    pub filters: &'a Filters,
    pub screen: Option<Rect>,
    pub window: &'a WindowInfo,
    /// The app's counts of signals now.
    pub heard: crate::warm::Heard,
    /// [`Drawn::now`], just taken.
    pub drawn: u64,
    /// Whether `Properties.GetAll` is safe with the app's toolkit (asking a named element).
    pub get_all: bool,
    /// States the read judges itself (GTK 4's SHOWING): the answer's stand, whatever the
    /// element says when asked again.
    pub derived: States,
    /// The screen, to tell by its pixels what drawing changed where boxes do not.
    pub x: Option<&'a crate::x11::X>,
}

/// What became of a kept answer. Where it is not given again, what it learned of where
/// its window draws without end is handed on to the next read's ([`Seen::restless`]).
pub enum Outcome {
    /// Given again (the data), and kept on (the answer).
    Again(Box<(ReadData, Answer)>),
    /// The window changed where the app may not have said so (drawing that no leaf
    /// explains, a leaf not as it was, or such drawing less than [`SETTLE`] ago: when):
    /// what the app's own cache holds may be stale too.
    Drew(Instant, Restless),
    /// Not to be given again (another read, a change signalled, a cover, too old).
    Read(Restless),
}

/// The answer again if the window is quiet (see the module), brought up to `asked`.
pub async fn again(bus: &Bus, drawn: &Drawn, mut answer: Answer, asked: Asked<'_>) -> Outcome {
    let t = Instant::now();
    let (dx, dy) = answer.shift;
    let shifted = |b: Option<Rect>| b.map(|b| Rect::new(b.x + dx, b.y + dy, b.w, b.h));
    let pending = pending(drawn, &answer, &asked);
    let Pending {
        named,
        outside,
        drawn: rects,
        area,
        ask,
    } = match pending {
        Ok(p) => p,
        Err(miss) => return missed(miss, answer.restless),
    };
    // All asked at once: the elements outside the answer whose children changed (taken in
    // where the answer stays as it is; their boxes explain their drawing), every element
    // the drawing may have to be explained by, for its box and value, and the elements the
    // app said changed, whole (taken in where only what a read shows of them changed: a
    // state, a value, never what shapes the answer).
    let owner = asked.window.handle.as_ref().map_or("", |h| h.owner());
    let unmoved = HashSet::new();
    let moved = answer.moved.as_ref().unwrap_or(&unmoved);
    // What the drawing asks, where already known; else all it may ask, at once.
    let may_ask = match &ask {
        Some((ask, _)) => ask.clone(),
        None => candidates(&answer.data.elements, &rects, area, moved),
    };
    if may_ask.len() + named.len() + outside.len() > MAX_ASKED {
        return Outcome::Read(answer.restless);
    }
    let (boxes, looks, asked_whole) =
        tokio::join!(
            join_all(
                outside
                    .iter()
                    .map(|p| outside_box(bus, &answer, owner, p, shifted))
            ),
            join_all(may_ask.iter().map(|n| async move {
                tokio::join!(crate::hydrate::look(bus, n), state_of(bus, n))
            })),
            join_all(named.iter().map(|n| async move {
                tokio::join!(
                    crate::tree::fetch_node(bus, n.handle.clone(), asked.get_all),
                    crate::hydrate::look(bus, n)
                )
            }))
        );
    let Some(held) = boxes.into_iter().collect::<Option<Vec<Rect>>>() else {
        return Outcome::Read(answer.restless);
    };
    let (ask, by_pixels) = match ask {
        Some(ask) => ask,
        None => {
            let explained = explain(&answer.data.elements, &rects, area, moved, &held)
                .ok_or(Miss::Drew(Instant::now()))
                .and_then(|e| by_pixels(e, &answer, asked.x))
                .and_then(|ask| settled(&answer).map(|()| ask));
            match explained {
                Ok(ask) => ask,
                Err(miss) => return missed(miss, answer.restless),
            }
        }
    };
    // Elements drawn in: box and value as they were, and states too but for those the
    // answer takes in (some apps change a state without a signal: Chromium a check box
    // unticked and disabled at once).
    let mut patches = Vec::new();
    for (n, (look, states)) in may_ask.iter().zip(looks) {
        if !ask.iter().any(|a| std::ptr::eq(*a, *n)) {
            continue;
        }
        let (Ok((bounds, value)), Ok(states)) = (look, states) else {
            return Outcome::Drew(Instant::now(), answer.restless);
        };
        if shifted(bounds) != n.bounds
            || (crate::hydrate::has_value(n) && value != n.value)
            || (n.states.bits() ^ states.bits()) & !PATCHED.union(asked.derived).bits() != 0
        {
            return Outcome::Drew(Instant::now(), answer.restless);
        }
        // (One a signal named is taken in below, whole.)
        if states != n.states && !named.iter().any(|m| std::ptr::eq(*m, *n)) {
            patches.push((n.handle.clone(), states, n.value.clone()));
        }
    }
    for (n, (now, look)) in named.iter().zip(asked_whole) {
        let (Ok(now), Ok((bounds, value))) = (now, look) else {
            return Outcome::Read(answer.restless);
        };
        let same_shape = now.role == n.role
            && now.name == n.name
            && now.description == n.description
            && now.child_count == n.child_count
            && shifted(bounds) == n.bounds
            && (n.states.bits() ^ now.states.bits()) & !PATCHED.union(asked.derived).bits() == 0;
        if !same_shape {
            return Outcome::Read(answer.restless);
        }
        let value = if crate::hydrate::has_value(n) {
            value
        } else {
            n.value.clone()
        };
        // A scroll bar moved: what it scrolls moved too, silently, and maybe not drawn yet
        // (GTK 3 moves the boxes at once and draws them at its next frame).
        if n.role == Role::ScrollBar && value != n.value {
            return Outcome::Drew(Instant::now(), answer.restless);
        }
        patches.push((n.handle.clone(), now.states, value));
    }
    let (asked_again, patched, absorbed) = (ask.len(), patches.len(), held.len());
    for (handle, states, value) in patches {
        for e in answer.data.elements.iter_mut() {
            e.walk_mut(&mut |x| {
                if x.handle == handle {
                    x.states = states;
                    x.value.clone_from(&value);
                }
            });
        }
    }
    if by_pixels > 0 {
        answer.unexplained = Some(Instant::now());
    }
    // As good as a read now: what is drawn and signalled later is compared from here.
    answer.drawn = asked.drawn;
    answer.heard = asked.heard;
    answer.moved = Some(HashSet::new());
    answer.named = Some(HashSet::new());
    answer.reshaped = Some(HashSet::new());
    let mut data = answer.data.clone();
    data.ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    data.timing = vec![
        ("again", t.elapsed().as_secs_f64() * 1000.0),
        ("asked", asked_again as f64),
        ("patched", patched as f64),
        ("absorbed", absorbed as f64),
        ("pixels", by_pixels as f64),
        ("restless", answer.restless.learned() as f64),
    ];
    Outcome::Again(Box::new((data, answer)))
}

/// States a kept answer takes in from an element asked again: what a read shows of an
/// element that the filters keep anyway (they keep named and interactive elements whatever
/// their state), never what decides whether it shows, is a control or has children shown.
const PATCHED: States = States::FOCUSED
    .union(States::SELECTED)
    .union(States::CHECKED)
    .union(States::MIXED)
    .union(States::PRESSED)
    .union(States::BUSY)
    .union(States::INVALID)
    .union(States::REQUIRED)
    .union(States::READ_ONLY)
    .union(States::DISABLED)
    .union(States::ACTIVE);

/// Whether an answer may take in what `msg` signals by asking again: what [`patchable`]
/// says, or a change of children, taken in where the element is outside the answer and
/// what it holds now adds nothing to it (else the window is read in full).
pub fn absorbable(msg: &zbus::Message) -> bool {
    patchable(msg) || crate::events::object_of(msg).is_some_and(|(_, children)| children)
}

/// Whether an answer can take in what `msg` signals by asking the element it names again:
/// a state of those in [`PATCHED`], a value or text. Anything else (a name, children, a
/// state that decides what shows) has the window read in full.
pub fn patchable(msg: &zbus::Message) -> bool {
    let header = msg.header();
    if header
        .interface()
        .is_none_or(|i| i.as_str() != "org.a11y.atspi.Event.Object")
    {
        return false;
    }
    let detail = || {
        let body = msg.body();
        let s: zbus::zvariant::Structure = body.deserialize().ok()?;
        match s.fields().first()? {
            zbus::zvariant::Value::Str(d) => Some(d.as_str().to_string()),
            _ => None,
        }
    };
    match header.member().map(|m| m.as_str()) {
        Some(
            "TextChanged" | "TextCaretMoved" | "TextSelectionChanged" | "TextAttributesChanged",
        ) => true,
        Some("PropertyChange") => detail().is_some_and(|d| d == "accessible-value"),
        Some("StateChanged") => detail().is_some_and(|d| {
            matches!(
                d.as_str(),
                "focused"
                    | "selected"
                    | "checked"
                    | "indeterminate"
                    | "pressed"
                    | "armed"
                    | "busy"
                    | "invalid"
                    | "invalid-entry"
                    | "required"
                    | "read-only"
                    | "enabled"
                    | "sensitive"
                    | "active"
            )
        }),
        _ => false,
    }
}

/// Why an answer is not given again: the two kinds of [`Outcome`] that are, and drawing
/// the pixels left unexplained (these cells of it).
enum Miss {
    Drew(Instant),
    Read,
    Loose(Vec<(i32, i32)>),
}

/// The outcome of `miss`, handing on `restless` (with what it found loose).
fn missed(miss: Miss, mut restless: Restless) -> Outcome {
    match miss {
        Miss::Drew(at) => Outcome::Drew(at, restless),
        Miss::Read => Outcome::Read(restless),
        Miss::Loose(cells) => {
            restless.found(cells);
            Outcome::Drew(Instant::now(), restless)
        }
    }
}

/// What stands between an answer and its being given again: elements to ask again whole
/// (named by signals the answer can take in), elements outside it whose children changed,
/// and what was drawn in `area`, the part of the window that shows.
struct Pending<'a> {
    named: Vec<&'a Node>,
    outside: Vec<String>,
    drawn: Vec<Rect>,
    area: Rect,
    /// The elements the drawing has asked again, where no element outside the answer is
    /// needed to explain it (else it is explained once their boxes are in), and how many
    /// rectangles of it the pixels explained.
    ask: Option<(Vec<&'a Node>, usize)>,
}

/// At most this many elements outside an answer whose children changed are looked at...
const MAX_OUTSIDE: usize = 8;
/// ...each read with at most this many elements in it and below.
const OUTSIDE_NODES: usize = 32;

fn pending<'a>(drawn: &Drawn, answer: &'a Answer, asked: &Asked<'_>) -> Result<Pending<'a>, Miss> {
    let area = shown(asked.window, asked.screen).ok_or(Miss::Read)?;
    let id = asked.window.id.and_then(|id| u32::try_from(id).ok());
    if id.and_then(|id| drawn.covered(id, area)) != Some(false) {
        return Err(Miss::Read);
    }
    let (Some(named), Some(reshaped), Some(_)) = (
        answer.named.as_ref(),
        answer.reshaped.as_ref(),
        answer.moved.as_ref(),
    ) else {
        return Err(Miss::Drew(Instant::now()));
    };
    let mut all = Vec::new();
    for n in &answer.data.elements {
        n.walk(&mut |x| all.push(x));
    }
    // Every element a signal named is one the answer shows, as the app itself named it.
    let named: Vec<&Node> = named
        .iter()
        .map(|p| {
            all.iter()
                .copied()
                .find(|n| n.handle.path() == p.as_str() && !n.name_from_child)
        })
        .collect::<Option<_>>()
        .ok_or(Miss::Read)?;
    // Children changed only of elements the answer does not show.
    let outside: Vec<String> = reshaped.iter().cloned().collect();
    if !outside.is_empty()
        && (!answer.takes_outside_changes()
            || outside.len() > MAX_OUTSIDE
            || all.iter().any(|n| reshaped.contains(n.handle.path())))
    {
        return Err(Miss::Read);
    }
    let rects = drawn
        .since(answer.drawn)
        .ok_or(Miss::Drew(Instant::now()))?;
    // Drawing first, where nothing else needs asking: it tells of silent changes whatever
    // else the app said meanwhile. (With changes outside the answer it is judged once they
    // are asked about: their drawing is theirs.)
    let ask = if outside.is_empty() {
        let unmoved = HashSet::new();
        let moved = answer.moved.as_ref().unwrap_or(&unmoved);
        let ask = explain(&answer.data.elements, &rects, area, moved, &[])
            .ok_or(Miss::Drew(Instant::now()))
            .and_then(|e| by_pixels(e, answer, asked.x))?;
        settled(answer)?;
        Some(ask)
    } else {
        None
    };
    let same = answer.filters == *asked.filters
        && answer.screen == asked.screen
        && answer.window == *asked.window
        && answer.heard.changes == asked.heard.changes
        && answer.at.elapsed() < answer.max_age();
    if !same {
        return Err(Miss::Read);
    }
    Ok(Pending {
        named,
        outside,
        drawn: rects,
        area,
        ask,
    })
}

/// Not within [`SETTLE`] of drawing nothing explained.
fn settled(answer: &Answer) -> Result<(), Miss> {
    match answer.drew.filter(|at| at.elapsed() < SETTLE) {
        Some(at) => Err(Miss::Drew(at)),
        None => Ok(()),
    }
}

/// The box of the element at `path`, outside `answer`, whose children changed, if the
/// change leaves the answer as it is: the filters keep nothing it holds now, and every
/// element the answer shows over it is a container holding it whole whose name never comes
/// from what it holds. `None`: the window is read in full.
async fn outside_box(
    bus: &Bus,
    answer: &Answer,
    owner: &str,
    path: &str,
    shifted: impl Fn(Option<Rect>) -> Option<Rect>,
) -> Option<Rect> {
    let handle = crate::bus::handle(owner, path);
    let limits = crate::tree::Limits {
        max_nodes: OUTSIDE_NODES,
        budget: Duration::from_millis(250),
        ..Default::default()
    };
    // Its box asked at once with what it holds.
    let bare = Node {
        handle: handle.clone(),
        caps: desktop_core::Caps::COMPONENT,
        ..Node::default()
    };
    let (read, look) = tokio::join!(
        crate::tree::read_subtree(bus, &handle, limits, None),
        crate::hydrate::look(bus, &bare)
    );
    let (held, stats) = read.ok()?;
    if stats.incomplete.is_some() {
        return None;
    }
    let mut shown = HashSet::new();
    for n in &answer.data.elements {
        n.walk(&mut |x| {
            shown.insert(x.handle.path());
        });
    }
    let mut nothing_kept = true;
    held.walk(&mut |n| nothing_kept &= !shown.contains(n.handle.path()) && keeps_nothing(n));
    if !nothing_kept {
        return None;
    }
    let (bounds, _) = look.ok()?;
    let b = shifted(bounds).filter(Rect::is_valid)?;
    let mut over_it_fine = true;
    for n in &answer.data.elements {
        n.walk(&mut |x| {
            if x.bounds.is_some_and(|xb| xb.intersects(&b)) {
                over_it_fine &= holds_whole(x, b);
            }
        });
    }
    over_it_fine.then_some(b)
}

/// The states of `n` now, as a read would give them.
async fn state_of(bus: &Bus, n: &Node) -> Result<States, crate::bus::CallError> {
    let (o, p) = (n.handle.owner(), n.handle.path());
    let words: Vec<u32> = bus
        .call(o, p, crate::bus::ACCESSIBLE, "GetState", &())
        .await?;
    Ok(crate::convert::states(
        crate::convert::state_set(&words),
        &n.role,
    ))
}

/// Whether the interactive filter drops `n` whatever it holds, and so does everything
/// that could be made of it: no control (nor a wordless element a clue may make one), no
/// heading or notice, nothing that counts what it hides (`more`).
fn keeps_nothing(n: &Node) -> bool {
    !n.is_interactive()
        && !crate::clues::is_candidate(n, false)
        && !n.states.contains(States::MANAGES_DESCENDANTS)
        && !matches!(
            n.role,
            Role::Heading
                | Role::Status
                | Role::Alert
                | Role::Combo
                | Role::List
                | Role::Table
                | Role::Tree
                | Role::Menu
                | Role::TabList
                | Role::Web
        )
}

/// Whether `n`, an element of an answer over `b`, holds `b` whole and is a container whose
/// name is its own (a page's title, a group's label), never made of what it holds.
fn holds_whole(n: &Node, b: Rect) -> bool {
    // (A page is focusable, so it counts as interactive: its name is still its title.)
    let own_name = match n.role {
        Role::Web
        | Role::Window
        | Role::App
        | Role::Dialog
        | Role::Group
        | Role::Scroll
        | Role::Toolbar
        | Role::List
        | Role::Table
        | Role::Tree
        | Role::TabList => true,
        Role::Other(_) => !n.is_interactive(),
        _ => false,
    };
    own_name && !n.name_from_child && n.bounds.is_some_and(|nb| nb.contains(&b))
}

/// Whether drawing inside `n`, an element of an answer, is its own: it holds no other
/// element, or it is a control whose children the answer does not show (its label, an
/// icon), whose changes show in its name, which the app signals.
fn explains(n: &Node) -> bool {
    let control = n.is_interactive()
        && n.child_count <= 4
        && !n.states.contains(States::MANAGES_DESCENDANTS)
        && !matches!(
            n.role,
            Role::Combo
                | Role::Menu
                | Role::List
                | Role::Table
                | Role::Tree
                | Role::TabList
                | Role::Web
                | Role::Scroll
                | Role::Group
                | Role::Dialog
                | Role::Window
                | Role::App
        );
    n.children.is_empty()
        && (n.child_count == 0 || control)
        && n.bounds.is_some_and(|b| b.is_valid())
}

/// Every element [`explained`] may ask again, whatever boxes are taken in: those that hold
/// nothing else touched by the drawing, and those said moved or reaching past `area`.
fn candidates<'a>(
    elements: &'a [Node],
    drawn: &[Rect],
    area: Rect,
    moved: &HashSet<String>,
) -> Vec<&'a Node> {
    let mut all = Vec::new();
    for n in elements {
        n.walk(&mut |x| all.push(x));
    }
    all.into_iter()
        .filter(|n| {
            let touched = explains(n)
                && n.bounds.is_some_and(|b| {
                    drawn
                        .iter()
                        .any(|r| r.intersects(&area) && r.intersects(&b))
                });
            let past = n.bounds.is_some_and(|b| b.is_valid() && !area.contains(&b));
            touched || past || moved.contains(n.handle.path())
        })
        .collect()
}

/// What the boxes of an answer explain of drawing: the elements to ask again, and the
/// rectangles (in the window's shown part) they leave to the pixels, with the elements
/// whose drawing is their own ([`explains`]), which the pixels may name.
struct Explained<'a> {
    ask: Vec<&'a Node>,
    left: Vec<Rect>,
    own: Vec<&'a Node>,
}

/// The elements of an answer to ask again, given what was drawn in `area` (the window where
/// it shows), the elements whose box the app said changed and the boxes of elements outside
/// the answer whose changes it took in (`held`), and the drawing they leave unexplained
/// (drawing outside every element that holds nothing else); `None` when the answer cannot
/// stand: a container moved.
fn explain<'a>(
    elements: &'a [Node],
    drawn: &[Rect],
    area: Rect,
    moved: &HashSet<String>,
    held: &[Rect],
) -> Option<Explained<'a>> {
    let mut all = Vec::new();
    for n in elements {
        n.walk(&mut |x| all.push(x));
    }
    // Elements that hold nothing the answer could show: one that holds some, shown or not (a
    // page scrolled past all it holds, a group the filters emptied), may draw any change.
    let own: Vec<&Node> = all.iter().copied().filter(|n| explains(n)).collect();
    let mut ask: Vec<&Node> = Vec::new();
    let mut add = |n: &'a Node| {
        if !ask.iter().any(|a| std::ptr::eq(*a, n)) {
            ask.push(n);
        }
    };
    let mut left = Vec::new();
    for r in drawn {
        let Some(shown) = r.intersection(&area) else {
            continue;
        };
        // Drawn inside an element that holds nothing else: only it may have changed. (Not
        // so inside one that holds others, even one a signal named: its children may have
        // moved among themselves without a word, their count the same.)
        let inside = |n: &&Node| n.bounds.is_some_and(|b| b.contains(r));
        if let Some(n) = own.iter().copied().find(inside) {
            add(n);
            continue;
        }
        if held.iter().any(|h| h.contains(r)) {
            continue;
        }
        // A frame's changes drawn as one rectangle around them all (Chromium's): explained
        // when the elements it touches that hold nothing else, and the boxes taken in, span
        // it, and every other element it touches holds it whole.
        let touches = |b: &Rect| b.intersects(r);
        let mut span: Option<Rect> = None;
        let mut grow = |b: Rect| span = Some(span.map_or(b, |s| s.union(&b)));
        let touched: Vec<&Node> = own
            .iter()
            .copied()
            .filter(|n| n.bounds.is_some_and(|b| touches(&b)))
            .collect();
        for n in &touched {
            grow(n.bounds?);
        }
        for h in held.iter().filter(|h| touches(h)) {
            grow(*h);
        }
        let others_hold_it = all.iter().all(|n| {
            touched.iter().any(|t| std::ptr::eq(*t, *n))
                || n.bounds
                    .is_none_or(|b| !b.is_valid() || !touches(&b) || b.contains(r))
        });
        if !(span.is_some_and(|s| s.contains(r)) && others_hold_it) {
            left.push(shown);
            continue;
        }
        touched.into_iter().for_each(&mut add);
    }
    for n in all {
        let moved = moved.contains(n.handle.path());
        if moved && !n.children.is_empty() {
            return None;
        }
        // A box past the window's shown part may change where nothing is drawn.
        let past = n.bounds.is_some_and(|b| b.is_valid() && !area.contains(&b));
        if moved || past {
            add(n);
        }
    }
    Some(Explained { ask, left, own })
}

/// The elements to ask again once the pixels had their say on what `e` leaves: those
/// holding every pixel that changed there since the answer's capture, which must hold
/// them all but where the window was learned restless (and `x` be able to look); else
/// the window drew what nothing explains (`Loose`: where, when the pixels tell).
fn by_pixels<'a>(
    e: Explained<'a>,
    answer: &'a Answer,
    x: Option<&crate::x11::X>,
) -> Result<(Vec<&'a Node>, usize), Miss> {
    let Explained { mut ask, left, own } = e;
    let Some(first) = left.first() else {
        return Ok((ask, 0));
    };
    let drew = || Miss::Drew(Instant::now());
    let (before, x) = (
        answer.pixels.as_ref().ok_or_else(drew)?,
        x.ok_or_else(drew)?,
    );
    let around = left.iter().fold(*first, |a, r| a.union(r));
    let now = x.capture(around).map_err(|_| drew())?;
    let changes =
        crate::pixels::changed_in(&own, &left, before, &now, &answer.restless).ok_or_else(drew)?;
    if !changes.explained() {
        return Err(Miss::Loose(changes.loose));
    }
    for n in changes.found {
        if !ask.iter().any(|a| std::ptr::eq(*a, n)) {
            ask.push(n);
        }
    }
    Ok((ask, left.len()))
}

/// A digest of what an answer shows but for values and states: which elements, where.
fn shape(elements: &[Node]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for n in elements {
        n.walk(&mut |x| {
            (
                x.handle.path(),
                &x.role,
                &x.name,
                x.bounds,
                x.children.len(),
            )
                .hash(&mut h);
        });
    }
    h.finish()
}

/// The part of `window` that shows on `screen` (the whole window without one).
pub fn shown(window: &WindowInfo, screen: Option<Rect>) -> Option<Rect> {
    let w = window.bounds?;
    match screen {
        Some(s) => w.intersection(&s),
        None => Some(w),
    }
}

#[cfg(test)]
mod tests {
    //! Which drawing an answer survives, without a display: the rules on rectangles alone.

    use super::*;

    /// What the boxes alone explain: no pixels to ask.
    fn explained<'a>(
        elements: &'a [Node],
        drawn: &[Rect],
        area: Rect,
        moved: &HashSet<String>,
        held: &[Rect],
    ) -> Option<Vec<&'a Node>> {
        explain(elements, drawn, area, moved, held)
            .filter(|e| e.left.is_empty())
            .map(|e| e.ask)
    }

    fn control(path: &str, b: Rect, child_count: u32) -> Node {
        Node {
            role: Role::Button,
            child_count,
            ..el(path, b, Vec::new())
        }
    }

    fn el(path: &str, b: Rect, children: Vec<Node>) -> Node {
        Node {
            bounds: Some(b),
            handle: desktop_core::Handle::new(format!(":1.1{path}")),
            children,
            ..Node::default()
        }
    }

    /// A panel holding a field and a spinner, in a window shown at 0,0 200x200.
    fn window() -> Vec<Node> {
        let field = el("/field", Rect::new(10, 10, 100, 20), Vec::new());
        let spinner = el("/spin", Rect::new(150, 10, 16, 16), Vec::new());
        vec![el(
            "/panel",
            Rect::new(0, 0, 200, 200),
            vec![field, spinner],
        )]
    }

    const AREA: Rect = Rect::new(0, 0, 200, 200);

    fn paths(v: &[&Node]) -> Vec<String> {
        v.iter().map(|n| n.handle.path().to_string()).collect()
    }

    #[test]
    fn drawing_inside_leaves_asks_them_again_and_nothing_else() {
        let els = window();
        let none = HashSet::new();
        assert_eq!(
            explained(&els, &[], AREA, &none, &[]).map(|v| v.len()),
            Some(0)
        );
        // A caret in the field, the spinner turning twice.
        let drawn = [
            Rect::new(20, 12, 1, 16),
            Rect::new(150, 10, 16, 16),
            Rect::new(151, 11, 4, 4),
        ];
        let ask = explained(&els, &drawn, AREA, &none, &[]).expect("explained");
        assert_eq!(paths(&ask), ["/field", "/spin"]);
        // Drawing beside the window is none of its business.
        assert!(explained(&els, &[Rect::new(300, 0, 50, 50)], AREA, &none, &[]).is_some());
    }

    #[test]
    fn drawing_across_a_leaf_edge_or_in_a_container_reads_afresh() {
        let els = window();
        let none = HashSet::new();
        // A page whose children all scrolled away holds none in the answer, but it is no leaf.
        let mut page = el("/page", Rect::new(0, 0, 200, 200), Vec::new());
        page.child_count = 3;
        assert!(explained(&[page], &[Rect::new(0, 0, 200, 200)], AREA, &none, &[]).is_none());
        // Across the field's right edge: the panel's, which may have gained a child.
        assert!(explained(&els, &[Rect::new(100, 12, 40, 16)], AREA, &none, &[]).is_none());
        // In the panel's empty part: a row added, a scroll.
        assert!(explained(&els, &[Rect::new(10, 100, 50, 50)], AREA, &none, &[]).is_none());
    }

    #[test]
    fn drawing_the_boxes_cannot_explain_is_left_to_the_pixels() {
        let els = window();
        let none = HashSet::new();
        // Across the field's right edge: left to the pixels, the spinner's drawing asked.
        let drawn = [Rect::new(100, 12, 40, 16), Rect::new(150, 10, 16, 16)];
        let e = explain(&els, &drawn, AREA, &none, &[]).expect("not refused");
        assert_eq!(e.left, [Rect::new(100, 12, 40, 16)]);
        assert_eq!(paths(&e.ask), ["/spin"]);
        // Only the part that shows in the window is left.
        let e = explain(&els, &[Rect::new(190, 190, 50, 50)], AREA, &none, &[]).unwrap();
        assert_eq!(e.left, [Rect::new(190, 190, 10, 10)]);
        // Beside the window: nothing.
        let e = explain(&els, &[Rect::new(300, 0, 5, 5)], AREA, &none, &[]).unwrap();
        assert!(e.left.is_empty() && e.ask.is_empty());
        // A container said moved still has the window read in full, pixels or not.
        let panel: HashSet<String> = ["/panel".to_string()].into();
        assert!(explain(&els, &drawn, AREA, &panel, &[]).is_none());
    }

    #[test]
    fn boxes_said_moved_or_past_the_edge_are_asked_and_a_moved_container_reads_afresh() {
        let els = window();
        let field: HashSet<String> = ["/field".to_string()].into();
        assert_eq!(
            paths(&explained(&els, &[], AREA, &field, &[]).unwrap()),
            ["/field"]
        );
        let panel: HashSet<String> = ["/panel".to_string()].into();
        assert!(explained(&els, &[], AREA, &panel, &[]).is_none());
        // An element the answer does not hold (filtered out): drawing tells what matters.
        let other: HashSet<String> = ["/hidden".to_string()].into();
        assert!(explained(&els, &[], AREA, &other, &[]).is_some());
        // Only the left half shows: the panel and the spinner reach past it.
        let half = Rect::new(0, 0, 120, 200);
        assert_eq!(
            paths(&explained(&els, &[], half, &HashSet::new(), &[]).unwrap()),
            ["/panel", "/spin"]
        );
    }

    #[test]
    fn a_control_explains_drawing_in_it_and_one_frame_around_several_changes_is_split() {
        // A page holding a button (its label a child the answer does not show) above a
        // paragraph the answer does not show either.
        let page = || {
            let mut p = el(
                "/page",
                Rect::new(0, 0, 400, 300),
                vec![control("/btn", Rect::new(8, 60, 76, 22), 1)],
            );
            p.role = Role::Web;
            p.child_count = 5;
            vec![p]
        };
        let els = page();
        let none = HashSet::new();
        let area = Rect::new(0, 0, 400, 300);
        // The button's focus ring: the button asked again.
        let ask = explained(&els, &[Rect::new(8, 60, 76, 22)], area, &none, &[]).unwrap();
        assert_eq!(paths(&ask), ["/btn"]);
        // One rectangle around the button and a counter above it that changed outside the
        // answer (Chromium draws a frame's changes so): explained once the counter's box is
        // taken in, not before.
        let frame = Rect::new(8, 30, 76, 52);
        let counter = Rect::new(65, 30, 17, 17);
        assert!(explained(&els, &[frame], area, &none, &[]).is_none());
        let ask = explained(&els, &[frame], area, &none, &[counter]).unwrap();
        assert_eq!(paths(&ask), ["/btn"]);
        // Drawing in the counter alone needs nothing asked.
        assert_eq!(
            explained(&els, &[counter], area, &none, &[counter]).map(|v| v.len()),
            Some(0)
        );
        // A frame reaching past what it spans is not explained.
        let wider = Rect::new(8, 30, 200, 52);
        assert!(explained(&els, &[wider], area, &none, &[counter]).is_none());
        // Nor one across an element that neither explains it nor holds it whole.
        let mut els = page();
        els[0].children.push(el(
            "/group",
            Rect::new(0, 40, 50, 10),
            vec![el("/x", Rect::new(0, 40, 5, 5), Vec::new())],
        ));
        assert!(explained(&els, &[frame], area, &none, &[counter]).is_none());
        // A container with many children is no control explaining its own drawing.
        let list = vec![Node {
            role: Role::List,
            ..control("/list", Rect::new(0, 0, 100, 100), 3)
        }];
        assert!(explained(&list, &[Rect::new(10, 10, 5, 5)], area, &none, &[]).is_none());
    }

    #[test]
    fn only_containers_naming_themselves_may_lie_over_a_change_taken_in() {
        let b = Rect::new(10, 10, 20, 20);
        let mut page = el("/page", Rect::new(0, 0, 100, 100), Vec::new());
        page.role = Role::Web;
        page.states = States::FOCUSABLE;
        assert!(holds_whole(&page, b));
        // A heading or a button takes its name from what it holds.
        let heading = Node {
            role: Role::Heading,
            ..el("/h", Rect::new(0, 0, 100, 100), Vec::new())
        };
        assert!(!holds_whole(&heading, b));
        assert!(!holds_whole(
            &control("/b", Rect::new(0, 0, 100, 100), 1),
            b
        ));
        // A container that only partly covers it may be a part of it.
        let part = Node {
            role: Role::Group,
            ..el("/g", Rect::new(15, 15, 100, 100), Vec::new())
        };
        assert!(!holds_whole(&part, b));
        // What a change outside the answer may bring: text, a plain container; never a
        // control, a heading or a list counting what it hides.
        let text = Node {
            role: Role::Text,
            name: "2".into(),
            ..Node::default()
        };
        assert!(keeps_nothing(&text));
        assert!(!keeps_nothing(&control("/b", b, 0)));
        assert!(!keeps_nothing(&Node {
            role: Role::Heading,
            ..Node::default()
        }));
        assert!(!keeps_nothing(&Node {
            role: Role::List,
            ..Node::default()
        }));
    }
}
