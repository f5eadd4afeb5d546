//! Pixels through ScreenCaptureKit (macOS 14+; the CG window-list capture is obsolete from
//! the macOS 15 SDK on): a screen area from every display it touches, put together in the
//! global space at one scale (`geometry::layout`), or one window's own pixels even when
//! covered. The completion handlers run on
//! ScreenCaptureKit's queue and hand their result over a channel, waited for with a bound.
#![allow(unsafe_code)]

use crate::geometry;
use crate::permissions::{self, Permission};
use block2::RcBlock;
use desktop_core::shot::Capture;
use desktop_core::{Error, ErrorCode, Rect, Result};
use image::imageops::{self, FilterType};
use image::RgbImage;
use objc2::rc::Retained;
use objc2::{available, AllocAnyThread};
use objc2_core_foundation::{CFRetained, CGPoint, CGRect, CGSize};
use objc2_core_graphics::{CGDataProvider, CGImage, CGPreflightScreenCaptureAccess};
use objc2_foundation::{NSArray, NSError};
use objc2_screen_capture_kit::{
    SCContentFilter, SCScreenshotManager, SCShareableContent, SCStreamConfiguration, SCWindow,
};
use std::ptr::NonNull;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// ScreenCaptureKit's objects are not `Send`; they only cross to this thread, which is
/// the one that asked and the only one that uses them.
struct Handed<T>(T);
// SAFETY: the value is moved once from the completion handler to the waiting thread.
unsafe impl<T> Send for Handed<T> {}

const WAIT: Duration = Duration::from_secs(10);

fn ready() -> Result<()> {
    if !available!(macos = 14.0) {
        return Err(Error::new(
            ErrorCode::PlatformNotSupported,
            "screenshots need macOS 14 or later (ScreenCaptureKit's screenshot API)",
        )
        .suggest("Update macOS, or read the window's elements instead"));
    }
    if !CGPreflightScreenCaptureAccess() {
        return Err(permissions::required(
            Permission::ScreenRecording,
            &super::responsible_app(),
        ));
    }
    Ok(())
}

fn timed_out() -> Error {
    Error::new(
        ErrorCode::Timeout,
        "the screen capture did not finish in time",
    )
    .suggest("Try again; check the Screen Recording permission")
}

fn content() -> Result<Retained<SCShareableContent>> {
    let (tx, rx) = mpsc::channel();
    let done = RcBlock::new(move |c: *mut SCShareableContent, _e: *mut NSError| {
        // SAFETY: a valid (or null) object the handler lends us; retained to keep it.
        let _ = tx.send(unsafe { Retained::retain(c) }.map(Handed));
    });
    // SAFETY: the block lives until called (RcBlock is retained by the framework).
    unsafe { SCShareableContent::getShareableContentWithCompletionHandler(&done) };
    match rx.recv_timeout(WAIT) {
        Ok(Some(c)) => Ok(c.0),
        Ok(None) => Err(permissions::required(
            Permission::ScreenRecording,
            &super::responsible_app(),
        )),
        Err(_) => Err(timed_out()),
    }
}

/// The image a screenshot's completion handler hands over (`None` when it failed).
type Shot = Option<Handed<CFRetained<CGImage>>>;

/// A screenshot asked for and not yet answered. The block is kept until the answer came
/// (the framework copies it as well; keeping ours costs nothing and leans on nothing).
struct Pending {
    rx: mpsc::Receiver<Shot>,
    _done: RcBlock<dyn Fn(*mut CGImage, *mut NSError)>,
}

/// Asks for one screenshot; it is taken on ScreenCaptureKit's queue while others are asked.
fn start(filter: &SCContentFilter, config: &SCStreamConfiguration) -> Pending {
    let (tx, rx) = mpsc::channel();
    let done: RcBlock<dyn Fn(*mut CGImage, *mut NSError)> =
        RcBlock::new(move |img: *mut CGImage, _e: *mut NSError| {
            // SAFETY: a valid (or null) image lent to the handler; retained to keep it.
            let _ = tx.send(NonNull::new(img).map(|i| Handed(unsafe { CFRetained::retain(i) })));
        });
    // SAFETY: valid filter and configuration; the block outlives the call.
    unsafe {
        SCScreenshotManager::captureImageWithFilter_configuration_completionHandler(
            filter,
            config,
            Some(&done),
        )
    };
    Pending { rx, _done: done }
}

/// The answer to a screenshot, waited for until `deadline`.
fn finish(p: Pending, deadline: Instant) -> Result<CFRetained<CGImage>> {
    let left = deadline.saturating_duration_since(Instant::now());
    match p.rx.recv_timeout(left) {
        Ok(Some(i)) => Ok(i.0),
        Ok(None) => Err(
            Error::new(ErrorCode::ActionFailed, "the screen capture failed")
                .suggest("Check the Screen Recording permission, then try again"),
        ),
        Err(_) => Err(timed_out()),
    }
}

fn shoot(filter: &SCContentFilter, config: &SCStreamConfiguration) -> Result<CFRetained<CGImage>> {
    finish(start(filter, config), Instant::now() + WAIT)
}

