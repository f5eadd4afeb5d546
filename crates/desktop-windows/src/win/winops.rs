//! The contract's window operations on Windows: the request posted to the window without
//! waiting on its thread (`SetWindowPos` with `SWP_ASYNCWINDOWPOS`, `ShowWindowAsync`,
//! `PostMessageW(WM_CLOSE)`), then the window watched until it shows the change — or goes
//! away, or its app puts up a question instead of closing. Full screen (`fullscreen`) is
//! desktop-cli's own, undone by `restore` or `maximize`; one made by the app itself (F11) is
//! left to it.
#![allow(unsafe_code)]

use super::desktop::WinDesktop;
use super::{fullscreen, monitors, windows as sys};
use crate::placement;
use desktop_core::model::WindowState;
use desktop_core::winops::{Reach, WindowOp};
use desktop_core::{Error, ErrorCode, Rect, Result, WindowInfo};
use std::time::{Duration, Instant};
use windows::Win32::Foundation::{ERROR_ACCESS_DENIED, HWND, LPARAM, WPARAM};
use windows::Win32::UI::WindowsAndMessaging::{
    IsHungAppWindow, IsWindow, IsWindowVisible, IsZoomed, PostMessageW, SetWindowPos,
    ShowWindowAsync, SHOW_WINDOW_CMD, SWP_ASYNCWINDOWPOS, SWP_NOACTIVATE, SWP_NOMOVE, SWP_NOSIZE,
    SWP_NOZORDER, SW_MAXIMIZE, SW_MINIMIZE, SW_RESTORE, WM_CLOSE,
};

/// How long Windows and the app get to carry out a move, resize or state change.
const CHANGE_WAIT: Duration = Duration::from_secs(2);
/// How long an app gets to close a window or ask its question first.
const CLOSE_WAIT: Duration = Duration::from_secs(5);
/// How long geometry must hold still to count as where the window ended up.
const STILL: Duration = Duration::from_millis(60);
/// How long a new window of the app must show before it counts as its question.
const ASKING: Duration = Duration::from_millis(200);
const POLL: Duration = Duration::from_millis(10);

/// A window as Windows shows it now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    /// `GetWindowRect`: what `SetWindowPos` places.
    outer: Rect,
    /// The visible frame: what `list` reports as the window's bounds.
    frame: Rect,
    state: WindowState,
}

fn rect(r: windows::Win32::Foundation::RECT) -> Rect {
    Rect::new(r.left, r.top, r.right - r.left, r.bottom - r.top)
}

/// The window now: `None` once it is destroyed, or hidden with `hidden_is_gone` (closed
/// into the tray). Nothing here asks the window itself. (Windows go by their id, not an
/// `HWND`, across waits: the answer's future must be `Send`.)
fn seen(id: u64, hidden_is_gone: bool) -> Option<Seen> {
    let h = sys::hwnd(id);
    // SAFETY: queries on a window handle.
    let (alive, shown) = unsafe { (IsWindow(Some(h)).as_bool(), IsWindowVisible(h).as_bool()) };
    if !alive || (hidden_is_gone && !shown) {
        return None;
    }
    Some(Seen {
        outer: rect(sys::outer(h)),
        frame: rect(sys::frame(h)),
        state: sys::state(h),
    })
}

/// The window with what Windows shows of it now.
fn with(window: &WindowInfo, s: Seen) -> WindowInfo {
    WindowInfo {
        bounds: Some(s.frame),
        state: s.state,
        ..window.clone()
    }
}

