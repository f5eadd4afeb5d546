//! `run.gif`: a run's screenshots in order, each with the element its actions aimed at
//! boxed and numbered by step and each click point marked, shrunk to a long edge of at most
//! [`EDGE`] pixels (a 20-step run from a 1280×800 screen stays well under 3 MB).

use desktop_core::shot::{self, Capture, Mark};
use desktop_core::{Error, Rect, Result};
use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Longest edge of a frame.
pub const EDGE: u32 = 720;
/// How long each frame shows.
const SHOW_MS: u32 = 1500;

/// One screenshot and the marks of the actions taken on it.
struct Shot {
    file: String,
    frame: Value,
    marks: Vec<Mark>,
}

fn i(v: &Value) -> Option<i32> {
    v.as_f64().map(|f| f.round() as i32)
}

/// The screenshots of a transcript's events, with their actions' marks.
fn shots(events: &[Value]) -> Vec<Shot> {
    let mut out: Vec<Shot> = Vec::new();
    for ev in events {
        match ev["ev"].as_str() {
            Some("observe") => {
                if let Some(file) = ev["screenshot"]
                    .as_str()
                    .filter(|f| !f.contains(['/', '\\']))
                {
                    out.push(Shot {
                        file: file.to_string(),
                        frame: ev["frame"].clone(),
                        marks: Vec::new(),
                    });
                }
            }
            Some("action") => {
                let Some(last) = out.last_mut() else { continue };
                let step = ev["step"].as_u64().unwrap_or(0) as u32;
                let b = &ev["result"]["element"]["b"];
                if let (Some(x), Some(y), Some(w), Some(h)) =
                    (i(&b[0]), i(&b[1]), i(&b[2]), i(&b[3]))
                {
                    last.marks.push(Mark {
                        id: step,
                        rect: Rect::new(x, y, w, h),
                    });
                }
                for p in ev["points"]
                    .as_object()
                    .into_iter()
                    .flat_map(|m| m.values())
                {
                    if let (Some(x), Some(y)) = (i(&p[0]), i(&p[1])) {
                        last.marks.push(Mark {
                            id: step,
                            rect: Rect::new(x - 6, y - 6, 12, 12),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Writes `run.gif` in `dir` from the transcript's `events`; its path, or `None` when the
/// run saw no screenshot.
pub fn write(dir: &Path, events: &[Value]) -> Result<Option<PathBuf>> {
    let shots = shots(events);
    if shots.is_empty() {
        return Ok(None);
    }
    let failed = |e: &dyn std::fmt::Display| Error::internal(format!("cannot write run.gif: {e}"));
    let mut bytes = Vec::new();
    {
        let mut enc = GifEncoder::new_with_speed(&mut bytes, 10);
        enc.set_repeat(Repeat::Infinite).map_err(|e| failed(&e))?;
        for s in &shots {
            let Ok(img) = image::open(dir.join(&s.file)) else {
                continue;
            };
            let img = img.to_rgb8();
            let f = &s.frame;
            let origin = (
                i(&f["origin"][0]).unwrap_or(0),
                i(&f["origin"][1]).unwrap_or(0),
            );
            let scale = f["scale"].as_f64().filter(|s| *s > 0.0).unwrap_or(1.0);
            let long = img.width().max(img.height()).max(1);
            let shrink = (f64::from(EDGE) / f64::from(long)).min(1.0);
            let capture = Capture {
                origin,
                scale,
                image: img,
            };
            let drawn = shot::render(&capture, scale * shrink, &s.marks, false);
            let rgba = image::DynamicImage::ImageRgb8(drawn).to_rgba8();
            enc.encode_frame(Frame::from_parts(
                rgba,
                0,
                0,
                Delay::from_numer_denom_ms(SHOW_MS, 1),
            ))
            .map_err(|e| failed(&e))?;
        }
    }
    let path = dir.join("run.gif");
    desktop_core::private::write_owner_only(&path, &bytes)?;
    Ok(Some(path))
}
