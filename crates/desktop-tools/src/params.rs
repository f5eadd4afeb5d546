//! The input of each MCP tool, as typed structs whose JSON Schemas (schemars) the server
//! advertises. Field docs become the schema's descriptions: they are what a model reads.
//! Unknown argument names are refused by the dispatcher (serde cannot with `flatten`).

use schemars::JsonSchema;
use serde::Deserialize;

/// Which window (all given must match; none = the focused window).
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
pub struct Target {
    /// App name (or part of it).
    pub app: Option<String>,
    /// Part of the window title.
    pub window: Option<String>,
    /// From list_windows.
    pub window_id: Option<u64>,
    pub pid: Option<u32>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ListWindows {
    /// Only windows of this application.
    pub app: Option<String>,
    /// Only windows of this process.
    pub pid: Option<u32>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Empty {}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Read {
    #[serde(flatten)]
    pub target: Target,
    /// Only elements an agent can act on and the named containers holding them (default true).
    #[serde(default = "yes")]
    pub interactive: bool,
    /// Only these roles, comma-separated: btn,lnk,input,chk,radio,combo,menuitem,tab,txt,...
    pub roles: Option<String>,
    /// Only elements whose name, value or description contains this (case-insensitive).
    pub text: Option<String>,
    /// Levels below the window to read.
    pub depth: Option<u32>,
    /// Only elements intersecting this screen rectangle "x,y,w,h".
    pub bbox: Option<String>,
    /// At most this many elements (default 200); the result says how many were left out.
    pub max_elements: Option<usize>,
    /// Rough cap on the size of the text tree, in tokens (default 8000).
    pub max_tokens: Option<usize>,
    /// Include each element's accessibility action names.
    #[serde(default)]
    pub actions: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Find {
    #[serde(flatten)]
    pub target: Target,
    /// Text the element's name, value or description contains.
    pub text: String,
    /// Only elements of this role.
    pub role: Option<String>,
}

/// An element: an id from the last read/find of its window, or its visible text.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Element {
    /// Element id from the latest read, find, wait or observe of the window.
    pub id: Option<u32>,
    /// The element whose name contains this text (when no id is given).
    pub text: Option<String>,
    /// With text: only elements of this role.
    pub role: Option<String>,
    /// With text: the whole name must equal it.
    #[serde(default)]
    pub exact: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Click {
    #[serde(flatten)]
    pub target: Target,
    #[serde(flatten)]
    pub element: Element,
    /// Screen x instead of an element (with y).
    pub x: Option<i32>,
    /// Screen y instead of an element (with x).
    pub y: Option<i32>,
    /// left (default), right or middle.
    pub button: Option<String>,
    /// Double-click.
    #[serde(default)]
    pub double: bool,
    /// Keys held during the click: "ctrl" (add to a selection), "shift" (a range), "alt",
    /// "super". Always released afterwards.
    #[serde(default)]
    pub modifiers: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Type {
    #[serde(flatten)]
    pub target: Target,
    /// The text to type; any script or emoji.
    pub text: String,
    /// Type into this element (id from the last read): it is focused first and the text
    /// goes after its existing text. Without it, keys go where the focus is.
    pub id: Option<u32>,
    /// With id: replace the element's whole text instead of adding to it.
    pub replace: Option<bool>,
    /// Milliseconds between keystrokes (default 0).
    pub delay_ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Press {
    #[serde(flatten)]
    pub target: Target,
    /// Key combos tapped in turn: ["tab", "tab", "enter"], or one string "ctrl+s",
    /// "down down enter", "shift+tab", "alt+f4", "super", "f5".
    pub keys: Keys,
    /// Tap the whole sequence this many times (default 1, at most 200).
    pub repeat: Option<u32>,
    /// Focus this element (id from the last read) first and press the keys into it.
    pub id: Option<u32>,
}

/// One combo string (several separated by spaces) or a list of them.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Keys {
    List(Vec<String>),
    One(String),
}

impl Keys {
    pub fn words(&self) -> Vec<&str> {
        match self {
            Keys::List(l) => l.iter().map(String::as_str).collect(),
            Keys::One(s) => vec![s.as_str()],
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Focus {
    #[serde(flatten)]
    pub target: Target,
    /// Focus this element instead of the window.
    pub id: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Scroll {
    #[serde(flatten)]
    pub target: Target,
    /// up, down (default), left or right.
    pub direction: Option<String>,
    /// Wheel notches (default 3).
    pub amount: Option<u32>,
    /// Scroll at this screen point (with y).
    pub x: Option<i32>,
    pub y: Option<i32>,
    /// Scroll inside this element.
    pub id: Option<u32>,
    /// With id: have the app bring the element into view instead.
    #[serde(default)]
    pub into_view: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Drag {
    #[serde(flatten)]
    pub target: Target,
    pub from_x: Option<i32>,
    pub from_y: Option<i32>,
    pub to_x: Option<i32>,
    pub to_y: Option<i32>,
    /// Start at this element's center.
    pub from_id: Option<u32>,
    /// End at this element's center.
    pub to_id: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SetValue {
    #[serde(flatten)]
    pub target: Target,
    #[serde(flatten)]
    pub element: Element,
    /// New text, or a number for sliders and spin buttons.
    pub value: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Toggle {
    #[serde(flatten)]
    pub target: Target,
    #[serde(flatten)]
    pub element: Element,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Action {
    #[serde(flatten)]
    pub target: Target,
    #[serde(flatten)]
    pub element: Element,
    /// One of the element's action names (read with actions=true lists them).
    pub name: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Launch {
    /// The program and its arguments, e.g. ["gtk3-widget-factory"].
    pub command: Vec<String>,
    /// Seconds to wait for its window (default 20, at most 50).
    pub wait_s: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Screenshot {
    #[serde(flatten)]
    pub target: Target,
    /// Capture one element.
    pub id: Option<u32>,
    /// Capture a screen rectangle "x,y,w,h".
    pub region: Option<String>,
    /// png (default) or jpeg.
    pub format: Option<String>,
    /// JPEG quality 1-100 (default 80).
    pub quality: Option<u8>,
    /// Scale 0.1-1.0 (default 1.0, then limited by max_edge).
    pub scale: Option<f64>,
    /// Longest image side in pixels (default 1568, what vision models take without resizing).
    pub max_edge: Option<u32>,
    /// Draw each interactive element's box and id (set-of-marks); the ids work with click.
    #[serde(default)]
    pub annotate: bool,
    /// Draw a labelled coordinate grid in screen pixels.
    #[serde(default)]
    pub grid: bool,
    /// Draw a crosshair on the pointer, labelled with its screen point.
    #[serde(default)]
    pub cursor: bool,
    /// Add a magnified inset around the pointer, grid every 10 screen px.
    #[serde(default)]
    pub inset: bool,
    /// Inset side in px, 64-800 (default 200).
    pub inset_size: Option<u32>,
    /// Inset zoom 2-16 (default 4).
    pub inset_zoom: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClipboardSet {
    /// The text to put on the clipboard.
    pub text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Wait {
    #[serde(flatten)]
    pub target: Target,
    /// Wait for an element whose name, value or description contains this.
    pub for_text: Option<String>,
    /// Wait for an element of this role (with for_text: both).
    pub for_role: Option<String>,
    /// Wait for the element with this id (with gone: until it disappears).
    pub for_id: Option<u32>,
    /// Wait until nothing matches instead.
    #[serde(default)]
    pub gone: bool,
    /// Give up after this many milliseconds (default 10000, at most 50000).
    pub timeout_ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Observe {
    #[serde(flatten)]
    pub target: Target,
    /// Seconds to watch (default 5, at most 50).
    pub duration_s: Option<u64>,
    /// Only these roles, comma-separated.
    pub roles: Option<String>,
    /// Leave out position changes.
    #[serde(default)]
    pub ignore_bounds: bool,
    /// Leave out focus changes.
    #[serde(default)]
    pub ignore_focus: bool,
}
