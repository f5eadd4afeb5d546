//! Which elements are showing, for a toolkit that says so only of its windows. GTK 4.8
//! sets SHOWING on top-level windows alone: inner widgets are VISIBLE whether drawn or
//! not, and the pages of a stack or notebook (elements without a box of their own) all
//! look alike, each keeping the box it had when last shown. So an element counts as
//! showing when its parent does, it is visible, and its box is not empty; of a set of
//! pages, only the one a selected tab controls (the tab is selected at once, while the
//! pages may still be sliding), else the one the app finds at the middle of their
//! container (the toolkit's own hit test). Boxes are asked level by level, only under
//! showing parents, so hidden pages cost nothing below them. GTK 2 (GAIL) says SHOWING of
//! everything but the items of an open popup menu: its menu bar's selection tells which.

use crate::bus::Addr;
use crate::bus::{Bus, CallError, ObjectRef, ACCESSIBLE};
use desktop_core::{Caps, Handle, Node, Rect, Role, States};
use futures_util::future::join_all;
use std::collections::HashSet;

/// AT-SPI's relation type "controller for" (a tab and the page it shows).
const CONTROLLER_FOR: u32 = 3;
/// AT-SPI's Selection interface (a menu bar's open menu is its selected child).
const SELECTION: &str = "org.a11y.atspi.Selection";

/// How an app's toolkit falls short in reporting SHOWING.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Quirk {
    /// It reports it faithfully.
    #[default]
    None,
    /// Only of windows (GTK 4): everything else is judged here.
    WindowOnly,
    /// Never of the items of an open popup menu (GTK 2's GAIL); the menu bar's selection
    /// says which menu is open.
    PopupItems,
}

/// The quirk of an app's toolkit, from its `ToolkitName` and `Version`.
pub(crate) fn quirk(toolkit: &str, version: &str) -> Quirk {
    if toolkit.eq_ignore_ascii_case("GTK") && version.starts_with("4.") {
        Quirk::WindowOnly
    } else if toolkit.eq_ignore_ascii_case("GAIL") {
        Quirk::PopupItems
    } else {
        Quirk::None
    }
}

/// Whether a probed element shows although its toolkit does not say so.
pub(crate) fn shows_anyway(quirk: Quirk, n: &Node) -> bool {
    let boxed = n.bounds.is_some_and(|b| b.is_valid());
    n.states.contains(States::VISIBLE)
        && boxed
        && match quirk {
            Quirk::None => false,
            Quirk::WindowOnly => true,
            // A closed menu's items keep their last box: the probe cannot tell.
            Quirk::PopupItems => false,
        }
}

/// The node at `path` (child indexes from `root`).
fn at<'a>(root: &'a mut Node, path: &[usize]) -> &'a mut Node {
    path.iter().fold(root, |n, &i| &mut n.children[i])
}

/// Sets SHOWING on the elements under `root` (a showing window) that are drawn, and takes
/// it from those that are not; the boxes asked for are kept as the elements' bounds.
pub(crate) async fn derive(bus: &Bus, root: &mut Node) -> Result<(), CallError> {
    let mut level: Vec<Vec<usize>> = vec![Vec::new()];
    let mut chosen: Option<HashSet<String>> = None;
    while !level.is_empty() {
        let mut kids: Vec<Vec<usize>> = Vec::new();
        let mut hidden_pages: Vec<Vec<usize>> = Vec::new();
        for path in &level {
            for page in hidden_pages_of(bus, root, path, &mut chosen).await? {
                let mut p = path.clone();
                p.push(page);
                hidden_pages.push(p);
            }
            let n = at(root, path);
            for i in 0..n.children.len() {
                let mut p = path.clone();
                p.push(i);
                kids.push(p);
            }
        }
        for p in &hidden_pages {
            at(root, p).states.remove(States::SHOWING);
        }
        kids.retain(|p| !hidden_pages.contains(p));
        // Visible elements with a box: asked; visible ones without (a stack page): showing.
        let asks: Vec<Option<(String, String)>> = kids
            .iter()
            .map(|p| {
                let n = at(root, p);
                let boxed = n.states.contains(States::VISIBLE) && n.caps.contains(Caps::COMPONENT);
                boxed.then(|| (n.handle.owner().to_string(), n.handle.path().to_string()))
            })
            .collect();
        let boxes = join_all(asks.iter().map(|a| async move {
            let (o, p) = a.as_ref()?;
            let r = bus.extents_of(o, p).await;
            Some(r)
        }))
        .await;
        let mut next = Vec::new();
        for (p, got) in kids.into_iter().zip(boxes) {
            let n = at(root, &p);
            let showing = match got {
                Some(Ok((x, y, w, h))) => {
                    let b = Rect::new(x, y, w, h);
                    n.bounds = Some(b);
                    w > 0 && h > 0
                }
                Some(Err(CallError::Timeout)) => return Err(CallError::Timeout),
                Some(Err(_)) => n.states.contains(States::VISIBLE),
                None => n.states.contains(States::VISIBLE),
            };
            n.states.set(States::SHOWING, showing);
            if showing {
                next.push(p);
            }
        }
        level = next;
    }
    Ok(())
}

