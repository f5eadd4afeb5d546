//! Taking a screenshot of a desktop, the same way at every face: capture (the window
//! directly when the platform can, else its area), mark the interactive elements with their
//! ids, shrink to the size asked for, draw (marks, grid, then the pointer's crosshair and
//! inset and the dimension banner: `overlay`), encode, and say where the pixels are on screen.

use crate::backend::Desktop;
use crate::error::{Error, ErrorCode, Result};
use crate::model::ReadData;
use crate::node::Rect;
use crate::overlay::{self, InsetInfo};
use crate::request::Element;
use crate::shot::{self, Capture, Encoding, Mark};
use crate::watch::ShotRequest;
use crate::{Filters, Target, WindowInfo};
use serde::Serialize;

/// A finished screenshot: its description and the encoded image.
#[derive(Debug)]
pub struct Shot {
    pub info: ShotInfo,
    pub bytes: Vec<u8>,
    /// `image/png` or `image/jpeg`, for the faces that return the image itself.
    pub mime: &'static str,
    /// Set when the ids drawn on the image could not be saved for later actions (the image
    /// is fine; acting by those ids will say they are unknown), or when an overlay asked for
    /// could not be drawn (the pointer unknown or outside the capture).
    pub warning: Option<String>,
    /// How many bands of the last frame a JPEG reused (see [`take_with`]).
    pub reused: usize,
}

/// What a screenshot shows and where: screen x = origin x + image x / scale.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShotInfo {
    pub format: &'static str,
    pub width: u32,
    pub height: u32,
    /// Image pixels per screen unit.
    pub scale: f64,
    pub origin: (i32, i32),
    /// The screen rectangle shown, `[x, y, w, h]`.
    pub region: [i32; 4],
    /// Encoded size in bytes.
    pub bytes: usize,
    /// How many elements carry their id on the image (with annotation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marks: Option<usize>,
    /// The pointer's screen position (with the crosshair or the inset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<[i32; 2]>,
    /// Where the magnified inset is and what it shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inset: Option<InsetInfo>,
}

impl ShotInfo {
    /// The screen point under an image point.
    pub fn to_screen(&self, px: f64, py: f64) -> (i32, i32) {
        (
            self.origin.0 + (px / self.scale).round() as i32,
            self.origin.1 + (py / self.scale).round() as i32,
        )
    }
}

/// A window's pixels taken before the read whose ids mark them is in: the agent captures
/// its working window while the window's tree is read, rather than after. [`take_with`]
/// uses them only for the window the read found, at the place the read found it.
pub struct Ahead {
    window: WindowInfo,
    capture: Capture,
}

impl Ahead {
    /// Captures the window `scope` names, as [`take`] would (raised first where the
    /// platform captures a window by its area).
    pub async fn capture<D: Desktop>(d: &D, scope: &Target) -> Result<Ahead> {
        let window = d.resolve(scope).await?;
        let capture = match d.capture_window(&window).await? {
            Some(c) => c,
            None => {
                let id = window.id.ok_or_else(|| unplaced(&window))?;
                d.raise(id)?;
                d.capture(window.bounds.ok_or_else(|| unplaced(&window))?)
                    .await?
            }
        };
        Ok(Ahead { window, capture })
    }

    /// Whether these are the pixels a shot of `a` marked from `known` would capture: the
    /// same window, at the same place, and nothing else asked.
    fn serves(&self, a: &ShotRequest, known: Option<&ReadData>) -> bool {
        let k = known.map(|k| &k.window);
        a.region.is_none()
            && a.id.is_none()
            && self.window.id.is_some()
            && a.target.window_id == self.window.id
            && k.is_some_and(|k| k.id == self.window.id && k.bounds == self.window.bounds)
    }
}

/// A window whose place the window system does not tell cannot be cut out of the screen.
fn unplaced(w: &WindowInfo) -> Error {
    Error::new(
        ErrorCode::PlatformNotSupported,
        format!(
            "the window system tells no position of window \"{}\", so it cannot be cut out of the screen",
            w.title
        ),
    )
    .suggest("Take the whole screen (name no window), or a --region")
}

