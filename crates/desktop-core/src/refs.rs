//! The ref map: the ids `read` hands out, kept with each element's backend handle and a
//! fingerprint (role, name, named ancestors, bounds), so an action reaches the element it
//! means without a re-read, and refuses (`STALE_REF`, `AMBIGUOUS_TARGET`) rather than guess.
//!
//! One file per desktop under the runtime directory; the most recent reads of up to
//! [`MAX_WINDOWS`] windows are kept, the latest last.

use crate::error::{Error, ErrorCode, Result};
use crate::model::{ReadData, Target};
use crate::node::{Handle, Node, Rect};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Reads of this many windows are remembered.
pub const MAX_WINDOWS: usize = 8;

/// One element as `read` reported it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RefEntry {
    pub id: u32,
    pub handle: Handle,
    pub role: String,
    pub name: String,
    /// The name came from a lone text child, not from the element itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub label: bool,
    /// Named ancestors, outermost first, as `role:name`.
    pub ancestry: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<[i32; 4]>,
}

impl RefEntry {
    pub fn rect(&self) -> Option<Rect> {
        self.bounds.map(|[x, y, w, h]| Rect::new(x, y, w, h))
    }
}

/// The elements of one read of one window.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct WindowRefs {
    pub ts: u64,
    pub app: String,
    pub pid: u32,
    pub title: String,
    pub window_id: Option<u64>,
    pub elements: Vec<RefEntry>,
}

impl WindowRefs {
    fn matches(&self, t: &Target) -> bool {
        t.window_id.is_none_or(|id| self.window_id == Some(id))
            && t.pid.is_none_or(|p| self.pid == p)
            && t.app.as_deref().is_none_or(|a| {
                let (app, a) = (self.app.to_lowercase(), a.to_lowercase());
                app == a || app.contains(&a)
            })
            && t.window
                .as_deref()
                .is_none_or(|w| self.title.to_lowercase().contains(&w.to_lowercase()))
    }

    /// The numbered elements of a read, each with its named ancestors.
    fn of(data: &ReadData) -> WindowRefs {
        let mut elements = Vec::new();
        let mut ancestry = Vec::new();
        fn visit(nodes: &[Node], ancestry: &mut Vec<String>, out: &mut Vec<RefEntry>) {
            for n in nodes {
                if n.id != 0 {
                    out.push(RefEntry {
                        id: n.id,
                        handle: n.handle.clone(),
                        role: n.role.short().to_string(),
                        name: n.name.clone(),
                        label: n.name_from_child,
                        ancestry: ancestry.clone(),
                        bounds: n
                            .bounds
                            .filter(Rect::is_valid)
                            .map(|b| [b.x, b.y, b.w, b.h]),
                    });
                }
                let pushed = step(n).map(|s| ancestry.push(s)).is_some();
                visit(&n.children, ancestry, out);
                if pushed {
                    ancestry.pop();
                }
            }
        }
        visit(&data.elements, &mut ancestry, &mut elements);
        let w = &data.window;
        WindowRefs {
            ts: data.ts,
            app: w.app.clone(),
            pid: w.pid,
            title: w.title.clone(),
            window_id: w.id,
            elements,
        }
    }

    /// The same read of the same window as `other`, whenever it was made.
    fn same_ids(&self, other: &WindowRefs) -> bool {
        self.window_id == other.window_id
            && self.pid == other.pid
            && self.app == other.app
            && self.title == other.title
            && self.elements == other.elements
    }

    fn same_window_as(&self, other: &WindowRefs) -> bool {
        match (self.window_id, other.window_id) {
            (Some(a), Some(b)) => a == b,
            _ => self.pid == other.pid && self.title == other.title,
        }
    }

    pub fn get(&self, id: u32) -> Option<&RefEntry> {
        self.elements.iter().find(|e| e.id == id)
    }
}

/// Every remembered read.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct RefMap {
    pub windows: Vec<WindowRefs>,
}

/// A ref map file's bytes and what they say, as this process last read or wrote them.
struct Known {
    path: std::path::PathBuf,
    bytes: Vec<u8>,
    map: RefMap,
}

static LAST: std::sync::Mutex<Option<Known>> = std::sync::Mutex::new(None);

/// Named ancestors as `role:name`, the way both recording and re-matching see them.
fn step(n: &Node) -> Option<String> {
    (!n.name.is_empty()).then(|| format!("{}:{}", n.role.short(), n.name))
}

