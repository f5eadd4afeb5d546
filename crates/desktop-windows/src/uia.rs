//! One element as UI Automation caches it (the properties of one `CacheRequest`, keyed by
//! the names Inspect shows: `ControlType`, `Name`, `IsPassword`, `ValueValue`, …), decoded
//! into plain values and turned into the core's [`Node`]; the handles that name elements
//! by their runtime id. Pure: the same code builds trees from recorded dumps in the tests.

use crate::roles;
use desktop_core::{Caps, Handle, Node, Rect, Role, States};
use serde::Deserialize;

/// The properties of one element (children read in the same cached call).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Element {
    /// `UIA_*ControlTypeId` (50000–50040).
    pub control_type: i32,
    pub name: String,
    pub automation_id: String,
    pub class_name: String,
    /// The UI framework (`Win32`, `WinForm`, `WPF`, `XAML`, `Chrome`, `DirectUI`).
    pub framework_id: String,
    pub help_text: String,
    /// Left, top, width, height in physical screen pixels.
    pub bounding_rectangle: Option<(f64, f64, f64, f64)>,
    pub is_enabled: Option<bool>,
    pub has_keyboard_focus: bool,
    pub is_keyboard_focusable: bool,
    pub is_offscreen: bool,
    pub is_password: bool,
    pub is_required_for_form: bool,
    /// The Value pattern's text; never requested for a password field (a second cached call
    /// that leaves passwords out fetches values).
    pub value_value: Option<String>,
    pub value_is_read_only: Option<bool>,
    pub range_value_value: Option<f64>,
    pub range_value_minimum: Option<f64>,
    pub range_value_maximum: Option<f64>,
    pub range_value_is_read_only: Option<bool>,
    /// 0 off, 1 on, 2 indeterminate.
    pub toggle_toggle_state: Option<i32>,
    /// 0 collapsed, 1 expanded, 2 partially expanded, 3 leaf.
    pub expand_collapse_expand_collapse_state: Option<i32>,
    pub selection_item_is_selected: Option<bool>,
    pub is_invoke_pattern_available: bool,
    pub is_value_pattern_available: bool,
    pub is_range_value_pattern_available: bool,
    pub is_expand_collapse_pattern_available: bool,
    pub is_toggle_pattern_available: bool,
    pub is_selection_item_pattern_available: bool,
    pub is_scroll_item_pattern_available: bool,
    pub is_text_pattern_available: bool,
    /// The element's identity while it lives (gone with it, so a handle never names another).
    pub runtime_id: Vec<i32>,
    pub native_window_handle: u64,
    pub process_id: u32,
    pub children: Vec<Element>,
}

/// UIA control types this module decides on.
mod ct {
    pub const BUTTON: i32 = 50000;
    pub const CHECK_BOX: i32 = 50002;
    pub const RADIO: i32 = 50013;
    pub const EDIT: i32 = 50004;
    pub const DOCUMENT: i32 = 50030;
    pub const SPLIT_BUTTON: i32 = 50031;
}

/// The actions of an element's patterns, by the names `action --name` takes.
pub fn actions(e: &Element) -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |on: bool, name: &str| {
        if on {
            out.push(name.to_string());
        }
    };
    add(e.is_invoke_pattern_available, "invoke");
    add(e.is_toggle_pattern_available, "toggle");
    add(e.is_selection_item_pattern_available, "select");
    let expand = e.is_expand_collapse_pattern_available
        && e.expand_collapse_expand_collapse_state != Some(3);
    add(expand, "expand");
    add(expand, "collapse");
    add(e.is_scroll_item_pattern_available, "scroll-into-view");
    out
}

/// Whether the element takes typed text: an editable Value pattern on an edit or a
/// document (Notepad's page is a document).
fn editable(e: &Element) -> bool {
    matches!(e.control_type, ct::EDIT | ct::DOCUMENT)
        && (e.is_value_pattern_available || e.is_text_pattern_available)
        && e.value_is_read_only != Some(true)
        && (e.is_value_pattern_available || e.is_keyboard_focusable)
}

