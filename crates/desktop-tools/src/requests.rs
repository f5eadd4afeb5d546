//! MCP tool arguments → the core's requests, the same `ActionRequest`s the CLI builds.

use crate::params as p;
use desktop_core::diff::Ignore;
use desktop_core::filter::{parse_rect, parse_roles};
use desktop_core::keys;
use desktop_core::overlay::{Coords, Inset, Overlays};
use desktop_core::request::{Action, ActionRequest, Aim, Element};
use desktop_core::shot::Encoding;
use desktop_core::watch::{ObserveRequest, ShotRequest, WaitRequest};
use desktop_core::{Button, Direction, Error, Filters, Result, Target};
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

impl p::Window {
    /// The window named and the operation; `INVALID_ARGS` for an unknown operation or one
    /// missing its numbers.
    pub fn request(self) -> Result<(Target, desktop_core::winops::WindowOp)> {
        use desktop_core::winops::WindowOp as Op;
        let need = |v: Option<i32>, name: &str| {
            v.ok_or_else(|| {
                Error::invalid_args(format!("{} needs {name}", self.op))
                    .suggest("move takes x and y, resize width and height")
            })
        };
        let op = match self.op.as_str() {
            "move" => Op::Move {
                x: need(self.x, "x")?,
                y: need(self.y, "y")?,
            },
            "resize" => Op::Resize {
                w: need(self.width, "width")?,
                h: need(self.height, "height")?,
            },
            "minimize" => Op::Minimize,
            "maximize" => Op::Maximize,
            "restore" => Op::Restore,
            "fullscreen" => Op::Fullscreen,
            other => {
                return Err(Error::invalid_args(format!("no window operation {other:?}")).suggest(
                    "op is move, resize, minimize, maximize, restore or fullscreen (close_window closes)",
                ))
            }
        };
        op.validate()?;
        Ok((self.target.target(), op))
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
            Action::Click {
                button,
                count,
                modifiers: keys::parse_modifiers(self.modifiers.iter().map(String::as_str))?,
            },
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
        let combos = keys::sequence(self.keys.words(), self.repeat.unwrap_or(1))?;
        let aim = self
            .id
            .map_or(Aim::Window, |i| Aim::Element(Element::Id(i)));
        Ok(ActionRequest::new(
            self.target.target(),
            aim,
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

impl p::Read {
    /// The read's filters: interactive and at most 200 elements unless asked otherwise.
    pub fn filters(&self) -> Result<Filters> {
        let f = Filters {
            depth: self.depth,
            roles: self.roles.as_deref().map(parse_roles).transpose()?,
            visible_only: true,
            bbox: self.bbox.as_deref().map(parse_rect).transpose()?,
            text: self.text.clone(),
            interactive: self.interactive,
            max_elements: Some(self.max_elements.unwrap_or(200).max(1)),
            full: false,
            actions: self.actions,
            page: self.page,
            under: self.id,
        };
        f.validate()?;
        Ok(f)
    }
}

impl p::Find {
    /// `find` is a wait that looks once.
    pub fn request(self) -> Result<WaitRequest> {
        let role = self
            .role
            .as_deref()
            .map(parse_roles)
            .transpose()?
            .map(|mut r| r.remove(0));
        let r = WaitRequest {
            target: self.target.target(),
            text: Some(self.text),
            role,
            id: None,
            gone: false,
            timeout: Duration::ZERO,
            interval: Duration::from_millis(100),
        };
        r.validate()?;
        Ok(r)
    }
}

impl p::Wait {
    /// A wait of at most 50 s (MCP calls end within 55 s).
    pub fn request(self) -> Result<WaitRequest> {
        let role = self
            .for_role
            .as_deref()
            .map(parse_roles)
            .transpose()?
            .map(|mut r| r.remove(0));
        let r = WaitRequest {
            target: self.target.target(),
            text: self.for_text,
            role,
            id: self.for_id,
            gone: self.gone,
            timeout: Duration::from_millis(self.timeout_ms.unwrap_or(10_000).min(50_000)),
            interval: Duration::from_millis(250),
        };
        r.validate()?;
        Ok(r)
    }
}

impl p::Observe {
    /// An observation of 1 to 50 s (5 by default).
    pub fn request(self) -> Result<ObserveRequest> {
        let secs = self.duration_s.unwrap_or(5).clamp(1, 50);
        let r = ObserveRequest {
            target: self.target.target(),
            filters: Filters {
                visible_only: true,
                roles: self.roles.as_deref().map(parse_roles).transpose()?,
                ..Filters::default()
            },
            interval: Duration::from_secs(1),
            duration: Some(Duration::from_secs(secs)),
            ignore: Ignore {
                bounds: self.ignore_bounds,
                focus: self.ignore_focus,
            },
        };
        r.validate()?;
        Ok(r)
    }
}

impl p::Screenshot {
    /// The capture as first tried: PNG (or JPEG) at scale 1, long edge 1568 by default.
    pub fn request(&self) -> Result<ShotRequest> {
        let encoding = match self.format.as_deref().unwrap_or("png") {
            "png" => Encoding::Png,
            "jpg" | "jpeg" => Encoding::Jpeg {
                quality: self.quality.unwrap_or(80),
            },
            other => {
                return Err(Error::invalid_args(format!("format {other:?}")).suggest("png or jpeg"))
            }
        };
        let r = ShotRequest {
            target: self.target.clone().target(),
            id: self.id,
            region: self.region.as_deref().map(parse_rect).transpose()?,
            encoding,
            scale: self.scale.unwrap_or(1.0),
            max_edge: Some(self.max_edge.unwrap_or(1568).max(16)),
            annotate: self.annotate,
            grid: self.grid,
            hide: Vec::new(),
            overlays: Overlays {
                cursor: self.cursor,
                inset: self.inset.then(|| {
                    let d = Inset::default();
                    Inset {
                        size: self.inset_size.unwrap_or(d.size),
                        zoom: self.inset_zoom.unwrap_or(d.zoom),
                    }
                }),
                banner: false,
                coords: Coords::Screen,
            },
        };
        r.validate()?;
        Ok(r)
    }
}
