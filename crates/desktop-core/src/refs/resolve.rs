//! Finding an id's element now: its window's ids looked up, the recorded handle probed (the
//! same role and name: that is the element, no re-read), else the one element of the
//! window's tree with its fingerprint that no other id named beside it; `STALE_REF` /
//! `AMBIGUOUS_TARGET`, saying what the id was, rather than a guess.

use super::number::step;
use super::{RefEntry, RefMap, WindowRefs};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Target, WindowInfo};
use crate::node::{Handle, Node};
use std::path::Path;

impl RefMap {
    /// The window holding id `id`: the latest read window matching `scope` (the latest read
    /// window when the scope is empty), and the id's entry there.
    pub fn lookup(&self, id: u32, scope: &Target) -> Result<(&WindowRefs, &RefEntry)> {
        let last = self.windows.last().ok_or_else(|| {
            Error::new(
                ErrorCode::ElementNotFound,
                format!("no element ids on record (id {id})"),
            )
            .suggest("Read the window first: a read gives the ids actions take")
        })?;
        let window = if scope.is_empty() {
            last
        } else {
            match self.windows.iter().rev().find(|w| w.matches(scope)) {
                Some(w) => w,
                None if last.get(id).is_some() => return Err(Error::new(
                    ErrorCode::WindowMismatch,
                    format!(
                        "id {id} comes from the reads of {} \"{}\", not of the window you named",
                        last.app, last.title
                    ),
                )
                .suggest(
                    "Read the window you mean first, or name no window to act on the last one read",
                )),
                None => {
                    return Err(Error::new(
                        ErrorCode::ElementNotFound,
                        format!("no read of that window is on record (id {id})"),
                    )
                    .suggest("Read that window first, with the same target"))
                }
            }
        };
        window.entry(id).map(|e| (window, e))
    }

    /// The window a read of part of a window (`read --id`) reads: the one holding the id,
    /// among those `scope` names.
    pub fn target_of(path: &Path, id: u32, scope: &Target) -> Result<Target> {
        let w = RefMap::window_of(path, id, scope)?;
        Ok(Target {
            window_id: w.window_id,
            pid: (w.pid != 0).then_some(w.pid),
            window: w.window_id.is_none().then(|| w.title.clone()),
            app: scope.app.clone(),
        })
    }

    /// Element `id` of `window` as the map at `path` records it.
    pub fn entry_in(path: &Path, window: &WindowInfo, id: u32) -> Result<RefEntry> {
        RefMap::peek(path, |map| {
            let w = map
                .windows
                .iter()
                .find(|r| r.is_window(window.id, window.pid, &window.title))
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::ElementNotFound,
                        format!(
                            "no read of {} \"{}\" gave ids yet (id {id})",
                            window.app, window.title
                        ),
                    )
                    .suggest("Read the window first, then open a part of it by an id it shows")
                })?;
            w.entry(id).cloned()
        })
    }
}

impl WindowRefs {
    /// The entry of id `id`, or why there is none: never given (`ELEMENT_NOT_FOUND`), or
    /// given and let go (`STALE_REF`).
    pub fn entry(&self, id: u32) -> Result<&RefEntry> {
        match self.get(id) {
            Some(entry) => Ok(entry),
            None if id >= 1 && id < self.next => Err(Error::new(
                ErrorCode::StaleRef,
                format!(
                    "id {id} of {} \"{}\" named an element no read has shown for long; it is no longer on record",
                    self.app, self.title
                ),
            )
            .suggest("Read the window again and use the ids it shows")),
            None => Err(Error::new(
                ErrorCode::ElementNotFound,
                format!(
                    "no element {id} in {} \"{}\" (its ids so far: 1-{})",
                    self.app,
                    self.title,
                    self.next.saturating_sub(1)
                ),
            )
            .suggest("Use an id a read of this window showed, or read it again")),
        }
    }
}

