//! The monitors of the X screen from RandR: its monitors (1.5, which include those defined
//! with `xrandr --setmonitor`), else its active CRTCs (1.3), else the whole root window.
//! Never an error: a server without RandR (or one that refuses a request) is one display.

use crate::x11::X;
use desktop_core::backend::Display;
use desktop_core::Rect;
use x11rb::protocol::randr::ConnectionExt as _;

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

    /// The displays and where they came from. Asked anew on every call (one round trip,
    /// two without RandR 1.5): a long-lived process (the MCP server) sees monitors plugged
    /// in or moved since it connected.
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
    /// size). The server lists the primary one first.
    fn monitors(&self) -> Option<Vec<Display>> {
        let reply = self
            .conn
            .randr_get_monitors(self.root, true)
            .ok()?
            .reply()
            .ok()?;
        Some(
            reply
                .monitors
                .iter()
                .map(|m| display(m.x, m.y, m.width, m.height, m.primary))
                .collect(),
        )
    }

    /// Active CRTCs (what RandR 1.2–1.4 clients took for monitors), every request sent
    /// before the first reply is read; primary is the CRTC showing the primary output.
    fn crtcs(&self) -> Option<Vec<Display>> {
        let resources = self
            .conn
            .randr_get_screen_resources_current(self.root)
            .ok()?;
        let primary = self.conn.randr_get_output_primary(self.root).ok()?;
        let resources = resources.reply().ok()?;
        let primary = primary.reply().ok().map(|p| p.output).filter(|o| *o != 0);
        let pending: Vec<_> = resources
            .crtcs
            .iter()
            .filter_map(|&c| {
                self.conn
                    .randr_get_crtc_info(c, resources.config_timestamp)
                    .ok()
            })
            .collect();
        Some(
            pending
                .into_iter()
                // A CRTC that went away meanwhile answers with an error: skip it.
                .filter_map(|c| c.reply().ok())
                .filter(|c| c.mode != 0 && !c.outputs.is_empty())
                .map(|c| {
                    let on_primary = primary.is_some_and(|p| c.outputs.contains(&p));
                    display(c.x, c.y, c.width, c.height, on_primary)
                })
                .collect(),
        )
    }
}

fn display(x: i16, y: i16, w: u16, h: u16, primary: bool) -> Display {
    Display {
        bounds: Rect::new(i32::from(x), i32::from(y), i32::from(w), i32::from(h)),
        // X11 has no per-monitor scale (see `displays_from`).
        scale: 1.0,
        primary,
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
        Display {
            bounds: Rect::new(x, y, w, h),
            scale: 1.0,
            primary,
        }
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