/// The children of the node at `path` that are pages not shown: where it has two or more
/// children without a box (stack or notebook pages), all but the one holding what the
/// app finds at the middle of the node's box (and a few points around it).
async fn hidden_pages_of(
    bus: &Bus,
    root: &Node,
    path: &[usize],
    chosen: &mut Option<HashSet<String>>,
) -> Result<Vec<usize>, CallError> {
    let mut n = root;
    for &i in path {
        n = &n.children[i];
    }
    let pages: Vec<usize> = (0..n.children.len())
        .filter(|&i| !n.children[i].caps.contains(Caps::COMPONENT))
        .collect();
    let Some(area) = n.bounds.filter(|b| b.w > 0 && b.h > 0) else {
        return Ok(Vec::new());
    };
    if pages.len() < 2 {
        return Ok(Vec::new());
    }
    if chosen.is_none() {
        *chosen = Some(chosen_pages(bus, root).await?);
    }
    let picked = chosen.as_ref().and_then(|c| {
        pages
            .iter()
            .find(|&&i| c.contains(n.children[i].handle.path()))
    });
    if let Some(&shown) = picked {
        return Ok(pages.into_iter().filter(|&i| i != shown).collect());
    }
    if !root.caps.contains(Caps::COMPONENT) {
        return Ok(Vec::new());
    }
    let (o, p) = (root.handle.owner(), root.handle.path());
    let (cx, cy) = area.center();
    let points = [
        (cx, cy),
        (area.x + area.w / 4, area.y + area.h / 4),
        (area.x + 3 * area.w / 4, area.y + 3 * area.h / 4),
    ];
    for (x, y) in points {
        let hit = bus.at_point(o, p, x, y).await;
        let hit = match hit {
            Ok((_, path)) => path.as_str().to_string(),
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(_) => return Ok(Vec::new()),
        };
        let holder = pages
            .iter()
            .find(|&&i| holds(&n.children[i], &hit))
            .copied();
        if let Some(shown) = holder {
            return Ok(pages.into_iter().filter(|&i| i != shown).collect());
        }
    }
    Ok(Vec::new())
}

/// The object paths of the pages the window's selected tabs control.
async fn chosen_pages(bus: &Bus, root: &Node) -> Result<HashSet<String>, CallError> {
    let mut tabs: Vec<&Node> = Vec::new();
    root.walk(&mut |n| {
        if n.role == Role::Tab && n.states.contains(States::SELECTED) {
            tabs.push(n);
        }
    });
    let sets = join_all(tabs.iter().map(|t| {
        bus.call::<_, Vec<(u32, Vec<ObjectRef>)>>(
            t.handle.owner(),
            t.handle.path(),
            ACCESSIBLE,
            "GetRelationSet",
            &(),
        )
    }))
    .await;
    let mut out = HashSet::new();
    for set in sets {
        match set {
            Ok(relations) => out.extend(
                relations
                    .into_iter()
                    .filter(|(kind, _)| *kind == CONTROLLER_FOR)
                    .flat_map(|(_, targets)| targets)
                    .map(|(_, path)| path.as_str().to_string()),
            ),
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(_) => {}
        }
    }
    Ok(out)
}

/// Whether the subtree of `n` holds the element at object path `path`.
fn holds(n: &Node, path: &str) -> bool {
    n.handle.path() == path || n.children.iter().any(|c| holds(c, path))
}

