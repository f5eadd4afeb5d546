//! Which windows a target names and the one a command acts on, the same on every platform:
//! matching by app name (with a fallback the backend gives, e.g. titles and program names
//! for toolkits whose apps all share one name), pid, window id and title; picking a modal
//! dialog, else the focused window, else the top of the stack; and errors that list what is
//! open.

use crate::error::{Error, ErrorCode, Result};
use crate::model::{name_matches, Target, WindowInfo};

/// How a window may be known by an app name its accessible app name does not have. Only
/// asked when no window's app has that name.
pub trait AlsoKnownAs {
    fn also_known_as(&self, w: &WindowInfo, name: &str) -> bool;
}

/// By its title (the fallback every platform has).
#[derive(Clone, Copy, Debug, Default)]
pub struct ByTitle;

impl AlsoKnownAs for ByTitle {
    fn also_known_as(&self, w: &WindowInfo, name: &str) -> bool {
        name_matches(&w.title, name)
    }
}

/// Windows matching every field set in `t`. An app is known by its name first; where no
/// window's app has that name, by what `aka` says.
pub fn filter(windows: &[WindowInfo], t: &Target, aka: &impl AlsoKnownAs) -> Vec<WindowInfo> {
    let named = t
        .app
        .as_deref()
        .is_some_and(|a| windows.iter().any(|w| name_matches(&w.app, a)));
    windows
        .iter()
        .filter(|w| {
            t.app.as_deref().is_none_or(|a| {
                if named {
                    name_matches(&w.app, a)
                } else {
                    aka.also_known_as(w, a)
                }
            })
        })
        .filter(|w| t.pid.is_none_or(|p| w.pid == p))
        .filter(|w| t.window_id.is_none_or(|id| w.id == Some(id)))
        .filter(|w| {
            t.window
                .as_deref()
                .is_none_or(|s| w.title.to_lowercase().contains(&s.to_lowercase()))
        })
        .cloned()
        .collect()
}

/// The one window a command acts on: among the matches, a modal dialog (its app takes input
/// there first, whether or not the window system gave it the focus), else the focused one,
/// else the top of the stack (windows with an accessibility tree first). Several matches
/// are not an error: a desktop picks. `app_names`: apps without a window, for the error.
pub fn pick(
    all: &[WindowInfo],
    t: &Target,
    app_names: &[String],
    aka: &impl AlsoKnownAs,
) -> Result<WindowInfo> {
    let matches = filter(all, t, aka);
    let best = matches
        .iter()
        .find(|w| w.modal && w.a11y)
        .or_else(|| matches.iter().find(|w| w.focused && w.a11y))
        .or_else(|| matches.iter().find(|w| w.a11y))
        .or_else(|| matches.first());
    match best {
        Some(w) => Ok(w.clone()),
        None => Err(not_found(all, t, app_names, aka)),
    }
}

/// `APP_NOT_FOUND` when the app or pid names nothing, else `WINDOW_NOT_FOUND`; both list
/// the open windows.
fn not_found(
    all: &[WindowInfo],
    t: &Target,
    app_names: &[String],
    aka: &impl AlsoKnownAs,
) -> Error {
    let app_exists = !filter(
        all,
        &Target {
            window: None,
            window_id: None,
            ..t.clone()
        },
        aka,
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

/// The windows of `window`'s process as the backend lists them now (the window alone, by
/// its id, where its process is unknown); none when the list cannot be had. Where a
/// toolkit puts an open menu, a dialog's question, a file chooser.
pub async fn of_process<D: crate::backend::Desktop>(d: &D, window: &WindowInfo) -> Vec<WindowInfo> {
    let same = Target {
        pid: (window.pid != 0).then_some(window.pid),
        window_id: (window.pid == 0).then_some(window.id).flatten(),
        ..Target::default()
    };
    d.windows(&same)
        .await
        .map(|l| l.windows)
        .unwrap_or_default()
}
