//! One element's AX attributes, as one batched read (`AXUIElementCopyMultipleAttributeValues`)
//! returns them, decoded into plain values, and turned into the core's [`Node`]. Pure: the
//! same code builds trees from recorded attribute dumps in the tests, keyed by Apple's
//! attribute names.

use crate::geometry;
use crate::roles::{self, role};
use desktop_core::{Caps, Handle, Node, Role, States};
use serde::Deserialize;

/// The attributes read for every element, in the order of one batched read. Its children
/// come in a second, ranged read (`AXChildren` in the batch would be a table's every row).
/// `AXValue` is not here: a secure field's value must never be asked for, and an element's
/// role is only known once this batch returns, so the value comes in a read of its own
/// where [`wants_value`] says the element shows one and is not secure.
pub const BATCH: [&str; 13] = [
    "AXRole",
    "AXSubrole",
    "AXTitle",
    "AXDescription",
    "AXHelp",
    "AXPlaceholderValue",
    "AXEnabled",
    "AXFocused",
    "AXSelected",
    "AXExpanded",
    "AXPosition",
    "AXSize",
    "AXURL",
];

/// Most children read of one element: a list or table shows its first rows, and says how
/// many more it has (`more`), rather than handing over every row it holds.
pub const MAX_CHILDREN: usize = 500;

/// An `AXValue`: text, a number, or (rarely) a boolean.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Bool(bool),
    Number(f64),
    Text(String),
}

/// The decoded attributes of one element; `children` holds the elements of `AXChildren`
/// once they are read (a recorded dump has them inline).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Attrs {
    #[serde(rename = "AXRole", default)]
    pub role: String,
    #[serde(rename = "AXSubrole")]
    pub subrole: Option<String>,
    #[serde(rename = "AXTitle")]
    pub title: Option<String>,
    #[serde(rename = "AXDescription")]
    pub description: Option<String>,
    #[serde(rename = "AXHelp")]
    pub help: Option<String>,
    #[serde(rename = "AXValue")]
    pub value: Option<Value>,
    #[serde(rename = "AXPlaceholderValue")]
    pub placeholder: Option<String>,
    #[serde(rename = "AXEnabled")]
    pub enabled: Option<bool>,
    #[serde(rename = "AXFocused")]
    pub focused: Option<bool>,
    #[serde(rename = "AXSelected")]
    pub selected: Option<bool>,
    #[serde(rename = "AXExpanded")]
    pub expanded: Option<bool>,
    #[serde(rename = "AXPosition")]
    pub position: Option<(f64, f64)>,
    #[serde(rename = "AXSize")]
    pub size: Option<(f64, f64)>,
    #[serde(rename = "AXURL")]
    pub url: Option<String>,
    #[serde(rename = "AXChildren", default)]
    pub children: Vec<Attrs>,
}

/// An element's address: the app's pid, its window's id in the window server (stable while
/// the app's `AXWindows` reorder as windows are raised), and the child indices from the
/// window down (`501/4711/3.1.0`). Resolving it finds that window's AX element again, walks
/// the same indices and checks the element still has the recorded role and name.
pub fn handle(pid: u32, window: usize, path: &[usize]) -> Handle {
    let steps: Vec<String> = path.iter().map(usize::to_string).collect();
    Handle::new(format!("{pid}/{window}/{}", steps.join(".")))
}

/// The pid, window index and child path of a handle made by [`handle`].
pub fn parse_handle(h: &Handle) -> Option<(u32, usize, Vec<usize>)> {
    let mut parts = h.as_str().splitn(3, '/');
    let pid = parts.next()?.parse().ok()?;
    let window = parts.next()?.parse().ok()?;
    let rest = parts.next()?;
    let path = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split('.')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?
    };
    Some((pid, window, path))
}

fn text(s: &Option<String>) -> &str {
    s.as_deref().map_or("", str::trim)
}

/// A number as the output shows it: no trailing `.0`.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Whether the element is a password field, by role or subrole (`AXSecureTextField`, as
/// AppKit, WebKit and Chromium mark one; any other "secure" role or subrole counts too).
pub fn secure(a: &Attrs) -> bool {
    role(&a.role, a.subrole.as_deref()) == Role::Password
        || a.role.contains("Secure")
        || a.subrole.as_deref().is_some_and(|s| s.contains("Secure"))
}

