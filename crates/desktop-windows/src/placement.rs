//! Window placement as plain arithmetic: the outer rectangle `SetWindowPos` takes so that the
//! visible frame `list` reports lands where asked, the state a window shows (minimized,
//! full screen, maximized, normal) from its flags and its monitor, and what a full screen
//! made by desktop-cli keeps on the window itself so that any later command can undo it.

use desktop_core::model::WindowState;
use desktop_core::Rect;

/// Where the outer rectangle (`GetWindowRect`, what `SetWindowPos` places) must go for the
/// visible frame (`list`'s bounds: DWM's extended frame, without the invisible resize
/// borders of Windows 10 and 11) to have its top-left corner at `x`,`y`.
pub fn outer_origin(x: i32, y: i32, outer: Rect, frame: Rect) -> (i32, i32) {
    (x - (frame.x - outer.x), y - (frame.y - outer.y))
}

/// The outer size that gives the visible frame the size `w`×`h`.
pub fn outer_size(w: i32, h: i32, outer: Rect, frame: Rect) -> (i32, i32) {
    (w + (outer.w - frame.w), h + (outer.h - frame.h))
}

/// Whether a window's outer rectangle covers the whole of its monitor.
pub fn covers(outer: Rect, monitor: Rect) -> bool {
    outer.x <= monitor.x
        && outer.y <= monitor.y
        && outer.right() >= monitor.right()
        && outer.bottom() >= monitor.bottom()
}

/// The state a window shows. Windows has no full-screen state of its own: a window without
/// a title bar that covers its whole monitor (taskbar included) is full screen, whoever made
/// it so (a video player, a browser's F11, a game, or desktop-cli's `fullscreen`).
/// Minimized comes first (an iconic window keeps its other flags), then full screen (a
/// caption-less window maximized covers the monitor).
pub fn state(
    iconic: bool,
    zoomed: bool,
    captioned: bool,
    outer: Rect,
    monitor: Option<Rect>,
) -> WindowState {
    if iconic {
        WindowState::Minimized
    } else if !captioned && monitor.is_some_and(|m| covers(outer, m)) {
        WindowState::Fullscreen
    } else if zoomed {
        WindowState::Maximized
    } else {
        WindowState::Normal
    }
}

/// The style bits a full screen takes away: `WS_CAPTION | WS_THICKFRAME` (title bar and
/// sizing border).
pub const FRAME_STYLE: u32 = 0x00C0_0000 | 0x0004_0000;
/// The extended style bits it takes away: `WS_EX_DLGMODALFRAME | WS_EX_WINDOWEDGE |
/// WS_EX_CLIENTEDGE | WS_EX_STATICEDGE` (the edges drawn around a window).
pub const FRAME_EX_STYLE: u32 = 0x0000_0001 | 0x0000_0100 | 0x0000_0200 | 0x0002_0000;
/// Set in the remembered flags, so that they are never 0 (a window property of 0 reads as
/// absent).
const MARK: u32 = 0x8000_0000;

/// What desktop-cli's full screen took from a window, kept in three window properties (32
/// bits each, whatever the pointer width) on the window itself: every command is its own
/// process, and the memory goes with the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Saved {
    /// The outer rectangle before (a normal window's: a maximized one is restored first).
    pub outer: Rect,
    /// The bits of [`FRAME_STYLE`] the window had.
    pub style: u32,
    /// The bits of [`FRAME_EX_STYLE`] it had.
    pub ex_style: u32,
}

impl Saved {
    /// Position, size and flags as three property values; `None` for a rectangle beyond
    /// 16 bits (no window on a real desktop).
    pub fn pack(&self) -> Option<[u32; 3]> {
        let r = self.outer;
        let (x, y) = (i16::try_from(r.x).ok()?, i16::try_from(r.y).ok()?);
        let (w, h) = (u16::try_from(r.w).ok()?, u16::try_from(r.h).ok()?);
        Some([
            (u32::from(x as u16) << 16) | u32::from(y as u16),
            (u32::from(w) << 16) | u32::from(h),
            MARK | (self.style & FRAME_STYLE) | (self.ex_style & FRAME_EX_STYLE),
        ])
    }

