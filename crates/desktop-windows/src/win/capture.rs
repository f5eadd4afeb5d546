//! Pixels through GDI: `BitBlt` from the screen's device context (the virtual screen, in
//! its coordinates), read out of a top-down 32-bit DIB section.
#![allow(unsafe_code)]

use desktop_core::shot::Capture;
use desktop_core::{Error, ErrorCode, Rect, Result};
use image::RgbImage;
use windows::Win32::Graphics::Gdi::{
    BitBlt, CreateCompatibleDC, CreateDIBSection, DeleteDC, DeleteObject, GetDC, ReleaseDC,
    SelectObject, BITMAPINFO, BITMAPINFOHEADER, DIB_RGB_COLORS, SRCCOPY,
};

/// A screen area's pixels (one pixel a unit: the process is DPI-aware).
pub fn area(r: Rect) -> Result<Capture> {
    let failed = |what: &str| {
        Error::new(
            ErrorCode::ActionFailed,
            format!("the screen capture failed ({what})"),
        )
        .suggest("Try again")
    };
    if r.w <= 0 || r.h <= 0 {
        return Err(failed("empty area"));
    }
    // SAFETY: GDI objects created here are selected, read and released in order; the DIB's
    // bits are read only while the bitmap lives.
    unsafe {
        let screen = GetDC(None);
        let mem = CreateCompatibleDC(Some(screen));
        let mut bmi = BITMAPINFO::default();
        bmi.bmiHeader.biSize = core::mem::size_of::<BITMAPINFOHEADER>() as u32;
        bmi.bmiHeader.biWidth = r.w;
        bmi.bmiHeader.biHeight = -r.h;
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
        let ok = BitBlt(mem, 0, 0, r.w, r.h, Some(screen), r.x, r.y, SRCCOPY).is_ok();
        let mut img = RgbImage::new(r.w as u32, r.h as u32);
        if ok && !bits.is_null() {
            let px = std::slice::from_raw_parts(bits as *const u8, (r.w * r.h * 4) as usize);
            for (i, c) in px.chunks_exact(4).enumerate() {
                let (x, y) = ((i as i32 % r.w) as u32, (i as i32 / r.w) as u32);
                img.put_pixel(x, y, image::Rgb([c[2], c[1], c[0]]));
            }
        }
        SelectObject(mem, old);
        let _ = DeleteObject(bmp.into());
        let _ = DeleteDC(mem);
        ReleaseDC(None, screen);
        if !ok {
            return Err(failed("BitBlt"));
        }
        Ok(Capture::new((r.x, r.y), img))
    }
}
