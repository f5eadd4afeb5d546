//! Joining the window server's list (ids, owners, bounds; titles only with the Screen
//! Recording permission) with each app's `AXWindows` (titles, focus, the elements to
//! read). Pure: the system calls that fill both lists are in `mac/windows.rs`.

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
}

/// For each server window of one app, the AX window that is the same window: equal bounds
/// first (titles may be hidden), then an equal title among those left, never one AX window
/// twice.
pub fn pair(server: &[ServerWindow], ax: &[AxWindow]) -> Vec<Option<usize>> {
    let mut taken = vec![false; ax.len()];
    let mut out = vec![None; server.len()];
    type Same = fn(&ServerWindow, &AxWindow) -> bool;
    let rounds: [Same; 2] = [
        |s, a| a.bounds == Some(s.bounds),
        |s, a| !s.title.is_empty() && a.title == s.title,
    ];
    for same in rounds {
        for (i, s) in server.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            if let Some(j) = (0..ax.len()).find(|&j| !taken[j] && same(s, &ax[j])) {
                taken[j] = true;
                out[i] = Some(j);
            }
        }
    }
    out
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
}
