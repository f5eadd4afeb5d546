//! The system calls of the macOS backend, compiled on macOS alone: `ax` (the AX API),
//! `walk` (a window's tree), `windows` (window server and AppKit), `input` (CGEvents),
//! `layout` (the keyboard layout's keys), `capture` (ScreenCaptureKit), `clipboard`
//! (NSPasteboard), `launch`, `observe` (AX observers' change notices), `winops` (moving,
//! resizing, minimizing... closing windows, ending processes), and `desktop` (the contract)
//! with `system` (connecting, permissions, the doctor).

pub mod ax;
pub mod capture;
pub mod clipboard;
pub mod desktop;
pub mod input;
pub mod launch;
pub mod layout;
pub mod observe;
pub mod system;
pub mod walk;
pub mod windows;
pub mod winops;

use crate::geometry::RawDisplay;

/// The active displays in points, with their modes' pixel widths and refresh rates, and
/// the names and visible frames AppKit gives their screens.
#[allow(unsafe_code)]
pub fn displays() -> Vec<RawDisplay> {
    use objc2_core_graphics::{
        CGDisplayBounds, CGDisplayCopyDisplayMode, CGDisplayMode, CGGetActiveDisplayList,
        CGMainDisplayID,
    };
    let (mut ids, mut n) = ([0u32; 16], 0u32);
    // SAFETY: the buffer holds 16 ids and `n` receives how many were written.
    unsafe { CGGetActiveDisplayList(16, ids.as_mut_ptr(), &mut n) };
    let main = CGMainDisplayID();
    let screens = screens(CGDisplayBounds(main).size.height);
    ids[..(n as usize).min(16)]
        .iter()
        .map(|&id| {
            let b = CGDisplayBounds(id);
            let mode = CGDisplayCopyDisplayMode(id);
            let screen = screens.iter().find(|s| s.id == id);
            RawDisplay {
                bounds: (b.origin.x, b.origin.y, b.size.width, b.size.height),
                pixel_width: CGDisplayMode::pixel_width(mode.as_deref()),
                main: id == main,
                name: screen.map(|s| s.name.clone()).unwrap_or_default(),
                refresh: CGDisplayMode::refresh_rate(mode.as_deref()),
                visible: screen.map(|s| s.visible),
            }
        })
        .collect()
}

/// What AppKit says of a display's screen.
struct Screen {
    id: u32,
    name: String,
    /// In top-left points.
    visible: (f64, f64, f64, f64),
}

/// AppKit's screens, given the main display's height. None off the main thread: AppKit's
/// screens are the main thread's (the CLI and the MCP server call from it; test threads
/// and other hosts get displays without names, and no window is called maximized).
fn screens(main_height: f64) -> Vec<Screen> {
    use objc2_app_kit::NSScreen;
    use objc2_foundation::{ns_string, NSNumber};
    let Some(mtm) = objc2::MainThreadMarker::new() else {
        return Vec::new();
    };
    NSScreen::screens(mtm)
        .iter()
        .filter_map(|s| {
            // The display's id is in the device description (`NSScreenNumber`).
            let id = s
                .deviceDescription()
                .objectForKey(ns_string!("NSScreenNumber"))?
                .downcast::<NSNumber>()
                .ok()?
                .unsignedIntValue();
            let v = s.visibleFrame();
            let visible = crate::geometry::flip(
                (v.origin.x, v.origin.y, v.size.width, v.size.height),
                main_height,
            );
            Some(Screen {
                id,
                name: s.localizedName().to_string(),
                visible,
            })
        })
        .collect()
}

/// The app macOS holds responsible for this process's permissions: the nearest app
/// bundle among its ancestors (a terminal, an MCP host), else this program.
pub fn responsible_app() -> String {
    let mut chain = Vec::new();
    let mut pid = std::process::id();
    for _ in 0..16 {
        let Some((ppid, exe)) = parent_of(pid) else {
            break;
        };
        if ppid <= 1 {
            break;
        }
        chain.push(exe);
        pid = ppid;
    }
    let own = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "desktop-cli".into());
    crate::permissions::responsible(chain.iter().map(String::as_str), &own)
}

/// A process's parent and the parent's executable path (`ps`, which every Mac has).
fn parent_of(pid: u32) -> Option<(u32, String)> {
    let ppid = parent(pid)?;
    let out = std::process::Command::new("/bin/ps")
        .args(["-o", "comm=", "-p", &ppid.to_string()])
        .output()
        .ok()?;
    Some((
        ppid,
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
    ))
}

/// A process's parent (`ps`).
pub fn parent(pid: u32) -> Option<u32> {
    let out = std::process::Command::new("/bin/ps")
        .args(["-o", "ppid=", "-p", &pid.to_string()])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}
