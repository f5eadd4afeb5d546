//! The `data` payloads of `list` and `read`, and the target a command is scoped to.

use crate::node::{Handle, Node, Rect};
use crate::render::{Bounds, Elements};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// Which window a command works on. All set fields must match; none set means the focused window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// Application name, case-insensitive; exact match preferred over substring.
    pub app: Option<String>,
    /// Window title substring, case-insensitive.
    pub window: Option<String>,
    pub window_id: Option<u64>,
    pub pid: Option<u32>,
}

/// Whether an app's name matches a wanted one: case-insensitive, the whole name or a part.
pub fn name_matches(app: &str, wanted: &str) -> bool {
    let (a, w) = (app.to_lowercase(), wanted.to_lowercase());
    a == w || a.contains(&w)
}

impl Target {
    pub fn is_empty(&self) -> bool {
        self.app.is_none()
            && self.window.is_none()
            && self.window_id.is_none()
            && self.pid.is_none()
    }
}

/// A top-level window, from the accessibility tree joined with the window system.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WindowInfo {
    pub app: String,
    #[serde(skip_serializing_if = "is_zero")]
    pub pid: u32,
    pub title: String,
    /// The window system's id of the window (a number the platform gives it); absent when
    /// the window has none we could find.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "opt_bounds")]
    pub bounds: Option<Rect>,
    pub focused: bool,
    /// False when the window exposes no accessibility tree (`read` cannot see inside it).
    #[serde(skip_serializing_if = "is_true")]
    pub a11y: bool,
    /// A modal dialog: its app takes input there first.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub modal: bool,
    /// Minimized, maximized or full screen, as the window system says (absent: normal, or
    /// nothing manages windows to say otherwise).
    #[serde(skip_serializing_if = "WindowState::is_normal")]
    pub state: WindowState,
    /// The name of the display holding the window's center (`displays`), where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    /// The accessibility handle of the window's root element.
    #[serde(skip)]
    pub handle: Option<Handle>,
}

/// What the window system shows of a top-level window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WindowState {
    #[default]
    Normal,
    /// Iconified: not on screen until restored.
    Minimized,
    Maximized,
    Fullscreen,
}

impl WindowState {
    pub fn is_normal(&self) -> bool {
        *self == WindowState::Normal
    }
}

impl WindowList {
    /// Says which display holds each window (the one holding its center).
    pub fn place_on(&mut self, displays: &[crate::backend::Display]) {
        for w in &mut self.windows {
            if let Some(d) = w
                .bounds
                .and_then(|b| crate::backend::display_of(displays, &b))
                .filter(|d| !d.name.is_empty())
            {
                w.display = Some(d.name.clone());
            }
        }
    }
}

/// A running application with an accessibility connection.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AppInfo {
    pub name: String,
    #[serde(skip_serializing_if = "is_zero")]
    pub pid: u32,
    pub windows: usize,
}

/// An application that did not answer within the timeout.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Unresponsive {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub pid: u32,
    pub code: &'static str,
}

/// `data` of `list --windows`.
#[derive(Clone, Debug, Serialize, Default)]
pub struct WindowList {
    pub windows: Vec<WindowInfo>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unresponsive: Vec<Unresponsive>,
    /// Names of every accessible app, for error messages; not part of `data`.
    #[serde(skip)]
    pub app_names: Vec<String>,
}

/// `data` of `list --apps`.
#[derive(Clone, Debug, Serialize, Default)]
pub struct AppList {
    pub apps: Vec<AppInfo>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unresponsive: Vec<Unresponsive>,
}

/// `data` of `read`.
///
/// `{"app":..,"pid":..,"window":{"title":..,"id":..,"b":[..]},"ts":..,"count":N,
///   "elements":[..], "truncated":{"shown":N,"total":M}}`; with `--compact` the elements
/// are one flat list without `c`. `"incomplete":{"reason":..,"hint":..}` when the reader
/// stopped before the whole window was read (its budget of time or elements ran out).
/// `"boxes":"window"` when the elements' boxes are relative to their window's corner.
#[derive(Clone, Debug)]
pub struct ReadData {
    pub window: WindowInfo,
    pub ts: u64,
    pub elements: Vec<Node>,
    /// Elements after filtering, before `--max-elements`.
    pub total: usize,
    pub shown: usize,
    pub flat: bool,
    /// Each element's bounds are shown (`b`); without, ids alone address elements.
    pub bounds: bool,
    /// Only the page of a browser window was read (`page::only`).
    pub page: bool,
    /// Why the reader stopped before reading the whole window, if it did.
    pub incomplete: Option<String>,
    /// Elements a token budget left out (`budget::fit`), each counted by the shown
    /// container holding it (`Node::cut`) or, outside any, here alone.
    pub cut: usize,
    /// The elements' boxes are relative to their window's corner, not places on screen:
    /// the window system tells no position of the window (Wayland without sway's IPC), so
    /// nothing can aim at them on screen.
    pub window_boxes: bool,
    /// Where the tree came from and what it cost, for `--timing`; not part of `data`.
    pub timing: Vec<(&'static str, f64)>,
}

impl ReadData {
    /// A read of `elements` in a focused window of `app` (fixture trees in tests).
    #[cfg(test)]
    pub(crate) fn fixture(app: &str, title: &str, id: u64, elements: Vec<Node>) -> ReadData {
        ReadData {
            window: WindowInfo {
                app: app.into(),
                pid: 7,
                title: title.into(),
                id: Some(id),
                bounds: None,
                focused: true,
                a11y: true,
                modal: false,
                state: WindowState::default(),
                display: None,
                handle: None,
            },
            ts: 1,
            elements,
            total: 0,
            shown: 0,
            flat: false,
            bounds: true,
            page: false,
            incomplete: None,
            cut: 0,
            window_boxes: false,
            timing: Vec::new(),
        }
    }

