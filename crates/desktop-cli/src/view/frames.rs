//! The frames `view` serves: the whole screen captured when it changed (the platform's
//! change signal, else a comparison of captures once a second), at most ten a second,
//! scaled to the page's width and kept as JPEG (only the bands that changed since the last
//! frame encoded again); each new one announced to the viewers.

use super::Shared;
use bytes::Bytes;
use desktop_core::shot::{self, LastFrame};
use desktop_core::{Desktop, Rect, Result};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// Shortest time between two frames.
const MIN_GAP: Duration = Duration::from_millis(100);
/// How often a platform without a change signal is looked at.
const POLL: Duration = Duration::from_secs(1);
const QUALITY: u8 = 70;

/// The latest frame.
pub struct Frame {
    pub seq: u64,
    pub jpeg: Bytes,
    /// Where on the screen the frame shows (its pixels cover this box).
    pub screen: Rect,
    pub size: (u32, u32),
}

impl Frame {
    /// The `frame` event's JSON: what the page needs to place boxes over it.
    pub fn announce(&self) -> String {
        serde_json::json!({
            "seq": self.seq,
            "w": self.size.0,
            "h": self.size.1,
            "screen": [self.screen.x, self.screen.y, self.screen.w, self.screen.h],
        })
        .to_string()
    }
}

/// Makes a frame each time the screen changes, for as long as the server runs.
pub async fn run(d: &impl Desktop, shared: &Arc<Shared>, width: u32) -> Result<()> {
    let changed = Arc::new(Notify::new());
    let signalled = match d.screen_changes() {
        Some(rx) => {
            let n = Arc::clone(&changed);
            // The platform's signal is a blocking channel: a thread hands it on.
            std::thread::Builder::new()
                .name("view-changes".into())
                .spawn(move || {
                    while rx.recv().is_ok() {
                        n.notify_one();
                    }
                })
                .is_ok()
        }
        None => false,
    };
    let mut last = Instant::now();
    let mut seq = 1u64;
    let mut previous = None;
    let mut bands = LastFrame::default();
    loop {
        if signalled {
            changed.notified().await;
        } else {
            tokio::time::sleep(POLL).await;
        }
        let gap = last.elapsed();
        if gap < MIN_GAP {
            tokio::time::sleep(MIN_GAP - gap).await;
        }
        last = Instant::now();
        let area = screen(d);
        let capture = d.capture(area).await?;
        let fingerprint = (!signalled).then(|| digest(capture.image.as_raw()));
        if fingerprint.is_none() || fingerprint != previous {
            previous = fingerprint;
            seq += 1;
            keep(shared, capture, area, width, seq, &mut bands).await?;
        }
    }
}

fn screen(d: &impl Desktop) -> Rect {
    d.screen().unwrap_or(Rect::new(0, 0, 0, 0))
}

/// The first frame, made before the address is announced (so `/frame.jpg` always has one).
pub async fn first(d: &impl Desktop, shared: &Shared, width: u32) -> Result<()> {
    let area = screen(d);
    let capture = d.capture(area).await?;
    keep(shared, capture, area, width, 1, &mut LastFrame::default()).await
}

/// Encodes a capture as the latest frame, reusing the bands of `last` it did not change,
/// and announces it.
async fn keep(
    shared: &Shared,
    capture: shot::Capture,
    screen: Rect,
    width: u32,
    seq: u64,
    last: &mut LastFrame,
) -> Result<()> {
    let mut bands = std::mem::take(last);
    let (frame, bands) = tokio::task::spawn_blocking(move || {
        let frame = encode(capture, screen, width, seq, &mut bands);
        (frame, bands)
    })
    .await
    .map_err(|e| desktop_core::Error::internal(format!("frame encoder: {e}")))?;
    *last = bands;
    let frame = frame?;
    let note = frame.announce();
    *shared.frame.write().unwrap_or_else(|e| e.into_inner()) = Some(frame);
    shared.send(&format!("event: frame\ndata: {note}\n\n"));
    Ok(())
}

fn encode(
    mut capture: shot::Capture,
    screen: Rect,
    width: u32,
    seq: u64,
    last: &mut LastFrame,
) -> Result<Frame> {
    let (w, _) = capture.image.dimensions();
    let scale = if w > width {
        capture.scale * f64::from(width) / f64::from(w)
    } else {
        capture.scale
    };
    let img = shot::render_taking(&mut capture, scale, &[], false);
    let size = img.dimensions();
    let (jpeg, _) = shot::encode_after(img, QUALITY, last)
        .map_err(|e| desktop_core::Error::internal(format!("cannot encode a frame: {e}")))?;
    Ok(Frame {
        seq,
        jpeg: Bytes::from(jpeg),
        screen,
        size,
    })
}

/// FNV-1a of the pixels: tells a changed screen from the same one.
fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
