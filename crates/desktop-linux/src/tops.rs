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
//! events never pile up in the server. The focused window is kept with the list where the
//! server tells of its change: the active window is the root's property, and focus leaving
//! a top-level's windows is told to it (`FocusChange` on the root and on each window). So
//! are the displays: RandR tells of changed outputs and CRTCs, and of monitors defined or
//! deleted by a `ConfigureNotify` on the root (`StructureNotify`).

use crate::x11::{x_err, XWindow, X};
use desktop_core::backend::Display;
use desktop_core::Result;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::randr::{ConnectionExt as _, NotifyMask};
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
    /// The focused one of the kept list, where the server would tell of its change.
    focus: Option<Option<u32>>,
    /// The displays as last asked, and when ([`MAX_AGE`] bounds them like the list).
    displays: Option<(Vec<Display>, Instant)>,
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
        let mask = EventMask::SUBSTRUCTURE_NOTIFY
            | EventMask::STRUCTURE_NOTIFY
            | EventMask::PROPERTY_CHANGE
            | EventMask::FOCUS_CHANGE;
        conn.change_window_attributes(root, &ChangeWindowAttributesAux::new().event_mask(mask))
            .ok()?
            .check()
            .ok()?;
        // Without RandR the displays are the root window, whose changes are told above.
        let randr = conn
            .randr_query_version(1, 5)
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some();
        if randr {
            let mask =
                NotifyMask::SCREEN_CHANGE | NotifyMask::CRTC_CHANGE | NotifyMask::OUTPUT_CHANGE;
            conn.randr_select_input(root, mask).ok()?.check().ok()?;
        }
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
        let mut kept = self.inner.kept.lock().unwrap_or_else(|e| e.into_inner());
        self.inner.windows(&mut kept, x)
    }

    /// [`Tops::windows`] and the focused one of them ([`X::focused`]).
    pub fn windows_focused(&self, x: &X) -> Result<(Vec<XWindow>, Option<u32>)> {
        let mut kept = self.inner.kept.lock().unwrap_or_else(|e| e.into_inner());
        let list = self.inner.windows(&mut kept, x)?;
        if kept.list.is_none() {
            let focused = x.focused(&list);
            return Ok((list, focused));
        }
        if let Some(focused) = kept.focus {
            return Ok((list, focused));
        }
        // Asked after the round trip that found the list quiet: a change from then on is
        // told by the next one.
        let (focused, told) = x.focused_told(&list);
        if told {
            kept.focus = Some(focused);
        }
        Ok((list, focused))
    }

    /// What [`X::displays`] answers now, kept while the server tells of no change.
    pub fn displays(&self, x: &X) -> Vec<Display> {
        let mut kept = self.inner.kept.lock().unwrap_or_else(|e| e.into_inner());
        if !self.inner.quiet() {
            kept.forget();
        }
        match &kept.displays {
            Some((displays, at)) if at.elapsed() < MAX_AGE => displays.clone(),
            _ => {
                // Asked after the round trip: a change from then on is told by the next.
                let displays = x.displays();
                kept.displays = Some((displays.clone(), Instant::now()));
                displays
            }
        }
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
                Ok(Some(_)) => kept.forget(),
                Ok(None) => break,
                Err(_) => {
                    kept.forget();
                    return;
                }
            }
        }
    }
}

impl Kept {
    fn forget(&mut self) {
        self.list = None;
        self.focus = None;
        self.displays = None;
    }
}

impl Inner {
    fn windows(&self, kept: &mut Kept, x: &X) -> Result<Vec<XWindow>> {
        let quiet = self.quiet();
        if let Some((list, at)) = kept.list.as_ref() {
            if quiet && at.elapsed() < MAX_AGE {
                return Ok(list.clone());
            }
        }
        kept.forget();
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
        let mask =
            EventMask::STRUCTURE_NOTIFY | EventMask::PROPERTY_CHANGE | EventMask::FOCUS_CHANGE;
        let aux = ChangeWindowAttributesAux::new().event_mask(mask);
        for &w in windows {
            self.conn.change_window_attributes(w, &aux).map_err(x_err)?;
        }
        crate::x11::round_trip(&self.conn)
    }
}
