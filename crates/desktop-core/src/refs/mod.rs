//! The ids of elements: per window, every element a read finds gets a short id that names it
//! for as long as it lives, whatever read (filters, face, process) showed it, and no other
//! element of that window ever gets that id. The ref map keeps, per id, the backend's handle
//! and a fingerprint (role, name, named ancestors, bounds), so an action reaches the element
//! it means without a re-read, and refuses (`STALE_REF`, `AMBIGUOUS_TARGET`) rather than
//! guess.
//!
//! One file per desktop under the runtime directory, shared by every process of this
//! program (the command line, the keeper, the MCP server, the agent), changed only under a
//! lock beside it. `number` gives ids (`number.rs`); `resolve` finds an id's element now
//! (`resolve.rs`).

mod number;
mod resolve;

pub use resolve::{rematch, resolve, resolve_in, same_element, Probe, Resolved};

use crate::model::{ReadData, Target};
use crate::node::{Handle, Rect};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The ids of this many windows are remembered (the least recently read is let go, its
/// count of ids kept in [`RefMap::retired`] so a read of it later never gives an id twice).
pub const MAX_WINDOWS: usize = 16;
/// Elements kept per window: past this, those seen least recently are let go (their ids are
/// refused as no longer on record, never given again).
pub const MAX_ENTRIES: usize = 5000;
/// Windows let go whose count of ids is kept.
const MAX_RETIRED: usize = 64;

/// One element a read numbered.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RefEntry {
    #[serde(rename = "i")]
    pub id: u32,
    #[serde(rename = "h")]
    pub handle: Handle,
    #[serde(rename = "r")]
    pub role: String,
    #[serde(rename = "t", default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The name came from a lone text child, not from the element itself.
    #[serde(rename = "l", default, skip_serializing_if = "std::ops::Not::not")]
    pub label: bool,
    /// Named ancestors, outermost first, as `role:name`.
    #[serde(rename = "a", default, skip_serializing_if = "Vec::is_empty")]
    pub ancestry: Vec<String>,
    #[serde(rename = "b", default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<[i32; 4]>,
    /// The read of its window (counted from 1) that first numbered it...
    #[serde(rename = "f", default)]
    pub first: u32,
    /// ...and the last one that showed it.
    #[serde(rename = "s", default)]
    pub last: u32,
    /// Its handle went on to show another element (a new name or role): the id names what
    /// the element was, kept to say so, and is found again only by its fingerprint.
    #[serde(rename = "g", default, skip_serializing_if = "std::ops::Not::not")]
    pub gone: bool,
}

impl RefEntry {
    pub fn rect(&self) -> Option<Rect> {
        self.bounds.map(|[x, y, w, h]| Rect::new(x, y, w, h))
    }

    /// `btn "OK"`: what the id named, for messages.
    pub fn what(&self) -> String {
        if self.name.is_empty() {
            self.role.clone()
        } else {
            format!("{} \"{}\"", self.role, self.name)
        }
    }
}

/// The ids of one window: every element its reads numbered.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct WindowRefs {
    pub ts: u64,
    pub app: String,
    pub pid: u32,
    pub title: String,
    pub window_id: Option<u64>,
    /// Reads of this window numbered so far.
    #[serde(default)]
    pub reads: u32,
    /// The next id to give: ids below it were given, each once.
    #[serde(default = "one")]
    pub next: u32,
    /// Ascending by id.
    pub elements: Vec<RefEntry>,
}

fn one() -> u32 {
    1
}

impl WindowRefs {
    /// A window no read numbered yet, its ids starting at `next`.
    fn new(data: &ReadData, next: u32) -> WindowRefs {
        let w = &data.window;
        WindowRefs {
            ts: data.ts,
            app: w.app.clone(),
            pid: w.pid,
            title: w.title.clone(),
            window_id: w.id,
            reads: 0,
            next: next.max(1),
            elements: Vec::new(),
        }
    }

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

    /// The same window: its window system id where both have one (a title changes as a
    /// page navigates), else its process and title.
    fn is_window(&self, window_id: Option<u64>, pid: u32, title: &str) -> bool {
        match (self.window_id, window_id) {
            (Some(a), Some(b)) => a == b,
            _ => self.pid == pid && self.title == title,
        }
    }

    pub fn get(&self, id: u32) -> Option<&RefEntry> {
        self.elements
            .binary_search_by_key(&id, |e| e.id)
            .ok()
            .map(|i| &self.elements[i])
    }

    fn get_mut(&mut self, id: u32) -> Option<&mut RefEntry> {
        self.elements
            .binary_search_by_key(&id, |e| e.id)
            .ok()
            .map(|i| &mut self.elements[i])
    }

    /// The live entry holding `handle`, if one does.
    pub fn by_handle(&self, handle: &Handle) -> Option<&RefEntry> {
        self.elements
            .iter()
            .find(|e| !e.gone && &e.handle == handle)
    }
}

/// A window whose ids were let go: where its numbering stopped.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Retired {
    pub window_id: Option<u64>,
    pub pid: u32,
    pub title: String,
    pub next: u32,
}

/// Every remembered window's ids, the most recently read last.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct RefMap {
    pub windows: Vec<WindowRefs>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retired: Vec<Retired>,
}

