//! The contract's window operations on macOS: the window's AX element asked (`AXPosition`,
//! `AXSize`, `AXMinimized`, `AXFullScreen`, its close button's `AXPress`; maximized is the
//! display's visible frame set as the window's frame), then the window watched through the
//! window server and AX until it shows the change — or goes away, or its app puts up a
//! question instead of closing (`crate::winops` judges each look). Every AX call is bounded
//! by the messaging timeout set at connecting (`ax::set_global_timeout`; the app element's
//! own): a hung app costs that, never a hang. Processes are ended as apps quit
//! (`NSRunningApplication`), forced after the grace, never this one or one it runs under.
#![allow(unsafe_code)]

use super::ax::{self, Element};
use super::desktop::MacDesktop;
use super::windows as sys;
use crate::geometry::{self, WorkArea};
use crate::winops::{self as pure, Frames, Step, Watch, CHANGE_WAIT, POLL, STILL};
use desktop_core::model::WindowState;
use desktop_core::winops::WindowOp;
use desktop_core::{Error, ErrorCode, Rect, Result, WindowInfo};
use objc2_app_kit::NSRunningApplication;
use objc2_application_services::AXError;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A window's AX element held across the watch's waits. The faces' futures must be `Send`
/// (the MCP server's are), and `AXUIElement` is not marked so.
struct Held(Element);
// SAFETY: an AXUIElementRef is an immutable CFType, retained and released atomically, and
// the AX API may be called on it from any thread; it is only used by one task at a time.
unsafe impl Send for Held {}
unsafe impl Sync for Held {}

/// What one look shows of a window: its bounds as the window server has them (those of
/// `list`), its state, and whether it is on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Seen {
    bounds: Rect,
    state: WindowState,
    on_screen: bool,
}

impl Seen {
    /// Off screen without being put away: closed, by an app that hides a closed window
    /// rather than destroying it.
    fn hidden(&self) -> bool {
        !self.on_screen && !matches!(self.state, WindowState::Minimized | WindowState::Fullscreen)
    }
}

/// The flags AX last gave (kept through a look at a busy app that did not answer).
#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    minimized: bool,
    fullscreen: bool,
}

/// The window `wid`, its AX element `el`, as it is now; `None` once it is gone from the
/// window server or its element is dead.
fn look(wid: u32, el: &Element, visible: &[Rect], flags: &mut Flags) -> Option<Seen> {
    let server = sys::server_window(wid)?;
    match ax::window(el) {
        Ok(r) => {
            *flags = Flags {
                minimized: r.minimized,
                fullscreen: r.fullscreen,
            }
        }
        Err(AXError::InvalidUIElement) => return None,
        // Busy (the timeout ran out): what it said last.
        Err(_) => {}
    }
    let state = if flags.minimized {
        WindowState::Minimized
    } else if flags.fullscreen {
        WindowState::Fullscreen
    } else {
        crate::windows::state(None, server.bounds, visible)
    };
    Some(Seen {
        bounds: server.bounds,
        state,
        on_screen: server.on_screen,
    })
}

/// The window with what was seen of it.
fn with(window: &WindowInfo, seen: &Seen) -> WindowInfo {
    WindowInfo {
        bounds: Some(seen.bounds),
        state: seen.state,
        ..window.clone()
    }
}

/// The ids of the windows process `pid` shows now.
fn shown(pid: u32) -> Vec<u32> {
    sys::shown_windows()
        .into_iter()
        .filter(|w| w.pid == pid)
        .map(|w| w.id)
        .collect()
}

