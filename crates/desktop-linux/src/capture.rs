//! Screen capture from the X server, converted from its pixel layout to RGB: the pixels
//! through a shared-memory segment the server writes into (MIT-SHM 1.2; no copy through the
//! socket, which for a 4K screen is 33 MB), else one `GetImage` of the root window (a
//! remote display, a server without the extension). No helper process, no files.
#![allow(unsafe_code)]

use crate::x11::{x_err, X};
use desktop_core::shot::Capture;
use desktop_core::{Error, ErrorCode, Rect, Result};
use image::RgbImage;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::shm::{self, ConnectionExt as _};
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
        let rgb = match self.shm_frame(x0 as i16, y0 as i16, w, h) {
            Some(rgb) => rgb?,
            None => {
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
                self.rgb(reply.depth, &reply.data, w, h)?
            }
        };
        let image = RgbImage::from_raw(u32::from(w), u32::from(h), rgb)
            .ok_or_else(|| Error::internal("the X server returned a short image"))?;
        Ok(Capture::new((x0, y0), image))
    }

    /// A `w`×`h` frame of the server's pixels at `depth` as RGB.
    fn rgb(&self, depth: u8, data: &[u8], w: u16, h: u16) -> Result<Vec<u8>> {
        let setup = self.conn.setup();
        let bpp = setup
            .pixmap_formats
            .iter()
            .find(|f| f.depth == depth)
            .map_or(32, |f| f.bits_per_pixel);
        if bpp != 32 || depth < 24 {
            return Err(Error::new(
                ErrorCode::PlatformNotSupported,
                format!("screen depth {depth} at {bpp} bits per pixel is not supported"),
            )
            .suggest("Run the X server at depth 24 (Xvfb -screen 0 WxHx24)"));
        }
        let n = usize::from(w) * usize::from(h) * 4;
        let data = data
            .get(..n)
            .ok_or_else(|| Error::internal("the X server returned a short image"))?;
        Ok(to_rgb(
            data,
            setup.image_byte_order == ImageOrder::LSB_FIRST,
        ))
    }

    /// The frame as RGB through a segment the server creates and shares with us
    /// (`CreateSegment`, MIT-SHM 1.2), read straight from the mapping; `None` wherever that
    /// is not on offer, so the socket is used. A long-lived process keeps the segment for
    /// its next capture (`Frames`).
    fn shm_frame(&self, x: i16, y: i16, w: u16, h: u16) -> Option<Result<Vec<u8>>> {
        let size = usize::from(w) * usize::from(h) * 4;
        let mut kept = self.frames.kept.lock().unwrap_or_else(|e| e.into_inner());
        let seg = match kept.take() {
            Some(seg) if seg.size >= size => seg,
            other => {
                if let Some(small) = other {
                    small.release(&self.conn);
                }
                self.new_segment(size)?
            }
        };
        let image = self
            .conn
            .shm_get_image(
                self.root,
                x,
                y,
                w,
                h,
                !0,
                ImageFormat::Z_PIXMAP.into(),
                seg.id,
                0,
            )
            .ok()
            .and_then(|c| c.reply().ok());
        // SAFETY: the segment's mapping is at least `size` bytes (checked above) and is read
        // only after the reply says the image is in it; no other request writes into it
        // meanwhile (the lock is held).
        let rgb = image.map(|i| self.rgb(i.depth, unsafe { seg.bytes(size) }, w, h));
        if self.frames.keep.load(Ordering::Relaxed) && rgb.is_some() {
            *kept = Some(seg);
        } else {
            seg.release(&self.conn);
        }
        rgb
    }

    /// A segment of `size` bytes made by the server and mapped here; `None` where the
    /// server has no MIT-SHM 1.2 or cannot share it with this process.
    fn new_segment(&self, size: usize) -> Option<Segment> {
        let offered = *self.frames.offered.get_or_init(|| {
            self.conn
                .extension_information(shm::X11_EXTENSION_NAME)
                .ok()
                .flatten()
                .is_some()
                && self
                    .conn
                    .shm_query_version()
                    .ok()
                    .and_then(|c| c.reply().ok())
                    .is_some_and(|v| (v.major_version, v.minor_version) >= (1, 2))
        });
        if !offered {
            return None;
        }
        let id = self.conn.generate_id().ok()?;
        let made = self
            .conn
            .shm_create_segment(id, u32::try_from(size).ok()?, false)
            .ok()?
            .reply()
            .ok()?;
        // SAFETY: a fresh shared, read-only mapping of the whole segment, owned by the
        // `Segment` (unmapped when it drops). Not populated up front: the conversion reads
        // it in order, and the kernel maps the pages around each fault (3 ms less for a 4K
        // frame here).
        let map = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                size,
                rustix::mm::ProtFlags::READ,
                rustix::mm::MapFlags::SHARED,
                &made.shm_fd,
                0,
            )
        };
        match map {
            Ok(map) => Some(Segment { id, map, size }),
            Err(_) => {
                let _ = self.conn.shm_detach(id);
                None
            }
        }
    }
}