/// Whether [`node`] uses the element's `AXValue`, judged from the batch (role, subrole,
/// title, description): a label without a title (its words), a text field, a check box's
/// or a tab's state, a slider's, stepper's, progress bar's or pop-up's value. Never for a
/// secure field, whose value must not pass through this process. Everything else (groups,
/// buttons, rows, cells, images, menus: most of a tree) is not asked for its value at all.
pub fn wants_value(a: &Attrs) -> bool {
    if secure(a) {
        return false;
    }
    let r = role(&a.role, a.subrole.as_deref());
    match r {
        Role::Text => text(&a.title).is_empty() && text(&a.description).is_empty(),
        Role::Tab | Role::Slider | Role::Spin | Role::Progress | Role::Combo => true,
        Role::Web => false,
        r => roles::value_is_state(&r) || roles::takes_text(&a.role),
    }
}

/// The element itself (without children) as the core sees it.
pub fn node(a: &Attrs, handle: Handle) -> Node {
    let r = role(&a.role, a.subrole.as_deref());
    let password = secure(a);
    let shown_text = |v: &Option<Value>| match v {
        Some(Value::Text(t)) => Some(t.clone()),
        Some(Value::Number(n)) => Some(number(*n)),
        _ => None,
    };
    // A label's words are its value; a control is named by its title, else its description
    // (an icon button's accessibility label).
    let mut name = text(&a.title).to_string();
    if name.is_empty() {
        name = text(&a.description).to_string();
    }
    if name.is_empty() && r == Role::Text {
        name = shown_text(&a.value).unwrap_or_default().trim().to_string();
    }
    let mut states = States::empty();
    let mut caps = Caps::empty();
    let bounds = match (a.position, a.size) {
        (Some((x, y)), Some((w, h))) => {
            caps.insert(Caps::COMPONENT);
            Some(geometry::rect(x, y, w, h))
        }
        _ => None,
    };
    // AX has no "showing": what has a size on screen shows (the spatial filter drops what
    // lies outside the screen; a hidden tab's content is not in the tree at all).
    if bounds.is_some_and(|b| b.w > 0 && b.h > 0) {
        states.insert(States::SHOWING | States::VISIBLE);
    }
    let interactive = r.is_interactive();
    if interactive {
        caps.insert(Caps::ACTION);
        states.insert(States::FOCUSABLE);
        if a.enabled == Some(false) {
            states.insert(States::DISABLED);
        }
    }
    for (on, flag) in [(a.focused, States::FOCUSED), (a.selected, States::SELECTED)] {
        if on == Some(true) {
            states.insert(flag);
        }
    }
    if let Some(open) = a.expanded {
        states.insert(States::EXPANDABLE);
        if open {
            states.insert(States::EXPANDED);
        }
    }
    let mut value = None;
    if password {
        // A password's value is never kept, whatever the app (or a dump) holds.
        states.insert(States::SECURE | States::EDITABLE);
        caps.insert(Caps::TEXT | Caps::EDITABLE_TEXT);
    } else if r == Role::Tab {
        // A tab button's value says which tab is chosen: selected, as elsewhere.
        if matches!(a.value, Some(Value::Number(1.0)) | Some(Value::Bool(true))) {
            states.insert(States::SELECTED);
        }
    } else if roles::value_is_state(&r) {
        states.insert(States::CHECKABLE);
        match a.value {
            Some(Value::Number(1.0)) => states.insert(States::CHECKED),
            Some(Value::Number(2.0)) => states.insert(States::MIXED),
            Some(Value::Bool(true)) => states.insert(States::CHECKED),
            _ => {}
        }
    } else if roles::takes_text(&a.role) {
        states.insert(States::EDITABLE);
        caps.insert(Caps::TEXT | Caps::EDITABLE_TEXT);
        value = shown_text(&a.value);
    } else if r == Role::Web {
        // A page's address is its value, as on the other platforms.
        caps.insert(Caps::DOCUMENT);
        value = a
            .url
            .clone()
            .filter(|u| !u.is_empty() && u != "about:blank");
    } else if matches!(r, Role::Slider | Role::Spin | Role::Progress | Role::Combo) {
        if matches!(a.value, Some(Value::Number(_))) {
            caps.insert(Caps::VALUE);
        }
        value = shown_text(&a.value);
    }
    let hint = if name.is_empty() {
        text(&a.placeholder).to_string()
    } else {
        String::new()
    };
    let help = text(&a.help);
    Node {
        role: r,
        description: if help == name {
            String::new()
        } else {
            help.to_string()
        },
        name,
        value: value.filter(|v| !v.is_empty()),
        bounds,
        states,
        caps,
        child_count: u32::try_from(a.children.len()).unwrap_or(u32::MAX),
        handle,
        hint,
        ..Node::default()
    }
}