    /// What [`Saved::pack`] kept; `None` where the window holds no full screen of ours (its
    /// flags property absent, 0).
    pub fn unpack([pos, size, flags]: [u32; 3]) -> Option<Saved> {
        if flags & MARK == 0 {
            return None;
        }
        let outer = Rect::new(
            i32::from((pos >> 16) as u16 as i16),
            i32::from(pos as u16 as i16),
            i32::from((size >> 16) as u16),
            i32::from(size as u16),
        );
        Some(Saved {
            outer,
            style: flags & FRAME_STYLE,
            ex_style: flags & FRAME_EX_STYLE,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_visible_frame_lands_where_asked() {
        // Windows 10: 7 px of invisible border left, right and below, none above.
        let outer = Rect::new(93, 100, 814, 607);
        let frame = Rect::new(100, 100, 800, 600);
        assert_eq!(outer_origin(0, 0, outer, frame), (-7, 0));
        assert_eq!(outer_origin(-1920, 40, outer, frame), (-1927, 40));
        assert_eq!(outer_size(1024, 768, outer, frame), (1038, 775));
        // No DWM (Wine, classic theme): the frame is the window.
        assert_eq!(outer_origin(5, 6, frame, frame), (5, 6));
        assert_eq!(outer_size(5, 6, frame, frame), (5, 6));
    }

    #[test]
    fn the_state_follows_flags_and_monitor() {
        let m = Rect::new(0, 0, 1920, 1080);
        let win = Rect::new(100, 100, 800, 600);
        let over = Rect::new(-8, -8, 1936, 1096);
        assert_eq!(state(false, false, true, win, Some(m)), WindowState::Normal);
        assert_eq!(
            state(true, true, true, win, Some(m)),
            WindowState::Minimized
        );
        assert_eq!(
            state(false, true, true, over, Some(m)),
            WindowState::Maximized
        );
        // A title bar over the whole monitor is a maximized window, not a full screen one.
        assert_eq!(state(false, false, true, m, Some(m)), WindowState::Normal);
        assert_eq!(
            state(false, false, false, m, Some(m)),
            WindowState::Fullscreen
        );
        assert_eq!(
            state(false, true, false, over, Some(m)),
            WindowState::Fullscreen
        );
        // Caption-less but smaller than its monitor (a splash, a popup): normal.
        assert_eq!(
            state(false, false, false, win, Some(m)),
            WindowState::Normal
        );
        assert_eq!(state(false, false, false, m, None), WindowState::Normal);
        // Full screen on a monitor left of the primary one.
        let left = Rect::new(-2560, 0, 2560, 1440);
        assert_eq!(
            state(false, false, false, left, Some(left)),
            WindowState::Fullscreen
        );
    }

    #[test]
    fn a_full_screen_remembers_what_it_took() {
        let s = Saved {
            outer: Rect::new(-1927, -40, 814, 607),
            style: 0x14CF_0000, // WS_OVERLAPPEDWINDOW | WS_VISIBLE | WS_CLIPSIBLINGS
            ex_style: 0x0000_0100,
        };
        let packed = s.pack().unwrap();
        assert_ne!(packed[2], 0, "the flags are never 0");
        assert_eq!(
            Saved::unpack(packed),
            Some(Saved {
                style: 0x00C4_0000,
                ..s
            })
        );
        // At the origin, position 0 is still a full screen of ours (the flags say so).
        let origin = Saved {
            outer: Rect::new(0, 0, 640, 480),
            style: 0,
            ex_style: 0,
        };
        assert_eq!(Saved::unpack(origin.pack().unwrap()), Some(origin));
        assert_eq!(Saved::unpack([0, 0, 0]), None);
        assert_eq!(Saved::unpack([5, 6, 0x00C4_0000]), None);
        let huge = Saved {
            outer: Rect::new(40_000, 0, 10, 10),
            ..origin
        };
        assert_eq!(huge.pack(), None);
    }

    #[test]
    fn frame_bits_do_not_overlap_the_mark() {
        assert_eq!(FRAME_STYLE & FRAME_EX_STYLE, 0);
        assert_eq!((FRAME_STYLE | FRAME_EX_STYLE) & MARK, 0);
    }
}
