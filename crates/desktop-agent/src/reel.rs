//! `run.gif`: a run's screenshots in order, each with the element its actions aimed at
//! boxed and numbered by step and each click point marked, shrunk to a long edge of at most
//! [`EDGE`] pixels (a 20-step run from a 1280×800 screen stays well under 3 MB), and
//! captioned below with what each action was and how it ended. Each frame has its own 256
//! colours (`palette`), so the frames are made on every core at once.

use crate::palette;
use desktop_core::shot::{self, Capture, Mark};
use desktop_core::{Error, Rect, Result};
use image::{Rgb, RgbImage};
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
    /// One line per action taken on it; whether it failed.
    captions: Vec<(String, bool)>,
}

/// Caption lines under a frame, at most.
const CAPTION_LINES: usize = 3;
const LINE: u32 = 11;

/// One line saying what an action was and how it ended: `3 click btn "Save": confirmed`.
fn caption(ev: &Value) -> (String, bool) {
    let text = |v: &Value| v.as_str().map(str::to_string).unwrap_or_default();
    let r = &ev["result"];
    let on = &r["element"];
    let target = if on.is_object() {
        format!(" {} \"{}\"", text(&on["r"]), text(&on["t"]))
    } else {
        String::new()
    };
    let step = ev["step"].as_u64().unwrap_or(0);
    let tool = text(&ev["tool"]);
    if ev["ok"] == true {
        let effect = text(&r["effect"]);
        let effect = if effect.is_empty() {
            "done".into()
        } else {
            effect
        };
        (format!("{step} {tool}{target}: {effect}"), false)
    } else {
        (format!("{step} {tool}: failed {}", text(&r["code"])), true)
    }
}

/// Draws `lines` in a dark band added below `img` (8x8 glyphs; what is not ASCII as `?`).
fn captioned(img: RgbImage, lines: &[(String, bool)]) -> RgbImage {
    let (w, h) = img.dimensions();
    let band = LINE * CAPTION_LINES as u32 + 6;
    let mut out = RgbImage::from_pixel(w, h + band, Rgb([24, 24, 28]));
    image::imageops::replace(&mut out, &img, 0, 0);
    let per_line = (w.saturating_sub(8) / 8) as usize;
    let mut shown: Vec<(String, bool)> = lines.iter().take(CAPTION_LINES).cloned().collect();
    if lines.len() > CAPTION_LINES {
        if let Some(last) = shown.last_mut() {
            *last = (
                format!("... and {} more", lines.len() - CAPTION_LINES + 1),
                false,
            );
        }
    }
    for (n, (line, failed)) in shown.iter().enumerate() {
        let color = if *failed {
            Rgb([255, 120, 110])
        } else {
            Rgb([235, 235, 235])
        };
        let y0 = h + 4 + LINE * n as u32;
        for (k, c) in line.chars().take(per_line).enumerate() {
            let c = if c.is_ascii() && !c.is_ascii_control() {
                c
            } else {
                '?'
            };
            let glyph = font8x8::legacy::BASIC_LEGACY[c as usize];
            let x0 = 4 + 8 * k as u32;
            for (dy, row) in glyph.iter().enumerate() {
                for dx in 0..8u32 {
                    if row >> dx & 1 == 1 {
                        out.put_pixel(x0 + dx, y0 + dy as u32, color);
                    }
                }
            }
        }
    }
    out
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
                        captions: Vec::new(),
                    });
                }
            }
            Some("action") => {
                let Some(last) = out.last_mut() else { continue };
                last.captions.push(caption(ev));
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
    let frames: Vec<gif::Frame> = made(dir, &shots).into_iter().flatten().collect();
    let failed = |e: &dyn std::fmt::Display| Error::internal(format!("cannot write run.gif: {e}"));
    let width = frames.iter().map(|f| f.width).max().unwrap_or(1);
    let height = frames.iter().map(|f| f.height).max().unwrap_or(1);
    let mut bytes = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut bytes, width, height, &[]).map_err(|e| failed(&e))?;
        enc.set_repeat(gif::Repeat::Infinite)
            .map_err(|e| failed(&e))?;
        for f in &frames {
            enc.write_lzw_pre_encoded_frame(f).map_err(|e| failed(&e))?;
        }
    }
    let path = dir.join("run.gif");
    desktop_core::private::write_owner_only(&path, &bytes)?;
    Ok(Some(path))
}

