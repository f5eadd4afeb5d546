//! Window operations (`window`, `close-app`), the same at every face: the request, its
//! checks, and the verdict on what the backend observed afterwards — `ok` only for a change
//! seen, the window's geometry and state as they are now, and a closing that an app holds up
//! with its own question ("save changes?") reported with that question, never answered.

use crate::action::{ActionResult, Effect, Route};
use crate::backend::Desktop;
use crate::error::{Error, ErrorCode, Result};
use crate::model::{name_matches, Target, WindowInfo, WindowState};
use std::time::Duration;

/// One operation on a top-level window. Coordinates are the desktop's units (those of
/// `list` and `displays`); `Move` places the window's own area (its `bounds`, without the
/// window manager's frame) at `x`,`y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowOp {
    Move { x: i32, y: i32 },
    Resize { w: i32, h: i32 },
    Minimize,
    Maximize,
    Restore,
    Fullscreen,
    Close,
}

/// How far an observed window got towards an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// As asked.
    Done,
    /// Changed, but not exactly as asked (the window manager kept it on screen, the app
    /// rounded its size to its own steps or kept a minimum).
    Adjusted,
    /// No change seen.
    Not,
}

/// Largest coordinate or size taken: X11 keeps 16-bit geometry, and no desktop is larger.
const LIMIT: i32 = 32_000;

impl WindowOp {
    pub fn name(&self) -> &'static str {
        match self {
            WindowOp::Move { .. } => "move",
            WindowOp::Resize { .. } => "resize",
            WindowOp::Minimize => "minimize",
            WindowOp::Maximize => "maximize",
            WindowOp::Restore => "restore",
            WindowOp::Fullscreen => "fullscreen",
            WindowOp::Close => "close",
        }
    }

    /// `INVALID_ARGS` for geometry no desktop has.
    pub fn validate(&self) -> Result<()> {
        match *self {
            WindowOp::Move { x, y } if x.abs() > LIMIT || y.abs() > LIMIT => Err(
                Error::invalid_args(format!("{x},{y} is outside any desktop"))
                    .suggest("List the displays and move the window onto one of them"),
            ),
            WindowOp::Resize { w, h } if !(1..=LIMIT).contains(&w) || !(1..=LIMIT).contains(&h) => {
                Err(Error::invalid_args(format!("{w}x{h} is no window size"))
                    .suggest("Give a width and a height of 1 to 32000"))
            }
            _ => Ok(()),
        }
    }

    /// The state this operation leaves a window in, for those that set one.
    pub fn target_state(&self) -> Option<WindowState> {
        match self {
            WindowOp::Minimize => Some(WindowState::Minimized),
            WindowOp::Maximize => Some(WindowState::Maximized),
            WindowOp::Fullscreen => Some(WindowState::Fullscreen),
            WindowOp::Restore => Some(WindowState::Normal),
            _ => None,
        }
    }

    /// How far `after` (the window observed now) is from this operation done on `before`.
    /// `Close` is judged by the window going away, not here.
    pub fn reached(&self, before: &WindowInfo, after: &WindowInfo) -> Reach {
        let moved = |b: Option<crate::Rect>, a: Option<crate::Rect>| match (b, a) {
            (Some(b), Some(a)) => (b.x, b.y) != (a.x, a.y),
            _ => false,
        };
        let sized = |b: Option<crate::Rect>, a: Option<crate::Rect>| match (b, a) {
            (Some(b), Some(a)) => (b.w, b.h) != (a.w, a.h),
            _ => false,
        };
        match *self {
            WindowOp::Move { x, y } => match after.bounds {
                Some(a) if (a.x, a.y) == (x, y) => Reach::Done,
                _ if moved(before.bounds, after.bounds) => Reach::Adjusted,
                _ => Reach::Not,
            },
            WindowOp::Resize { w, h } => match after.bounds {
                Some(a) if (a.w, a.h) == (w, h) => Reach::Done,
                _ if sized(before.bounds, after.bounds) => Reach::Adjusted,
                _ => Reach::Not,
            },
            WindowOp::Close => Reach::Not,
            op => {
                if Some(after.state) == op.target_state() {
                    Reach::Done
                } else {
                    Reach::Not
                }
            }
        }
    }
}

