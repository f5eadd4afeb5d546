//! Overlays for precise pointing, drawn on a screenshot after scaling, grid and marks: a
//! crosshair on the pointer labelled with its coordinates, a magnified inset of the area
//! around the pointer (sampled from the captured pixels, so it keeps detail the shrunk image
//! lost) with a fine grid labelled in the same coordinates, and a banner with the image's
//! exact size, scale and origin. A model reading a point off an image needs all three: where
//! the pointer is, what lies under it pixel by pixel, and how the image maps to the screen.

use crate::paint::{blend, fill, outline, tag, tag_size};
use crate::shot::Capture;
use image::{Rgb, RgbImage};
use serde::Serialize;
use std::ops::RangeInclusive;

/// Which coordinates the overlays' labels give.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Coords {
    /// Screen coordinates: what `click --x --y` and the MCP tools take.
    #[default]
    Screen,
    /// Pixels of this image: what a model pointing at the image gives (the agent's points).
    Image,
}

/// What to draw for pointing, besides marks and grid.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Overlays {
    /// A crosshair on the pointer, labelled "x,y".
    pub cursor: bool,
    /// A magnified inset around the pointer, in a corner away from it.
    pub inset: Option<Inset>,
    /// The image's size, scale and origin at the bottom edge (drawn anyway with marks, a
    /// grid, the crosshair or the inset).
    pub banner: bool,
    pub coords: Coords,
}

impl Overlays {
    /// Whether the pointer's position is needed.
    pub fn pointer(&self) -> bool {
        self.cursor || self.inset.is_some()
    }
}

/// The magnified inset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inset {
    /// Side of the square in image pixels, border included (less on a small image).
    pub size: u32,
    /// Inset pixels per pixel of the screenshot.
    pub zoom: u32,
}

impl Inset {
    pub const SIZES: RangeInclusive<u32> = 64..=800;
    pub const ZOOMS: RangeInclusive<u32> = 2..=16;
}

impl Default for Inset {
    fn default() -> Inset {
        Inset { size: 200, zoom: 4 }
    }
}

/// Where the inset went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct InsetInfo {
    /// Its box on the image, `[x, y, w, h]`, border included.
    pub rect: [u32; 4],
    /// The screen rectangle it magnifies, `[x, y, w, h]`.
    pub shows: [i32; 4],
    pub zoom: u32,
}

/// What `draw` did.
#[derive(Debug, Default)]
pub struct Drawn {
    pub inset: Option<InsetInfo>,
    /// Why an overlay asked for is missing.
    pub note: Option<String>,
}

/// The crosshair, its label's box and the inset's border.
pub const CROSS: Rgb<u8> = Rgb([255, 0, 255]);
const BLACK: Rgb<u8> = Rgb([0, 0, 0]);
const WHITE: Rgb<u8> = Rgb([255, 255, 255]);
const GRID: Rgb<u8> = Rgb([255, 0, 0]);
/// The inset beyond the captured area.
const OUTSIDE: Rgb<u8> = Rgb([60, 60, 60]);
/// Length of each crosshair arm past the pointer's pixel.
const ARM: i64 = 24;
/// Between the inset and the image's edges (and the banner).
const MARGIN: i64 = 4;
pub const BORDER: i64 = 2;
/// Below this side an inset shows too little to help.
const MIN_INSET: i64 = 48;
/// Font dots: labels that must be read at a glance, and the inset's fine print.
const BIG: i64 = 2;
const FINE: i64 = 1;
/// Inset grid steps (fine, strong) in label units: the first whose fine lines are at least
/// 6 pixels apart.
const STEPS: [(i64, i64); 4] = [(10, 50), (50, 200), (100, 500), (500, 2000)];

/// How screen, image and label coordinates relate.
struct Geo<'a> {
    cap: &'a Capture,
    /// Image pixels per screen unit.
    scale: f64,
    coords: Coords,
}