impl RefMap {
    /// Loads the map; a missing or unreadable file is an empty map. A file holding what this
    /// process last read or wrote byte for byte is not parsed again.
    pub fn load(path: &Path) -> RefMap {
        let bytes = std::fs::read(path).unwrap_or_default();
        let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = last.as_ref().filter(|k| k.path == path && k.bytes == bytes) {
            return k.map.clone();
        }
        let map: RefMap = serde_json::from_slice(&bytes).unwrap_or_default();
        *last = Some(Known {
            path: path.to_path_buf(),
            bytes,
            map: map.clone(),
        });
        map
    }

    /// Writes the map atomically and privately (mode 600 in a directory only this user can
    /// enter; see [`crate::private`]).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        self.write(path).map(drop)
    }

    /// [`RefMap::save`], answering the bytes written.
    fn write(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        let json = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        crate::private::write_scratch(path, &json).map_err(|e| std::io::Error::other(e.message))?;
        Ok(json)
    }

    /// Records the ids of a read in the map at `path` (loaded, updated, written
    /// atomically): how every read, wait, observe and annotated screenshot keeps its ids.
    /// A read that found the window as its last read did (an agent's loop on a quiet
    /// window) leaves the file as it is.
    pub fn remember(path: &Path, data: &ReadData) -> std::io::Result<()> {
        let w = WindowRefs::of(data);
        let bytes = std::fs::read(path).unwrap_or_default();
        let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        // The map as this process last read or wrote it, if the file still holds it byte
        // for byte (parsing it costs a long-lived process more than the rest of a quiet read).
        let known = match last.take() {
            Some(k) if k.path == path && k.bytes == bytes => k,
            _ => Known {
                path: path.to_path_buf(),
                map: serde_json::from_slice(&bytes).unwrap_or_default(),
                bytes,
            },
        };
        if known.map.windows.last().is_some_and(|l| l.same_ids(&w)) {
            *last = Some(known);
            return Ok(());
        }
        let mut map = known.map;
        map.put(w);
        let json = map.write(path)?;
        *last = Some(Known {
            path: path.to_path_buf(),
            bytes: json,
            map,
        });
        Ok(())
    }

    /// Remembers the numbered elements of `data`, replacing an older read of the same window.
    pub fn record(&mut self, data: &ReadData) {
        self.put(WindowRefs::of(data));
    }

    /// Adds a window's read as the latest, replacing an older read of the same window.
    fn put(&mut self, read: WindowRefs) {
        self.windows.retain(|r| !r.same_window_as(&read));
        self.windows.push(read);
        if self.windows.len() > MAX_WINDOWS {
            let extra = self.windows.len() - MAX_WINDOWS;
            self.windows.drain(..extra);
        }
    }

    /// The element `id` of the latest read matching `scope` (the latest read of all when the
    /// scope is empty).
    pub fn lookup(&self, id: u32, scope: &Target) -> Result<(&WindowRefs, &RefEntry)> {
        let last = self.windows.last().ok_or_else(|| {
            Error::new(
                ErrorCode::ElementNotFound,
                format!("no element ids on record (id {id})"),
            )
            .suggest("Read the window first: a read assigns the ids actions take")
        })?;
        let window =
            if scope.is_empty() {
                last
            } else {
                match self.windows.iter().rev().find(|w| w.matches(scope)) {
                    Some(w) => w,
                    None if last.get(id).is_some() => return Err(Error::new(
                        ErrorCode::WindowMismatch,
                        format!(
                            "id {id} comes from the read of {} \"{}\", not of the window you named",
                            last.app, last.title
                        ),
                    )
                    .suggest(
                        "Read the window you mean first, or name no window to act on the last read",
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
        let entry = window.get(id).ok_or_else(|| {
            let max = window.elements.iter().map(|e| e.id).max().unwrap_or(0);
            Error::new(
                ErrorCode::ElementNotFound,
                format!(
                    "no element {id} in the last read of {} \"{}\" (ids 1-{max})",
                    window.app, window.title
                ),
            )
            .suggest("Use an id from the latest `read` output, or read again")
        })?;
        Ok((window, entry))
    }
}

/// Whether a live element still looks like the recorded one: same role, and same name
/// (or, for a name taken from a label child, no name of its own).
pub fn same_element(entry: &RefEntry, role: &str, name: &str) -> bool {
    entry.role == role && (entry.name == name.trim() || (entry.label && name.trim().is_empty()))
}

/// Finds the recorded element in a fresh tree by its fingerprint: role, name and the named
/// ancestors it had (in order, others may lie between). Several candidates are told apart by
/// identical bounds; otherwise the answer is `AMBIGUOUS_TARGET`, and none is `STALE_REF`.
pub fn rematch<'a>(entry: &RefEntry, tree: &'a [Node]) -> Result<&'a Node> {
    let mut found: Vec<&Node> = Vec::new();
    fn visit<'a>(
        nodes: &'a [Node],
        ancestry: &mut Vec<String>,
        entry: &RefEntry,
        found: &mut Vec<&'a Node>,
    ) {
        for n in nodes {
            if n.role.short() == entry.role
                && n.name == entry.name
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
    match found.len() {
        0 => Err(Error::new(
            ErrorCode::StaleRef,
            format!(
                "element {} ({} \"{}\") is gone from the window",
                entry.id, entry.role, entry.name
            ),
        )
        .suggest("The UI changed since the read: read the window again and use the new ids")),
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
                    "element {} ({} \"{}\") changed, and {} elements now match it",
                    entry.id,
                    entry.role,
                    entry.name,
                    found.len()
                ),
            )
            .suggest("Read the window again and use the new ids"))
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

/// Element `id` of the last read (of the window `scope` names): the recorded handle if it
/// still shows the same element (no re-read: fast), else the one element of the window's
/// current tree matching its fingerprint; `STALE_REF` / `AMBIGUOUS_TARGET` rather than a
/// guess. Every backend resolves ids through this.
pub async fn resolve<'m, P: Probe>(
    p: &P,
    map: &'m RefMap,
    id: u32,
    scope: &Target,
) -> Result<(&'m WindowRefs, Resolved)> {
    let (window, entry) = map.lookup(id, scope)?;
    if let Some(mut node) = p.probe(&entry.handle).await? {
        if same_element(entry, node.role.short(), &node.name) {
            node.name = entry.name.clone();
            return Ok((
                window,
                Resolved {
                    node,
                    rematched: false,
                },
            ));
        }
    }
    let tree = p.current_tree(window).await?;
    let found = rematch(entry, &tree)?;
    let mut node = p.probe(&found.handle).await?.ok_or_else(|| {
        Error::new(
            ErrorCode::StaleRef,
            format!(
                "element {id} ({} \"{}\") went away while it was found again",
                entry.role, entry.name
            ),
        )
        .suggest("Read the window again and use the new ids")
    })?;
    node.name = entry.name.clone();
    Ok((
        window,
        Resolved {
            node,
            rematched: true,
        },
    ))
}