/// Carries out `op` on the window `target` names and judges what was observed.
///
/// `data`: `{"action":"window","op":"move","route":"system","effect":"confirmed",
/// "window":{…as list shows it now…}}`, `"adjusted":true` where the window changed but not
/// exactly as asked, `"unchanged":true` where it already was so, `"closed":true` for a
/// closed window.
pub async fn run<D: Desktop>(d: &D, target: &Target, op: WindowOp) -> Result<ActionResult> {
    op.validate()?;
    let window = d.resolve(target).await?;
    let result = |w: Option<&WindowInfo>| {
        let r = ActionResult::new("window", Route::System).with("op", op.name());
        match w {
            Some(w) => r.with("window", serde_json::to_value(w).unwrap_or_default()),
            None => r,
        }
    };
    let already = match op {
        WindowOp::Close => false,
        _ => op.reached(&window, &window) == Reach::Done,
    };
    if already {
        let mut r = result(Some(&window)).with("unchanged", true);
        r.effect = Effect::Confirmed;
        return Ok(r);
    }
    let others = if op == WindowOp::Close {
        same_process(d, &window).await
    } else {
        Vec::new()
    };
    let after = d.window_op(&window, op).await?;
    let Some(after) = after else {
        let mut r = result(None).with("closed", true);
        r.effect = Effect::Confirmed;
        if let Some(id) = window.id {
            r = r.with("id", id);
        }
        return Ok(r.with("title", window.title));
    };
    if op == WindowOp::Close {
        return Err(still_open(d, &window, &others).await);
    }
    match op.reached(&window, &after) {
        Reach::Done => {
            let mut r = result(Some(&after));
            r.effect = Effect::Confirmed;
            Ok(r)
        }
        Reach::Adjusted => {
            let mut r = result(Some(&after)).with("adjusted", true);
            r.effect = Effect::Confirmed;
            Ok(r)
        }
        Reach::Not => Err(Error::new(
            ErrorCode::ActionFailed,
            format!(
                "the window \"{}\" did not {}: it is {}",
                after.title,
                op.name(),
                describe(&after)
            ),
        )
        .suggest(
            "List the windows to see its state; the window manager may refuse this for this window",
        )),
    }
}

/// A window's geometry and state in words, for messages.
fn describe(w: &WindowInfo) -> String {
    let state = match w.state {
        WindowState::Normal => "normal",
        WindowState::Minimized => "minimized",
        WindowState::Maximized => "maximized",
        WindowState::Fullscreen => "full screen",
    };
    match w.bounds {
        Some(b) => format!("{state} at {},{} {}x{}", b.x, b.y, b.w, b.h),
        None => state.to_string(),
    }
}

/// The ids of the windows of `window`'s process.
async fn same_process<D: Desktop>(d: &D, window: &WindowInfo) -> Vec<Option<u64>> {
    crate::windows::of_process(d, window)
        .await
        .iter()
        .map(|w| w.id)
        .collect()
}

/// The error for a window asked to close that stayed: the question its app put up instead
/// (a dialog of the same process), or simply that it is still open. `others`: the ids of
/// the process's windows before it was asked.
async fn still_open<D: Desktop>(d: &D, window: &WindowInfo, others: &[Option<u64>]) -> Error {
    match asking(d, window, others).await {
        Some(dialog) => Error::new(
            ErrorCode::ActionFailed,
            format!(
                "{} asks before closing \"{}\": a dialog \"{}\" is showing (nothing was answered)",
                window.app, window.title, dialog.title
            ),
        )
        .suggest("Read that dialog and choose (save, discard or cancel), or end the app with close-app --force"),
        None => Error::new(
            ErrorCode::ActionFailed,
            format!("the window \"{}\" is still open", window.title),
        )
        .suggest("Read the window: its app may ask something first, or refuse to close"),
    }
}

/// A dialog the window's app shows besides it: modal, or a window of the same process
/// that was not there before (its own "save changes?").
async fn asking<D: Desktop>(
    d: &D,
    window: &WindowInfo,
    others: &[Option<u64>],
) -> Option<WindowInfo> {
    if window.pid == 0 {
        return None;
    }
    let now = crate::windows::of_process(d, window).await;
    now.iter()
        .find(|w| w.modal && w.id != window.id)
        .or_else(|| {
            now.iter().find(|w| {
                w.id != window.id && !others.contains(&w.id) && w.state != WindowState::Minimized
            })
        })
        .cloned()
}