impl Geo<'_> {
    fn origin(&self, axis: usize) -> f64 {
        f64::from(if axis == 0 {
            self.cap.origin.0
        } else {
            self.cap.origin.1
        })
    }

    /// Image position of a screen point (the top-left corner of its pixel).
    fn to_image(&self, (x, y): (i32, i32)) -> (f64, f64) {
        (
            (f64::from(x) - self.origin(0)) * self.scale,
            (f64::from(y) - self.origin(1)) * self.scale,
        )
    }

    /// Image pixels per label unit.
    fn unit(&self) -> f64 {
        match self.coords {
            Coords::Screen => self.scale,
            Coords::Image => 1.0,
        }
    }

    /// Image position of label coordinate `c` on an axis (0: x, 1: y).
    fn at(&self, c: f64, axis: usize) -> f64 {
        match self.coords {
            Coords::Screen => (c - self.origin(axis)) * self.scale,
            Coords::Image => c,
        }
    }

    /// Label coordinate at image position `q`.
    fn coord(&self, q: f64, axis: usize) -> f64 {
        match self.coords {
            Coords::Screen => self.origin(axis) + q / self.scale,
            Coords::Image => q,
        }
    }

    /// The pointer's label: its screen point, or the image pixel the crosshair is on.
    fn label(&self, p: (i32, i32), at: (f64, f64)) -> String {
        match self.coords {
            Coords::Screen => format!("{},{}", p.0, p.1),
            Coords::Image => format!("{},{}", at.0.floor(), at.1.floor()),
        }
    }
}

/// Draws the overlays asked for on `img` (the capture rendered at `scale` image pixels per
/// screen unit); `pointer` in screen coordinates.
pub fn draw(
    img: &mut RgbImage,
    cap: &Capture,
    scale: f64,
    pointer: Option<(i32, i32)>,
    o: &Overlays,
    banner: bool,
) -> Drawn {
    let geo = Geo {
        cap,
        scale,
        coords: o.coords,
    };
    let mut drawn = Drawn::default();
    let bar = if banner {
        banner_text(img, cap.origin, scale)
    } else {
        None
    };
    // The inset keeps clear of the banner's strip.
    let reserve = bar
        .as_ref()
        .map_or(0, |(t, dot)| tag_size(t, *dot).1 + MARGIN);
    if o.pointer() {
        let (w, h) = (f64::from(img.width()), f64::from(img.height()));
        match pointer {
            None => {
                drawn.note =
                    Some("the pointer's position is unknown: no crosshair or inset drawn".into())
            }
            Some(p) => {
                let at = geo.to_image(p);
                if at.0 < 0.0 || at.1 < 0.0 || at.0 >= w || at.1 >= h {
                    drawn.note = Some(format!(
                        "the pointer ({},{}) is outside the captured area: no crosshair or inset drawn",
                        p.0, p.1
                    ));
                } else {
                    if let Some(i) = o.inset {
                        drawn.inset = inset(img, &geo, at, i, reserve);
                        if drawn.inset.is_none() {
                            drawn.note = Some("the image is too small for an inset".into());
                        }
                    }
                    if o.cursor {
                        crosshair(img, &geo, p, at);
                    }
                }
            }
        }
    }
    if let Some((t, dot)) = bar {
        let h = i64::from(img.height()) - tag_size(&t, dot).1;
        tag(img, (0, h), &t, (WHITE, BLACK), dot);
    }
    drawn
}

