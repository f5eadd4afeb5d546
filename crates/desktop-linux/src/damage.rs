//! What was drawn on the screen, from XDamage on the root window (which counts what every
//! window draws where it shows): for `view`, a signal each time something is (`watch`); for
//! the warm reads, the rectangles drawn since a given moment, and which windows cover a
//! window (`Drawn`).

use crate::x11::x_err;
use desktop_core::{Error, ErrorCode, Rect, Result};
use std::collections::VecDeque;
use std::sync::mpsc::{sync_channel, Receiver, TrySendError};
use std::sync::Mutex;
use std::time::Instant;
use x11rb::connection::Connection;
use x11rb::protocol::damage::{ConnectionExt as _, ReportLevel};
use x11rb::protocol::xfixes::ConnectionExt as _;
use x11rb::protocol::xproto::{ConnectionExt as _, MapState, Window};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

/// Starts watching; `Err` when the X server has no DAMAGE extension.
pub fn watch() -> Result<Receiver<()>> {
    let display = std::env::var("DISPLAY").map_err(|_| x_err("DISPLAY is not set"))?;
    let (conn, screen) = x11rb::connect(Some(&display)).map_err(x_err)?;
    conn.damage_query_version(1, 1)
        .map_err(x_err)?
        .reply()
        .map_err(|e| {
            Error::new(
                ErrorCode::PlatformNotSupported,
                format!("the X server has no DAMAGE extension: {e}"),
            )
        })?;
    let root = conn.setup().roots[screen].root;
    let damage = conn.generate_id().map_err(x_err)?;
    conn.damage_create(damage, root, ReportLevel::NON_EMPTY)
        .map_err(x_err)?;
    conn.flush().map_err(x_err)?;
    // One pending signal is enough: the viewer captures the screen as it is when it looks.
    let (tx, rx) = sync_channel(1);
    std::thread::Builder::new()
        .name("screen-damage".into())
        .spawn(move || loop {
            let Ok(event) = conn.wait_for_event() else {
                return;
            };
            if let Event::DamageNotify(_) = event {
                let emptied = conn
                    .damage_subtract(damage, x11rb::NONE, x11rb::NONE)
                    .is_ok()
                    && conn.flush().is_ok();
                if !emptied {
                    return;
                }
                if let Err(TrySendError::Disconnected(())) = tx.try_send(()) {
                    return;
                }
            }
        })
        .map_err(|e| Error::internal(format!("cannot start the damage thread: {e}")))?;
    Ok(rx)
}

/// Rectangles drawn and kept for the reads that look back; past this, older reads take
/// everything as drawn.
const LOG: usize = 4096;

/// The rectangles drawn on the screen, in the order the X server counted them, each with its
/// number; a read notes the number it saw last ([`Drawn::now`]) and asks later what was
/// drawn since ([`Drawn::since`]). Its own connection, asked only when a read looks: the
/// server gathers the drawing in between into one region, so an idle process costs nothing
/// and a busy screen costs one region's rectangles per look.
pub struct Drawn {
    conn: RustConnection,
    root: Window,
    damage: u32,
    region: u32,
    log: Mutex<Log>,
}

#[derive(Default)]
struct Log {
    /// Rectangles numbered `first..first + rects.len()`, each with when it was taken in
    /// (drawn then or before).
    rects: VecDeque<(Rect, Instant)>,
    first: u64,
}

impl Log {
    fn next(&self) -> u64 {
        self.first + self.rects.len() as u64
    }

    /// See [`Drawn::drawn_after`].
    fn drawn_after(&self, moment: Instant, area: Rect) -> bool {
        let mut later = self.rects.iter().rev().take_while(|(_, at)| *at > moment);
        let mut seen = 0;
        let hit = later.any(|(r, _)| {
            seen += 1;
            r.intersects(&area)
        });
        hit || (seen == self.rects.len() && self.first > 0)
    }
}

impl std::fmt::Debug for Drawn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Drawn")
    }
}

impl Drawn {
    /// Starts counting; `None` without a display or the DAMAGE and XFIXES extensions.
    pub fn new() -> Option<Drawn> {
        let display = std::env::var("DISPLAY").ok()?;
        let (conn, screen) = x11rb::connect(Some(&display)).ok()?;
        conn.damage_query_version(1, 1).ok()?.reply().ok()?;
        conn.xfixes_query_version(5, 0).ok()?.reply().ok()?;
        let root = conn.setup().roots[screen].root;
        let (damage, region) = (conn.generate_id().ok()?, conn.generate_id().ok()?);
        conn.damage_create(damage, root, ReportLevel::NON_EMPTY)
            .ok()?;
        conn.xfixes_create_region(region, &[]).ok()?;
        conn.flush().ok()?;
        Some(Drawn {
            conn,
            root,
            damage,
            region,
            log: Mutex::default(),
        })
    }

