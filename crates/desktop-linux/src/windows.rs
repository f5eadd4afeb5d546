//! Joining accessibility frames with X11 windows, and how Linux knows an app by other names
//! when picking the window a command targets (the picking itself is the core's).
//! Pure functions over already-fetched data.

use crate::apps::{name_matches, App, Frame};
use crate::identity::program_name;
use crate::x11::XWindow;
use desktop_core::windows::AlsoKnownAs;
use desktop_core::{Rect, Result, States, Target, WindowInfo};

/// One window per showing frame, matched to its X window (same pid; same title first, for
/// every frame, then the closest box among what is left), plus X windows no frame claimed
/// (shown with `a11y: false`). An unnamed frame no X window shows may be an open popup
/// (Chromium's menus): listed when one of `popups` (override-redirect windows) covers its
/// box, above the rest. Ordered top of the stack first. Where frames' boxes are `relative`
/// to their windows (Wayland), only their sizes are compared.
pub fn join(
    apps: &[App],
    xwins: &[XWindow],
    popups: &[XWindow],
    focused: Option<u32>,
    relative: bool,
) -> Vec<WindowInfo> {
    let mut claimed = vec![false; xwins.len()];
    let frames: Vec<(&App, &Frame)> = apps
        .iter()
        .flat_map(|a| a.frames.iter().map(move |f| (a, f)))
        .filter(|(_, f)| f.states.contains(States::SHOWING))
        .collect();
    let mine = |app: &App, x: &XWindow| app.pid == 0 || x.pid.is_none_or(|p| p == app.pid);
    let mut matched: Vec<Option<usize>> = vec![None; frames.len()];
    // Titles first, all of them: a dialog's box lies inside its main window's, so a greedy
    // box match could hand the main window to the dialog (and the dialog's to the main).
    for (k, (app, f)) in frames.iter().enumerate() {
        if f.name.is_empty() {
            continue;
        }
        let hit = (0..xwins.len())
            .find(|&i| !claimed[i] && mine(app, &xwins[i]) && xwins[i].title == f.name);
        if let Some(i) = hit {
            claimed[i] = true;
            matched[k] = Some(i);
        }
    }
    for (k, (app, f)) in frames.iter().enumerate() {
        if matched[k].is_some() {
            continue;
        }
        let candidates: Vec<usize> = (0..xwins.len())
            .filter(|&i| !claimed[i] && mine(app, &xwins[i]))
            .collect();
        // An unnamed frame claims a window only by a box much like its own: Chromium keeps
        // hidden unnamed frames (bubbles) that claim SHOWING, and one overlapping the file
        // chooser GTK shows for it (no tree of its own) would pass for that chooser.
        let unnamed = f.name.is_empty();
        let least = if unnamed { 0.5 } else { 0.0 };
        let best = f
            .bounds
            .and_then(|fb| {
                candidates
                    .iter()
                    .copied()
                    .map(|i| {
                        let xb = xwins[i].bounds;
                        // A tiling compositor cuts a window wider than its tile down to it.
                        let fb = if relative {
                            Rect::new(xb.x, xb.y, fb.w.min(xb.w), fb.h.min(xb.h))
                        } else {
                            fb
                        };
                        (likeness(&xb, &fb), i)
                    })
                    .filter(|(l, _)| *l > least)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, i)| i)
            })
            .or_else(|| {
                (candidates.len() == 1 && !(unnamed && f.bounds.is_some())).then(|| candidates[0])
            });
        if let Some(i) = best {
            claimed[i] = true;
            matched[k] = Some(i);
        }
    }
    let mut out: Vec<(usize, WindowInfo)> = Vec::new();
    let mut popup_taken = vec![false; popups.len()];
    for ((app, f), best) in frames.iter().zip(matched) {
        if best.is_none() && !xwins.is_empty() && f.name.is_empty() {
            // With X present, an unnamed frame no X window shows is a popup open now (a
            // menu) or a hidden one that still claims SHOWING (Chromium's omnibox popups).
            let open = f.bounds.and_then(|fb| {
                (0..popups.len())
                    .filter(|&i| !popup_taken[i] && mine(app, &popups[i]))
                    .map(|i| (likeness(&popups[i].bounds, &fb), i))
                    .filter(|(l, _)| *l > 0.8)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, i)| i)
            });
            if let Some(i) = open {
                popup_taken[i] = true;
                let p = &popups[i];
                out.push((
                    xwins.len() + 1 + i,
                    WindowInfo {
                        app: app.name.clone(),
                        pid: app.pid,
                        title: String::new(),
                        id: Some(u64::from(p.id)),
                        bounds: Some(p.bounds),
                        focused: false,
                        a11y: true,
                        modal: false,
                        state: Default::default(),
                        display: None,
                        handle: Some(f.handle.clone()),
                    },
                ));
            }
            continue;
        }
        let x = best.map(|i| &xwins[i]);
        let win = WindowInfo {
            app: app.name.clone(),
            pid: app.pid,
            // Some toolkits leave the frame unnamed; the X title is what a user sees then.
            title: match x {
                Some(x) if f.name.is_empty() => x.title.clone(),
                _ => f.name.clone(),
            },
            id: x.map(|x| u64::from(x.id)),
            bounds: x.map(|x| x.bounds).or(f.bounds),
            focused: match (x, focused) {
                (Some(x), Some(fid)) => x.id == fid,
                (_, None) => f.states.contains(States::ACTIVE),
                _ => false,
            },
            a11y: true,
            modal: f.states.contains(States::MODAL) || x.is_some_and(|x| x.modal),
            state: x.map(|x| x.state).unwrap_or_default(),
            display: None,
            handle: Some(f.handle.clone()),
        };
        // Frames without an X window (other display, Wayland) go below the rest.
        out.push((best.map_or(0, |i| i + 1), win));
    }
    // X windows of accessible apps the query skipped are not "inaccessible windows".
    let skipped: Vec<u32> = apps.iter().filter(|a| !a.matched).map(|a| a.pid).collect();
    for (i, x) in xwins.iter().enumerate().filter(|(i, _)| !claimed[*i]) {
        if x.pid.is_some_and(|p| skipped.contains(&p)) {
            continue;
        }
        // A window of an accessible app's process that has no tree of its own (the file
        // chooser GTK shows inside Chromium) still belongs to that app, by its name.
        let app = x
            .pid
            .and_then(|p| apps.iter().find(|a| a.pid == p).map(|a| a.name.clone()))
            .or_else(|| x.pid.and_then(program_name))
            .unwrap_or_else(|| x.class.clone());
        out.push((
            i + 1,
            WindowInfo {
                app,
                pid: x.pid.unwrap_or(0),
                title: x.title.clone(),
                id: Some(u64::from(x.id)),
                bounds: Some(x.bounds),
                focused: focused == Some(x.id),
                a11y: false,
                modal: x.modal,
                state: x.state,
                display: None,
                handle: None,
            },
        ));
    }
    // X lists bottom first: put the top of the stack first.
    out.sort_by_key(|w| std::cmp::Reverse(w.0));
    out.into_iter().map(|(_, w)| w).collect()
}