pub(crate) async fn window_op(
    d: &MacDesktop,
    window: &WindowInfo,
    op: WindowOp,
) -> Result<Option<WindowInfo>> {
    let wid = window
        .id
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| {
            Error::new(
                ErrorCode::WindowNotFound,
                format!("the window \"{}\" has no window server id", window.title),
            )
            .suggest("List the windows and target one with an id")
        })?;
    let Some(el) = d.ax_window(window.pid, wid)?.map(Held) else {
        if sys::server_window(wid).is_none() {
            return Err(gone(window));
        }
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!(
                "the window \"{}\" shows no accessibility element, through which macOS moves and sizes windows",
                window.title
            ),
        )
        .suggest("Use the app's own menus or keys (read another of its windows)"));
    };
    let areas = geometry::work_areas(&super::displays());
    if op == WindowOp::Maximize && areas.is_empty() {
        return Err(no_area());
    }
    let visible: Vec<Rect> = areas.iter().map(WorkArea::visible_rect).collect();
    let mut flags = Flags::default();
    let Some(mut before) = look(wid, &el.0, &visible, &mut flags) else {
        return Err(gone(window));
    };
    let others = if op == WindowOp::Close {
        shown(window.pid)
    } else {
        Vec::new()
    };
    let ask = Ask {
        window,
        el: &el,
        wid,
        visible: &visible,
        frames: d.refs.with_file_name("frames.json"),
    };
    ask.request(op, &mut before, &areas, &mut flags).await?;
    let before = with(window, &before);
    let mut watch = Watch::new(op, &before, Instant::now());
    loop {
        tokio::time::sleep(POLL).await;
        let now = Instant::now();
        let seen = look(wid, &el.0, &visible, &mut flags);
        if op == WindowOp::Close {
            let closed = seen.is_none_or(|s| s.hidden());
            // Another window of its app came up instead ("save changes?" as a sheet or an
            // alert: windows of their own on the window server).
            let asking = !closed
                && shown(window.pid)
                    .iter()
                    .any(|w| *w != wid && !others.contains(w));
            match watch.closing(now, closed, asking) {
                Step::Closed => return Ok(None),
                Step::Answer => return Ok(seen.map(|s| with(window, &s))),
                Step::Wait => continue,
            }
        }
        let Some(seen) = seen else {
            return Err(gone(window));
        };
        let info = with(window, &seen);
        if watch.changing(now, &before, &info) != Step::Wait {
            return Ok(Some(info));
        }
    }
}

/// What an operation is asked of: the window, its AX element and window server id, the
/// displays' visible frames, and where frames from before maximizing are remembered.
struct Ask<'a> {
    window: &'a WindowInfo,
    el: &'a Held,
    wid: u32,
    visible: &'a [Rect],
    frames: PathBuf,
}