/// Captures, marks and encodes; the scale shrinks further to keep the long edge within
/// `max_edge`. `known`: a read the caller already made, whose ids the marks show (else the
/// window is read, and its ids saved, here).
pub async fn take<D: Desktop>(d: &D, a: &ShotRequest, known: Option<&ReadData>) -> Result<Shot> {
    take_with(d, a, known, None, None).await
}

/// [`take`], with the window's pixels taken ahead where they are the ones it would capture
/// (else captured here, as [`take`] does). With `last`, a JPEG is encoded in bands that
/// reuse the last frame's where its pixels did not change, and is kept there for the next.
pub async fn take_with<D: Desktop>(
    d: &D,
    a: &ShotRequest,
    known: Option<&ReadData>,
    ahead: Option<Ahead>,
    last: Option<&mut shot::LastFrame>,
) -> Result<Shot> {
    a.validate()?;
    let enc = a.encoding;
    let screen = d.screen().ok_or_else(|| {
        Error::new(ErrorCode::NoDisplay, "there is no screen to capture")
            .suggest("Run inside a desktop session, or start a headless one (sandbox up)")
    })?;
    let scope = &a.target;
    let mut window = None;
    // A window the platform captures itself (covered or not), or one taken ahead; else
    // raised and its area.
    let mut direct = None;
    let area = if let Some(r) = a.region {
        r
    } else if let Some(id) = a.id {
        let found = d.find(scope, &Element::Id(id)).await?;
        if let Some(w) = found.window_id {
            d.raise(w)?;
        }
        found.bounds.filter(Rect::is_valid).ok_or_else(|| {
            Error::new(
                ErrorCode::NotInteractable,
                format!("element {id} has no place on screen"),
            )
            .suggest("Scroll it into view first; where its read said \"boxes\":\"window\", the window system tells no position of its window: take the whole screen instead")
        })?
    } else if let Some(ah) = ahead.filter(|ah| ah.serves(a, known)) {
        direct = Some(ah.capture);
        let b = ah.window.bounds.ok_or_else(|| unplaced(&ah.window))?;
        window = Some(ah.window);
        b
    } else if !scope.is_empty() {
        let w = d.resolve(scope).await?;
        direct = d.capture_window(&w).await?;
        if direct.is_none() {
            if let Some(id) = w.id {
                d.raise(id)?;
            }
        }
        let b = w.bounds.ok_or_else(|| unplaced(&w))?;
        window = Some(w);
        b
    } else {
        screen
    };
    let mut marks = Vec::new();
    let mut warning = None;
    if a.annotate {
        let filters = Filters {
            interactive: true,
            visible_only: true,
            ..Filters::default()
        };
        let fresh;
        let data = match (known, &window) {
            (Some(k), _) => k,
            (None, w) => {
                fresh = match w {
                    Some(w) => d.read_window(w.clone(), &filters, None).await?,
                    None => d.read(scope, &filters).await?,
                };
                &fresh
            }
        };
        // Marks drawn at boxes relative to a window the system does not place would sit
        // on other things: refused, never drawn at a wrong place.
        if data.window_boxes {
            return Err(Error::new(
                ErrorCode::PlatformNotSupported,
                "marking elements on a screenshot needs their places on screen, and the window system tells no position of this window (its element boxes are relative to it)",
            )
            .suggest("Take the screenshot without --annotate, and act on elements by the ids a read gives"));
        }
        for n in &data.elements {
            n.walk(&mut |e| {
                if e.is_interactive() {
                    if let Some(b) = e.bounds.filter(|b| b.is_valid() && b.intersects(&area)) {
                        marks.push(Mark { id: e.id, rect: b });
                    }
                }
            });
        }
    }
    let mut capture = match direct {
        Some(c) => c,
        None => d.capture(area).await?,
    };
    for r in &a.hide {
        capture.paint_over(r);
    }
    // Where the pointer was when the pixels were taken.
    let pointer = a.overlays.pointer().then(|| d.pointer()).flatten();
    let (cw, ch) = capture.image.dimensions();
    // The request's scale shrinks the pixels captured (a Retina capture holds 2 a unit);
    // the image's scale is in pixels per screen unit.
    let mut shrink = a.scale;
    if let Some(edge) = a.max_edge {
        let long = f64::from(cw.max(ch));
        if long * shrink > f64::from(edge) {
            shrink = (f64::from(edge) / long).max(0.01);
        }
    }
    let scale = shrink * capture.scale;
    let shown = capture.area();
    // The inset magnifies the captured pixels; without one, the frame's pixels become the
    // image where they need no scaling.
    let mut img = if a.overlays.inset.is_some() {
        shot::render(&capture, scale, &marks, a.grid)
    } else {
        shot::render_taking(&mut capture, scale, &marks, a.grid)
    };
    // Whatever is drawn to point with, the exact geometry goes with it.
    let banner = a.overlays.banner || a.annotate || a.grid || a.overlays.pointer();
    let drawn = overlay::draw(&mut img, &capture, scale, pointer, &a.overlays, banner);
    if let Some(note) = drawn.note {
        warning = Some(match warning {
            Some(w) => format!("{w}; {note}"),
            None => note,
        });
    }
    let (width, height) = img.dimensions();
    let (bytes, reused) = match (enc, last) {
        (Encoding::Jpeg { quality }, Some(last)) => shot::encode_after(img, quality, last),
        _ => shot::encode(&img, enc).map(|bytes| (bytes, 0)),
    }
    .map_err(|e| Error::internal(format!("cannot encode the image: {e}")))?;
    let png = enc == Encoding::Png;
    let info = ShotInfo {
        format: if png { "png" } else { "jpg" },
        width,
        height,
        scale,
        origin: capture.origin,
        region: [shown.x, shown.y, shown.w, shown.h],
        bytes: bytes.len(),
        marks: a.annotate.then_some(marks.len()),
        pointer: pointer.map(|(x, y)| [x, y]),
        inset: drawn.inset,
    };
    Ok(Shot {
        info,
        bytes,
        mime: if png { "image/png" } else { "image/jpeg" },
        warning,
        reused,
    })
}

