//! Points and pixels. AX, CGEvent and window bounds work in points, in one space whose
//! origin is the top-left of the main display (a display left of or above it has negative
//! coordinates); captures are in pixels, 2 per point on a Retina display, and a capture
//! spanning displays is put together from each display's piece. Pure arithmetic.

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
            Display::new(rect(x, y, w, h), scale, d.main)
        })
        .collect();
    out.sort_by_key(|d| !d.primary);
    out
}

/// The scale of the display holding most of `area`: a capture is taken at that scale, the
/// pieces of other displays it spans scaled to it (the contract gives a capture one scale).
pub fn scale_at(displays: &[Display], area: Rect) -> f64 {
    displays
        .iter()
        .map(|d| (overlap(d.bounds, area), d.scale))
        .max_by_key(|(o, _)| *o)
        .filter(|(o, _)| *o > 0)
        .map_or(1.0, |(_, s)| s)
}

fn overlap(a: Rect, b: Rect) -> i64 {
    a.intersection(&b)
        .map_or(0, |r| i64::from(r.w) * i64::from(r.h))
}

/// One display's share of a capture: the points it shows of the area (in the global space)
/// and where its pixels go in the output image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Index of the display in the list given to [`layout`].
    pub display: usize,
    /// The part of the area on that display, in global points.
    pub source: Rect,
    /// The piece's top-left pixel in the output.
    pub at: (u32, u32),
    /// The piece's size in output pixels (the display's own pixels scaled to the output's).
    pub size: (u32, u32),
}

/// How a capture of `area` at `scale` pixels per point is put together from the displays
/// (their bounds in points) it touches: the output's size in pixels and one piece per
/// display overlapping the area. Each piece's edges are the area's edges scaled and rounded
/// the same way, so neighbouring displays meet without a gap or an overlap of pixels; what
/// lies between or beside displays is on none and stays black. Mirrored displays (the same
/// bounds) give the same pixels twice, which paint over each other harmlessly.
pub fn layout(displays: &[Rect], area: Rect, scale: f64) -> ((u32, u32), Vec<Piece>) {
    // Pixels from the area's origin to a global coordinate `v` along one axis.
    let px = |v: i64, origin: i32, max: u32| -> u32 {
        let p = ((v - i64::from(origin)) as f64 * scale).round();
        p.clamp(0.0, f64::from(max)) as u32
    };
    let edge = |units: i32| -> u32 {
        (f64::from(units.max(0)) * scale)
            .round()
            .clamp(0.0, f64::from(u32::MAX)) as u32
    };
    let size = (edge(area.w), edge(area.h));
    if !(scale.is_finite() && scale > 0.0) || size.0 == 0 || size.1 == 0 {
        return ((0, 0), Vec::new());
    }
    let pieces = displays
        .iter()
        .enumerate()
        .filter_map(|(display, d)| {
            let source = d.intersection(&area)?;
            let (x0, y0) = (
                px(i64::from(source.x), area.x, size.0),
                px(i64::from(source.y), area.y, size.1),
            );
            let (x1, y1) = (
                px(source.right(), area.x, size.0),
                px(source.bottom(), area.y, size.1),
            );
            // A sliver thinner than half an output pixel has nothing to show.
            (x1 > x0 && y1 > y0).then_some(Piece {
                display,
                source,
                at: (x0, y0),
                size: (x1 - x0, y1 - y0),
            })
        })
        .collect();
    (size, pieces)
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
    fn an_area_inside_one_display_is_one_piece() {
        let displays = [
            Rect::new(0, 0, 1512, 982),
            Rect::new(-1920, -180, 1920, 1080),
        ];
        let (size, pieces) = layout(&displays, Rect::new(10, 10, 100, 50), 2.0);
        assert_eq!(size, (200, 100));
        assert_eq!(
            pieces,
            vec![Piece {
                display: 0,
                source: Rect::new(10, 10, 100, 50),
                at: (0, 0),
                size: (200, 100),
            }]
        );
    }

    #[test]
    fn the_whole_screen_takes_every_display_at_its_place() {
        // A plain display left of and above a Retina main one, captured at scale 1.
        let displays = [
            Rect::new(0, 0, 1512, 982),
            Rect::new(-1920, -180, 1920, 1080),
        ];
        let screen = Rect::new(-1920, -180, 3432, 1162);
        let (size, pieces) = layout(&displays, screen, 1.0);
        assert_eq!(size, (3432, 1162));
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0].source, Rect::new(0, 0, 1512, 982));
        assert_eq!((pieces[0].at, pieces[0].size), ((1920, 180), (1512, 982)));
        assert_eq!(pieces[1].source, Rect::new(-1920, -180, 1920, 1080));
        assert_eq!((pieces[1].at, pieces[1].size), ((0, 0), (1920, 1080)));
    }

    #[test]
    fn neighbouring_pieces_meet_without_a_gap_at_any_scale() {
        let displays = [Rect::new(0, 0, 1001, 700), Rect::new(1001, 0, 999, 700)];
        for scale in [1.0, 1.5, 2.0, 0.37, 3.0] {
            let (size, pieces) = layout(&displays, Rect::new(500, 100, 1001, 300), scale);
            assert_eq!(pieces.len(), 2, "scale {scale}");
            let (a, b) = (pieces[0], pieces[1]);
            assert_eq!(a.at.0, 0);
            assert_eq!(a.at.0 + a.size.0, b.at.0, "scale {scale}");
            assert_eq!(b.at.0 + b.size.0, size.0, "scale {scale}");
            assert_eq!((a.size.1, b.size.1), (size.1, size.1));
        }
    }

    #[test]
    fn what_no_display_holds_has_no_piece() {
        let displays = [Rect::new(0, 0, 800, 600)];
        // Partly off the display: the piece is the part on it, the rest stays black.
        let (size, pieces) = layout(&displays, Rect::new(700, 500, 200, 200), 2.0);
        assert_eq!(size, (400, 400));
        assert_eq!(pieces[0].source, Rect::new(700, 500, 100, 100));
        assert_eq!((pieces[0].at, pieces[0].size), ((0, 0), (200, 200)));
        // Off every display, empty, or at a scale that makes no sense: nothing.
        assert!(layout(&displays, Rect::new(5000, 0, 10, 10), 1.0)
            .1
            .is_empty());
        assert_eq!(
            layout(&displays, Rect::new(0, 0, 0, 10), 1.0),
            ((0, 0), vec![])
        );
        assert_eq!(
            layout(&displays, Rect::new(0, 0, 10, 10), f64::NAN).0,
            (0, 0)
        );
        assert_eq!(layout(&displays, Rect::new(0, 0, 10, 10), -1.0).0, (0, 0));
        // Extreme coordinates do not overflow.
        let far = Rect::new(i32::MAX - 5, i32::MAX - 5, i32::MAX, i32::MAX);
        assert!(layout(&displays, far, 2.0).1.is_empty());
        assert_eq!(scale_at(&[], far), 1.0);
    }

    #[test]
    fn half_points_round_outwards() {
        assert_eq!(rect(10.5, 20.25, 99.0, 10.0), Rect::new(10, 20, 100, 11));
        assert_eq!(rect(-0.5, 0.0, 1.0, 1.0), Rect::new(-1, 0, 2, 1));
    }
}
