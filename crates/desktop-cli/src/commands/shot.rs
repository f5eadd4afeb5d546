//! `screenshot`: capture, optionally mark elements and draw a grid, encode, and either
//! write the file atomically or return base64 in the envelope.

use base64::Engine;
use desktop_core::request::Element;
use desktop_core::shot::{self, Encoding, Mark};
use desktop_core::watch::ShotRequest;
use desktop_core::{Desktop, Error, ErrorCode, Filters, Rect, Result};
use serde_json::{json, Value};
use std::path::Path;

/// A file that could not be written: `PERM_DENIED` when the system refused, else `ACTION_FAILED`.
fn io_err(what: &str, path: &Path, e: std::io::Error) -> Error {
    let code = if e.kind() == std::io::ErrorKind::PermissionDenied {
        ErrorCode::PermDenied
    } else {
        ErrorCode::ActionFailed
    };
    Error::new(code, format!("{what} {}: {e}", path.display()))
        .suggest("Choose a path in a directory you can write to")
}

/// Fails before anything is captured when the image could not be written there.
fn check_writable(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(Error::invalid_args(format!(
            "{} does not exist (the directory of --output {})",
            dir.display(),
            path.display()
        ))
        .suggest("Create the directory first, or write the image somewhere that exists"));
    }
    if path.is_dir() {
        return Err(
            Error::invalid_args(format!("{} is a directory", path.display()))
                .suggest("Give a file name, e.g. shot.png"),
        );
    }
    let probe = dir.join(format!(".desktop-cli-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| io_err("cannot write to", path, e))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes via a temporary file in the same directory, renamed into place: never half an image.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_file_name(format!(
        ".{}.tmp-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("shot"),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).map_err(|e| io_err("cannot write", &tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err("cannot move the image to", path, e)
    })
}

/// A finished screenshot: its description (`data` without the pixels) and the encoded image.
pub(crate) struct Shot {
    pub meta: Value,
    /// Where the image's pixels are on the screen (what `meta` says as JSON), for callers
    /// that turn image points into screen points.
    #[cfg_attr(not(feature = "agent"), allow(dead_code))]
    pub geometry: Geometry,
    pub bytes: Vec<u8>,
    /// For the faces that return the image itself (MCP, the agent).
    #[cfg_attr(not(any(feature = "mcp", feature = "agent")), allow(dead_code))]
    pub mime: &'static str,
}

/// The image's place on the screen: screen x = origin x + image x / scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Geometry {
    pub origin: (i32, i32),
    pub scale: f64,
    pub width: u32,
    pub height: u32,
}

pub async fn run<D: Desktop>(d: &D, a: &ShotRequest, output: Option<&Path>) -> Result<Value> {
    if let Some(p) = output {
        check_writable(p)?;
    }
    let shot = take(d, a).await?;
    let mut data = shot.meta;
    match output {
        Some(p) => {
            write_atomic(p, &shot.bytes)?;
            // A path need not be UTF-8; the envelope shows it readably.
            data["path"] = json!(p.to_string_lossy());
        }
        None => {
            data["base64"] = json!(base64::engine::general_purpose::STANDARD.encode(&shot.bytes))
        }
    }
    Ok(data)
}

/// Captures, marks and encodes; the scale shrinks further to keep the long edge within
/// `--max-edge`.
pub(crate) async fn take<D: Desktop>(d: &D, a: &ShotRequest) -> Result<Shot> {
    take_with(d, a, None).await
}

