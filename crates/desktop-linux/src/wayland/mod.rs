//! Wayland sessions: where windows are and which has the focus (sway's IPC — Wayland
//! itself tells no client where any window is), displays, and the compositor-side input,
//! capture and clipboard of `input`, `capture` and `clipboard`.
//!
//! Toolkits on Wayland report accessibility boxes relative to their window, so everything
//! screen-wide here comes from the compositor; where it cannot say, bounds are left out
//! rather than guessed.

pub(crate) mod capture;
mod client;
pub(crate) mod clipboard;
pub(crate) mod input;
mod keymap;
mod tree;

pub(crate) use client::Client;

use crate::x11::XWindow;
use desktop_core::backend::Display;
use desktop_core::{Error, ErrorCode, Rect, Result};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long the compositor gets to answer one IPC request.
const IPC_TIMEOUT: Duration = Duration::from_secs(2);

/// A connection to a Wayland session: the display (for input, capture, clipboard) and the
/// compositor's IPC socket where it has one (sway: windows, their boxes, focus, outputs).
pub struct Wl {
    pub(crate) client: Client,
    ipc: Option<PathBuf>,
    /// The virtual keyboard and pointer, made on first use.
    devices: std::sync::Mutex<Option<input::Devices>>,
}

impl std::fmt::Debug for Wl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wl").field("ipc", &self.ipc).finish()
    }
}

/// `PLATFORM_NOT_SUPPORTED` naming what this Wayland session lacks for `what`.
pub(crate) fn lacks(what: &str, missing: &str) -> Error {
    Error::new(
        ErrorCode::PlatformNotSupported,
        format!(
            "{what} is not possible in this Wayland session: the compositor offers no {missing}"
        ),
    )
    .suggest(
        "Use a wlroots compositor (sway), or a headless sandbox: desktop-cli sandbox up --wayland",
    )
}

impl Wl {
    /// Connects to `WAYLAND_DISPLAY` (a name in `XDG_RUNTIME_DIR` or an absolute path).
    pub fn connect() -> Result<Wl> {
        let client = Client::connect()?;
        let ipc = std::env::var_os("SWAYSOCK")
            .map(PathBuf::from)
            .filter(|p| p.exists());
        Ok(Wl {
            client,
            ipc,
            devices: std::sync::Mutex::new(None),
        })
    }

    /// Runs `f` on this process's virtual input devices (made the first time).
    pub(crate) fn with_devices<T>(
        &self,
        f: impl FnOnce(&mut input::Devices, &Client) -> Result<T>,
    ) -> Result<T> {
        let mut guard = self
            .devices
            .lock()
            .map_err(|_| Error::internal("the input devices were left broken"))?;
        let devices = match guard.as_mut() {
            Some(d) => d,
            None => guard.insert(input::Devices::new(&self.client)?),
        };
        f(devices, &self.client)
    }

