//! `file-dialog --path P`: fills the open or save chooser that is showing (GTK's, Qt's, the
//! desktop portal's, the systems' own) through the same reads and actions on every backend —
//! the path into its file-name or location field, Enter, and the chooser seen to close.
//! A chooser that asks a question instead (replace the file?) has that question reported,
//! never answered.

use crate::action::{ActionResult, Effect, Route};
use crate::backend::Desktop;
use crate::error::{Error, ErrorCode, Result};
use crate::filter::Filters;
use crate::keys::Combo;
use crate::model::{name_matches, ReadData, Target, WindowInfo};
use crate::node::{Node, States};
use crate::request::{Action, ActionRequest, Aim, Element};
use crate::role::Role;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How long a chooser gets to close after Enter (it may check the file first).
const CLOSE_WAIT: Duration = Duration::from_secs(4);
/// After this long still open with nothing asked, Enter once more: GTK's chooser showing
/// recent files first only goes to the folder on the first Enter.
const SECOND_ENTER: Duration = Duration::from_millis(1200);
/// Between the path set and Enter: GTK's chooser loads the path's folder first and drops
/// an Enter that comes sooner (measured: lost within 100 ms, taken from 200 ms).
const TAKE_IN: Duration = Duration::from_millis(250);
/// How long a location field opened with Ctrl+L gets to show.
const FIELD_WAIT: Duration = Duration::from_secs(2);
const POLL: Duration = Duration::from_millis(40);
/// How long a chooser gets to come up before none is said to show.
const APPEAR_WAIT: Duration = Duration::from_millis(1500);
/// Windows read while looking for a chooser, at most.
const MAX_CANDIDATES: usize = 8;

/// What the chooser is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Open,
    Save,
}

impl Mode {
    pub fn parse(s: &str) -> Result<Mode> {
        match s.trim().to_lowercase().as_str() {
            "open" => Ok(Mode::Open),
            "save" => Ok(Mode::Save),
            _ => Err(
                Error::invalid_args(format!("unknown file dialog action {s:?}"))
                    .suggest("Use --action open or --action save"),
            ),
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Mode::Open => "open",
            Mode::Save => "save",
        }
    }
}

/// A chooser as read: the field a path goes into (absent: GTK's open chooser before Ctrl+L
/// shows its location field), and what its accepting button says it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chooser {
    pub field: Option<u32>,
    pub mode: Option<Mode>,
}

/// A name as a dialog shows it, for comparing: any case, no mnemonic, no trailing colon.
fn plain(s: &str) -> String {
    crate::menu::normalized(s)
        .trim_end_matches(':')
        .trim()
        .to_string()
}

/// Names of the field a file's name or path goes into (Qt and Windows "File name:", GTK's
/// "Location" and "Name", macOS "Save As:").
const FIELD_NAMES: &[&str] = &[
    "file name",
    "filename",
    "file",
    "name",
    "location",
    "save as",
    "path",
];

/// A field that takes text and is shown: where the toolkit says what shows (GTK 4 says it
/// of windows only: then what it reports visible), not merely on screen — a chooser
/// taller than a screen without a window manager has its field above the screen's top.
fn is_field(n: &Node, showing_known: bool) -> bool {
    let shown = if showing_known {
        n.states.contains(States::SHOWING)
    } else {
        n.states.contains(States::VISIBLE)
    };
    n.role == Role::Input && shown && !n.states.contains(States::DISABLED)
}

fn named_field(n: &Node, showing_known: bool) -> bool {
    is_field(n, showing_known)
        && [&n.name, &n.description, &n.hint]
            .iter()
            .any(|s| FIELD_NAMES.contains(&plain(s).as_str()))
}

