//! A read in full between two processes of this program (the keeper hands a warm read to
//! the agent's process): every field of [`ReadData`] and of what asked for it, where the
//! output form keeps only what agents are shown. Only `timing` stays behind (it names the
//! steps of the process that read).

use crate::model::{ReadData, Target, WindowInfo, WindowState};
use crate::node::{Caps, Handle, Node, Rect, States};
use crate::role::Role;
use crate::Filters;
use serde::{Deserialize, Serialize};

fn no(b: &bool) -> bool {
    !*b
}

fn rect(r: Option<Rect>) -> Option<[i32; 4]> {
    r.map(|r| [r.x, r.y, r.w, r.h])
}

fn unrect(r: Option<[i32; 4]>) -> Option<Rect> {
    r.map(|[x, y, w, h]| Rect::new(x, y, w, h))
}

/// A role by its short name; one a toolkit named that has no counterpart is marked, so
/// that a name such as `label` comes back as that toolkit's role, not as text.
#[derive(Debug, Serialize, Deserialize)]
enum WireRole {
    #[serde(rename = "r")]
    Known(String),
    #[serde(rename = "o")]
    Other(String),
}

impl From<&Role> for WireRole {
    fn from(r: &Role) -> Self {
        match r {
            Role::Other(name) => WireRole::Other(name.clone()),
            known => WireRole::Known(known.short().to_string()),
        }
    }
}

