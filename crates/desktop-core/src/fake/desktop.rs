//! The fake's side of the contract: `Desktop` and `Probe` over its windows, and how its
//! elements take actions.

use super::changes::FakeChanges;
use super::{find_in, window_id, windows, FakeDesktop};
use crate::action::{ActionResult, Effect, ElementState, Route};
use crate::backend::{Desktop, Display, Found, NoMemo};
use crate::error::{Error, ErrorCode, Result};
use crate::filter::Filters;
use crate::model::{AppInfo, AppList, ReadData, Target, WindowInfo, WindowList};
use crate::node::{Handle, Node, Rect, States};
use crate::refs::{self, Probe, WindowRefs};
use crate::request::{Action, ActionRequest, Aim, Element};
use crate::shot::Capture;
use std::path::PathBuf;
use std::time::Duration;

impl FakeDesktop {
    /// Applies an action to one element the way a toolkit would, logs it, and tells the
    /// element's window's subscribers what changed.
    fn apply(&self, handle: &Handle, action: &Action) -> Result<(Route, Effect)> {
        let mut s = self.state.borrow_mut();
        let log = format!("{} {}", action.name(), handle.as_str());
        let k = s
            .holding(handle)
            .ok_or_else(|| Error::new(ErrorCode::StaleRef, "the element is gone"))?;
        let outcome = s.change(k, |tree| -> Result<(Route, Effect)> {
            let n = find_in(tree, handle)
                .ok_or_else(|| Error::new(ErrorCode::StaleRef, "the element is gone"))?;
            react(n, action)
        })?;
        s.inputs.push(match action {
            Action::Type { text, .. } => format!("{log} {text}"),
            _ => log,
        });
        Ok(outcome)
    }

    /// An element by id (through the ref map, as every backend resolves ids) or by text
    /// (in the window `scope` names), with the id of its window.
    async fn element(&self, scope: &Target, e: &Element) -> Result<(Node, Option<u64>)> {
        match e {
            Element::Id(id) => {
                let (window, found) = refs::resolve(self, &self.refs, *id, scope).await?;
                Ok((found.node, window.window_id))
            }
            Element::Text { text, role, exact } => {
                let window = self.resolve(scope).await?;
                let tree = {
                    let s = self.state.borrow();
                    s.windows[s.open_index(&window)?].tree.clone()
                };
                let n = crate::filter::named(&tree, text, role.as_ref(), *exact)?;
                Ok((n, window.id))
            }
        }
    }
}

/// How an element takes an action: check boxes flip, editable fields take text, anything
/// takes a value; a disabled element takes nothing.
fn react(n: &mut Node, action: &Action) -> Result<(Route, Effect)> {
    if n.states.contains(States::DISABLED) {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            "the element is disabled",
        ));
    }
    Ok(match action {
        Action::Click { .. } | Action::Toggle if n.states.contains(States::CHECKABLE) => {
            let on = n.states.contains(States::CHECKED);
            n.states.set(States::CHECKED, !on);
            (Route::A11y, Effect::Confirmed)
        }
        Action::Toggle => return Err(Error::new(ErrorCode::NotCheckable, "not a check box")),
        Action::Type { text, replace, .. } => {
            if !n.states.contains(States::EDITABLE) {
                return Err(Error::new(
                    ErrorCode::ActionNotSupported,
                    "the element takes no text",
                ));
            }
            let old = if *replace {
                String::new()
            } else {
                n.value.clone().unwrap_or_default()
            };
            n.value = Some(old + text);
            (Route::Input, Effect::Confirmed)
        }
        Action::SetValue { value } => {
            n.value = Some(value.clone());
            (Route::A11y, Effect::Confirmed)
        }
        _ => (Route::A11y, Effect::Unverifiable),
    })
}

impl Probe for FakeDesktop {
    async fn probe(&self, handle: &Handle) -> Result<Option<Node>> {
        let mut s = self.state.borrow_mut();
        let Some(k) = s.holding(handle) else {
            return Ok(None);
        };
        Ok(find_in(&mut s.windows[k].tree, handle).map(|n| {
            let mut n = n.clone();
            n.children.clear();
            n
        }))
    }

    async fn current_tree(&self, refs: &WindowRefs) -> Result<Vec<Node>> {
        let s = self.state.borrow();
        s.windows
            .iter()
            .find(|w| {
                w.open
                    && match refs.window_id {
                        Some(id) => w.info.id == Some(id),
                        None => w.info.pid == refs.pid && w.info.title == refs.title,
                    }
            })
            .map(|w| w.tree.clone())
            .ok_or_else(|| Error::new(ErrorCode::StaleRef, "the window is gone"))
    }
}

impl Desktop for FakeDesktop {
    type Memo = NoMemo;
    type Changes = FakeChanges;

