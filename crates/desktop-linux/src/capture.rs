//! Screen capture with one X11 `GetImage` of the root window (no helper process, no
//! temporary files), converted from the server's pixel layout to RGB.

use crate::x11::{x_err, X};
use desktop_core::shot::Capture;
use desktop_core::{Error, ErrorCode, Rect, Result};
use image::RgbImage;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt, ImageFormat, ImageOrder};

impl X {
    /// The pixels of `area` (screen coordinates), clipped to the screen.
    pub fn capture(&self, area: Rect) -> Result<Capture> {
        let screen = self.screen;
        let x0 = area.x.max(0);
        let y0 = area.y.max(0);
        let x1 = (i64::from(area.x) + i64::from(area.w)).min(i64::from(screen.w)) as i32;
        let y1 = (i64::from(area.y) + i64::from(area.h)).min(i64::from(screen.h)) as i32;
        if x1 <= x0 || y1 <= y0 {
            return Err(Error::new(
                ErrorCode::OffScreen,
                format!(
                    "{},{},{},{} lies outside the screen (0,0,{},{})",
                    area.x, area.y, area.w, area.h, screen.w, screen.h
                ),
            )
            .suggest("Give a region inside the screen; listing the windows shows their bounds"));
        }
        let (w, h) = ((x1 - x0) as u16, (y1 - y0) as u16);
        let reply = self
            .conn
            .get_image(
                ImageFormat::Z_PIXMAP,
                self.root,
                x0 as i16,
                y0 as i16,
                w,
                h,
                !0,
            )
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        let setup = self.conn.setup();
        let bpp = setup
            .pixmap_formats
            .iter()
            .find(|f| f.depth == reply.depth)
            .map_or(32, |f| f.bits_per_pixel);
        if bpp != 32 || reply.depth < 24 {
            return Err(Error::new(
                ErrorCode::PlatformNotSupported,
                format!(
                    "screen depth {} at {bpp} bits per pixel is not supported",
                    reply.depth
                ),
            )
            .suggest("Run the X server at depth 24 (Xvfb -screen 0 WxHx24)"));
        }
        let lsb = setup.image_byte_order == ImageOrder::LSB_FIRST;
        let mut rgb = Vec::with_capacity(usize::from(w) * usize::from(h) * 3);
        for px in reply.data.chunks_exact(4) {
            // 0x00RRGGBB in the server's byte order.
            if lsb {
                rgb.extend_from_slice(&[px[2], px[1], px[0]]);
            } else {
                rgb.extend_from_slice(&[px[1], px[2], px[3]]);
            }
        }
        let image = RgbImage::from_raw(u32::from(w), u32::from(h), rgb)
            .ok_or_else(|| Error::internal("the X server returned a short image"))?;
        Ok(Capture::new((x0, y0), image))
    }
}
