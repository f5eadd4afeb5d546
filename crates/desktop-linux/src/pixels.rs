//! Which elements drawing really changed: the screen's pixels now against those captured
//! when a kept answer was read (`quiet`), for drawing the answer's boxes alone cannot
//! explain. Toolkits repaint one rectangle around every part that changed (GTK 3 the box
//! around a spinner and a progress bar a window apart, crossing a dozen other elements),
//! and animated windows do so without end; the pixels tell which elements changed in it,
//! and where drawing no element holds comes again and again with nothing changed
//! (`Restless`).

use desktop_core::shot::Capture;
use desktop_core::{Node, Rect};

/// What changed between two captures: the elements holding changed pixels, and the cells
/// ([`CELL`] px squares) of changed pixels none holds and [`Restless`] does not know.
pub struct Changes<'a> {
    pub found: Vec<&'a Node>,
    pub loose: Vec<(i32, i32)>,
}

impl Changes<'_> {
    /// Whether every changed pixel is explained: by an element that holds it, or by
    /// drawing seen there before that changed nothing.
    pub fn explained(&self) -> bool {
        self.loose.is_empty()
    }
}

/// Loose cells gathered in one comparison at most: past that, the drawing is no animation
/// to learn (a scroll, a page) and the rest is not looked at.
const MAX_LOOSE: usize = 2048;

/// The elements of `own` holding every pixel that differs between `before` and `now`
/// inside `rects` (screen coordinates), each once, and the cells of changed pixels that
/// none holds and `restless` has not learned; `None` when a rectangle is not wholly in
/// both captures (nothing to compare with).
pub fn changed_in<'a>(
    own: &[&'a Node],
    rects: &[Rect],
    before: &Capture,
    now: &Capture,
    restless: &Restless,
) -> Option<Changes<'a>> {
    let mut found: Vec<&'a Node> = Vec::new();
    let mut loose: Vec<(i32, i32)> = Vec::new();
    for r in rects {
        if !holds(before, r) || !holds(now, r) {
            return None;
        }
        for y in r.y..r.y + r.h {
            let (a, b) = (row(before, r, y), row(now, r, y));
            if a == b {
                continue;
            }
            let mut x = 0usize;
            while x < a.len() / 3 {
                if a[3 * x..3 * x + 3] == b[3 * x..3 * x + 3] {
                    x += 1;
                    continue;
                }
                // A changed pixel: the elements holding it may have changed, nothing else
                // did here; the rest of the row inside them needs no look.
                let px = r.x + x as i32;
                let mut end = i64::MAX;
                for n in own {
                    let Some(nb) = n.bounds.filter(|nb| nb.contains_point(px, y)) else {
                        continue;
                    };
                    end = end.min(nb.right());
                    if !found.iter().any(|f| std::ptr::eq(*f, *n)) {
                        found.push(n);
                    }
                }
                if end == i64::MAX {
                    // In no element: drawing learned as restless, or loose. Either way the
                    // rest of its cell's row needs no look.
                    let cell = (px.div_euclid(CELL), y.div_euclid(CELL));
                    if !restless.knows(cell) && !loose.contains(&cell) {
                        if loose.len() >= MAX_LOOSE {
                            return Some(Changes { found, loose });
                        }
                        loose.push(cell);
                    }
                    end = i64::from((cell.0 + 1) * CELL);
                }
                x = usize::try_from(end - i64::from(r.x)).ok()?;
            }
        }
    }
    Some(Changes { found, loose })
}

/// The side of a cell of [`Restless`], in pixels: fine enough to pass between elements a
/// few pixels apart (GTK 4's pulsing bar draws in the 6 px between two bars).
pub const CELL: i32 = 2;

