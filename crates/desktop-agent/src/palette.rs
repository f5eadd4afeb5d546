//! A frame's 256 colours for `run.gif`, chosen in a few milliseconds: colours are counted
//! at 5 bits a channel; where there are more than 256, the most used stand for themselves
//! (a screenshot's backgrounds and text stay exactly their colour), the rest are split by
//! median cut, and the last few go to the colours still farthest from any chosen, so a small
//! mark of a colour of its own keeps it. Each colour is the mean of the pixels it stands
//! for, and every pixel becomes the nearest one.

/// Bins: 5 bits of each channel.
const BINS: usize = 1 << 15;
/// Palette entries given to the most used colours before the rest are cut into boxes.
const POPULAR: usize = 128;
/// Palette entries kept for the colours farthest from the others chosen.
const FARTHEST: usize = 32;

fn bin(p: &[u8]) -> usize {
    (usize::from(p[0] >> 3) << 10) | (usize::from(p[1] >> 3) << 5) | usize::from(p[2] >> 3)
}

/// The pixels of one bin: how many, and their channels' sums.
#[derive(Clone, Copy, Default)]
struct Tally {
    n: u32,
    sum: [u64; 3],
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.n += o.n;
        for (sum, v) in self.sum.iter_mut().zip(o.sum) {
            *sum += v;
        }
    }

    fn mean(&self) -> [u8; 3] {
        let n = u64::from(self.n.max(1));
        [0, 1, 2].map(|c| ((self.sum[c] + n / 2) / n) as u8)
    }
}

/// An RGB image (3 bytes a pixel) as at most 256 colours (`palette`, 3 bytes each) and one
/// index into them per pixel.
pub struct Indexed {
    pub palette: Vec<u8>,
    pub indices: Vec<u8>,
}

/// `rgb` in at most 256 colours.
pub fn quantize(rgb: &[u8]) -> Indexed {
    let mut tally = vec![Tally::default(); BINS];
    for p in rgb.chunks_exact(3) {
        let t = &mut tally[bin(p)];
        t.n += 1;
        for (sum, &v) in t.sum.iter_mut().zip(p) {
            *sum += u64::from(v);
        }
    }
    let mut used: Vec<usize> = (0..BINS).filter(|&b| tally[b].n > 0).collect();
    let colours: Vec<[u8; 3]> = if used.len() <= 256 {
        used.iter().map(|&b| tally[b].mean()).collect()
    } else {
        used.sort_unstable_by_key(|&b| std::cmp::Reverse(tally[b].n));
        let rest = used.split_off(POPULAR);
        let mut colours: Vec<[u8; 3]> = used.iter().map(|&b| tally[b].mean()).collect();
        let means: Vec<[u8; 3]> = rest.iter().map(|&b| tally[b].mean()).collect();
        colours.extend(median_cut(&tally, rest, 256 - POPULAR - FARTHEST));
        farthest(&mut colours, &means, 256);
        colours
    };
    // Each bin in use becomes its nearest colour; the pixels follow their bins.
    let mut map = vec![0u8; BINS];
    for b in (0..BINS).filter(|&b| tally[b].n > 0) {
        let m = tally[b].mean();
        map[b] = nearest(&colours, m);
    }
    Indexed {
        palette: colours.iter().flatten().copied().collect(),
        indices: rgb.chunks_exact(3).map(|p| map[bin(p)]).collect(),
    }
}

fn distance(a: [u8; 3], b: [u8; 3]) -> i32 {
    (0..3)
        .map(|k| {
            let e = i32::from(a[k]) - i32::from(b[k]);
            e * e
        })
        .sum()
}

fn nearest(colours: &[[u8; 3]], m: [u8; 3]) -> u8 {
    colours
        .iter()
        .enumerate()
        .min_by_key(|(_, c)| distance(**c, m))
        .map_or(0, |(i, _)| i as u8)
}

/// Adds to `colours`, up to `limit`, each time the one of `candidates` farthest from all
/// chosen so far.
fn farthest(colours: &mut Vec<[u8; 3]>, candidates: &[[u8; 3]], limit: usize) {
    let mut gap: Vec<i32> = candidates
        .iter()
        .map(|&m| {
            colours
                .iter()
                .map(|&c| distance(c, m))
                .min()
                .unwrap_or(i32::MAX)
        })
        .collect();
    while colours.len() < limit {
        let Some((i, _)) = gap
            .iter()
            .enumerate()
            .filter(|(_, g)| **g > 0)
            .max_by_key(|(_, g)| **g)
        else {
            break;
        };
        let pick = candidates[i];
        colours.push(pick);
        for (g, &m) in gap.iter_mut().zip(candidates) {
            *g = (*g).min(distance(pick, m));
        }
    }
}

