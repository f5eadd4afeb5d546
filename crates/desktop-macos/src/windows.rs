//! Joining the window server's list (ids, owners, bounds; titles only with the Screen
//! Recording permission) with each app's `AXWindows` (titles, focus, the elements to
//! read), and what the two together say of a window's state. Pure: the system calls that
//! fill both lists are in `mac/windows.rs`.

use desktop_core::model::WindowState;
use desktop_core::Rect;

/// A window as the window server lists it (`CGWindowListCopyWindowInfo`, layer 0).
#[derive(Clone, Debug, PartialEq)]
pub struct ServerWindow {
    pub id: u32,
    pub pid: u32,
    pub owner: String,
    /// Empty without the Screen Recording permission.
    pub title: String,
    pub bounds: Rect,
    /// Shown now (`kCGWindowIsOnscreen`). Minimized windows and those on another Space (a
    /// full-screen window's own among them) are not, nor the many windows apps keep hidden.
    pub on_screen: bool,
}

/// A window as its app's accessibility tree has it, by its index in `AXWindows`.
#[derive(Clone, Debug, PartialEq)]
pub struct AxWindow {
    pub index: usize,
    pub title: String,
    pub bounds: Option<Rect>,
    pub focused: bool,
    pub modal: bool,
    pub dialog: bool,
    /// `AXMinimized`: in the Dock.
    pub minimized: bool,
    /// `AXFullScreen`: on a Space of its own.
    pub fullscreen: bool,
}

impl AxWindow {
    /// Minimized or full screen: a window that may be off screen and still be one to list
    /// (to be restored).
    fn put_away(&self) -> bool {
        self.minimized || self.fullscreen
    }
}

/// For each server window of one app, the AX window that is the same window: equal bounds
/// first (titles may be hidden), then an equal title among those left, never one AX window
/// twice. Windows on screen are paired first, with any AX window; a window off screen
/// only with a minimized or full-screen one, so of the windows apps keep off screen only
/// those a user put away are paired (and listed, see [`listed`]).
pub fn pair(server: &[ServerWindow], ax: &[AxWindow]) -> Vec<Option<usize>> {
    let mut taken = vec![false; ax.len()];
    let mut out = vec![None; server.len()];
    type Same = fn(&ServerWindow, &AxWindow) -> bool;
    let rounds: [Same; 2] = [
        |s, a| a.bounds == Some(s.bounds),
        |s, a| !s.title.is_empty() && a.title == s.title,
    ];
    for on_screen in [true, false] {
        for same in rounds {
            for (i, s) in server.iter().enumerate() {
                if out[i].is_some() || s.on_screen != on_screen {
                    continue;
                }
                let fits =
                    |j: usize| !taken[j] && (on_screen || ax[j].put_away()) && same(s, &ax[j]);
                if let Some(j) = (0..ax.len()).find(|&j| fits(j)) {
                    taken[j] = true;
                    out[i] = Some(j);
                }
            }
        }
    }
    out
}

/// Whether a server window is one `list` shows: on screen, or put away (minimized, or full
/// screen on another Space) as its paired AX window says.
pub fn listed(server: &ServerWindow, paired: Option<usize>) -> bool {
    server.on_screen || paired.is_some()
}

/// A window's state: minimized and full screen as its app's AX says; maximized when its
/// frame equals the visible frame of a display (`NSScreen.visibleFrame`: the display less
/// the menu bar and the Dock) to within a point of rounding. macOS has no maximized state
/// of its own (the zoom button gives whatever size the app likes), so this is the frame
/// `window maximize` gives, by whatever means a window got it; else normal.
pub fn state(ax: Option<&AxWindow>, bounds: Rect, visible: &[Rect]) -> WindowState {
    match ax {
        Some(a) if a.minimized => WindowState::Minimized,
        Some(a) if a.fullscreen => WindowState::Fullscreen,
        _ if visible.iter().any(|v| fills(bounds, *v)) => WindowState::Maximized,
        _ => WindowState::Normal,
    }
}