/// Whether `roots` (one window's read) is a file chooser, and its parts.
///
/// A chooser is a window holding GTK's chooser widget (named so), or a field named for a
/// file's name beside a button that opens or saves. GTK's save chooser names its field by
/// a label only: the first field inside its widget is it.
pub fn classify(roots: &[Node]) -> Option<Chooser> {
    let mut widget: Option<&Node> = None;
    let mut named: Option<u32> = None;
    let mut mode: Option<Mode> = None;
    let showing_known = roots
        .iter()
        .any(|r| r.walk_any(|n| n.states.contains(States::SHOWING)));
    for r in roots {
        r.walk(&mut |n| {
            if widget.is_none() && n.role == Role::Dialog && plain(&n.name).contains("chooser") {
                widget = Some(n);
            }
            if named.is_none() && named_field(n, showing_known) {
                named = Some(n.id);
            }
            if mode.is_none() && n.role == Role::Button {
                mode = match plain(&n.name).as_str() {
                    "open" | "choose" | "select" => Some(Mode::Open),
                    "save" | "save as" | "replace" => Some(Mode::Save),
                    _ => None,
                };
            }
        });
    }
    if let Some(w) = widget {
        let mut first = None;
        w.walk(&mut |n| {
            let search = [&n.name, &n.description, &n.hint]
                .iter()
                .any(|s| plain(s).contains("search"));
            if first.is_none() && is_field(n, showing_known) && !search {
                first = Some(n.id);
            }
        });
        return Some(Chooser {
            field: named.or(first),
            mode,
        });
    }
    let field = named?;
    mode.map(|m| Chooser {
        field: Some(field),
        mode: Some(m),
    })
}

/// `path` as the chooser must get it: `~/` expanded, relative to the current folder made
/// absolute (the app's own current folder is another). Open wants an existing file, save
/// an existing folder to write into.
pub fn absolute(path: &str, mode: Option<Mode>) -> Result<PathBuf> {
    let trimmed = path.trim();
    if trimmed.is_empty() {
        return Err(
            Error::invalid_args("the path is empty").suggest("Name the file to open or save")
        );
    }
    let p = match trimmed.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(|h| Path::new(&h).join(rest))
            .unwrap_or_else(|| PathBuf::from(trimmed)),
        None => PathBuf::from(trimmed),
    };
    let p = if p.is_absolute() {
        p
    } else {
        std::env::current_dir().map(|c| c.join(&p)).unwrap_or(p)
    };
    match mode {
        Some(Mode::Open) if !p.exists() => Err(Error::invalid_args(format!(
            "there is no file {}",
            p.display()
        ))
        .suggest("Name a file that exists")),
        Some(Mode::Save) if !p.parent().is_some_and(Path::is_dir) => Err(Error::invalid_args(
            format!("the folder of {} does not exist", p.display()),
        )
        .suggest("Save into a folder that exists")),
        _ => Ok(p),
    }
}

