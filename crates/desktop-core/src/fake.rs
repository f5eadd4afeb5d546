//! An in-memory desktop for tests of platform-neutral logic (ref resolution, `wait`,
//! `observe`'s diff, the agent's steps): one window whose tree a test can mutate, elements
//! that react to actions the way toolkits do (check boxes flip, fields take text and values),
//! and a log of every input. No display, no accessibility bus: these tests run in milliseconds, and
//! every backend inherits what they pin down.

use crate::action::{ActionResult, Effect, ElementState, Route};
use crate::backend::{Desktop, Display, Found, NoChanges, NoMemo};
use crate::error::{Error, ErrorCode, Result};
use crate::filter::Filters;
use crate::model::{AppInfo, AppList, ReadData, Target, WindowInfo, WindowList};
use crate::node::{Handle, Node, Rect, States};
use crate::refs::{self, Probe, RefMap, WindowRefs};
use crate::request::{Action, ActionRequest, Aim, Element};
use crate::shot::Capture;
use std::cell::RefCell;
use std::path::PathBuf;
use std::time::Duration;

/// The fake desktop. Handles are `/fake/N`, given to every element without one.
#[derive(Debug)]
pub struct FakeDesktop {
    state: RefCell<State>,
    refs: PathBuf,
}

#[derive(Debug)]
struct State {
    window: Option<WindowInfo>,
    tree: Vec<Node>,
    next: u32,
    inputs: Vec<String>,
    displays: Vec<Display>,
}

/// An element for a fake tree: role, name, bounds, children.
pub fn el(role: crate::Role, name: &str, b: (i32, i32, i32, i32), children: Vec<Node>) -> Node {
    Node {
        role,
        name: name.into(),
        bounds: Some(Rect::new(b.0, b.1, b.2, b.3)),
        states: States::SHOWING,
        children,
        ..Node::default()
    }
}

impl State {
    fn assign_handles(&mut self) {
        fn walk(nodes: &mut [Node], next: &mut u32) {
            for n in nodes {
                if n.handle.is_empty() {
                    *next += 1;
                    n.handle = Handle::new(format!("/fake/{next}"));
                }
                walk(&mut n.children, next);
            }
        }
        walk(&mut self.tree, &mut self.next);
    }

    fn find_mut(&mut self, handle: &Handle) -> Option<&mut Node> {
        fn walk<'a>(nodes: &'a mut [Node], h: &Handle) -> Option<&'a mut Node> {
            for n in nodes {
                if &n.handle == h {
                    return Some(n);
                }
                if let Some(found) = walk(&mut n.children, h) {
                    return Some(found);
                }
            }
            None
        }
        walk(&mut self.tree, handle)
    }
}

impl FakeDesktop {
    /// A desktop with one window of app `app`, titled `title`, showing `tree`; the ids of
    /// its reads are kept in `refs` (a file the test owns).
    pub fn new(app: &str, title: &str, tree: Vec<Node>, refs: PathBuf) -> FakeDesktop {
        let window = WindowInfo {
            app: app.into(),
            pid: 4242,
            title: title.into(),
            id: Some(0x40_0001),
            bounds: Some(Rect::new(0, 0, 800, 600)),
            focused: true,
            a11y: true,
            modal: false,
            handle: Some(Handle::new("/fake/window")),
        };
        let mut state = State {
            window: Some(window),
            tree,
            next: 0,
            inputs: Vec::new(),
            displays: vec![Display {
                bounds: Rect::new(0, 0, 1280, 800),
                scale: 1.0,
                primary: true,
            }],
        };
        state.assign_handles();
        FakeDesktop {
            state: RefCell::new(state),
            refs,
        }
    }

    /// Changes the window's tree, as the app would (new elements get handles).
    pub fn mutate(&self, f: impl FnOnce(&mut Vec<Node>)) {
        let mut s = self.state.borrow_mut();
        f(&mut s.tree);
        s.assign_handles();
    }

    /// Closes the window.
    pub fn close(&self) {
        self.state.borrow_mut().window = None;
    }

    /// Every input the desktop received, in order (`"click /fake/3"`, `"type /fake/2 abc"`).
    pub fn inputs(&self) -> Vec<String> {
        self.state.borrow().inputs.clone()
    }

    /// The element with this handle path, as it is now.
    pub fn node(&self, path: &str) -> Option<Node> {
        let h = Handle::new(path);
        self.state.borrow_mut().find_mut(&h).cloned()
    }

    /// Reads the window (as `read` does) and records its ids, as the faces do.
    pub async fn read_and_record(&self, filters: &Filters) -> Result<ReadData> {
        let data = self.read(&Target::default(), filters).await?;
        let mut map = RefMap::load(&self.refs);
        map.record(&data);
        map.save(&self.refs)
            .map_err(|e| Error::internal(format!("cannot save the fake's refs: {e}")))?;
        Ok(data)
    }

    fn window(&self) -> Result<WindowInfo> {
        self.state
            .borrow()
            .window
            .clone()
            .ok_or_else(|| Error::new(ErrorCode::WindowNotFound, "the fake window is closed"))
    }

    /// Applies an action to one element the way a toolkit would, and logs it.
    fn apply(&self, handle: &Handle, action: &Action) -> Result<(Route, Effect)> {
        let mut s = self.state.borrow_mut();
        let log = format!("{} {}", action.name(), handle.as_str());
        let n = s
            .find_mut(handle)
            .ok_or_else(|| Error::new(ErrorCode::StaleRef, "the element is gone"))?;
        if n.states.contains(States::DISABLED) {
            return Err(Error::new(
                ErrorCode::NotInteractable,
                "the element is disabled",
            ));
        }
        let outcome = match action {
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
        };
        s.inputs.push(match action {
            Action::Type { text, .. } => format!("{log} {text}"),
            _ => log,
        });
        Ok(outcome)
    }
}

