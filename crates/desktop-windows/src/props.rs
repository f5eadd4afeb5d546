//! One element as MSAA (with its window's class and style where it is a Win32 control)
//! describes it, decoded into plain values and turned into the core's [`Node`]. Pure: the
//! same code builds trees from recorded dumps in the tests.
//!
//! Where MSAA answers only "client" for a control (Wine does for every control but edits;
//! old apps too), the window class and its style say what it is.

use crate::roles;
use desktop_core::{Caps, Handle, Node, Rect, Role, States};
use serde::Deserialize;

/// `STATE_SYSTEM_*` bits.
pub mod state {
    pub const UNAVAILABLE: u32 = 0x1;
    pub const SELECTED: u32 = 0x2;
    pub const FOCUSED: u32 = 0x4;
    pub const PRESSED: u32 = 0x8;
    pub const CHECKED: u32 = 0x10;
    pub const MIXED: u32 = 0x20;
    pub const READONLY: u32 = 0x40;
    pub const EXPANDED: u32 = 0x200;
    pub const COLLAPSED: u32 = 0x400;
    pub const BUSY: u32 = 0x800;
    pub const INVISIBLE: u32 = 0x8000;
    pub const OFFSCREEN: u32 = 0x10000;
    pub const FOCUSABLE: u32 = 0x100000;
    pub const SELECTABLE: u32 = 0x200000;
    pub const PROTECTED: u32 = 0x2000_0000;
}

/// MSAA's generic roles: the window class says more.
const ROLE_CLIENT: i32 = 0x0A;
const ROLE_WINDOW: i32 = 0x09;

/// What is known of one element.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Props {
    /// `accRole` (an MSAA role number).
    pub role: i32,
    /// The Win32 class of the element's own window, when it has one.
    pub class: String,
    /// That window's style (`GWL_STYLE`).
    pub style: u32,
    pub name: String,
    pub value: Option<String>,
    pub description: String,
    /// `accState` bits.
    pub state: u32,
    /// `accLocation`: screen x, y, width, height.
    pub location: Option<(i32, i32, i32, i32)>,
    /// A check box's state from `BM_GETCHECK` (0, 1, 2), where MSAA does not say.
    pub check: Option<u32>,
    pub children: Vec<Props>,
}

/// The role of a Win32 control from its class (and, for buttons, its style).
pub fn role_from_class(class: &str, style: u32) -> Option<Role> {
    const ES_PASSWORD: u32 = 0x20;
    Some(match class.to_ascii_lowercase().as_str() {
        "button" => match style & 0xF {
            2 | 3 | 5 | 6 => Role::CheckBox,
            4 | 9 => Role::Radio,
            7 => Role::Group,
            _ => Role::Button,
        },
        "edit" | "richedit20w" | "richedit50w" | "richeditd2dpt" => {
            if style & ES_PASSWORD != 0 {
                Role::Password
            } else {
                Role::Input
            }
        }
        "static" => Role::Text,
        "combobox" | "comboboxex32" => Role::Combo,
        "listbox" | "syslistview32" => Role::List,
        "systreeview32" => Role::Tree,
        "msctls_statusbar32" => Role::Status,
        "toolbarwindow32" => Role::Toolbar,
        "systabcontrol32" => Role::TabList,
        "msctls_trackbar32" => Role::Slider,
        "msctls_progress32" => Role::Progress,
        "msctls_updown32" => Role::Spin,
        "syslink" => Role::Link,
        "sysheader32" => Role::Header,
        "scrollbar" => Role::ScrollBar,
        "#32770" => Role::Dialog,
        _ => return None,
    })
}

/// The element's role: MSAA's, unless it is a generic one the class improves on.
pub fn role_of(p: &Props) -> Role {
    let generic = matches!(p.role, ROLE_CLIENT | ROLE_WINDOW) || p.role == 0;
    if generic {
        if let Some(r) = role_from_class(&p.class, p.style) {
            return r;
        }
        return Role::Group;
    }
    let r = roles::from_msaa(p.role);
    // MSAA's editable text with the protected state is a password box.
    if r == Role::Input && p.state & state::PROTECTED != 0 {
        return Role::Password;
    }
    r
}

