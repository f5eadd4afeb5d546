//! Bringing an element into view, by the first way that works: the app's own
//! `Component.ScrollTo` (Chromium); the wheel over its scrolled container, measured notch by
//! notch until the element's box lies inside the container's (Qt5, whose rows out of view
//! keep their true place but which cannot scroll on request); focus, which scrolls a GTK3
//! viewport to the focused row (GTK3 gives rows out of view no place at all). And first of
//! all, a window other windows hide wholly is raised: Chromium stops updating such a page.

use super::Live;
use crate::bus::Addr;
use crate::bus::{Bus, ACCESSIBLE, COMPONENT};
use crate::LinuxDesktop;
use atspi_common::Role as R;
use desktop_core::action::Route;
use desktop_core::States;
use desktop_core::{Direction, Handle, Rect, Result};
use std::time::{Duration, Instant};

/// Ancestors looked at for the scrolled container.
const MAX_DEPTH: usize = 8;
/// Wheel turns before giving up (each measured; most lists need two or three).
const MAX_TURNS: usize = 12;
/// Notches in one turn, at most.
const MAX_NOTCHES: i64 = 40;
/// Reads in a row that find a scrolled element's box unchanged before it counts as still.
const STILL_READS: u32 = 2;

impl LinuxDesktop {
    /// Asks for `live` to be scrolled into view; the route of the way that was taken, or
    /// `None` when none could.
    pub(super) async fn bring_into_view(&self, live: &mut Live) -> Result<Option<Route>> {
        let (o, p) = live.h();
        // 6 = ATSPI_SCROLL_ANYWHERE: the least movement that shows the element.
        let scrolled = live
            .bus
            .call::<_, bool>(o, p, COMPONENT, "ScrollTo", &(6u32,))
            .await
            .unwrap_or(false);
        if scrolled {
            return Ok(Some(Route::A11y));
        }
        if self.wheel_into_view(live).await? {
            return Ok(Some(Route::Input));
        }
        // Focus scrolls a row into its list; an element put away (a tab page not shown, a
        // closed menu or section) is not scrolled away, and focusing it would only send the
        // keyboard somewhere no one can see.
        if live.node.states.contains(States::FOCUSABLE)
            && scrolled_away(&live.bus, &live.node.handle).await
        {
            let (o, p) = live.h();
            let focused = live
                .bus
                .call::<_, bool>(o, p, COMPONENT, "GrabFocus", &())
                .await
                .unwrap_or(false);
            if focused {
                return Ok(Some(Route::A11y));
            }
        }
        Ok(None)
    }