    /// The apps of the open windows, by name then pid, as Linux lists them.
    async fn apps(&self) -> Result<AppList> {
        let mut apps: Vec<AppInfo> = Vec::new();
        for w in self.state.borrow().open_windows() {
            match apps.iter_mut().find(|a| a.pid == w.pid && a.name == w.app) {
                Some(a) => a.windows += 1,
                None => apps.push(AppInfo {
                    name: w.app,
                    pid: w.pid,
                    windows: 1,
                }),
            }
        }
        apps.sort_by(|a, b| {
            a.name
                .to_lowercase()
                .cmp(&b.name.to_lowercase())
                .then(a.pid.cmp(&b.pid))
        });
        Ok(AppList {
            apps,
            unresponsive: Vec::new(),
        })
    }

    async fn windows(&self, target: &Target) -> Result<WindowList> {
        let all = self.state.borrow().open_windows();
        let mut app_names: Vec<String> = all.iter().map(|w| w.app.clone()).collect();
        app_names.sort_unstable();
        app_names.dedup();
        Ok(WindowList {
            windows: windows::filter(&all, target),
            unresponsive: Vec::new(),
            app_names,
        })
    }

    async fn resolve(&self, target: &Target) -> Result<WindowInfo> {
        windows::pick(&self.state.borrow().open_windows(), target)
    }

    async fn read_window(
        &self,
        window: WindowInfo,
        filters: &Filters,
        _memo: Option<&mut NoMemo>,
    ) -> Result<ReadData> {
        let children = {
            let s = self.state.borrow();
            s.windows[s.open_index(&window)?].tree.clone()
        };
        let walked = crate::pipeline::Walked {
            window,
            children,
            incomplete: None,
            timing: Vec::new(),
        };
        // Its elements carry their bounds and values already: nothing to hydrate.
        crate::pipeline::finish(
            walked,
            filters,
            self.screen(),
            crate::pipeline::Ids::Kept(&self.refs),
            async |_| Ok(()),
        )
        .await
    }

    async fn find(&self, scope: &Target, element: &Element) -> Result<Found> {
        let (node, window_id) = self.element(scope, element).await?;
        Ok(Found {
            id: match element {
                Element::Id(i) => Some(*i),
                Element::Text { .. } => None,
            },
            role: node.role,
            name: node.name,
            bounds: node.bounds,
            window_id,
        })
    }

    async fn act(&self, request: &ActionRequest) -> Result<ActionResult> {
        request.validate()?;
        let e = match &request.aim {
            Aim::Element(e) => e,
            Aim::Point { x, y } => {
                let log = format!("{} {x},{y}", request.action.name());
                let mut s = self.state.borrow_mut();
                s.inputs.push(log);
                // Input at a point leaves the pointer there.
                s.pointer = Some((*x, *y));
                return Ok(ActionResult::new(request.action.name(), Route::Input));
            }
            Aim::Window => {
                // Input for a window goes to the one the scope names, which must be open.
                let window = self.resolve(&request.scope).await?;
                if request.action == Action::Focus {
                    if let Some(id) = window.id {
                        self.focus_window(id)?;
                    }
                }
                let log = format!("{} window", request.action.name());
                self.state.borrow_mut().inputs.push(log);
                return Ok(ActionResult::new(request.action.name(), Route::Input));
            }
        };
        let (node, _) = self.element(&request.scope, e).await?;
        let before = ElementState::of(&node);
        let (route, effect) = self.apply(&node.handle, &request.action)?;
        let mut r = ActionResult::new(request.action.name(), route);
        r.effect = effect;
        if let Element::Id(i) = e {
            r.id = Some(*i);
        }
        if let Some(now) = self.probe(&node.handle).await? {
            r.post_state = Some(ElementState::of(&now)).filter(|a| a != &before);
        }
        Ok(r)
    }

    async fn launch(&self, cmd: &[String], _wait: Duration) -> Result<ActionResult> {
        self.state
            .borrow_mut()
            .inputs
            .push(format!("launch {}", cmd.join(" ")));
        Ok(ActionResult::new("launch", Route::System))
    }

    /// The window's notices from now on; `None` for a window that is not open.
    async fn changes(&self, window: &WindowInfo) -> Option<FakeChanges> {
        let mut s = self.state.borrow_mut();
        let k = s.open_index(window).ok()?;
        let id = window_id(&s.windows[k]);
        Some(s.subscribers.subscribe(id))
    }

    fn displays(&self) -> Vec<Display> {
        self.state.borrow().displays.clone()
    }

    fn pointer(&self) -> Option<(i32, i32)> {
        self.state.borrow().pointer
    }

    fn raise(&self, _window_id: u64) -> Result<()> {
        Ok(())
    }

    /// A blank image at the scale of the display the area starts on.
    async fn capture(&self, area: Rect) -> Result<Capture> {
        let scale = self
            .displays()
            .iter()
            .find(|d| d.bounds.contains_point(area.x, area.y))
            .map_or(1.0, |d| d.scale);
        let px = |units: i32| ((f64::from(units.max(1)) * scale).round() as u32).max(1);
        Ok(Capture {
            origin: (area.x, area.y),
            scale,
            image: image::RgbImage::new(px(area.w), px(area.h)),
        })
    }

    fn refs_path(&self) -> PathBuf {
        self.refs.clone()
    }
}