#[cfg(test)]
mod tests {
    //! Screenshots on the in-memory desktop with a Retina display left of and above the
    //! primary one: the image keeps the captured pixels, and its geometry maps image points
    //! back to the right screen points.

    use super::*;
    use crate::backend::Display;
    use crate::fake::{block_on, el, refs_file, FakeDesktop};
    use crate::overlay::{Inset, Overlays, BORDER, CROSS};
    use crate::{Role, Target};

    fn desktop(test: &str) -> FakeDesktop {
        let tree = vec![el(Role::Button, "OK", (10, 10, 80, 20), vec![])];
        let d = FakeDesktop::new("demo", "Form", tree, refs_file(test));
        d.set_displays(vec![
            Display::new(Rect::new(0, 0, 1440, 900), 1.0, true),
            Display::new(Rect::new(-800, -100, 800, 600), 2.0, false),
        ]);
        d
    }

    fn request(region: Rect, scale: f64, max_edge: Option<u32>) -> ShotRequest {
        ShotRequest {
            target: Target::default(),
            id: None,
            region: Some(region),
            encoding: Encoding::Png,
            scale,
            max_edge,
            annotate: false,
            grid: false,
            hide: Vec::new(),
            overlays: Overlays::default(),
        }
    }

    #[test]
    fn a_retina_region_keeps_its_pixels_and_maps_back_to_the_screen() {
        let d = desktop("shot-retina");
        assert_eq!(d.screen(), Some(Rect::new(-800, -100, 2240, 1000)));
        let region = Rect::new(-700, -50, 200, 100);
        let shot = block_on(take(&d, &request(region, 1.0, None), None)).unwrap();
        let g = &shot.info;
        assert_eq!((g.width, g.height), (400, 200));
        assert_eq!((g.origin, g.scale), ((-700, -50), 2.0));
        assert_eq!(g.region, [-700, -50, 200, 100]);
        // Image (200,100) is screen (-700 + 200/2, -50 + 100/2).
        assert_eq!(g.to_screen(200.0, 100.0), (-600, 0));
        // Shrunk to a 100-pixel edge: a quarter of the pixels, half a pixel a unit.
        let small = block_on(take(&d, &request(region, 1.0, Some(100)), None)).unwrap();
        assert_eq!((small.info.width, small.info.scale), (100, 0.5));
    }