/// What a connection keeps of its captures: whether the X server shares segments, and,
/// in a long-lived process, the last segment for the next capture. A fresh segment's pages
/// cost the server more to fill than the copy itself (a 4K frame here: 22 ms against 2 ms
/// into a segment filled before), so the MCP server's and the agent's screenshots after
/// the first are that much faster; a one-shot command lets its one segment go.
#[derive(Default)]
pub(crate) struct Frames {
    keep: AtomicBool,
    offered: OnceLock<bool>,
    kept: Mutex<Option<Segment>>,
}

impl Frames {
    /// From now on the last segment is kept (at most one frame's size: 33 MB for 4K).
    pub(crate) fn keep(&self) {
        self.keep.store(true, Ordering::Relaxed);
    }
}

/// A segment shared with the X server and its mapping in this process.
struct Segment {
    id: shm::Seg,
    map: *mut std::ffi::c_void,
    size: usize,
}

// SAFETY: the mapping is memory this process owns alone; it is read under `Frames`' lock.
unsafe impl Send for Segment {}

impl Segment {
    /// The first `len` bytes of the segment.
    ///
    /// # Safety
    /// `len` is at most the segment's size, and the server writes nothing into it while the
    /// slice lives.
    unsafe fn bytes(&self, len: usize) -> &[u8] {
        std::slice::from_raw_parts(self.map.cast::<u8>(), len)
    }

    /// Tells the server to let the segment go; the mapping goes with `self`.
    fn release(self, conn: &impl Connection) {
        let _ = conn.shm_detach(self.id);
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        // SAFETY: mapped by `new_segment` with this size, and no slice of it outlives
        // `self` (`bytes` borrows it).
        let _ = unsafe { rustix::mm::munmap(self.map, self.size) };
    }
}

/// 0x00RRGGBB pixels in the server's byte order → RGB, in a pass the compiler vectorizes,
/// split across the cores (a 4K frame is 8 million pixels).
fn to_rgb(data: &[u8], lsb: bool) -> Vec<u8> {
    let pixels = data.len() / 4;
    let mut rgb = vec![0u8; pixels * 3];
    let (r, g, b) = if lsb { (2, 1, 0) } else { (1, 2, 3) };
    let convert = |dst: &mut [u8], src: &[u8]| {
        for (d, s) in dst.chunks_exact_mut(3).zip(src.chunks_exact(4)) {
            d[0] = s[r];
            d[1] = s[g];
            d[2] = s[b];
        }
    };
    let parts = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    // Small frames are not worth a thread.
    if parts < 2 || pixels < 1 << 18 {
        convert(&mut rgb, data);
        return rgb;
    }
    let per = pixels.div_ceil(parts);
    std::thread::scope(|scope| {
        for (dst, src) in rgb.chunks_mut(per * 3).zip(data.chunks(per * 4)) {
            scope.spawn(move || convert(dst, src));
        }
    });
    rgb
}

#[cfg(test)]
mod tests {
    #[test]
    fn pixels_in_either_byte_order_become_rgb() {
        // 0x00112233 stored least significant byte first, then most.
        assert_eq!(
            super::to_rgb(&[0x33, 0x22, 0x11, 0, 0x66, 0x55, 0x44, 0], true),
            [0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        );
        assert_eq!(
            super::to_rgb(&[0, 0x11, 0x22, 0x33], false),
            [0x11, 0x22, 0x33]
        );
    }
}
