//! The contract's window operations on Linux: the request sent (`wm`), then the window
//! watched until it shows the change — or goes away, or its app puts up a question instead
//! of closing — and processes ended for `close-app --force`, only ever the one named.

use crate::wayland::Wl;
use crate::x11::wm::Seen;
use crate::x11::{no_display, X};
use crate::LinuxDesktop;
use desktop_core::model::WindowState;
use desktop_core::winops::{Reach, WindowOp};
use desktop_core::{Error, ErrorCode, Result, WindowInfo};
use rustix::process::{kill_process, Pid, Signal};
use std::time::{Duration, Instant};

/// How long a window manager and an app get to carry out a move, resize or state change.
const CHANGE_WAIT: Duration = Duration::from_secs(2);
/// How long an app gets to close a window or ask its question first (LibreOffice's takes a
/// while to appear).
const CLOSE_WAIT: Duration = Duration::from_secs(5);
/// How long geometry must hold still to count as where the window ended up.
const STILL: Duration = Duration::from_millis(60);
const POLL: Duration = Duration::from_millis(10);

pub(crate) async fn window_op(
    d: &LinuxDesktop,
    window: &WindowInfo,
    op: WindowOp,
) -> Result<Option<WindowInfo>> {
    let x = match (&d.x, &d.wl) {
        (Some(x), _) => Side::X(x),
        (None, Some(w)) => Side::Wayland(w),
        (None, None) => return Err(no_display()),
    };
    let x = &x;
    let id = window
        .id
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| {
            Error::new(
                ErrorCode::WindowNotFound,
                format!(
                    "the window \"{}\" has no window-system window to act on",
                    window.title
                ),
            )
            .suggest("List the windows and target one with an id")
        })?;
    let Some(before) = x.seen(id)? else {
        return Err(gone(window));
    };
    let others: Vec<u32> = if op == WindowOp::Close {
        same_pid(x, window.pid)
    } else {
        Vec::new()
    };
    x.request(id, op, before.state)?;
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
    loop {
        tokio::time::sleep(POLL).await;
        let now = Instant::now();
        let seen = x.seen(id)?;
        if op == WindowOp::Close {
            // Destroyed, or withdrawn (unmapped and not minimized): closed.
            match seen {
                None => return Ok(None),
                Some(s) if !s.mapped && s.state != WindowState::Minimized => return Ok(None),
                Some(_) => {}
            }
            // Its app put up another window instead ("save changes?"): give it a moment to
            // settle, then answer with the window still open.
            let new = same_pid(x, window.pid)
                .into_iter()
                .any(|w| w != id && !others.contains(&w));
            match (new, asked_since) {
                (true, None) => asked_since = Some(now),
                (true, Some(t)) if now - t >= Duration::from_millis(200) => {
                    return Ok(seen.map(|s| with(window, s)));
                }
                (false, _) => asked_since = None,
                _ => {}
            }
            if now >= deadline {
                return Ok(seen.map(|s| with(window, s)));
            }
            continue;
        }
        let Some(seen) = seen else {
            return Err(gone(window));
        };
        if seen.bounds != last.bounds || seen.state != last.state {
            still_since = now;
        }
        last = seen;
        let info = with(window, seen);
        let held = now - still_since >= STILL;
        match op.reached(window, &info) {
            // A state reached may still have its geometry follow (a maximized window
            // resized by its app): answer once the geometry holds.
            Reach::Done if held || op.target_state().is_none() => return Ok(Some(info)),
            Reach::Adjusted if held => return Ok(Some(info)),
            _ if now >= deadline => return Ok(Some(info)),
            _ => {}
        }
    }
}

/// The window with what X shows of it now.
fn with(window: &WindowInfo, seen: crate::x11::wm::Seen) -> WindowInfo {
    WindowInfo {
        bounds: Some(seen.bounds),
        state: seen.state,
        ..window.clone()
    }
}

/// The window system the request goes to: the X server (its window manager), or the
/// Wayland compositor (sway's commands).
enum Side<'a> {
    X(&'a X),
    Wayland(&'a Wl),
}

impl Side<'_> {
    fn windows(&self) -> Result<Vec<crate::x11::XWindow>> {
        match self {
            Side::X(x) => x.windows(),
            Side::Wayland(w) => w.windows(),
        }
    }

    /// The window as the window system shows it now; `None` once it is gone.
    fn seen(&self, id: u32) -> Result<Option<Seen>> {
        match self {
            Side::X(x) => x.seen(id),
            Side::Wayland(w) => Ok(w.windows()?.into_iter().find(|t| t.id == id).map(|t| Seen {
                bounds: t.bounds,
                state: t.state,
                mapped: true,
            })),
        }
    }

    fn request(&self, id: u32, op: WindowOp, now: WindowState) -> Result<()> {
        match self {
            Side::X(x) => x.request(id, op, now),
            Side::Wayland(w) => w.command(&crate::wayland::window_command(id, op, now)?),
        }
    }
}

/// The top-level windows of the process `pid` (none for an unknown pid).
fn same_pid(x: &Side, pid: u32) -> Vec<u32> {
    if pid == 0 {
        return Vec::new();
    }
    x.windows()
        .map(|ws| {
            ws.into_iter()
                .filter(|w| w.pid == Some(pid))
                .map(|w| w.id)
                .collect()
        })
        .unwrap_or_default()
}

fn gone(window: &WindowInfo) -> Error {
    Error::new(
        ErrorCode::WindowNotFound,
        format!("the window \"{}\" went away", window.title),
    )
    .suggest("List the windows and target one that is open")
}

/// SIGTERM, then SIGKILL if it still runs after `grace`; the process is known by its start
/// time too, so a pid reused meanwhile is never signalled. Never this process or one it
/// runs under (the terminal or client that started it).
pub(crate) async fn end_process(pid: u32, grace: Duration) -> Result<bool> {
    if ours(pid) {
        return Err(Error::new(
            ErrorCode::PermDenied,
            format!("process {pid} runs desktop-cli itself (it or one it runs under): not ended"),
        )
        .suggest("Close that app yourself"));
    }
    let Some(proc) = crate::procs::Proc::new("app", pid) else {
        return Ok(true); // already gone
    };
    let raw = Pid::from_raw(proc.pid).ok_or_else(|| Error::internal("pid 0"))?;
    if let Err(e) = kill_process(raw, Signal::TERM) {
        return Err(Error::new(
            ErrorCode::PermDenied,
            format!("the system refused to end process {pid}: {e}"),
        )
        .suggest("It belongs to another user: end it as that user"));
    }
    let deadline = Instant::now() + grace;
    while proc.alive() && Instant::now() < deadline {
        tokio::time::sleep(POLL).await;
    }
    if proc.alive() {
        let _ = kill_process(raw, Signal::KILL);
        let deadline = Instant::now() + Duration::from_secs(2);
        while proc.alive() && Instant::now() < deadline {
            tokio::time::sleep(POLL).await;
        }
    }
    Ok(!proc.alive())
}

/// Whether `pid` is this process or one of its ancestors.
fn ours(pid: u32) -> bool {
    let mut p = std::process::id();
    for _ in 0..64 {
        if p == pid {
            return true;
        }
        match parent(p) {
            Some(q) if q > 1 => p = q,
            _ => return false,
        }
    }
    false
}

/// Field 4 of `/proc/PID/stat`.
fn parent(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 2..]
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_and_its_parents_are_ours() {
        assert!(ours(std::process::id()));
        let parent = parent(std::process::id()).unwrap();
        assert!(parent > 0 && ours(parent));
        assert!(!ours(u32::MAX));
    }
}
