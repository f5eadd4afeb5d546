//! The monitors of the X screen from RandR: its monitors (1.5, which include those defined
//! with `xrandr --setmonitor`), else its active CRTCs (1.3), else the whole root window.
//! Never an error: a server without RandR (or one that refuses a request) is one display.

use crate::x11::X;
use desktop_core::backend::Display;
use desktop_core::Rect;
use x11rb::protocol::randr::ConnectionExt as _;
use x11rb::protocol::xproto::ConnectionExt as _;

/// Where the list of displays came from (doctor says it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Monitors,
    Crtcs,
    Root,
}

impl Source {
    pub fn describe(self) -> &'static str {
        match self {
            Source::Monitors => "RandR monitors",
            Source::Crtcs => "RandR CRTCs",
            Source::Root => "the root window (no RandR)",
        }
    }
}

impl X {
    /// The displays, the primary one first.
    pub fn displays(&self) -> Vec<Display> {
        self.displays_from().0
    }

    /// The displays and where they came from. Asked anew on every call (a few round trips),
    /// so monitors plugged in or moved since connecting are seen; a long-lived process
    /// keeps the answer while the server tells of no change (`tops::Tops::displays`).
    pub fn displays_from(&self) -> (Vec<Display>, Source) {
        let version = self.randr_version();
        if version >= Some((1, 5)) {
            if let Some(d) = self.monitors().filter(|d| !d.is_empty()) {
                return (arrange(d), Source::Monitors);
            }
        }
        if version >= Some((1, 3)) {
            if let Some(d) = self.crtcs().filter(|d| !d.is_empty()) {
                return (arrange(d), Source::Crtcs);
            }
        }
        (
            vec![Display {
                name: "screen".into(),
                refresh: None,
                bounds: self.screen,
                // X11 has no per-monitor scale: every monitor shows the root window's
                // pixels one to one (toolkits scale their own drawing, Xft.dpi and
                // GDK_SCALE, which the server never hears of).
                scale: 1.0,
                primary: true,
            }],
            Source::Root,
        )
    }

    /// Splits the screen into `n` displays side by side, each `w` by `h` (RandR monitors
    /// named VIRTUAL-1, VIRTUAL-2, ...; the first primary and holding the server's output,
    /// so the output's own monitor gives way to it). For sandboxes: Xvfb has one output.
    pub fn split_screen(&self, n: u32, w: u32, h: u32) -> desktop_core::Result<()> {
        use crate::x11::x_err;
        use x11rb::connection::Connection as _;
        use x11rb::protocol::randr::MonitorInfo;
        if self.randr_version() < Some((1, 5)) {
            return Err(desktop_core::Error::new(
                desktop_core::ErrorCode::SandboxFailed,
                "the X server has no RandR 1.5 monitors to split its screen into",
            ));
        }
        let output = self
            .conn
            .randr_get_screen_resources_current(self.root)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?
            .outputs
            .first()
            .copied();
        for i in 0..n {
            let name = self.atom(&format!("VIRTUAL-{}", i + 1))?;
            let (x, width, height) = (i * w, w, h);
            let monitor = MonitorInfo {
                name,
                primary: i == 0,
                automatic: false,
                x: i16::try_from(x)
                    .map_err(|_| desktop_core::Error::invalid_args("screen too wide"))?,
                y: 0,
                width: width as u16,
                height: height as u16,
                // Millimetres at 96 dpi.
                width_in_millimeters: width * 254 / 960,
                height_in_millimeters: height * 254 / 960,
                outputs: if i == 0 {
                    output.into_iter().collect()
                } else {
                    Vec::new()
                },
            };
            self.conn
                .randr_set_monitor(self.root, monitor)
                .map_err(x_err)?
                .check()
                .map_err(x_err)?;
        }
        self.conn.flush().map_err(x_err)?;
        Ok(())
    }

    /// The RandR version the server speaks with us, asked once per connection: `None`
    /// without the extension. The protocol has a client say which version it speaks
    /// before anything else, and which requests exist depends on the answer.
    fn randr_version(&self) -> Option<(u32, u32)> {
        *self.randr.get_or_init(|| {
            let reply = self.conn.randr_query_version(1, 6).ok()?.reply().ok()?;
            Some((reply.major_version, reply.minor_version))
        })
    }