impl RefMap {
    /// The window holding id `id` in the map at `path`, as [`RefMap::lookup`] finds it, copied
    /// out of the map (actions wait on the app while they hold it).
    pub fn window_of(path: &Path, id: u32, scope: &Target) -> Result<WindowRefs> {
        RefMap::peek(path, |map| map.lookup(id, scope).map(|(w, _)| w.clone()))
    }

    /// Records that id `id` of `window` was found again at `handle` (its old object went,
    /// a look-alike took its place), unless another live id holds that handle.
    pub fn adopt(
        path: &Path,
        window: &WindowRefs,
        id: u32,
        handle: &Handle,
    ) -> std::io::Result<()> {
        RefMap::update(path, |map| {
            let Some(w) = map
                .windows
                .iter_mut()
                .find(|w| w.is_window(window.window_id, window.pid, &window.title))
            else {
                return ((), false);
            };
            if w.by_handle(handle).is_some() {
                return ((), false);
            }
            match w.get_mut(id) {
                Some(e) => {
                    e.handle = handle.clone();
                    e.gone = false;
                    ((), true)
                }
                None => ((), false),
            }
        })
    }
}

/// Whether a live element still looks like the recorded one: same role, and same name
/// (or, for a name taken from a label child, no name of its own; or a combo box, named
/// after the option it shows).
pub fn same_element(entry: &RefEntry, role: &str, name: &str) -> bool {
    entry.role == role
        && (entry.name == name.trim()
            || (entry.label && name.trim().is_empty())
            || names_what_it_shows(role))
}

/// A role whose name some toolkits make of what the element shows (GTK 3 and Qt name a
/// combo box after its option): a new name there is not another element.
pub fn names_what_it_shows(role: &str) -> bool {
    role == "combo"
}

/// Finds the recorded element in a fresh tree by its fingerprint: role, name and the named
/// ancestors it had (in order, others may lie between). An element another id of the window
/// named while this one was still seen is another element, never this one. Several
/// candidates are told apart by identical bounds; otherwise the answer is
/// `AMBIGUOUS_TARGET`, and none is `STALE_REF`.
pub fn rematch<'a>(entry: &RefEntry, tree: &'a [Node], window: &WindowRefs) -> Result<&'a Node> {
    let mut found: Vec<&Node> = Vec::new();
    fn visit<'a>(
        nodes: &'a [Node],
        ancestry: &mut Vec<String>,
        entry: &RefEntry,
        found: &mut Vec<&'a Node>,
    ) {
        for n in nodes {
            if n.role.short() == entry.role
                && n.name.trim() == entry.name
                && is_subsequence(&entry.ancestry, ancestry)
            {
                found.push(n);
            }
            let pushed = step(n).map(|s| ancestry.push(s)).is_some();
            visit(&n.children, ancestry, entry, found);
            if pushed {
                ancestry.pop();
            }
        }
    }
    visit(tree, &mut Vec::new(), entry, &mut found);
    // Look-alikes that lived beside it under ids of their own.
    let beside: Vec<u32> = found
        .iter()
        .filter_map(|n| window.by_handle(&n.handle))
        .filter(|o| o.id != entry.id && o.first <= entry.last)
        .map(|o| o.id)
        .collect();
    found.retain(|n| {
        window
            .by_handle(&n.handle)
            .is_none_or(|o| o.id == entry.id || o.first > entry.last)
    });
    match found.len() {
        0 => {
            let mut message = format!(
                "element {} ({}) is gone from the window",
                entry.id,
                entry.what()
            );
            if let Some(other) = beside.first() {
                message.push_str(&format!(
                    "; element {other} is another {} like it",
                    entry.role
                ));
            }
            Err(Error::new(ErrorCode::StaleRef, message).suggest(
                "The UI changed since that read: read the window again and use the ids it shows",
            ))
        }
        1 => Ok(found[0]),
        _ => {
            let same_place: Vec<&Node> = found
                .iter()
                .copied()
                .filter(|n| n.bounds.is_some() && n.bounds == entry.rect())
                .collect();
            if same_place.len() == 1 {
                return Ok(same_place[0]);
            }
            Err(Error::new(
                ErrorCode::AmbiguousTarget,
                format!(
                    "element {} ({}) is gone, and {} elements now look like it",
                    entry.id,
                    entry.what(),
                    found.len()
                ),
            )
            .suggest("Read the window again and use the ids it shows"))
        }
    }
}

