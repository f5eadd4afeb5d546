//! Wayland sessions: where windows are and which has the focus (sway's IPC — Wayland
//! itself tells no client where any window is — else the window list of wlroots'
//! foreign-toplevel protocol, without positions: `toplevels`), displays, and the
//! compositor-side input, capture and clipboard of `input`, `capture` and `clipboard`.
//!
//! Toolkits on Wayland report accessibility boxes relative to their window, so everything
//! screen-wide here comes from the compositor; where it cannot say, bounds are left out
//! rather than guessed, reads say their boxes are the window's, and input at a point is
//! refused (`unplaced`).

pub(crate) mod capture;
mod client;
pub(crate) mod clipboard;
pub(crate) mod input;
mod keymap;
mod toplevels;
mod tree;

pub(crate) use client::Client;

use crate::x11::XWindow;
use desktop_core::backend::Display;
use desktop_core::{Error, ErrorCode, Rect, Result, Target, WindowInfo};
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

/// `PLATFORM_NOT_SUPPORTED` for `what` (input at a point, a mark on a screenshot) where the
/// compositor tells no window positions, so element boxes are relative to their window.
pub(crate) fn unplaced(what: &str) -> Error {
    Error::new(
        ErrorCode::PlatformNotSupported,
        format!(
            "{what} needs a place on screen, and this Wayland compositor tells no window positions (only sway's IPC does: SWAYSOCK is unset or names no socket): element boxes are relative to their window"
        ),
    )
    .suggest("Act through the element's accessibility instead: a plain left click (--id or --text), toggle, set-value, type --id, press --id; or run sway with SWAYSOCK set for input at points")
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

    /// Whether the compositor tells where windows are (sway's IPC): else element boxes stay
    /// relative to their window and no point on screen can be aimed at.
    pub fn positions(&self) -> bool {
        self.ipc.is_some()
    }

    /// `PLATFORM_NOT_SUPPORTED` for a target naming a window by id where the compositor
    /// gives windows none (only sway's IPC does).
    pub fn check_target(&self, target: &Target) -> Result<()> {
        match target.window_id {
            Some(id) if !self.positions() => Err(Error::new(
                ErrorCode::PlatformNotSupported,
                format!("window id {id} names nothing here: this Wayland compositor gives windows no ids (only sway's IPC does: SWAYSOCK is unset or names no socket)"),
            )
            .suggest("Name the window by its app (--app) or title (--window), as list shows them")),
            _ => Ok(()),
        }
    }

    /// The windows listed from their accessibility frames, as this session can tell them.
    /// A frame's own box is its toolkit's, from its window's corner: never a place on
    /// screen, so a window the compositor does not place has none. Without sway's IPC the
    /// compositor's toplevel list (where it offers one) gives titles, focus and states
    /// (`toplevels::join`); `skipped`: apps the query left out, whose toplevels stay out.
    pub(crate) fn settle_windows(
        &self,
        mut windows: Vec<WindowInfo>,
        skipped: &[&str],
    ) -> Result<Vec<WindowInfo>> {
        if self.positions() {
            for w in windows.iter_mut().filter(|w| w.id.is_none()) {
                w.bounds = None;
            }
            return Ok(windows);
        }
        match toplevels::list(&self.client)? {
            Some(tops) => Ok(toplevels::join(
                windows,
                &tops,
                skipped,
                crate::identity::program_name,
            )),
            None => {
                for w in &mut windows {
                    w.bounds = None;
                }
                Ok(windows)
            }
        }
    }

    /// Asks the compositor to focus the window titled `title` of `app` (process `pid`)
    /// where only its toplevel list can (no IPC: no window ids); whether it was asked.
    pub(crate) fn activate(&self, title: &str, app: &str, pid: Option<u32>) -> Result<bool> {
        if self.positions() {
            return Ok(false);
        }
        let program = pid.and_then(crate::identity::program_name);
        toplevels::activate(&self.client, title, app, program.as_deref())
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
/// even on both sides since nothing says otherwise. A frame much larger than its window is
/// no shadow: a window that cannot shrink to its tile (gtk3-widget-factory is 1415 px wide
/// at least) is cut down to it from its corner (sway centres only smaller ones), and GTK
/// draws no shadow on a tiled window.
pub fn shift(frame: Option<Rect>, window: Rect) -> (i32, i32) {
    let frame = frame.unwrap_or(Rect::new(0, 0, window.w, window.h));
    let margin = |extra: i32| {
        if extra <= 2 * SHADOW_MAX {
            (extra / 2).max(0)
        } else {
            0
        }
    };
    let (mx, my) = (margin(frame.w - window.w), margin(frame.h - window.h));
    (window.x - frame.x - mx, window.y - frame.y - my)
}

/// The widest client-side shadow taken for one (GTK 3 floating: about 26 px, Chromium 10).
const SHADOW_MAX: i32 = 40;

/// doctor's checks of a Wayland session: the display and compositor, and which input,
/// capture and clipboard paths it offers (naming what is missing).
pub fn checks(sandbox: Option<&str>) -> Vec<desktop_core::backend::Check> {
    use desktop_core::backend::Check;
    let wl = Wl::connect();
    let name = std::env::var("WAYLAND_DISPLAY").unwrap_or_default();
    let mut out = vec![Check::new(
        "session",
        match &wl {
            Ok(w) => Ok(format!(
                "Wayland ({}) at {name}{}",
                w.compositor(),
                sandbox.map(|s| format!("; sandbox :{s}")).unwrap_or_default()
            )),
            Err(e) => Err(e.message.clone()),
        },
        "Check WAYLAND_DISPLAY (and XDG_RUNTIME_DIR), or start a sandbox: desktop-cli sandbox up --wayland",
    )];
    let Ok(wl) = wl else {
        return out;
    };
    let has = |g: &str| wl.client.has(g);
    let displays = wl.displays();
    let list: Vec<String> = displays
        .iter()
        .map(|d| {
            format!(
                "{} {}x{}+{}+{}",
                d.name, d.bounds.w, d.bounds.h, d.bounds.x, d.bounds.y
            )
        })
        .collect();
    out.push(Check::new(
        "windows",
        if wl.positions() {
            Ok(format!("window positions from sway's IPC; displays: {}", list.join(", ")))
        } else if has(toplevels::GLOBAL) {
            Err(format!("windows from the compositor's toplevel list ({}): titles, focus and states, but no positions or ids; element boxes are relative to their window and input at points is refused", toplevels::GLOBAL))
        } else {
            Err("no window list from the compositor (neither sway's IPC nor a foreign-toplevel list): windows are listed from their accessibility frames, without positions or ids; element boxes are relative to their window and input at points is refused".into())
        },
        "Run sway and set SWAYSOCK for window positions; other compositors tell clients none (accessibility actions, typing and screenshots of the whole screen still work)",
    ));
    let (k, p) = (has(input::KEYBOARD_GLOBAL), has(input::POINTER_GLOBAL));
    out.push(Check::new(
        "input",
        match (k, p) {
            (true, true) => Ok(format!("virtual keyboard ({}) and pointer ({})", input::KEYBOARD_GLOBAL, input::POINTER_GLOBAL)),
            (true, false) => Err(format!("no virtual pointer ({}): clicks at points are refused; keys work", input::POINTER_GLOBAL)),
            (false, true) => Err(format!("no virtual keyboard ({}): typing is refused; pointer works", input::KEYBOARD_GLOBAL)),
            (false, false) => Err("no virtual keyboard or pointer: only accessibility actions work".into()),
        },
        "Use a wlroots compositor (sway) for synthesized input; GNOME and KDE offer it only through the RemoteDesktop portal, which desktop-cli does not use yet",
    ));
    out.push(Check::new(
        "capture",
        if has(capture::GLOBAL) {
            Ok(format!("screencopy ({})", capture::GLOBAL))
        } else {
            Err(format!("no {}: screenshots are refused", capture::GLOBAL))
        },
        "Use a wlroots compositor (sway) for screenshots; elsewhere the desktop portal's Screenshot, which desktop-cli does not use yet",
    ));
    out.push(Check::new(
        "clipboard",
        if has(clipboard::GLOBAL) {
            Ok(format!("data-control ({})", clipboard::GLOBAL))
        } else {
            Err(format!(
                "no {}: the clipboard cannot be read or set",
                clipboard::GLOBAL
            ))
        },
        "Use a compositor with the data-control protocol (wlroots, KDE)",
    ));
    // Told to use Wayland (the sandbox's environment), Qt aborts at start without its plugin.
    if std::env::var("QT_QPA_PLATFORM").is_ok_and(|p| p.starts_with("wayland")) {
        out.push(Check::new(
            "qt",
            match qt_wayland_plugins(&qt_plugin_dirs()) {
                found if found.is_empty() => Err("QT_QPA_PLATFORM=wayland, and Qt's Wayland platform plugin is not installed: Qt apps abort at start".into()),
                found => Ok(format!("Qt's Wayland platform plugin: {}", found.join(", "))),
            },
            "Install Qt's Wayland plugin (Debian/Ubuntu: qtwayland5 for Qt 5, qt6-wayland for Qt 6)",
        ));
    }
    out
}

/// Where Qt looks for its plugins: `QT_PLUGIN_PATH`, then where distributions put Qt 5's
/// and Qt 6's.
fn qt_plugin_dirs() -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<std::path::PathBuf> = std::env::var("QT_PLUGIN_PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !d.is_empty())
        .map(Into::into)
        .collect();
    let libs = std::fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with("-linux-gnu"))
        });
    for lib in libs.chain(["/usr/lib".into(), "/usr/lib64".into()]) {
        for qt in ["qt5/plugins", "qt6/plugins", "qt/plugins"] {
            dirs.push(lib.join(qt));
        }
    }
    dirs
}

