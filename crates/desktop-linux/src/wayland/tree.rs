//! sway's tree and outputs as the window list and displays (pure).

use crate::x11::XWindow;
use desktop_core::backend::Display;
use desktop_core::model::WindowState;
use desktop_core::Rect;
use swayipc::{Node, NodeType, Output};

/// The views (windows) in `root`: tiled before floating (which sway draws above), the
/// focused one last, as an X stacking order would have them. A view's box is its content
/// (`window_rect`, relative to its container) placed in the layout; views in the
/// scratchpad are minimized (not shown until brought back).
pub fn windows(root: &Node) -> Vec<XWindow> {
    let mut out = Vec::new();
    collect(root, false, &mut out);
    let mut focused = None;
    for (i, (_, node)) in out.iter().enumerate() {
        if node.focused {
            focused = Some(i);
        }
    }
    let mut wins: Vec<(bool, XWindow)> = out
        .iter()
        .map(|(hidden, n)| (n.focused, window(n, *hidden)))
        .collect();
    // A stable sort keeps tiled before floating, and moves the focused view last.
    if focused.is_some() {
        wins.sort_by_key(|(f, _)| *f);
    }
    wins.into_iter().map(|(_, w)| w).collect()
}

/// The id of the focused view, if a view has the focus.
pub fn focused(root: &Node) -> Option<u32> {
    let mut out = Vec::new();
    collect(root, false, &mut out);
    out.iter()
        .find(|(_, n)| n.focused)
        .and_then(|(_, n)| u32::try_from(n.id).ok())
}

fn is_view(n: &Node) -> bool {
    matches!(n.node_type, NodeType::Con | NodeType::FloatingCon)
        && (n.pid.is_some() || n.app_id.is_some() || n.window_properties.is_some())
        && n.nodes.is_empty()
        && n.floating_nodes.is_empty()
}

/// Views in tree order, tiled children before floating ones; `hidden` below the
/// scratchpad's workspace.
fn collect<'a>(n: &'a Node, hidden: bool, out: &mut Vec<(bool, &'a Node)>) {
    let hidden =
        hidden || (n.node_type == NodeType::Workspace && n.name.as_deref() == Some("__i3_scratch"));
    if is_view(n) {
        out.push((hidden, n));
        return;
    }
    for c in n.nodes.iter().chain(&n.floating_nodes) {
        collect(c, hidden, out);
    }
}

fn window(n: &Node, hidden: bool) -> XWindow {
    let r = &n.rect;
    let c = &n.window_rect;
    let title = n
        .name
        .clone()
        .or_else(|| n.window_properties.as_ref().and_then(|p| p.title.clone()))
        .unwrap_or_default();
    let class = n
        .app_id
        .clone()
        .or_else(|| n.window_properties.as_ref().and_then(|p| p.class.clone()))
        .unwrap_or_default();
    let state = if hidden {
        WindowState::Minimized
    } else if n.fullscreen_mode.is_some_and(|m| m > 0) {
        WindowState::Fullscreen
    } else {
        WindowState::Normal
    };
    XWindow {
        id: u32::try_from(n.id).unwrap_or(0),
        pid: n.pid.and_then(|p| u32::try_from(p).ok()),
        title,
        class,
        bounds: Rect::new(r.x + c.x, r.y + c.y, c.width, c.height),
        state,
        modal: false,
    }
}

/// Active outputs as displays, the leftmost (then topmost) primary.
pub fn displays(outputs: &[Output]) -> Vec<Display> {
    let mut out: Vec<Display> = outputs
        .iter()
        .filter(|o| o.active)
        .map(|o| Display {
            name: o.name.clone(),
            bounds: Rect::new(o.rect.x, o.rect.y, o.rect.width, o.rect.height),
            scale: o.scale.filter(|s| *s > 0.0).unwrap_or(1.0),
            primary: false,
            refresh: o
                .current_mode
                .as_ref()
                .filter(|m| m.refresh > 0)
                .map(|m| f64::from(m.refresh) / 1000.0),
        })
        .collect();
    out.sort_by_key(|d| (d.bounds.x, d.bounds.y));
    if let Some(first) = out.first_mut() {
        first.primary = true;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recorded from a sandbox: a tiled GTK form (focused), gtk3-widget-factory moved to
    /// float at 50,40, another GTK form minimized into the scratchpad.
    fn tree() -> Node {
        serde_json::from_str(include_str!("../../tests/fixtures/sway_tree.json")).unwrap()
    }

    #[test]
    fn views_with_their_boxes_floating_above_focused_last() {
        let wins = windows(&tree());
        let ids: Vec<u32> = wins.iter().map(|w| w.id).collect();
        assert_eq!(
            ids,
            [5, 6, 7],
            "scratchpad and floating before the focused one"
        );
        let by = |id: u32| wins.iter().find(|w| w.id == id).unwrap();
        assert_eq!(by(7).bounds, Rect::new(0, 0, 1280, 800));
        assert_eq!(by(7).title, "GTK Form");
        assert_eq!(by(7).class, "form_gtk.py");
        assert_eq!(by(7).pid, Some(15559));
        assert_eq!(by(7).state, WindowState::Normal);
        assert_eq!(by(6).bounds, Rect::new(50, 40, 1280, 732));
        assert_eq!(by(5).state, WindowState::Minimized);
        assert_eq!(focused(&tree()), Some(7));
    }

    #[test]
    fn outputs_are_displays() {
        let outputs: Vec<Output> =
            serde_json::from_str(include_str!("../../tests/fixtures/sway_outputs.json")).unwrap();
        let d = displays(&outputs);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].name, "HEADLESS-1");
        assert_eq!(d[0].bounds, Rect::new(0, 0, 1280, 800));
        assert!(d[0].primary);
        assert_eq!(d[0].refresh, Some(60.0));
        assert_eq!(d[0].scale, 1.0);
    }
}
