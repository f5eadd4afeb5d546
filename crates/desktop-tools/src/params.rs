//! The input of each MCP tool, as typed structs whose JSON Schemas (schemars) the server
//! advertises. Field docs become the schema's descriptions: they are what a model reads.
//! Unknown argument names are refused by the dispatcher (serde cannot with `flatten`).

use schemars::JsonSchema;
use serde::Deserialize;

/// Which window (all given must match; none = the focused window). Its fields carry no
/// description: they are in nearly every tool, and the server's instructions and `read`'s
/// description say once what they mean.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
pub struct Target {
    // App name, or part of it.
    pub app: Option<String>,
    // Part of the window's title.
    pub window: Option<String>,
    // An id from list_windows.
    pub window_id: Option<u64>,
    pub pid: Option<u32>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ListWindows {
    pub app: Option<String>,
    pub pid: Option<u32>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Empty {}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Read {
    #[serde(flatten)]
    pub target: Target,
    /// Only what can be acted on, headings and status lines (default true).
    #[serde(default = "yes")]
    pub interactive: bool,
    /// Comma-separated: btn,lnk,input,chk,radio,combo,menuitem,tab,txt,...
    pub roles: Option<String>,
    /// Only elements whose name, value or description contains this.
    pub text: Option<String>,
    pub depth: Option<u32>,
    /// Screen rectangle "x,y,w,h".
    pub bbox: Option<String>,
    /// Default 200.
    pub max_elements: Option<usize>,
    /// Default 4000; what does not fit is shown collapsed (`cut:N`): open it by id.
    pub max_tokens: Option<usize>,
    /// Each element's action names.
    #[serde(default)]
    pub actions: bool,
    /// A browser as its page only (default true); false adds its toolbar and tabs.
    #[serde(default = "yes")]
    pub page: bool,
    /// Screen boxes [x,y,w,h] (default false).
    #[serde(default)]
    pub bounds: bool,
    /// Only this element (an id from an earlier read) and what it holds: opens a collapsed
    /// container or one part of a big window.
    pub id: Option<u32>,
}

/// The tokens a `read` answers by default: about 200 elements of the text tree, the element
/// cap's worth (15–20 tokens an element), where a host that keeps every read in its context
/// feels a bigger default.
pub const READ_TOKENS: usize = 4000;

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Find {
    #[serde(flatten)]
    pub target: Target,
    /// In the name, value or description.
    pub text: String,
    pub role: Option<String>,
}

/// An element: an id from any read/find of its window, or its visible text.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Element {
    /// From a read, find, wait or observe of its window.
    pub id: Option<u32>,
    /// Instead of id: the element whose name contains this.
    pub text: Option<String>,
    /// With text: this role only.
    pub role: Option<String>,
    /// With text: the whole name equals it.
    #[serde(default)]
    pub exact: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Click {
    #[serde(flatten)]
    pub target: Target,
    #[serde(flatten)]
    pub element: Element,
    /// Screen point instead of an element.
    pub x: Option<i32>,
    pub y: Option<i32>,
    /// left (default), right, middle.
    pub button: Option<String>,
    #[serde(default)]
    pub double: bool,
    /// Held during the click: ctrl, shift, alt, super.
    #[serde(default)]
    pub modifiers: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Type {
    #[serde(flatten)]
    pub target: Target,
    pub text: String,
    /// Focused first; the text goes after its text. Without: where the focus is.
    pub id: Option<u32>,
    /// With id: replace its whole text.
    pub replace: Option<bool>,
    /// Between keystrokes (default 0).
    pub delay_ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Press {
    #[serde(flatten)]
    pub target: Target,
    /// Combos in turn: "ctrl+s", "down down enter", or ["tab", "enter"].
    pub keys: Keys,
    /// Times to press the whole sequence (default 1, at most 200).
    pub repeat: Option<u32>,
    /// Focus this element first.
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
    /// This element instead of the window.
    pub id: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Scroll {
    #[serde(flatten)]
    pub target: Target,
    /// up, down (default), left, right.
    pub direction: Option<String>,
    /// Wheel notches (default 3).
    pub amount: Option<u32>,
    /// At this screen point.
    pub x: Option<i32>,
    pub y: Option<i32>,
    /// Inside this element.
    pub id: Option<u32>,
    /// With id: the app brings it into view instead.
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
    pub from_id: Option<u32>,
    pub to_id: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SetValue {
    #[serde(flatten)]
    pub target: Target,
    #[serde(flatten)]
    pub element: Element,
    /// Text, or a number for a slider or spin button.
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
    pub name: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Launch {
    /// Program and arguments: ["gedit", "notes.txt"].
    pub command: Vec<String>,
    /// Default 20, at most 50.
    pub wait_s: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Window {
    #[serde(flatten)]
    pub target: Target,
    /// move, resize, minimize, maximize, restore or fullscreen.
    pub op: String,
    /// move: screen x and y of the window's top-left corner.
    pub x: Option<i32>,
    pub y: Option<i32>,
    /// resize: the new size.
    pub width: Option<i32>,
    pub height: Option<i32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Menu {
    #[serde(flatten)]
    pub target: Target,
    /// Levels separated by >: "File > Save As".
    pub path: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FileDialog {
    #[serde(flatten)]
    pub target: Target,
    /// The file to open or save, an absolute path.
    pub path: String,
    /// "open" or "save": refused when the chooser showing is for the other.
    #[serde(default)]
    pub action: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CloseWindow {
    #[serde(flatten)]
    pub target: Target,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CloseApp {
    /// The app as list_windows shows it.
    pub app: String,
    /// End its processes when its windows do not close (unsaved work is lost).
    #[serde(default)]
    pub force: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Screenshot {
    #[serde(flatten)]
    pub target: Target,
    /// One element.
    pub id: Option<u32>,
    /// Screen rectangle "x,y,w,h".
    pub region: Option<String>,
    /// png (default) or jpeg.
    pub format: Option<String>,
    /// 1-100 (default 80).
    pub quality: Option<u8>,
    /// 0.1-1.0 (default 1).
    pub scale: Option<f64>,
    /// Default 1568.
    pub max_edge: Option<u32>,
    /// Each element's box and id.
    #[serde(default)]
    pub annotate: bool,
    /// Coordinate grid in screen px.
    #[serde(default)]
    pub grid: bool,
    /// Crosshair on the pointer.
    #[serde(default)]
    pub cursor: bool,
    /// Magnified inset around the pointer.
    #[serde(default)]
    pub inset: bool,
    /// 64-800 px (default 200).
    pub inset_size: Option<u32>,
    /// 2-16 (default 4).
    pub inset_zoom: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClipboardSet {
    pub text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Wait {
    #[serde(flatten)]
    pub target: Target,
    /// In the name, value or description.
    pub for_text: Option<String>,
    pub for_role: Option<String>,
    pub for_id: Option<u32>,
    /// Until nothing matches.
    #[serde(default)]
    pub gone: bool,
    /// Default 10000, at most 50000.
    pub timeout_ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Observe {
    #[serde(flatten)]
    pub target: Target,
    /// Default 5, at most 50.
    pub duration_s: Option<u64>,
    /// Comma-separated.
    pub roles: Option<String>,
    #[serde(default)]
    pub ignore_bounds: bool,
    #[serde(default)]
    pub ignore_focus: bool,
}