/// How alike two boxes are: their overlap over their union (1 for the same box), so a small
/// dialog matches its own window rather than the large one it sits on.
fn likeness(a: &Rect, b: &Rect) -> f64 {
    let w = (a.right().min(b.right()) - i64::from(a.x.max(b.x))).max(0);
    let h = (a.bottom().min(b.bottom()) - i64::from(a.y.max(b.y))).max(0);
    let inter = (w * h) as f64;
    let area = |r: &Rect| f64::from(r.w.max(0)) * f64::from(r.h.max(0));
    let union = area(a) + area(b) - inter;
    if union > 0.0 {
        inter / union
    } else {
        0.0
    }
}

/// Linux knows an app also by a window's title or its program's name (Java apps are all
/// "Java Application" to the accessibility bus).
#[derive(Clone, Copy, Debug)]
pub struct Aka;

impl AlsoKnownAs for Aka {
    fn also_known_as(&self, w: &WindowInfo, name: &str) -> bool {
        name_matches(&w.title, name)
            || crate::identity::program_name(w.pid).is_some_and(|p| name_matches(&p, name))
    }
}

/// Windows matching every field set in `target`.
pub fn filter(windows: Vec<WindowInfo>, t: &Target) -> Vec<WindowInfo> {
    desktop_core::windows::filter(&windows, t, &Aka)
}

