//! `menu --path "File > Save As…"`: each level found among the items the level above opened
//! (a menu bar's, or a menu button's such as a browser's app menu), opened with the
//! element's own click, and the leaf activated — the same on every backend, through reads
//! and actions by id. A level that is not there answers `ELEMENT_NOT_FOUND` with the items
//! that level has, and the menus opened on the way are closed again.

use crate::action::ActionResult;
use crate::backend::Desktop;
use crate::error::{Error, ErrorCode, Result};
use crate::filter::Filters;
use crate::keys::Combo;
use crate::model::{ReadData, Target, WindowInfo};
use crate::node::Node;
use crate::request::{Action, ActionRequest, Aim, Button, Element};
use crate::role::Role;
use std::time::{Duration, Instant};

/// How long a submenu gets to show its items after its parent was opened.
const OPEN_WAIT: Duration = Duration::from_secs(3);
const POLL: Duration = Duration::from_millis(40);

/// The levels of a path: `File > Save As…` → `["File", "Save As…"]`.
pub fn levels(path: &str) -> Result<Vec<String>> {
    let levels: Vec<String> = path.split('>').map(|l| l.trim().to_string()).collect();
    if levels.iter().any(String::is_empty) {
        return Err(
            Error::invalid_args(format!("the menu path {path:?} has an empty level"))
                .suggest("Write the levels separated by >, e.g. \"File > Save As\""),
        );
    }
    Ok(levels)
}

/// A name as a menu shows it, for comparing: no mnemonic marks, no trailing ellipsis or
/// accelerator hint, any case.
pub fn normalized(name: &str) -> String {
    let mut s: String = name.chars().filter(|c| *c != '_' && *c != '&').collect();
    // "Save As…\tCtrl+Shift+S": the accelerator after a tab is not part of the name.
    if let Some(at) = s.find('\t') {
        s.truncate(at);
    }
    // "Open history page Ctrl+H": an accelerator shown after the name.
    let mut s = s.trim_end().to_string();
    if let Some((head, last)) = s.rsplit_once(' ') {
        let l = last.to_lowercase();
        let key = ["ctrl+", "shift+", "alt+", "super+", "meta+", "cmd+"]
            .iter()
            .any(|m| l.starts_with(m))
            || (l.len() <= 3 && l.starts_with('f') && l[1..].parse::<u8>().is_ok());
        if key && !head.trim().is_empty() {
            s = head.trim_end().to_string();
        }
    }
    let s = s.as_str();
    let s = s
        .strip_suffix('…')
        .or_else(|| s.strip_suffix("..."))
        .unwrap_or(s);
    s.trim().to_lowercase()
}

/// A menu's item: a menu item (check and radio ones too), or a named menu (GTK calls an
/// item with a submenu a menu; the bar and the popups holding items are unnamed).
fn is_item(n: &Node) -> bool {
    matches!(n.role, Role::MenuItem | Role::CheckBox | Role::Radio)
        || (n.role == Role::Menu && !n.name.trim().is_empty())
}

/// The items of one level: menu items under `parent` (the whole tree for the first level)
/// that no other menu item holds between them and it. In a popup of its own (`popup`) a
/// named menu holding items is the popup itself (Chromium names a submenu's popup after
/// its item), not an item.
fn items(roots: &[Node], parent: Option<u32>, popup: bool) -> Vec<&Node> {
    fn visit<'a>(n: &'a Node, popup: bool, out: &mut Vec<&'a Node>) {
        let holds = n.role == Role::Menu && n.children.iter().any(|c| c.walk_any(is_item));
        if is_item(n) && !(popup && holds) {
            out.push(n);
            return;
        }
        for c in &n.children {
            visit(c, popup, out);
        }
    }
    let mut out = Vec::new();
    match parent {
        None => {
            for n in roots {
                visit(n, popup, &mut out);
            }
        }
        Some(id) => {
            let mut at: Option<&Node> = None;
            for n in roots {
                n.walk(&mut |x| {
                    if x.id == id && at.is_none() {
                        at = Some(x);
                    }
                });
            }
            if let Some(p) = at {
                for c in &p.children {
                    visit(c, popup, &mut out);
                }
            }
        }
    }
    out
}

/// A button named `want` exactly, which opens a menu of its own (a browser's app menu):
/// the first level of a path when no menu bar has it.
fn menu_button<'a>(roots: &'a [Node], want: &str) -> Option<&'a Node> {
    let want = normalized(want);
    let mut hit = None;
    for n in roots {
        n.walk(&mut |x| {
            if hit.is_none() && x.role == Role::Button && normalized(&x.name) == want {
                hit = Some(x);
            }
        });
    }
    hit
}