    /// Which compositor this is, as far as we can tell.
    pub fn compositor(&self) -> &'static str {
        if self.ipc.is_some() {
            "sway"
        } else {
            "unknown"
        }
    }

    fn sway(&self) -> Result<swayipc::Connection> {
        let path = self.ipc.as_deref().ok_or_else(|| {
            lacks(
                "knowing where windows are",
                "window list with positions (sway's IPC; SWAYSOCK is not set)",
            )
        })?;
        sway_at(path)
    }

    /// Top-level windows, bottom of the stack first (the focused one last), with their
    /// boxes on screen; none when the compositor has no IPC we speak.
    pub fn windows(&self) -> Result<Vec<XWindow>> {
        let Some(path) = self.ipc.as_deref() else {
            return Ok(Vec::new());
        };
        let root = sway_at(path)?.get_tree().map_err(ipc_err)?;
        Ok(tree::windows(&root))
    }

    /// The focused window among `tops`.
    pub fn focused(&self, tops: &[XWindow]) -> Option<u32> {
        // `tree::windows` puts the focused window last and marks nothing else so.
        let path = self.ipc.as_deref()?;
        let root = sway_at(path).ok()?.get_tree().ok()?;
        let id = tree::focused(&root)?;
        tops.iter().any(|w| w.id == id).then_some(id)
    }

    /// Brings `window` forward and gives it the focus.
    pub fn raise_and_focus(&self, window: u32) -> Result<()> {
        self.command(&format!("[con_id={window}] focus"))
    }

    /// Runs one sway command, failing with the compositor's own words.
    pub fn command(&self, cmd: &str) -> Result<()> {
        let outcomes = self.sway()?.run_command(cmd).map_err(ipc_err)?;
        for o in outcomes {
            o.map_err(|e| {
                Error::new(
                    ErrorCode::ActionFailed,
                    format!("the compositor refused \"{cmd}\""),
                )
                .detail(e.to_string())
            })?;
        }
        Ok(())
    }

    /// The outputs, placed in the one layout space; the root output's box without IPC.
    pub fn displays(&self) -> Vec<Display> {
        match self.ipc.as_deref().map(outputs_at) {
            Some(Ok(d)) if !d.is_empty() => d,
            _ => self
                .client
                .output_size()
                .map(|(w, h)| vec![Display::new(Rect::new(0, 0, w, h), 1.0, true)])
                .unwrap_or_default(),
        }
    }

    /// The union of every display.
    pub fn screen(&self) -> Rect {
        desktop_core::backend::union(&self.displays()).unwrap_or_default()
    }
}

/// How far a toolkit's boxes move to land on screen: toolkits on Wayland report them from
/// their surface's corner, and the compositor places the window's *geometry*, which leaves
/// out the margin client-side shadows take around it (Chromium draws 10 px on each side
/// even when tiled). The frame's box as the toolkit reports it gives that margin, taken as
/// even on both sides since nothing says otherwise.
pub fn shift(frame: Option<Rect>, window: Rect) -> (i32, i32) {
    let frame = frame.unwrap_or(Rect::new(0, 0, window.w, window.h));
    let mx = ((frame.w - window.w) / 2).max(0);
    let my = ((frame.h - window.h) / 2).max(0);
    (window.x - frame.x - mx, window.y - frame.y - my)
}

/// sway's IPC at `path`, every request bounded by [`IPC_TIMEOUT`].
fn sway_at(path: &Path) -> Result<swayipc::Connection> {
    let stream = UnixStream::connect(path).map_err(|e| {
        Error::new(
            ErrorCode::A11yUnavailable,
            format!("cannot reach the compositor at {}: {e}", path.display()),
        )
        .suggest("Check SWAYSOCK, or that the compositor still runs")
    })?;
    let _ = stream.set_read_timeout(Some(IPC_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IPC_TIMEOUT));
    Ok(swayipc::Connection::from(stream))
}

fn ipc_err(e: swayipc::Error) -> Error {
    Error::new(
        ErrorCode::A11yUnavailable,
        format!("the compositor's IPC failed: {e}"),
    )
    .suggest("Check that the compositor still runs (SWAYSOCK)")
}

/// The active outputs sway at `path` reports, in its layout's coordinates; the first one
/// (leftmost, then topmost) primary, since Wayland has no primary output.
pub fn outputs_at(path: &Path) -> Result<Vec<Display>> {
    let outputs = sway_at(path)?.get_outputs().map_err(ipc_err)?;
    Ok(tree::displays(&outputs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_move_by_the_window_less_the_shadow_margin() {
        // GTK 3 tiled: the frame is the window.
        let win = Rect::new(640, 0, 640, 800);
        assert_eq!(shift(Some(Rect::new(0, 0, 640, 800)), win), (640, 0));
        // Chromium: a 10 px shadow around the geometry sway placed.
        assert_eq!(shift(Some(Rect::new(0, 0, 660, 820)), win), (630, -10));
        // No frame box: the window's corner.
        assert_eq!(shift(None, win), (640, 0));
    }
}