/// The element's role: its control type's, refined where the patterns say more.
pub fn role_of(e: &Element) -> Role {
    if e.is_password {
        return Role::Password;
    }
    match e.control_type {
        // A document that takes text is an editor (Notepad), else a web page or a viewer.
        ct::DOCUMENT if editable(e) => Role::Input,
        ct::BUTTON | ct::SPLIT_BUTTON if e.is_toggle_pattern_available => Role::Toggle,
        // No control type at all (a provider that gives none): a custom element.
        0 => Role::Group,
        other => roles::from_control_type(other),
    }
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// The element itself (without children) as the core sees it.
pub fn node(e: &Element, handle: Handle) -> Node {
    let role = role_of(e);
    let secure = role == Role::Password;
    let mut states = States::empty();
    let enabled = e.is_enabled != Some(false);
    if e.has_keyboard_focus {
        states.insert(States::FOCUSED);
    }
    if e.is_keyboard_focusable {
        states.insert(States::FOCUSABLE);
    }
    if e.is_required_for_form {
        states.insert(States::REQUIRED);
    }
    match e.toggle_toggle_state {
        Some(1) => states.insert(States::CHECKED),
        Some(2) => states.insert(States::MIXED),
        _ => {}
    }
    if e.is_toggle_pattern_available || e.control_type == ct::CHECK_BOX {
        states.insert(States::CHECKABLE);
        if role == Role::Toggle && e.toggle_toggle_state == Some(1) {
            states.insert(States::PRESSED);
        }
    }
    match e.expand_collapse_expand_collapse_state {
        Some(0) => states.insert(States::EXPANDABLE),
        Some(1) | Some(2) => states.insert(States::EXPANDABLE | States::EXPANDED),
        _ => {}
    }
    if e.control_type == ct::RADIO {
        // A radio button is selected through SelectionItem (it has no Toggle pattern): its
        // selection is its check.
        states.insert(States::CHECKABLE);
        if e.selection_item_is_selected == Some(true) {
            states.insert(States::CHECKED);
        }
    } else {
        if e.is_selection_item_pattern_available {
            states.insert(States::SELECTABLE);
        }
        if e.selection_item_is_selected == Some(true) {
            states.insert(States::SELECTED);
        }
    }
    if !enabled && (role.is_interactive() || e.is_keyboard_focusable) {
        states.insert(States::DISABLED);
    }
    // An element without a place reports an empty rectangle: no bounds, as in MSAA.
    let bounds = e
        .bounding_rectangle
        .filter(|(_, _, w, h)| w.is_finite() && h.is_finite() && (*w > 0.0 || *h > 0.0))
        .map(|(x, y, w, h)| {
            Rect::new(
                x.round() as i32,
                y.round() as i32,
                w.round() as i32,
                h.round() as i32,
            )
        });
    if !e.is_offscreen && bounds.is_some_and(|b| b.w > 0 && b.h > 0) {
        states.insert(States::SHOWING | States::VISIBLE);
    }
    let mut caps = Caps::empty();
    if bounds.is_some() {
        caps.insert(Caps::COMPONENT);
    }
    let acts = actions(e);
    if !acts.is_empty() {
        caps.insert(Caps::ACTION);
    }
    if e.is_range_value_pattern_available {
        caps.insert(Caps::VALUE);
    }
    if e.is_selection_item_pattern_available {
        caps.insert(Caps::SELECTION);
    }
    if secure {
        states.insert(States::SECURE | States::EDITABLE);
        caps.insert(Caps::TEXT | Caps::EDITABLE_TEXT);
    } else if role == Role::Input {
        if editable(e) {
            states.insert(States::EDITABLE);
            caps.insert(Caps::EDITABLE_TEXT);
        } else {
            states.insert(States::READ_ONLY);
        }
        if e.control_type == ct::DOCUMENT {
            states.insert(States::MULTILINE);
        }
        caps.insert(Caps::TEXT);
    }
    let value = if secure {
        None
    } else if e.is_range_value_pattern_available {
        e.range_value_value.map(number)
    } else {
        let shows = matches!(
            role,
            Role::Input | Role::Combo | Role::Spin | Role::Web | Role::Cell
        ) || (role == Role::Item && e.is_value_pattern_available);
        // Windows ends lines with \r\n; a value reads as the text it shows.
        e.value_value
            .as_deref()
            .filter(|v| shows && !v.is_empty() && *v != e.name)
            .map(|v| v.replace("\r\n", "\n").replace('\r', "\n"))
    };
    if role == Role::Web && value.is_some() {
        caps.insert(Caps::DOCUMENT);
    }
    let name = e.name.trim().to_string();
    let help = e.help_text.trim();
    Node {
        role,
        description: if help == name {
            String::new()
        } else {
            help.to_string()
        },
        name,
        value,
        bounds,
        states,
        caps,
        actions: acts,
        child_count: u32::try_from(e.children.len()).unwrap_or(u32::MAX),
        handle,
        ..Node::default()
    }
}

/// An element's address: its top-level window and its runtime id (`uia:0x1a2b/42.6748.3`).
pub fn handle(hwnd: u64, runtime_id: &[i32]) -> Handle {
    let steps: Vec<String> = runtime_id.iter().map(i32::to_string).collect();
    Handle::new(format!("uia:{hwnd:#x}/{}", steps.join(".")))
}

/// The window and runtime id of a handle made by [`handle`].
pub fn parse_handle(h: &Handle) -> Option<(u64, Vec<i32>)> {
    let rest = h.as_str().strip_prefix("uia:0x")?;
    let (hwnd, rid) = rest.split_once('/')?;
    let hwnd = u64::from_str_radix(hwnd, 16).ok()?;
    let rid: Vec<i32> = rid
        .split('.')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    Some((hwnd, rid))
}

/// Fills in values from a second cached read (elements with a Value pattern that are no
/// password, by runtime id) — the first read never asks for a value.
pub fn merge_values(e: &mut Element, values: &std::collections::HashMap<Vec<i32>, String>) {
    if !e.is_password {
        if let Some(v) = values.get(&e.runtime_id) {
            e.value_value = Some(v.clone());
        }
    }
    for c in &mut e.children {
        merge_values(c, values);
    }
}

/// The tree below a window (the window element's children) from a cached read or a dump;
/// each element's actions only where asked for (`read --actions`).
pub fn tree(hwnd: u64, top: &Element, with_actions: bool) -> Vec<Node> {
    fn build(hwnd: u64, e: &Element, with_actions: bool) -> Node {
        let mut n = node(e, handle(hwnd, &e.runtime_id));
        if !with_actions {
            n.actions.clear();
        }
        n.children = e
            .children
            .iter()
            .map(|c| build(hwnd, c, with_actions))
            .collect();
        n
    }
    top.children
        .iter()
        .map(|c| build(hwnd, c, with_actions))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(json: &str) -> Element {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_password_is_secure_and_keeps_no_value() {
        let n = node(
            &el(
                r#"{"ControlType":50004,"Name":"Password","IsPassword":true,"ValueValue":"hunter2","IsValuePatternAvailable":true}"#,
            ),
            Handle::default(),
        );
        assert_eq!(n.role, Role::Password);
        assert!(n.is_secure() && n.value.is_none());
        let mut e = el(r#"{"ControlType":50004,"IsPassword":true,"RuntimeId":[1]}"#);
        let values = [(vec![1], "hunter2".to_string())].into_iter().collect();
        merge_values(&mut e, &values);
        assert_eq!(e.value_value, None);
    }

    #[test]
    fn a_document_that_takes_text_is_an_editor_else_a_page() {
        let notepad = node(
            &el(
                r#"{"ControlType":50030,"Name":"Text editor","IsValuePatternAvailable":true,"ValueIsReadOnly":false,"ValueValue":"hello","IsKeyboardFocusable":true}"#,
            ),
            Handle::default(),
        );
        assert_eq!(notepad.role, Role::Input);
        assert!(notepad
            .states
            .contains(States::EDITABLE | States::MULTILINE));
        assert_eq!(notepad.value.as_deref(), Some("hello"));
        let page = node(
            &el(
                r#"{"ControlType":50030,"Name":"Sign in","IsValuePatternAvailable":true,"ValueIsReadOnly":true,"ValueValue":"https://example.com/login"}"#,
            ),
            Handle::default(),
        );
        assert_eq!(page.role, Role::Web);
        assert!(page.caps.contains(Caps::DOCUMENT));
    }

    #[test]
    fn patterns_give_states_and_actions() {
        let check = node(
            &el(
                r#"{"ControlType":50002,"Name":"Word wrap","IsTogglePatternAvailable":true,"ToggleToggleState":1}"#,
            ),
            Handle::default(),
        );
        assert!(check.states.contains(States::CHECKED | States::CHECKABLE));
        assert_eq!(check.actions, ["toggle"]);
        let combo = node(
            &el(
                r#"{"ControlType":50003,"Name":"Font","IsExpandCollapsePatternAvailable":true,"ExpandCollapseExpandCollapseState":0,"IsValuePatternAvailable":true,"ValueValue":"Consolas"}"#,
            ),
            Handle::default(),
        );
        assert!(combo.states.contains(States::EXPANDABLE));
        assert!(!combo.states.contains(States::EXPANDED));
        assert_eq!(combo.value.as_deref(), Some("Consolas"));
        let slider = node(
            &el(
                r#"{"ControlType":50015,"Name":"Zoom","IsRangeValuePatternAvailable":true,"RangeValueValue":40.0}"#,
            ),
            Handle::default(),
        );
        assert_eq!(slider.value.as_deref(), Some("40"));
        let off = node(
            &el(
                r#"{"ControlType":50000,"Name":"Save","IsEnabled":false,"IsInvokePatternAvailable":true}"#,
            ),
            Handle::default(),
        );
        assert!(off.states.contains(States::DISABLED));
    }

    #[test]
    fn a_selected_radio_is_checked() {
        let on = node(
            &el(
                r#"{"ControlType":50013,"Name":"Large","IsSelectionItemPatternAvailable":true,"SelectionItemIsSelected":true}"#,
            ),
            Handle::default(),
        );
        assert!(on.states.contains(States::CHECKED | States::CHECKABLE));
        assert!(!on.states.contains(States::SELECTED));
        let off = node(
            &el(
                r#"{"ControlType":50013,"Name":"Small","IsSelectionItemPatternAvailable":true,"SelectionItemIsSelected":false}"#,
            ),
            Handle::default(),
        );
        assert!(!off.states.contains(States::CHECKED));
    }

    #[test]
    fn handles_round_trip() {
        let h = handle(0x1a2b, &[42, 6748, -3]);
        assert_eq!(h.as_str(), "uia:0x1a2b/42.6748.-3");
        assert_eq!(parse_handle(&h), Some((0x1a2b, vec![42, 6748, -3])));
        assert_eq!(parse_handle(&Handle::new("hwnd:0x1a2b/1.2")), None);
        assert_eq!(parse_handle(&Handle::new("uia:0x1a2b/x")), None);
    }
}