/// The one window a command acts on (see `desktop_core::windows::pick`).
pub fn pick(all: &[WindowInfo], t: &Target, apps: &[String]) -> Result<WindowInfo> {
    desktop_core::windows::pick(all, t, apps, &Aka)
}

#[cfg(test)]
mod tests {
    use super::*;
    use desktop_core::ErrorCode;

    fn frame(name: &str, b: Rect) -> Frame {
        Frame {
            handle: crate::bus::handle(":1.1", format!("/{name}")),
            name: name.into(),
            states: States::SHOWING,
            bounds: Some(b),
        }
    }

    fn xwin(id: u32, pid: u32, title: &str, b: Rect) -> XWindow {
        XWindow {
            id,
            pid: Some(pid),
            title: title.into(),
            class: "Cls".into(),
            bounds: b,
            state: Default::default(),
            modal: false,
        }
    }

    #[test]
    fn frames_join_by_pid_and_title_and_leftovers_are_listed() {
        let apps = vec![App {
            name: "demo".into(),
            pid: 10,
            matched: true,
            frames: vec![
                frame("Main", Rect::new(0, 0, 100, 100)),
                frame("Other", Rect::new(50, 50, 10, 10)),
            ],
        }];
        let xs = vec![
            xwin(1, 10, "Other", Rect::new(50, 50, 10, 10)),
            xwin(2, 10, "Main", Rect::new(0, 0, 100, 100)),
            xwin(3, 99, "xterm", Rect::new(0, 0, 5, 5)),
        ];
        let ws = join(&apps, &xs, &[], Some(2), false);
        let titles: Vec<&str> = ws.iter().map(|w| w.title.as_str()).collect();
        assert_eq!(titles, ["xterm", "Main", "Other"], "top of the stack first");
        assert_eq!(ws[1].id, Some(2));
        assert!(ws[1].focused && !ws[2].focused);
        assert!(!ws[0].a11y && ws[1].a11y);
    }

    /// Chromium's hidden unnamed frame (a bubble claiming SHOWING) over the file chooser
    /// GTK shows for it with no tree: the chooser stays a window without one.
    #[test]
    fn an_unnamed_frame_does_not_take_a_window_unlike_its_box() {
        let apps = vec![App {
            name: "Chromium".into(),
            pid: 10,
            matched: true,
            frames: vec![
                frame("Upload - Chromium", Rect::new(10, 10, 1050, 780)),
                frame("", Rect::new(149, 35, 844, 88)),
            ],
        }];
        let mut chooser = xwin(2, 10, "Open File", Rect::new(1, 20, 1124, 775));
        chooser.modal = true;
        let xs = vec![
            xwin(1, 10, "Upload - Chromium", Rect::new(10, 10, 1050, 780)),
            chooser,
        ];
        let ws = join(&apps, &xs, &[], Some(2), false);
        let open = ws.iter().find(|w| w.title == "Open File").unwrap();
        assert!(
            !open.a11y && open.handle.is_none() && open.modal,
            "{open:?}"
        );
        assert_eq!(ws.len(), 2, "{ws:?}");
    }