/// Where a window draws, again and again, what no element of its answer holds (a spinner
/// the filters drop, a pulse spilling past its bar's box): cells of the window's shown
/// part where changed pixels were seen in two comparisons, each followed by a full read
/// that found the answer as it was. Drawing there needs no element asked again, while no
/// element of the answer that holds nothing else touches the cell (a list scrolled under
/// the spinner lays its rows there; scrolled back, the cell serves again). A window moved
/// or resized forgets it all.
#[derive(Clone, Debug, Default)]
pub struct Restless {
    area: Rect,
    shape: u64,
    /// Cells seen loose once, and those seen twice (learned), as bits over `area`.
    once: Vec<u64>,
    learned: Vec<u64>,
    /// The learned cells no leaf of the last answer touches: those that serve.
    usable: Vec<u64>,
    /// How many cells serve.
    count: usize,
    /// Cells found loose since the answer was read, to learn from once the next full read
    /// finds the answer as it was.
    loose: Vec<(i32, i32)>,
}

impl Restless {
    /// The bit of `cell` in `area`'s bitmaps, if `area` holds it.
    fn bit(&self, (cx, cy): (i32, i32)) -> Option<usize> {
        let (w, h) = (cells(self.area.w), cells(self.area.h));
        let (x, y) = (
            cx - self.area.x.div_euclid(CELL),
            cy - self.area.y.div_euclid(CELL),
        );
        ((0..w).contains(&x) && (0..h).contains(&y)).then(|| (y * w + x) as usize)
    }

    /// Whether drawing in `cell` was learned as restless and needs no element asked.
    pub fn knows(&self, cell: (i32, i32)) -> bool {
        self.bit(cell).is_some_and(|b| {
            self.usable
                .get(b / 64)
                .is_some_and(|w| w & (1 << (b % 64)) != 0)
        })
    }

    /// How many cells were learned and serve with the last answer.
    pub fn learned(&self) -> usize {
        self.count
    }

    /// Keeps `loose` (cells a look found changed and unexplained) for the next full read.
    pub fn found(&mut self, loose: Vec<(i32, i32)>) {
        self.loose = loose;
    }

    /// What is known after a full read of `area` gave an answer of `shape`, with `leaves`
    /// the boxes of its elements that hold nothing else. Where the answer's shape is as it
    /// was, the cells found loose are learned (a second time loose: restless); where it is
    /// not, they are not (that drawing may have been the change). Either way no cell
    /// touching a leaf serves with this answer, and a window moved or resized forgets all.
    /// At most a quarter of `area` is learned.
    pub fn after_read(mut self, area: Rect, shape: u64, leaves: &[Rect]) -> Restless {
        let loose = std::mem::take(&mut self.loose);
        let same = self.area == area && self.shape == shape;
        if self.area != area {
            self = Restless::default();
        }
        (self.area, self.shape) = (area, shape);
        if self.once.is_empty() && (loose.is_empty() || !same) {
            return self;
        }
        let words = ((cells(area.w) * cells(area.h)).max(0) as usize).div_ceil(64);
        self.once.resize(words, 0);
        self.learned.resize(words, 0);
        let blocked = self.touched(leaves);
        let most = words * 64 / 4;
        let mut learned: usize = self.learned.iter().map(|w| w.count_ones() as usize).sum();
        if same {
            let bits: Vec<usize> = loose.into_iter().filter_map(|c| self.bit(c)).collect();
            for b in bits {
                let (word, mask) = (b / 64, 1u64 << (b % 64));
                if learned >= most || blocked[word] & mask != 0 {
                    continue;
                }
                if self.once[word] & mask == 0 {
                    self.once[word] |= mask;
                } else if self.learned[word] & mask == 0 {
                    self.learned[word] |= mask;
                    learned += 1;
                }
            }
        }
        self.usable = self
            .learned
            .iter()
            .zip(&blocked)
            .map(|(l, b)| l & !b)
            .collect();
        self.count = self.usable.iter().map(|w| w.count_ones() as usize).sum();
        self
    }

    /// The cells of the area that `boxes` touch, as bits.
    fn touched(&self, boxes: &[Rect]) -> Vec<u64> {
        let mut bits = vec![0u64; self.once.len()];
        for b in boxes.iter().filter_map(|b| b.intersection(&self.area)) {
            let (x0, x1) = (b.x.div_euclid(CELL), (b.x + b.w - 1).div_euclid(CELL));
            let (y0, y1) = (b.y.div_euclid(CELL), (b.y + b.h - 1).div_euclid(CELL));
            for cy in y0..=y1 {
                for cx in x0..=x1 {
                    if let Some(i) = self.bit((cx, cy)) {
                        bits[i / 64] |= 1 << (i % 64);
                    }
                }
            }
        }
        bits
    }
}

