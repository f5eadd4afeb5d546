//! `data` of action commands: what was done, to which element, by which route, and the
//! element's state afterwards when it changed.

use crate::node::{Node, Rect, States};
use crate::render::{shown_value, state_keys, Bounds};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// How an action reached the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// The element's own accessibility interface (Action, EditableText, Value, Component):
    /// works on background windows, needs no pointer.
    A11y,
    /// Synthesized keyboard or pointer input, as a person's, at the element or the given point.
    Input,
    /// Neither: the window system itself (focus, launch).
    System,
}

/// What an action is known to have done, checked by reading the app back after it settled.
/// A change that was expected and did not happen is not an effect: the action fails with
/// `ACTION_FAILED` and the state that was observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// The intended change was observed: the text is in the field, the value is set, the
    /// check state flipped, the focus moved, the element came into view.
    Confirmed,
    /// Nothing observable to compare (a button press whose outcome only the app knows, a
    /// key combo, a wheel turn); the app had taken the input when the action answered.
    Unverifiable,
}

/// The parts of an element's state an action can change, compared before and after.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ElementState {
    pub role: String,
    pub value: Option<String>,
    pub states: States,
}

/// `NOT_INTERACTABLE` for a disabled element, checked before acting on it (every backend
/// refuses the same way).
pub fn usable(n: &Node) -> crate::Result<()> {
    if n.states.contains(States::DISABLED) {
        return Err(crate::Error::new(
            crate::ErrorCode::NotInteractable,
            format!("{} \"{}\" is disabled", n.role, n.name),
        )
        .suggest("Wait until it is enabled, or act on another element"));
    }
    Ok(())
}

impl ElementState {
    pub fn of(n: &Node) -> Self {
        let keep = States::FOCUSED
            | States::DISABLED
            | States::SELECTED
            | States::CHECKED
            | States::MIXED
            | States::EXPANDABLE
            | States::EXPANDED
            | States::READ_ONLY;
        ElementState {
            role: n.role.short().to_string(),
            value: shown_value(n).map(str::to_string),
            states: States::from_bits(n.states.bits() & keep.bits()),
        }
    }
}

/// Serialized with the compact keys of `read`: `r`, `v`, `f`, `e`, `s`, `k`, `x`, `ro`.
impl Serialize for ElementState {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let st = self.states;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("r", &self.role)?;
        if let Some(v) = &self.value {
            m.serialize_entry("v", v)?;
        }
        let checkable = matches!(self.role.as_str(), "chk" | "toggle" | "switch" | "radio");
        state_keys(&mut m, st, checkable, true)?;
        m.end()
    }
}

/// What an action acted on.
#[derive(Clone, Debug, PartialEq)]
pub struct Acted {
    pub role: String,
    pub name: String,
    pub bounds: Option<Rect>,
}

impl Serialize for Acted {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("r", &self.role)?;
        if !self.name.is_empty() {
            m.serialize_entry("t", &self.name)?;
        }
        if let Some(b) = self.bounds.filter(Rect::is_valid) {
            m.serialize_entry("b", &Bounds(b))?;
        }
        m.end()
    }
}

/// `data` of `click`, `type`, `press`, `focus`, `scroll`, `drag`, `set-value`, `toggle`,
/// `action`, `launch`:
/// `{"action":"click","id":12,"route":"a11y","effect":"confirmed",
///   "element":{"r":"chk","t":"Agree"},"post_state":{"r":"chk","k":true}}`.
///
/// Every action answers only after the app has taken it in (input consumed, text or state
/// changed, events quiet), so a `read` right after sees its result. `post_state` is read
/// after that and omitted when nothing about the element changed.
#[derive(Clone, Debug, Serialize)]
pub struct ActionResult {
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    pub route: Route,
    pub effect: Effect,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<Acted>,
    /// The recorded handle was gone and the element was found again by its fingerprint.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rematched: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_state: Option<ElementState>,
    /// Command-specific facts (characters typed, the launched app's pid, ...).
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// Where the time went (`settle`: waiting for the app to take the action in), for
    /// `--timing`; not part of `data`.
    #[serde(skip)]
    pub timing: Vec<(&'static str, f64)>,
}

impl ActionResult {
    pub fn new(action: &'static str, route: Route) -> Self {
        ActionResult {
            action,
            id: None,
            route,
            effect: Effect::Unverifiable,
            element: None,
            rematched: false,
            post_state: None,
            extra: Default::default(),
            timing: Vec::new(),
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.extra.insert(key.to_string(), value.into());
        self
    }
}