/// `close-app`: what to do with the app's processes when its windows do not all close.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Force {
    /// Report what stayed open and why; end nothing.
    No,
    /// End the processes that still show windows after this long.
    After(Duration),
}

/// Asks every window of the app named `app` to close, then judges what happened.
///
/// `data`: `{"action":"close-app","app":"mousepad","route":"system","effect":"confirmed",
/// "closed":["Untitled 1"],"ended":[4242]}` (`ended`: processes ended with `--force`).
/// Several apps matching the name is `AMBIGUOUS_TARGET`: no process is touched unless it is
/// tied to the one app named.
pub async fn close_app<D: Desktop>(d: &D, app: &str, force: Force) -> Result<ActionResult> {
    if app.trim().is_empty() {
        return Err(Error::invalid_args("the app to close is empty")
            .suggest("Name an app as list shows it"));
    }
    let all = d.windows(&Target::default()).await?;
    let windows = one_app(&all.windows, &all.app_names, app)?;
    let name = windows[0].app.clone();
    let pids: Vec<u32> = {
        let mut p: Vec<u32> = windows.iter().map(|w| w.pid).filter(|p| *p != 0).collect();
        p.sort_unstable();
        p.dedup();
        p
    };
    let mut closed = Vec::new();
    let mut held: Option<Error> = None;
    // Dialogs are left alone: closing one answers it (as Cancel would), and they go with
    // the window they belong to. One already showing is a question to report.
    let ids: Vec<Option<u64>> = all.windows.iter().map(|w| w.id).collect();
    if let Some(dialog) = windows.iter().find(|w| w.modal) {
        held = Some(
            Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "{} shows a dialog \"{}\" that must be answered first (nothing was closed or answered)",
                    dialog.app, dialog.title
                ),
            )
            .suggest("Read that dialog and choose, or end the app with close-app --force"),
        );
    }
    for w in windows.iter().filter(|w| !w.modal && held.is_none()) {
        match d.window_op(w, WindowOp::Close).await {
            Ok(None) => closed.push(w.title.clone()),
            Ok(Some(_)) => {
                held = Some(still_open(d, w, &ids).await);
                break;
            }
            // Gone meanwhile (its main window took it along).
            Err(e) if e.code == ErrorCode::WindowNotFound => closed.push(w.title.clone()),
            Err(e) => {
                held = Some(e);
                break;
            }
        }
    }
    let mut r = ActionResult::new("close-app", Route::System)
        .with("app", name.clone())
        .with("closed", closed.clone());
    match (held, force) {
        (None, _) => {
            r.effect = Effect::Confirmed;
            Ok(r)
        }
        (Some(e), Force::No) => Err(Error::new(
            e.code,
            format!(
                "{}{}",
                if closed.is_empty() {
                    String::new()
                } else {
                    format!("closed {}; ", quoted(&closed))
                },
                e.message
            ),
        )
        .suggest(e.suggestion.unwrap_or_default())),
        (Some(_), Force::After(grace)) => {
            let mut ended = Vec::new();
            for pid in pids {
                if d.end_process(pid, grace).await? {
                    ended.push(pid);
                }
            }
            r.effect = Effect::Confirmed;
            Ok(r.with("ended", ended))
        }
    }
}