/// The plugin folders among `dirs` that hold Qt's Wayland platform plugin.
fn qt_wayland_plugins(dirs: &[std::path::PathBuf]) -> Vec<String> {
    dirs.iter()
        .filter(|d| {
            std::fs::read_dir(d.join("platforms"))
                .into_iter()
                .flatten()
                .flatten()
                .any(|f| f.file_name().to_string_lossy().starts_with("libqwayland"))
        })
        .map(|d| d.display().to_string())
        .collect()
}

/// The sway command carrying out a window operation on the window with id `id` (now in
/// state `now`). Moving and resizing float the window first: sway places tiled windows
/// itself. sway has no maximized state (a tiled window fills its tile).
pub fn window_command(
    id: u32,
    op: desktop_core::winops::WindowOp,
    now: desktop_core::model::WindowState,
) -> Result<String> {
    use desktop_core::model::WindowState;
    use desktop_core::winops::WindowOp;
    let what = match op {
        WindowOp::Move { x, y } => format!("floating enable, move absolute position {x} {y}"),
        WindowOp::Resize { w, h } => {
            format!("floating enable, resize set width {w} px height {h} px")
        }
        WindowOp::Minimize => "move scratchpad".into(),
        WindowOp::Fullscreen => "fullscreen enable".into(),
        WindowOp::Close => "kill".into(),
        WindowOp::Restore => match now {
            WindowState::Minimized => "scratchpad show, floating disable".into(),
            WindowState::Fullscreen => "fullscreen disable".into(),
            _ => "floating disable".into(),
        },
        WindowOp::Maximize => {
            return Err(Error::new(
                ErrorCode::PlatformNotSupported,
                "sway has no maximized state: a tiled window fills its tile",
            )
            .suggest("Use full screen (window --fullscreen), or restore it into the tiling"))
        }
    };
    Ok(format!("[con_id={id}] {what}"))
}