/// The item of `found` named `want`: the same name, else the only one starting with it.
fn pick<'a>(found: &[&'a Node], want: &str) -> Option<&'a Node> {
    let want = normalized(want);
    let named = |n: &&Node| normalized(&n.name);
    found
        .iter()
        .find(|n| named(n) == want)
        .or_else(|| {
            let starts: Vec<_> = found
                .iter()
                .filter(|n| named(n).starts_with(&want))
                .collect();
            (starts.len() == 1).then(|| starts[0])
        })
        .copied()
}

/// Opens each level of `path` in the window `target` names and activates the last.
///
/// `data`: the leaf's click (`action` "menu", its `element`, `route`, `effect`) and
/// `"path":["File","Save As…"]` as the menus name the levels.
/// `sleep` is the runtime's timer.
pub async fn open<D: Desktop, F: std::future::Future<Output = ()>>(
    d: &D,
    target: &Target,
    path: &str,
    sleep: impl Fn(Duration) -> F,
) -> Result<ActionResult> {
    let levels = levels(path)?;
    let window = d.resolve(target).await?;
    let scope = Target {
        window_id: window.id,
        pid: window.id.is_none().then_some(window.pid),
        ..Target::default()
    };
    let mut parent: Option<u32> = None;
    // The window the last level was found in, and every window a level was found in: a
    // submenu in a popup of its own is looked for in popups not seen yet.
    let mut current = window.clone();
    let mut seen = vec![window.id];
    let mut names = Vec::new();
    let mut result = None;
    // The levels opened so far are `k`: Escape closes as many when a later one fails.
    for (k, want) in levels.iter().enumerate() {
        let parent_name = names.last().map(String::as_str);
        let found = find_level(d, &current, &seen, (parent, parent_name), want, &sleep).await;
        let (data, id) = match found {
            Ok(x) => x,
            Err(e) => {
                close(d, &scope, k).await;
                return Err(e);
            }
        };
        let node = data
            .elements
            .iter()
            .flat_map(|n| {
                let mut v = Vec::new();
                n.walk(&mut |x| {
                    if x.id == id {
                        v.push(x.clone());
                    }
                });
                v
            })
            .next();
        names.push(
            node.as_ref()
                .map_or_else(|| want.clone(), |n| n.name.clone()),
        );
        if data.window.id != current.id {
            seen.push(data.window.id);
            current = data.window.clone();
        }
        let scope = Target {
            window_id: data.window.id,
            pid: data.window.id.is_none().then_some(data.window.pid),
            ..Target::default()
        };
        let click = Action::Click {
            button: Button::Left,
            count: 1,
            modifiers: Vec::new(),
        };
        let req = ActionRequest::new(scope.clone(), Aim::Element(Element::Id(id)), click);
        match d.act(&req).await {
            Ok(r) => result = Some(r),
            Err(e) => {
                close(d, &scope, k).await;
                return Err(e);
            }
        }
        parent = Some(id);
    }
    let mut r = result.ok_or_else(|| Error::internal("a menu path without levels"))?;
    r.action = "menu";
    Ok(r.with("path", names))
}

