//! Screenshots after capture: scaling, the set-of-marks overlay (each element's box and id),
//! the coordinate grid, and PNG/JPEG encoding. Marks and labels are drawn after scaling, at
//! a fixed pixel size, so they stay legible however small the image is. The pointer's
//! overlays are drawn after these (`overlay`); pixels and the font are `paint`'s.

use crate::node::Rect;
use crate::paint::{blend, outline, tag, tag_size, DOT};
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{imageops, ImageEncoder, Rgb, RgbImage};

use crate::jpeg::Banded;

/// A captured part of the screen.
#[derive(Debug, Clone)]
pub struct Capture {
    /// Screen position (in the desktop's units) of the image's top-left pixel.
    pub origin: (i32, i32),
    /// Image pixels per screen unit (2 on a Retina display).
    pub scale: f64,
    pub image: RgbImage,
}

impl Capture {
    /// A capture with one pixel per screen unit.
    pub fn new(origin: (i32, i32), image: RgbImage) -> Capture {
        Capture {
            origin,
            scale: 1.0,
            image,
        }
    }

    /// The screen area the image shows.
    pub fn area(&self) -> Rect {
        let (w, h) = self.image.dimensions();
        let units = |px: u32| (f64::from(px) / self.scale).round() as i32;
        Rect::new(self.origin.0, self.origin.1, units(w), units(h))
    }

    /// Paints a screen rectangle over in flat gray (what it showed must not be seen).
    pub fn paint_over(&mut self, r: &Rect) {
        let (w, h) = self.image.dimensions();
        let s = self.scale;
        let px = |v: i32, o: i32, max: u32| {
            ((f64::from(v - o) * s).round() as i64).clamp(0, i64::from(max)) as u32
        };
        let (x0, y0) = (px(r.x, self.origin.0, w), px(r.y, self.origin.1, h));
        let (x1, y1) = (
            px(r.x + r.w, self.origin.0, w),
            px(r.y + r.h, self.origin.1, h),
        );
        for y in y0..y1 {
            for x in x0..x1 {
                self.image.put_pixel(x, y, Rgb([128, 128, 128]));
            }
        }
    }
}

/// An element to mark: its id and screen bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub id: u32,
    pub rect: Rect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Png,
    Jpeg { quality: u8 },
}

/// Distinct, saturated colours for neighbouring marks.
const PALETTE: [[u8; 3]; 8] = [
    [230, 25, 75],
    [0, 130, 200],
    [60, 160, 40],
    [245, 130, 48],
    [145, 30, 180],
    [0, 128, 128],
    [200, 0, 140],
    [128, 90, 0],
];

const WHITE: Rgb<u8> = Rgb([255, 255, 255]);

/// Scales the capture to `scale` image pixels per screen unit, then draws the grid (screen
/// coordinates) and the marks.
pub fn render(capture: &Capture, scale: f64, marks: &[Mark], grid: bool) -> RgbImage {
    let img = resized(capture, scale).unwrap_or_else(|| capture.image.clone());
    draw_marks(img, capture, scale, marks, grid)
}

/// As `render`, but where the capture is shown at its own size its pixels become the image
/// rather than being copied (a 4K frame is 24 MB): the capture is left with no pixels, its
/// origin and scale kept.
pub fn render_taking(capture: &mut Capture, scale: f64, marks: &[Mark], grid: bool) -> RgbImage {
    let img = match resized(capture, scale) {
        Some(img) => img,
        None => std::mem::take(&mut capture.image),
    };
    draw_marks(img, capture, scale, marks, grid)
}

/// The capture at `scale` image pixels per screen unit; `None` where that is its own size.
fn resized(capture: &Capture, scale: f64) -> Option<RgbImage> {
    let (w, h) = capture.image.dimensions();
    let resize = scale / capture.scale;
    if (resize - 1.0).abs() < 1e-9 {
        return None;
    }
    let sw = ((f64::from(w) * resize).round() as u32).max(1);
    let sh = ((f64::from(h) * resize).round() as u32).max(1);
    Some(scaled(&capture.image, sw, sh))
}