impl Ask<'_> {
    /// Asks the window for `op`. A minimized window is brought back first for what it
    /// cannot do in the Dock (move, resize, maximize, full screen), and a full-screen one
    /// leaves its Space first for what it cannot do there (move, resize, minimize,
    /// maximize); `before` is then the window as it came back.
    async fn request(
        &self,
        op: WindowOp,
        before: &mut Seen,
        areas: &[WorkArea],
        flags: &mut Flags,
    ) -> Result<()> {
        let fail = |e: AXError| refused(e, self.window, op);
        let (unminimize, unfullscreen) = match op {
            WindowOp::Move { .. } | WindowOp::Resize { .. } | WindowOp::Maximize => (true, true),
            WindowOp::Minimize => (false, true),
            WindowOp::Fullscreen => (true, false),
            WindowOp::Restore | WindowOp::Close => (false, false),
        };
        if unminimize && before.state == WindowState::Minimized {
            ax::set_bool(&self.el.0, "AXMinimized", false).map_err(fail)?;
            *before = self.settle(*before, flags, WindowState::Minimized).await;
        }
        if unfullscreen && before.state == WindowState::Fullscreen {
            ax::set_bool(&self.el.0, "AXFullScreen", false).map_err(fail)?;
            *before = self.settle(*before, flags, WindowState::Fullscreen).await;
        }
        match op {
            WindowOp::Move { x, y } => {
                ax::set_position(&self.el.0, f64::from(x), f64::from(y)).map_err(fail)
            }
            WindowOp::Resize { w, h } => {
                ax::set_size(&self.el.0, f64::from(w), f64::from(h)).map_err(fail)
            }
            WindowOp::Minimize => ax::set_bool(&self.el.0, "AXMinimized", true).map_err(fail),
            WindowOp::Fullscreen => ax::set_bool(&self.el.0, "AXFullScreen", true).map_err(fail),
            WindowOp::Maximize => {
                // The display's visible frame, set: the zoom button would give whatever size
                // the app likes (TextEdit fits its text), and `list` calls a window
                // maximized by this frame alone.
                let area = geometry::area_of(areas, before.bounds).ok_or_else(no_area)?;
                if before.state == WindowState::Normal {
                    let mut frames = load(&self.frames);
                    frames.remember(u64::from(self.wid), before.bounds);
                    save(&self.frames, &frames);
                }
                self.set_frame(area.visible).map_err(fail)
            }
            WindowOp::Restore => match before.state {
                WindowState::Minimized => {
                    ax::set_bool(&self.el.0, "AXMinimized", false).map_err(fail)
                }
                WindowState::Fullscreen => {
                    ax::set_bool(&self.el.0, "AXFullScreen", false).map_err(fail)
                }
                WindowState::Maximized => {
                    let area = geometry::area_of(areas, before.bounds).ok_or_else(no_area)?;
                    let remembered = load(&self.frames).get(u64::from(self.wid));
                    let r = pure::restored(remembered, area.visible_rect());
                    let frame = (
                        f64::from(r.x),
                        f64::from(r.y),
                        f64::from(r.w),
                        f64::from(r.h),
                    );
                    self.set_frame(frame).map_err(fail)
                }
                WindowState::Normal => Ok(()),
            },
            WindowOp::Close => {
                let button = ax::element(&self.el.0, "AXCloseButton")
                    .map_err(fail)?
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::NotInteractable,
                            format!("the window \"{}\" has no close button", self.window.title),
                        )
                        .suggest("Close it through its app (its menu, or a key such as cmd+w), or end the app with close-app --force")
                    })?;
                ax::perform(&button, "AXPress").map_err(fail)
            }
        }
    }

    /// Waits (up to [`CHANGE_WAIT`]) until the window has left the state `from` and holds
    /// still (leaving full screen slides the window back out of its Space); the window as
    /// it is then.
    async fn settle(&self, mut last: Seen, flags: &mut Flags, from: WindowState) -> Seen {
        let start = Instant::now();
        let mut still_since = start;
        while start.elapsed() < CHANGE_WAIT {
            tokio::time::sleep(POLL).await;
            let Some(seen) = look(self.wid, &self.el.0, self.visible, flags) else {
                break;
            };
            if seen != last {
                still_since = Instant::now();
            }
            last = seen;
            if seen.state != from && still_since.elapsed() >= STILL {
                break;
            }
        }
        last
    }

    /// Gives the window a frame: its place, its size, its place again — an app may keep
    /// its bottom edge while it is resized (Cocoa's origin is bottom-left), and one moved
    /// onto a display it overhangs may be pushed back before it is resized to fit.
    fn set_frame(&self, (x, y, w, h): (f64, f64, f64, f64)) -> std::result::Result<(), AXError> {
        ax::set_position(&self.el.0, x, y)?;
        ax::set_size(&self.el.0, w, h)?;
        ax::set_position(&self.el.0, x, y)
    }
}

fn load(path: &Path) -> Frames {
    std::fs::read(path)
        .map(|b| Frames::parse(&b))
        .unwrap_or_default()
}

/// Remembering is a convenience for a later restore: a failed write loses only that.
fn save(path: &Path, frames: &Frames) {
    let _ = desktop_core::private::write(path, &frames.to_json());
}

/// An AX call refused: the app does not offer this for this window, the window went away,
/// or the call's own error (a busy app, the permission).
fn refused(e: AXError, window: &WindowInfo, op: WindowOp) -> Error {
    match e {
        AXError::AttributeUnsupported
        | AXError::ActionUnsupported
        | AXError::IllegalArgument
        | AXError::Failure => Error::new(
            ErrorCode::ActionFailed,
            format!(
                "the app of the window \"{}\" refused to {} it (AXError {})",
                window.title,
                op.name(),
                e.0
            ),
        )
        .suggest("List the windows to see its state; its app may not offer this for this window"),
        AXError::InvalidUIElement => gone(window),
        e => ax::error(e, op.name()),
    }
}

