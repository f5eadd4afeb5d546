//! Pixels through GDI, read out of a top-down 32-bit DIB section: a screen area with
//! `BitBlt` from the screen's device context (the virtual screen, in its coordinates), and
//! one window's own pixels with `PrintWindow` (`PW_RENDERFULLCONTENT`: DirectComposition and
//! UWP content too, and the window's pixels even where another window covers it).
#![allow(unsafe_code)]

use desktop_core::shot::Capture;
use desktop_core::{Error, ErrorCode, Rect, Result};
use image::RgbImage;
use windows::Win32::Foundation::HWND;
use windows::Win32::Graphics::Gdi::{
    BitBlt, CreateCompatibleDC, CreateDIBSection, DeleteDC, DeleteObject, GetDC, ReleaseDC,
    SelectObject, BITMAPINFO, BITMAPINFOHEADER, DIB_RGB_COLORS, HDC, SRCCOPY,
};

fn failed(what: &str) -> Error {
    Error::new(
        ErrorCode::ActionFailed,
        format!("the screen capture failed ({what})"),
    )
    .suggest("Try again")
}

/// A `w`×`h` image drawn by `draw` into a memory DC compatible with the screen; `None`
/// when drawing failed.
fn drawn(w: i32, h: i32, draw: impl FnOnce(HDC, HDC) -> bool) -> Result<Option<RgbImage>> {
    if w <= 0 || h <= 0 {
        return Err(failed("empty area"));
    }
    // SAFETY: GDI objects created here are selected, read and released in order; the DIB's
    // bits are read only while the bitmap lives, within its w×h×4 bytes.
    unsafe {
        let screen = GetDC(None);
        let mem = CreateCompatibleDC(Some(screen));
        let mut bmi = BITMAPINFO::default();
        bmi.bmiHeader.biSize = core::mem::size_of::<BITMAPINFOHEADER>() as u32;
        bmi.bmiHeader.biWidth = w;
        bmi.bmiHeader.biHeight = -h;
        bmi.bmiHeader.biPlanes = 1;
        bmi.bmiHeader.biBitCount = 32;
        let mut bits: *mut core::ffi::c_void = core::ptr::null_mut();
        let bmp = match CreateDIBSection(Some(mem), &bmi, DIB_RGB_COLORS, &mut bits, None, 0) {
            Ok(b) => b,
            Err(_) => {
                let _ = DeleteDC(mem);
                ReleaseDC(None, screen);
                return Err(failed("no bitmap"));
            }
        };
        let old = SelectObject(mem, bmp.into());
        let ok = draw(mem, screen) && !bits.is_null();
        let img = ok.then(|| {
            let px = std::slice::from_raw_parts(bits as *const u8, (w * h * 4) as usize);
            let mut img = RgbImage::new(w as u32, h as u32);
            for (i, c) in px.chunks_exact(4).enumerate() {
                let (x, y) = ((i as i32 % w) as u32, (i as i32 / w) as u32);
                img.put_pixel(x, y, image::Rgb([c[2], c[1], c[0]]));
            }
            img
        });
        SelectObject(mem, old);
        let _ = DeleteObject(bmp.into());
        let _ = DeleteDC(mem);
        ReleaseDC(None, screen);
        Ok(img)
    }
}

/// A screen area's pixels (one pixel a unit: the process is DPI-aware).
pub fn area(r: Rect) -> Result<Capture> {
    // SAFETY: a copy between two live device contexts within the bitmap's size.
    let img = drawn(r.w, r.h, |mem, screen| unsafe {
        BitBlt(mem, 0, 0, r.w, r.h, Some(screen), r.x, r.y, SRCCOPY).is_ok()
    })?
    .ok_or_else(|| failed("BitBlt"))?;
    Ok(Capture::new((r.x, r.y), img))
}

/// One window's own pixels at the rectangle it shows (`r`), covered or not; `None` where the window
/// draws nothing for it (minimized, or a system that leaves the image black), so the
/// caller raises it and captures its area instead.
pub fn window(hwnd: HWND, r: Rect) -> Result<Option<Capture>> {
    use windows::Win32::Storage::Xps::{PrintWindow, PRINT_WINDOW_FLAGS};
    use windows::Win32::UI::WindowsAndMessaging::{IsIconic, PW_RENDERFULLCONTENT};
    // SAFETY: a query on a window handle.
    if unsafe { IsIconic(hwnd) }.as_bool() {
        return Ok(None);
    }
    // PrintWindow draws from the window's own corner (its invisible borders included):
    // drawn at that size, then cut to the rectangle shown (`r`, DWM's frame bounds).
    let mut whole = windows::Win32::Foundation::RECT::default();
    // SAFETY: a valid out-pointer.
    if unsafe { windows::Win32::UI::WindowsAndMessaging::GetWindowRect(hwnd, &mut whole) }.is_err()
    {
        return Ok(None);
    }
    let (dx, dy) = (r.x - whole.left, r.y - whole.top);
    let (ww, wh) = (whole.right - whole.left, whole.bottom - whole.top);
    if dx < 0 || dy < 0 || dx + r.w > ww || dy + r.h > wh {
        return Ok(None);
    }
    // SAFETY: the window draws itself into our memory DC; a hung window is bounded by the
    // caller's worker thread.
    let img = drawn(ww, wh, |mem, _| unsafe {
        PrintWindow(hwnd, mem, PRINT_WINDOW_FLAGS(PW_RENDERFULLCONTENT)).as_bool()
    })?
    .map(|i| {
        image::imageops::crop_imm(&i, dx as u32, dy as u32, r.w as u32, r.h as u32).to_image()
    });
    // All black: nothing was drawn (GDI gives zeroed bits), not a black window worth trusting.
    Ok(img
        .filter(|i| i.pixels().any(|p| p.0 != [0, 0, 0]))
        .map(|img| Capture::new((r.x, r.y), img)))
}