/// Draws the grid and the marks on `img`, the capture rendered at `scale`.
fn draw_marks(
    mut img: RgbImage,
    capture: &Capture,
    scale: f64,
    marks: &[Mark],
    grid: bool,
) -> RgbImage {
    let to_img = |x: i32, y: i32| {
        (
            (f64::from(x - capture.origin.0) * scale).round() as i64,
            (f64::from(y - capture.origin.1) * scale).round() as i64,
        )
    };
    if grid {
        draw_grid(&mut img, capture, scale);
    }
    for (k, m) in marks.iter().enumerate() {
        let color = Rgb(PALETTE[k % PALETTE.len()]);
        let (x0, y0) = to_img(m.rect.x, m.rect.y);
        let (x1, y1) = to_img(m.rect.x + m.rect.w, m.rect.y + m.rect.h);
        for t in 0..2 {
            outline(&mut img, x0 + t, y0 + t, x1 - t - 1, y1 - t - 1, color);
        }
        label(&mut img, x0, y0, &m.id.to_string(), color);
    }
    img
}

/// `img` at `w`×`h`, each output pixel the average of the area it covers (a box filter
/// widened to the scale): `fast_image_resize`'s SIMD convolution, several times faster than
/// `image`'s on screen-sized frames (a 4K screen scaled down cost more than its capture and
/// encoding together), and half the taps of a bilinear one, which made a 4K frame scaled
/// to half slower to take than the whole frame as PNG; `image`'s triangle filter where it
/// refuses the buffer. The output is made in bands of rows, on every core, each resizer
/// reused from band to band, so its intermediate buffer holds one band rather than the
/// frame's height by the output's width: a fresh 12 MB buffer for a 4K frame halved cost
/// more, in its pages' first touch, than the filtering itself.
fn scaled(img: &RgbImage, w: u32, h: u32) -> RgbImage {
    banded(img, w, h).unwrap_or_else(|| imageops::resize(img, w, h, imageops::FilterType::Triangle))
}

/// `scaled`'s convolution in bands; `None` where the resizer refuses a band.
fn banded(img: &RgbImage, w: u32, h: u32) -> Option<RgbImage> {
    use fast_image_resize::{images, FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
    const BAND: usize = 64;
    let row = w as usize * 3;
    let mut out = vec![0u8; row * h as usize];
    // Source rows per output row.
    let step = f64::from(img.height()) / f64::from(h);
    let alg = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Box));
    // The output rows from `first` on, into `part`, band by band.
    let resize = |first: usize, part: &mut [u8]| -> Option<()> {
        let src =
            images::ImageRef::new(img.width(), img.height(), img.as_raw(), PixelType::U8x3).ok()?;
        let mut resizer = Resizer::new();
        for (k, band) in part.chunks_mut(BAND * row).enumerate() {
            let top = (first + k * BAND) as f64 * step;
            let rows = band.len() / row;
            let mut dst =
                images::Image::from_slice_u8(w, rows as u32, band, PixelType::U8x3).ok()?;
            // The last band's source ends at the frame's edge, where rounding would put it
            // a hair past (720 of 780 rows: 746.67 + 33.33 > 780), which the resizer refuses.
            let tall = (rows as f64 * step).min(f64::from(img.height()) - top);
            let opts = alg.crop(0.0, top, f64::from(img.width()), tall);
            resizer.resize(&src, &mut dst, &opts).ok()?;
        }
        Some(())
    };
    let parts = cores();
    let bands = (h as usize).div_ceil(BAND);
    let per = bands.div_ceil(parts) * BAND;
    let done = if parts < 2 || bands < 2 {
        resize(0, &mut out).is_some()
    } else {
        std::thread::scope(|scope| {
            let jobs: Vec<_> = out
                .chunks_mut(per * row)
                .enumerate()
                .map(|(k, part)| scope.spawn(move || resize(k * per, part)))
                .collect();
            jobs.into_iter().all(|j| j.join().ok().flatten().is_some())
        })
    };
    done.then(|| RgbImage::from_raw(w, h, out)).flatten()
}

