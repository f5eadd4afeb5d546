//! What a file chooser is, told from one read of its window (or, where it has no tree, from
//! its title), and the path it gets: pure functions, pinned by the tests below.

use crate::error::{Error, Result};
use crate::model::WindowInfo;
use crate::node::{Node, States};
use crate::role::Role;
use std::path::{Path, PathBuf};

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

    pub fn as_str(self) -> &'static str {
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

/// Titles GTK gives the choosers it shows for apps that do not expose its widgets to
/// accessibility (Chromium's own file dialogs: an `<input type=file>`, Save page as).
const BLIND_TITLES: &[(&str, Mode)] = &[
    ("open file", Mode::Open),
    ("open files", Mode::Open),
    ("select file", Mode::Open),
    ("select files", Mode::Open),
    ("file upload", Mode::Open),
    ("choose file", Mode::Open),
    ("choose files", Mode::Open),
    ("save file", Mode::Save),
    ("save as", Mode::Save),
];

/// A chooser with no accessibility tree: a modal window without one, titled as GTK titles
/// its choosers. Only such a window gets keys blind.
pub fn blind(w: &WindowInfo) -> Option<Mode> {
    if w.a11y || !w.modal {
        return None;
    }
    let title = plain(&w.title);
    BLIND_TITLES
        .iter()
        .find(|(t, _)| *t == title)
        .map(|(_, m)| *m)
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

/// What a question dialog says: its texts, joined, at most 200 characters.
pub(super) fn saying(roots: &[Node]) -> String {
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

pub(super) fn value_of(roots: &[Node], id: u32) -> Option<String> {
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
    fn only_a_modal_window_without_a_tree_titled_as_a_chooser_gets_keys_blind() {
        let w = |title: &str, a11y: bool, modal: bool| WindowInfo {
            app: "Chromium".into(),
            pid: 1,
            title: title.into(),
            id: Some(7),
            bounds: None,
            focused: true,
            a11y,
            modal,
            state: Default::default(),
            display: None,
            handle: None,
        };
        assert_eq!(blind(&w("Open File", false, true)), Some(Mode::Open));
        assert_eq!(blind(&w("Save File", false, true)), Some(Mode::Save));
        assert_eq!(
            blind(&w("Open File", true, true)),
            None,
            "it has a tree: read it"
        );
        assert_eq!(blind(&w("Open File", false, false)), None, "not modal");
        assert_eq!(blind(&w("Open File - Notes", false, true)), None);
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