/// Whether the seat of the display at `socket` has a keyboard.
pub fn seat_has_keyboard(socket: &Path) -> bool {
    Client::connect_to(socket).is_ok_and(|c| c.seat_has_keyboard())
}

/// How many outputs the compositor at `socket` announces (`None` when it cannot be reached).
pub fn output_count(socket: &Path) -> Option<usize> {
    let client = Client::connect_to(socket).ok()?;
    Some(
        client
            .globals
            .contents()
            .with_list(|l| l.iter().filter(|g| g.interface == "wl_output").count()),
    )
}

/// The sandbox's seat holder: a virtual keyboard and pointer kept plugged in until the
/// compositor goes away, as a real machine's are.
pub fn hold_seat() -> Result<()> {
    let client = Client::connect()?;
    let mut devices = input::Devices::new(&client)?;
    devices.hold(&client)
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
    fn window_operations_are_sway_commands() {
        use desktop_core::model::WindowState as S;
        use desktop_core::winops::WindowOp as Op;
        let cmd = |op, now| window_command(7, op, now).unwrap();
        assert_eq!(
            cmd(Op::Move { x: 10, y: 20 }, S::Normal),
            "[con_id=7] floating enable, move absolute position 10 20"
        );
        assert_eq!(cmd(Op::Minimize, S::Normal), "[con_id=7] move scratchpad");
        assert_eq!(
            cmd(Op::Restore, S::Minimized),
            "[con_id=7] scratchpad show, floating disable"
        );
        assert_eq!(
            cmd(Op::Restore, S::Fullscreen),
            "[con_id=7] fullscreen disable"
        );
        assert_eq!(cmd(Op::Close, S::Normal), "[con_id=7] kill");
        let e = window_command(7, Op::Maximize, S::Normal).unwrap_err();
        assert_eq!(e.code, ErrorCode::PlatformNotSupported);
    }

    #[test]
    fn qt_wayland_plugin_found_in_its_platforms_folder() {
        let root = std::env::temp_dir().join(format!("qt-plugins-{}", std::process::id()));
        let (with, without) = (root.join("qt5/plugins"), root.join("qt6/plugins"));
        std::fs::create_dir_all(with.join("platforms")).unwrap();
        std::fs::create_dir_all(without.join("platforms")).unwrap();
        std::fs::write(with.join("platforms/libqwayland-generic.so"), b"").unwrap();
        std::fs::write(without.join("platforms/libqxcb.so"), b"").unwrap();
        let found = qt_wayland_plugins(&[with.clone(), without, root.join("none")]);
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(found, [with.display().to_string()]);
    }

    #[test]
    fn boxes_move_by_the_window_less_the_shadow_margin() {
        // GTK 3 tiled: the frame is the window.
        let win = Rect::new(640, 0, 640, 800);
        assert_eq!(shift(Some(Rect::new(0, 0, 640, 800)), win), (640, 0));
        // Chromium: a 10 px shadow around the geometry sway placed.
        assert_eq!(shift(Some(Rect::new(0, 0, 660, 820)), win), (630, -10));
        // No frame box: the window's corner.
        assert_eq!(shift(None, win), (640, 0));
        // Wider than its tile (its least size): cut down from its corner, no shadow.
        assert_eq!(shift(Some(Rect::new(0, 0, 1415, 800)), win), (640, 0));
    }
}