/// Fills the chooser showing in `target` (any window when empty) with `path` and confirms.
///
/// `data`: `{"action":"file-dialog","route":"a11y","effect":"confirmed","path":"/tmp/a.txt",
/// "mode":"save","dialog":"Save File"}`, and `"written":true` when a saved file showed up.
pub async fn fill<D: Desktop, F: std::future::Future<Output = ()>>(
    d: &D,
    target: &Target,
    path: &str,
    want: Option<Mode>,
    sleep: impl Fn(Duration) -> F,
) -> Result<ActionResult> {
    let t0 = Instant::now();
    let (window, mut data, mut chooser) = find(d, target, &sleep).await?;
    let found = t0.elapsed();
    let mode = chooser.mode.or(want);
    if let (Some(w), Some(m)) = (want, chooser.mode) {
        if w != m {
            return Err(Error::invalid_args(format!(
                "the chooser \"{}\" is a {} dialog, not {}",
                window.title,
                m.as_str(),
                w.as_str()
            ))
            .suggest("Drop --action, or open the other dialog first"));
        }
    }
    let file = absolute(path, mode)?;
    let others = same_process(d, &window).await;
    if let Some(q) = others
        .iter()
        .find(|w| w.id != window.id && w.modal && w.focused)
    {
        let says = says(d, q).await;
        return Err(Error::new(
            ErrorCode::ActionFailed,
            format!(
                "a dialog \"{}\"{says} is in front of the chooser \"{}\" (nothing was answered)",
                q.title, window.title
            ),
        )
        .suggest("Read that dialog and answer it first"));
    }
    let others: Vec<Option<u64>> = others.iter().map(|w| w.id).collect();
    let text = file.to_string_lossy().into_owned();
    let scope = Target {
        window_id: window.id,
        pid: window.id.is_none().then_some(window.pid),
        ..Target::default()
    };
    if chooser.field.is_none() {
        // GTK's open chooser shows its location field on Ctrl+L.
        press(d, &scope, "ctrl+l").await?;
        let deadline = Instant::now() + FIELD_WAIT;
        while chooser.field.is_none() && Instant::now() < deadline {
            sleep(POLL).await;
            data = read(d, &window).await?;
            chooser = classify(&data.elements).unwrap_or(chooser);
        }
    }
    let field = chooser.field.ok_or_else(|| {
        Error::new(
            ErrorCode::ActionNotSupported,
            format!(
                "the chooser \"{}\" shows no field for a file name",
                window.title
            ),
        )
        .suggest(
            "Read the dialog and pick the file in its list, then press its Open or Save button",
        )
    })?;
    let _ = crate::refs::RefMap::remember(&d.refs_path(), &data);
    let on = |action| ActionRequest::new(scope.clone(), Aim::Element(Element::Id(field)), action);
    d.act(&on(Action::Focus)).await?;
    let set = d
        .act(&on(Action::SetValue {
            value: text.clone(),
        }))
        .await;
    if let Err(e) = set {
        if !matches!(e.code, ErrorCode::ActionNotSupported | ErrorCode::ReadOnly) {
            return Err(e);
        }
        let typed = Action::Type {
            text: text.clone(),
            replace: true,
            delay: Duration::ZERO,
        };
        d.act(&on(typed)).await?;
    }
    sleep(TAKE_IN).await;
    let filled = t0.elapsed();
    let started = SystemTime::now();
    press(d, &scope, "enter").await?;
    let entered = Instant::now();
    let enter_took = t0.elapsed() - filled;
    let mut entered_again = false;
    loop {
        sleep(POLL).await;
        let now = same_process(d, &window).await;
        if !now.iter().any(|w| w.id == window.id) {
            break;
        }
        if let Some(q) = now
            .iter()
            .find(|w| w.id != window.id && !others.contains(&w.id))
        {
            let says = says(d, q).await;
            return Err(Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "the chooser \"{}\" asks before taking {text}: a dialog \"{}\"{says} is showing (nothing was answered)",
                    window.title, q.title
                ),
            )
            .suggest("Read that dialog and answer it (to replace a file, or not), or name another file"));
        }
        let waited = entered.elapsed();
        if !entered_again && waited >= SECOND_ENTER {
            entered_again = true;
            // Only into the chooser still in front with nothing new beside it: an Enter
            // after it closed would land in the app's own window.
            if now.iter().any(|w| w.id == window.id && w.focused) {
                press(d, &scope, "enter").await?;
            }
        } else if waited >= CLOSE_WAIT {
            let shown = read(d, &window)
                .await
                .ok()
                .and_then(|r| value_of(&r.elements, field))
                .unwrap_or_default();
            return Err(Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "the chooser \"{}\" is still open after Enter (its field shows {shown:?})",
                    window.title
                ),
            )
            .suggest("Read the dialog: it may show why (no such file, no permission)"));
        }
    }
    let closed = t0.elapsed();
    let mut r = ActionResult::new("file-dialog", Route::A11y);
    r.effect = Effect::Confirmed;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    r.timing = vec![
        ("find", ms(found)),
        ("fill", ms(filled - found)),
        ("enter", ms(enter_took)),
        ("close", ms(closed - filled - enter_took)),
    ];
    r = r.with("path", text).with("dialog", window.title.clone());
    if let Some(m) = mode {
        r = r.with("mode", m.as_str());
    }
    if mode == Some(Mode::Save) {
        r = r.with("written", written(&file, started, &sleep).await);
    }
    Ok(r)
}

