//! Precise-pointing overlays on the real screen: the pointer moved with `hover`, then
//! `screenshot --cursor --inset` decoded: the crosshair on the pointer's pixel, the inset's
//! border where the envelope says, its content the captured pixels around the pointer
//! magnified, and the dimension banner at the bottom edge.

use crate::{Env, Test};
use serde_json::{json, Value};

pub const TESTS: &[(&str, Test)] = &[(
    "overlays::crosshair_inset_and_banner_on_a_real_screen",
    crosshair_inset_banner,
)];

/// The crosshair's colour (core's `overlay::CROSS`).
const CROSS: [u8; 3] = [255, 0, 255];

/// Takes a screenshot into a PNG file, returns the envelope's data and the decoded image.
fn shot(env: &Env, args: &[&str], name: &str) -> (Value, image::RgbImage) {
    let dir = std::env::temp_dir().join(format!("desktop-cli-overlays-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let mut all = vec!["screenshot", "--format", "png", "--output"];
    all.push(path.to_str().unwrap());
    all.extend_from_slice(args);
    let data = env.desk.cli(&all).data();
    let img = image::open(&path).unwrap().to_rgb8();
    let _ = std::fs::remove_dir_all(&dir);
    (data, img)
}

fn crosshair_inset_banner(env: &Env) {
    env.desk.cli(&["focus", "--app", "chromium"]).data();
    let (px, py) = (300u32, 200u32);
    env.desk
        .cli(&["hover", "--x", &px.to_string(), "--y", &py.to_string()])
        .data();
    // The screen as it is, for comparing the inset's content with.
    let (_, plain) = shot(env, &["--scale", "1"], "plain.png");
    let (data, img) = shot(
        env,
        &["--cursor", "--inset", "--scale", "1"],
        "pointing.png",
    );
    assert_eq!(data["pointer"], json!([px, py]), "{data}");
    assert_eq!((img.width(), img.height()), (1280, 800));
    // The crosshair: a line through the pointer's pixel both ways, 24 pixels each side.
    for (x, y) in [
        (px, py),
        (px, py - 20),
        (px, py + 20),
        (px - 20, py),
        (px + 20, py),
    ] {
        assert_eq!(img.get_pixel(x, y).0, CROSS, "crosshair at {x},{y}");
    }
    // The pointer in the top-left quarter: the inset bottom right, 4 pixels from the edge,
    // above the banner's strip (18 pixels and 4).
    let inset = &data["inset"];
    assert_eq!(inset["rect"], json!([1076, 574, 200, 200]), "{data}");
    assert_eq!(inset["zoom"], 4);
    // 196 content pixels at 4 a screen pixel: 49 around the pointer's pixel.
    assert_eq!(inset["shows"], json!([276, 176, 49, 49]));
    let (x0, y0, side) = (1076u32, 574u32, 200u32);
    for (x, y) in [
        (x0, y0 + side / 2),
        (x0 + 1, y0 + side / 2),
        (x0 + side - 1, y0 + 30),
        (x0 + side / 2, y0),
        (x0 + side / 2, y0 + side - 2),
    ] {
        assert_eq!(img.get_pixel(x, y).0, CROSS, "inset border at {x},{y}");
    }
    // Inside, screen pixel (276 + u/4, 176 + v/4) fills content pixel (u, v): checked away
    // from the grid lines (screen multiples of 10), the crosshair and the labels.
    let (cx, cy) = (x0 + 2, y0 + 2);
    for (dx, dy) in [(-8i32, -5i32), (-5, 3), (3, 7), (7, -8), (4, 4)] {
        let (sx, sy) = ((px as i32 + dx) as u32, (py as i32 + dy) as u32);
        let (u, v) = ((sx - 276) * 4 + 1, (sy - 176) * 4 + 1);
        assert_eq!(
            img.get_pixel(cx + u, cy + v).0,
            plain.get_pixel(sx, sy).0,
            "inset content {u},{v} shows screen {sx},{sy}"
        );
    }
    // The banner: white text on black at the bottom-left edge, nothing of it higher up.
    let banner = |img: &image::RgbImage, rows: std::ops::Range<u32>| {
        rows.into_iter()
            .any(|y| (0..380).any(|x| img.get_pixel(x, y).0 == [255; 3]))
            && img.get_pixel(1, img.height() - 1).0 == [0; 3]
    };
    assert!(banner(&img, 800 - 18..800), "banner");
    // At half the pixels the pointer's pixel is image (150, 100).
    let (half, img) = shot(env, &["--cursor", "--scale", "0.5"], "half.png");
    assert_eq!(
        (half["width"].as_u64(), half["scale"].as_f64()),
        (Some(640), Some(0.5))
    );
    assert!(half.get("inset").is_none());
    assert_eq!(img.get_pixel(150, 100).0, CROSS);
    assert_eq!(img.get_pixel(150, 100 - 20).0, CROSS);
    // A bad inset is refused before anything is captured.
    assert_eq!(
        env.desk
            .cli(&["screenshot", "--inset", "--inset-zoom", "40"])
            .error_code(),
        "INVALID_ARGS"
    );
}
