//! The cells of large tables that recent reads were handed, reused while the app keeps them.
//!
//! A table that manages its descendants makes a new object for every cell it is asked
//! for, and some apps never free them: LibreOffice 7.4 grows by about 5 KB for each, so
//! twenty reads of a spreadsheet's 377 cells in view cost it 50 MB. atk-bridge keeps such
//! an object reachable for about 15 s after handing it out, so cells from a read a few
//! seconds ago are asked for again by their old address (checked first: the object must
//! still answer with the index it had) instead of being made anew. The memo lives in a
//! small private file per accessibility bus, so consecutive commands share it.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long after an app handed out a cell its address is used again: well inside
/// atk-bridge's lease (15 s), so a reused address is still alive when asked.
const KEEP: Duration = Duration::from_secs(10);
/// At most this many cells are remembered (a few screens of a spreadsheet).
const MAX_CELLS: usize = 4000;

/// One cell an app handed out: where it sits, its object path, its index in the table,
/// and when it was made (milliseconds since the epoch).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Cell {
    pub owner: String,
    pub table: String,
    pub row: i32,
    pub col: i32,
    pub path: String,
    pub index: i32,
    pub made: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Saved {
    cells: Vec<Cell>,
}

/// The memo of one process: loaded on first use, written back by [`Cells::save`].
#[derive(Debug)]
pub(crate) struct Cells {
    file: Option<PathBuf>,
    state: Mutex<Option<(Vec<Cell>, bool)>>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn fresh(c: &Cell, now: u64) -> bool {
    now.saturating_sub(c.made) < KEEP.as_millis() as u64
}

impl Cells {
    /// The memo of the accessibility bus at `address` (kept beside its app identities).
    pub(crate) fn for_bus(address: &str) -> Cells {
        Cells {
            file: Some(crate::identity::bus_dir(address).join("cells.json")),
            state: Mutex::new(None),
        }
    }

    /// A memo kept in memory only.
    #[cfg(test)]
    fn in_memory() -> Cells {
        Cells {
            file: None,
            state: Mutex::new(None),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut Vec<Cell>, &mut bool) -> R) -> R {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (cells, dirty) = guard.get_or_insert_with(|| {
            let saved: Saved = self
                .file
                .as_ref()
                .and_then(|f| std::fs::read(f).ok())
                .and_then(|b| serde_json::from_slice(&b).ok())
                .unwrap_or_default();
            (saved.cells, false)
        });
        f(cells, dirty)
    }

    /// The cells of `table` made recently enough to ask for again.
    pub(crate) fn recent(&self, owner: &str, table: &str) -> Vec<Cell> {
        let now = now_ms();
        self.with(|cells, _| {
            cells
                .iter()
                .filter(|c| c.owner == owner && c.table == table && fresh(c, now))
                .cloned()
                .collect()
        })
    }

    /// Remembers cells just made (stamped now).
    pub(crate) fn add(&self, made: impl IntoIterator<Item = Cell>) {
        let now = now_ms();
        self.with(|cells, dirty| {
            for mut c in made {
                c.made = now;
                cells.retain(|o| {
                    !(o.owner == c.owner && o.table == c.table && o.row == c.row && o.col == c.col)
                });
                cells.push(c);
                *dirty = true;
            }
        });
    }

    /// Writes the memo back when it changed, leaving out what is too old to reuse.
    /// Failures are ignored: the memo only spares the app work.
    pub(crate) fn save(&self) {
        let now = now_ms();
        let out = self.with(|cells, dirty| {
            if !std::mem::take(dirty) {
                return None;
            }
            cells.retain(|c| fresh(c, now));
            let skip = cells.len().saturating_sub(MAX_CELLS);
            cells.drain(..skip);
            Some(Saved {
                cells: cells.clone(),
            })
        });
        if let (Some(saved), Some(file)) = (out, &self.file) {
            if let Ok(json) = serde_json::to_vec(&saved) {
                let _ = desktop_core::private::write_scratch(file, &json);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(row: i32, col: i32, path: &str) -> Cell {
        Cell {
            owner: ":1.3".into(),
            table: "/t".into(),
            row,
            col,
            path: path.into(),
            index: row * 100 + col,
            made: 0,
        }
    }

    #[test]
    fn recent_cells_are_found_by_table_and_replaced_by_position() {
        let m = Cells::in_memory();
        m.add([cell(0, 0, "/a"), cell(0, 1, "/b")]);
        m.add([cell(0, 0, "/c")]);
        let mut got: Vec<String> = m.recent(":1.3", "/t").into_iter().map(|c| c.path).collect();
        got.sort();
        assert_eq!(got, ["/b", "/c"]);
        assert!(m.recent(":1.4", "/t").is_empty());
        assert!(m.recent(":1.3", "/u").is_empty());
    }

    #[test]
    fn old_cells_are_not_reused() {
        let m = Cells::in_memory();
        m.with(|cells, _| cells.push(cell(0, 0, "/old")));
        assert!(m.recent(":1.3", "/t").is_empty());
    }
}
