//! Pixels through ScreenCaptureKit (macOS 14+; the CG window-list capture is obsolete from
//! the macOS 15 SDK on): a screen area from the display holding it, at that display's pixel
//! scale, or one window's own pixels even when covered. The completion handlers run on
//! ScreenCaptureKit's queue and hand their result over a channel, waited for with a bound.
#![allow(unsafe_code)]

use crate::permissions::{self, Permission};
use block2::RcBlock;
use desktop_core::shot::Capture;
use desktop_core::{Error, ErrorCode, Rect, Result};
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
use std::time::Duration;

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

fn shoot(filter: &SCContentFilter, config: &SCStreamConfiguration) -> Result<CFRetained<CGImage>> {
    let (tx, rx) = mpsc::channel();
    let done = RcBlock::new(move |img: *mut CGImage, _e: *mut NSError| {
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
    match rx.recv_timeout(WAIT) {
        Ok(Some(i)) => Ok(i.0),
        Ok(None) => Err(
            Error::new(ErrorCode::ActionFailed, "the screen capture failed")
                .suggest("Check the Screen Recording permission, then try again"),
        ),
        Err(_) => Err(timed_out()),
    }
}

/// A CGImage's pixels as RGB (ScreenCaptureKit gives 32-bit BGRA, little-endian).
fn rgb(img: &CGImage) -> Result<RgbImage> {
    let (w, h) = (CGImage::width(Some(img)), CGImage::height(Some(img)));
    let row = CGImage::bytes_per_row(Some(img));
    let bad = || Error::internal("the captured image has an unexpected pixel format");
    if CGImage::bits_per_pixel(Some(img)) != 32 {
        return Err(bad());
    }
    let data =
        CGDataProvider::data(CGImage::data_provider(Some(img)).as_deref()).ok_or_else(bad)?;
    let bytes = data.to_vec();
    let mut out = RgbImage::new(w as u32, h as u32);
    for (y, line) in bytes.chunks(row).take(h).enumerate() {
        for (x, px) in line.chunks_exact(4).take(w).enumerate() {
            out.put_pixel(x as u32, y as u32, image::Rgb([px[2], px[1], px[0]]));
        }
    }
    Ok(out)
}

/// `area` (points) from the display that holds most of it, at that display's scale.
pub fn area(area: Rect, scale: f64) -> Result<Capture> {
    ready()?;
    let content = content()?;
    // SAFETY: reading the shareable content's display list.
    let displays = unsafe { content.displays() };
    let centre = (
        f64::from(area.x) + f64::from(area.w) / 2.0,
        f64::from(area.y) + f64::from(area.h) / 2.0,
    );
    let display = displays
        .iter()
        .find(|d| {
            // SAFETY: a display's frame, in points.
            let f = unsafe { d.frame() };
            centre.0 >= f.origin.x
                && centre.0 < f.origin.x + f.size.width
                && centre.1 >= f.origin.y
                && centre.1 < f.origin.y + f.size.height
        })
        .or_else(|| displays.iter().next())
        .ok_or_else(|| Error::new(ErrorCode::ActionFailed, "no display to capture"))?;
    // SAFETY: as above.
    let frame = unsafe { display.frame() };
    let empty: Retained<NSArray<SCWindow>> = NSArray::new();
    // SAFETY: a display of the current content, no windows excluded.
    let filter = unsafe {
        SCContentFilter::initWithDisplay_excludingWindows(
            SCContentFilter::alloc(),
            &display,
            &empty,
        )
    };
    // SAFETY: configuring a fresh configuration object.
    let config = unsafe { SCStreamConfiguration::new() };
    let source = CGRect::new(
        CGPoint::new(
            f64::from(area.x) - frame.origin.x,
            f64::from(area.y) - frame.origin.y,
        ),
        CGSize::new(f64::from(area.w), f64::from(area.h)),
    );
    unsafe {
        config.setSourceRect(source);
        config.setWidth((f64::from(area.w) * scale).round() as usize);
        config.setHeight((f64::from(area.h) * scale).round() as usize);
        config.setShowsCursor(false);
    }
    let img = shoot(&filter, &config)?;
    Ok(Capture {
        origin: (area.x, area.y),
        scale,
        image: rgb(&img)?,
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