impl Probe for FakeDesktop {
    async fn probe(&self, handle: &Handle) -> Result<Option<Node>> {
        let mut s = self.state.borrow_mut();
        if s.window.is_none() {
            return Ok(None);
        }
        Ok(s.find_mut(handle).map(|n| {
            let mut n = n.clone();
            n.children.clear();
            n
        }))
    }

    async fn current_tree(&self, _refs: &WindowRefs) -> Result<Vec<Node>> {
        let s = self.state.borrow();
        if s.window.is_none() {
            return Err(Error::new(ErrorCode::StaleRef, "the window is gone"));
        }
        Ok(s.tree.clone())
    }
}

impl Desktop for FakeDesktop {
    type Memo = NoMemo;
    type Changes = NoChanges;

    async fn apps(&self) -> Result<AppList> {
        let w = self.window()?;
        Ok(AppList {
            apps: vec![AppInfo {
                name: w.app,
                pid: w.pid,
                windows: 1,
            }],
            unresponsive: Vec::new(),
        })
    }

    async fn windows(&self, target: &Target) -> Result<WindowList> {
        let windows = self
            .state
            .borrow()
            .window
            .iter()
            .filter(|w| {
                target
                    .app
                    .as_deref()
                    .is_none_or(|a| crate::model::name_matches(&w.app, a))
            })
            .cloned()
            .collect();
        Ok(WindowList {
            windows,
            ..WindowList::default()
        })
    }

    async fn resolve(&self, target: &Target) -> Result<WindowInfo> {
        let w = self.window()?;
        if target
            .app
            .as_deref()
            .is_some_and(|a| !crate::model::name_matches(&w.app, a))
        {
            return Err(Error::new(
                ErrorCode::AppNotFound,
                "no such app on the fake desktop",
            ));
        }
        Ok(w)
    }

    async fn read_window(
        &self,
        window: WindowInfo,
        filters: &Filters,
        _memo: Option<&mut NoMemo>,
    ) -> Result<ReadData> {
        let walked = crate::pipeline::Walked {
            window,
            children: self.state.borrow().tree.clone(),
            incomplete: None,
            timing: Vec::new(),
        };
        // Its elements carry their bounds and values already: nothing to hydrate.
        crate::pipeline::finish(walked, filters, self.screen(), async |_| Ok(())).await
    }

    async fn find(&self, scope: &Target, element: &Element) -> Result<Found> {
        let node = self.element(scope, element).await?;
        Ok(Found {
            id: match element {
                Element::Id(i) => Some(*i),
                Element::Text { .. } => None,
            },
            role: node.role,
            name: node.name,
            bounds: node.bounds,
            window_id: self.window()?.id,
        })
    }

    async fn act(&self, request: &ActionRequest) -> Result<ActionResult> {
        request.validate()?;
        let e = match &request.aim {
            Aim::Element(e) => e,
            Aim::Point { x, y } => {
                let log = format!("{} {x},{y}", request.action.name());
                self.state.borrow_mut().inputs.push(log);
                return Ok(ActionResult::new(request.action.name(), Route::Input));
            }
            Aim::Window => {
                let log = format!("{} window", request.action.name());
                self.state.borrow_mut().inputs.push(log);
                return Ok(ActionResult::new(request.action.name(), Route::Input));
            }
        };
        let node = self.element(&request.scope, e).await?;
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

    async fn changes(&self, _window: &WindowInfo) -> Option<NoChanges> {
        None
    }

    fn displays(&self) -> Vec<Display> {
        self.state.borrow().displays.clone()
    }

    fn pointer(&self) -> Option<(i32, i32)> {
        Some((640, 400))
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

impl FakeDesktop {
    /// Replaces the displays (several, scaled, left of or above the primary one).
    pub fn set_displays(&self, displays: Vec<Display>) {
        self.state.borrow_mut().displays = displays;
    }

    /// An element by id (through the ref map, as every backend resolves ids) or by text.
    async fn element(&self, scope: &Target, e: &Element) -> Result<Node> {
        match e {
            Element::Id(id) => {
                let map = RefMap::load(&self.refs);
                let (_, found) = refs::resolve(self, &map, *id, scope).await?;
                Ok(found.node)
            }
            Element::Text { text, role, exact } => {
                let tree = self.state.borrow().tree.clone();
                let mut hits = Vec::new();
                for n in &tree {
                    n.walk(&mut |x| {
                        let name_ok = if *exact {
                            x.name == *text
                        } else {
                            x.name.to_lowercase().contains(&text.to_lowercase())
                        };
                        if name_ok && role.as_ref().is_none_or(|r| &x.role == r) {
                            hits.push(x.clone());
                        }
                    });
                }
                match hits.len() {
                    1 => Ok(hits.remove(0)),
                    0 => Err(Error::new(
                        ErrorCode::ElementNotFound,
                        format!("no element named {text:?}"),
                    )),
                    n => Err(Error::new(
                        ErrorCode::AmbiguousTarget,
                        format!("{n} elements match {text:?}"),
                    )),
                }
            }
        }
    }
}

/// A fresh, private refs file for one test.
pub fn refs_file(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("desktop-cli-fake-{}", std::process::id()));
    let _ = crate::private::make_dir(&dir);
    let path = dir.join(format!("{test}.json"));
    let _ = std::fs::remove_file(&path);
    path
}

/// Runs a future to completion on the current thread (the fake never waits on anything).
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut cx = Context::from_waker(Waker::noop());
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}
