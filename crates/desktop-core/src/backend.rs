//! The contract every platform backend implements: everything a face (CLI, MCP, agent)
//! needs of a desktop, in platform-neutral types. The binary picks one backend at compile
//! time and talks to it only through this.

use crate::action::ActionResult;
use crate::error::Result;
use crate::filter::Filters;
use crate::model::{AppList, ReadData, Target, WindowInfo, WindowList};
use crate::node::{Handle, Rect};
use crate::request::{ActionRequest, Element};
use crate::role::Role;
use crate::shot::Capture;
use crate::winops::WindowOp;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;

/// What a reader keeps between reads of one window (`observe`): what it learned, and which
/// elements the app reported changed since.
pub trait ReadMemo: Default {
    /// The app reported a change of the element `handle` (of its children, or itself).
    fn touched(&mut self, handle: &Handle, children: bool);
    /// Forget everything: the next read asks about every element again.
    fn clear(&mut self);
    /// Whether earlier reads had to ask element by element (parts the app sends no change
    /// notices for).
    fn walked_any(&self) -> bool;
    /// A timed look: the next read asks again what the app may change without a notice
    /// (the backend knows which toolkit drops which); by default everything.
    fn poll(&mut self) {
        self.clear();
    }
    /// The reads are compared with each other (`observe`): what an element was in the last
    /// read may be taken again where the app named it in no notice since and asking is
    /// costly (a wordless element's clue); with `boxes` false (the caller compares no boxes
    /// and keeps elements wherever they are), such an element comes without a box rather
    /// than with one asked. A timed look takes no clue from the last read (boxes still
    /// left out as above). By default nothing is taken.
    fn reuse(&mut self, boxes: bool) {
        let _ = boxes;
    }
}

/// Keeps nothing (backends that read whole windows every time).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMemo;

impl ReadMemo for NoMemo {
    fn touched(&mut self, _: &Handle, _: bool) {}
    fn clear(&mut self) {}
    fn walked_any(&self) -> bool {
        true
    }
}

/// A change an app reported: the element and whether it was its children that changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub handle: Handle,
    pub children: bool,
}

/// An app's change notices, as `observe` consumes them.
#[allow(async_fn_in_trait)]
pub trait Changes {
    /// The next change; `None` when the app or the connection is gone.
    async fn next(&mut self) -> Option<Change>;
    /// A change already delivered, without waiting.
    fn try_next(&mut self) -> Option<Change>;
}

/// No change notices at all (`observe` then reads on its interval).
#[derive(Debug, Default)]
pub struct NoChanges;

impl Changes for NoChanges {
    async fn next(&mut self) -> Option<Change> {
        None
    }
    fn try_next(&mut self) -> Option<Change> {
        None
    }
}

/// An element looked up by id or text, as `wait` reports it and `screenshot` captures it.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub id: Option<u32>,
    pub role: Role,
    pub name: String,
    pub bounds: Option<Rect>,
    /// Its top-level window's id, when known.
    pub window_id: Option<u64>,
}

/// One display of the desktop. All displays share one coordinate space, in the units
/// elements' bounds and pointer actions use (points on macOS, pixels on X11): a display
/// left of or above the primary one has negative coordinates. `scale` is how many image
/// pixels one unit holds there (2 on a Retina display).
///
/// As `displays` prints it: `{"name":"DP-1","bounds":[0,0,2560,1440],"scale":2.0,
/// "primary":true,"refresh":60.0}` (`refresh` in Hz, absent where the system does not say).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Display {
    /// The system's name for it (the RandR output or monitor, the screen's localized name,
    /// the GDI device); may be empty where it has none.
    pub name: String,
    #[serde(serialize_with = "crate::render::bounds_array")]
    pub bounds: Rect,
    pub scale: f64,
    pub primary: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh: Option<f64>,
}

impl Display {
    /// A display with no name and no known refresh rate (tests, fallbacks).
    pub fn new(bounds: Rect, scale: f64, primary: bool) -> Display {
        Display {
            name: String::new(),
            bounds,
            scale,
            primary,
            refresh: None,
        }
    }
}

/// The display holding a rectangle's center, else the one it overlaps most.
pub fn display_of<'a>(displays: &'a [Display], r: &Rect) -> Option<&'a Display> {
    let (cx, cy) = r.center();
    displays
        .iter()
        .find(|d| d.bounds.contains_point(cx, cy))
        .or_else(|| {
            displays
                .iter()
                .map(|d| {
                    (
                        d.bounds
                            .intersection(r)
                            .map_or(0, |i| i64::from(i.w) * i64::from(i.h)),
                        d,
                    )
                })
                .filter(|(a, _)| *a > 0)
                .max_by_key(|(a, _)| *a)
                .map(|(_, d)| d)
        })
}

/// The rectangle that holds every display (what "the screen" means for a capture of it
/// all and for checking a point), `None` without displays.
pub fn union(displays: &[Display]) -> Option<Rect> {
    let first = displays.first()?.bounds;
    Some(displays.iter().skip(1).fold(first, |u, d| {
        let b = d.bounds;
        let (x0, y0) = (u.x.min(b.x), u.y.min(b.y));
        let (x1, y1) = ((u.x + u.w).max(b.x + b.w), (u.y + u.h).max(b.y + b.h));
        Rect::new(x0, y0, x1 - x0, y1 - y0)
    }))
}