    /// RandR 1.5 monitors, active ones only (a monitor whose outputs are all off has no
    /// size), named by the server (an output's name, or the one `--setmonitor` gave). The
    /// server lists the primary one first. Each gets the refresh rate of the CRTC showing it.
    fn monitors(&self) -> Option<Vec<Display>> {
        let monitors = self.conn.randr_get_monitors(self.root, true).ok()?;
        let crtcs = self.active_crtcs();
        let reply = monitors.reply().ok()?;
        let names: Vec<_> = reply
            .monitors
            .iter()
            .map(|m| self.conn.get_atom_name(m.name).ok())
            .collect();
        Some(
            reply
                .monitors
                .iter()
                .zip(names)
                .map(|(m, name)| {
                    let mut d = display(m.x, m.y, m.width, m.height, m.primary);
                    d.name = name
                        .and_then(|c| c.reply().ok())
                        .map(|n| String::from_utf8_lossy(&n.name).into_owned())
                        .unwrap_or_default();
                    d.refresh = refresh_at(&crtcs, &d.bounds);
                    d
                })
                .collect(),
        )
    }

    /// Active CRTCs (what RandR 1.2–1.4 clients took for monitors), named by their first
    /// output; primary is the CRTC showing the primary output.
    fn crtcs(&self) -> Option<Vec<Display>> {
        let primary = self.conn.randr_get_output_primary(self.root).ok()?;
        let crtcs = self.active_crtcs();
        let primary = primary.reply().ok().map(|p| p.output).filter(|o| *o != 0);
        let names: Vec<_> = crtcs
            .iter()
            .map(|c| {
                c.outputs
                    .first()
                    .and_then(|&o| self.conn.randr_get_output_info(o, 0).ok())
            })
            .collect();
        Some(
            crtcs
                .iter()
                .zip(names)
                .map(|(c, name)| {
                    let on_primary = primary.is_some_and(|p| c.outputs.contains(&p));
                    let b = c.bounds;
                    Display {
                        name: name
                            .and_then(|n| n.reply().ok())
                            .map(|n| String::from_utf8_lossy(&n.name).into_owned())
                            .unwrap_or_default(),
                        bounds: b,
                        scale: 1.0,
                        primary: on_primary,
                        refresh: c.refresh,
                    }
                })
                .collect(),
        )
    }

    /// The CRTCs showing something, with their outputs and refresh rates; every request
    /// sent before the first reply is read. Empty without RandR 1.3.
    fn active_crtcs(&self) -> Vec<Crtc> {
        let Some(resources) = self
            .conn
            .randr_get_screen_resources_current(self.root)
            .ok()
            .and_then(|c| c.reply().ok())
        else {
            return Vec::new();
        };
        let pending: Vec<_> = resources
            .crtcs
            .iter()
            .filter_map(|&c| {
                self.conn
                    .randr_get_crtc_info(c, resources.config_timestamp)
                    .ok()
            })
            .collect();
        pending
            .into_iter()
            // A CRTC that went away meanwhile answers with an error: skip it.
            .filter_map(|c| c.reply().ok())
            .filter(|c| c.mode != 0 && !c.outputs.is_empty())
            .map(|c| Crtc {
                bounds: Rect::new(
                    i32::from(c.x),
                    i32::from(c.y),
                    i32::from(c.width),
                    i32::from(c.height),
                ),
                outputs: c.outputs.clone(),
                refresh: resources
                    .modes
                    .iter()
                    .find(|m| m.id == c.mode)
                    .and_then(|m| hertz(m.dot_clock, m.htotal, m.vtotal)),
            })
            .collect()
    }
}

/// An active CRTC: where it shows, through which outputs, how often a second.
struct Crtc {
    bounds: Rect,
    outputs: Vec<u32>,
    refresh: Option<f64>,
}

/// A mode's refresh rate in Hz, to two decimals (a 59.94 Hz mode is not 60).
fn hertz(dot_clock: u32, htotal: u16, vtotal: u16) -> Option<f64> {
    let dots = f64::from(htotal) * f64::from(vtotal);
    (dot_clock > 0 && dots > 0.0).then(|| (f64::from(dot_clock) / dots * 100.0).round() / 100.0)
}