fn is_subsequence(needle: &[String], hay: &[String]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::WindowInfo;
    use crate::role::Role;

    fn node(id: u32, role: Role, name: &str, path: &str, children: Vec<Node>) -> Node {
        Node {
            id,
            role,
            name: name.into(),
            handle: Handle::new(path),
            bounds: Some(Rect::new(id as i32 * 10, 0, 10, 10)),
            children,
            ..Node::default()
        }
    }

    fn data(elements: Vec<Node>, title: &str, wid: u64) -> ReadData {
        ReadData {
            window: WindowInfo {
                app: "demo".into(),
                pid: 7,
                title: title.into(),
                id: Some(wid),
                bounds: None,
                focused: true,
                a11y: true,
                modal: false,
                state: Default::default(),
                display: None,
                handle: None,
            },
            ts: 1,
            total: 0,
            shown: 0,
            flat: false,
            bounds: true,
            page: false,
            incomplete: None,
            window_boxes: false,
            timing: vec![],
            elements,
        }
    }

    fn tree() -> Vec<Node> {
        vec![node(
            1,
            Role::Group,
            "Form",
            "/1",
            vec![
                node(2, Role::Button, "OK", "/2", vec![]),
                node(3, Role::Button, "Cancel", "/3", vec![]),
            ],
        )]
    }

    #[test]
    fn remembering_the_same_read_again_leaves_the_file_alone() {
        let dir = std::env::temp_dir().join(format!("desktop-core-refs-{}", std::process::id()));
        let path = dir.join("refs.json");
        RefMap::remember(&path, &data(tree(), "Main", 100)).unwrap();
        let written = std::fs::metadata(&path).unwrap().modified().unwrap();
        let mut again = data(tree(), "Main", 100);
        again.ts = 2;
        std::thread::sleep(std::time::Duration::from_millis(20));
        RefMap::remember(&path, &again).unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            written,
            "an unchanged read is not written again"
        );
        // Another window read in between: the first one's read is written again, as the
        // latest.
        RefMap::remember(&path, &data(vec![], "Second", 200)).unwrap();
        RefMap::remember(&path, &again).unwrap();
        let map = RefMap::load(&path);
        assert_eq!(map.windows.len(), 2);
        assert_eq!(map.windows.last().unwrap().title, "Main");
        // Another process writes the file (its read of another window, the latest): this
        // process's memory of the file does not count, the file does.
        let mut other = RefMap::load(&path);
        other.record(&data(vec![], "Third", 300));
        other.save(&path).unwrap();
        RefMap::remember(&path, &again).unwrap();
        let map = RefMap::load(&path);
        assert_eq!(map.windows.len(), 3);
        assert_eq!(map.windows.last().unwrap().title, "Main");
        // A renamed element is a change.
        let mut renamed = tree();
        renamed[0].children[0].name = "Okay".into();
        RefMap::remember(&path, &data(renamed, "Main", 100)).unwrap();
        assert_eq!(
            RefMap::load(&path)
                .lookup(2, &Target::default())
                .unwrap()
                .1
                .name,
            "Okay"
        );
    }

    #[test]
    fn record_and_lookup() {
        let mut map = RefMap::default();
        map.record(&data(tree(), "Main", 100));
        map.record(&data(
            vec![node(1, Role::Link, "Other", "/9", vec![])],
            "Second",
            200,
        ));
        let (w, e) = map
            .lookup(
                2,
                &Target {
                    app: Some("demo".into()),
                    window: Some("main".into()),
                    ..Target::default()
                },
            )
            .unwrap();
        assert_eq!(w.title, "Main");
        assert_eq!(e.name, "OK");
        assert_eq!(e.ancestry, ["group:Form"]);
        assert_eq!(
            map.lookup(1, &Target::default()).unwrap().1.name,
            "Other",
            "no scope: the last read"
        );
        let err = map.lookup(2, &Target::default()).unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::ElementNotFound,
            "id 2 is not in the last read"
        );
        let err = map
            .lookup(
                1,
                &Target {
                    window: Some("nope".into()),
                    ..Target::default()
                },
            )
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::WindowMismatch);
        // Reading a window again replaces its entry.
        map.record(&data(tree(), "Main", 100));
        assert_eq!(map.windows.len(), 2);
        assert_eq!(map.windows.last().unwrap().title, "Main");
    }

    #[test]
    fn rematch_by_fingerprint() {
        let mut map = RefMap::default();
        map.record(&data(tree(), "Main", 100));
        let entry = map.lookup(3, &Target::default()).unwrap().1.clone();
        // New objects, new paths, one element inserted in front: still found.
        let fresh = vec![node(
            0,
            Role::Group,
            "Form",
            "/11",
            vec![
                node(0, Role::Button, "New", "/10", vec![]),
                node(0, Role::Button, "OK", "/12", vec![]),
                node(0, Role::Button, "Cancel", "/13", vec![]),
            ],
        )];
        assert_eq!(rematch(&entry, &fresh).unwrap().handle.as_str(), "/13");
        // Gone.
        let gone = vec![node(
            0,
            Role::Group,
            "Form",
            "/11",
            vec![node(0, Role::Button, "OK", "/12", vec![])],
        )];
        assert_eq!(
            rematch(&entry, &gone).unwrap_err().code,
            ErrorCode::StaleRef
        );
        // Moved under another named container: not the same element.
        let moved = vec![node(
            0,
            Role::Group,
            "Other form",
            "/11",
            vec![node(0, Role::Button, "Cancel", "/13", vec![])],
        )];
        assert_eq!(
            rematch(&entry, &moved).unwrap_err().code,
            ErrorCode::StaleRef
        );
        // Two look-alikes elsewhere: ambiguous.
        let twice = vec![node(
            0,
            Role::Group,
            "Form",
            "/11",
            vec![
                node(5, Role::Button, "Cancel", "/20", vec![]),
                node(6, Role::Button, "Cancel", "/21", vec![]),
            ],
        )];
        assert_eq!(
            rematch(&entry, &twice).unwrap_err().code,
            ErrorCode::AmbiguousTarget
        );
    }

    #[test]
    fn same_element_checks_role_and_name() {
        let e = RefEntry {
            id: 1,
            handle: Handle::default(),
            role: "btn".into(),
            name: "OK".into(),
            label: false,
            ancestry: vec![],
            bounds: None,
        };
        assert!(same_element(&e, "btn", "OK"));
        assert!(!same_element(&e, "btn", "Clicked"));
        assert!(!same_element(&e, "lnk", "OK"));
        let labelled = RefEntry { label: true, ..e };
        assert!(same_element(&labelled, "btn", ""));
    }
}