    #[test]
    fn the_primary_display_stays_one_pixel_a_unit() {
        let d = desktop("shot-primary");
        let region = Rect::new(100, 50, 300, 200);
        let shot = block_on(take(&d, &request(region, 0.5, None), None)).unwrap();
        let g = &shot.info;
        assert_eq!(
            (g.width, g.height, g.scale, g.origin),
            (150, 100, 0.5, (100, 50))
        );
    }

    fn decode(shot: &Shot) -> image::RgbImage {
        image::load_from_memory(&shot.bytes).unwrap().to_rgb8()
    }

    fn pointing(region: Rect, scale: f64, inset: bool) -> ShotRequest {
        ShotRequest {
            overlays: Overlays {
                cursor: true,
                inset: inset.then(Inset::default),
                ..Overlays::default()
            },
            ..request(region, scale, None)
        }
    }

    /// Whether any of these rows holds a white pixel in the first `w` columns (the
    /// banner's text; the fake's captures are black).
    fn white_in(img: &image::RgbImage, rows: std::ops::Range<u32>, w: u32) -> bool {
        rows.into_iter()
            .any(|y| (0..w).any(|x| img.get_pixel(x, y).0 == [255; 3]))
    }

    #[test]
    fn the_crosshair_sits_on_the_pointer_at_scale_1_and_2_left_of_the_primary() {
        let d = desktop("shot-cursor");
        d.set_pointer(Some((-650, -20)));
        let region = Rect::new(-700, -50, 200, 100);
        // Full resolution on the Retina display: 2 pixels a unit, the pointer's pixel is a
        // 2x2 block at image ((-650+700)*2, (-20+50)*2).
        let shot = block_on(take(&d, &pointing(region, 1.0, false), None)).unwrap();
        assert_eq!(
            (shot.info.scale, shot.info.pointer),
            (2.0, Some([-650, -20]))
        );
        assert_eq!(shot.warning, None);
        let img = decode(&shot);
        for (x, y) in [(100, 60), (101, 61), (100, 60 - 20), (100 + 20, 61)] {
            assert_eq!(img.get_pixel(x, y).0, CROSS.0, "{x},{y}");
        }
        assert_ne!(img.get_pixel(110, 50).0, CROSS.0, "between the arms");
        // Half the pixels: one a unit, the pointer at image (50, 30), the line 1 pixel wide.
        let half = decode(&block_on(take(&d, &pointing(region, 0.5, false), None)).unwrap());
        assert_eq!(half.get_pixel(50, 30).0, CROSS.0);
        assert_eq!(half.get_pixel(50, 30 + 20).0, CROSS.0);
        assert_ne!(half.get_pixel(51, 31).0, CROSS.0);
        // The primary display, one pixel a unit: image = screen - origin.
        d.set_pointer(Some((250, 120)));
        let one = decode(
            &block_on(take(
                &d,
                &pointing(Rect::new(100, 50, 300, 200), 1.0, false),
                None,
            ))
            .unwrap(),
        );
        assert_eq!(one.get_pixel(150, 70).0, CROSS.0);
        assert_eq!(one.get_pixel(150 - 20, 70).0, CROSS.0);
    }

