//! The agent's tools' parameters. The agent works in one window at a time (no window
//! fields; `switch_window` moves it) and may point in the screenshot it was shown, so points
//! are numbers with a `space`; every call carries a short `why` for the transcript. Unknown
//! keys are refused, and a call that does not read whole is never executed in part.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

/// What x/y mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Space {
    /// Pixels of the latest screenshot.
    Image,
    /// 0-1000 across the latest screenshot.
    Normalized,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    Left,
    Right,
    Middle,
}

impl MouseButton {
    pub fn as_str(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Right => "right",
            MouseButton::Middle => "middle",
        }
    }
}

/// A key held during a click.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Modifier {
    Ctrl,
    Shift,
    Alt,
    Super,
}

impl Modifier {
    pub fn as_str(self) -> &'static str {
        match self {
            Modifier::Ctrl => "ctrl",
            Modifier::Shift => "shift",
            Modifier::Alt => "alt",
            Modifier::Super => "super",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Left => "left",
            Direction::Right => "right",
        }
    }
}

/// A whole number, also when a model writes it as `4.0`.
pub(crate) fn whole<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    use serde::de::Error;
    match Option::<f64>::deserialize(d)? {
        None => Ok(None),
        Some(f) if f.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&f) => {
            Ok(Some(f as u32))
        }
        Some(f) => Err(D::Error::custom(format!(
            "{f} is not a whole number of at least 0"
        ))),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Click {
    /// Element id from the latest screen.
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u32>")]
    pub id: Option<u32>,
    /// Point x (when no id).
    pub x: Option<f64>,
    /// Point y (when no id).
    pub y: Option<f64>,
    /// What x/y mean: "image" = pixels of the latest screenshot, "normalized" = 0-1000 across it. Null with an id.
    pub space: Option<Space>,
    /// Mouse button (null = left).
    pub button: Option<MouseButton>,
    /// Double-click.
    pub double: Option<bool>,
    /// Keys held during the click: ctrl adds to a selection, shift selects a range (null = none).
    pub modifiers: Option<Vec<Modifier>>,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeText {
    /// The text to type.
    pub text: String,
    /// Element to type into; null = the focused element.
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u32>")]
    pub id: Option<u32>,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PressKeys {
    /// Combos separated by spaces, each with keys joined by +.
    pub keys: String,
    /// Press the whole sequence this many times (null = 1, at most 200).
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u32>")]
    pub repeat: Option<u32>,
    /// Element to press the keys into (focused first); null = where the focus is.
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u32>")]
    pub id: Option<u32>,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scroll {
    pub direction: Direction,
    /// Wheel notches (null = 3).
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u32>")]
    pub amount: Option<u32>,
    /// Scroll inside this element.
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u32>")]
    pub id: Option<u32>,
    /// Point x.
    pub x: Option<f64>,
    /// Point y.
    pub y: Option<f64>,
    /// What x/y mean: "image" = pixels of the latest screenshot, "normalized" = 0-1000 across it. Null with an id.
    pub space: Option<Space>,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Drag {
    /// Start element.
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u32>")]
    pub from_id: Option<u32>,
    /// Start x.
    pub from_x: Option<f64>,
    /// Start y.
    pub from_y: Option<f64>,
    /// End element.
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u32>")]
    pub to_id: Option<u32>,
    /// End x.
    pub to_x: Option<f64>,
    /// End y.
    pub to_y: Option<f64>,
    /// What x/y mean: "image" = pixels of the latest screenshot, "normalized" = 0-1000 across it. Null with ids.
    pub space: Option<Space>,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

/// One element by id.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ById {
    /// Element id.
    #[serde(deserialize_with = "whole_required")]
    #[schemars(with = "u32")]
    pub id: u32,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

fn whole_required<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    use serde::de::Error;
    whole(d)?.ok_or_else(|| D::Error::custom("an element id is required"))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchWindow {
    /// Application name.
    pub app: Option<String>,
    /// Window title substring.
    pub title: Option<String>,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

/// What to do with the working window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WindowOp {
    Move,
    Resize,
    Minimize,
    Maximize,
    Restore,
    Fullscreen,
    Close,
}

impl WindowOp {
    pub fn as_str(self) -> &'static str {
        match self {
            WindowOp::Move => "move",
            WindowOp::Resize => "resize",
            WindowOp::Minimize => "minimize",
            WindowOp::Maximize => "maximize",
            WindowOp::Restore => "restore",
            WindowOp::Fullscreen => "fullscreen",
            WindowOp::Close => "close",
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Window {
    pub op: WindowOp,
    /// move: where the window's top-left corner goes, in the latest screenshot's pixels.
    pub x: Option<f64>,
    pub y: Option<f64>,
    /// resize: the new size, in the latest screenshot's pixels.
    pub width: Option<f64>,
    pub height: Option<f64>,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Menu {
    /// The menu levels separated by >, as the window's menus name them: "File > Save As".
    pub path: String,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

/// What a file chooser is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileAction {
    Open,
    Save,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileDialog {
    /// The file to open or save, an absolute path.
    pub path: String,
    /// What the chooser showing is for; null to take it from its button.
    pub action: Option<FileAction>,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseApp {
    /// The app as the window list shows it.
    pub app: String,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Launch {
    /// Program and arguments, e.g. ["gedit"].
    pub command: Vec<String>,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitFor {
    /// Text to wait for.
    pub text: String,
    /// Wait for it to disappear.
    pub gone: Option<bool>,
    /// Give up after (null = 5000, at most 30000).
    pub timeout_ms: Option<f64>,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetValue {
    /// Element id.
    #[serde(deserialize_with = "whole_required")]
    #[schemars(with = "u32")]
    pub id: u32,
    /// The new value.
    pub value: String,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Why {
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipboardSet {
    /// The text.
    pub text: String,
    /// One short sentence: why this step.
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Done {
    pub success: bool,
    /// What was done, or why not.
    pub summary: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUser {
    /// The question.
    pub question: String,
}