/// How many threads a frame's work is split across.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// An id tag in the mark's colour at the top-left corner of its box (inside the image).
fn label(img: &mut RgbImage, x: i64, y: i64, s: &str, c: Rgb<u8>) {
    let (w, h) = tag_size(s, DOT);
    let x = x.clamp(0, (i64::from(img.width()) - w).max(0));
    let y = if y - h >= 0 {
        y - h
    } else {
        y.clamp(0, (i64::from(img.height()) - h).max(0))
    };
    tag(img, (x, y), s, (WHITE, c), DOT);
}

/// Lines every 50 screen pixels, stronger every 200, labelled with screen coordinates.
fn draw_grid(img: &mut RgbImage, capture: &Capture, scale: f64) {
    let (w, h) = (i64::from(img.width()), i64::from(img.height()));
    let (ox, oy) = capture.origin;
    // The screen units shown, from the image (the capture may have given it its pixels).
    let units = |px: i64| (px as f64 / scale).round() as i32;
    let (cw, ch) = (units(w), units(h));
    let line = Rgb([255, 0, 0]);
    let first = |o: i32| ((o + 49).div_euclid(50)) * 50;
    let mut sx = first(ox);
    while sx < ox + cw {
        let x = (f64::from(sx - ox) * scale).round() as i64;
        let major = sx % 200 == 0;
        for y in 0..h {
            blend(img, x, y, line, if major { 150 } else { 60 });
        }
        if major {
            tag(img, (x + 2, 0), &sx.to_string(), (line, WHITE), DOT);
        }
        sx += 50;
    }
    let mut sy = first(oy);
    while sy < oy + ch {
        let y = (f64::from(sy - oy) * scale).round() as i64;
        let major = sy % 200 == 0;
        for x in 0..w {
            blend(img, x, y, line, if major { 150 } else { 60 });
        }
        if major && sy != 0 {
            tag(img, (0, y + 2), &sy.to_string(), (line, WHITE), DOT);
        }
        sy += 50;
    }
}

/// Why an image could not be encoded.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    #[error("PNG: {0}")]
    Png(#[from] image::ImageError),
    #[error("JPEG: {0}")]
    Jpeg(#[from] jpeg_encoder::EncodingError),
    #[error("the image is larger than JPEG allows (65535 pixels a side)")]
    TooLarge,
}

/// Encodes as PNG (fast compression: screenshots are big and short-lived) or JPEG
/// (`jpeg-encoder`, about 3.5x faster here than the `image` crate's own encoder, on every
/// core: `jpeg`).
pub fn encode(img: &RgbImage, enc: Encoding) -> Result<Vec<u8>, EncodeError> {
    match enc {
        Encoding::Png => {
            let mut out = Vec::with_capacity(img.len() / 4);
            PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Adaptive)
                .write_image(
                    img.as_raw(),
                    img.width(),
                    img.height(),
                    image::ExtendedColorType::Rgb8,
                )?;
            Ok(out)
        }
        Encoding::Jpeg { quality } => {
            let (w, h) = (u16::try_from(img.width()), u16::try_from(img.height()));
            let (Ok(w), Ok(h)) = (w, h) else {
                return Err(EncodeError::TooLarge);
            };
            let parts = cores();
            Ok(crate::jpeg::encode(img.as_raw(), w, h, quality, parts)?)
        }
    }
}

/// The last frame a series of screenshots encoded, in bands ([`Banded`]): the next frame
/// of the same size encodes only the bands whose pixels changed. The agent keeps one from
/// turn to turn, where an action changes a small part of the window.
#[derive(Default)]
pub struct LastFrame(Option<Banded>);

