//! Points and pixels. AX, CGEvent and window bounds work in points, in one space whose
//! origin is the top-left of the main display (a display left of or above it has negative
//! coordinates; AppKit's bottom-left frames are flipped into it); captures are in pixels, 2
//! per point on a Retina display, and a capture spanning displays is put together from each
//! display's piece; each display's work area (what a maximized window fills). Pure
//! arithmetic.

use desktop_core::backend::Display;
use desktop_core::Rect;

/// A display as Core Graphics and AppKit describe it: bounds in points, its mode's width in
/// pixels and refresh rate, the screen's name and the part of it windows are given.
#[derive(Clone, Debug, PartialEq)]
pub struct RawDisplay {
    pub bounds: (f64, f64, f64, f64),
    pub pixel_width: usize,
    pub main: bool,
    /// `NSScreen.localizedName` ("Built-in Retina Display", "DELL U2720Q"); empty where
    /// AppKit was not asked (off the main thread) or has no screen for the display.
    pub name: String,
    /// `CGDisplayModeGetRefreshRate` in Hz: 0 where Core Graphics does not know (some
    /// built-in panels report none).
    pub refresh: f64,
    /// The display less the menu bar and the Dock (`NSScreen.visibleFrame`), in the same
    /// top-left points as `bounds` (see [`flip`]); `None` where AppKit was not asked.
    pub visible: Option<(f64, f64, f64, f64)>,
}

/// Where windows go on one display: its bounds and its visible frame (without the menu bar
/// and the Dock), what `window maximize` fills.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkArea {
    pub display: Rect,
    pub visible: (f64, f64, f64, f64),
}

impl WorkArea {
    /// The visible frame in whole points.
    pub fn visible_rect(&self) -> Rect {
        let (x, y, w, h) = self.visible;
        rect(x, y, w, h)
    }
}

/// The displays whose visible frames AppKit gave.
pub fn work_areas(raw: &[RawDisplay]) -> Vec<WorkArea> {
    raw.iter()
        .filter_map(|d| {
            let (x, y, w, h) = d.bounds;
            Some(WorkArea {
                display: rect(x, y, w, h),
                visible: d.visible?,
            })
        })
        .collect()
}

/// The work area of the display holding a window (its center, else most of it).
pub fn area_of(areas: &[WorkArea], window: Rect) -> Option<&WorkArea> {
    let displays: Vec<Display> = areas
        .iter()
        .map(|a| Display::new(a.display, 1.0, false))
        .collect();
    let d = desktop_core::backend::display_of(&displays, &window)?;
    let i = displays.iter().position(|x| std::ptr::eq(x, d))?;
    areas.get(i)
}

/// A rectangle in AppKit's global coordinates (origin at the bottom-left of the main
/// display, y upwards) in the top-left points of Core Graphics and AX, given the main
/// display's height.
pub fn flip(cocoa: (f64, f64, f64, f64), main_height: f64) -> (f64, f64, f64, f64) {
    let (x, y, w, h) = cocoa;
    (x, main_height - (y + h), w, h)
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
                name: d.name.clone(),
                bounds: rect(x, y, w, h),
                scale,
                primary: d.main,
                // 0 is Core Graphics saying it does not know.
                refresh: Some(d.refresh).filter(|r| r.is_finite() && *r > 0.0),
            }
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

    /// A plain display left of and above a Retina main one, as a Mac reports them.
    fn two() -> [RawDisplay; 2] {
        [
            RawDisplay {
                bounds: (-1920.0, -180.0, 1920.0, 1080.0),
                pixel_width: 1920,
                main: false,
                name: "DELL U2720Q".into(),
                refresh: 60.0,
                // Its own menu bar (25 points), no Dock.
                visible: Some((-1920.0, -155.0, 1920.0, 1055.0)),
            },
            RawDisplay {
                bounds: (0.0, 0.0, 1512.0, 982.0),
                pixel_width: 3024,
                main: true,
                name: "Built-in Retina Display".into(),
                // ProMotion panels report no fixed rate.
                refresh: 0.0,
                // The notch's menu bar (37 points) and a Dock of 64 points.
                visible: Some((0.0, 37.0, 1512.0, 881.0)),
            },
        ]
    }

    #[test]
    fn a_retina_main_display_and_a_plain_one_left_of_it() {
        let raw = two();
        let d = displays(&raw);
        assert!(d[0].primary && d[0].scale == 2.0 && d[0].bounds == Rect::new(0, 0, 1512, 982));
        assert_eq!(d[1].bounds, Rect::new(-1920, -180, 1920, 1080));
        assert_eq!(d[1].scale, 1.0);
        // Names as AppKit gives them; a refresh rate of 0 is none known.
        assert_eq!(d[0].name, "Built-in Retina Display");
        assert_eq!((d[0].refresh, d[1].refresh), (None, Some(60.0)));
        let mut odd = raw[1].clone();
        odd.refresh = f64::NAN;
        assert_eq!(displays(&[odd])[0].refresh, None);
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
    fn appkit_frames_turn_into_top_left_points() {
        // The main display is 982 points high: its visible frame starts 64 points up (the
        // Dock) and ends 37 points below the top (the menu bar).
        assert_eq!(
            flip((0.0, 64.0, 1512.0, 881.0), 982.0),
            (0.0, 37.0, 1512.0, 881.0)
        );
        // A display left of it and higher: its bottom edge, 900 points below the main
        // display's top, is 82 points above the main display's bottom in AppKit's terms.
        assert_eq!(
            flip((-1920.0, 82.0, 1920.0, 1055.0), 982.0),
            (-1920.0, -155.0, 1920.0, 1055.0)
        );
    }

    #[test]
    fn a_window_belongs_to_the_work_area_holding_it() {
        let raw = two();
        let areas = work_areas(&raw);
        assert_eq!(areas.len(), 2);
        let main = area_of(&areas, Rect::new(100, 100, 400, 300)).unwrap();
        assert_eq!(main.visible_rect(), Rect::new(0, 37, 1512, 881));
        // Mostly on the left display.
        let left = area_of(&areas, Rect::new(-900, 100, 1000, 300)).unwrap();
        assert_eq!(left.display, Rect::new(-1920, -180, 1920, 1080));
        assert!(area_of(&areas, Rect::new(9000, 9000, 10, 10)).is_none());
        // AppKit not asked: no work areas at all.
        let mut blind = raw[1].clone();
        blind.visible = None;
        assert!(work_areas(&[blind]).is_empty());
    }

    #[test]
    fn half_points_round_outwards() {
        assert_eq!(rect(10.5, 20.25, 99.0, 10.0), Rect::new(10, 20, 100, 11));
        assert_eq!(rect(-0.5, 0.0, 1.0, 1.0), Rect::new(-1, 0, 2, 1));
    }
}
