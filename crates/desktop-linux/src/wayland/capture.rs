//! Screen capture on wlroots compositors (`zwlr_screencopy_manager_v1`): the compositor
//! copies an output's region into a shared-memory buffer we offer (an anonymous file,
//! read back through its descriptor: no mapping, no copy through the socket), then RGB.

use super::client::{wl_err, Client, TIMEOUT};
use desktop_core::backend::Display;
use desktop_core::shot::Capture;
use desktop_core::{Error, ErrorCode, Rect, Result};
use image::RgbImage;
use std::os::fd::AsFd;
use std::os::unix::fs::FileExt;
use wayland_client::protocol::{wl_buffer, wl_output, wl_shm, wl_shm_pool};
use wayland_client::{delegate_noop, Connection, Dispatch, Proxy, QueueHandle, WEnum};
use wayland_protocols_wlr::screencopy::v1::client::{
    zwlr_screencopy_frame_v1::{self as frame, ZwlrScreencopyFrameV1 as Frame},
    zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1 as Manager,
};

pub const GLOBAL: &str = "zwlr_screencopy_manager_v1";

/// What one capture hears: the outputs' names, then the frame's buffer, flags, outcome.
#[derive(Default)]
struct Shot {
    names: Vec<(wl_output::WlOutput, String)>,
    buffer: Option<(wl_shm::Format, u32, u32, u32)>,
    /// Protocol v3 says when every buffer kind was offered; v1–2 copy on the first.
    buffer_done: bool,
    y_invert: bool,
    ready: bool,
    failed: bool,
}

delegate_noop!(Shot: ignore wl_shm::WlShm);
delegate_noop!(Shot: ignore wl_shm_pool::WlShmPool);
delegate_noop!(Shot: ignore wl_buffer::WlBuffer);
delegate_noop!(Shot: Manager);

impl Dispatch<wl_output::WlOutput, ()> for Shot {
    fn event(
        s: &mut Self,
        o: &wl_output::WlOutput,
        e: wl_output::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_output::Event::Name { name } = e {
            s.names.push((o.clone(), name));
        }
    }
}

impl Dispatch<Frame, ()> for Shot {
    fn event(
        s: &mut Self,
        _: &Frame,
        e: frame::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match e {
            frame::Event::Buffer {
                format: WEnum::Value(f),
                width,
                height,
                stride,
            } => {
                if matches!(f, wl_shm::Format::Xrgb8888 | wl_shm::Format::Argb8888) {
                    s.buffer = Some((f, width, height, stride));
                }
            }
            frame::Event::BufferDone => s.buffer_done = true,
            frame::Event::Flags {
                flags: WEnum::Value(f),
            } => s.y_invert = f.contains(frame::Flags::YInvert),
            frame::Event::Ready { .. } => s.ready = true,
            frame::Event::Failed => s.failed = true,
            _ => {}
        }
    }
}

/// The pixels of `area` (layout coordinates), each display's part copied from its output.
pub fn capture(client: &Client, displays: &[Display], area: Rect) -> Result<Capture> {
    let screen = desktop_core::backend::union(displays).unwrap_or_default();
    let clip = area.intersection(&screen).ok_or_else(|| {
        Error::new(
            ErrorCode::OffScreen,
            format!(
                "{},{},{},{} lies outside the screen ({},{},{},{})",
                area.x, area.y, area.w, area.h, screen.x, screen.y, screen.w, screen.h
            ),
        )
        .suggest("Give a region inside the screen; listing the windows shows their bounds")
    })?;
    let mut image = RgbImage::new(clip.w as u32, clip.h as u32);
    let mut queue = client.conn.new_event_queue::<Shot>();
    let qh = queue.handle();
    let mut state = Shot::default();
    let manager: Manager = client.bind(&qh, 3).ok_or_else(|| {
        super::lacks(
            "capturing the screen",
            "screencopy (zwlr_screencopy_manager_v1)",
        )
    })?;
    let shm: wl_shm::WlShm = client
        .bind(&qh, 1)
        .ok_or_else(|| super::lacks("capturing the screen", "shared memory (wl_shm)"))?;
    let outputs: Vec<wl_output::WlOutput> = client.globals.contents().with_list(|l| {
        l.iter()
            .filter(|g| g.interface == "wl_output")
            .map(|g| {
                client.globals.registry().bind::<wl_output::WlOutput, _, _>(
                    g.name,
                    g.version.min(4),
                    &qh,
                    (),
                )
            })
            .collect()
    });
    // wl_output v4 names each output; an older one (or a single output) goes by order.
    let _ = client.wait(&mut queue, &mut state, TIMEOUT, |s| {
        s.names.len() == outputs.len()
    });
    for (i, d) in displays.iter().enumerate() {
        let Some(part) = d.bounds.intersection(&clip) else {
            continue;
        };
        let output = state
            .names
            .iter()
            .find(|(_, n)| *n == d.name)
            .map(|(o, _)| o.clone())
            .or_else(|| outputs.get(i).cloned())
            .ok_or_else(|| Error::internal(format!("no Wayland output for display {}", d.name)))?;
        let local = Rect::new(part.x - d.bounds.x, part.y - d.bounds.y, part.w, part.h);
        let pixels = copy(
            client, &mut queue, &mut state, &manager, &shm, &output, local,
        )?;
        image::imageops::replace(
            &mut image,
            &pixels,
            i64::from(part.x - clip.x),
            i64::from(part.y - clip.y),
        );
    }
    for o in outputs {
        if o.version() >= 3 {
            o.release();
        }
    }
    Ok(Capture::new((clip.x, clip.y), image))
}