    #[test]
    fn the_inset_goes_to_the_corner_away_from_the_pointer() {
        let d = desktop("shot-inset");
        // The Retina display whole, at one pixel a unit: the pointer in the top-left quarter
        // of the 800x600 image, at (100, 100).
        d.set_pointer(Some((-700, 0)));
        let region = Rect::new(-800, -100, 800, 600);
        let shot = block_on(take(&d, &pointing(region, 0.5, true), None)).unwrap();
        let inset = shot.info.inset.unwrap();
        // Bottom-right, 4 px from the edges, above the banner's strip (18 px + 4).
        assert_eq!(inset.rect, [596, 374, 200, 200]);
        // 196 content pixels at 4 a unit around the pointer's pixel: 49 units.
        assert_eq!(inset.shows, [-724, -24, 49, 49]);
        let img = decode(&shot);
        for (x, y) in [(596, 474), (597, 474), (795, 474), (696, 374), (696, 573)] {
            assert_eq!(img.get_pixel(x, y).0, CROSS.0, "border at {x},{y}");
        }
        assert_ne!(img.get_pixel(596 + BORDER as u32 + 10, 390).0, CROSS.0);
        assert_eq!(img.get_pixel(100, 100).0, CROSS.0, "the crosshair as well");
        // The pointer in the bottom-right quarter: the inset goes top-left.
        d.set_pointer(Some((-200, 400)));
        let shot = block_on(take(&d, &pointing(region, 0.5, true), None)).unwrap();
        assert_eq!(shot.info.inset.unwrap().rect, [4, 4, 200, 200]);
    }

    #[test]
    fn the_inset_shows_hidden_fields_painted_over() {
        let d = desktop("shot-inset-hidden");
        d.set_pointer(Some((200, 150)));
        let req = ShotRequest {
            hide: vec![Rect::new(150, 100, 100, 100)],
            ..pointing(Rect::new(0, 0, 800, 600), 1.0, true)
        };
        let shot = block_on(take(&d, &req, None)).unwrap();
        let [x, y, ..] = shot.info.inset.unwrap().rect;
        // 10 content pixels up and left of the middle: screen (198, 148), in the hidden field.
        let img = decode(&shot);
        let (cx, cy) = (x + BORDER as u32 + 98 - 10, y + BORDER as u32 + 98 - 10);
        assert_eq!(img.get_pixel(cx, cy).0, [128; 3]);
    }

    #[test]
    fn a_banner_comes_with_every_drawn_screenshot_and_on_request() {
        let d = desktop("shot-banner");
        let region = Rect::new(100, 50, 600, 300);
        let plain = decode(&block_on(take(&d, &request(region, 1.0, None), None)).unwrap());
        assert!(!white_in(&plain, 0..300, 600), "no banner unless asked");
        let asked = ShotRequest {
            overlays: Overlays {
                banner: true,
                ..Overlays::default()
            },
            ..request(region, 1.0, None)
        };
        let img = decode(&block_on(take(&d, &asked, None)).unwrap());
        // "600x300 px, scale 1, origin 100,50" at 2-pixel dots: 18 rows at the bottom edge.
        assert!(white_in(&img, 300 - 18..300, 400));
        assert!(!white_in(&img, 0..300 - 18, 600), "nothing else drawn");
        let gridded = ShotRequest {
            grid: true,
            ..request(region, 1.0, None)
        };
        let img = decode(&block_on(take(&d, &gridded, None)).unwrap());
        assert!(white_in(&img, 300 - 18..300, 400));
    }

    #[test]
    fn a_pointer_outside_the_capture_or_unknown_is_said() {
        let d = desktop("shot-pointer-away");
        d.set_pointer(Some((1000, 700)));
        let shot = block_on(take(
            &d,
            &pointing(Rect::new(100, 50, 300, 200), 1.0, true),
            None,
        ))
        .unwrap();
        assert_eq!(shot.info.pointer, Some([1000, 700]));
        assert_eq!(shot.info.inset, None);
        assert!(shot.warning.unwrap().contains("outside the captured area"));
        d.set_pointer(None);
        let shot = block_on(take(
            &d,
            &pointing(Rect::new(100, 50, 300, 200), 1.0, true),
            None,
        ))
        .unwrap();
        assert!(shot.warning.unwrap().contains("unknown"));
    }