/// Whether `bounds` is `visible`, each edge within a point (bounds are rounded outwards to
/// whole points, and visible frames can have half points).
pub fn fills(bounds: Rect, visible: Rect) -> bool {
    let close = |a: i64, b: i64| (a - b).abs() <= 1;
    close(i64::from(bounds.x), i64::from(visible.x))
        && close(i64::from(bounds.y), i64::from(visible.y))
        && close(bounds.right(), visible.right())
        && close(bounds.bottom(), visible.bottom())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(id: u32, title: &str, b: (i32, i32, i32, i32)) -> ServerWindow {
        ServerWindow {
            id,
            pid: 501,
            owner: "TextEdit".into(),
            title: title.into(),
            bounds: Rect::new(b.0, b.1, b.2, b.3),
            on_screen: true,
        }
    }

    fn ax(index: usize, title: &str, b: Option<(i32, i32, i32, i32)>) -> AxWindow {
        AxWindow {
            index,
            title: title.into(),
            bounds: b.map(|b| Rect::new(b.0, b.1, b.2, b.3)),
            focused: false,
            modal: false,
            dialog: false,
            minimized: false,
            fullscreen: false,
        }
    }

    #[test]
    fn windows_pair_by_bounds_then_title() {
        // Titles hidden (no Screen Recording): bounds decide.
        let s = [
            server(40, "", (0, 25, 600, 400)),
            server(41, "", (100, 100, 500, 300)),
        ];
        let a = [
            ax(0, "Notes", Some((100, 100, 500, 300))),
            ax(1, "Untitled", Some((0, 25, 600, 400))),
        ];
        assert_eq!(pair(&s, &a), [Some(1), Some(0)]);
        // Two windows at the same place: the title tells them apart, each used once.
        let s = [
            server(40, "A", (0, 0, 10, 10)),
            server(41, "B", (0, 0, 10, 10)),
        ];
        let a = [ax(0, "B", None), ax(1, "A", Some((0, 0, 10, 10)))];
        assert_eq!(pair(&s, &a), [Some(1), Some(0)]);
        // No counterpart: none.
        assert_eq!(pair(&[server(9, "X", (1, 1, 1, 1))], &[]), [None]);
    }

    #[test]
    fn off_screen_windows_pair_only_with_windows_put_away() {
        // Two hidden windows (a panel kept for later, a window on another Space) and a
        // minimized one, at the bounds it had: only the minimized one is listed.
        let mut hidden = server(50, "", (0, 25, 600, 400));
        hidden.on_screen = false;
        let mut elsewhere = server(51, "", (200, 200, 300, 300));
        elsewhere.on_screen = false;
        let mut docked = server(52, "", (100, 100, 500, 300));
        docked.on_screen = false;
        let shown = server(53, "", (0, 25, 600, 400));
        let s = [hidden, elsewhere, docked, shown];
        let mut minimized = ax(0, "Notes", Some((100, 100, 500, 300)));
        minimized.minimized = true;
        let a = [
            ax(1, "Other Space", Some((200, 200, 300, 300))),
            minimized,
            ax(2, "Untitled", Some((0, 25, 600, 400))),
        ];
        let p = pair(&s, &a);
        // The window on screen takes its AX window before the hidden one at the same place.
        assert_eq!(p, [None, None, Some(1), Some(2)]);
        let shown: Vec<u32> = s
            .iter()
            .zip(&p)
            .filter(|(w, j)| listed(w, **j))
            .map(|(w, _)| w.id)
            .collect();
        assert_eq!(shown, [52, 53]);
    }

    #[test]
    fn states_come_from_ax_and_the_visible_frame() {
        let visible = [
            Rect::new(0, 37, 1512, 881),
            Rect::new(-1920, -155, 1920, 1055),
        ];
        let mut a = ax(0, "Notes", None);
        let b = Rect::new(100, 100, 500, 300);
        assert_eq!(state(Some(&a), b, &visible), WindowState::Normal);
        assert_eq!(state(None, b, &visible), WindowState::Normal);
        // The visible frame of either display, to within a point: maximized.
        let m = Rect::new(0, 37, 1512, 881);
        assert_eq!(state(Some(&a), m, &visible), WindowState::Maximized);
        let m = Rect::new(-1920, -155, 1920, 1056);
        assert_eq!(state(None, m, &visible), WindowState::Maximized);
        // Two points short of it is a window that happens to be large.
        let big = Rect::new(0, 37, 1510, 881);
        assert_eq!(state(Some(&a), big, &visible), WindowState::Normal);
        // The whole display (a full-screen window) is not the visible frame.
        a.fullscreen = true;
        let whole = Rect::new(0, 0, 1512, 982);
        assert_eq!(state(Some(&a), whole, &visible), WindowState::Fullscreen);
        a.minimized = true;
        assert_eq!(state(Some(&a), m, &visible), WindowState::Minimized);
        // No visible frames known (off the main thread): never maximized.
        assert_eq!(state(None, m, &[]), WindowState::Normal);
    }
}