/// What an element says through its children, once they are read: a row is named by the
/// text in its cells (Finder's and System Settings' lists put it in `AXRow > AXCell >
/// AXStaticText`), a heading with no title by its text children.
pub fn named_by_children(n: &mut Node) {
    if !n.name.is_empty() {
        return;
    }
    fn words(n: &Node, depth: u32, out: &mut Vec<String>) {
        for c in &n.children {
            if c.role == Role::Text && !c.name.is_empty() {
                out.push(c.name.clone());
            } else if depth > 0 && matches!(c.role, Role::Cell | Role::Group) {
                words(c, depth - 1, out);
            }
        }
    }
    let mut found = Vec::new();
    match n.role {
        // The first cell with words names the row.
        Role::Row | Role::TreeItem | Role::Item => {
            words(n, 2, &mut found);
            found.truncate(1);
        }
        Role::Heading => words(n, 0, &mut found),
        _ => return,
    }
    if found.is_empty() {
        return;
    }
    n.name = found.join(" ");
    n.name_from_child = true;
    // The words now name the element: their text elements would only repeat it.
    fn drop_words(n: &mut Node, name: &str, depth: u32) {
        n.children.retain(|c| {
            !(c.role == Role::Text && c.children.is_empty() && name.contains(c.name.as_str()))
        });
        if depth > 0 {
            for c in &mut n.children {
                if matches!(c.role, Role::Cell | Role::Group) {
                    drop_words(c, name, depth - 1);
                }
            }
        }
    }
    let name = n.name.clone();
    drop_words(n, &name, if n.role == Role::Heading { 0 } else { 2 });
}

/// Takes `SHOWING` from what lies outside the scroll area holding it (rows scrolled out
/// of view are still in AX trees, with their bounds), so they count as scrolled away.
pub fn clip_to_scroll_areas(nodes: &mut [Node], clip: Option<desktop_core::Rect>) {
    for n in nodes {
        if let (Some(c), Some(b)) = (clip, n.bounds) {
            if !b.intersects(&c) {
                n.states.remove(States::SHOWING);
            }
        }
        let inner = if n.role == Role::Scroll {
            match (clip, n.bounds) {
                (Some(c), Some(b)) => Some(intersection(c, b)),
                (None, b) => b,
                (c, None) => c,
            }
        } else {
            clip
        };
        clip_to_scroll_areas(&mut n.children, inner);
    }
}

fn intersection(a: desktop_core::Rect, b: desktop_core::Rect) -> desktop_core::Rect {
    let (x0, y0) = (a.x.max(b.x), a.y.max(b.y));
    let (x1, y1) = ((a.x + a.w).min(b.x + b.w), (a.y + a.h).min(b.y + b.h));
    desktop_core::Rect::new(x0, y0, (x1 - x0).max(0), (y1 - y0).max(0))
}

