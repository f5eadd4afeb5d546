//! What a face asks a desktop to do: one request type for every action (AccessKit's
//! `ActionRequest` idea), with the pointer buttons and wheel directions all faces share.
//! The CLI, the MCP server and the agent convert their arguments into an [`ActionRequest`]
//! in one place each and never into one another's types; `validate` is the one check of
//! what every backend may assume.

use crate::error::{Error, Result};
use crate::keys::{Combo, Modifier};
use crate::model::Target;
use crate::role::{Role, SHORT_NAMES};
use serde::{Deserialize, Serialize};
use std::str::FromStr;
use std::time::Duration;

/// A mouse button.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Button {
    #[default]
    Left,
    Middle,
    Right,
}

impl FromStr for Button {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "left" => Ok(Button::Left),
            "middle" => Ok(Button::Middle),
            "right" => Ok(Button::Right),
            _ => Err(format!("`{s}` is not a button (left, middle, right)")),
        }
    }
}

/// Which way the wheel turns (or a drag-free scroll goes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Up,
    #[default]
    Down,
    Left,
    Right,
}

impl FromStr for Direction {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "up" => Ok(Direction::Up),
            "down" => Ok(Direction::Down),
            "left" => Ok(Direction::Left),
            "right" => Ok(Direction::Right),
            _ => Err(format!("`{s}` is not a direction (up, down, left, right)")),
        }
    }
}

/// An element named by a face: its id from the last read, or its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Element {
    Id(u32),
    Text {
        text: String,
        role: Option<Role>,
        /// The whole name must equal `text` (else: contains it, case-insensitively).
        exact: bool,
    },
}

impl Element {
    /// An element by text, with a role given by its short name (`btn`) or none.
    pub fn text(text: &str, role: Option<&str>, exact: bool) -> Result<Element> {
        let role = match role {
            Some(r) => Some(
                Role::parse(r)
                    .filter(|r| !matches!(r, Role::Other(_)))
                    .ok_or_else(|| {
                        Error::invalid_args(format!("unknown role `{r}`"))
                            .suggest(format!("Known roles: {}", SHORT_NAMES.join(",")))
                    })?,
            ),
            None => None,
        };
        Ok(Element::Text {
            text: text.to_string(),
            role,
            exact,
        })
    }
}

/// Where an action goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Aim {
    /// An element of the scoped window (or of the last read).
    Element(Element),
    /// A screen point.
    Point { x: i32, y: i32 },
    /// The scoped window itself (the focused one when the scope is empty).
    Window,
}

/// What to do there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// `count` clicks with `modifiers` held (pressed in order, released in reverse whatever
    /// happens); a plain left click on an element uses its own action.
    Click {
        button: Button,
        count: u32,
        modifiers: Vec<Modifier>,
    },
    /// The pointer onto it.
    Hover,
    /// Text into the element (focused first; appended, or replacing its text), or where the
    /// focus is when the aim is a window.
    Type {
        text: String,
        replace: bool,
        delay: Duration,
    },
    /// Key combos tapped in turn where the focus is.
    Press { combos: Vec<Combo> },
    /// The keyboard focus onto it (an element), or the window raised and focused.
    Focus,
    /// The wheel turned `amount` notches at it.
    Scroll { direction: Direction, amount: u32 },
    /// The element brought into view by the app.
    ScrollIntoView,
    /// Pressed at the aim, moved, released at `to`.
    Drag { to: Aim },
    /// A text field's text, or a range's number.
    SetValue { value: String },
    /// A check box, switch or toggle flipped.
    Toggle,
    /// One of the element's own actions, by name.
    Named { name: String },
}

impl Action {
    /// The command name results carry (`"set-value"`).
    pub fn name(&self) -> &'static str {
        match self {
            Action::Click { .. } => "click",
            Action::Hover => "hover",
            Action::Type { .. } => "type",
            Action::Press { .. } => "press",
            Action::Focus => "focus",
            Action::Scroll { .. } | Action::ScrollIntoView => "scroll",
            Action::Drag { .. } => "drag",
            Action::SetValue { .. } => "set-value",
            Action::Toggle => "toggle",
            Action::Named { .. } => "action",
        }
    }
}

/// One action for a backend: where (within `scope`) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionRequest {
    /// The window the aim is looked for in (empty: the focused one, or the last read's).
    pub scope: Target,
    pub aim: Aim,
    pub action: Action,
}

/// Longest pause between keystrokes.
pub const MAX_DELAY: Duration = Duration::from_secs(10);
/// Most wheel notches in one scroll.
pub const MAX_SCROLL: u32 = 100;

impl ActionRequest {
    pub fn new(scope: Target, aim: Aim, action: Action) -> ActionRequest {
        ActionRequest { scope, aim, action }
    }

