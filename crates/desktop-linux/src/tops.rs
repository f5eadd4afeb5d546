//! The top-level windows a long-lived process lists (X11), kept between its reads and listed
//! again only after the X server reported a change to them.
//!
//! Why: listing them asks every window the root holds for its box, title, pid, class and
//! state (18 windows beside Chromium and two GTK apps: 160 requests, half a millisecond),
//! and a warm read of a quiet window costs about three times that in all. The server tells
//! of every change that could alter the list: windows created, destroyed, mapped, moved,
//! restacked or reparented under the root (`SubstructureNotify` on it), the client list and
//! the window manager's check (`PropertyChange` on it), and each window's own properties
//! and box (`StructureNotify` and `PropertyChange` on each one). Any event at all has the
//! list built again; one round trip (whose answer comes after every event sent before it)
//! tells that none came. A thread takes in what waits once a second, so an idle process's
//! events never pile up in the server.

use crate::x11::{x_err, XWindow, X};
use desktop_core::Result;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ChangeWindowAttributesAux, ConnectionExt, EventMask, Window};
use x11rb::rust_connection::RustConnection;

/// A kept list is built again once it is this old, whatever the server said.
const MAX_AGE: Duration = Duration::from_secs(2);

/// Windows watched at most; past that the list is built afresh on every call.
const MAX_WATCHED: usize = 4096;

/// Events waiting are taken in at least this often, whether or not anything lists the
/// windows: the X server holds every event a client has not read, without a bound.
const DRAIN_EVERY: Duration = Duration::from_secs(1);

/// The kept list and the events that keep it: its own connection, so no other part of the
/// process takes its events, and none of theirs count here.
pub struct Tops {
    inner: Arc<Inner>,
}

struct Inner {
    conn: RustConnection,
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    list: Option<(Vec<XWindow>, Instant)>,
    /// Windows whose changes this connection is told of.
    watched: HashSet<Window>,
}

impl std::fmt::Debug for Tops {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tops")
    }
}

impl Tops {
    /// Starts watching the root; `None` without a display.
    pub fn new() -> Option<Tops> {
        let display = std::env::var("DISPLAY").ok()?;
        let (conn, screen) = x11rb::connect(Some(&display)).ok()?;
        let root = conn.setup().roots[screen].root;
        let mask = EventMask::SUBSTRUCTURE_NOTIFY | EventMask::PROPERTY_CHANGE;
        conn.change_window_attributes(root, &ChangeWindowAttributesAux::new().event_mask(mask))
            .ok()?
            .check()
            .ok()?;
        let inner = Arc::new(Inner {
            conn,
            kept: Mutex::default(),
        });
        let weak = Arc::downgrade(&inner);
        std::thread::Builder::new()
            .name("tops-drain".into())
            .spawn(move || drain(&weak))
            .ok()?;
        Some(Tops { inner })
    }

    /// What [`X::windows`] answers now, from the list kept if nothing changed since it was
    /// built.
    pub fn windows(&self, x: &X) -> Result<Vec<XWindow>> {
        self.inner.windows(x)
    }
}

/// Takes in the events waiting every [`DRAIN_EVERY`] (a change drops the kept list) until
/// the list's owner is gone or the server is.
fn drain(inner: &Weak<Inner>) {
    loop {
        std::thread::sleep(DRAIN_EVERY);
        let Some(inner) = inner.upgrade() else {
            return;
        };
        let mut kept = inner.kept.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match inner.conn.poll_for_event() {
                Ok(Some(_)) => kept.list = None,
                Ok(None) => break,
                Err(_) => {
                    kept.list = None;
                    return;
                }
            }
        }
    }
}

impl Inner {
    fn windows(&self, x: &X) -> Result<Vec<XWindow>> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let quiet = self.quiet();
        if let Some((list, at)) = kept.list.as_ref() {
            if quiet && at.elapsed() < MAX_AGE {
                return Ok(list.clone());
            }
        }
        kept.list = None;
        let ids = x.top_ids()?;
        // Watched before they are asked about: whatever changes after is told.
        let new: Vec<Window> = ids
            .iter()
            .copied()
            .filter(|w| !kept.watched.contains(w))
            .collect();
        if kept.watched.len() + new.len() > MAX_WATCHED {
            kept.watched.clear();
            return x.windows_of(&ids);
        }
        let watching = !new.is_empty() && self.watch(&new).is_ok();
        if watching {
            kept.watched.extend(new.iter().copied());
        }
        let list = x.windows_of(&ids)?;
        // Gone windows are told of no more: forget them.
        let live: HashSet<Window> = ids.iter().copied().collect();
        kept.watched.retain(|w| live.contains(w));
        if watching || new.is_empty() {
            kept.list = Some((list.clone(), Instant::now()));
        }
        Ok(list)
    }

    /// Whether the server told of no change since the last call: one round trip, then
    /// every event it sent before its answer is counted.
    fn quiet(&self) -> bool {
        let mut quiet = crate::x11::round_trip(&self.conn).is_ok();
        loop {
            match self.conn.poll_for_event() {
                Ok(Some(_)) => quiet = false,
                Ok(None) => break,
                Err(_) => return false,
            }
        }
        quiet
    }

    /// Has the server tell this connection of each of `windows`' changes; done once the
    /// server handled it (a window already gone answers with an error event, which counts
    /// as a change at the next call).
    fn watch(&self, windows: &[Window]) -> Result<()> {
        let mask = EventMask::STRUCTURE_NOTIFY | EventMask::PROPERTY_CHANGE;
        let aux = ChangeWindowAttributesAux::new().event_mask(mask);
        for &w in windows {
            self.conn.change_window_attributes(w, &aux).map_err(x_err)?;
        }
        crate::x11::round_trip(&self.conn)
    }
}