/// The tree below a window from a recorded (or fully read) dump: `a` is the window; its
/// children become the top nodes, each with its handle.
pub fn tree(pid: u32, window: usize, a: &Attrs) -> Vec<Node> {
    fn build(pid: u32, window: usize, a: &Attrs, path: &mut Vec<usize>) -> Node {
        let mut n = node(a, handle(pid, window, path));
        for (i, c) in a.children.iter().enumerate() {
            path.push(i);
            n.children.push(build(pid, window, c, path));
            path.pop();
        }
        named_by_children(&mut n);
        n
    }
    let mut path = Vec::new();
    let mut nodes: Vec<Node> = a
        .children
        .iter()
        .enumerate()
        .map(|(i, c)| {
            path.push(i);
            let n = build(pid, window, c, &mut path);
            path.pop();
            n
        })
        .collect();
    clip_to_scroll_areas(&mut nodes, None);
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(json: &str) -> Attrs {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn handles_round_trip() {
        let h = handle(501, 2, &[3, 1, 0]);
        assert_eq!(h.as_str(), "501/2/3.1.0");
        assert_eq!(parse_handle(&h), Some((501, 2, vec![3, 1, 0])));
        assert_eq!(parse_handle(&handle(7, 0, &[])), Some((7, 0, vec![])));
        assert_eq!(parse_handle(&Handle::new(":1.42/org/a11y/x")), None);
    }

    #[test]
    fn a_secure_field_never_keeps_its_value() {
        let n = node(
            &attrs(
                r#"{"AXRole":"AXTextField","AXSubrole":"AXSecureTextField","AXTitle":"Password","AXValue":"••••••","AXPosition":[10,10],"AXSize":[200,22]}"#,
            ),
            Handle::default(),
        );
        assert_eq!(n.role, Role::Password);
        assert_eq!(n.value, None);
        assert!(n.is_secure());
    }

    #[test]
    fn a_secure_field_is_never_asked_for_its_value() {
        for json in [
            r#"{"AXRole":"AXTextField","AXSubrole":"AXSecureTextField","AXTitle":"Password"}"#,
            r#"{"AXRole":"AXSecureTextField"}"#,
            r#"{"AXRole":"AXComboBox","AXSubrole":"AXSecureTextField"}"#,
            r#"{"AXRole":"AXTextArea","AXSubrole":"AXSecureTextArea"}"#,
        ] {
            let a = attrs(json);
            assert!(secure(&a) && !wants_value(&a), "{json}");
            // What is seen as secure is shown as secure, without a value.
            let mut with = a.clone();
            with.value = Some(Value::Text("hunter2".into()));
            let n = node(&with, Handle::default());
            assert!(n.is_secure() && n.value.is_none(), "{json}");
        }
    }

    #[test]
    fn the_value_is_asked_for_only_where_it_shows() {
        let wants = |json: &str| wants_value(&attrs(json));
        assert!(wants(r#"{"AXRole":"AXTextField"}"#));
        assert!(wants(
            r#"{"AXRole":"AXTextField","AXSubrole":"AXSearchField"}"#
        ));
        assert!(wants(r#"{"AXRole":"AXTextArea"}"#));
        assert!(wants(r#"{"AXRole":"AXStaticText"}"#));
        assert!(wants(r#"{"AXRole":"AXCheckBox","AXTitle":"Wrap"}"#));
        assert!(wants(
            r#"{"AXRole":"AXRadioButton","AXSubrole":"AXTabButton"}"#
        ));
        assert!(wants(r#"{"AXRole":"AXSlider"}"#));
        assert!(wants(r#"{"AXRole":"AXPopUpButton"}"#));
        // A label with a title is named by it; the rest show no value.
        assert!(!wants(r#"{"AXRole":"AXStaticText","AXTitle":"Name"}"#));
        for role in [
            "AXButton",
            "AXGroup",
            "AXRow",
            "AXCell",
            "AXImage",
            "AXWebArea",
        ] {
            assert!(!wants(&format!(r#"{{"AXRole":"{role}"}}"#)), "{role}");
        }
    }

    #[test]
    fn check_boxes_carry_their_state_not_a_value() {
        let on = node(
            &attrs(r#"{"AXRole":"AXCheckBox","AXTitle":"Wrap","AXValue":1}"#),
            Handle::default(),
        );
        assert!(on.states.contains(States::CHECKED) && on.value.is_none());
        let mixed = node(
            &attrs(r#"{"AXRole":"AXCheckBox","AXTitle":"All","AXValue":2}"#),
            Handle::default(),
        );
        assert!(mixed.states.contains(States::MIXED));
        let off = node(
            &attrs(r#"{"AXRole":"AXCheckBox","AXTitle":"Off","AXValue":0,"AXEnabled":false}"#),
            Handle::default(),
        );
        assert!(!off.states.contains(States::CHECKED) && off.states.contains(States::DISABLED));
    }

    #[test]
    fn names_come_from_title_description_or_a_labels_value() {
        let icon = node(
            &attrs(r#"{"AXRole":"AXButton","AXDescription":"Share","AXHelp":"Share this file"}"#),
            Handle::default(),
        );
        assert_eq!(
            (icon.name.as_str(), icon.description.as_str()),
            ("Share", "Share this file")
        );
        let label = node(
            &attrs(r#"{"AXRole":"AXStaticText","AXValue":"Name:"}"#),
            Handle::default(),
        );
        assert_eq!(label.name, "Name:");
        let field = node(
            &attrs(r#"{"AXRole":"AXTextField","AXPlaceholderValue":"Search","AXValue":""}"#),
            Handle::default(),
        );
        assert_eq!(
            (
                field.name.as_str(),
                field.hint.as_str(),
                field.value.clone()
            ),
            ("", "Search", None)
        );
        let slider = node(
            &attrs(r#"{"AXRole":"AXSlider","AXTitle":"Volume","AXValue":40.0}"#),
            Handle::default(),
        );
        assert_eq!(slider.value.as_deref(), Some("40"));
        assert!(slider.caps.contains(Caps::VALUE));
    }
}