impl From<WireRole> for Role {
    fn from(r: WireRole) -> Self {
        match r {
            WireRole::Known(short) => Role::parse(&short).unwrap_or(Role::Other(short)),
            WireRole::Other(name) => Role::Other(name),
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Element {
    id: u32,
    role: WireRole,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bounds: Option<[i32; 4]>,
    states: u32,
    caps: u16,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    actions: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    children: Vec<Element>,
    child_count: u32,
    handle: Handle,
    #[serde(default, skip_serializing_if = "no")]
    name_from_child: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    hint: String,
    #[serde(default, skip_serializing_if = "no")]
    clickable: bool,
    #[serde(default)]
    more: u32,
    #[serde(default, skip_serializing_if = "no")]
    out_of_view: bool,
}

impl From<&Node> for Element {
    fn from(n: &Node) -> Self {
        Element {
            id: n.id,
            role: (&n.role).into(),
            name: n.name.clone(),
            description: n.description.clone(),
            value: n.value.clone(),
            bounds: rect(n.bounds),
            states: n.states.bits(),
            caps: n.caps.bits(),
            actions: n.actions.clone(),
            children: n.children.iter().map(Element::from).collect(),
            child_count: n.child_count,
            handle: n.handle.clone(),
            name_from_child: n.name_from_child,
            hint: n.hint.clone(),
            clickable: n.clickable,
            more: n.more,
            out_of_view: n.out_of_view,
        }
    }
}

impl From<Element> for Node {
    fn from(e: Element) -> Self {
        Node {
            id: e.id,
            role: e.role.into(),
            name: e.name,
            description: e.description,
            value: e.value,
            bounds: unrect(e.bounds),
            states: States::from_bits(e.states),
            caps: Caps::from_bits(e.caps),
            actions: e.actions,
            children: e.children.into_iter().map(Node::from).collect(),
            child_count: e.child_count,
            handle: e.handle,
            name_from_child: e.name_from_child,
            hint: e.hint,
            clickable: e.clickable,
            more: e.more,
            out_of_view: e.out_of_view,
            // A read crosses before any budget is fitted.
            cut: 0,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Window {
    app: String,
    pid: u32,
    title: String,
    id: Option<u64>,
    bounds: Option<[i32; 4]>,
    focused: bool,
    a11y: bool,
    modal: bool,
    state: WindowState,
    display: Option<String>,
    handle: Option<Handle>,
}

impl From<&WindowInfo> for Window {
    fn from(w: &WindowInfo) -> Self {
        Window {
            app: w.app.clone(),
            pid: w.pid,
            title: w.title.clone(),
            id: w.id,
            bounds: rect(w.bounds),
            focused: w.focused,
            a11y: w.a11y,
            modal: w.modal,
            state: w.state,
            display: w.display.clone(),
            handle: w.handle.clone(),
        }
    }
}

impl From<Window> for WindowInfo {
    fn from(w: Window) -> Self {
        WindowInfo {
            app: w.app,
            pid: w.pid,
            title: w.title,
            id: w.id,
            bounds: unrect(w.bounds),
            focused: w.focused,
            a11y: w.a11y,
            modal: w.modal,
            state: w.state,
            display: w.display,
            handle: w.handle,
        }
    }
}

/// [`ReadData`] as it crosses.
#[derive(Debug, Serialize, Deserialize)]
pub struct Read {
    window: Window,
    ts: u64,
    elements: Vec<Element>,
    total: usize,
    shown: usize,
    flat: bool,
    bounds: bool,
    page: bool,
    incomplete: Option<String>,
    window_boxes: bool,
}

impl From<&ReadData> for Read {
    fn from(d: &ReadData) -> Self {
        Read {
            window: (&d.window).into(),
            ts: d.ts,
            elements: d.elements.iter().map(Element::from).collect(),
            total: d.total,
            shown: d.shown,
            flat: d.flat,
            bounds: d.bounds,
            page: d.page,
            incomplete: d.incomplete.clone(),
            window_boxes: d.window_boxes,
        }
    }
}

impl From<Read> for ReadData {
    fn from(r: Read) -> Self {
        ReadData {
            window: r.window.into(),
            ts: r.ts,
            elements: r.elements.into_iter().map(Node::from).collect(),
            total: r.total,
            shown: r.shown,
            flat: r.flat,
            bounds: r.bounds,
            page: r.page,
            incomplete: r.incomplete,
            cut: 0,
            window_boxes: r.window_boxes,
            timing: Vec::new(),
        }
    }
}

/// What a read was asked for: its window and its filters.
#[derive(Debug, Serialize, Deserialize)]
pub struct Ask {
    app: Option<String>,
    window: Option<String>,
    window_id: Option<u64>,
    pid: Option<u32>,
    depth: Option<u32>,
    roles: Option<Vec<WireRole>>,
    visible_only: bool,
    bbox: Option<[i32; 4]>,
    text: Option<String>,
    interactive: bool,
    max_elements: Option<usize>,
    full: bool,
    actions: bool,
    page: bool,
    #[serde(default)]
    under: Option<u32>,
}

impl Ask {
    pub fn new(t: &Target, f: &Filters) -> Ask {
        Ask {
            app: t.app.clone(),
            window: t.window.clone(),
            window_id: t.window_id,
            pid: t.pid,
            depth: f.depth,
            roles: f
                .roles
                .as_ref()
                .map(|roles| roles.iter().map(WireRole::from).collect()),
            visible_only: f.visible_only,
            bbox: rect(f.bbox),
            text: f.text.clone(),
            interactive: f.interactive,
            max_elements: f.max_elements,
            full: f.full,
            actions: f.actions,
            page: f.page,
            under: f.under,
        }
    }

    /// The window and the filters again.
    pub fn parts(self) -> (Target, Filters) {
        let target = Target {
            app: self.app,
            window: self.window,
            window_id: self.window_id,
            pid: self.pid,
        };
        let filters = Filters {
            depth: self.depth,
            roles: self
                .roles
                .map(|roles| roles.into_iter().map(Role::from).collect()),
            visible_only: self.visible_only,
            bbox: unrect(self.bbox),
            text: self.text,
            interactive: self.interactive,
            max_elements: self.max_elements,
            full: self.full,
            actions: self.actions,
            page: self.page,
            under: self.under,
        };
        (target, filters)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(role: Role, name: &str, children: Vec<Node>) -> Node {
        Node {
            id: 7,
            role,
            name: name.into(),
            description: "d".into(),
            value: Some("v".into()),
            bounds: Some(Rect::new(-5, 2, 30, 40)),
            states: States::FOCUSED | States::CHECKED,
            caps: Caps::TEXT | Caps::VALUE,
            actions: vec!["click".into()],
            children,
            child_count: u32::MAX,
            handle: Handle::new(":1.5|/org/a11y/atspi/accessible/12"),
            name_from_child: true,
            hint: "like".into(),
            clickable: true,
            more: 3,
            out_of_view: true,
            cut: 0,
        }
    }

    #[test]
    fn a_read_crosses_whole() {
        let data = ReadData {
            window: WindowInfo {
                app: "Chromium".into(),
                pid: 42,
                title: "Page".into(),
                id: Some(0x60_0002),
                bounds: Some(Rect::new(0, 0, 1200, 780)),
                focused: true,
                a11y: true,
                modal: false,
                state: WindowState::Maximized,
                display: Some("screen".into()),
                handle: Some(Handle::new(":1.5|/root")),
            },
            ts: 1_795_973_455,
            elements: vec![node(
                Role::Window,
                "top",
                vec![
                    // A toolkit's own role whose name is also an alias of a known one.
                    node(Role::Other("label".into()), "odd", vec![]),
                    Node {
                        role: Role::Button,
                        ..Node::default()
                    },
                ],
            )],
            total: 9,
            shown: 3,
            flat: true,
            bounds: true,
            page: true,
            incomplete: Some("budget".into()),
            cut: 0,
            window_boxes: true,
            timing: vec![("walk", 3.0)],
        };
        let json = serde_json::to_string(&Read::from(&data)).unwrap();
        let back: ReadData = serde_json::from_str::<Read>(&json).unwrap().into();
        assert_eq!(back.window, data.window);
        assert_eq!(back.elements, data.elements);
        assert_eq!(
            back.elements[0].children[0].role,
            Role::Other("label".into())
        );
        assert_eq!(
            (back.ts, back.total, back.shown, back.flat, back.bounds),
            (data.ts, 9, 3, true, true)
        );
        assert_eq!(
            (back.page, back.incomplete, back.window_boxes),
            (true, Some("budget".into()), true)
        );
        assert!(back.timing.is_empty());
    }

    #[test]
    fn an_ask_crosses_whole() {
        let target = Target {
            app: Some("chromium".into()),
            window: Some("Form".into()),
            window_id: Some(5),
            pid: Some(9),
        };
        let filters = Filters {
            depth: Some(3),
            roles: Some(vec![Role::Button, Role::Input]),
            visible_only: true,
            bbox: Some(Rect::new(1, 2, 3, 4)),
            text: Some("Save".into()),
            interactive: true,
            max_elements: Some(400),
            full: true,
            actions: true,
            page: true,
            under: Some(12),
        };
        let json = serde_json::to_string(&Ask::new(&target, &filters)).unwrap();
        let (t, f) = serde_json::from_str::<Ask>(&json).unwrap().parts();
        assert_eq!((t, f), (target, filters));
    }
}
