//! The contract's displays from what Windows says of its monitors (`GetMonitorInfoW`,
//! `EnumDisplaySettingsW`): the GDI device name, the monitor's rectangle in virtual-screen
//! coordinates, the primary flag and the refresh rate, ordered primary first. Pure.

use desktop_core::backend::Display;
use desktop_core::Rect;

/// One monitor as Windows reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Monitor {
    /// `szDevice`, a NUL-terminated UTF-16 buffer (`\\.\DISPLAY1`).
    pub device: Vec<u16>,
    /// `rcMonitor`: left, top, right, bottom.
    pub rect: (i32, i32, i32, i32),
    pub primary: bool,
    /// `dmDisplayFrequency`, in Hz.
    pub hz: u32,
}

/// Image pixels per unit on every monitor. The process is per-monitor DPI aware (v2): every
/// coordinate it gets or gives (window rectangles, the pointer, `SendInput`, the monitors)
/// is a physical pixel, and a capture holds one pixel per unit — so a 150 % monitor (144
/// dpi) still has scale 1; its DPI changes how large apps draw, not the units.
pub const SCALE: f64 = 1.0;

/// A UTF-16 buffer up to its first NUL.
pub fn wide(buf: &[u16]) -> String {
    let end = buf.iter().position(|c| *c == 0).unwrap_or(buf.len());
    String::from_utf16_lossy(&buf[..end])
}

/// A refresh rate: 0 and 1 stand for "the hardware's default", which says nothing.
pub fn refresh(hz: u32) -> Option<f64> {
    (hz > 1).then_some(f64::from(hz))
}

/// The displays, the primary one first, then left to right and top to bottom; monitors
/// without an area are left out.
pub fn displays(monitors: &[Monitor]) -> Vec<Display> {
    let mut out: Vec<Display> = monitors
        .iter()
        .filter_map(|m| {
            let (l, t, r, b) = m.rect;
            let (w, h) = (r.checked_sub(l)?, b.checked_sub(t)?);
            (w > 0 && h > 0).then(|| Display {
                name: wide(&m.device),
                bounds: Rect::new(l, t, w, h),
                scale: SCALE,
                primary: m.primary,
                refresh: refresh(m.hz),
            })
        })
        .collect();
    out.sort_by_key(|d| (!d.primary, d.bounds.x, d.bounds.y));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn monitor(name: &str, rect: (i32, i32, i32, i32), primary: bool, hz: u32) -> Monitor {
        let mut device: Vec<u16> = name.encode_utf16().collect();
        device.resize(32, 0);
        Monitor {
            device,
            rect,
            primary,
            hz,
        }
    }

    #[test]
    fn the_primary_display_comes_first_then_left_to_right() {
        let all = [
            monitor(r"\\.\DISPLAY3", (1920, 0, 4480, 1440), false, 144),
            monitor(r"\\.\DISPLAY2", (-1920, -180, 0, 900), false, 1),
            monitor(r"\\.\DISPLAY1", (0, 0, 1920, 1080), true, 60),
        ];
        let d = displays(&all);
        let names: Vec<&str> = d.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, [r"\\.\DISPLAY1", r"\\.\DISPLAY2", r"\\.\DISPLAY3"]);
        assert_eq!(d[0].bounds, Rect::new(0, 0, 1920, 1080));
        assert!(d[0].primary && !d[1].primary);
        assert_eq!(d[1].bounds, Rect::new(-1920, -180, 1920, 1080));
        assert_eq!(d[2].bounds, Rect::new(1920, 0, 2560, 1440));
        assert_eq!(
            d.iter().map(|d| d.refresh).collect::<Vec<_>>(),
            [Some(60.0), None, Some(144.0)]
        );
        assert!(d.iter().all(|d| d.scale == 1.0));
    }

    #[test]
    fn names_stop_at_their_nul_and_empty_monitors_are_left_out() {
        assert_eq!(wide(&[0x44, 0x31, 0, 0x58]), "D1");
        assert_eq!(wide(&[0x44, 0x31]), "D1");
        assert_eq!(refresh(0), None);
        assert_eq!(refresh(59), Some(59.0));
        let d = displays(&[monitor("X", (10, 10, 10, 900), true, 60)]);
        assert!(d.is_empty());
    }
}