    /// The read with no elements: its window, counts and notes.
    pub fn clone_without_elements(&self) -> ReadData {
        ReadData {
            window: self.window.clone(),
            ts: self.ts,
            elements: Vec::new(),
            total: self.total,
            shown: self.shown,
            flat: self.flat,
            bounds: self.bounds,
            page: self.page,
            incomplete: self.incomplete.clone(),
            cut: self.cut,
            window_boxes: self.window_boxes,
            timing: self.timing.clone(),
        }
    }

    /// Elements `--max-elements` left out (a token budget's are `cut`).
    pub fn truncated(&self) -> usize {
        self.total.saturating_sub(self.shown + self.cut)
    }
}

impl Serialize for ReadData {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("app", &self.window.app)?;
        if self.window.pid != 0 {
            m.serialize_entry("pid", &self.window.pid)?;
        }
        m.serialize_entry("window", &WindowRef(&self.window))?;
        m.serialize_entry("ts", &self.ts)?;
        m.serialize_entry("count", &self.shown)?;
        if self.page {
            m.serialize_entry("page", &true)?;
        }
        if self.window_boxes {
            m.serialize_entry("boxes", "window")?;
        }
        let elements = Elements {
            nodes: &self.elements,
            flat: self.flat,
            bounds: self.bounds,
        };
        m.serialize_entry("elements", &elements)?;
        if self.truncated() > 0 {
            m.serialize_entry(
                "truncated",
                &Truncated {
                    shown: self.shown + self.cut,
                    total: self.total,
                    hint: "raise --max-elements, or narrow with --roles, --bbox, --text or -i",
                },
            )?;
        }
        if self.cut > 0 {
            m.serialize_entry(
                "cut",
                &Cut {
                    elements: self.cut,
                    hint:
                        "fitted to the token budget: open an element that has `cut` with read --id",
                },
            )?;
        }
        if let Some(reason) = &self.incomplete {
            m.serialize_entry(
                "incomplete",
                &Incomplete {
                    reason,
                    hint: "part of the window was not read: narrow with --depth, --bbox or --text, or raise --call-timeout",
                },
            )?;
        }
        m.end()
    }
}

#[derive(Serialize)]
struct Cut {
    elements: usize,
    hint: &'static str,
}

#[derive(Serialize)]
struct Incomplete<'a> {
    reason: &'a str,
    hint: &'static str,
}

#[derive(Serialize)]
struct Truncated {
    shown: usize,
    total: usize,
    hint: &'static str,
}

struct WindowRef<'a>(&'a WindowInfo);

impl Serialize for WindowRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let w = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("title", &w.title)?;
        if let Some(id) = w.id {
            m.serialize_entry("id", &id)?;
        }
        if let Some(b) = w.bounds {
            m.serialize_entry("b", &Bounds(b))?;
        }
        m.end()
    }
}

fn opt_bounds<S: Serializer>(b: &Option<Rect>, s: S) -> Result<S::Ok, S::Error> {
    match b {
        Some(r) => Bounds(*r).serialize(s),
        None => s.serialize_none(),
    }
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

fn is_true(v: &bool) -> bool {
    *v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(window_boxes: bool) -> ReadData {
        ReadData {
            window: WindowInfo {
                app: "form".into(),
                pid: 0,
                title: "Form".into(),
                id: None,
                bounds: None,
                focused: true,
                a11y: true,
                modal: false,
                state: WindowState::Normal,
                display: None,
                handle: None,
            },
            ts: 1,
            elements: vec![Node {
                id: 1,
                name: "OK".into(),
                bounds: Some(Rect::new(10, 20, 30, 40)),
                ..Node::default()
            }],
            total: 1,
            shown: 1,
            flat: false,
            bounds: true,
            page: false,
            incomplete: None,
            cut: 0,
            window_boxes,
            timing: Vec::new(),
        }
    }

    /// Boxes relative to their window say so, in the JSON, the text form and CSV; screen
    /// boxes add nothing.
    #[test]
    fn window_relative_boxes_are_marked() {
        let json = |d: &ReadData| serde_json::to_value(d).unwrap();
        assert_eq!(json(&read(true))["boxes"], "window");
        assert!(json(&read(false)).get("boxes").is_none());
        let text = crate::render::read_text(&read(true), true);
        assert!(
            text.lines()
                .next()
                .unwrap()
                .contains("relative to the window"),
            "{text}"
        );
        assert!(!crate::render::read_text(&read(false), true).contains("relative"));
        // Without boxes shown there is nothing to say about them.
        assert!(!crate::render::read_text(&read(true), false).contains("relative"));
        // CSV: in the window's row (its description).
        let csv = crate::table::read_csv(&read(true));
        let window_row = csv.lines().nth(1).unwrap();
        assert!(
            window_row.starts_with("0,,window,Form,form,,boxes relative to the window"),
            "{csv}"
        );
        assert!(!crate::table::read_csv(&read(false)).contains("relative"));
        let mut hidden = read(true);
        hidden.bounds = false;
        assert!(!crate::table::read_csv(&hidden).contains("relative"));
    }
}