/// A ref map file's bytes and what they say, as this process last read or wrote them.
struct Known {
    path: PathBuf,
    bytes: Vec<u8>,
    map: RefMap,
}

static LAST: std::sync::Mutex<Option<Known>> = std::sync::Mutex::new(None);

impl Known {
    /// The map the file at `path` holds, its `bytes` just read: `last`, where it is this
    /// process's copy of those very bytes, else parsed (another process wrote the file).
    fn of(last: Option<Known>, path: &Path, bytes: Vec<u8>) -> Known {
        match last {
            Some(k) if k.path == path && k.bytes == bytes => k,
            _ => Known {
                path: path.to_path_buf(),
                map: serde_json::from_slice(&bytes).unwrap_or_default(),
                bytes,
            },
        }
    }
}

impl RefMap {
    /// Loads the map; a missing or unreadable file is an empty map.
    pub fn load(path: &Path) -> RefMap {
        Self::peek(path, RefMap::clone)
    }

    /// What `f` finds in the map at `path`, without copying it: a file holding what this
    /// process last read or wrote byte for byte is not parsed again.
    pub fn peek<R>(path: &Path, f: impl FnOnce(&RefMap) -> R) -> R {
        let bytes = std::fs::read(path).unwrap_or_default();
        let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        let known = Known::of(last.take(), path, bytes);
        let known = last.insert(known);
        f(&known.map)
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

    /// Changes the map at `path` under its lock: loaded (or this process's copy, where the
    /// file still holds it byte for byte), changed by `f`, and written atomically when `f`
    /// says it changed something. No other process of this program changes it meanwhile, so
    /// an id is never given twice.
    pub fn update<R>(path: &Path, f: impl FnOnce(&mut RefMap) -> (R, bool)) -> std::io::Result<R> {
        // This process's copy first, then the file: always in this order.
        let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        let _lock = lock(path)?;
        let bytes = std::fs::read(path).unwrap_or_default();
        let mut known = Known::of(last.take(), path, bytes);
        let (answer, changed) = f(&mut known.map);
        if changed {
            known.bytes = known.map.write(path)?;
        }
        *last = Some(known);
        Ok(answer)
    }

    /// Gives the elements of a read their ids (see [`RefMap::number_read`]) and records them
    /// in the map at `path`: how every read of every face numbers what it shows. Its window
    /// becomes the latest read, which ids without a window name.
    pub fn number(path: &Path, data: &mut ReadData) -> std::io::Result<()> {
        Self::update(path, |map| ((), map.number_read(data, true)))
    }

    /// [`RefMap::number`] for a read nobody asked for (a long-lived process keeping its
    /// answers fresh): the latest read stays what it was.
    pub fn number_aside(path: &Path, data: &mut ReadData) -> std::io::Result<()> {
        Self::update(path, |map| ((), map.number_read(data, false)))
    }

    /// The window `data` was read from, made the latest when `latest` (a new one starting
    /// its ids where a let-go record of it stopped; one read aside and new goes first, as
    /// the oldest), and whether the map changed.
    fn window_for(&mut self, data: &ReadData, latest: bool) -> (&mut WindowRefs, bool) {
        let w = &data.window;
        let found = self
            .windows
            .iter()
            .position(|r| r.is_window(w.id, w.pid, &w.title));
        let mut changed = false;
        let mut refs = match found {
            // The same window system id in another process: another window, whose ids
            // still never repeat the old one's.
            Some(i) if self.windows[i].pid != w.pid => {
                changed = true;
                WindowRefs::new(data, self.windows.remove(i).next)
            }
            Some(i) => self.windows.remove(i),
            None => {
                changed = true;
                let next = self
                    .retired
                    .iter()
                    .position(|r| {
                        r.pid == w.pid
                            && match (r.window_id, w.id) {
                                (Some(a), Some(b)) => a == b,
                                _ => r.title == w.title,
                            }
                    })
                    .map_or(1, |i| self.retired.remove(i).next);
                WindowRefs::new(data, next)
            }
        };
        if refs.title != w.title || refs.app != w.app {
            refs.title.clone_from(&w.title);
            refs.app.clone_from(&w.app);
            changed = true;
        }
        refs.ts = data.ts;
        let place = match found {
            _ if latest => self.windows.len(),
            Some(i) => i.min(self.windows.len()),
            None => 0,
        };
        changed |= found != Some(place);
        self.windows.insert(place, refs);
        let mut place = place;
        if self.windows.len() > MAX_WINDOWS {
            // The least recently read, never the one being numbered.
            let old = self.windows.remove(usize::from(place == 0));
            place = place.saturating_sub(1);
            self.retired.push(Retired {
                window_id: old.window_id,
                pid: old.pid,
                title: old.title,
                next: old.next,
            });
            if self.retired.len() > MAX_RETIRED {
                self.retired.remove(0);
            }
        }
        (&mut self.windows[place], changed)
    }
}

/// The ref map's lock, held while the guard lives: a file beside it, private like it.
fn lock(path: &Path) -> std::io::Result<std::fs::File> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        crate::private::dir(parent).map_err(|e| std::io::Error::other(e.message))?;
    }
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    let mut open = std::fs::OpenOptions::new();
    open.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.mode(0o600);
    }
    let file = open.open(path.with_file_name(name))?;
    file.lock()?;
    Ok(file)
}

#[cfg(test)]
mod tests;