/// `img` as a JPEG at `quality` in fine bands, reusing `last`'s unchanged bands and leaving
/// this frame in `last`; with how many bands were reused.
pub fn encode_after(
    img: RgbImage,
    quality: u8,
    last: &mut LastFrame,
) -> Result<(Vec<u8>, usize), EncodeError> {
    let (w, h) = (u16::try_from(img.width()), u16::try_from(img.height()));
    let (Ok(w), Ok(h)) = (w, h) else {
        return Err(EncodeError::TooLarge);
    };
    let before = last.0.take();
    let (jpg, kept, reused) =
        Banded::encode(img.into_raw(), w, h, quality, cores(), before.as_ref())?;
    last.0 = Some(kept);
    Ok((jpg, reused))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture() -> Capture {
        Capture::new(
            (100, 50),
            RgbImage::from_pixel(400, 300, Rgb([255, 255, 255])),
        )
    }

    /// A Retina display left of the primary one: 2 pixels a unit, negative coordinates.
    fn retina() -> Capture {
        Capture {
            origin: (-400, -100),
            scale: 2.0,
            image: RgbImage::from_pixel(800, 600, Rgb([255, 255, 255])),
        }
    }

    #[test]
    fn retina_captures_keep_their_pixels_and_map_marks_by_scale() {
        let c = retina();
        assert_eq!(c.area(), Rect::new(-400, -100, 400, 300));
        let mark = Mark {
            id: 3,
            rect: Rect::new(-300, -50, 100, 40),
        };
        // Full resolution: 2 image pixels a unit, the image as captured.
        let img = render(&c, 2.0, &[mark], false);
        assert_eq!(img.dimensions(), (800, 600));
        // Screen (-300,-50) is image ((-300+400)*2, (-50+100)*2) = (200,100).
        assert_eq!(img.get_pixel(200, 100).0, PALETTE[0]);
        assert_eq!(img.get_pixel(399, 179).0, PALETTE[0], "bottom-right corner");
        // One pixel a unit: half the captured size, marks where the units say.
        let small = render(&c, 1.0, &[mark], false);
        assert_eq!(small.dimensions(), (400, 300));
        assert_eq!(small.get_pixel(100, 50).0, PALETTE[0]);
    }

    #[test]
    fn painting_over_covers_screen_units_at_the_capture_scale() {
        let mut c = retina();
        c.paint_over(&Rect::new(-390, -90, 10, 5));
        assert_eq!(c.image.get_pixel(20, 20).0, [128, 128, 128]);
        assert_eq!(c.image.get_pixel(39, 29).0, [128, 128, 128]);
        assert_eq!(c.image.get_pixel(40, 30).0, [255, 255, 255]);
        assert_eq!(c.image.get_pixel(19, 19).0, [255, 255, 255]);
    }

    #[test]
    fn grid_lines_follow_negative_screen_coordinates() {
        let img = render(&retina(), 1.0, &[], true);
        // Screen x=-350 is image x=50 (a minor line), x=-200 (major) image x=200.
        assert_ne!(img.get_pixel(50, 140).0, [255, 255, 255]);
        assert_ne!(img.get_pixel(200, 140).0, [255, 255, 255]);
        assert_eq!(img.get_pixel(75, 140).0, [255, 255, 255]);
    }

    #[test]
    fn marks_land_on_their_elements_after_scaling() {
        let mark = Mark {
            id: 7,
            rect: Rect::new(200, 150, 100, 60),
        };
        let img = render(&capture(), 0.5, &[mark], false);
        assert_eq!(img.dimensions(), (200, 150));
        // Box corner: screen (200,150) is image ((200-100)*0.5, (150-50)*0.5) = (50,50).
        assert_eq!(img.get_pixel(50, 50).0, PALETTE[0]);
        assert_eq!(img.get_pixel(99, 79).0, PALETTE[0], "bottom-right corner");
        assert_eq!(
            img.get_pixel(75, 65).0,
            [255, 255, 255],
            "inside stays clear"
        );
        // The id tag sits just above the box.
        assert_eq!(img.get_pixel(50, 49 - 2).0, PALETTE[0]);
    }

    #[test]
    fn grid_lines_at_screen_multiples_of_50() {
        let img = render(&capture(), 1.0, &[], true);
        // Screen x=150 is image x=50: a minor line; screen x=200 (major) at image x=100.
        assert_ne!(img.get_pixel(50, 140).0, [255, 255, 255]);
        assert_ne!(img.get_pixel(100, 140).0, [255, 255, 255]);
        assert_eq!(
            img.get_pixel(75, 140).0,
            [255, 255, 255],
            "between lines (screen y=190 has none)"
        );
        let minor = img.get_pixel(50, 140).0[1];
        let major = img.get_pixel(100, 140).0[1];
        assert!(major < minor, "major lines are stronger");
    }

    /// The resizer over the whole frame at once, as `scaled` did before it worked in bands.
    fn scaled_whole(img: &RgbImage, w: u32, h: u32) -> RgbImage {
        use fast_image_resize::{images, FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
        let src = images::ImageRef::new(img.width(), img.height(), img.as_raw(), PixelType::U8x3)
            .unwrap();
        let mut dst = images::Image::new(w, h, PixelType::U8x3);
        let opts = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Box));
        Resizer::new().resize(&src, &mut dst, &opts).unwrap();
        RgbImage::from_raw(w, h, dst.into_vec()).unwrap()
    }

    #[test]
    fn scaling_in_bands_matches_scaling_the_whole_frame() {
        // Text-like edges and gradients, so a band taking the wrong source rows would show.
        let img = RgbImage::from_fn(1000, 700, |x, y| {
            let edge = if (x / 3 + y / 5) % 7 == 0 { 200 } else { 0 };
            Rgb([
                (x % 256) as u8 ^ edge,
                (y % 256) as u8,
                ((x * 7 + y * 13) % 256) as u8,
            ])
        });
        // Halved: the same pixels. At 0.4 and 0.73 the bands' source windows are computed
        // from fractional starts; rounding may move a pixel by one step, never more.
        for (w, h, most) in [(500, 350, 0), (400, 280, 1), (730, 511, 1)] {
            let a = banded(&img, w, h).expect("scaled in bands");
            let b = scaled_whole(&img, w, h);
            assert_eq!(a.dimensions(), (w, h));
            let diff = a
                .as_raw()
                .iter()
                .zip(b.as_raw())
                .map(|(p, q)| p.abs_diff(*q))
                .max()
                .unwrap();
            assert!(diff <= most, "{w}x{h}: a pixel differs by {diff}");
        }
    }

    #[test]
    fn every_height_is_scaled_in_bands() {
        // Rounding once put the last band's source past the frame's edge (780 rows to 468:
        // 746.67 + 33.33), and the refused band sent the whole frame to `image`'s resizer,
        // 15 times slower. The bands' cut depends on the heights alone.
        for (from, name) in [(780, "780"), (2160, "2160"), (1117, "1117")] {
            let img = RgbImage::from_fn(8, from, |x, y| Rgb([(x * 30) as u8, (y % 256) as u8, 9]));
            for h in 1..from {
                assert!(banded(&img, 5, h).is_some(), "{name} rows to {h}");
            }
        }
    }

    #[test]
    fn taking_the_pixels_renders_what_copying_does() {
        let mark = Mark {
            id: 7,
            rect: Rect::new(200, 150, 100, 60),
        };
        for (c, scale) in [(capture(), 1.0), (capture(), 0.5), (retina(), 2.0)] {
            let copied = render(&c, scale, &[mark], true);
            let mut taken = c.clone();
            let img = render_taking(&mut taken, scale, &[mark], true);
            assert!(img == copied, "at scale {scale}");
            assert_eq!(taken.origin, c.origin);
        }
    }

    #[test]
    fn encodes_png_and_jpeg() {
        let img = render(&capture(), 1.0, &[], false);
        let png = encode(&img, Encoding::Png).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let jpg = encode(&img, Encoding::Jpeg { quality: 80 }).unwrap();
        assert_eq!(&jpg[..2], &[0xff, 0xd8]);
    }
}