fn quoted(titles: &[String]) -> String {
    titles
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The windows of the one app `name` names: its exact name (any case) first, else the
/// only app whose name holds it; several is `AMBIGUOUS_TARGET`, none `APP_NOT_FOUND`.
fn one_app(all: &[WindowInfo], app_names: &[String], name: &str) -> Result<Vec<WindowInfo>> {
    let exact: Vec<&WindowInfo> = all
        .iter()
        .filter(|w| w.app.eq_ignore_ascii_case(name))
        .collect();
    let hits: Vec<&WindowInfo> = if exact.is_empty() {
        all.iter().filter(|w| name_matches(&w.app, name)).collect()
    } else {
        exact
    };
    let mut apps: Vec<&str> = hits.iter().map(|w| w.app.as_str()).collect();
    apps.sort_unstable();
    apps.dedup();
    match apps.len() {
        0 => {
            let mut known: Vec<&str> = all.iter().map(|w| w.app.as_str()).collect();
            known.extend(app_names.iter().map(String::as_str));
            known.sort_unstable();
            known.dedup();
            let open = if known.is_empty() {
                "no app is open".to_string()
            } else {
                format!("open: {}", known.join(", "))
            };
            Err(Error::new(
                ErrorCode::AppNotFound,
                format!("no app \"{name}\" has a window ({open})"),
            )
            .suggest("Use an app name as list shows it"))
        }
        1 => Ok(hits.into_iter().cloned().collect()),
        _ => Err(Error::new(
            ErrorCode::AmbiguousTarget,
            format!("\"{name}\" names several apps: {}", apps.join(", ")),
        )
        .suggest("Give the app's whole name")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rect;

    fn win(app: &str, b: Rect, state: WindowState) -> WindowInfo {
        WindowInfo {
            app: app.into(),
            pid: 7,
            title: "t".into(),
            id: Some(1),
            bounds: Some(b),
            focused: false,
            a11y: true,
            modal: false,
            state,
            display: None,
            handle: None,
        }
    }

    #[test]
    fn moves_and_resizes_are_judged_by_the_geometry_seen() {
        let before = win("a", Rect::new(0, 0, 400, 300), WindowState::Normal);
        let there = win("a", Rect::new(50, 60, 400, 300), WindowState::Normal);
        let kept_on_screen = win("a", Rect::new(10, 60, 400, 300), WindowState::Normal);
        let mv = WindowOp::Move { x: 50, y: 60 };
        assert_eq!(mv.reached(&before, &there), Reach::Done);
        assert_eq!(mv.reached(&before, &kept_on_screen), Reach::Adjusted);
        assert_eq!(mv.reached(&before, &before), Reach::Not);
        let rs = WindowOp::Resize { w: 500, h: 301 };
        let stepped = win("a", Rect::new(0, 0, 497, 299), WindowState::Normal);
        assert_eq!(rs.reached(&before, &stepped), Reach::Adjusted);
        assert_eq!(rs.reached(&before, &there), Reach::Not);
    }

    #[test]
    fn states_are_judged_by_the_state_seen() {
        let b = Rect::new(0, 0, 10, 10);
        let normal = win("a", b, WindowState::Normal);
        let max = win("a", b, WindowState::Maximized);
        assert_eq!(WindowOp::Maximize.reached(&normal, &max), Reach::Done);
        assert_eq!(WindowOp::Minimize.reached(&normal, &max), Reach::Not);
        assert_eq!(WindowOp::Restore.reached(&max, &normal), Reach::Done);
        assert_eq!(WindowOp::Close.reached(&max, &normal), Reach::Not);
    }

    #[test]
    fn geometry_no_desktop_has_is_refused() {
        assert!(WindowOp::Resize { w: 0, h: 10 }.validate().is_err());
        assert!(WindowOp::Resize { w: 10, h: 40_000 }.validate().is_err());
        assert!(WindowOp::Move { x: -40_000, y: 0 }.validate().is_err());
        assert!(WindowOp::Move { x: -1920, y: 0 }.validate().is_ok());
    }

    #[test]
    fn close_app_ties_a_name_to_one_app_only() {
        let b = Rect::new(0, 0, 10, 10);
        let all = vec![
            win("mousepad", b, WindowState::Normal),
            win("gtk3-widget-factory", b, WindowState::Normal),
            win("gtk3-demo", b, WindowState::Normal),
        ];
        assert_eq!(one_app(&all, &[], "Mousepad").unwrap().len(), 1);
        let e = one_app(&all, &[], "gtk3").unwrap_err();
        assert_eq!(e.code, ErrorCode::AmbiguousTarget);
        assert!(e.message.contains("gtk3-demo") && e.message.contains("gtk3-widget-factory"));
        let e = one_app(&all, &["calc".into()], "writer").unwrap_err();
        assert_eq!(e.code, ErrorCode::AppNotFound);
        assert!(e.message.contains("calc"), "{}", e.message);
    }
}