/// One check of `doctor`: a part the tool needs, whether it works, and the fix when not.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<&'static str>,
}

impl Check {
    /// A check from its outcome: the detail, or what failed with how to fix it.
    pub fn new(
        name: &'static str,
        outcome: std::result::Result<String, String>,
        fix: &'static str,
    ) -> Check {
        match outcome {
            Ok(detail) => Check {
                name,
                ok: true,
                detail,
                fix: None,
            },
            Err(detail) => Check {
                name,
                ok: false,
                detail,
                fix: Some(fix),
            },
        }
    }
}

/// A desktop: reading, acting, capturing, watching. Backends are used through one concrete
/// type chosen at compile time, never `dyn`, and the runtime is single-threaded, so the
/// futures need no `Send` bound.
#[allow(async_fn_in_trait)]
pub trait Desktop {
    type Memo: ReadMemo;
    type Changes: Changes;

    /// Applications with an accessibility connection.
    async fn apps(&self) -> Result<AppList>;
    /// Top-level windows matching `target` (all of them when it is empty).
    async fn windows(&self, target: &Target) -> Result<WindowList>;
    /// The one window `target` names (the focused one when it is empty).
    async fn resolve(&self, target: &Target) -> Result<WindowInfo>;
    /// One window's element tree, filtered, reusing what `memo` learned in earlier reads.
    async fn read_window(
        &self,
        window: WindowInfo,
        filters: &Filters,
        memo: Option<&mut Self::Memo>,
    ) -> Result<ReadData>;
    /// The window `target` names, read.
    async fn read(&self, target: &Target, filters: &Filters) -> Result<ReadData> {
        let window = self.resolve(target).await?;
        self.read_window(window, filters, None).await
    }
    /// An element by id (from the last read of `scope`'s window) or text, checked now.
    async fn find(&self, scope: &Target, element: &Element) -> Result<Found>;
    /// One action, answered once the app has taken it in.
    async fn act(&self, request: &ActionRequest) -> Result<ActionResult>;
    /// Starts a program and waits up to `wait` until its window can be read.
    async fn launch(&self, cmd: &[String], wait: Duration) -> Result<ActionResult>;
    /// The change notices of `window`'s app, where it sends them.
    async fn changes(&self, window: &WindowInfo) -> Option<Self::Changes>;
    /// The displays, the primary one first; none where there is nothing to capture.
    fn displays(&self) -> Vec<Display>;
    /// The rectangle that holds every display, when there is one to capture and act on.
    fn screen(&self) -> Option<Rect> {
        union(&self.displays())
    }
    /// Where the pointer is.
    fn pointer(&self) -> Option<(i32, i32)>;
    /// Puts a top-level window above the others (before it is captured).
    fn raise(&self, window_id: u64) -> Result<()>;
    /// A screen area's pixels, at the scale of the display it is on.
    async fn capture(&self, area: Rect) -> Result<Capture>;
    /// One window's own pixels, where the platform serves them even when it is covered
    /// (macOS, Windows); `None` where a window is captured by raising it and capturing its
    /// area (X11).
    async fn capture_window(&self, window: &WindowInfo) -> Result<Option<Capture>> {
        let _ = window;
        Ok(None)
    }
    /// Where the ids of reads of this desktop are kept.
    fn refs_path(&self) -> PathBuf;
    /// A signal each time the screen's pixels change (a burst of drawing gives one or a
    /// few), for `view`; `None` where the platform tells no such thing (the viewer then
    /// compares captures).
    fn screen_changes(&self) -> Option<std::sync::mpsc::Receiver<()>> {
        None
    }
    /// Carries out `op` on a top-level window and answers the window as observed once the
    /// change showed (or a short wait for it ran out): `None` once it is gone (closed). The
    /// verdict is the core's (`winops::run`).
    async fn window_op(&self, window: &WindowInfo, op: WindowOp) -> Result<Option<WindowInfo>> {
        let _ = window;
        Err(crate::Error::new(
            crate::ErrorCode::PlatformNotSupported,
            format!("this platform cannot {} windows yet", op.name()),
        ))
    }
    /// Called now and then by a long-lived face (the MCP server) while no call runs: a
    /// backend that keeps state warm between reads brings it up to date there, off the
    /// calls' path (Linux: quiet windows' answers and mirrors about to age read again).
    /// Nothing by default.
    async fn upkeep(&self) {}
    /// Ends the process `pid` (`close-app --force`): asked to terminate, killed if it still
    /// runs after `grace`; whether it ended. Never this process or one it runs in.
    async fn end_process(&self, pid: u32, grace: Duration) -> Result<bool> {
        let _ = (pid, grace);
        Err(crate::Error::new(
            crate::ErrorCode::PlatformNotSupported,
            "this platform cannot end processes yet",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_screen_holds_every_display() {
        let d = |x, y, w, h| Display::new(Rect::new(x, y, w, h), 1.0, false);
        assert_eq!(union(&[]), None);
        assert_eq!(
            union(&[d(0, 0, 1280, 800)]),
            Some(Rect::new(0, 0, 1280, 800))
        );
        // A display left of and above the primary one.
        let both = [d(0, 0, 1440, 900), d(-1920, -180, 1920, 1080)];
        assert_eq!(union(&both), Some(Rect::new(-1920, -180, 3360, 1080)));
    }
}