    /// Raises the element's window when other windows hide it wholly, as a person would
    /// before acting in it, and waits for the app to catch up; says whether it did. Chromium
    /// stops laying out and reporting a wholly hidden page (its tree goes stale: boxes from
    /// before a scroll, states from before a click) until the window shows again.
    pub(crate) async fn uncover(&self, live: &Live) -> Result<bool> {
        let (Ok(x), Some(w)) = (self.x(), live.window_id) else {
            return Ok(false);
        };
        if !x.covered(w) {
            return Ok(false);
        }
        x.raise(w)?;
        // The page is laid out again and its tree refreshed on the frames after it shows:
        // the element read until two reads in a row agree.
        let deadline = Instant::now() + Duration::from_millis(600);
        let mut last = None;
        tokio::time::sleep(Duration::from_millis(30)).await;
        while Instant::now() < deadline {
            let now = super::resolve::probe(&live.bus, &live.node.handle)
                .await
                .ok()
                .map(|n| (n.bounds, n.states));
            if now.is_some() && now == last {
                break;
            }
            last = now;
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        Ok(true)
    }

    /// Whether `live` (a row, an item, a cell) shows only in part, its middle outside its
    /// scrolled container (a row half under a list's lower edge): a click at its middle
    /// would land beside the list, so it is scrolled into view first.
    pub(super) async fn half_hidden(&self, live: &Live) -> bool {
        use desktop_core::Role;
        let item = matches!(
            live.node.role,
            Role::Item | Role::Row | Role::Cell | Role::TreeItem
        );
        let (Some(b), Ok(x)) = (live.node.bounds.filter(Rect::is_valid), self.x()) else {
            return false;
        };
        if !item || !live.placed {
            return false;
        }
        let screen = x.screen();
        match container(&live.bus, &live.node.handle, &b, &screen, live.offset).await {
            Some(view) => {
                let (_, cy) = b.center();
                cy < view.y || i64::from(cy) >= view.bottom()
            }
            None => false,
        }
    }

    /// Brings `live` into its scrolled container's view with the wheel; whether it is in
    /// view now. Leaves `live.node.bounds` at the element's new place.
    async fn wheel_into_view(&self, live: &mut Live) -> Result<bool> {
        // The wheel turns at a place on screen: none for a box relative to its window.
        if !live.placed {
            return Ok(false);
        }
        let Some(mut b) = live.node.bounds.filter(Rect::is_valid) else {
            return Ok(false);
        };
        let Ok(x) = self.x() else {
            return Ok(false);
        };
        let screen = x.screen();
        let Some(view) = container(&live.bus, &live.node.handle, &b, &screen, live.offset).await
        else {
            return Ok(false);
        };
        if let Some(w) = live.window_id {
            x.raise(w)?;
        }
        let visible = clip(&view, &screen);
        let (px, py) = visible.center();
        let mut per_notch: Option<f64> = None;
        for _ in 0..MAX_TURNS {
            let Some((direction, distance)) = needed(&b, &visible) else {
                live.node.bounds = Some(b);
                return Ok(true);
            };
            let notches = match per_notch {
                Some(p) if p > 0.0 => ((distance as f64 / p).ceil() as i64).clamp(1, MAX_NOTCHES),
                _ => 1,
            };
            x.scroll(px, py, direction, notches as u32)?;
            let Some(now) = moved(&live.bus, &live.node.handle, &b, live.offset).await else {
                break;
            };
            let step = (i64::from(now.y) - i64::from(b.y)).abs() as f64 / notches as f64;
            per_notch = Some(step);
            b = now;
        }
        live.node.bounds = Some(b);
        Ok(needed(&b, &visible).is_none())
    }
}

/// Whether a hidden element is only scrolled away: the nearest ancestor that shows is a
/// scrolled container or a list (its rows come into view with focus), not a tab list, a
/// stack, a menu or a window (what holds it is closed).
async fn scrolled_away(bus: &Bus, handle: &Handle) -> bool {
    let mut at = handle.clone();
    for _ in 0..MAX_DEPTH {
        let Some(up) = bus.parent(&at).await else {
            return false;
        };
        at = up;
        let (words, role) = tokio::join!(
            bus.call::<_, Vec<u32>>(at.owner(), at.path(), ACCESSIBLE, "GetState", &()),
            bus.call::<_, u32>(at.owner(), at.path(), ACCESSIBLE, "GetRole", &()),
        );
        let (Ok(words), Ok(role)) = (words, role) else {
            return false;
        };
        if crate::convert::state_set(&words).contains(atspi_common::State::Showing) {
            return [
                R::ScrollPane,
                R::Viewport,
                R::List,
                R::ListBox,
                R::Table,
                R::TreeTable,
                R::Tree,
            ]
            .iter()
            .any(|r| *r as u32 == role);
        }
    }
    false
}

/// Which way and how far (pixels) `b` must move to lie inside `view`; `None` when it does.
fn needed(b: &Rect, view: &Rect) -> Option<(Direction, i64)> {
    let (top, bottom) = (i64::from(view.y), view.bottom());
    if i64::from(b.y) < top {
        return Some((Direction::Up, top - i64::from(b.y)));
    }
    // A box taller than the view counts as in view once its top is.
    if b.bottom() > bottom && i64::from(b.y) > top {
        let over = (b.bottom() - bottom).min(i64::from(b.y) - top);
        return Some((Direction::Down, over));
    }
    None
}

/// The part of `r` on screen.
fn clip(r: &Rect, screen: &Rect) -> Rect {
    let x0 = r.x.max(screen.x);
    let y0 = r.y.max(screen.y);
    let x1 = r.right().min(screen.right()) as i32;
    let y1 = r.bottom().min(screen.bottom()) as i32;
    Rect::new(x0, y0, (x1 - x0).max(0), (y1 - y0).max(0))
}

/// The nearest ancestor on screen whose box does not hold `b`: the scrolled container.
async fn container(
    bus: &Bus,
    handle: &Handle,
    b: &Rect,
    screen: &Rect,
    offset: (i32, i32),
) -> Option<Rect> {
    let mut at = handle.clone();
    for _ in 0..MAX_DEPTH {
        at = bus.parent(&at).await?;
        let role: u32 = bus
            .call(at.owner(), at.path(), ACCESSIBLE, "GetRole", &())
            .await
            .ok()?;
        // The window itself does not scroll its rows.
        if [R::Frame, R::Window, R::Dialog, R::Application]
            .iter()
            .any(|r| *r as u32 == role)
        {
            return None;
        }
        let r = extents(bus, &at, offset).await?;
        let holds = r.is_valid() && r.y <= b.y && r.bottom() >= b.bottom();
        if r.is_valid() && !holds && r.intersects(screen) {
            return Some(r);
        }
    }
    None
}

/// The element's box once it differs from `was` (the app has scrolled) and has held still
/// for a few reads, within a second (a busy machine: Qt 5 once took over 400 ms to move its
/// rows; only a wheel that moves nothing pays the whole wait). A box read while the app
/// is still working through the notches would measure part of the move: the next turn
/// would then scroll past the element, and back.
async fn moved(bus: &Bus, handle: &Handle, was: &Rect, offset: (i32, i32)) -> Option<Rect> {
    let deadline = Instant::now() + Duration::from_millis(1000);
    let mut seen: Option<(Rect, u32)> = None;
    while Instant::now() < deadline {
        if let Some(now) = extents(bus, handle, offset).await {
            seen = match seen {
                Some((last, same)) if last == now => Some((now, same + 1)),
                _ if now != *was => Some((now, 0)),
                other => other,
            };
            if let Some((b, STILL_READS..)) = seen {
                return Some(b);
            }
        }
        tokio::time::sleep(Duration::from_millis(if seen.is_some() { 15 } else { 10 })).await;
    }
    seen.map(|(b, _)| b)
}

/// An element's box on screen: as its toolkit reports it, moved by `offset` where that is
/// from the window's corner (GTK 4, Wayland; `Live::offset`).
async fn extents(bus: &Bus, h: &Handle, offset: (i32, i32)) -> Option<Rect> {
    let (x, y, w, h) = bus.extents_of(h.owner(), h.path()).await.ok()?;
    Some(Rect::new(x + offset.0, y + offset.1, w, h))
}