/// Whether the file saved shows up written since `since` within a moment (apps write after
/// their chooser closed; some ask more first, such as which format).
async fn written<F: std::future::Future<Output = ()>>(
    file: &Path,
    since: SystemTime,
    sleep: &impl Fn(Duration) -> F,
) -> bool {
    let deadline = Instant::now() + Duration::from_millis(1500);
    loop {
        let fresh = std::fs::metadata(file)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t + Duration::from_secs(1) >= since);
        if fresh || Instant::now() >= deadline {
            return fresh;
        }
        sleep(POLL).await;
    }
}

/// ` saying "…"`: what the dialog `q` says, or nothing when it shows no text.
async fn says<D: Desktop>(d: &D, q: &WindowInfo) -> String {
    let says = read(d, q)
        .await
        .map(|r| saying(&r.elements))
        .unwrap_or_default();
    if says.is_empty() {
        String::new()
    } else {
        format!(" saying {says:?}")
    }
}

/// What a question dialog says: its texts, joined, at most 200 characters.
fn saying(roots: &[Node]) -> String {
    let mut texts = Vec::new();
    for r in roots {
        r.walk(&mut |n| {
            if n.role == Role::Text && !n.name.trim().is_empty() {
                texts.push(n.name.split_whitespace().collect::<Vec<_>>().join(" "));
            }
        });
    }
    texts.join(" ").chars().take(200).collect()
}

fn value_of(roots: &[Node], id: u32) -> Option<String> {
    let mut v = None;
    for r in roots {
        r.walk(&mut |n| {
            if n.id == id {
                v = n.value.clone();
            }
        });
    }
    v
}

async fn read<D: Desktop>(d: &D, window: &WindowInfo) -> Result<ReadData> {
    let filters = Filters {
        visible_only: false,
        max_elements: Some(3000),
        ..Filters::default()
    };
    d.read_window(window.clone(), &filters, None).await
}

async fn press<D: Desktop>(d: &D, scope: &Target, key: &str) -> Result<()> {
    let combos = vec![Combo::parse(key)?];
    let req = ActionRequest::new(scope.clone(), Aim::Window, Action::Press { combos });
    d.act(&req).await.map(|_| ())
}