/// The frames of `shots`, in order, made on every core: each has its own colours, so none
/// waits on another (one whose screenshot cannot be read is left out).
fn made(dir: &Path, shots: &[Shot]) -> Vec<Option<gif::Frame<'static>>> {
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let per = shots.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        let jobs: Vec<_> = shots
            .chunks(per)
            .map(|part| scope.spawn(move || part.iter().map(|s| frame(dir, s)).collect::<Vec<_>>()))
            .collect();
        jobs.into_iter()
            .flat_map(|j| j.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// One screenshot shrunk, marked and captioned, as a frame in 256 colours, compressed.
fn frame(dir: &Path, s: &Shot) -> Option<gif::Frame<'static>> {
    let img = image::open(dir.join(&s.file)).ok()?.to_rgb8();
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
    let drawn = captioned(drawn, &s.captions);
    let (w, h) = drawn.dimensions();
    let q = palette::quantize(drawn.as_raw());
    let mut frame = gif::Frame {
        width: u16::try_from(w).ok()?,
        height: u16::try_from(h).ok()?,
        buffer: q.indices.into(),
        palette: Some(q.palette),
        delay: (SHOW_MS / 10) as u16,
        ..gif::Frame::default()
    };
    frame.make_lzw_pre_encoded();
    Some(frame)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_screenshot_is_a_frame_in_order_with_its_colours() {
        let dir = std::env::temp_dir().join(format!("desktop-cli-reel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Three 1200x780 screenshots, each a flat colour with a blue block.
        let fills = [[250, 250, 250], [30, 30, 30], [240, 200, 40]];
        for (k, fill) in fills.iter().enumerate() {
            let img = RgbImage::from_fn(1200, 780, |x, y| {
                if (100..300).contains(&x) && (100..150).contains(&y) {
                    Rgb([0, 120, 215])
                } else {
                    Rgb(*fill)
                }
            });
            img.save(dir.join(format!("turn-00{}.jpg", k + 1))).unwrap();
        }
        let frame = json!({"origin": [0, 0], "scale": 1.0, "width": 1200, "height": 780});
        let events = vec![
            json!({"ev": "observe", "screenshot": "turn-001.jpg", "frame": frame}),
            json!({"ev": "action", "step": 1, "tool": "click", "ok": true,
                   "result": {"effect": "confirmed", "element": {"r": "btn", "t": "Go", "b": [100, 100, 200, 50]}}}),
            json!({"ev": "observe", "screenshot": "turn-002.jpg", "frame": frame}),
            json!({"ev": "observe", "screenshot": "turn-003.jpg", "frame": frame}),
        ];
        let path = write(&dir, &events).unwrap().unwrap();
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::RGBA);
        let mut dec = opts.read_info(std::fs::File::open(&path).unwrap()).unwrap();
        let mut seen = Vec::new();
        while let Some(f) = dec.read_next_frame().unwrap() {
            // Shrunk to a 720-pixel edge, a caption band below.
            assert_eq!(f.width, 720);
            assert!(f.height > 468, "{}", f.height);
            let px = |x: usize, y: usize| {
                let i = (y * usize::from(f.width) + x) * 4;
                [f.buffer[i], f.buffer[i + 1], f.buffer[i + 2]]
            };
            seen.push((px(600, 300), px(120, 75)));
        }
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(seen.len(), 3);
        let near = |a: [u8; 3], b: [u8; 3]| (0..3).all(|c| a[c].abs_diff(b[c]) <= 6);
        for ((flat, block), fill) in seen.iter().zip(fills) {
            assert!(near(*flat, fill), "{flat:?} for {fill:?}");
            assert!(near(*block, [0, 120, 215]), "{block:?}");
        }
    }
}