/// Sets SHOWING on the items of open popup menus under `root` (GTK 2): a menu bar's (or
/// open menu's) selected child is the menu that is open, its items show. Their boxes
/// cannot tell: GAIL keeps a closed menu's last box.
pub(crate) async fn derive_popups(bus: &Bus, root: &mut Node) -> Result<(), CallError> {
    let mut queue: Vec<Vec<usize>> = Vec::new();
    collect_menu_bars(root, &mut Vec::new(), &mut queue);
    while let Some(path) = queue.pop() {
        let n = at(root, &path);
        let selected = bus
            .call::<_, ObjectRef>(
                n.handle.owner(),
                n.handle.path(),
                SELECTION,
                "GetSelectedChild",
                &(0i32,),
            )
            .await;
        let chosen = match selected {
            Ok((_, p)) => p.as_str().to_string(),
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(_) => continue,
        };
        let Some(i) = n.children.iter().position(|c| c.handle.path() == chosen) else {
            continue;
        };
        let open = &mut n.children[i];
        if open.role != Role::Menu {
            continue;
        }
        open.states.insert(States::SHOWING);
        for item in &mut open.children {
            if item.states.contains(States::VISIBLE) {
                item.states.insert(States::SHOWING);
            }
        }
        let mut p = path.clone();
        p.push(i);
        queue.push(p);
    }
    Ok(())
}

/// Takes SHOWING from the options of closed combo boxes under `root`: Qt 5 reports them
/// showing, with boxes where the popup would be, in a popup list whose own box is empty
/// while closed (one call per combo with such a list).
pub(crate) async fn closed_popups(bus: &Bus, root: &mut Node) -> Result<(), CallError> {
    let mut lists: Vec<Vec<usize>> = Vec::new();
    collect_combo_lists(root, &mut Vec::new(), &mut lists);
    let boxes = join_all(lists.iter().map(|p| {
        let n = at_ref(root, p);
        let (o, path) = (n.handle.owner().to_string(), n.handle.path().to_string());
        async move { bus.extents_of(&o, &path).await }
    }))
    .await;
    for (p, b) in lists.iter().zip(boxes) {
        match b {
            Ok((_, _, w, h)) if w <= 0 || h <= 0 => {
                at(root, p).walk_mut(&mut |n| n.states.remove(States::SHOWING));
            }
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            _ => {}
        }
    }
    Ok(())
}

/// Paths of the showing lists and menus right under showing combo boxes.
fn collect_combo_lists(n: &Node, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    for (i, c) in n.children.iter().enumerate() {
        path.push(i);
        let popup = n.role == Role::Combo
            && matches!(c.role, Role::List | Role::Menu)
            && c.states.contains(States::SHOWING)
            && c.caps.contains(Caps::COMPONENT);
        if popup {
            out.push(path.clone());
        } else {
            collect_combo_lists(c, path, out);
        }
        path.pop();
    }
}

/// The node at `path`, read only.
fn at_ref<'a>(root: &'a Node, path: &[usize]) -> &'a Node {
    path.iter().fold(root, |n, &i| &n.children[i])
}

/// Whether an item shows in its list: a list with an empty box (a closed combo's popup,
/// in Qt 5) shows none of its items, whatever they say.
pub(crate) async fn in_empty_list(bus: &Bus, item: &Handle) -> bool {
    let Some(list) = bus.parent(item).await else {
        return false;
    };
    let b = bus.extents_of(list.owner(), list.path()).await;
    matches!(b, Ok((_, _, w, h)) if w <= 0 || h <= 0)
}

/// Whether a GTK 2 menu item shows: its menu is the selected (open) child of the menu
/// bar or menu above it.
pub(crate) async fn popup_item_shows(bus: &Bus, item: &Handle) -> bool {
    let Some(menu) = bus.parent(item).await else {
        return false;
    };
    let Some(bar) = bus.parent(&menu).await else {
        return false;
    };
    let selected = bus
        .call::<_, ObjectRef>(
            bar.owner(),
            bar.path(),
            SELECTION,
            "GetSelectedChild",
            &(0i32,),
        )
        .await;
    selected.is_ok_and(|(_, p)| p.as_str() == menu.path())
}

/// Paths of the showing menu bars under `n` (menus holding menus, with a selection).
fn collect_menu_bars(n: &Node, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if !n.states.contains(States::SHOWING) && !path.is_empty() {
        return;
    }
    let bar = n.role == Role::Menu
        && n.caps.contains(Caps::SELECTION)
        && n.children.iter().any(|c| c.role == Role::Menu);
    if bar && !path.is_empty() {
        out.push(path.clone());
        return;
    }
    for (i, c) in n.children.iter().enumerate() {
        path.push(i);
        collect_menu_bars(c, path, out);
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolkits_have_their_quirks() {
        assert_eq!(quirk("GTK", "4.8.3"), Quirk::WindowOnly);
        assert_eq!(quirk("GTK", "3.24.38"), Quirk::None);
        assert_eq!(quirk("GAIL", "2.24.33"), Quirk::PopupItems);
        assert_eq!(quirk("Qt", "6.4.2"), Quirk::None);
    }
}