/// Reads until the level's items show (a submenu takes a moment to open), then finds the
/// one named `want`; `ELEMENT_NOT_FOUND` with the level's items when it is not among them.
/// A submenu may be a window of its own (a popup): the app's other windows are read too.
async fn find_level<D: Desktop, F: std::future::Future<Output = ()>>(
    d: &D,
    window: &WindowInfo,
    seen: &[Option<u64>],
    (parent, parent_name): (Option<u32>, Option<&str>),
    want: &str,
    sleep: &impl Fn(Duration) -> F,
) -> Result<(ReadData, u32)> {
    let wait = parent.is_some();
    let filters = Filters {
        visible_only: true,
        max_elements: Some(5000),
        ..Filters::default()
    };
    let deadline = Instant::now() + if wait { OPEN_WAIT } else { Duration::ZERO };
    // Once a menu shows items, a moment more for those it fills in late (recent entries).
    let mut items_since: Option<Instant> = None;
    loop {
        let data = d.read_window(window.clone(), &filters, None).await?;
        let here = items(&data.elements, parent, false);
        let button = || {
            parent
                .is_none()
                .then(|| menu_button(&data.elements, want))
                .flatten()
        };
        if let Some(n) = pick(&here, want).or_else(button) {
            let id = n.id;
            return Ok((data, id));
        }
        // A popup of its own: the first-level items of the app's other windows.
        let mut popup_names = Vec::new();
        if parent.is_some() && here.is_empty() {
            for w in popups(d, window).await {
                if seen.contains(&w.id) {
                    continue;
                }
                let Ok(p) = d.read_window(w, &filters, None).await else {
                    continue;
                };
                let there = items(&p.elements, None, true);
                if let Some(n) = pick(&there, want) {
                    let id = n.id;
                    return Ok((p, id));
                }
                popup_names.extend(there.iter().map(|n| n.name.clone()));
            }
        }
        let now = Instant::now();
        if !here.is_empty() || !popup_names.is_empty() {
            items_since.get_or_insert(now);
        }
        let settled = items_since.is_some_and(|t| now - t >= Duration::from_millis(500));
        if !wait || settled || now >= deadline {
            let mut shown: Vec<String> = here.iter().map(|n| n.name.clone()).collect();
            shown.extend(popup_names);
            shown.retain(|s| !s.is_empty());
            let what = match parent_name {
                None => "the window's menu bar".to_string(),
                Some(p) => format!("the menu {p:?}"),
            };
            let has = if shown.is_empty() {
                format!("{what} shows no items")
            } else {
                format!("{what} has: {}", shown.join(", "))
            };
            return Err(Error::new(
                ErrorCode::ElementNotFound,
                format!("no menu item {want:?}; {has}"),
            )
            .suggest("Use one of the items listed, as the path's level"));
        }
        sleep(POLL).await;
    }
}

/// The app's other windows (where a toolkit puts an open menu).
async fn popups<D: Desktop>(d: &D, window: &WindowInfo) -> Vec<WindowInfo> {
    crate::windows::of_process(d, window)
        .await
        .into_iter()
        .filter(|w| w.id != window.id && w.a11y)
        .collect()
}

/// Closes the menus opened on the way (Escape once per level).
async fn close<D: Desktop>(d: &D, scope: &Target, opened: usize) {
    if opened == 0 {
        return;
    }
    let Ok(escape) = Combo::parse("escape") else {
        return;
    };
    let combos: Vec<Combo> = std::iter::repeat_n(escape, opened).collect();
    let req = ActionRequest::new(scope.clone(), Aim::Window, Action::Press { combos });
    let _ = d.act(&req).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: u32, name: &str, children: Vec<Node>) -> Node {
        Node {
            id,
            role: Role::MenuItem,
            name: name.into(),
            children,
            ..Node::default()
        }
    }

    #[test]
    fn levels_and_names_compare_as_menus_show_them() {
        assert_eq!(levels("File > Save As…").unwrap(), vec!["File", "Save As…"]);
        assert!(levels("File > > Save").is_err());
        assert!(levels(" ").is_err());
        assert_eq!(normalized("_Save As…"), "save as");
        assert_eq!(normalized("&Open...\tCtrl+O"), "open");
        assert_eq!(normalized("Open history page Ctrl+H"), "open history page");
        assert_eq!(normalized("Full screen F11"), "full screen");
        assert_eq!(normalized("Print… Ctrl+P"), "print");
        assert_eq!(normalized("F11"), "f11");
    }

    #[test]
    fn each_level_is_found_among_the_items_the_one_above_holds() {
        let menu = |id, children| Node {
            id,
            role: Role::Menu,
            children,
            ..Node::default()
        };
        let tree = vec![menu(
            1,
            vec![
                item(
                    2,
                    "File",
                    vec![menu(
                        3,
                        vec![item(4, "Open", vec![]), item(5, "Save As…", vec![])],
                    )],
                ),
                item(6, "Edit", vec![]),
            ],
        )];
        let top = items(&tree, None, false);
        assert_eq!(top.iter().map(|n| n.id).collect::<Vec<_>>(), vec![2, 6]);
        assert_eq!(pick(&top, "file").map(|n| n.id), Some(2));
        let file = items(&tree, Some(2), false);
        assert_eq!(file.iter().map(|n| n.id).collect::<Vec<_>>(), vec![4, 5]);
        assert_eq!(pick(&file, "Save As").map(|n| n.id), Some(5));
        assert_eq!(
            pick(&file, "Sa").map(|n| n.id),
            Some(5),
            "the only one starting so"
        );
        assert_eq!(pick(&file, "Print"), None);
    }
}
