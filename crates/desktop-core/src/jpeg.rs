//! JPEG encoding across the cores: a large frame is cut into bands of whole MCU rows, each
//! band encoded on its own thread by `jpeg-encoder`, and the bands joined into one baseline
//! JPEG with a restart marker between them. The result is byte for byte what one encoder
//! writes with that restart interval (a unit test holds it to that), so every decoder reads
//! it; a 4K screenshot's encoding is the largest part of its time, and it shrinks with the
//! cores.

use jpeg_encoder::{ColorType, Encoder, EncodingError, SamplingFactor};

/// Frames smaller than this are encoded whole: a thread costs more than it saves.
const MIN_PIXELS: usize = 1 << 18;

/// How a frame is cut: its sampling, the MCU's height in pixels, and the bands' height
/// in MCU rows (also the restart interval's length, in MCU rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    sampling: SamplingFactor,
    mcu_h: usize,
    band_rows: usize,
    /// MCUs between restart markers: one band.
    interval: u16,
}

/// The sampling `jpeg-encoder` picks by itself (4:2:0 below quality 90), set explicitly so
/// the bands' MCUs are known here.
fn sampling(quality: u8) -> (SamplingFactor, usize, usize) {
    if quality < 90 {
        (SamplingFactor::F_2_2, 16, 16)
    } else {
        (SamplingFactor::F_1_1, 8, 8)
    }
}

/// The bands for `parts` threads, or `None` where the frame is better encoded whole (small,
/// a single MCU row, or so wide that one band's MCUs overflow the 16-bit restart interval).
fn plan(width: u16, height: u16, quality: u8, parts: usize) -> Option<Plan> {
    let (sampling, mcu_w, mcu_h) = sampling(quality);
    let (w, h) = (usize::from(width), usize::from(height));
    let cols = w.div_ceil(mcu_w);
    let rows = h.div_ceil(mcu_h);
    if parts < 2 || w * h < MIN_PIXELS || rows < 2 {
        return None;
    }
    let band_rows = rows.div_ceil(parts);
    let interval = u16::try_from(cols * band_rows).ok()?;
    Some(Plan {
        sampling,
        mcu_h,
        band_rows,
        interval,
    })
}