/// The refresh rate of the CRTC showing the most of `area`.
fn refresh_at(crtcs: &[Crtc], area: &Rect) -> Option<f64> {
    crtcs
        .iter()
        .filter_map(|c| {
            let i = c.bounds.intersection(area)?;
            Some((i64::from(i.w) * i64::from(i.h), c.refresh?))
        })
        .max_by_key(|(a, _)| *a)
        .map(|(_, r)| r)
}

fn display(x: i16, y: i16, w: u16, h: u16, primary: bool) -> Display {
    Display {
        name: String::new(),
        bounds: Rect::new(i32::from(x), i32::from(y), i32::from(w), i32::from(h)),
        // X11 has no per-monitor scale (see `displays_from`).
        scale: 1.0,
        primary,
        refresh: None,
    }
}

/// The contract's order and promises: no empty displays, mirrored CRTCs (same place,
/// same pixels) once, exactly one primary and it first. Without a primary output RandR
/// marks none; the first one the server lists then stands in, as GTK does.
fn arrange(found: Vec<Display>) -> Vec<Display> {
    let mut out: Vec<Display> = Vec::with_capacity(found.len());
    for d in found
        .into_iter()
        .filter(|d| d.bounds.w > 0 && d.bounds.h > 0)
    {
        match out.iter_mut().find(|o| o.bounds == d.bounds) {
            Some(same) => same.primary |= d.primary,
            None => out.push(d),
        }
    }
    let first_primary = out.iter().position(|d| d.primary).unwrap_or(0);
    for (i, d) in out.iter_mut().enumerate() {
        d.primary = i == first_primary;
    }
    // Stable: the others keep the server's order.
    out.sort_by_key(|d| !d.primary);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(x: i32, y: i32, w: i32, h: i32, primary: bool) -> Display {
        Display::new(Rect::new(x, y, w, h), 1.0, primary)
    }

    #[test]
    fn refresh_rates_come_from_the_mode_and_the_crtc_showing_most() {
        // 1920x1080 at 148.5 MHz over 2200x1125 dots: 60 Hz; NTSC-style 59.94.
        assert_eq!(hertz(148_500_000, 2200, 1125), Some(60.0));
        assert_eq!(hertz(148_351_648, 2200, 1125), Some(59.94));
        assert_eq!(hertz(0, 2200, 1125), None);
        let crtcs = [
            Crtc {
                bounds: Rect::new(0, 0, 1280, 800),
                outputs: vec![1],
                refresh: Some(60.0),
            },
            Crtc {
                bounds: Rect::new(1280, 0, 1280, 800),
                outputs: vec![2],
                refresh: Some(75.0),
            },
        ];
        assert_eq!(
            refresh_at(&crtcs, &Rect::new(1300, 10, 640, 400)),
            Some(75.0)
        );
        assert_eq!(refresh_at(&crtcs, &Rect::new(5000, 0, 10, 10)), None);
    }

    #[test]
    fn the_primary_display_comes_first_and_the_others_keep_their_order() {
        let found = vec![
            d(0, 0, 800, 600, false),
            d(800, 0, 400, 500, true),
            d(1200, 0, 640, 480, false),
        ];
        assert_eq!(
            arrange(found),
            vec![
                d(800, 0, 400, 500, true),
                d(0, 0, 800, 600, false),
                d(1200, 0, 640, 480, false),
            ]
        );
    }

    #[test]
    fn without_a_primary_the_first_listed_stands_in() {
        let found = vec![d(800, 0, 400, 500, false), d(0, 0, 800, 600, false)];
        assert_eq!(
            arrange(found),
            vec![d(800, 0, 400, 500, true), d(0, 0, 800, 600, false)]
        );
    }

    #[test]
    fn mirrors_count_once_and_empty_displays_not_at_all() {
        // Two CRTCs showing the same area (a cloned projector), the primary output on the
        // second; a CRTC without a size.
        let found = vec![
            d(0, 0, 1024, 768, false),
            d(0, 0, 1024, 768, true),
            d(1024, 0, 0, 0, false),
        ];
        assert_eq!(arrange(found), vec![d(0, 0, 1024, 768, true)]);
    }

    #[test]
    fn only_one_display_is_primary() {
        let found = vec![d(0, 0, 800, 600, true), d(800, 0, 800, 600, true)];
        assert_eq!(
            arrange(found),
            vec![d(0, 0, 800, 600, true), d(800, 0, 800, 600, false)]
        );
    }
}