    /// Takes in everything drawn until now and answers the number the next rectangle will
    /// have; `None` when the server cannot be asked. What the server drew before it handled
    /// this request is in.
    pub fn now(&self) -> Option<u64> {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        self.conn
            .damage_subtract(self.damage, x11rb::NONE, self.region)
            .ok()?;
        let fetched = self
            .conn
            .xfixes_fetch_region(self.region)
            .ok()?
            .reply()
            .ok()?;
        // The only events on this connection say the damage became non-empty.
        while let Ok(Some(_)) = self.conn.poll_for_event() {}
        let at = Instant::now();
        for r in fetched.rectangles {
            let rect = Rect::new(
                i32::from(r.x),
                i32::from(r.y),
                i32::from(r.width),
                i32::from(r.height),
            );
            log.rects.push_back((rect, at));
        }
        while log.rects.len() > LOG {
            log.rects.pop_front();
            log.first += 1;
        }
        Some(log.next())
    }

    /// The rectangles drawn from number `from` until the last [`Drawn::now`]; `None` when
    /// some of them are no longer kept.
    pub fn since(&self, from: u64) -> Option<Vec<Rect>> {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let skip = usize::try_from(from.checked_sub(log.first)?).ok()?;
        Some(log.rects.iter().skip(skip).map(|&(r, _)| r).collect())
    }

    /// Whether anything was drawn in `area` after `moment`, as far as the last
    /// [`Drawn::now`] took in (true when the rectangles of then are no longer kept).
    pub fn drawn_after(&self, moment: Instant, area: Rect) -> bool {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.drawn_after(moment, area)
    }

    /// Whether a window shown above `window` (a top-level one, a menu, a tooltip) covers part
    /// of `area`; `None` when the server cannot tell (the window is gone). Drawing under
    /// such a window is not counted: nothing of it shows.
    pub fn covered(&self, window: u32, area: Rect) -> Option<bool> {
        // The window's ancestor among the root's children (its frame, under a window
        // manager); the root's children asked at once, so a window the root holds costs one
        // round trip.
        let roots = self.conn.query_tree(self.root).ok()?;
        let mut top = window;
        for _ in 0..8 {
            let tree = self.conn.query_tree(top).ok()?.reply().ok()?;
            if tree.parent == self.root || tree.parent == x11rb::NONE {
                break;
            }
            top = tree.parent;
        }
        let tree = roots.reply().ok()?;
        // Bottom first: what follows the window is above it.
        let above = tree.children.iter().skip_while(|&&w| w != top).skip(1);
        let asked: Vec<_> = above
            .filter_map(|&w| {
                Some((
                    self.conn.get_window_attributes(w).ok()?,
                    self.conn.get_geometry(w).ok()?,
                ))
            })
            .collect();
        let mut covered = false;
        for (attrs, geom) in asked {
            let (Ok(attrs), Ok(geom)) = (attrs.reply(), geom.reply()) else {
                continue; // gone meanwhile
            };
            let border = i32::from(geom.border_width) * 2;
            let bounds = Rect::new(
                i32::from(geom.x),
                i32::from(geom.y),
                i32::from(geom.width) + border,
                i32::from(geom.height) + border,
            );
            covered |= attrs.map_state == MapState::VIEWABLE && bounds.intersects(&area);
        }
        Some(covered)
    }
}

#[cfg(test)]
mod tests {
    //! Telling what was drawn where after a moment.

    use super::Log;
    use desktop_core::Rect;
    use std::time::{Duration, Instant};

    #[test]
    fn drawing_after_a_moment_counts_only_where_it_touches_the_area() {
        let t0 = Instant::now();
        let later = t0 + Duration::from_millis(10);
        let mut log = Log::default();
        log.rects.push_back((Rect::new(0, 0, 50, 50), t0));
        log.rects.push_back((Rect::new(500, 500, 10, 10), later));
        let window = Rect::new(0, 0, 200, 200);
        assert!(
            !log.drawn_after(t0, window),
            "drawn after t0, but elsewhere"
        );
        assert!(
            log.drawn_after(t0 - Duration::from_millis(1), window),
            "drawn in it at t0"
        );
        assert!(log.drawn_after(t0, Rect::new(400, 400, 200, 200)));
        assert!(
            !log.drawn_after(later, Rect::new(400, 400, 200, 200)),
            "nothing since"
        );
        // Rectangles no longer kept may have been drawn after it: taken as drawing.
        log.first = 7;
        assert!(log.drawn_after(t0 - Duration::from_millis(1), Rect::new(900, 900, 1, 1)));
        assert!(
            !log.drawn_after(t0, Rect::new(900, 900, 1, 1)),
            "an older one is kept"
        );
    }
}