/// A CGImage's pixels as RGB (ScreenCaptureKit gives 32-bit BGRA, little-endian).
fn rgb(img: &CGImage) -> Result<RgbImage> {
    let (w, h) = (CGImage::width(Some(img)), CGImage::height(Some(img)));
    let row = CGImage::bytes_per_row(Some(img));
    let bad = || Error::internal("the captured image has an unexpected pixel format");
    // A row too short for its pixels (or none at all) is not an image we can read.
    if CGImage::bits_per_pixel(Some(img)) != 32 || row < w.saturating_mul(4) || row == 0 {
        return Err(bad());
    }
    let (Ok(w32), Ok(h32)) = (u32::try_from(w), u32::try_from(h)) else {
        return Err(bad());
    };
    let data =
        CGDataProvider::data(CGImage::data_provider(Some(img)).as_deref()).ok_or_else(bad)?;
    let bytes = data.to_vec();
    let mut out = RgbImage::new(w32, h32);
    for (y, line) in bytes.chunks(row).take(h).enumerate() {
        for (x, px) in line.chunks_exact(4).take(w).enumerate() {
            out.put_pixel(x as u32, y as u32, image::Rgb([px[2], px[1], px[0]]));
        }
    }
    Ok(out)
}

/// `area` (points) at `scale` pixels a point: every display it touches gives its piece (at
/// once: the screenshots are asked for together and waited for with one bound), each scaled
/// to `scale` by ScreenCaptureKit and put at its place in one image of the global space.
/// What lies on no display stays black.
pub fn area(area: Rect, scale: f64) -> Result<Capture> {
    ready()?;
    let content = content()?;
    // SAFETY: reading the shareable content's display list.
    let displays: Vec<_> = unsafe { content.displays() }.iter().collect();
    // SAFETY: each display's frame, in points of the global space.
    let frames: Vec<CGRect> = displays.iter().map(|d| unsafe { d.frame() }).collect();
    let bounds: Vec<Rect> = frames
        .iter()
        .map(|f| geometry::rect(f.origin.x, f.origin.y, f.size.width, f.size.height))
        .collect();
    let ((width, height), pieces) = geometry::layout(&bounds, area, scale);
    if pieces.is_empty() {
        return Err(Error::invalid_args(format!(
            "the area {},{} {}x{} shows no part of any display",
            area.x, area.y, area.w, area.h
        ))
        .suggest("Capture an area on the screen; list the displays with doctor"));
    }
    let empty: Retained<NSArray<SCWindow>> = NSArray::new();
    let pending: Vec<(geometry::Piece, Pending)> = pieces
        .into_iter()
        .map(|piece| {
            let (display, frame) = (&displays[piece.display], frames[piece.display]);
            // SAFETY: a display of the current content, no windows excluded.
            let filter = unsafe {
                SCContentFilter::initWithDisplay_excludingWindows(
                    SCContentFilter::alloc(),
                    display,
                    &empty,
                )
            };
            // SAFETY: configuring a fresh configuration object; the source rectangle is in
            // the display's own points, from its top-left.
            let config = unsafe { SCStreamConfiguration::new() };
            let src = piece.source;
            unsafe {
                config.setSourceRect(CGRect::new(
                    CGPoint::new(
                        f64::from(src.x) - frame.origin.x,
                        f64::from(src.y) - frame.origin.y,
                    ),
                    CGSize::new(f64::from(src.w), f64::from(src.h)),
                ));
                config.setWidth(piece.size.0 as usize);
                config.setHeight(piece.size.1 as usize);
                config.setShowsCursor(false);
            }
            (piece, start(&filter, &config))
        })
        .collect();
    let deadline = Instant::now() + WAIT;
    let mut out = RgbImage::new(width, height);
    for (piece, p) in pending {
        let shot = finish(p, deadline)?;
        let mut img = rgb(&shot)?;
        // ScreenCaptureKit may round a size its own way: the piece must fill its place.
        if img.dimensions() != piece.size {
            img = imageops::resize(&img, piece.size.0, piece.size.1, FilterType::Triangle);
        }
        imageops::replace(&mut out, &img, i64::from(piece.at.0), i64::from(piece.at.1));
    }
    Ok(Capture {
        origin: (area.x, area.y),
        scale,
        image: out,
    })
}

/// One window's own pixels (covered or not), with its origin in points.
pub fn window(window_id: u32) -> Result<Option<Capture>> {
    ready()?;
    let content = content()?;
    // SAFETY: reading the shareable content's window list.
    let windows = unsafe { content.windows() };
    // SAFETY: a window's id.
    let Some(win) = windows
        .iter()
        .find(|w| unsafe { w.windowID() } == window_id)
    else {
        return Ok(None);
    };
    // SAFETY: a window of the current content.
    let filter = unsafe {
        SCContentFilter::initWithDesktopIndependentWindow(SCContentFilter::alloc(), &win)
    };
    // SAFETY: the filter's own geometry.
    let (scale, rect) = unsafe { (f64::from(filter.pointPixelScale()), filter.contentRect()) };
    // SAFETY: the window's frame in points.
    let frame = unsafe { win.frame() };
    let config = unsafe { SCStreamConfiguration::new() };
    unsafe {
        config.setWidth((rect.size.width * scale).round() as usize);
        config.setHeight((rect.size.height * scale).round() as usize);
        config.setShowsCursor(false);
    }
    let img = shoot(&filter, &config)?;
    Ok(Some(Capture {
        origin: (frame.origin.x.floor() as i32, frame.origin.y.floor() as i32),
        scale,
        image: rgb(&img)?,
    }))
}
