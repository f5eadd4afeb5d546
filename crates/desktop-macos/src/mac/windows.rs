//! The system calls behind the window list: the window server's windows, running apps
//! (AppKit), and each app's `AXWindows`; `crate::windows::pair` joins them.
#![allow(unsafe_code)]

use super::ax::{self, Element};
use crate::geometry;
use crate::windows::{AxWindow, ServerWindow};
use objc2_app_kit::{NSApplicationActivationPolicy, NSWorkspace};
use objc2_core_foundation::{
    CFArray, CFBoolean, CFDictionary, CFNumber, CFRetained, CFString, CFType, CGRect,
};
use objc2_core_graphics::{
    kCGWindowBounds, kCGWindowIsOnscreen, kCGWindowLayer, kCGWindowName, kCGWindowNumber,
    kCGWindowOwnerName, kCGWindowOwnerPID, CGRectMakeWithDictionaryRepresentation,
    CGWindowListCopyWindowInfo, CGWindowListOption,
};

/// Apps' windows (layer 0), on screen or not (minimized windows are off screen, and must
/// still be listed to be restored), those on screen front to back.
pub fn server_windows() -> Vec<ServerWindow> {
    list(
        CGWindowListOption::OptionAll | CGWindowListOption::ExcludeDesktopElements,
        0,
    )
}

/// Apps' windows on screen (layer 0), front to back: a shorter list, for checking often.
pub fn shown_windows() -> Vec<ServerWindow> {
    list(
        CGWindowListOption::OptionOnScreenOnly | CGWindowListOption::ExcludeDesktopElements,
        0,
    )
}

/// One window as the window server has it now; `None` once it is gone.
pub fn server_window(id: u32) -> Option<ServerWindow> {
    list(CGWindowListOption::OptionIncludingWindow, id)
        .into_iter()
        .find(|w| w.id == id)
}

fn list(opts: CGWindowListOption, relative_to: u32) -> Vec<ServerWindow> {
    let Some(list) = CGWindowListCopyWindowInfo(opts, relative_to) else {
        return Vec::new();
    };
    // SAFETY: the window list is an array of dictionaries keyed by CFStrings.
    let list =
        unsafe { CFRetained::cast_unchecked::<CFArray<CFDictionary<CFString, CFType>>>(list) };
    let mut out = Vec::new();
    for w in list.iter() {
        let num = |k: &CFString| {
            w.get(k)
                .and_then(|v| v.downcast::<CFNumber>().ok())
                .and_then(|n| n.as_i64())
        };
        let flag = |k: &CFString| {
            w.get(k)
                .and_then(|v| v.downcast::<CFBoolean>().ok())
                .is_some_and(|b| b.as_bool())
        };
        let text = |k: &CFString| {
            w.get(k)
                .and_then(|v| v.downcast::<CFString>().ok())
                .map(|s| s.to_string())
                .unwrap_or_default()
        };
        // SAFETY: reading the framework's constant keys.
        let (id, pid, layer, owner, title, on_screen) = unsafe {
            (
                num(kCGWindowNumber),
                num(kCGWindowOwnerPID),
                num(kCGWindowLayer),
                text(kCGWindowOwnerName),
                text(kCGWindowName),
                // Absent (or false) for a window off screen.
                flag(kCGWindowIsOnscreen),
            )
        };
        let mut r = CGRect::ZERO;
        // SAFETY: as above; the bounds are a dictionary representation of a CGRect.
        if let Some(b) =
            unsafe { w.get(kCGWindowBounds) }.and_then(|v| v.downcast::<CFDictionary>().ok())
        {
            // SAFETY: `r` is a valid out-pointer.
            unsafe { CGRectMakeWithDictionaryRepresentation(Some(&b), &mut r) };
        }
        let (Some(id), Some(pid), Some(0)) = (id, pid, layer) else {
            continue;
        };
        out.push(ServerWindow {
            id: id as u32,
            pid: pid as u32,
            owner,
            title,
            bounds: geometry::rect(r.origin.x, r.origin.y, r.size.width, r.size.height),
            on_screen,
        });
    }
    out
}

/// Apps a user sees (the Dock's kind), as (name, pid).
pub fn running_apps() -> Vec<(String, u32)> {
    NSWorkspace::sharedWorkspace()
        .runningApplications()
        .iter()
        .filter(|a| {
            a.activationPolicy() == NSApplicationActivationPolicy::Regular && !a.isTerminated()
        })
        .map(|a| {
            let name = a.localizedName().map(|n| n.to_string()).unwrap_or_default();
            (name, a.processIdentifier() as u32)
        })
        .collect()
}

/// The pid of the app that has the keyboard.
pub fn frontmost_pid() -> Option<u32> {
    NSWorkspace::sharedWorkspace()
        .frontmostApplication()
        .map(|a| a.processIdentifier() as u32)
}

/// Brings an app to the front.
pub fn activate(pid: u32) -> bool {
    NSWorkspace::sharedWorkspace()
        .runningApplications()
        .iter()
        .find(|a| a.processIdentifier() as u32 == pid)
        .is_some_and(|a| {
            a.activateWithOptions(objc2_app_kit::NSApplicationActivationOptions::empty())
        })
}

/// An app's windows as its accessibility tree has them, with their elements.
pub fn ax_windows(app: &Element) -> Result<Vec<(AxWindow, Element)>, desktop_core::Error> {
    let list = ax::elements(app, "AXWindows").map_err(|e| ax::error(e, "listing windows"))?;
    let focused = ax::element(app, "AXFocusedWindow").ok().flatten();
    let mut out = Vec::new();
    for (index, w) in list.into_iter().enumerate() {
        let Ok(read) = ax::read(&w, 0) else { continue };
        let a = read.attrs;
        let bounds = match (a.position, a.size) {
            (Some((x, y)), Some((wd, ht))) => Some(geometry::rect(x, y, wd, ht)),
            _ => None,
        };
        let sub = a.subrole.as_deref().unwrap_or("");
        // Modal, minimized, full screen: one more call, batched.
        let flags = ax::window(&w).unwrap_or_default();
        let window = AxWindow {
            index,
            title: a.title.unwrap_or_default(),
            bounds,
            focused: focused.as_ref().is_some_and(|f| **f == *w),
            modal: flags.modal,
            dialog: matches!(sub, "AXDialog" | "AXSystemDialog") || a.role == "AXSheet",
            minimized: flags.minimized,
            fullscreen: flags.fullscreen,
        };
        out.push((window, w));
    }
    Ok(out)
}
