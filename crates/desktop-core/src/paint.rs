//! Drawing on a screenshot: pixels clipped to the image, blends, outlines, fills, and a 5x7
//! bitmap font (digits, the punctuation of coordinates and the few lowercase letters the
//! overlays write). Every label a screenshot carries is drawn with it, so no font file or
//! font library is needed on any platform.

use image::{Rgb, RgbImage};

/// Pixel size of one font dot in ids and grid labels (the overlays' fine print uses 1).
pub(crate) const DOT: i64 = 2;

/// The glyphs, row by row from the top: `#` is a dot. A character without one is drawn as
/// a space.
const GLYPHS: [(char, &str); 30] = [
    ('0', ".###. #...# #..## #.#.# ##..# #...# .###."),
    ('1', "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###."),
    ('2', ".###. #...# ....# ...#. ..#.. .#... #####"),
    ('3', "##### ...#. ..#.. ...#. ....# #...# .###."),
    ('4', "...#. ..##. .#.#. #..#. ##### ...#. ...#."),
    ('5', "##### #.... ####. ....# ....# #...# .###."),
    ('6', "..##. .#... #.... ####. #...# #...# .###."),
    ('7', "##### ....# ...#. ..#.. .#... .#... .#..."),
    ('8', ".###. #...# #...# .###. #...# #...# .###."),
    ('9', ".###. #...# #...# .#### ....# ...#. .##.."),
    ('-', "..... ..... ..... .###. ..... ..... ....."),
    (',', "..... ..... ..... ..... .##.. ..#.. .#..."),
    ('.', "..... ..... ..... ..... ..... .##.. .##.."),
    ('a', "..... ..... .###. ....# .#### #...# .####"),
    ('c', "..... ..... .###. #.... #.... #...# .###."),
    ('d', "....# ....# .##.# #..## #...# #...# .####"),
    ('e', "..... ..... .###. #...# ##### #.... .###."),
    ('g', "..... ..... .#### #...# .#### ....# .###."),
    ('i', "..#.. ..... .##.. ..#.. ..#.. ..#.. .###."),
    ('l', ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###."),
    ('m', "..... ..... ##.#. #.#.# #.#.# #...# #...#"),
    ('n', "..... ..... #.##. ##..# #...# #...# #...#"),
    ('o', "..... ..... .###. #...# #...# #...# .###."),
    ('p', "..... ..... ####. #...# ####. #.... #...."),
    ('r', "..... ..... #.##. ##..# #.... #.... #...."),
    ('s', "..... ..... .#### #.... .###. ....# ####."),
    ('t', ".#... .#... ###.. .#... .#... .#..# ..##."),
    ('u', "..... ..... #...# #...# #...# #..## .##.#"),
    ('x', "..... ..... #...# .#.#. ..#.. .#.#. #...#"),
    ('z', "..... ..... ##### ...#. ..#.. .#... #####"),
];

pub(crate) fn put(img: &mut RgbImage, x: i64, y: i64, c: Rgb<u8>) {
    if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
        img.put_pixel(x as u32, y as u32, c);
    }
}

/// Mixes `c` into the pixel, `alpha` of 256.
pub(crate) fn blend(img: &mut RgbImage, x: i64, y: i64, c: Rgb<u8>, alpha: u16) {
    if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
        let p = img.get_pixel_mut(x as u32, y as u32);
        for i in 0..3 {
            p.0[i] = ((u16::from(p.0[i]) * (256 - alpha) + u16::from(c.0[i]) * alpha) >> 8) as u8;
        }
    }
}

/// A one-pixel rectangle from corner to corner, both included.
pub(crate) fn outline(img: &mut RgbImage, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgb<u8>) {
    if x1 < x0 || y1 < y0 {
        return;
    }
    for x in x0..=x1 {
        put(img, x, y0, c);
        put(img, x, y1, c);
    }
    for y in y0..=y1 {
        put(img, x0, y, c);
        put(img, x1, y, c);
    }
}

pub(crate) fn fill(img: &mut RgbImage, x0: i64, y0: i64, w: i64, h: i64, c: Rgb<u8>) {
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            put(img, x, y, c);
        }
    }
}

/// Width in pixels of `s` drawn with dots of `dot` pixels.
pub(crate) fn text_width(s: &str, dot: i64) -> i64 {
    s.chars().count() as i64 * 6 * dot - dot
}

/// Height in pixels of a line drawn with dots of `dot` pixels.
pub(crate) fn text_height(dot: i64) -> i64 {
    7 * dot
}

/// Draws `s` with its top-left corner at (x, y).
pub(crate) fn text(img: &mut RgbImage, x: i64, y: i64, s: &str, c: Rgb<u8>, dot: i64) {
    for (k, ch) in s.chars().enumerate() {
        let Some((_, rows)) = GLYPHS.iter().find(|(g, _)| *g == ch) else {
            continue;
        };
        let gx = x + k as i64 * 6 * dot;
        for (row, bits) in rows.split(' ').enumerate() {
            for (col, b) in bits.bytes().enumerate() {
                if b == b'#' {
                    fill(
                        img,
                        gx + col as i64 * dot,
                        y + row as i64 * dot,
                        dot,
                        dot,
                        c,
                    );
                }
            }
        }
    }
}

/// `s` on a filled box with a 2-pixel margin, its top-left corner at (x, y); the box's size.
pub(crate) fn tag(
    img: &mut RgbImage,
    (x, y): (i64, i64),
    s: &str,
    (fg, bg): (Rgb<u8>, Rgb<u8>),
    dot: i64,
) -> (i64, i64) {
    let (w, h) = tag_size(s, dot);
    fill(img, x, y, w, h, bg);
    text(img, x + 2, y + 2, s, fg, dot);
    (w, h)
}

/// The size `tag` draws.
pub(crate) fn tag_size(s: &str, dot: i64) -> (i64, i64) {
    (text_width(s, dot) + 4, text_height(dot) + 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_glyph_is_five_by_seven() {
        for (ch, rows) in GLYPHS {
            let rows: Vec<&str> = rows.split(' ').collect();
            assert_eq!(rows.len(), 7, "{ch:?}");
            assert!(
                rows.iter()
                    .all(|r| r.len() == 5 && r.bytes().all(|b| b == b'#' || b == b'.')),
                "{ch:?}"
            );
        }
    }

    #[test]
    fn text_draws_dots_of_the_size_asked() {
        let white = Rgb([255, 255, 255]);
        let mut img = RgbImage::new(40, 20);
        // "1": the top row has one dot, in the middle column.
        text(&mut img, 0, 0, "1", white, 2);
        assert_eq!(img.get_pixel(4, 0).0, white.0);
        assert_eq!(img.get_pixel(5, 1).0, white.0);
        assert_eq!(img.get_pixel(3, 0).0, [0, 0, 0]);
        // A comma sits low; a character without a glyph is a space.
        let mut img = RgbImage::new(40, 20);
        text(&mut img, 0, 0, "?,", white, 1);
        assert_eq!(img.get_pixel(6 + 1, 4).0, white.0);
        assert!((0..5).all(|x| (0..7).all(|y| img.get_pixel(x, y).0 == [0, 0, 0])));
        assert_eq!(text_width("-12,5", 1), 29);
    }
}
