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
//! drawing under another window is not, hence the cover. An answer is given again for a
//! few seconds at most after it was read in full.

use crate::bus::{Addr, Bus};
use crate::damage::Drawn;
use desktop_core::{Filters, Node, ReadData, Rect, States, WindowInfo};
use futures_util::future::join_all;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// An answer is read in full again once it is this old, whatever was seen meanwhile.
const MAX_AGE: Duration = Duration::from_secs(3);

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
    /// The app's count of change signals when it was read.
    changes: u64,
    /// The number of the first rectangle drawn after it was read ([`Drawn::now`]).
    drawn: u64,
    /// Elements whose box the app said changed since (`None`: too many to keep).
    moved: Option<HashSet<String>>,
    /// Elements the app's other signals named since (`None`: too many to keep).
    named: Option<HashSet<String>>,
    /// Added to boxes the toolkit gives from its window's corner (GTK 4).
    shift: (i32, i32),
    /// When drawing nothing explained was last seen, if before this answer's read.
    drew: Option<Instant>,
    at: Instant,
}

/// What a full read was asked and saw, kept to answer the same read again.
pub struct Seen<'a> {
    pub filters: &'a Filters,
    pub screen: Option<Rect>,
    pub changes: u64,
    pub drawn: u64,
    pub shift: (i32, i32),
    /// When drawing nothing explained was last seen (`Outcome::Drew`), if it was.
    pub drew: Option<Instant>,
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
        Answer {
            filters: seen.filters.clone(),
            screen: seen.screen,
            window: data.window.clone(),
            data: data.clone(),
            changes: seen.changes,
            drawn: seen.drawn,
            moved: Some(HashSet::new()),
            named: Some(HashSet::new()),
            shift: seen.shift,
            drew: seen.drew,
            at: Instant::now(),
        }
    }

    /// The app said the box of the element at `path` changed.
    pub fn moved(&mut self, path: &str) {
        note(&mut self.moved, path);
    }

    /// A signal of the app named the element at `path`.
    pub fn named(&mut self, path: &str) {
        note(&mut self.named, path);
    }

    /// The app's signals can no longer be told apart: nothing kept can be trusted.
    pub fn forget(&mut self) {
        self.moved = None;
        self.named = None;
    }
}

/// What a read asks now, to compare with an answer.
pub struct Asked<'a> {
    pub filters: &'a Filters,
    pub screen: Option<Rect>,
    pub window: &'a WindowInfo,
    /// The app's count of change signals now.
    pub changes: u64,
    /// [`Drawn::now`], just taken.
    pub drawn: u64,
    /// Whether `Properties.GetAll` is safe with the app's toolkit (asking a named element).
    pub get_all: bool,
}

/// What became of a kept answer.
pub enum Outcome {
    /// Given again (the data), and kept on (the answer).
    Again(Box<(ReadData, Answer)>),
    /// The window changed where the app may not have said so (drawing that no leaf
    /// explains, a leaf not as it was, or such drawing less than [`SETTLE`] ago: when):
    /// what the app's own cache holds may be stale too.
    Drew(Instant),
    /// Not to be given again (another read, a change signalled, a cover, too old).
    Read,
}