/// Win32 labels carry `&` before their access key (`&Open`): not part of the name.
fn without_ampersand(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '&' {
            if chars.peek() == Some(&'&') {
                out.push('&');
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// The element itself (without children) as the core sees it.
pub fn node(p: &Props, handle: Handle) -> Node {
    let role = role_of(p);
    let secure = role == Role::Password || p.state & state::PROTECTED != 0;
    let mut states = States::empty();
    for (bit, flag) in [
        (state::SELECTED, States::SELECTED),
        (state::FOCUSED, States::FOCUSED),
        (state::CHECKED, States::CHECKED),
        (state::MIXED, States::MIXED),
        (state::EXPANDED, States::EXPANDED | States::EXPANDABLE),
        (state::COLLAPSED, States::EXPANDABLE),
        (state::BUSY, States::BUSY),
        (state::FOCUSABLE, States::FOCUSABLE),
        (state::SELECTABLE, States::SELECTABLE),
    ] {
        if p.state & bit != 0 {
            states.insert(flag);
        }
    }
    if role == Role::Toggle && p.state & state::PRESSED != 0 {
        states.insert(States::CHECKED);
    }
    match p.check {
        Some(1) => states.insert(States::CHECKED),
        Some(2) => states.insert(States::MIXED),
        _ => {}
    }
    if p.state & state::UNAVAILABLE != 0
        && (role.is_interactive() || p.state & state::FOCUSABLE != 0)
    {
        states.insert(States::DISABLED);
    }
    let bounds = p.location.map(|(x, y, w, h)| Rect::new(x, y, w, h));
    let hidden = p.state & (state::INVISIBLE | state::OFFSCREEN) != 0;
    if !hidden && bounds.is_some_and(|b| b.w > 0 && b.h > 0) {
        states.insert(States::SHOWING | States::VISIBLE);
    }
    let mut caps = Caps::empty();
    if bounds.is_some() {
        caps.insert(Caps::COMPONENT);
    }
    if role.is_interactive() {
        caps.insert(Caps::ACTION);
    }
    if secure {
        states.insert(States::SECURE | States::EDITABLE);
        caps.insert(Caps::TEXT | Caps::EDITABLE_TEXT);
    } else if role == Role::Input {
        if p.state & state::READONLY == 0 {
            states.insert(States::EDITABLE);
        } else {
            states.insert(States::READ_ONLY);
        }
        caps.insert(Caps::TEXT | Caps::EDITABLE_TEXT);
    }
    let shows_value = matches!(
        role,
        Role::Input | Role::Combo | Role::Slider | Role::Spin | Role::Progress | Role::Web
    );
    let value = if secure || !shows_value {
        None
    } else {
        // Windows ends lines with \r\n; a value reads as the text it shows.
        p.value
            .as_deref()
            .filter(|v| !v.is_empty())
            .map(|v| v.replace("\r\n", "\n"))
    };
    if role == Role::Web && value.is_some() {
        caps.insert(Caps::DOCUMENT);
    }
    let name = without_ampersand(p.name.trim());
    Node {
        role,
        description: if p.description.trim() == name {
            String::new()
        } else {
            p.description.trim().to_string()
        },
        name,
        value,
        bounds,
        states,
        caps,
        child_count: u32::try_from(p.children.len()).unwrap_or(u32::MAX),
        handle,
        ..Node::default()
    }
}

/// An element's address: the top-level window's handle and the child indices from its
/// client object down (`hwnd:0x1a2b/3.0.1`).
pub fn handle(hwnd: u64, path: &[usize]) -> Handle {
    let steps: Vec<String> = path.iter().map(usize::to_string).collect();
    Handle::new(format!("hwnd:{hwnd:#x}/{}", steps.join(".")))
}

/// The window handle and child path of a handle made by [`handle`].
pub fn parse_handle(h: &Handle) -> Option<(u64, Vec<usize>)> {
    let rest = h.as_str().strip_prefix("hwnd:0x")?;
    let (hwnd, path) = rest.split_once('/')?;
    let hwnd = u64::from_str_radix(hwnd, 16).ok()?;
    let path = if path.is_empty() {
        Vec::new()
    } else {
        path.split('.')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?
    };
    Some((hwnd, path))
}

/// The tree below a window from a recorded (or fully read) dump.
pub fn tree(hwnd: u64, top: &Props) -> Vec<Node> {
    fn build(hwnd: u64, p: &Props, path: &mut Vec<usize>) -> Node {
        let mut n = node(p, handle(hwnd, path));
        for (i, c) in p.children.iter().enumerate() {
            path.push(i);
            n.children.push(build(hwnd, c, path));
            path.pop();
        }
        n
    }
    let mut path = Vec::new();
    top.children
        .iter()
        .enumerate()
        .map(|(i, c)| {
            path.push(i);
            let n = build(hwnd, c, &mut path);
            path.pop();
            n
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(json: &str) -> Props {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_generic_client_takes_its_role_from_its_class() {
        let ok = node(
            &props(
                r#"{"role":10,"class":"Button","style":1,"name":"&Open","location":[10,10,80,24],"state":1048576}"#,
            ),
            Handle::default(),
        );
        assert_eq!((ok.role.clone(), ok.name.as_str()), (Role::Button, "Open"));
        assert!(ok.states.contains(States::SHOWING));
        let check = node(
            &props(r#"{"role":10,"class":"Button","style":3,"name":"Wrap","check":1}"#),
            Handle::default(),
        );
        assert_eq!(check.role, Role::CheckBox);
        assert!(check.states.contains(States::CHECKED));
        let label = node(
            &props(r#"{"role":10,"class":"Static","name":"File &name:"}"#),
            Handle::default(),
        );
        assert_eq!(
            (label.role.clone(), label.name.as_str()),
            (Role::Text, "File name:")
        );
        let pane = node(
            &props(r#"{"role":10,"class":"SHELLDLL_DefView"}"#),
            Handle::default(),
        );
        assert_eq!(pane.role, Role::Group);
    }

    #[test]
    fn an_edit_shows_its_text_and_a_password_never() {
        let edit = node(
            &props(r#"{"role":42,"class":"Edit","value":"hello","state":1048580}"#),
            Handle::default(),
        );
        assert_eq!(edit.role, Role::Input);
        assert_eq!(edit.value.as_deref(), Some("hello"));
        let lines = node(
            &props(r#"{"role":42,"class":"Edit","value":"one\r\ntwo"}"#),
            Handle::default(),
        );
        assert_eq!(lines.value.as_deref(), Some("one\ntwo"));
        assert!(edit.states.contains(States::FOCUSED | States::EDITABLE));
        let pwd = node(
            &props(r#"{"role":42,"class":"Edit","style":32,"value":"hunter2","state":536870912}"#),
            Handle::default(),
        );
        assert_eq!(pwd.role, Role::Password);
        assert_eq!(pwd.value, None);
        assert!(pwd.is_secure());
        // A password box by class style alone (Wine's generic client).
        let pwd = node(
            &props(r#"{"role":10,"class":"Edit","style":32,"value":"hunter2"}"#),
            Handle::default(),
        );
        assert!(pwd.is_secure() && pwd.value.is_none());
    }

    #[test]
    fn disabled_and_hidden_states() {
        let off = node(
            &props(r#"{"role":43,"name":"Save","state":1,"location":[0,0,10,10]}"#),
            Handle::default(),
        );
        assert!(off.states.contains(States::DISABLED));
        let hidden = node(
            &props(r#"{"role":43,"name":"Save","state":32768,"location":[0,0,10,10]}"#),
            Handle::default(),
        );
        assert!(!hidden.states.contains(States::SHOWING));
    }

    #[test]
    fn handles_round_trip() {
        let h = handle(0x1a2b, &[3, 0, 1]);
        assert_eq!(h.as_str(), "hwnd:0x1a2b/3.0.1");
        assert_eq!(parse_handle(&h), Some((0x1a2b, vec![3, 0, 1])));
        assert_eq!(parse_handle(&handle(7, &[])), Some((7, vec![])));
        assert_eq!(parse_handle(&Handle::new("501/0/1")), None);
    }
}
