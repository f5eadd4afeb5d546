//! The monitors (`EnumDisplayMonitors`, `GetMonitorInfoW`, `EnumDisplaySettingsW`), and the
//! monitor a window is on; what they become as displays is `crate::monitors`.
#![allow(unsafe_code)]

use crate::monitors::Monitor;
use desktop_core::Rect;
use windows::core::{BOOL, PCWSTR};
use windows::Win32::Foundation::{HWND, LPARAM, RECT, TRUE};
use windows::Win32::Graphics::Gdi::{
    EnumDisplayMonitors, EnumDisplaySettingsW, GetMonitorInfoW, MonitorFromWindow, DEVMODEW,
    ENUM_CURRENT_SETTINGS, HDC, HMONITOR, MONITORINFO, MONITORINFOEXW, MONITOR_DEFAULTTONEAREST,
};
use windows::Win32::UI::WindowsAndMessaging::MONITORINFOF_PRIMARY;

unsafe extern "system" fn collect(m: HMONITOR, _: HDC, _: *mut RECT, lp: LPARAM) -> BOOL {
    // SAFETY: `lp` is the vector `all` passed below, alive for the whole enumeration.
    let v = unsafe { &mut *(lp.0 as *mut Vec<isize>) };
    v.push(m.0 as isize);
    TRUE
}

/// One monitor's information, `None` when it went away meanwhile.
fn info(m: HMONITOR) -> Option<MONITORINFOEXW> {
    let mut mi = MONITORINFOEXW::default();
    mi.monitorInfo.cbSize = std::mem::size_of::<MONITORINFOEXW>() as u32;
    // SAFETY: a MONITORINFOEXW whose size says so, passed as the MONITORINFO it starts with.
    let ok = unsafe { GetMonitorInfoW(m, (&mut mi as *mut MONITORINFOEXW).cast::<MONITORINFO>()) };
    ok.as_bool().then_some(mi)
}

/// Every monitor attached to the desktop, in the system's order.
pub fn all() -> Vec<Monitor> {
    let mut raw: Vec<isize> = Vec::new();
    // SAFETY: the callback only pushes into `raw`, which outlives the call.
    let _ = unsafe {
        EnumDisplayMonitors(
            None,
            None,
            Some(collect),
            LPARAM(&mut raw as *mut _ as isize),
        )
    };
    raw.into_iter()
        .filter_map(|v| {
            let mi = info(HMONITOR(v as *mut core::ffi::c_void))?;
            let r = mi.monitorInfo.rcMonitor;
            Some(Monitor {
                device: mi.szDevice.to_vec(),
                rect: (r.left, r.top, r.right, r.bottom),
                primary: mi.monitorInfo.dwFlags & MONITORINFOF_PRIMARY != 0,
                hz: frequency(&mi.szDevice),
            })
        })
        .collect()
}

/// The refresh rate of a GDI device's current mode (0 when it cannot be asked).
fn frequency(device: &[u16; 32]) -> u32 {
    let mut dm = DEVMODEW {
        dmSize: std::mem::size_of::<DEVMODEW>() as u16,
        ..Default::default()
    };
    // SAFETY: `device` is NUL-terminated (the system filled it); `dm` says its own size.
    let ok =
        unsafe { EnumDisplaySettingsW(PCWSTR(device.as_ptr()), ENUM_CURRENT_SETTINGS, &mut dm) };
    if ok.as_bool() {
        dm.dmDisplayFrequency
    } else {
        0
    }
}

/// The whole rectangle of the monitor a window is on (most of it; for a minimized window,
/// the one it comes back to).
pub fn rect_of(h: HWND) -> Option<Rect> {
    // SAFETY: a query on a window handle; a stale one gives the nearest monitor anyway.
    let m = unsafe { MonitorFromWindow(h, MONITOR_DEFAULTTONEAREST) };
    let r = info(m)?.monitorInfo.rcMonitor;
    Some(Rect::new(r.left, r.top, r.right - r.left, r.bottom - r.top))
}