    /// On Wayland a frame's box is its window's size at 0,0, and a GTK app with a header bar
    /// leaves its frame unnamed while the compositor shows the program's name as the title
    /// (gtk3-widget-factory, 1415 px wide in a tile of 640): the frame still takes its
    /// window, by size, and a small unnamed frame (a bubble) still takes none.
    #[test]
    fn an_unnamed_frame_takes_its_window_by_size_where_boxes_are_relative() {
        let apps = vec![
            App {
                name: "gtk3-widget-factory".into(),
                pid: 10,
                matched: true,
                frames: vec![
                    frame("", Rect::new(0, 0, 1415, 800)),
                    frame("", Rect::new(0, 0, 300, 90)),
                ],
            },
            App {
                name: "form".into(),
                pid: 11,
                matched: true,
                frames: vec![frame("GTK Form", Rect::new(0, 0, 640, 800))],
            },
        ];
        let xs = vec![
            xwin(5, 11, "GTK Form", Rect::new(0, 0, 640, 800)),
            xwin(6, 10, "gtk3-widget-factory", Rect::new(640, 0, 640, 800)),
        ];
        let ws = join(&apps, &xs, &[], Some(6), true);
        assert_eq!(ws.len(), 2, "the bubble is no window: {ws:?}");
        let factory = ws.iter().find(|w| w.pid == 10).unwrap();
        assert!(factory.a11y && factory.handle.is_some(), "{factory:?}");
        assert_eq!(factory.title, "gtk3-widget-factory");
        assert_eq!(factory.bounds, Some(Rect::new(640, 0, 640, 800)));
        assert!(factory.focused);
        // With screen boxes the same frame is not that window (it could be a bubble).
        let ws = join(&apps, &xs, &[], Some(6), false);
        assert!(!ws.iter().find(|w| w.pid == 10).unwrap().a11y, "{ws:?}");
    }

    /// A dialog whose X window has no title, over its main window: each frame gets its own
    /// X window (a box match frame by frame handed the main window to the dialog).
    #[test]
    fn a_dialog_over_its_window_keeps_its_own() {
        let apps = vec![App {
            name: "demo".into(),
            pid: 10,
            matched: true,
            frames: vec![
                frame("Information", Rect::new(400, 300, 300, 150)),
                frame("demo", Rect::new(0, 0, 1366, 741)),
            ],
        }];
        let xs = vec![
            xwin(1, 10, "", Rect::new(400, 300, 300, 150)),
            xwin(2, 10, "demo", Rect::new(0, 0, 1366, 741)),
        ];
        let ws = join(&apps, &xs, &[], Some(1), false);
        let dialog = ws.iter().find(|w| w.title == "Information").unwrap();
        let main = ws.iter().find(|w| w.title == "demo").unwrap();
        assert_eq!((dialog.id, main.id), (Some(1), Some(2)));
        assert!(dialog.focused && !main.focused);
        // Without titles on either side, the closest box wins.
        let xs = vec![
            xwin(2, 10, "", Rect::new(0, 0, 1366, 741)),
            xwin(1, 10, "", Rect::new(400, 300, 300, 150)),
        ];
        let ws = join(&apps, &xs, &[], None, false);
        let dialog = ws.iter().find(|w| w.title == "Information").unwrap();
        assert_eq!(dialog.id, Some(1));
    }

    #[test]
    fn pick_reports_missing_apps_and_windows() {
        let ws = vec![WindowInfo {
            app: "demo".into(),
            pid: 10,
            title: "Main".into(),
            id: Some(5),
            bounds: None,
            focused: false,
            a11y: true,
            modal: false,
            state: Default::default(),
            display: None,
            handle: None,
        }];
        let t = Target {
            app: Some("nope".into()),
            ..Target::default()
        };
        let e = pick(&ws, &t, &[]).unwrap_err();
        assert_eq!(e.code, ErrorCode::AppNotFound);
        assert!(e.suggestion.as_deref().is_some_and(|s| s.contains("demo")));
        let t = Target {
            app: Some("DEMO".into()),
            window: Some("zzz".into()),
            ..Target::default()
        };
        assert_eq!(
            pick(&ws, &t, &[]).unwrap_err().code,
            ErrorCode::WindowNotFound
        );
        let t = Target {
            window: Some("mai".into()),
            ..Target::default()
        };
        assert_eq!(pick(&ws, &t, &[]).map(|w| w.id), Ok(Some(5)));
        // A modal dialog of the app wins over its focused main window.
        let mut both = ws.clone();
        both[0].focused = true;
        both.push(WindowInfo {
            title: "Confirm".into(),
            id: Some(6),
            modal: true,
            focused: false,
            ..ws[0].clone()
        });
        let t = Target {
            app: Some("demo".into()),
            ..Target::default()
        };
        assert_eq!(pick(&both, &t, &[]).map(|w| w.id), Ok(Some(6)));
    }
}