/// One output-local region of one output, as RGB.
fn copy(
    client: &Client,
    queue: &mut wayland_client::EventQueue<Shot>,
    state: &mut Shot,
    manager: &Manager,
    shm: &wl_shm::WlShm,
    output: &wl_output::WlOutput,
    r: Rect,
) -> Result<RgbImage> {
    let qh = queue.handle();
    state.buffer = None;
    state.buffer_done = false;
    state.ready = false;
    state.failed = false;
    state.y_invert = false;
    let frame = manager.capture_output_region(0, output, r.x, r.y, r.w, r.h, &qh, ());
    let v3 = manager.version() >= 3;
    client.wait(queue, state, TIMEOUT, |s| {
        s.failed || (s.buffer.is_some() && (!v3 || s.buffer_done))
    })?;
    let Some((format, w, h, stride)) = state.buffer.filter(|_| !state.failed) else {
        frame.destroy();
        return Err(Error::new(
            ErrorCode::ActionFailed,
            "the compositor offered no shared-memory buffer in a format we read",
        ));
    };
    let size = stride as usize * h as usize;
    let fd = rustix::fs::memfd_create("desktop-cli-shot", rustix::fs::MemfdFlags::CLOEXEC)
        .map_err(|e| wl_err("cannot make the capture's buffer", e))?;
    let file = std::fs::File::from(fd);
    file.set_len(size as u64)
        .map_err(|e| wl_err("cannot size the capture's buffer", e))?;
    let pool = shm.create_pool(file.as_fd(), size as i32, &qh, ());
    let buffer = pool.create_buffer(0, w as i32, h as i32, stride as i32, format, &qh, ());
    frame.copy(&buffer);
    let outcome = client.wait(queue, state, TIMEOUT, |s| s.ready || s.failed);
    frame.destroy();
    buffer.destroy();
    pool.destroy();
    outcome?;
    if state.failed {
        return Err(Error::new(
            ErrorCode::ActionFailed,
            "the compositor failed to copy the screen",
        ));
    }
    let mut data = vec![0u8; size];
    file.read_exact_at(&mut data, 0)
        .map_err(|e| wl_err("cannot read the captured pixels", e))?;
    Ok(to_rgb(&data, w, h, stride, state.y_invert))
}

/// XRGB/ARGB8888 (little-endian: B, G, R, X in memory) rows to RGB, flipped when the
/// compositor says the rows run bottom up.
fn to_rgb(data: &[u8], w: u32, h: u32, stride: u32, y_invert: bool) -> RgbImage {
    let mut out = Vec::with_capacity(w as usize * h as usize * 3);
    for row in 0..h {
        let src = if y_invert { h - 1 - row } else { row };
        let line = &data[(src * stride) as usize..][..w as usize * 4];
        for px in line.chunks_exact(4) {
            out.extend_from_slice(&[px[2], px[1], px[0]]);
        }
    }
    RgbImage::from_raw(w, h, out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bgrx_rows_become_rgb_and_flip_when_inverted() {
        // 2x2, stride 12 (4 bytes of padding per row).
        let data = [
            1, 2, 3, 0, 4, 5, 6, 0, 9, 9, 9, 9, //
            7, 8, 9, 0, 10, 11, 12, 0, 9, 9, 9, 9,
        ];
        let img = to_rgb(&data, 2, 2, 12, false);
        assert_eq!(img.get_pixel(0, 0).0, [3, 2, 1]);
        assert_eq!(img.get_pixel(1, 1).0, [12, 11, 10]);
        let flipped = to_rgb(&data, 2, 2, 12, true);
        assert_eq!(flipped.get_pixel(0, 0).0, [9, 8, 7]);
    }
}
