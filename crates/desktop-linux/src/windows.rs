//! Joining accessibility frames with X11 windows, and picking the window a command targets.
//! Pure functions over already-fetched data.

use crate::apps::{name_matches, App, Frame};
use crate::identity::program_name;
use crate::x11::XWindow;
use desktop_core::{Error, ErrorCode, Rect, Result, States, Target, WindowInfo};

/// One window per showing frame, matched to its X window (same pid; same title first, for
/// every frame, then the closest box among what is left), plus X windows no frame claimed
/// (shown with `a11y: false`). Ordered top of the stack first.
pub fn join(apps: &[App], xwins: &[XWindow], focused: Option<u32>) -> Vec<WindowInfo> {
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
        let best = f
            .bounds
            .and_then(|fb| {
                candidates
                    .iter()
                    .copied()
                    .map(|i| (likeness(&xwins[i].bounds, &fb), i))
                    .filter(|(l, _)| *l > 0.0)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, i)| i)
            })
            .or_else(|| (candidates.len() == 1).then(|| candidates[0]));
        if let Some(i) = best {
            claimed[i] = true;
            matched[k] = Some(i);
        }
    }
    let mut out: Vec<(usize, WindowInfo)> = Vec::new();
    for ((app, f), best) in frames.iter().zip(matched) {
        if best.is_none() && !xwins.is_empty() && f.name.is_empty() {
            // With X present, an unnamed frame no X window shows is a hidden popup
            // that still claims SHOWING (Chromium's omnibox popups do).
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
            modal: f.states.contains(States::MODAL),
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
        let app = x
            .pid
            .and_then(program_name)
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
                modal: false,
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

/// Windows matching every field set in `target`.
pub fn filter(windows: Vec<WindowInfo>, t: &Target) -> Vec<WindowInfo> {
    // An app is known by its accessible name first; where none has that name, by a
    // window's title or its program's name (Java apps are all "Java Application").
    let by_name = |w: &WindowInfo, a: &str| name_matches(&w.app, a);
    let by_other = |w: &WindowInfo, a: &str| {
        name_matches(&w.title, a)
            || crate::identity::program_name(w.pid).is_some_and(|p| name_matches(&p, a))
    };
    let named = t
        .app
        .as_deref()
        .is_some_and(|a| windows.iter().any(|w| by_name(w, a)));
    windows
        .into_iter()
        .filter(|w| {
            t.app
                .as_deref()
                .is_none_or(|a| if named { by_name(w, a) } else { by_other(w, a) })
        })
        .filter(|w| t.pid.is_none_or(|p| w.pid == p))
        .filter(|w| t.window_id.is_none_or(|id| w.id == Some(id)))
        .filter(|w| {
            t.window
                .as_deref()
                .is_none_or(|s| w.title.to_lowercase().contains(&s.to_lowercase()))
        })
        .collect()
}

/// The one window a command acts on: among the matches, a modal dialog (its app takes input
/// there first, whether or not the window system gave it the focus), else the focused one,
/// else the top of the stack (windows with an accessibility tree first). Errors list what
/// is there.
pub fn pick(all: &[WindowInfo], t: &Target, apps: &[String]) -> Result<WindowInfo> {
    let matches = filter(all.to_vec(), t);
    let best = matches
        .iter()
        .find(|w| w.modal && w.a11y)
        .or_else(|| matches.iter().find(|w| w.focused && w.a11y))
        .or_else(|| matches.iter().find(|w| w.a11y))
        .or_else(|| matches.first());
    if let Some(w) = best {
        return Ok(w.clone());
    }
    Err(not_found(all, t, apps))
}

fn not_found(all: &[WindowInfo], t: &Target, app_names: &[String]) -> Error {
    let app_exists = !filter(
        all.to_vec(),
        &Target {
            window: None,
            window_id: None,
            ..t.clone()
        },
    )
    .is_empty();
    let windows: Vec<String> = all
        .iter()
        .take(20)
        .map(|w| match w.id {
            Some(id) => format!("{} \"{}\" (id {id}, pid {})", w.app, w.title, w.pid),
            None => format!("{} \"{}\" (pid {})", w.app, w.title, w.pid),
        })
        .collect();
    let there = if windows.is_empty() {
        "no windows are open".to_string()
    } else {
        format!("open windows: {}", windows.join("; "))
    };
    if (t.app.is_some() || t.pid.is_some()) && !app_exists {
        let what = match (&t.app, t.pid) {
            (Some(a), Some(p)) => format!("app \"{a}\" with pid {p}"),
            (Some(a), None) => format!("app \"{a}\""),
            (None, Some(p)) => format!("pid {p}"),
            _ => "the target".to_string(),
        };
        let mut apps: Vec<&str> = all
            .iter()
            .map(|w| w.app.as_str())
            .chain(app_names.iter().map(String::as_str))
            .collect();
        apps.sort_unstable();
        apps.dedup();
        return Error::new(
            ErrorCode::AppNotFound,
            format!("no window of {what}; {there}"),
        )
        .suggest(if apps.is_empty() {
            "Launch the app first; listing the apps shows what is running".to_string()
        } else {
            format!("Use one of the running apps: {}", apps.join(", "))
        });
    }
    if t.is_empty() {
        return Error::new(
            ErrorCode::WindowNotFound,
            format!("no focused window to read; {there}"),
        )
        .suggest(
            "Name a target by app, window title or window id (listing the windows shows them)",
        );
    }
    Error::new(
        ErrorCode::WindowNotFound,
        format!("no window matches; {there}"),
    )
    .suggest("Check the title or id against the list of windows")
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let ws = join(&apps, &xs, Some(2));
        let titles: Vec<&str> = ws.iter().map(|w| w.title.as_str()).collect();
        assert_eq!(titles, ["xterm", "Main", "Other"], "top of the stack first");
        assert_eq!(ws[1].id, Some(2));
        assert!(ws[1].focused && !ws[2].focused);
        assert!(!ws[0].a11y && ws[1].a11y);
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
        let ws = join(&apps, &xs, Some(1));
        let dialog = ws.iter().find(|w| w.title == "Information").unwrap();
        let main = ws.iter().find(|w| w.title == "demo").unwrap();
        assert_eq!((dialog.id, main.id), (Some(1), Some(2)));
        assert!(dialog.focused && !main.focused);
        // Without titles on either side, the closest box wins.
        let xs = vec![
            xwin(2, 10, "", Rect::new(0, 0, 1366, 741)),
            xwin(1, 10, "", Rect::new(400, 300, 300, 150)),
        ];
        let ws = join(&apps, &xs, None);
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
