//! Command-line arguments → the core's requests: the one place clap structs are converted
//! (uv's `Settings::resolve`, ripgrep's low → high args). Commands, the MCP server and the
//! agent all hand the same `ActionRequest`s to the desktop.

use super::{
    ActionArgs, ClickArgs, DragArgs, ElementArgs, ElementCmdArgs, FocusArgs, Format, ObserveArgs,
    PressArgs, ReadArgs, ScreenshotArgs, ScrollArgs, SetValueArgs, TargetArgs, TypeArgs, WaitArgs,
    WindowCmd,
};
use desktop_core::diff::Ignore;
use desktop_core::filter::{parse_rect, parse_roles};
use desktop_core::keys::{self, Combo};
use desktop_core::overlay::{Coords, Inset, Overlays};
use desktop_core::request::{Action, ActionRequest, Aim, Element};
use desktop_core::shot::Encoding;
use desktop_core::watch::{ObserveRequest, ShotRequest, WaitRequest};
use desktop_core::{Error, Filters, Result, Target};
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

impl WindowCmd {
    /// The window named and the operation.
    pub fn request(self) -> (Target, desktop_core::winops::WindowOp) {
        use desktop_core::winops::WindowOp as Op;
        match self {
            WindowCmd::Move { x, y, target } => (target.target(), Op::Move { x, y }),
            WindowCmd::Resize {
                width,
                height,
                target,
            } => (
                target.target(),
                Op::Resize {
                    w: width,
                    h: height,
                },
            ),
            WindowCmd::Minimize { target } => (target.target(), Op::Minimize),
            WindowCmd::Maximize { target } => (target.target(), Op::Maximize),
            WindowCmd::Restore { target } => (target.target(), Op::Restore),
            WindowCmd::Fullscreen { target } => (target.target(), Op::Fullscreen),
            WindowCmd::Close { target } => (target.target(), Op::Close),
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
                modifiers: keys::parse_modifiers(self.modifiers.as_deref())?,
            },
        ))
    }

    /// `hover` takes the same arguments as `click`.
    pub fn hover_request(&self) -> Result<ActionRequest> {
        if self.modifiers.is_some() || self.double {
            return Err(Error::invalid_args(
                "hover moves the pointer only: it takes no modifiers and no double",
            )
            .suggest("To click with keys held: click --id N --modifiers ctrl"));
        }
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
                combos: keys::sequence(self.combos.iter().map(String::as_str), self.repeat)?,
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

impl ReadArgs {
    /// The read's filters, checked.
    pub fn filters(&self) -> Result<Filters> {
        let f = Filters {
            depth: self.depth,
            roles: self.roles.as_deref().map(parse_roles).transpose()?,
            visible_only: self.visible_only,
            bbox: self.bbox.as_deref().map(parse_rect).transpose()?,
            text: self.text.clone(),
            interactive: self.interactive,
            max_elements: self.max_elements,
            full: self.full,
            actions: self.actions,
            page: self.page,
            under: self.id,
        };
        f.validate()?;
        Ok(f)
    }
}

impl WaitArgs {
    pub fn request(&self) -> Result<WaitRequest> {
        let role = match &self.for_role {
            Some(r) => Some(parse_roles(r)?.remove(0)),
            None => None,
        };
        let r = WaitRequest {
            target: self.target.target(),
            text: self.for_text.clone(),
            role,
            id: self.for_id,
            gone: self.gone,
            timeout: Duration::from_millis(self.timeout),
            interval: Duration::from_millis(self.interval),
        };
        r.validate()?;
        Ok(r)
    }
}

impl ObserveArgs {
    pub fn request(&self) -> Result<ObserveRequest> {
        let r = ObserveRequest {
            target: self.target.target(),
            filters: Filters {
                visible_only: self.visible_only,
                depth: self.depth,
                roles: self.roles.as_deref().map(parse_roles).transpose()?,
                ..Filters::default()
            },
            interval: Duration::from_millis(self.interval),
            duration: (self.duration > 0).then(|| Duration::from_secs(self.duration)),
            ignore: Ignore {
                bounds: self.ignore_bounds,
                focus: self.ignore_focus,
            },
        };
        r.validate()?;
        Ok(r)
    }
}

impl ScreenshotArgs {
    /// The capture, encoded as `format` (the global `--format`; PNG when absent).
    pub fn request(&self, format: Option<Format>) -> Result<ShotRequest> {
        let encoding = match format {
            None | Some(Format::Png) => Encoding::Png,
            Some(Format::Jpg) => Encoding::Jpeg {
                quality: self.quality,
            },
            Some(other) => {
                return Err(Error::invalid_args(format!(
                    "screenshot writes png or jpg, not {other:?}"
                ))
                .suggest("Use --format png or --format jpg"))
            }
        };
        let r = ShotRequest {
            target: self.target.target(),
            id: self.id,
            region: self.region.as_deref().map(parse_rect).transpose()?,
            encoding,
            scale: self.scale,
            max_edge: self.max_edge,
            annotate: self.annotate.is_some(),
            grid: self.grid,
            hide: Vec::new(),
            overlays: Overlays {
                cursor: self.cursor,
                inset: self.inset.then_some(Inset {
                    size: self.inset_size,
                    zoom: self.inset_zoom,
                }),
                banner: self.banner,
                coords: Coords::Screen,
            },
        };
        r.validate()?;
        Ok(r)
    }
}