async fn same_process<D: Desktop>(d: &D, window: &WindowInfo) -> Vec<WindowInfo> {
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

/// The chooser showing: among the target's windows and their processes' other windows
/// (every window when no target is named), the focused and modal ones first; a desktop
/// portal's chooser (another process) too. One opened by the step before may still be
/// coming up: looked for again for a moment before `WINDOW_NOT_FOUND`.
async fn find<D: Desktop, F: std::future::Future<Output = ()>>(
    d: &D,
    target: &Target,
    sleep: &impl Fn(Duration) -> F,
) -> Result<(WindowInfo, ReadData, Chooser)> {
    let deadline = Instant::now() + APPEAR_WAIT;
    // Windows read and found to be no chooser, not read again (a modal one may still be
    // filling in, so it is).
    let mut not: Vec<Option<u64>> = Vec::new();
    let mut looked: Vec<String> = Vec::new();
    loop {
        for w in candidates(d, target).await? {
            if not.contains(&w.id) {
                continue;
            }
            let Ok(data) = read(d, &w).await else {
                continue;
            };
            if let Some(c) = classify(&data.elements) {
                return Ok((w, data, c));
            }
            if !w.modal {
                not.push(w.id);
            }
            let title = format!("\"{}\"", w.title);
            if !looked.contains(&title) {
                looked.push(title);
            }
        }
        if Instant::now() >= deadline {
            break;
        }
        sleep(POLL * 3).await;
    }
    let seen = if looked.is_empty() {
        "no windows".to_string()
    } else {
        looked.join(", ")
    };
    Err(Error::new(
        ErrorCode::WindowNotFound,
        format!("no file chooser is showing (looked at {seen})"),
    )
    .suggest("Open one first (menu --path \"File > Open\", or the app's own button), then fill it"))
}

/// The windows a chooser is looked for in, focused and modal first, at most
/// [`MAX_CANDIDATES`].
async fn candidates<D: Desktop>(d: &D, target: &Target) -> Result<Vec<WindowInfo>> {
    let all = d.windows(&Target::default()).await?.windows;
    let mine: Vec<WindowInfo> = if target.is_empty() {
        all.clone()
    } else {
        let named = d.windows(target).await?.windows;
        let pids: Vec<u32> = named.iter().map(|w| w.pid).filter(|p| *p != 0).collect();
        all.iter()
            .filter(|w| pids.contains(&w.pid) || named.iter().any(|n| n.id == w.id))
            .cloned()
            .collect()
    };
    let portal: Vec<WindowInfo> = all
        .into_iter()
        .filter(|w| name_matches(&w.app, "portal") && !mine.iter().any(|m| m.id == w.id))
        .collect();
    let mut out: Vec<WindowInfo> = mine.into_iter().chain(portal).collect();
    out.sort_by_key(|w| (!w.focused, !w.modal));
    out.truncate(MAX_CANDIDATES);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u32, role: Role, name: &str, children: Vec<Node>) -> Node {
        Node {
            id,
            role,
            name: name.into(),
            children,
            states: States::SHOWING,
            ..Node::default()
        }
    }

    #[test]
    fn choosers_are_told_by_their_widget_or_a_file_name_field_beside_open_or_save() {
        // GTK's open chooser before Ctrl+L: the widget, its location field not shown.
        let mut hidden = node(5, Role::Input, "", vec![]);
        hidden.hint = "Location".into();
        hidden.states = States::VISIBLE;
        let gtk_open = vec![
            node(
                1,
                Role::Dialog,
                "File Chooser Widget",
                vec![hidden, node(2, Role::Table, "Files", vec![])],
            ),
            node(3, Role::Button, "_Cancel", vec![]),
            node(4, Role::Button, "_Open", vec![]),
        ];
        assert_eq!(
            classify(&gtk_open),
            Some(Chooser {
                field: None,
                mode: Some(Mode::Open)
            })
        );
        // GTK's save chooser: its first unnamed field (a search field is not it).
        let mut search = node(2, Role::Input, "", vec![]);
        search.hint = "Search".into();
        let gtk_save = vec![
            node(
                1,
                Role::Dialog,
                "File Chooser Widget",
                vec![search, node(3, Role::Input, "", vec![])],
            ),
            node(4, Role::Button, "Save", vec![]),
        ];
        assert_eq!(
            classify(&gtk_save),
            Some(Chooser {
                field: Some(3),
                mode: Some(Mode::Save)
            })
        );
        // Qt's: "File name:" beside Save.
        let qt = vec![
            node(1, Role::Combo, "/root", vec![]),
            node(11, Role::Input, "File name:", vec![]),
            node(12, Role::Button, "&Save", vec![]),
        ];
        assert_eq!(
            classify(&qt),
            Some(Chooser {
                field: Some(11),
                mode: Some(Mode::Save)
            })
        );
        // A form with a Name field and an OK button is no chooser.
        let form = vec![
            node(1, Role::Input, "Name", vec![]),
            node(2, Role::Button, "OK", vec![]),
        ];
        assert_eq!(classify(&form), None);
    }

    #[test]
    fn paths_are_made_absolute_and_checked_for_their_use() {
        let dir = std::env::temp_dir();
        let there = dir.join("desktop-cli-filedialog-unit.txt");
        std::fs::write(&there, "x").unwrap();
        let p = there.to_string_lossy();
        assert_eq!(absolute(&p, Some(Mode::Open)).unwrap(), there);
        assert!(absolute("/no/such/dir/file.txt", Some(Mode::Open)).is_err());
        assert!(absolute("/no/such/dir/file.txt", Some(Mode::Save)).is_err());
        assert!(absolute(&dir.join("new.txt").to_string_lossy(), Some(Mode::Save)).is_ok());
        assert!(absolute("rel.txt", None).unwrap().is_absolute());
        assert!(absolute("  ", None).is_err());
        std::fs::remove_file(there).unwrap();
    }
}