/// "1280x800 px, scale 0.5, origin 0,0", shortened (then in finer print) to fit the width.
fn banner_text(img: &RgbImage, origin: (i32, i32), scale: f64) -> Option<(String, i64)> {
    let (w, h) = img.dimensions();
    let s = format!("{scale:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    let full = format!("{w}x{h} px, scale {s}, origin {},{}", origin.0, origin.1);
    let options = [
        full,
        format!("{w}x{h} px, scale {s}"),
        format!("{w}x{h} px"),
    ];
    for t in options {
        for dot in [BIG, FINE] {
            let (tw, th) = tag_size(&t, dot);
            if tw <= i64::from(w) && th <= i64::from(h) {
                return Some((t, dot));
            }
        }
    }
    None
}

/// Lines of `lw` pixels (the pointer's pixel at the image's scale) through the pointer, with
/// a black edge so they show on any background, and the label beside them.
fn crosshair(img: &mut RgbImage, geo: &Geo, p: (i32, i32), at: (f64, f64)) {
    let lw = (geo.scale.round() as i64).max(1);
    let (x0, y0) = (at.0.floor() as i64, at.1.floor() as i64);
    for t in [-1, lw] {
        fill(img, x0 + t, y0 - ARM, 1, 2 * ARM + lw, BLACK);
        fill(img, x0 - ARM, y0 + t, 2 * ARM + lw, 1, BLACK);
    }
    fill(img, x0, y0 - ARM, lw, 2 * ARM + lw, CROSS);
    fill(img, x0 - ARM, y0, 2 * ARM + lw, lw, CROSS);
    let s = geo.label(p, at);
    let (tw, th) = tag_size(&s, BIG);
    let (w, h) = (i64::from(img.width()), i64::from(img.height()));
    let mut lx = x0 + lw + 6;
    if lx + tw > w {
        lx = x0 - 6 - tw;
    }
    let mut ly = y0 + lw + 6;
    if ly + th > h {
        ly = y0 - 6 - th;
    }
    tag(img, (lx.max(0), ly.max(0)), &s, (WHITE, BLACK), BIG);
}

/// The magnified inset in the corner diagonally away from the pointer (never over it); None
/// when the image is too small for one.
fn inset(
    img: &mut RgbImage,
    geo: &Geo,
    at: (f64, f64),
    i: Inset,
    reserve: i64,
) -> Option<InsetInfo> {
    let (w, h) = (i64::from(img.width()), i64::from(img.height()));
    let size = i64::from(i.size)
        .min(w / 2 - MARGIN)
        .min(h / 2 - MARGIN - reserve);
    if size < MIN_INSET {
        return None;
    }
    let x0 = if at.0 < (w / 2) as f64 {
        w - MARGIN - size
    } else {
        MARGIN
    };
    let y0 = if at.1 < (h / 2) as f64 {
        h - MARGIN - reserve - size
    } else {
        MARGIN
    };
    let c = size - 2 * BORDER;
    let zoom = f64::from(i.zoom);
    let s = geo.scale;
    // The pointer's screen pixel in the middle; q is the image point at the content's
    // top-left corner.
    let q = [
        at.0 + s / 2.0 - c as f64 / zoom / 2.0,
        at.1 + s / 2.0 - c as f64 / zoom / 2.0,
    ];
    let (ix, iy) = (x0 + BORDER, y0 + BORDER);
    magnify(img, geo, q, zoom, (ix, iy, c));
    let labels = fine_grid(img, geo, q, zoom, (ix, iy, c));
    // The pointer's pixel boxed, the crosshair's arms stopping short of it so it stays seen.
    let half = s * zoom / 2.0;
    let mid = c as f64 / 2.0;
    let (b0, b1) = ((mid - half).floor() as i64 - 1, (mid + half).ceil() as i64);
    let line = mid.floor() as i64;
    for (from, to) in [(0, b0 - 2), (b1 + 3, c)] {
        for t in [-1, 1] {
            fill(img, ix + line + t, iy + from, 1, to - from, BLACK);
            fill(img, ix + from, iy + line + t, to - from, 1, BLACK);
        }
        fill(img, ix + line, iy + from, 1, to - from, CROSS);
        fill(img, ix + from, iy + line, to - from, 1, CROSS);
    }
    outline(
        img,
        ix + b0 - 1,
        iy + b0 - 1,
        ix + b1 + 1,
        iy + b1 + 1,
        BLACK,
    );
    outline(img, ix + b0, iy + b0, ix + b1, iy + b1, CROSS);
    // The labels over the arms: a coordinate must stay readable.
    for ((x, y), s) in labels {
        tag(img, (x, y), &s, (GRID, WHITE), FINE);
    }
    for t in 0..BORDER {
        outline(
            img,
            x0 + t,
            y0 + t,
            x0 + size - 1 - t,
            y0 + size - 1 - t,
            CROSS,
        );
    }
    let step = steps(geo, zoom).0;
    let caption = format!("zoom {}x, grid {step} px", i.zoom);
    let (cw, ch) = tag_size(&caption, FINE);
    // Bottom right: the left edge has the labels.
    if cw <= c {
        tag(
            img,
            (ix + c - cw, iy + c - ch),
            &caption,
            (BLACK, WHITE),
            FINE,
        );
    }
    // The screen area shown, rounded outwards.
    let screen = |q: f64, axis: usize| geo.origin(axis) + q / s;
    let span = c as f64 / zoom;
    let (l, t) = (screen(q[0], 0).floor(), screen(q[1], 1).floor());
    let (r, b) = (screen(q[0] + span, 0).ceil(), screen(q[1] + span, 1).ceil());
    Some(InsetInfo {
        rect: [x0 as u32, y0 as u32, size as u32, size as u32],
        shows: [l as i32, t as i32, (r - l) as i32, (b - t) as i32],
        zoom: i.zoom,
    })
}

/// Copies the captured pixels around `q` into the square `(x, y, side)`, `zoom` times the
/// image's size, nearest pixel (sharp edges show where one pixel ends).
fn magnify(img: &mut RgbImage, geo: &Geo, q: [f64; 2], zoom: f64, (x, y, c): (i64, i64, i64)) {
    // Captured pixels per image pixel (a Retina capture shown at full size: 1).
    let k = geo.cap.scale / geo.scale;
    let (cw, ch) = geo.cap.image.dimensions();
    let src = |q: f64, d: i64, max: u32| {
        let v = ((q + (d as f64 + 0.5) / zoom) * k).floor();
        (v >= 0.0 && v < f64::from(max)).then_some(v as u32)
    };
    for v in 0..c {
        let sy = src(q[1], v, ch);
        for u in 0..c {
            let colour = match (src(q[0], u, cw), sy) {
                (Some(sx), Some(sy)) => *geo.cap.image.get_pixel(sx, sy),
                _ => OUTSIDE,
            };
            crate::paint::put(img, x + u, y + v, colour);
        }
    }
}

/// The inset's (fine, strong) grid steps in label units.
fn steps(geo: &Geo, zoom: f64) -> (i64, i64) {
    STEPS
        .iter()
        .copied()
        .find(|(fine, _)| *fine as f64 * geo.unit() * zoom >= 6.0)
        .unwrap_or(STEPS[STEPS.len() - 1])
}

/// Lines every fine step of label units, stronger every strong step; their labels (where
/// to draw them, and what), along the top and left edges (the fine ones where there is room).
fn fine_grid(
    img: &mut RgbImage,
    geo: &Geo,
    q: [f64; 2],
    zoom: f64,
    (x, y, c): (i64, i64, i64),
) -> Vec<((i64, i64), String)> {
    let mut labels = Vec::new();
    let (fine, strong) = steps(geo, zoom);
    let spacing = fine as f64 * geo.unit() * zoom;
    let span = c as f64 / zoom;
    let range = |axis: usize| (geo.coord(q[axis], axis), geo.coord(q[axis] + span, axis));
    // The left edge's labels are as wide as the longest of them; top labels start past it.
    let (y_from, y_to) = range(1);
    let left = [y_from, y_to]
        .iter()
        .map(|v| tag_size(&format!("{}", v.round()), FINE).0)
        .max()
        .unwrap_or(0);
    let top = tag_size("0", FINE).1;
    for (axis, &edge) in q.iter().enumerate() {
        let (from, to) = range(axis);
        let mut v = (from / fine as f64).ceil() as i64 * fine;
        while (v as f64) < to {
            let pos = ((geo.at(v as f64, axis) - edge) * zoom).round() as i64;
            let major = v % strong == 0;
            if (0..c).contains(&pos) {
                for t in 0..c {
                    let (px, py) = if axis == 0 { (pos, t) } else { (t, pos) };
                    blend(img, x + px, y + py, GRID, if major { 170 } else { 80 });
                }
                let s = v.to_string();
                let (tw, th) = tag_size(&s, FINE);
                if major || spacing >= (if axis == 0 { tw } else { th }) as f64 + 4.0 {
                    if axis == 0 && pos + 2 >= left && pos + 2 + tw <= c {
                        labels.push(((x + pos + 2, y), s));
                    } else if axis == 1 && pos + 2 >= top && pos + 2 + th <= c {
                        labels.push(((x, y + pos + 2), s));
                    }
                }
            }
            v += fine;
        }
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shot::render;

    const BLUE: [u8; 3] = [0, 0, 255];

    /// A white Retina display left of and above the primary one, with the screen pixel at
    /// (-303, -53) blue: captured pixels (194..196, 94..96).
    fn retina() -> Capture {
        let mut image = RgbImage::from_pixel(800, 600, Rgb([255, 255, 255]));
        for (x, y) in [(194, 94), (195, 94), (194, 95), (195, 95)] {
            image.put_pixel(x, y, Rgb(BLUE));
        }
        Capture {
            origin: (-400, -100),
            scale: 2.0,
            image,
        }
    }

    fn inset_only() -> Overlays {
        Overlays {
            inset: Some(Inset::default()),
            ..Overlays::default()
        }
    }

    #[test]
    fn the_inset_magnifies_the_captured_pixels_under_the_pointer() {
        let cap = retina();
        // Shown at one pixel a unit, the blue block is image pixel (97, 47); whatever is
        // drawn over it there (a mark, here green),
        let mut img = render(&cap, 1.0, &[], false);
        img.put_pixel(97, 47, Rgb([0, 255, 0]));
        let drawn = draw(&mut img, &cap, 1.0, Some((-303, -53)), &inset_only(), false);
        // A 400x300 image holds a 146-pixel inset (half the height less the margin), at the
        // bottom right; 142 content pixels, the pointer's pixel 4x4 in their middle (69..73).
        let i = drawn.inset.unwrap();
        assert_eq!(i.rect, [250, 150, 146, 146]);
        assert_eq!(drawn.note, None);
        let (ix, iy) = (250 + BORDER as u32, 150 + BORDER as u32);
        // but the inset takes it from the capture: pure blue, boxed, the box left clear.
        for d in 69..73 {
            assert_eq!(img.get_pixel(ix + d, iy + 70).0, BLUE, "{d}");
        }
        assert_eq!(img.get_pixel(ix + 68, iy + 70).0, CROSS.0, "the box");
        assert_eq!(img.get_pixel(ix + 71, iy + 60).0, CROSS.0, "an arm");
        assert_eq!(img.get_pixel(ix + 60, iy + 66).0, [255; 3], "white around");
        // 142 / 4 = 35.5 units around the pointer pixel's middle, rounded outwards.
        assert_eq!(i.shows, [-321, -71, 37, 37]);
        // Fine lines at screen multiples of 10: x=-310 is image 90, content (90 - 79.75) * 4.
        assert_ne!(img.get_pixel(ix + 41, iy + 60).0, [255; 3]);
        assert_eq!(img.get_pixel(ix + 42, iy + 60).0, [255; 3]);
    }

    #[test]
    fn labels_give_screen_or_image_coordinates() {
        let cap = retina();
        let geo = |coords| Geo {
            cap: &cap,
            scale: 0.5,
            coords,
        };
        let at = geo(Coords::Screen).to_image((-303, -53));
        assert_eq!(at, (48.5, 23.5));
        assert_eq!(geo(Coords::Screen).label((-303, -53), at), "-303,-53");
        assert_eq!(geo(Coords::Image).label((-303, -53), at), "48,23");
        // The line for screen x=-300 is at image 50; for image x=50, too.
        assert_eq!(geo(Coords::Screen).at(-300.0, 0), 50.0);
        assert_eq!(geo(Coords::Image).at(50.0, 0), 50.0);
        assert_eq!(geo(Coords::Screen).coord(50.0, 1), 0.0);
        // Half a pixel a unit, zoom 4: screen lines 10 apart would be 20 pixels apart.
        assert_eq!(steps(&geo(Coords::Screen), 4.0), (10, 50));
        assert_eq!(steps(&geo(Coords::Screen), 1.0), (50, 200));
    }

    #[test]
    fn the_banner_shortens_to_fit() {
        let img = |w, h| RgbImage::new(w, h);
        let full = "1280x800 px, scale 0.5, origin -400,-100";
        assert_eq!(
            banner_text(&img(1280, 800), (-400, -100), 0.5),
            Some((full.into(), BIG))
        );
        assert_eq!(
            banner_text(&img(300, 800), (-400, -100), 0.5).map(|b| b.1),
            Some(FINE)
        );
        assert_eq!(
            banner_text(&img(100, 100), (0, 0), 0.391).unwrap().0,
            "100x100 px"
        );
        assert_eq!(banner_text(&img(10, 10), (0, 0), 1.0), None);
    }

    #[test]
    fn a_small_image_gets_no_inset_but_still_its_crosshair() {
        let cap = Capture::new((0, 0), RgbImage::new(90, 60));
        let mut img = cap.image.clone();
        let o = Overlays {
            cursor: true,
            ..inset_only()
        };
        let drawn = draw(&mut img, &cap, 1.0, Some((20, 20)), &o, false);
        assert_eq!(drawn.inset, None);
        assert!(drawn.note.unwrap().contains("too small"));
        assert_eq!(img.get_pixel(20, 20).0, CROSS.0);
    }
}