/// Cells across `px` pixels (rounded up, plus one for an edge off the grid).
fn cells(px: i32) -> i32 {
    px / CELL + 2
}

/// Whether `c` holds `r` whole.
fn holds(c: &Capture, r: &Rect) -> bool {
    let (w, h) = (c.image.width(), c.image.height());
    let area = Rect::new(c.origin.0, c.origin.1, w as i32, h as i32);
    r.w > 0 && r.h > 0 && area.contains(r)
}

/// The RGB bytes of row `y` of `c` across `r` (which `c` holds).
fn row<'c>(c: &'c Capture, r: &Rect, y: i32) -> &'c [u8] {
    let width = c.image.width() as usize;
    let (dx, dy) = ((r.x - c.origin.0) as usize, (y - c.origin.1) as usize);
    let start = (dy * width + dx) * 3;
    &c.image.as_raw()[start..start + r.w as usize * 3]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::Addr;
    use image::{Rgb, RgbImage};

    fn el(path: &str, b: Rect) -> Node {
        Node {
            bounds: Some(b),
            handle: desktop_core::Handle::new(format!(":1.1{path}")),
            ..Node::default()
        }
    }

    /// A 100x50 screen at 0,0, grey.
    fn screen() -> RgbImage {
        RgbImage::from_pixel(100, 50, Rgb([200, 200, 200]))
    }

    fn paint(img: &mut RgbImage, r: Rect) {
        for y in r.y..r.y + r.h {
            for x in r.x..r.x + r.w {
                img.put_pixel(x as u32, y as u32, Rgb([0, 0, 255]));
            }
        }
    }

    #[test]
    fn changes_inside_elements_name_them_and_nothing_else() {
        let spinner = el("/spin", Rect::new(10, 10, 10, 10));
        let bar = el("/bar", Rect::new(60, 10, 30, 5));
        let field = el("/field", Rect::new(10, 30, 80, 10));
        let own = [&spinner, &bar, &field];
        let before = Capture::new((0, 0), screen());
        let mut img = screen();
        paint(&mut img, Rect::new(12, 12, 3, 3));
        paint(&mut img, Rect::new(70, 11, 10, 2));
        let now = Capture::new((0, 0), img);
        // One rectangle around both, as the toolkit draws it: the field untouched.
        let drawn = [Rect::new(10, 10, 80, 30)];
        let none = Restless::default();
        let changes = changed_in(&own, &drawn, &before, &now, &none).expect("compared");
        assert!(changes.explained());
        let paths: Vec<_> = changes.found.iter().map(|n| n.handle.path()).collect();
        // (In the order found, row by row: the bar's change starts a row higher.)
        assert_eq!(paths, ["/bar", "/spin"]);
        // Nothing changed: nothing to ask.
        assert_eq!(
            changed_in(&own, &drawn, &before, &before, &none)
                .map(|c| (c.found.len(), c.loose.len())),
            Some((0, 0))
        );
    }

    #[test]
    fn a_change_between_elements_or_outside_a_capture_is_not_explained() {
        let spinner = el("/spin", Rect::new(10, 10, 10, 10));
        let own = [&spinner];
        let none = Restless::default();
        let before = Capture::new((0, 0), screen());
        let mut img = screen();
        // A row scrolled into the space between elements: three cells of it.
        paint(&mut img, Rect::new(40, 20, 5, 1));
        let now = Capture::new((0, 0), img);
        let loose = |c: Option<Changes>| c.map(|c| c.loose);
        assert_eq!(
            loose(changed_in(
                &own,
                &[Rect::new(0, 0, 100, 50)],
                &before,
                &now,
                &none
            )),
            Some(vec![(20, 10), (21, 10), (22, 10)])
        );
        // A pixel just past the spinner's right edge.
        let mut img = screen();
        paint(&mut img, Rect::new(20, 10, 1, 1));
        let now = Capture::new((0, 0), img);
        assert_eq!(
            loose(changed_in(
                &own,
                &[Rect::new(10, 10, 20, 5)],
                &before,
                &now,
                &none
            )),
            Some(vec![(10, 5)])
        );
        // Drawing reaching past what was captured then.
        let small = Capture::new((0, 0), RgbImage::from_pixel(50, 50, Rgb([200, 200, 200])));
        assert!(changed_in(&own, &[Rect::new(40, 0, 20, 5)], &small, &before, &none).is_none());
        // A capture taken elsewhere on the screen lines up by its origin.
        let part = Capture::new((10, 10), RgbImage::from_pixel(10, 10, Rgb([200, 200, 200])));
        assert_eq!(
            changed_in(&own, &[Rect::new(12, 12, 5, 5)], &before, &part, &none)
                .map(|c| (c.found.len(), c.loose.len())),
            Some((0, 0))
        );
    }

    /// A frame of a spinner no element holds, drawn at `turn` (of four) at 60,30.
    fn spun(turn: i32) -> Capture {
        let mut img = screen();
        paint(&mut img, Rect::new(60 + 2 * (turn % 4), 30, 4, 4));
        Capture::new((0, 0), img)
    }

    #[test]
    fn drawing_seen_twice_where_the_answer_stayed_is_learned_and_nothing_else() {
        let field = el("/field", Rect::new(10, 30, 40, 10));
        let own = [&field];
        let area = Rect::new(0, 0, 100, 50);
        let drawn = [Rect::new(10, 28, 70, 12)];
        let leaves = [field.bounds.unwrap()];
        let look = |r: &Restless, a: i32, b: i32| {
            changed_in(&own, &drawn, &spun(a), &spun(b), r).expect("compared")
        };
        // A first full read: nothing known.
        let mut r = Restless::default().after_read(area, 7, &leaves);
        assert!(!look(&r, 0, 1).explained());
        // Loose once, then again after a read that found the answer as it was: learned
        // where seen both times.
        for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 0)] {
            let c = look(&r, a, b);
            r.found(c.loose);
            r = r.after_read(area, 7, &leaves);
        }
        assert!(r.learned() > 0);
        assert!(look(&r, 0, 1).explained());
        // A change in the field is its own still; one elsewhere is loose.
        let mut img = spun(1).image;
        paint(&mut img, Rect::new(20, 32, 3, 3));
        paint(&mut img, Rect::new(30, 5, 3, 3));
        let c = changed_in(&own, &[area], &spun(0), &Capture::new((0, 0), img), &r).unwrap();
        assert_eq!(c.found.len(), 1);
        assert!(!c.explained() && c.loose.iter().all(|&(_, y)| y < 4));
        // An answer of another shape learns nothing from the drawing before it (that may
        // have been the change) and keeps what it learned; with a leaf over the spinner
        // the cells do not serve, and serve again once it is gone; a moved window forgets.
        let mut other = Restless::default().after_read(area, 7, &leaves);
        for shape in [8, 9] {
            other.found(look(&other, 0, 1).loose);
            other = other.after_read(area, shape, &leaves);
        }
        assert_eq!(other.learned(), 0);
        let kept = r.learned();
        assert_eq!(r.clone().after_read(area, 8, &leaves).learned(), kept);
        let over = [Rect::new(58, 28, 20, 10)];
        let covered = r.clone().after_read(area, 8, &over);
        assert_eq!(covered.learned(), 0);
        assert!(!look(&covered, 0, 1).explained());
        assert_eq!(covered.after_read(area, 7, &leaves).learned(), kept);
        let moved = Rect::new(5, 0, 100, 50);
        assert_eq!(r.clone().after_read(moved, 7, &leaves).learned(), 0);
        // Cells touching an element that holds nothing else are never learned.
        let mut beside = Restless::default().after_read(area, 7, &[]);
        let wide = [Rect::new(55, 25, 30, 14)];
        for _ in 0..2 {
            beside.found(look(&beside, 0, 1).loose);
            beside = beside.after_read(area, 7, &wide);
        }
        assert_eq!(beside.learned(), 0);
    }
}
