//! Which elements are showing, for a toolkit that says so only of its windows. GTK 4.8
//! sets SHOWING on top-level windows alone: inner widgets are VISIBLE whether drawn or
//! not, and the pages of a stack or notebook (elements without a box of their own) all
//! look alike, each keeping the box it had when last shown. So an element counts as
//! showing when its parent does, it is visible, and its box is not empty; of a set of
//! pages, only the one a selected tab controls (the tab is selected at once, while the
//! pages may still be sliding), else the one the app finds at the middle of their
//! container (the toolkit's own hit test). Boxes are asked level by level, only under
//! showing parents, so hidden pages cost nothing below them.

use crate::bus::{Bus, CallError, ObjectRef, ACCESSIBLE, COMPONENT};
use desktop_core::{Caps, Node, Rect, Role, States};
use futures_util::future::join_all;
use std::collections::HashSet;

/// AT-SPI's relation type "controller for" (a tab and the page it shows).
const CONTROLLER_FOR: u32 = 3;

/// Whether an app's toolkit reports SHOWING only of windows (GTK 4).
pub(crate) fn window_only(toolkit: &str, version: &str) -> bool {
    toolkit.eq_ignore_ascii_case("GTK") && version.starts_with("4.")
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
                boxed.then(|| (n.handle.owner.clone(), n.handle.path.clone()))
            })
            .collect();
        let boxes = join_all(asks.iter().map(|a| async move {
            let (o, p) = a.as_ref()?;
            let r = bus
                .call::<_, (i32, i32, i32, i32)>(o, p, COMPONENT, "GetExtents", &(0u32,))
                .await;
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
            .find(|&&i| c.contains(&n.children[i].handle.path))
    });
    if let Some(&shown) = picked {
        return Ok(pages.into_iter().filter(|&i| i != shown).collect());
    }
    if !root.caps.contains(Caps::COMPONENT) {
        return Ok(Vec::new());
    }
    let (o, p) = (root.handle.owner.as_str(), root.handle.path.as_str());
    let (cx, cy) = area.center();
    let points = [
        (cx, cy),
        (area.x + area.w / 4, area.y + area.h / 4),
        (area.x + 3 * area.w / 4, area.y + 3 * area.h / 4),
    ];
    for (x, y) in points {
        let hit = bus
            .call::<_, (String, zbus::zvariant::OwnedObjectPath)>(
                o,
                p,
                COMPONENT,
                "GetAccessibleAtPoint",
                &(x, y, 0u32),
            )
            .await;
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
            &t.handle.owner,
            &t.handle.path,
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
    n.handle.path == path || n.children.iter().any(|c| holds(c, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_gtk4_reports_showing_of_windows_alone() {
        assert!(window_only("GTK", "4.8.3"));
        assert!(!window_only("GTK", "3.24.38"));
        assert!(!window_only("Qt", "6.4.2"));
    }
}