pub(crate) async fn window_op(
    d: &WinDesktop,
    window: &WindowInfo,
    op: WindowOp,
) -> Result<Option<WindowInfo>> {
    let id = window.id.ok_or_else(|| {
        Error::new(
            ErrorCode::WindowNotFound,
            format!("the window \"{}\" has no handle to act on", window.title),
        )
        .suggest("List the windows and target one with an id")
    })?;
    d.not_our_host(id).map_err(|e| {
        Error::new(
            e.code,
            "desktop-cli runs inside this program, which waits for its answer: it is left alone",
        )
        .suggest("Run desktop-cli from another program to change this window")
    })?;
    let before = seen(id, false).ok_or_else(|| gone(window))?;
    let others: Vec<u64> = if op == WindowOp::Close {
        same_pid(window.pid)
    } else {
        Vec::new()
    };
    // A hung app would take the request whenever it wakes, long after we answered.
    // SAFETY: a query that asks the window nothing.
    if unsafe { IsHungAppWindow(sys::hwnd(id)) }.as_bool() {
        return Err(Error::new(
            ErrorCode::AppUnresponsive,
            format!(
                "{} is not responding (it has not taken its messages for seconds): nothing was asked of \"{}\"",
                window.app, window.title
            ),
        )
        .suggest("Wait and try again, or end it with close-app --force"));
    }
    request(d, window, id, op, before)?;
    let start = Instant::now();
    let deadline = start
        + if op == WindowOp::Close {
            CLOSE_WAIT
        } else {
            CHANGE_WAIT
        };
    let mut last = before;
    let mut still_since = start;
    let mut asked_since: Option<Instant> = None;
    let mut again = true;
    loop {
        tokio::time::sleep(POLL).await;
        let now = Instant::now();
        if op == WindowOp::Close {
            // Destroyed, or hidden (an app that stays in the tray): closed.
            let Some(s) = seen(id, true) else {
                return Ok(None);
            };
            // Its app put up another window instead ("save changes?"): give it a moment to
            // settle, then answer with the window still open (the core reports the question).
            let new = same_pid(window.pid)
                .into_iter()
                .any(|w| w != id && !others.contains(&w));
            match (new, asked_since) {
                (true, None) => asked_since = Some(now),
                (true, Some(t)) if now - t >= ASKING => return Ok(Some(finish(window, s))),
                (false, _) => asked_since = None,
                _ => {}
            }
            if now >= deadline {
                return Ok(Some(finish(window, s)));
            }
            continue;
        }
        let s = seen(id, false).ok_or_else(|| gone(window))?;
        if s.frame != last.frame || s.state != last.state {
            still_since = now;
        }
        last = s;
        let info = with(window, s);
        let held = now - still_since >= STILL;
        let reach = op.reached(window, &info);
        // A minimized window that was maximized comes back maximized: restore it once more.
        if op == WindowOp::Restore
            && before.state == WindowState::Minimized
            && s.state == WindowState::Maximized
            && again
        {
            again = false;
            // SAFETY: posted to the window's thread; nothing waits on it.
            let _ = unsafe { ShowWindowAsync(sys::hwnd(id), SW_RESTORE) };
            continue;
        }
        // Moved onto a monitor of another scale, the app resized itself and its borders
        // changed: place it once more with the borders it has now.
        if matches!(op, WindowOp::Move { .. } | WindowOp::Resize { .. })
            && reach == Reach::Adjusted
            && held
            && again
            && (s.frame.x - s.outer.x, s.frame.w - s.outer.w)
                != (
                    before.frame.x - before.outer.x,
                    before.frame.w - before.outer.w,
                )
        {
            again = false;
            place(window, sys::hwnd(id), op, s)?;
            still_since = now;
            continue;
        }
        match reach {
            // A state reached may still have its geometry follow: answer once it holds.
            Reach::Done if held || op.target_state().is_none() => {
                return Ok(Some(finish(window, s)))
            }
            Reach::Adjusted if held => return Ok(Some(finish(window, s))),
            _ if now >= deadline => return Ok(Some(finish(window, s))),
            _ => {}
        }
    }
}

/// The window as answered: also which display holds it, and whether it is in front now.
fn finish(window: &WindowInfo, s: Seen) -> WindowInfo {
    let mut info = with(window, s);
    let displays = crate::monitors::displays(&monitors::all());
    info.display = desktop_core::backend::display_of(&displays, &s.frame)
        .map(|d| d.name.clone())
        .filter(|n| !n.is_empty());
    info.focused = window.id == Some(sys::foreground());
    info
}

/// Sends the request for `op` (nothing is waited for, but a full screen made or undone,
/// whose style change the window's thread must take: that runs on a bounded worker).
fn request(d: &WinDesktop, window: &WindowInfo, id: u64, op: WindowOp, before: Seen) -> Result<()> {
    let h = sys::hwnd(id);
    let show = |cmd: SHOW_WINDOW_CMD| {
        // SAFETY: posted to the window's thread. Its answer says whether the window was
        // visible before, not whether the request went: the watch that follows tells.
        let _ = unsafe { ShowWindowAsync(h, cmd) };
    };
    let ours = fullscreen::remembered(h).is_some();
    match op {
        WindowOp::Move { .. } | WindowOp::Resize { .. } => {
            if before.state != WindowState::Normal {
                return Err(Error::new(
                    ErrorCode::ActionFailed,
                    format!(
                        "the window \"{}\" is {}: it has no place of its own to {}",
                        window.title,
                        words(before.state),
                        op.name()
                    ),
                )
                .suggest("Restore it first (window restore), then try again"));
            }
            place(window, h, op, before)?;
        }
        WindowOp::Minimize => show(SW_MINIMIZE),
        WindowOp::Maximize => {
            if ours {
                off_worker(d, window, move || fullscreen::undo(id))?;
            }
            show(SW_MAXIMIZE);
        }
        WindowOp::Restore => {
            if ours {
                off_worker(d, window, move || fullscreen::undo(id))?;
            } else if before.state == WindowState::Fullscreen
                // SAFETY: a query on a window handle.
                && !unsafe { IsZoomed(h) }.as_bool()
            {
                // Its own app made it so (F11, a video, a game) and knows how it was before.
                return Err(Error::new(
                    ErrorCode::ActionFailed,
                    format!(
                        "the window \"{}\" was made full screen by its app, which alone can undo it",
                        window.title
                    ),
                )
                .suggest("Press the app's own key for it (often F11 or Escape)"));
            } else {
                show(SW_RESTORE);
            }
        }
        WindowOp::Fullscreen => off_worker(d, window, move || fullscreen::make(id))?,
        WindowOp::Close => {
            // Posted, never sent: a hung app would hold a sent message, and us with it.
            // SAFETY: a message without pointers.
            unsafe { PostMessageW(Some(h), WM_CLOSE, WPARAM(0), LPARAM(0)) }
                .map_err(|e| refused(window, op, &e))?;
        }
    }
    Ok(())
}

