//! Which elements drawing really changed: the screen's pixels now against those captured
//! when a kept answer was read (`quiet`), for drawing the answer's boxes alone cannot
//! explain. Toolkits repaint one rectangle around every part that changed (GTK 3 the box
//! around a spinner and a progress bar a window apart, crossing a dozen other elements),
//! and animated windows do so without end; the pixels tell which elements changed in it.

use desktop_core::shot::Capture;
use desktop_core::{Node, Rect};

/// The elements of `own` holding every pixel that differs between `before` and `now`
/// inside `rects` (screen coordinates), each once; `None` when a changed pixel lies in
/// none of them, or a rectangle is not wholly in both captures (nothing to compare with).
pub fn changed_in<'a>(
    own: &[&'a Node],
    rects: &[Rect],
    before: &Capture,
    now: &Capture,
) -> Option<Vec<&'a Node>> {
    let mut found: Vec<&'a Node> = Vec::new();
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
                    return None;
                }
                x = usize::try_from(end - i64::from(r.x)).ok()?;
            }
        }
    }
    Some(found)
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
        let found = changed_in(&own, &drawn, &before, &now).expect("explained");
        let paths: Vec<_> = found.iter().map(|n| n.handle.path()).collect();
        // (In the order found, row by row: the bar's change starts a row higher.)
        assert_eq!(paths, ["/bar", "/spin"]);
        // Nothing changed: nothing to ask.
        assert_eq!(
            changed_in(&own, &drawn, &before, &before).map(|v| v.len()),
            Some(0)
        );
    }

    #[test]
    fn a_change_between_elements_or_outside_a_capture_is_not_explained() {
        let spinner = el("/spin", Rect::new(10, 10, 10, 10));
        let own = [&spinner];
        let before = Capture::new((0, 0), screen());
        let mut img = screen();
        // A row scrolled into the space between elements.
        paint(&mut img, Rect::new(40, 20, 5, 1));
        let now = Capture::new((0, 0), img);
        assert!(changed_in(&own, &[Rect::new(0, 0, 100, 50)], &before, &now).is_none());
        // A pixel just past the spinner's right edge.
        let mut img = screen();
        paint(&mut img, Rect::new(20, 10, 1, 1));
        let now = Capture::new((0, 0), img);
        assert!(changed_in(&own, &[Rect::new(10, 10, 20, 5)], &before, &now).is_none());
        // Drawing reaching past what was captured then.
        let small = Capture::new((0, 0), RgbImage::from_pixel(50, 50, Rgb([200, 200, 200])));
        assert!(changed_in(&own, &[Rect::new(40, 0, 20, 5)], &small, &before).is_none());
        // A capture taken elsewhere on the screen lines up by its origin.
        let part = Capture::new((10, 10), RgbImage::from_pixel(10, 10, Rgb([200, 200, 200])));
        assert_eq!(
            changed_in(&own, &[Rect::new(12, 12, 5, 5)], &before, &part).map(|v| v.len()),
            Some(0)
        );
    }
}
