//! Full screen on Windows, which has no such state: the title bar and sizing border taken
//! away and the window's monitor covered, what was taken remembered in properties of the
//! window itself (`crate::placement::Saved`: every command is its own process, and the
//! memory goes with the window), and given back by `undo`. Style changes send the window
//! messages and wait for their answer: callers run these on a bounded worker.
#![allow(unsafe_code)]

use super::{monitors, windows as sys};
use crate::placement::{Saved, FRAME_EX_STYLE, FRAME_STYLE};
use desktop_core::Rect;
use windows::core::{w, PCWSTR};
use windows::Win32::Foundation::{HANDLE, HWND};
use windows::Win32::UI::WindowsAndMessaging::{
    GetPropW, GetWindowLongW, IsIconic, IsZoomed, RemovePropW, SetPropW, SetWindowLongW,
    SetWindowPos, ShowWindow, GWL_EXSTYLE, GWL_STYLE, HWND_TOP, SET_WINDOW_POS_FLAGS,
    SWP_FRAMECHANGED, SWP_NOACTIVATE, SWP_NOZORDER, SW_RESTORE, WS_CAPTION, WS_EX_CLIENTEDGE,
    WS_EX_DLGMODALFRAME, WS_EX_STATICEDGE, WS_EX_WINDOWEDGE, WS_THICKFRAME,
};

// The pure side's bit masks are the system's.
const _: () = assert!(WS_CAPTION.0 | WS_THICKFRAME.0 == FRAME_STYLE);
const _: () = assert!(
    WS_EX_DLGMODALFRAME.0 | WS_EX_WINDOWEDGE.0 | WS_EX_CLIENTEDGE.0 | WS_EX_STATICEDGE.0
        == FRAME_EX_STYLE
);

/// The window properties that keep a full screen of ours (`Saved::pack`'s three values).
const MEMO: [PCWSTR; 3] = [
    w!("desktop-cli.fullscreen.pos"),
    w!("desktop-cli.fullscreen.size"),
    w!("desktop-cli.fullscreen.flags"),
];

/// What a full screen of ours took from the window, if it holds one.
pub fn remembered(h: HWND) -> Option<Saved> {
    // SAFETY: property reads on a window handle (answered without asking the window).
    let v = MEMO.map(|name| unsafe { GetPropW(h, name) }.0 as usize as u32);
    Saved::unpack(v)
}

fn styles(h: HWND) -> (u32, u32) {
    // SAFETY: queries on a window handle.
    unsafe {
        (
            GetWindowLongW(h, GWL_STYLE) as u32,
            GetWindowLongW(h, GWL_EXSTYLE) as u32,
        )
    }
}

/// Full screen: the window back to normal first (what is remembered is its normal place,
/// unless it holds a full screen of ours already: minimized from it), then without title bar
/// and borders over its whole monitor, above the other windows (not activated). Runs on a
/// worker.
pub fn make(id: u64) -> std::result::Result<(), String> {
    let h = sys::hwnd(id);
    for _ in 0..2 {
        // SAFETY: queries and a show command on a window handle (this thread may wait).
        unsafe {
            if IsIconic(h).as_bool() || IsZoomed(h).as_bool() {
                let _ = ShowWindow(h, SW_RESTORE);
            }
        }
    }
    let (style, ex_style) = styles(h);
    let monitor = monitors::rect_of(h).ok_or("no monitor holds it")?;
    if remembered(h).is_none() {
        let saved = Saved {
            outer: {
                let r = sys::outer(h);
                Rect::new(r.left, r.top, r.right - r.left, r.bottom - r.top)
            },
            style,
            ex_style,
        };
        let packed = saved
            .pack()
            .ok_or("its place is beyond any desktop, so it could not be remembered")?;
        for (name, v) in MEMO.iter().zip(packed) {
            let data = HANDLE(v as usize as *mut core::ffi::c_void);
            // SAFETY: a property of the window holding a number, never dereferenced.
            unsafe { SetPropW(h, *name, Some(data)) }
                .map_err(|e| format!("Windows refused to mark it ({})", e.message()))?;
        }
    }
    // SAFETY: style changes and a placement on a window handle (this thread may wait).
    unsafe {
        SetWindowLongW(h, GWL_STYLE, (style & !FRAME_STYLE) as i32);
        SetWindowLongW(h, GWL_EXSTYLE, (ex_style & !FRAME_EX_STYLE) as i32);
        SetWindowPos(
            h,
            Some(HWND_TOP),
            monitor.x,
            monitor.y,
            monitor.w,
            monitor.h,
            SWP_NOACTIVATE | SWP_FRAMECHANGED,
        )
    }
    .map_err(|e| e.message())
}

/// Undoes a full screen of ours: the window shown again if minimized meanwhile, its title
/// bar and borders back, at its place from before. Runs on a worker.
pub fn undo(id: u64) -> std::result::Result<(), String> {
    let h = sys::hwnd(id);
    let Some(saved) = remembered(h) else {
        return Ok(());
    };
    // SAFETY: queries, a show command, style changes and a placement on a window handle
    // (this thread may wait), then the properties set by `make` removed.
    unsafe {
        if IsIconic(h).as_bool() || IsZoomed(h).as_bool() {
            let _ = ShowWindow(h, SW_RESTORE);
        }
        let (style, ex_style) = styles(h);
        SetWindowLongW(h, GWL_STYLE, (style | saved.style) as i32);
        SetWindowLongW(h, GWL_EXSTYLE, (ex_style | saved.ex_style) as i32);
        for name in MEMO {
            let _ = RemovePropW(h, name);
        }
        let r = saved.outer;
        let flags: SET_WINDOW_POS_FLAGS = SWP_NOZORDER | SWP_NOACTIVATE | SWP_FRAMECHANGED;
        SetWindowPos(h, None, r.x, r.y, r.w, r.h, flags)
    }
    .map_err(|e| e.message())
}
