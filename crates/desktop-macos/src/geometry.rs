//! Points and pixels. AX, CGEvent and window bounds work in points, in one space whose
//! origin is the top-left of the main display (a display left of or above it has negative
//! coordinates); captures are in pixels, 2 per point on a Retina display. Pure arithmetic.

use desktop_core::backend::Display;
use desktop_core::Rect;

/// A display as Core Graphics describes it: bounds in points, its mode's width in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RawDisplay {
    pub bounds: (f64, f64, f64, f64),
    pub pixel_width: usize,
    pub main: bool,
}

/// A point rectangle rounded outwards to whole points (a 0.5-point edge stays inside).
pub fn rect(x: f64, y: f64, w: f64, h: f64) -> Rect {
    let (x0, y0) = (x.floor(), y.floor());
    let (x1, y1) = ((x + w).ceil(), (y + h).ceil());
    Rect::new(x0 as i32, y0 as i32, (x1 - x0) as i32, (y1 - y0) as i32)
}

/// The displays in the contract's terms, the main one first; its scale is pixels per point
/// (1 where Core Graphics reports nothing usable).
pub fn displays(raw: &[RawDisplay]) -> Vec<Display> {
    let mut out: Vec<Display> = raw
        .iter()
        .map(|d| {
            let (x, y, w, h) = d.bounds;
            let scale = if w > 0.0 && d.pixel_width > 0 {
                d.pixel_width as f64 / w
            } else {
                1.0
            };
            Display {
                bounds: rect(x, y, w, h),
                scale,
                primary: d.main,
            }
        })
        .collect();
    out.sort_by_key(|d| !d.primary);
    out
}

/// The scale of the display holding most of `area` (a capture is taken at that scale).
pub fn scale_at(displays: &[Display], area: Rect) -> f64 {
    displays
        .iter()
        .map(|d| (overlap(d.bounds, area), d.scale))
        .max_by_key(|(o, _)| *o)
        .filter(|(o, _)| *o > 0)
        .map_or(1.0, |(_, s)| s)
}

fn overlap(a: Rect, b: Rect) -> i64 {
    let w = (a.x + a.w).min(b.x + b.w) - a.x.max(b.x);
    let h = (a.y + a.h).min(b.y + b.h) - a.y.max(b.y);
    if w > 0 && h > 0 {
        i64::from(w) * i64::from(h)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retina_main_display_and_a_plain_one_left_of_it() {
        let raw = [
            RawDisplay {
                bounds: (-1920.0, -180.0, 1920.0, 1080.0),
                pixel_width: 1920,
                main: false,
            },
            RawDisplay {
                bounds: (0.0, 0.0, 1512.0, 982.0),
                pixel_width: 3024,
                main: true,
            },
        ];
        let d = displays(&raw);
        assert!(d[0].primary && d[0].scale == 2.0 && d[0].bounds == Rect::new(0, 0, 1512, 982));
        assert_eq!(d[1].bounds, Rect::new(-1920, -180, 1920, 1080));
        assert_eq!(d[1].scale, 1.0);
        // A window mostly on the left display is captured at its scale.
        assert_eq!(scale_at(&d, Rect::new(-800, 100, 900, 400)), 1.0);
        assert_eq!(scale_at(&d, Rect::new(100, 100, 400, 400)), 2.0);
        // Off every display: one pixel a point.
        assert_eq!(scale_at(&d, Rect::new(5000, 5000, 10, 10)), 1.0);
    }

    #[test]
    fn half_points_round_outwards() {
        assert_eq!(rect(10.5, 20.25, 99.0, 10.0), Rect::new(10, 20, 100, 11));
        assert_eq!(rect(-0.5, 0.0, 1.0, 1.0), Rect::new(-1, 0, 2, 1));
    }
}
