//! The system calls of the macOS backend, compiled on macOS alone: `ax` (the AX API),
//! `walk` (a window's tree), `windows` (window server and AppKit), `input` (CGEvents),
//! `layout` (the keyboard layout's keys), `capture` (ScreenCaptureKit), `clipboard`
//! (NSPasteboard), `launch`, `observe` (AX observers' change notices), and `desktop` (the
//! contract) with `system` (connecting, permissions, the doctor).

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

use crate::geometry::RawDisplay;

/// The active displays in points, with their modes' pixel widths.
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
    ids[..(n as usize).min(16)]
        .iter()
        .map(|&id| {
            let b = CGDisplayBounds(id);
            let mode = CGDisplayCopyDisplayMode(id);
            RawDisplay {
                bounds: (b.origin.x, b.origin.y, b.size.width, b.size.height),
                pixel_width: CGDisplayMode::pixel_width(mode.as_deref()),
                main: id == main,
            }
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
    let out = std::process::Command::new("/bin/ps")
        .args(["-o", "ppid=", "-p", &pid.to_string()])
        .output()
        .ok()?;
    let ppid: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    let out = std::process::Command::new("/bin/ps")
        .args(["-o", "comm=", "-p", &ppid.to_string()])
        .output()
        .ok()?;
    Some((
        ppid,
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
    ))
}