/// As `take`, marking the elements of a read the caller already made (the ids it showed).
pub(crate) async fn take_with<D: Desktop>(
    d: &D,
    a: &ShotRequest,
    known: Option<&desktop_core::ReadData>,
) -> Result<Shot> {
    a.validate()?;
    let enc = a.encoding;
    let region = a.region;
    let screen = d.screen().ok_or_else(|| {
        Error::new(ErrorCode::NoDisplay, "there is no screen to capture")
            .suggest("Run inside a desktop session, or start a headless one (sandbox up)")
    })?;
    let scope = &a.target;
    let mut window = None;
    // A window the platform captures itself (covered or not); else raised and its area.
    let mut direct = None;
    let area = if let Some(r) = region {
        r
    } else if let Some(id) = a.id {
        let found = d.find(scope, &Element::Id(id)).await?;
        if let Some(w) = found.window_id {
            d.raise(w)?;
        }
        found.bounds.filter(Rect::is_valid).ok_or_else(|| {
            Error::new(
                ErrorCode::NotInteractable,
                format!("element {id} has no place on screen"),
            )
            .suggest("Scroll it into view first")
        })?
    } else if !scope.is_empty() {
        let w = d.resolve(scope).await?;
        direct = d.capture_window(&w).await?;
        if direct.is_none() {
            if let Some(id) = w.id {
                d.raise(id)?;
            }
        }
        let b = w
            .bounds
            .ok_or_else(|| Error::new(ErrorCode::WindowNotFound, "the window has no bounds"))?;
        window = Some(w);
        b
    } else {
        screen
    };
    let mut marks = Vec::new();
    if a.annotate {
        let filters = Filters {
            interactive: true,
            visible_only: true,
            ..Filters::default()
        };
        let fresh;
        let data = match (known, &window) {
            (Some(k), _) => k,
            (None, w) => {
                fresh = match w {
                    Some(w) => d.read_window(w.clone(), &filters, None).await?,
                    None => d.read(scope, &filters).await?,
                };
                super::read::remember(d, &fresh);
                &fresh
            }
        };
        for n in &data.elements {
            n.walk(&mut |e| {
                if e.is_interactive() {
                    if let Some(b) = e.bounds.filter(|b| b.is_valid() && b.intersects(&area)) {
                        marks.push(Mark { id: e.id, rect: b });
                    }
                }
            });
        }
    }
    let mut capture = match direct {
        Some(c) => c,
        None => d.capture(area).await?,
    };
    for r in &a.hide {
        capture.paint_over(r);
    }
    let (cw, ch) = capture.image.dimensions();
    // `--scale` shrinks the pixels captured (a Retina capture holds 2 a unit); the image's
    // scale is in pixels per screen unit.
    let mut shrink = a.scale;
    if let Some(edge) = a.max_edge {
        let long = f64::from(cw.max(ch));
        if long * shrink > f64::from(edge) {
            shrink = (f64::from(edge) / long).max(0.01);
        }
    }
    let scale = shrink * capture.scale;
    let img = shot::render(&capture, scale, &marks, a.grid);
    let shown = capture.area();
    let bytes = shot::encode(&img, enc)
        .map_err(|e| Error::internal(format!("cannot encode the image: {e}")))?;
    let mut meta = json!({
        "format": if enc == Encoding::Png { "png" } else { "jpg" },
        "width": img.width(),
        "height": img.height(),
        "scale": scale,
        "origin": [capture.origin.0, capture.origin.1],
        "region": [shown.x, shown.y, shown.w, shown.h],
        "bytes": bytes.len(),
    });
    if a.annotate {
        meta["marks"] = json!(marks.len());
    }
    let mime = if enc == Encoding::Png {
        "image/png"
    } else {
        "image/jpeg"
    };
    let geometry = Geometry {
        origin: capture.origin,
        scale,
        width: img.width(),
        height: img.height(),
    };
    Ok(Shot {
        meta,
        geometry,
        bytes,
        mime,
    })
}

#[cfg(test)]
mod tests {
    //! Screenshots on the in-memory desktop with a Retina display left of and above the
    //! primary one: the image keeps the captured pixels, and its geometry maps image points
    //! back to the right screen points.

    use super::*;
    use desktop_core::backend::Display;
    use desktop_core::fake::{block_on, el, refs_file, FakeDesktop};
    use desktop_core::{Role, Target};

    fn desktop(test: &str) -> FakeDesktop {
        let tree = vec![el(Role::Button, "OK", (10, 10, 80, 20), vec![])];
        let d = FakeDesktop::new("demo", "Form", tree, refs_file(test));
        d.set_displays(vec![
            Display {
                bounds: Rect::new(0, 0, 1440, 900),
                scale: 1.0,
                primary: true,
            },
            Display {
                bounds: Rect::new(-800, -100, 800, 600),
                scale: 2.0,
                primary: false,
            },
        ]);
        d
    }

    fn request(region: Rect, scale: f64, max_edge: Option<u32>) -> ShotRequest {
        ShotRequest {
            target: Target::default(),
            id: None,
            region: Some(region),
            encoding: Encoding::Png,
            scale,
            max_edge,
            annotate: false,
            grid: false,
            hide: Vec::new(),
        }
    }

    #[test]
    fn a_retina_region_keeps_its_pixels_and_maps_back_to_the_screen() {
        let d = desktop("shot-retina");
        assert_eq!(d.screen(), Some(Rect::new(-800, -100, 2240, 1000)));
        let shot = block_on(take(
            &d,
            &request(Rect::new(-700, -50, 200, 100), 1.0, None),
        ))
        .unwrap();
        let g = shot.geometry;
        assert_eq!((g.width, g.height), (400, 200));
        assert_eq!((g.origin, g.scale), ((-700, -50), 2.0));
        assert_eq!(shot.meta["region"], json!([-700, -50, 200, 100]));
        // Image (200,100) is screen (-700 + 200/2, -50 + 100/2).
        let to_screen = |px: f64, py: f64| {
            (
                g.origin.0 + (px / g.scale).round() as i32,
                g.origin.1 + (py / g.scale).round() as i32,
            )
        };
        assert_eq!(to_screen(200.0, 100.0), (-600, 0));
        // Shrunk to a 100-pixel edge: a quarter of the pixels, half a pixel a unit.
        let small = block_on(take(
            &d,
            &request(Rect::new(-700, -50, 200, 100), 1.0, Some(100)),
        ))
        .unwrap();
        assert_eq!((small.geometry.width, small.geometry.scale), (100, 0.5));
    }

    #[test]
    fn the_primary_display_stays_one_pixel_a_unit() {
        let d = desktop("shot-primary");
        let shot = block_on(take(&d, &request(Rect::new(100, 50, 300, 200), 0.5, None))).unwrap();
        let g = shot.geometry;
        assert_eq!(
            (g.width, g.height, g.scale, g.origin),
            (150, 100, 0.5, (100, 50))
        );
    }
}
