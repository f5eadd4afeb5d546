//! MCP tool arguments → the core's requests, the same `ActionRequest`s the CLI builds.

use super::params as p;
use desktop_core::keys::Combo;
use desktop_core::request::{Action, ActionRequest, Aim, Element};
use desktop_core::{Button, Direction, Error, Result, Target};
use std::time::Duration;

impl p::Target {
    pub fn target(self) -> Target {
        Target {
            app: self.app,
            window: self.window,
            window_id: self.window_id,
            pid: self.pid,
        }
    }
}

impl p::Element {
    /// The element by id or text; the tool requires one.
    fn aim(&self) -> Result<Aim> {
        if let Some(id) = self.id {
            return Ok(Aim::Element(Element::Id(id)));
        }
        match &self.text {
            Some(t) => Element::text(t, self.role.as_deref(), self.exact).map(Aim::Element),
            None => Err(Error::invalid_args("name the element by id or text")
                .suggest("Give id (from read or find) or text")),
        }
    }
}

fn point(x: Option<i32>, y: Option<i32>) -> Option<Aim> {
    Some(Aim::Point { x: x?, y: y? })
}

fn parse<T: std::str::FromStr<Err = String>>(value: Option<&str>, default: T) -> Result<T> {
    match value {
        Some(v) => v.parse().map_err(Error::invalid_args),
        None => Ok(default),
    }
}

impl p::Click {
    pub fn request(self) -> Result<ActionRequest> {
        let aim = match point(self.x, self.y) {
            Some(p) => p,
            None => self.element.aim()?,
        };
        let button: Button = parse(self.button.as_deref(), Button::Left)?;
        let count = if self.double { 2 } else { 1 };
        Ok(ActionRequest::new(
            self.target.target(),
            aim,
            Action::Click { button, count },
        ))
    }
}

impl p::Type {
    pub fn request(self) -> Result<ActionRequest> {
        let aim = self
            .id
            .map_or(Aim::Window, |i| Aim::Element(Element::Id(i)));
        Ok(ActionRequest::new(
            self.target.target(),
            aim,
            Action::Type {
                text: self.text,
                replace: self.replace.unwrap_or(false),
                delay: Duration::from_millis(self.delay_ms.unwrap_or(0)),
            },
        ))
    }
}

impl p::Press {
    pub fn request(self) -> Result<ActionRequest> {
        // One combo, or several separated by spaces: "tab tab enter".
        let combos = self
            .keys
            .split_whitespace()
            .map(Combo::parse)
            .collect::<Result<Vec<_>>>()?;
        let combos = if combos.is_empty() {
            vec![Combo::parse(&self.keys)?]
        } else {
            combos
        };
        Ok(ActionRequest::new(
            self.target.target(),
            Aim::Window,
            Action::Press { combos },
        ))
    }
}

impl p::Focus {
    pub fn request(self) -> Result<ActionRequest> {
        let target = self.target.target();
        let aim = match self.id {
            Some(id) => Aim::Element(Element::Id(id)),
            None if target.is_empty() => {
                return Err(Error::invalid_args(
                    "name a window (app, window, window_id, pid) or an element (id)",
                ))
            }
            None => Aim::Window,
        };
        Ok(ActionRequest::new(target, aim, Action::Focus))
    }
}

impl p::Scroll {
    pub fn request(self) -> Result<ActionRequest> {
        let target = self.target.target();
        let aim = match (point(self.x, self.y), self.id) {
            (Some(p), _) => p,
            (None, Some(id)) => Aim::Element(Element::Id(id)),
            (None, None) => Aim::Window,
        };
        let action = if self.into_view {
            Action::ScrollIntoView
        } else {
            Action::Scroll {
                direction: parse(self.direction.as_deref(), Direction::Down)?,
                amount: self.amount.unwrap_or(3),
            }
        };
        Ok(ActionRequest::new(target, aim, action))
    }
}

impl p::Drag {
    pub fn request(self) -> Result<ActionRequest> {
        let end = |xy: Option<Aim>, id: Option<u32>, which: &str| {
            xy.or(id.map(|i| Aim::Element(Element::Id(i))))
                .ok_or_else(|| {
                    Error::invalid_args(format!("give {which}_x and {which}_y, or {which}_id"))
                })
        };
        let from = end(point(self.from_x, self.from_y), self.from_id, "from")?;
        let to = end(point(self.to_x, self.to_y), self.to_id, "to")?;
        Ok(ActionRequest::new(
            self.target.target(),
            from,
            Action::Drag { to },
        ))
    }
}

impl p::SetValue {
    pub fn request(self) -> Result<ActionRequest> {
        let aim = self.element.aim()?;
        Ok(ActionRequest::new(
            self.target.target(),
            aim,
            Action::SetValue { value: self.value },
        ))
    }
}

impl p::Toggle {
    pub fn request(self) -> Result<ActionRequest> {
        let aim = self.element.aim()?;
        Ok(ActionRequest::new(
            self.target.target(),
            aim,
            Action::Toggle,
        ))
    }
}

impl p::Action {
    pub fn request(self) -> Result<ActionRequest> {
        let aim = self.element.aim()?;
        Ok(ActionRequest::new(
            self.target.target(),
            aim,
            Action::Named { name: self.name },
        ))
    }
}