fn no_area() -> Error {
    Error::new(
        ErrorCode::PlatformNotSupported,
        "the displays' visible frames are unknown here (AppKit gives them on the main thread only)",
    )
    .suggest("Resize and move the window to the display's size instead")
}

fn gone(window: &WindowInfo) -> Error {
    Error::new(
        ErrorCode::WindowNotFound,
        format!("the window \"{}\" went away", window.title),
    )
    .suggest("List the windows and target one that is open")
}

extern "C" {
    /// libSystem: sends `sig` to `pid`; signal 0 only checks that it exists and may be
    /// signalled.
    fn kill(pid: i32, sig: i32) -> i32;
    /// libSystem: reaps `pid` if it is an exited child of this process; with `WNOHANG`
    /// never waits.
    fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
}

const SIGKILL: i32 = 9;
const SIGTERM: i32 = 15;
const WNOHANG: i32 = 1;
const EPERM: i32 = 1;

/// Whether `pid` still runs. A child of this process that exited (a program `launch`
/// started) is reaped first: it would otherwise linger as a zombie that `kill` finds.
fn alive(pid: i32) -> bool {
    // SAFETY: WNOHANG never blocks, and a null status is allowed; for a process that is no
    // child of this one it fails (ECHILD) and changes nothing.
    unsafe { waitpid(pid, std::ptr::null_mut(), WNOHANG) };
    // SAFETY: signal 0 sends nothing.
    if unsafe { kill(pid, 0) } == 0 {
        return true;
    }
    // Another user's process exists too; only "no such process" (ESRCH) means gone.
    std::io::Error::last_os_error().raw_os_error() == Some(EPERM)
}

/// Sends a signal; the system's refusal as an error.
fn signal(pid: i32, sig: i32) -> std::io::Result<()> {
    // SAFETY: `pid` is a single process (above 1: never a group, never launchd).
    if unsafe { kill(pid, sig) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

async fn gone_within(pid: i32, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    while alive(pid) {
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
    true
}

/// Asks the app to quit as its Quit command would (`terminate`: it may save, or ask first
/// and so not quit), SIGTERM for a process AppKit does not know; after `grace`, forces it
/// (`forceTerminate`, else SIGKILL). Whether it ended. Never this process or one it runs
/// under, nor launchd or a process group (pid 0 or 1, or one beyond a pid's range).
pub(crate) async fn end_process(pid: u32, grace: Duration) -> Result<bool> {
    let Some(raw) = i32::try_from(pid).ok().filter(|p| *p > 1) else {
        return Err(Error::new(
            ErrorCode::PermDenied,
            format!("process {pid} is no app's process: not ended"),
        )
        .suggest("List the windows to see the apps' processes"));
    };
    if pure::runs_us(pid, std::process::id(), super::parent) {
        return Err(Error::new(
            ErrorCode::PermDenied,
            format!("process {pid} runs desktop-cli itself (it or one it runs under): not ended"),
        )
        .suggest("Close that app yourself"));
    }
    if !alive(raw) {
        return Ok(true);
    }
    let app = NSRunningApplication::runningApplicationWithProcessIdentifier(raw);
    if !app.as_ref().is_some_and(|a| a.terminate()) {
        if let Err(e) = signal(raw, SIGTERM) {
            if alive(raw) {
                return Err(Error::new(
                    ErrorCode::PermDenied,
                    format!("the system refused to end process {pid}: {e}"),
                )
                .suggest("It belongs to another user: end it as that user"));
            }
        }
    }
    if gone_within(raw, grace).await {
        return Ok(true);
    }
    if !app.as_ref().is_some_and(|a| a.forceTerminate()) {
        let _ = signal(raw, SIGKILL);
    }
    Ok(gone_within(raw, Duration::from_secs(2)).await)
}