/// `bins` cut into at most `boxes` boxes, each time the box that spans most (in a channel,
/// weighted by its pixels' count) halved at its pixels' median; a box's colour is its mean.
fn median_cut(tally: &[Tally], bins: Vec<usize>, boxes: usize) -> Vec<[u8; 3]> {
    let channel = |b: usize, c: usize| (b >> (10 - 5 * c)) & 31;
    // The channel a box spans most, that span, and the box's pixels.
    let measure = |bx: &[usize]| -> (usize, usize, u64) {
        let mut span = (0, 0);
        for c in 0..3 {
            let lo = bx.iter().map(|&b| channel(b, c)).min().unwrap_or(0);
            let hi = bx.iter().map(|&b| channel(b, c)).max().unwrap_or(0);
            if hi - lo > span.1 {
                span = (c, hi - lo);
            }
        }
        let n = bx.iter().map(|&b| u64::from(tally[b].n)).sum();
        (span.0, span.1, n)
    };
    let mut all = vec![bins];
    while all.len() < boxes {
        let Some((i, c)) = all
            .iter()
            .enumerate()
            .map(|(i, bx)| (i, measure(bx)))
            .filter(|(_, (_, span, _))| *span > 0)
            .max_by_key(|(_, (_, span, n))| *span as u64 * n)
            .map(|(i, (c, _, _))| (i, c))
        else {
            break;
        };
        let mut bx = all.swap_remove(i);
        bx.sort_unstable_by_key(|&b| channel(b, c));
        let half: u64 = bx.iter().map(|&b| u64::from(tally[b].n)).sum::<u64>() / 2;
        let mut seen = 0;
        // At the median, but never leaving a side empty.
        let mut cut = bx.len() - 1;
        for (k, &b) in bx.iter().enumerate() {
            seen += u64::from(tally[b].n);
            if seen >= half {
                cut = (k + 1).clamp(1, bx.len() - 1);
                break;
            }
        }
        let upper = bx.split_off(cut);
        all.push(bx);
        all.push(upper);
    }
    all.iter()
        .map(|bx| {
            let mut t = Tally::default();
            for &b in bx {
                t.add(&tally[b]);
            }
            t.mean()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn colour(q: &Indexed, i: usize) -> [u8; 3] {
        let k = usize::from(q.indices[i]) * 3;
        [q.palette[k], q.palette[k + 1], q.palette[k + 2]]
    }

    #[test]
    fn few_colours_stay_exact() {
        let px: Vec<u8> = [[250, 250, 250], [30, 30, 30], [0, 120, 215]]
            .iter()
            .cycle()
            .take(3000)
            .flatten()
            .copied()
            .collect();
        let q = quantize(&px);
        assert_eq!(q.palette.len(), 9);
        for i in 0..1000 {
            assert_eq!(&colour(&q, i)[..], &px[i * 3..i * 3 + 3]);
        }
    }

    #[test]
    fn many_colours_come_near_and_a_small_mark_keeps_its_own() {
        // A smooth gradient over 64k colours, a flat background, and a 3x3 red mark.
        let (w, h) = (256usize, 256usize);
        let mut px = Vec::with_capacity(w * h * 3);
        for y in 0..h {
            for x in 0..w {
                let p = if y < 64 {
                    [240, 240, 240]
                } else {
                    [x as u8, y as u8, ((x + y) / 2) as u8]
                };
                px.extend(p);
            }
        }
        for y in 30..33 {
            for x in 30..33 {
                let i = (y * w + x) * 3;
                px[i..i + 3].copy_from_slice(&[230, 20, 20]);
            }
        }
        let q = quantize(&px);
        assert!(q.palette.len() <= 768);
        assert_eq!(colour(&q, 0), [240, 240, 240]);
        assert_eq!(colour(&q, 31 * w + 31), [230, 20, 20]);
        let worst = (0..w * h)
            .map(|i| {
                let c = colour(&q, i);
                (0..3)
                    .map(|k| (i32::from(c[k]) - i32::from(px[i * 3 + k])).abs())
                    .max()
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0);
        assert!(worst <= 20, "a pixel off by {worst} in a channel");
    }

    #[test]
    fn a_flat_frame_is_one_colour_that_a_gif_holds() {
        let px = vec![7u8; 30 * 20 * 3];
        let q = quantize(&px);
        assert_eq!(q.palette.len(), 3);
        let mut f = gif::Frame {
            width: 30,
            height: 20,
            buffer: q.indices.into(),
            palette: Some(q.palette),
            ..gif::Frame::default()
        };
        f.make_lzw_pre_encoded();
        let mut out = Vec::new();
        {
            let mut e = gif::Encoder::new(&mut out, 30, 20, &[]).unwrap();
            e.write_lzw_pre_encoded_frame(&f).unwrap();
        }
        let mut o = gif::DecodeOptions::new();
        o.set_color_output(gif::ColorOutput::RGBA);
        let mut d = o.read_info(&out[..]).unwrap();
        let fr = d.read_next_frame().unwrap().unwrap();
        assert_eq!(&fr.buffer[..4], &[7, 7, 7, 255]);
    }
}