/// Moves or resizes the window so that its visible frame is where or as large as asked,
/// posted to its thread.
fn place(window: &WindowInfo, h: HWND, op: WindowOp, now: Seen) -> Result<()> {
    let (x, y, cx, cy, keep) = match op {
        WindowOp::Move { x, y } => {
            let (x, y) = placement::outer_origin(x, y, now.outer, now.frame);
            (x, y, 0, 0, SWP_NOSIZE)
        }
        WindowOp::Resize { w, h } => {
            let (w, h) = placement::outer_size(w, h, now.outer, now.frame);
            (0, 0, w, h, SWP_NOMOVE)
        }
        _ => return Ok(()),
    };
    let flags = keep | SWP_NOZORDER | SWP_NOACTIVATE | SWP_ASYNCWINDOWPOS;
    // SAFETY: a window handle; with SWP_ASYNCWINDOWPOS the request is posted to the window's
    // thread, so a hung one cannot hold us.
    unsafe { SetWindowPos(h, None, x, y, cx, cy, flags) }.map_err(|e| refused(window, op, &e))
}

/// Runs a full screen's change on a worker bounded by the call timeout: changing a window's
/// style sends it messages and waits for their answer, which a hung app never gives.
fn off_worker(
    d: &WinDesktop,
    window: &WindowInfo,
    f: impl FnOnce() -> std::result::Result<(), String> + Send + 'static,
) -> Result<()> {
    d.bounded(&window.app, d.timeout * 2, f)?.map_err(|why| {
        Error::new(
            ErrorCode::ActionFailed,
            format!("the window \"{}\" could not change: {why}", window.title),
        )
        .suggest("List the windows to see its state")
    })
}

/// The top-level windows of the process `pid` (none for an unknown pid).
fn same_pid(pid: u32) -> Vec<u64> {
    if pid == 0 {
        return Vec::new();
    }
    sys::list_of(Some(pid))
        .into_iter()
        .map(|t| t.hwnd)
        .collect()
}

fn words(s: WindowState) -> &'static str {
    match s {
        WindowState::Normal => "normal",
        WindowState::Minimized => "minimized",
        WindowState::Maximized => "maximized",
        WindowState::Fullscreen => "full screen",
    }
}

fn gone(window: &WindowInfo) -> Error {
    Error::new(
        ErrorCode::WindowNotFound,
        format!("the window \"{}\" went away", window.title),
    )
    .suggest("List the windows and target one that is open")
}

/// Windows refused the request: a window of a program with higher rights (an elevated one)
/// takes nothing from us (UIPI), else the system's reason.
fn refused(window: &WindowInfo, op: WindowOp, e: &windows::core::Error) -> Error {
    if e.code() == ERROR_ACCESS_DENIED.to_hresult() {
        return Error::new(
            ErrorCode::PermDenied,
            format!(
                "Windows refused to {} \"{}\": its program runs with higher rights (as administrator)",
                op.name(),
                window.title
            ),
        )
        .suggest("Run desktop-cli as administrator too, or do it by hand");
    }
    Error::new(
        ErrorCode::ActionFailed,
        format!(
            "Windows refused to {} \"{}\": {}",
            op.name(),
            window.title,
            e.message()
        ),
    )
    .suggest("List the windows to see whether it is still there")
}

/// The MCP server runs the contract's futures on a multi-threaded executor: they must be
/// `Send` (no `HWND` or `HANDLE` held across a wait). Checked when this crate builds.
#[allow(dead_code)]
fn futures_are_send(d: &WinDesktop, w: &WindowInfo) {
    fn send<T: Send>(_: T) {}
    send(window_op(d, w, WindowOp::Close));
    send(super::ending::end_process(0, Duration::ZERO));
}