/// `rgb` (`width`×`height`, 3 bytes a pixel) as a baseline JPEG at `quality` (1–100),
/// encoded on up to `parts` threads.
pub fn encode(
    rgb: &[u8],
    width: u16,
    height: u16,
    quality: u8,
    parts: usize,
) -> Result<Vec<u8>, EncodingError> {
    let quality = quality.clamp(1, 100);
    let Some(plan) = plan(width, height, quality, parts) else {
        return whole(rgb, width, height, quality, None);
    };
    let row_bytes = usize::from(width) * 3;
    let band_px = plan.band_rows * plan.mcu_h;
    let bands: Vec<Result<Vec<u8>, EncodingError>> = std::thread::scope(|scope| {
        let jobs: Vec<_> = rgb
            .chunks(band_px * row_bytes)
            .map(|band| {
                let rows = (band.len() / row_bytes) as u16;
                scope.spawn(move || whole(band, width, rows, quality, Some(plan)))
            })
            .collect();
        jobs.into_iter()
            .map(|j| j.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    join(bands.into_iter(), height)
}

/// Bands, each encoded alone with the plan's restart interval, as one baseline JPEG of
/// `height` rows: the first band's headers (its height made the frame's), then each band's
/// coded data after a restart marker.
fn join<B: AsRef<[u8]>>(
    bands: impl ExactSizeIterator<Item = Result<B, EncodingError>>,
    height: u16,
) -> Result<Vec<u8>, EncodingError> {
    let mut out = Vec::new();
    let count = bands.len();
    for (k, band) in bands.enumerate() {
        let band = band?;
        let band = band.as_ref();
        let (height_at, scan) = layout(band).ok_or_else(malformed)?;
        let body = band
            .len()
            .checked_sub(2)
            .filter(|&end| end >= scan && band[end..] == [0xFF, 0xD9])
            .ok_or_else(malformed)?;
        if k == 0 {
            out.reserve(band.len() * count);
            out.extend_from_slice(&band[..body]);
            out[height_at..height_at + 2].copy_from_slice(&height.to_be_bytes());
        } else {
            out.extend_from_slice(&[0xFF, 0xD0 + ((k - 1) % 8) as u8]);
            out.extend_from_slice(&band[scan..body]);
        }
    }
    out.extend_from_slice(&[0xFF, 0xD9]);
    Ok(out)
}

/// MCU rows in a band of a [`Banded`] frame: fine enough that a small change redoes
/// little of the frame, coarse enough that the bands' restart markers cost little.
const FINE_ROWS: usize = 2;

/// A frame encoded in bands of a few MCU rows, kept with the pixels it was encoded from,
/// so that the next frame of the same size and quality encodes only the bands whose pixels
/// changed and reuses the others. The result is byte for byte what encoding the frame in
/// these bands gives, whatever the last frame was. Between an agent's turns most of a
/// window stays as it was.
pub struct Banded {
    width: u16,
    height: u16,
    quality: u8,
    rgb: Vec<u8>,
    bands: Vec<Vec<u8>>,
}

impl Banded {
    /// `rgb` (`width`×`height`, 3 bytes a pixel) as a baseline JPEG at `quality`, the bands
    /// that differ from `last`'s (all of them without it, or where its size or quality
    /// differ) encoded on up to `parts` threads. Returns the JPEG, the frame kept for the
    /// next, and how many bands were reused.
    pub fn encode(
        rgb: Vec<u8>,
        width: u16,
        height: u16,
        quality: u8,
        parts: usize,
        last: Option<&Banded>,
    ) -> Result<(Vec<u8>, Banded, usize), EncodingError> {
        let quality = quality.clamp(1, 100);
        let plan = fine(width, quality).ok_or_else(too_wide)?;
        let last = last.filter(|l| {
            (l.width, l.height, l.quality, l.rgb.len()) == (width, height, quality, rgb.len())
        });
        let news: Vec<&[u8]> = bands_of(&rgb, width, plan).collect();
        let redo: Vec<usize> = match last {
            Some(l) => bands_of(&l.rgb, width, plan)
                .zip(&news)
                .enumerate()
                .filter(|(_, (old, new))| old != *new)
                .map(|(k, _)| k)
                .collect(),
            None => (0..news.len()).collect(),
        };
        let some = |ks: &[usize]| -> Vec<(usize, Result<Vec<u8>, EncodingError>)> {
            ks.iter()
                .map(|&k| {
                    let band = news[k];
                    (
                        k,
                        whole(band, width, rows_of(band, width), quality, Some(plan)),
                    )
                })
                .collect()
        };
        let done = if parts < 2 || redo.len() < 2 {
            some(&redo)
        } else {
            std::thread::scope(|scope| {
                let jobs: Vec<_> = redo
                    .chunks(redo.len().div_ceil(parts))
                    .map(|ks| scope.spawn(move || some(ks)))
                    .collect();
                jobs.into_iter()
                    .flat_map(|j| j.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            })
        };
        let mut bands: Vec<Option<Vec<u8>>> = vec![None; news.len()];
        for (k, band) in done {
            bands[k] = Some(band?);
        }
        let bands: Vec<Vec<u8>> = bands
            .into_iter()
            .enumerate()
            .map(|(k, b)| {
                b.or_else(|| last.map(|l| l.bands[k].clone()))
                    .unwrap_or_default()
            })
            .collect();
        let jpg = join(bands.iter().map(Ok::<_, EncodingError>), height)?;
        let reused = news.len() - redo.len();
        let kept = Banded {
            width,
            height,
            quality,
            rgb,
            bands,
        };
        Ok((jpg, kept, reused))
    }
}

/// The plan of a [`Banded`] frame: bands of [`FINE_ROWS`] MCU rows, whatever the cores.
fn fine(width: u16, quality: u8) -> Option<Plan> {
    let (sampling, mcu_w, mcu_h) = sampling(quality);
    let cols = usize::from(width).div_ceil(mcu_w);
    Some(Plan {
        sampling,
        mcu_h,
        band_rows: FINE_ROWS,
        interval: u16::try_from(cols * FINE_ROWS).ok()?,
    })
}

/// `rgb`'s bands of the plan's height.
fn bands_of(rgb: &[u8], width: u16, plan: Plan) -> std::slice::Chunks<'_, u8> {
    rgb.chunks((plan.band_rows * plan.mcu_h * usize::from(width) * 3).max(1))
}

/// How many rows of `width` pixels a band holds.
fn rows_of(band: &[u8], width: u16) -> u16 {
    (band.len() / (usize::from(width) * 3).max(1)) as u16
}

fn too_wide() -> EncodingError {
    EncodingError::Write("the frame is too wide for bands of its own".into())
}

/// One encoder over the whole of `rgb`, with the plan's sampling and restart interval.
fn whole(
    rgb: &[u8],
    width: u16,
    height: u16,
    quality: u8,
    plan: Option<Plan>,
) -> Result<Vec<u8>, EncodingError> {
    let mut out = Vec::with_capacity(rgb.len() / 8);
    let mut enc = Encoder::new(&mut out, quality);
    if let Some(p) = plan {
        enc.set_sampling_factor(p.sampling);
        enc.set_restart_interval(p.interval);
    }
    enc.encode(rgb, width, height, ColorType::Rgb)?;
    Ok(out)
}

/// Where the frame header's height is and where the scan's coded data begins, walking the
/// segments from the start of image to the start of scan.
fn layout(jpg: &[u8]) -> Option<(usize, usize)> {
    let mut at = 2;
    let mut height_at = None;
    while at + 4 <= jpg.len() {
        if jpg[at] != 0xFF {
            return None;
        }
        let len = usize::from(u16::from_be_bytes([jpg[at + 2], jpg[at + 3]]));
        match jpg[at + 1] {
            // Baseline frame: length, precision, then the height.
            0xC0 => height_at = Some(at + 5),
            0xDA => return Some((height_at?, at + 2 + len)),
            _ => {}
        }
        at += 2 + len;
    }
    None
}

fn malformed() -> EncodingError {
    EncodingError::Write("a band's JPEG was not laid out as expected".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame with detail everywhere (text-like edges and gradients), so every MCU codes
    /// differently and a misplaced band would show.
    fn frame(w: usize, h: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(w * h * 3);
        for y in 0..h {
            for x in 0..w {
                let edge = if (x / 3 + y / 5) % 7 == 0 { 200 } else { 0 };
                v.push((x * 255 / w) as u8 ^ edge);
                v.push((y * 255 / h) as u8);
                v.push(((x * 7 + y * 13) % 256) as u8);
            }
        }
        v
    }

    #[test]
    fn bands_join_into_what_one_encoder_writes() {
        // Heights that end mid-MCU, both samplings, two to five bands.
        for (w, h, q, parts) in [
            (1000, 700, 80, 2),
            (1000, 701, 75, 3),
            (640, 480, 95, 2),
            (1280, 800, 60, 5),
        ] {
            let rgb = frame(w, h);
            let (w16, h16) = (w as u16, h as u16);
            let plan = plan(w16, h16, q, parts).expect("cut into bands");
            let joined = encode(&rgb, w16, h16, q, parts).unwrap();
            let one = whole(&rgb, w16, h16, q, Some(plan)).unwrap();
            assert!(joined == one, "{w}x{h} q{q} in {parts}: the bytes differ");
            let img = image::load_from_memory(&joined).unwrap().to_rgb8();
            assert_eq!(img.dimensions(), (w as u32, h as u32));
        }
    }

    #[test]
    fn small_or_single_core_frames_are_encoded_whole() {
        assert_eq!(plan(400, 300, 80, 2), None);
        assert_eq!(plan(1280, 800, 80, 1), None);
        // 4096 MCUs a row, 32 rows a band: more MCUs than the 16-bit interval holds.
        assert_eq!(plan(65535, 1024, 80, 2), None);
        let rgb = frame(400, 300);
        let a = encode(&rgb, 400, 300, 80, 4).unwrap();
        assert!(a == whole(&rgb, 400, 300, 80, None).unwrap());
    }

    #[test]
    fn a_banded_frame_encodes_again_only_the_bands_that_changed() {
        let (w, h) = (700, 250);
        let old = frame(w, h);
        let (w16, h16) = (w as u16, h as u16);
        for q in [75, 95] {
            let plan = fine(w16, q).unwrap();
            let count = h.div_ceil(plan.band_rows * plan.mcu_h);
            let (first, kept, none) = Banded::encode(old.clone(), w16, h16, q, 2, None).unwrap();
            assert_eq!(none, 0);
            assert!(first == whole(&old, w16, h16, q, Some(plan)).unwrap());
            // Two pixels changed: one in the first band, one in the last (a short band).
            let mut new = old.clone();
            new[5 * w * 3 + 9] ^= 0x40;
            new[((h - 1) * w + w - 1) * 3] ^= 0x40;
            let (bytes, kept, reused) =
                Banded::encode(new.clone(), w16, h16, q, 2, Some(&kept)).unwrap();
            assert_eq!(reused, count - 2, "quality {q}");
            assert!(bytes == whole(&new, w16, h16, q, Some(plan)).unwrap());
            let img = image::load_from_memory(&bytes).unwrap().to_rgb8();
            assert_eq!(img.dimensions(), (w as u32, h as u32));
            // The same frame again reuses every band; the last one kept is the changed one.
            let (same, kept, all) =
                Banded::encode(new.clone(), w16, h16, q, 2, Some(&kept)).unwrap();
            assert_eq!(all, count);
            assert!(same == bytes);
            // Another size, or another quality, is encoded afresh.
            let small = frame(w, h - 20);
            let (fresh, _, none) =
                Banded::encode(small.clone(), w16, h16 - 20, q, 2, Some(&kept)).unwrap();
            assert_eq!(none, 0);
            assert!(fresh == whole(&small, w16, h16 - 20, q, Some(plan)).unwrap());
            let (_, _, none) = Banded::encode(new, w16, h16, q - 1, 2, Some(&kept)).unwrap();
            assert_eq!(none, 0);
        }
    }
}