    #[test]
    fn pixels_taken_ahead_serve_only_the_window_the_read_found_where_it_found_it() {
        let d = desktop("shot-ahead");
        let data = block_on(d.read(&Target::default(), &Filters::default())).unwrap();
        let ahead = || {
            let mut a = block_on(Ahead::capture(&d, &Target::default())).unwrap();
            for p in a.capture.image.pixels_mut() {
                *p = image::Rgb([200, 0, 0]);
            }
            a
        };
        let req = ShotRequest {
            target: Target {
                window_id: data.window.id,
                ..Target::default()
            },
            region: None,
            ..request(Rect::new(0, 0, 1, 1), 1.0, None)
        };
        let centre = |s: Shot| {
            let img = image::load_from_memory(&s.bytes).unwrap().to_rgb8();
            img.get_pixel(img.width() / 2, img.height() / 2).0
        };
        // The same window at the same place: its pixels taken ahead are the image.
        let shot = block_on(take_with(&d, &req, Some(&data), Some(ahead()), None)).unwrap();
        assert_eq!(centre(shot), [200, 0, 0]);
        // The read found the window elsewhere: captured again (the fake's are black).
        let mut moved = data.clone();
        moved.window.bounds = moved
            .window
            .bounds
            .map(|b| Rect::new(b.x + 5, b.y, b.w, b.h));
        let shot = block_on(take_with(&d, &req, Some(&moved), Some(ahead()), None)).unwrap();
        assert_eq!(centre(shot), [0, 0, 0]);
        // Another window, or a region asked for: never the pixels taken ahead.
        let other = Target {
            window_id: data.window.id.map(|i| i + 1),
            ..Target::default()
        };
        assert!(!ahead().serves(
            &ShotRequest {
                target: other,
                ..req.clone()
            },
            Some(&data)
        ));
        let region = request(Rect::new(0, 0, 10, 10), 1.0, None);
        assert!(!ahead().serves(&region, Some(&data)));
        assert!(!ahead().serves(&req, None));
    }

    #[test]
    fn a_frame_reusing_the_last_ones_bands_shows_what_one_taken_afresh_does() {
        let d = desktop("shot-last");
        let data = block_on(d.read(&Target::default(), &Filters::default())).unwrap();
        let req = ShotRequest {
            target: Target {
                window_id: data.window.id,
                ..Target::default()
            },
            region: None,
            encoding: Encoding::Jpeg { quality: 75 },
            annotate: true,
            ..request(Rect::new(0, 0, 1, 1), 1.0, None)
        };
        let pixels = |s: &Shot| image::load_from_memory(&s.bytes).unwrap().to_rgb8();
        let mut last = shot::LastFrame::default();
        let shot = |known: &ReadData, paint: bool, last: &mut shot::LastFrame| {
            let mut ah = block_on(Ahead::capture(&d, &req.target)).unwrap();
            if paint {
                for p in ah.capture.image.pixels_mut() {
                    *p = image::Rgb([200, 0, 0]);
                }
            }
            let kept = block_on(take_with(&d, &req, Some(known), Some(ah), Some(last))).unwrap();
            let fresh = block_on(take(&d, &req, Some(known))).unwrap();
            (kept, fresh)
        };
        let (first, fresh) = shot(&data, false, &mut last);
        assert_eq!(first.reused, 0);
        assert!(pixels(&first) == pixels(&fresh));
        let bands = (first.info.height as usize).div_ceil(32);
        assert!(bands > 4, "{bands} bands");
        // Nothing changed: every band reused.
        let (same, fresh) = shot(&data, false, &mut last);
        assert_eq!(same.reused, bands);
        assert!(pixels(&same) == pixels(&fresh));
        // The button moved 100 units down: the bands of its old and new marks encoded again.
        let mut moved = data.clone();
        let b = moved.elements[0].bounds.as_mut().unwrap();
        b.y += 100;
        let (other, fresh) = shot(&moved, false, &mut last);
        assert!(other.reused > 0 && other.reused < bands, "{}", other.reused);
        assert!(pixels(&other) == pixels(&fresh));
        // Every pixel changed: nothing reused, the new ones shown.
        let (red, _) = shot(&moved, true, &mut last);
        assert_eq!(red.reused, 0);
        let img = pixels(&red);
        assert_eq!(
            img.get_pixel(img.width() / 2, img.height() - 3).0,
            [200, 0, 0]
        );
    }
}
