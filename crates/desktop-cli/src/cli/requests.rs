//! Command-line arguments → the core's requests: the one place clap structs are converted
//! (uv's `Settings::resolve`, ripgrep's low → high args). Commands, the MCP server and the
//! agent all hand the same `ActionRequest`s to the desktop.

use super::{
    ActionArgs, ClickArgs, DragArgs, ElementArgs, ElementCmdArgs, FocusArgs, PressArgs, ScrollArgs,
    SetValueArgs, TargetArgs, TypeArgs,
};
use desktop_core::keys::Combo;
use desktop_core::request::{Action, ActionRequest, Aim, Element};
use desktop_core::{Error, Result, Target};
use std::time::Duration;

impl TargetArgs {
    /// The window these options name (empty: the focused one).
    pub fn target(&self) -> Target {
        Target {
            app: self.app.clone(),
            window: self.window.clone(),
            window_id: self.window_id,
            pid: self.pid,
        }
    }
}

impl ElementArgs {
    /// The element named by `--id` or `--text`, if any.
    pub fn element(&self) -> Result<Option<Element>> {
        if let Some(id) = self.id {
            return Ok(Some(Element::Id(id)));
        }
        match &self.text {
            Some(t) => Element::text(t, self.role.as_deref(), self.exact).map(Some),
            None => Ok(None),
        }
    }

    /// The element, which the command requires.
    fn required(&self) -> Result<Aim> {
        self.element()?.map(Aim::Element).ok_or_else(|| {
            Error::invalid_args("name the element with --id N (from `read`) or --text T")
                .suggest("Example: click --id 12, or click --text Save --role btn")
        })
    }
}

fn point(x: Option<i32>, y: Option<i32>) -> Option<Aim> {
    Some(Aim::Point { x: x?, y: y? })
}

fn combos(words: &[String], repeat: u32) -> Result<Vec<Combo>> {
    let one: Vec<Combo> = words
        .iter()
        .map(|c| Combo::parse(c))
        .collect::<Result<_>>()?;
    Ok((0..repeat).flat_map(|_| one.iter().cloned()).collect())
}

impl ClickArgs {
    pub fn request(&self) -> Result<ActionRequest> {
        let aim = match point(self.x, self.y) {
            Some(p) => p,
            None => self.element.required()?,
        };
        let count = if self.double { 2 } else { 1 };
        Ok(ActionRequest::new(
            self.target.target(),
            aim,
            Action::Click {
                button: self.button,
                count,
            },
        ))
    }

    /// `hover` takes the same arguments as `click`.
    pub fn hover_request(&self) -> Result<ActionRequest> {
        let aim = match point(self.x, self.y) {
            Some(p) => p,
            None => self.element.required()?,
        };
        Ok(ActionRequest::new(self.target.target(), aim, Action::Hover))
    }
}

impl TypeArgs {
    pub fn request(&self) -> Result<ActionRequest> {
        let aim = match self.id {
            Some(id) => Aim::Element(Element::Id(id)),
            None => Aim::Window,
        };
        if let Some(combo) = &self.key {
            if self.id.is_some() {
                return Err(Error::invalid_args("--key presses a combo where the focus is; to press it into an element use `press --id N`")
                    .suggest("Or type text into it: type --id N \"text\""));
            }
            let combos = vec![Combo::parse(combo)?];
            return Ok(ActionRequest::new(
                self.target.target(),
                aim,
                Action::Press { combos },
            ));
        }
        let text = self.input.clone().or(self.text.clone()).ok_or_else(|| {
            Error::invalid_args("nothing to type")
                .suggest("Give the text: type \"hello\" (or --text, or --key COMBO)")
        })?;
        Ok(ActionRequest::new(
            self.target.target(),
            aim,
            Action::Type {
                text,
                replace: self.replace,
                delay: Duration::from_millis(self.delay),
            },
        ))
    }
}

impl PressArgs {
    pub fn request(&self) -> Result<ActionRequest> {
        let aim = match self.id {
            Some(id) => Aim::Element(Element::Id(id)),
            None => Aim::Window,
        };
        Ok(ActionRequest::new(
            self.target.target(),
            aim,
            Action::Press {
                combos: combos(&self.combos, self.repeat)?,
            },
        ))
    }
}

impl FocusArgs {
    pub fn request(&self) -> Result<ActionRequest> {
        let target = self.target.target();
        let aim = match self.id {
            Some(id) => Aim::Element(Element::Id(id)),
            None if target.is_empty() => {
                return Err(Error::invalid_args(
                    "name a window (--app, --window, --window-id, --pid) or an element (--id)",
                )
                .suggest("Example: focus --app chromium"))
            }
            None => Aim::Window,
        };
        Ok(ActionRequest::new(target, aim, Action::Focus))
    }
}

impl ScrollArgs {
    pub fn request(&self) -> Result<ActionRequest> {
        let target = self.target.target();
        let aim = match (point(self.x, self.y), self.id) {
            (Some(p), _) => p,
            (None, Some(id)) => Aim::Element(Element::Id(id)),
            (None, None) if target.is_empty() => {
                return Err(Error::invalid_args(
                    "scroll where? give --x/--y, --id, or a window (--app ...)",
                )
                .suggest("Example: scroll --app chromium --direction down"))
            }
            (None, None) => Aim::Window,
        };
        let action = if self.into_view {
            Action::ScrollIntoView
        } else {
            Action::Scroll {
                direction: self.direction,
                amount: self.amount,
            }
        };
        Ok(ActionRequest::new(target, aim, action))
    }
}

impl DragArgs {
    pub fn request(&self) -> Result<ActionRequest> {
        let end = |xy: Option<Aim>, id: Option<u32>, which: &str| {
            xy.or(id.map(|i| Aim::Element(Element::Id(i))))
                .ok_or_else(|| {
                    Error::invalid_args(format!(
                        "give the {which} point: --{which}-x/--{which}-y or --{which}-id"
                    ))
                    .suggest("Example: drag --from-id 4 --to-x 600 --to-y 300")
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

impl SetValueArgs {
    pub fn request(&self) -> Result<ActionRequest> {
        Ok(ActionRequest::new(
            self.target.target(),
            self.element.required()?,
            Action::SetValue {
                value: self.value.clone(),
            },
        ))
    }
}

impl ElementCmdArgs {
    /// `toggle`.
    pub fn request(&self) -> Result<ActionRequest> {
        Ok(ActionRequest::new(
            self.target.target(),
            self.element.required()?,
            Action::Toggle,
        ))
    }
}

impl ActionArgs {
    pub fn request(&self) -> Result<ActionRequest> {
        Ok(ActionRequest::new(
            self.target.target(),
            self.element.required()?,
            Action::Named {
                name: self.name.clone(),
            },
        ))
    }
}