    /// Refuses requests no backend can carry out, before anything is sent to the desktop:
    /// an invalid request types and clicks nothing.
    pub fn validate(&self) -> Result<()> {
        let needs_element = |what: &str| {
            Error::invalid_args(format!(
                "{what} needs an element (an id from a read, or its text)"
            ))
            .suggest("Name the element by its id or its text")
        };
        let is_element = matches!(self.aim, Aim::Element(_));
        if let Aim::Element(Element::Text { text, .. }) = &self.aim {
            if text.trim().is_empty() {
                return Err(Error::invalid_args("the element's text is empty")
                    .suggest("Give a name to look for, or an id"));
            }
        }
        match &self.action {
            Action::Click { count, .. } if !(1..=3).contains(count) => {
                Err(Error::invalid_args("a click is 1 to 3 presses"))
            }
            Action::Type { replace: true, .. } if !is_element => {
                Err(Error::invalid_args("replacing text needs the element's id")
                    .suggest("Read the window, then type into the element by id with replace"))
            }
            Action::Type { delay, .. } if *delay > MAX_DELAY => Err(Error::invalid_args(
                "the delay between keys is at most 10 s",
            )),
            Action::Press { combos } if combos.is_empty() => {
                Err(Error::invalid_args("nothing to press")
                    .suggest("Give a key combo: enter, ctrl+s, shift+tab"))
            }
            Action::Scroll { amount, .. } if *amount == 0 || *amount > MAX_SCROLL => {
                Err(Error::invalid_args("the amount must be 1 to 100 notches")
                    .suggest("Example: 3"))
            }
            Action::ScrollIntoView if !is_element => Err(needs_element("scrolling into view")),
            Action::SetValue { .. } if !is_element => Err(needs_element("set-value")),
            Action::Toggle if !is_element => Err(needs_element("toggle")),
            Action::Named { name } if name.trim().is_empty() => {
                Err(Error::invalid_args("the action's name is empty")
                    .suggest("A read with actions lists each element's action names"))
            }
            Action::Named { .. } if !is_element => Err(needs_element("an element's action")),
            Action::Drag { to: Aim::Window } => {
                Err(Error::invalid_args("a drag ends at a point or an element"))
            }
            Action::Drag { .. } if matches!(self.aim, Aim::Window) => Err(Error::invalid_args(
                "a drag starts at a point or an element",
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(aim: Aim, action: Action) -> ActionRequest {
        ActionRequest::new(Target::default(), aim, action)
    }

    #[test]
    fn buttons_and_directions_parse_the_same_for_every_face() {
        assert_eq!("Right".parse::<Button>(), Ok(Button::Right));
        assert!("primary".parse::<Button>().is_err());
        assert_eq!(" up ".parse::<Direction>(), Ok(Direction::Up));
        assert!("north".parse::<Direction>().is_err());
    }

    #[test]
    fn invalid_requests_are_refused_before_acting() {
        let id = || Aim::Element(Element::Id(3));
        let ok = [
            req(id(), Action::Toggle),
            req(
                Aim::Point { x: 1, y: 1 },
                Action::Click {
                    button: Button::Left,
                    count: 2,
                    modifiers: vec![Modifier::Ctrl],
                },
            ),
            req(
                Aim::Window,
                Action::Type {
                    text: "x".into(),
                    replace: false,
                    delay: Duration::ZERO,
                },
            ),
            req(
                id(),
                Action::Drag {
                    to: Aim::Point { x: 5, y: 5 },
                },
            ),
        ];
        for r in ok {
            assert_eq!(r.validate(), Ok(()), "{r:?}");
        }
        let bad = [
            req(Aim::Window, Action::Toggle),
            req(
                Aim::Window,
                Action::Type {
                    text: "x".into(),
                    replace: true,
                    delay: Duration::ZERO,
                },
            ),
            req(
                id(),
                Action::Scroll {
                    direction: Direction::Down,
                    amount: 0,
                },
            ),
            req(id(), Action::Named { name: " ".into() }),
            req(id(), Action::Press { combos: vec![] }),
            req(
                Aim::Element(Element::Text {
                    text: "".into(),
                    role: None,
                    exact: false,
                }),
                Action::Focus,
            ),
            req(
                Aim::Window,
                Action::Drag {
                    to: Aim::Point { x: 1, y: 1 },
                },
            ),
        ];
        for r in bad {
            let e = r.validate().unwrap_err();
            assert_eq!(e.code, crate::ErrorCode::InvalidArgs, "{r:?}");
        }
        assert!(Element::text("Save", Some("spaceship"), false).is_err());
        assert!(Element::text("Save", Some("btn"), true).is_ok());
    }
}