/// What resolving a recorded id needs of a backend: the element behind a handle now, and
/// the current tree of a window the ids were recorded in.
#[allow(async_fn_in_trait)]
pub trait Probe {
    /// The element at `handle` as it is now; `Ok(None)` when it is gone. An app that does
    /// not answer is an error (`APP_UNRESPONSIVE`), not "gone".
    async fn probe(&self, handle: &Handle) -> Result<Option<Node>>;
    /// The current tree (showing elements, with bounds) of the window `refs` were recorded
    /// in; `STALE_REF` when that window is gone.
    async fn current_tree(&self, refs: &WindowRefs) -> Result<Vec<Node>>;
}

/// A recorded element, found now.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// As it is now, under its recorded name.
    pub node: Node,
    /// Its handle was gone or showed something else: found again by its fingerprint.
    pub rematched: bool,
}

/// Element `id` of the window its ids were given in (the one `scope` names, else the latest
/// read), as it is now: see [`resolve_in`]. A look-alike found in its place is recorded as
/// the id's element from then on. Every backend resolves ids through this.
pub async fn resolve<P: Probe>(
    p: &P,
    path: &Path,
    id: u32,
    scope: &Target,
) -> Result<(WindowRefs, Resolved)> {
    let window = RefMap::window_of(path, id, scope)?;
    let found = resolve_in(p, &window, id).await?;
    if found.rematched {
        // Only the next action's speed depends on it: a failure to write costs nothing else.
        let _ = RefMap::adopt(path, &window, id, &found.node.handle);
    }
    Ok((window, found))
}

/// Element `id` of `window`: the recorded handle if it still shows the same element (no
/// re-read: fast), else the one element of the window's current tree matching its
/// fingerprint that no other id named beside it.
pub async fn resolve_in<P: Probe>(p: &P, window: &WindowRefs, id: u32) -> Result<Resolved> {
    let entry = window.get(id).ok_or_else(|| {
        Error::new(
            ErrorCode::ElementNotFound,
            format!("no element {id} on record"),
        )
        .suggest("Read the window again and use the ids it shows")
    })?;
    let mut changed = None;
    if !entry.gone {
        if let Some(mut node) = p.probe(&entry.handle).await? {
            if same_element(entry, node.role.short(), &node.name) {
                if node.name.trim().is_empty() {
                    // Named by its label child, as the read showed it.
                    node.name = entry.name.clone();
                }
                return Ok(Resolved {
                    node,
                    rematched: false,
                });
            }
            changed = Some(node);
        }
    }
    let tree = p.current_tree(window).await?;
    let found = rematch(entry, &tree, window).map_err(|mut e| {
        if let Some(now) = changed.as_ref().filter(|_| e.code == ErrorCode::StaleRef) {
            // Its object is there but shows something else: say what.
            e.message = format!(
                "element {id} ({}) now reads {} {:?}, and nothing else looks like what it was",
                entry.what(),
                now.role.short(),
                now.name.trim()
            );
        }
        e
    })?;
    let mut node = p.probe(&found.handle).await?.ok_or_else(|| {
        Error::new(
            ErrorCode::StaleRef,
            format!(
                "element {id} ({}) went away while it was found again",
                entry.what()
            ),
        )
        .suggest("Read the window again and use the ids it shows")
    })?;
    node.name = entry.name.clone();
    Ok(Resolved {
        node,
        rematched: true,
    })
}

pub(super) fn is_subsequence(needle: &[String], hay: &[String]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}