/// The answer again if the window is quiet (see the module), brought up to `asked`.
pub async fn again(bus: &Bus, drawn: &Drawn, mut answer: Answer, asked: Asked<'_>) -> Outcome {
    let t = Instant::now();
    let (ask, named) = match to_ask(drawn, &answer, &asked) {
        Ok(both) => both,
        Err(Miss::Drew(at)) => return Outcome::Drew(at),
        Err(Miss::Read) => return Outcome::Read,
    };
    let (dx, dy) = answer.shift;
    let shifted = |b: Option<Rect>| b.map(|b| Rect::new(b.x + dx, b.y + dy, b.w, b.h));
    let looks = join_all(ask.iter().map(|n| crate::hydrate::look(bus, n))).await;
    for (n, look) in ask.iter().zip(looks) {
        let Ok((bounds, value)) = look else {
            return Outcome::Drew(Instant::now());
        };
        if shifted(bounds) != n.bounds || (crate::hydrate::has_value(n) && value != n.value) {
            return Outcome::Drew(Instant::now());
        }
    }
    // Elements the app said changed: asked again whole, and taken in where only what a
    // read shows of them changed (a state, a value), never what shapes the answer.
    let mut patches = Vec::new();
    let asked_whole = join_all(named.iter().map(|n| async move {
        tokio::join!(
            crate::tree::fetch_node(bus, n.handle.clone(), asked.get_all),
            crate::hydrate::look(bus, n)
        )
    }))
    .await;
    for (n, (now, look)) in named.iter().zip(asked_whole) {
        let (Ok(now), Ok((bounds, value))) = (now, look) else {
            return Outcome::Read;
        };
        let same_shape = now.role == n.role
            && now.name == n.name
            && now.description == n.description
            && now.child_count == n.child_count
            && shifted(bounds) == n.bounds
            && (n.states.bits() ^ now.states.bits()) & !PATCHED.bits() == 0;
        if !same_shape {
            return Outcome::Read;
        }
        let value = if crate::hydrate::has_value(n) {
            value
        } else {
            n.value.clone()
        };
        patches.push((n.handle.clone(), now.states, value));
    }
    let (asked_again, patched) = (ask.len(), patches.len());
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
    // As good as a read now: what is drawn and signalled later is compared from here.
    answer.drawn = asked.drawn;
    answer.changes = asked.changes;
    answer.moved = Some(HashSet::new());
    answer.named = Some(HashSet::new());
    let mut data = answer.data.clone();
    data.ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    data.timing = vec![
        ("again", t.elapsed().as_secs_f64() * 1000.0),
        ("asked", asked_again as f64),
        ("patched", patched as f64),
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

/// Why an answer is not given again: the two kinds of [`Outcome`] that are.
enum Miss {
    Drew(Instant),
    Read,
}

/// The elements to ask again before `answer` is given again (for their box and value; and
/// those the app's signals named, whole), or why it cannot be.
type ToAsk<'a> = (Vec<&'a Node>, Vec<&'a Node>);

fn to_ask<'a>(drawn: &Drawn, answer: &'a Answer, asked: &Asked<'_>) -> Result<ToAsk<'a>, Miss> {
    let window = asked.window.bounds.ok_or(Miss::Read)?;
    let area = match asked.screen {
        Some(s) => window.intersection(&s).ok_or(Miss::Read)?,
        None => window,
    };
    let id = asked.window.id.and_then(|id| u32::try_from(id).ok());
    if id.and_then(|id| drawn.covered(id, area)) != Some(false) {
        return Err(Miss::Read);
    }
    let (Some(named), Some(moved)) = (answer.named.as_ref(), answer.moved.as_ref()) else {
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
    // Drawing first: it tells of silent changes whatever else the app said meanwhile.
    let drew = Miss::Drew(Instant::now());
    let rects = drawn.since(answer.drawn).ok_or(drew)?;
    let ask =
        explained(&answer.data.elements, &rects, area, moved).ok_or(Miss::Drew(Instant::now()))?;
    if let Some(at) = answer.drew.filter(|at| at.elapsed() < SETTLE) {
        return Err(Miss::Drew(at));
    }
    let same = answer.filters == *asked.filters
        && answer.screen == asked.screen
        && answer.window == *asked.window
        && answer.changes == asked.changes
        && answer.at.elapsed() < MAX_AGE
        && ask.len() + named.len() <= MAX_ASKED;
    if same {
        Ok((ask, named))
    } else {
        Err(Miss::Read)
    }
}

/// The elements of an answer to ask again, given what was drawn in `area` (the window where
/// it shows) and the elements whose box the app said changed; `None` when the answer cannot
/// stand: drawing outside every element that holds nothing else, or a container moved.
fn explained<'a>(
    elements: &'a [Node],
    drawn: &[Rect],
    area: Rect,
    moved: &HashSet<String>,
) -> Option<Vec<&'a Node>> {
    let mut all = Vec::new();
    for n in elements {
        n.walk(&mut |x| all.push(x));
    }
    // Elements with no children at all: one that has some, shown or not (a page scrolled
    // past all it holds, a group the filters emptied), may draw any change of theirs.
    let leaves: Vec<&Node> = all
        .iter()
        .copied()
        .filter(|n| {
            n.children.is_empty() && n.child_count == 0 && n.bounds.is_some_and(|b| b.is_valid())
        })
        .collect();
    let mut ask: Vec<&Node> = Vec::new();
    let mut add = |n: &'a Node| {
        if !ask.iter().any(|a| std::ptr::eq(*a, n)) {
            ask.push(n);
        }
    };
    for r in drawn {
        if !r.intersects(&area) {
            continue;
        }
        // Drawn inside an element that holds nothing else: only it may have changed. (Not
        // so inside one that holds others, even one a signal named: its children may have
        // moved among themselves without a word, their count the same.)
        let inside = |n: &&Node| n.bounds.is_some_and(|b| b.contains(r));
        add(leaves.iter().copied().find(inside)?);
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
    Some(ask)
}

#[cfg(test)]
mod tests {
    //! Which drawing an answer survives, without a display: the rules on rectangles alone.

    use super::*;

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
        assert_eq!(explained(&els, &[], AREA, &none).map(|v| v.len()), Some(0));
        // A caret in the field, the spinner turning twice.
        let drawn = [
            Rect::new(20, 12, 1, 16),
            Rect::new(150, 10, 16, 16),
            Rect::new(151, 11, 4, 4),
        ];
        let ask = explained(&els, &drawn, AREA, &none).expect("explained");
        assert_eq!(paths(&ask), ["/field", "/spin"]);
        // Drawing beside the window is none of its business.
        assert!(explained(&els, &[Rect::new(300, 0, 50, 50)], AREA, &none).is_some());
    }

    #[test]
    fn drawing_across_a_leaf_edge_or_in_a_container_reads_afresh() {
        let els = window();
        let none = HashSet::new();
        // A page whose children all scrolled away holds none in the answer, but it is no leaf.
        let mut page = el("/page", Rect::new(0, 0, 200, 200), Vec::new());
        page.child_count = 3;
        assert!(explained(&[page], &[Rect::new(0, 0, 200, 200)], AREA, &none).is_none());
        // Across the field's right edge: the panel's, which may have gained a child.
        assert!(explained(&els, &[Rect::new(100, 12, 40, 16)], AREA, &none).is_none());
        // In the panel's empty part: a row added, a scroll.
        assert!(explained(&els, &[Rect::new(10, 100, 50, 50)], AREA, &none).is_none());
    }

    #[test]
    fn boxes_said_moved_or_past_the_edge_are_asked_and_a_moved_container_reads_afresh() {
        let els = window();
        let field: HashSet<String> = ["/field".to_string()].into();
        assert_eq!(
            paths(&explained(&els, &[], AREA, &field).unwrap()),
            ["/field"]
        );
        let panel: HashSet<String> = ["/panel".to_string()].into();
        assert!(explained(&els, &[], AREA, &panel).is_none());
        // An element the answer does not hold (filtered out): drawing tells what matters.
        let other: HashSet<String> = ["/hidden".to_string()].into();
        assert!(explained(&els, &[], AREA, &other).is_some());
        // Only the left half shows: the panel and the spinner reach past it.
        let half = Rect::new(0, 0, 120, 200);
        assert_eq!(
            paths(&explained(&els, &[], half, &HashSet::new()).unwrap()),
            ["/panel", "/spin"]
        );
    }
}
