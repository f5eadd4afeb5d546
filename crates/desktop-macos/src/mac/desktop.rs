//! `MacDesktop`: the contract on macOS. Windows from the window server (minimized ones too)
//! joined with each app's `AXWindows`, their state from both; reads through the core
//! pipeline; ids resolved by the core (`refs`) through index-path handles; actions through
//! AX where the element offers them, CGEvents otherwise, each answered with what was read
//! back afterwards; window operations and ending processes in `winops`.

use super::ax::{self, Element};
use super::{capture, input, walk, windows as sys};
use crate::attrs::{self, Attrs};
use crate::geometry::{self, RawDisplay};
use crate::windows::pair;
use desktop_core::action::{usable, Acted, ActionResult, Effect, ElementState, Route};
use desktop_core::backend::{Display, Found, NoMemo};
use desktop_core::filter;
use desktop_core::refs::{self, Probe, WindowRefs};
use desktop_core::request::{Action, ActionRequest, Aim, Button, Element as Wanted};
use desktop_core::shot::Capture;
use desktop_core::windows::ByTitle;
use desktop_core::winops::WindowOp;
use desktop_core::{
    pipeline, AppInfo, AppList, Desktop, Error, ErrorCode, Filters, Handle, Node, ReadData, Rect,
    Result, Role, States, Target, WindowInfo, WindowList,
};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long an app with no window on screen gets to list its windows (see `all_windows`).
const PUT_AWAY_TIMEOUT: Duration = Duration::from_millis(300);

/// The macOS desktop, its calls to apps bounded by `timeout`.
#[derive(Debug)]
pub struct MacDesktop {
    pub(crate) timeout: Duration,
    pub(crate) refs: PathBuf,
}

impl MacDesktop {
    fn app(&self, pid: u32) -> Element {
        ax::app(pid as i32, self.timeout.as_secs_f32())
    }

    fn all_windows(&self) -> Result<WindowList> {
        let server = sys::server_windows();
        let apps = sys::running_apps();
        let front = sys::frontmost_pid();
        let visible: Vec<Rect> = geometry::work_areas(&Self::raw_displays())
            .iter()
            .map(|a| a.visible_rect())
            .collect();
        let mut list = WindowList {
            app_names: apps.iter().map(|(n, _)| n.clone()).collect(),
            ..WindowList::default()
        };
        // One pass per app, in front-to-back order of its first window on screen; then the
        // apps a user sees with windows off screen only, one of which may be minimized (or
        // full screen on another Space) and is listed so it can be restored.
        let mut pids: Vec<(u32, bool)> = Vec::new();
        for w in server.iter().filter(|w| w.on_screen) {
            if !pids.iter().any(|(p, _)| *p == w.pid) {
                pids.push((w.pid, true));
            }
        }
        for w in server.iter().filter(|w| !w.on_screen) {
            let seen = apps.iter().any(|(_, p)| *p == w.pid);
            if seen && !pids.iter().any(|(p, _)| *p == w.pid) {
                pids.push((w.pid, false));
            }
        }
        for (pid, shown) in pids {
            let mine: Vec<_> = server.iter().filter(|w| w.pid == pid).cloned().collect();
            let name = apps
                .iter()
                .find(|(_, p)| *p == pid)
                .map_or_else(|| mine[0].owner.clone(), |(n, _)| n.clone());
            // An app showing nothing is asked briefly: most have nothing put away, and a
            // hung one in the background must not hold up every list for the full timeout.
            let app = if shown {
                self.app(pid)
            } else {
                ax::app(pid as i32, self.timeout.min(PUT_AWAY_TIMEOUT).as_secs_f32())
            };
            let ax_list = match sys::ax_windows(&app) {
                Ok(l) => l,
                Err(e) if e.code == ErrorCode::AppUnresponsive && shown => {
                    list.unresponsive.push(desktop_core::Unresponsive {
                        app: Some(name.clone()),
                        pid,
                        code: e.code.as_str(),
                    });
                    Vec::new()
                }
                Err(e) if e.code == ErrorCode::PermissionRequired => return Err(e),
                // An app quitting while it is listed: its windows, without a tree.
                Err(_) => Vec::new(),
            };
            let ax: Vec<_> = ax_list.iter().map(|(w, _)| w.clone()).collect();
            for (s, j) in mine.iter().zip(pair(&mine, &ax)) {
                if !crate::windows::listed(s, j) {
                    continue;
                }
                let a = j.map(|j| &ax[j]);
                list.windows.push(WindowInfo {
                    app: name.clone(),
                    pid,
                    title: if s.title.is_empty() {
                        a.map(|a| a.title.clone()).unwrap_or_default()
                    } else {
                        s.title.clone()
                    },
                    id: Some(u64::from(s.id)),
                    bounds: Some(s.bounds),
                    focused: front == Some(pid) && a.is_some_and(|a| a.focused),
                    a11y: a.is_some(),
                    modal: a.is_some_and(|a| a.modal),
                    state: crate::windows::state(a, s.bounds, &visible),
                    display: None,
                    // Keyed by the window server's id: an app's AXWindows reorder as its
                    // windows are raised, its ids do not.
                    handle: a.map(|_| attrs::handle(pid, s.id as usize, &[])),
                });
            }
        }
        Ok(list)
    }

    /// The AX window of the app `pid` that is the window server's window `wid`.
    pub(crate) fn ax_window(&self, pid: u32, wid: u32) -> Result<Option<Element>> {
        let server: Vec<_> = sys::server_windows()
            .into_iter()
            .filter(|w| w.pid == pid)
            .collect();
        let Some(at) = server.iter().position(|w| w.id == wid) else {
            return Ok(None);
        };
        let list = sys::ax_windows(&self.app(pid))?;
        let ax: Vec<_> = list.iter().map(|(w, _)| w.clone()).collect();
        Ok(pair(&server, &ax)[at].map(|j| list[j].1.clone()))
    }

    /// The AX element of a listed window, and the window server's id its handles carry.
    fn window_element(&self, w: &WindowInfo) -> Result<(Element, usize)> {
        let no_tree = || {
            Error::new(
                ErrorCode::NotInteractable,
                format!("the window \"{}\" shows no accessibility tree", w.title),
            )
            .suggest("Take a screenshot and act at points instead")
        };
        let (_, wid, _) = w
            .handle
            .as_ref()
            .and_then(attrs::parse_handle)
            .ok_or_else(no_tree)?;
        let el = self.ax_window(w.pid, wid as u32)?.ok_or_else(|| {
            Error::new(ErrorCode::StaleRef, "the window closed").suggest("List the windows again")
        })?;
        Ok((el, wid))
    }

    /// The element a handle names now.
    fn element_at(&self, h: &Handle) -> Result<Option<Element>> {
        let Some((pid, wid, path)) = attrs::parse_handle(h) else {
            return Ok(None);
        };
        let Some(window) = self.ax_window(pid, wid as u32)? else {
            return Ok(None);
        };
        walk::follow(&window, &path).map_err(|e| ax::error(e, "finding the element"))
    }

    /// Brings the app `pid` (and its window holding `h`, when given) to the front, and
    /// checks it got there before any key or pointer event is sent.
    fn bring_front(&self, pid: u32, window: Option<&Element>) -> Result<()> {
        let app = self.app(pid);
        if sys::frontmost_pid() != Some(pid) {
            sys::activate(pid);
            let _ = ax::set_bool(&app, "AXFrontmost", true);
        }
        if let Some(w) = window {
            let _ = ax::perform(w, "AXRaise");
            let _ = ax::set_bool(w, "AXMain", true);
        }
        if settle(|| Some(sys::frontmost_pid() == Some(pid))) {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::NotInteractable,
                "the app would not come to the front, so nothing was sent",
            )
            .suggest("Click its window first, or focus it with focus"))
        }
    }

    /// The app and window of an element's handle, brought to the front.
    fn front_for(&self, h: &Handle) -> Result<()> {
        let (pid, wid, _) = attrs::parse_handle(h)
            .ok_or_else(|| Error::new(ErrorCode::StaleRef, "the element's window is unknown"))?;
        let window = self.ax_window(pid, wid as u32)?;
        self.bring_front(pid, window.as_ref())
    }

    fn read_one(&self, h: &Handle) -> Result<Option<(Element, Node)>> {
        let Some(el) = self.element_at(h)? else {
            return Ok(None);
        };
        match ax::read(&el, 0) {
            Ok(r) => {
                let node = attrs::node(&r.attrs, h.clone());
                Ok(Some((el, node)))
            }
            Err(objc2_application_services::AXError::InvalidUIElement) => Ok(None),
            Err(e) => Err(ax::error(e, "reading the element")),
        }
    }

    /// The element a request aims at, with its node as it is now.
    async fn aimed(
        &self,
        scope: &Target,
        e: &Wanted,
    ) -> Result<(Element, Node, Option<u32>, bool)> {
        match e {
            Wanted::Id(id) => {
                let (_, found) = refs::resolve(self, &self.refs, *id, scope).await?;
                let (el, _) = self.read_one(&found.node.handle)?.ok_or_else(|| {
                    Error::new(ErrorCode::StaleRef, format!("element {id} is gone"))
                        .suggest("Read the window again and use the new ids")
                })?;
                Ok((el, found.node, Some(*id), found.rematched))
            }
            Wanted::Text { text, role, exact } => {
                let filters = Filters {
                    visible_only: true,
                    text: Some(text.clone()),
                    ..Filters::default()
                };
                let data = self.read(scope, &filters).await?;
                let n = filter::named(&data.elements, text, role.as_ref(), *exact)?;
                let (el, node) = self.read_one(&n.handle)?.ok_or_else(|| {
                    Error::new(ErrorCode::StaleRef, "the element went away").suggest("Try again")
                })?;
                Ok((el, node, None, false))
            }
        }
    }

    fn raw_displays() -> Vec<RawDisplay> {
        super::displays()
    }
}

impl Probe for MacDesktop {
    async fn probe(&self, handle: &Handle) -> Result<Option<Node>> {
        Ok(self.read_one(handle)?.map(|(_, n)| n))
    }

    async fn current_tree(&self, refs: &WindowRefs) -> Result<Vec<Node>> {
        let t = Target {
            window_id: refs.window_id,
            pid: Some(refs.pid),
            ..Target::default()
        };
        let window = self.resolve(&t).await.map_err(|_| {
            Error::new(ErrorCode::StaleRef, "the window of that read is gone")
                .suggest("Read a window again and use the new ids")
        })?;
        let f = Filters {
            visible_only: true,
            ..Filters::default()
        };
        Ok(self.read_window(window, &f, None).await?.elements)
    }
}

/// Whether a web area is there but holds nothing yet.
fn empty_web_area(nodes: &[Node]) -> bool {
    nodes
        .iter()
        .any(|n| (n.role == Role::Web && n.children.is_empty()) || empty_web_area(&n.children))
}

fn center(n: &Node) -> Result<(f64, f64)> {
    let b = n.bounds.filter(|b| b.w > 0 && b.h > 0).ok_or_else(|| {
        Error::new(
            ErrorCode::NotInteractable,
            format!("{} \"{}\" has no place on screen", n.role, n.name),
        )
        .suggest("Scroll it into view or open what holds it, then read again")
    })?;
    Ok((
        f64::from(b.x) + f64::from(b.w) / 2.0,
        f64::from(b.y) + f64::from(b.h) / 2.0,
    ))
}

fn failed(what: String, seen: &Node) -> Error {
    Error::new(ErrorCode::ActionFailed, what).suggest(format!(
        "Read the window: it shows {} \"{}\"",
        seen.role, seen.name
    ))
}

impl Desktop for MacDesktop {
    type Memo = NoMemo;
    type Changes = super::observe::MacChanges;

    async fn apps(&self) -> Result<AppList> {
        let server = sys::server_windows();
        Ok(AppList {
            apps: sys::running_apps()
                .into_iter()
                .map(|(name, pid)| AppInfo {
                    windows: server
                        .iter()
                        .filter(|w| w.pid == pid && w.on_screen)
                        .count(),
                    name,
                    pid,
                })
                .collect(),
            unresponsive: Vec::new(),
        })
    }

    async fn windows(&self, target: &Target) -> Result<WindowList> {
        let mut all = self.all_windows()?;
        all.windows = desktop_core::windows::filter(&all.windows, target, &ByTitle);
        Ok(all)
    }

    async fn resolve(&self, target: &Target) -> Result<WindowInfo> {
        let all = self.all_windows()?;
        desktop_core::windows::pick(&all.windows, target, &all.app_names, &ByTitle)
    }

    async fn read_window(
        &self,
        window: WindowInfo,
        filters: &Filters,
        _memo: Option<&mut NoMemo>,
    ) -> Result<ReadData> {
        filters.validate()?;
        let t = Instant::now();
        // The AX elements stay inside this block: they are not `Send`, and the pipeline
        // below awaits.
        let walked = {
            let (el, index) = self.window_element(&window)?;
            // Chromium and Electron build their web content's tree only for a client that
            // asks, and build it after the asking: a read right after switching it on waits
            // (a bounded while) until the web area holds something, not a fixed pause.
            let app = self.app(window.pid);
            // Only AXManualAccessibility: AXEnhancedUserInterface would stay on in native
            // apps and slow their window animations.
            let was_on = ax::boolean(&app, "AXManualAccessibility").ok().flatten() == Some(true);
            let switched = !was_on && ax::set_bool(&app, "AXManualAccessibility", true).is_ok();
            let budget = walk::Budget {
                elements: 20_000,
                time: (self.timeout * 4).max(Duration::from_secs(5)),
                // `--depth` counts the answer's levels: the pipeline cuts.
                depth: u32::MAX,
            };
            let mut walked = walk::window(&el, window.pid, index, budget)?;
            let deadline = Instant::now() + Duration::from_secs(3);
            while switched && empty_web_area(&walked.nodes) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(100));
                walked = walk::window(&el, window.pid, index, budget)?;
            }
            walked
        };
        let timing = vec![
            ("walk", t.elapsed().as_secs_f64() * 1000.0),
            ("elements", walked.elements as f64),
        ];
        let w = pipeline::Walked {
            window,
            children: walked.nodes,
            incomplete: walked.incomplete,
            timing,
        };
        // One batched read per element fetched bounds and values already.
        pipeline::finish(
            w,
            filters,
            self.screen(),
            pipeline::Ids::Kept(&self.refs),
            async |_| Ok(()),
        )
        .await
    }

    async fn find(&self, scope: &Target, element: &Wanted) -> Result<Found> {
        let (_, node, id, _) = self.aimed(scope, element).await?;
        // The element's own window (its handle carries the window server's id), not the
        // focused one: a capture of the element raises that window.
        let window_id = attrs::parse_handle(&node.handle).map(|(_, wid, _)| wid as u64);
        Ok(Found {
            id,
            role: node.role,
            name: node.name,
            bounds: node.bounds,
            window_id,
        })
    }

    async fn act(&self, request: &ActionRequest) -> Result<ActionResult> {
        request.validate()?;
        let name = request.action.name();
        let wanted = match &request.aim {
            Aim::Point { x, y } => {
                return point_action(name, &request.action, f64::from(*x), f64::from(*y))
            }
            Aim::Window => {
                let window = self.resolve(&request.scope).await?;
                return self.window_action(name, &request.action, &window);
            }
            Aim::Element(e) => e,
        };
        let (el, node, id, rematched) = self.aimed(&request.scope, wanted).await?;
        let before = ElementState::of(&node);
        let (route, effect) = self.element_action(&el, &node, &request.action, &request.aim)?;
        let mut r = ActionResult::new(name, route);
        r.effect = effect;
        r.id = id;
        r.rematched = rematched;
        r.element = Some(Acted {
            role: node.role.short().to_string(),
            name: node.name.clone(),
            bounds: node.bounds,
        });
        if let Ok(Some((_, now))) = self.read_one(&node.handle) {
            r.post_state = Some(ElementState::of(&now)).filter(|s| s != &before);
        }
        Ok(r)
    }

    async fn launch(&self, cmd: &[String], wait: Duration) -> Result<ActionResult> {
        super::launch::launch(self, cmd, wait).await
    }

    async fn changes(&self, window: &WindowInfo) -> Option<super::observe::MacChanges> {
        super::observe::watch(window.pid, window.handle.clone()?)
    }

    fn displays(&self) -> Vec<Display> {
        geometry::displays(&Self::raw_displays())
    }

    fn pointer(&self) -> Option<(i32, i32)> {
        input::pointer()
    }

    fn raise(&self, window_id: u64) -> Result<()> {
        let all = self.all_windows()?;
        let w = all
            .windows
            .iter()
            .find(|w| w.id == Some(window_id))
            .ok_or_else(|| {
                Error::new(ErrorCode::WindowNotFound, format!("no window {window_id}"))
            })?;
        sys::activate(w.pid);
        if let Ok((el, _)) = self.window_element(w) {
            let _ = ax::perform(&el, "AXRaise");
        }
        Ok(())
    }

    async fn capture(&self, area: Rect) -> Result<Capture> {
        capture::area(area, geometry::scale_at(&self.displays(), area))
    }

    async fn capture_window(&self, window: &WindowInfo) -> Result<Option<Capture>> {
        match window.id {
            Some(id) => capture::window(id as u32),
            None => Ok(None),
        }
    }

    fn refs_path(&self) -> PathBuf {
        self.refs.clone()
    }

    async fn window_op(&self, window: &WindowInfo, op: WindowOp) -> Result<Option<WindowInfo>> {
        super::winops::window_op(self, window, op).await
    }

    async fn end_process(&self, pid: u32, grace: Duration) -> Result<bool> {
        super::winops::end_process(pid, grace).await
    }
}

/// Input at a screen point.
fn point_action(name: &'static str, action: &Action, x: f64, y: f64) -> Result<ActionResult> {
    match action {
        Action::Click {
            button,
            count,
            modifiers,
        } => {
            let flags = modifiers.iter().fold(0, |f, m| f | crate::keys::flag(*m));
            input::click(x, y, *button, *count, flags)?;
        }
        Action::Hover => input::move_to(x, y)?,
        Action::Scroll { direction, amount } => input::scroll(x, y, *direction, *amount)?,
        Action::Drag { to } => {
            let Aim::Point { x: tx, y: ty } = to else {
                return Err(Error::invalid_args("a drag from a point ends at a point")
                    .suggest("Give the end as --to-x/--to-y"));
            };
            input::drag((x, y), (f64::from(*tx), f64::from(*ty)))?;
        }
        _ => {
            return Err(
                Error::invalid_args(format!("{name} needs an element, not a point"))
                    .suggest("Name the element by its id or its text"),
            )
        }
    }
    Ok(ActionResult::new(name, Route::Input))
}

impl MacDesktop {
    /// Input for a whole window: it is brought to the front first.
    fn window_action(
        &self,
        name: &'static str,
        action: &Action,
        w: &WindowInfo,
    ) -> Result<ActionResult> {
        let el = self.window_element(w).ok().map(|(e, _)| e);
        self.bring_front(w.pid, el.as_ref())?;
        let mut r = ActionResult::new(name, Route::Input);
        match action {
            Action::Focus => {
                // In front: checked by bring_front above.
                r.route = Route::System;
                r.effect = Effect::Confirmed;
            }
            Action::Type { text, delay, .. } => {
                let n = input::type_text(text, *delay)?;
                r = r.with("chars", n);
            }
            Action::Press { combos } => input::press(combos)?,
            Action::Scroll { direction, amount } => {
                let b = w.bounds.unwrap_or_default();
                let (x, y) = (
                    f64::from(b.x) + f64::from(b.w) / 2.0,
                    f64::from(b.y) + f64::from(b.h) / 2.0,
                );
                input::scroll(x, y, *direction, *amount)?;
            }
            _ => {
                return Err(
                    Error::invalid_args(format!("{name} needs an element or a point"))
                        .suggest("Name the element by its id or its text"),
                )
            }
        }
        Ok(r)
    }

    fn element_action(
        &self,
        el: &Element,
        n: &Node,
        action: &Action,
        aim: &Aim,
    ) -> Result<(Route, Effect)> {
        let _ = aim;
        match action {
            Action::Click {
                button,
                count,
                modifiers,
            } => {
                usable(n)?;
                if *button == Button::Left
                    && *count == 1
                    && modifiers.is_empty()
                    && ax::perform(el, "AXPress").is_ok()
                {
                    return Ok((Route::A11y, Effect::Unverifiable));
                }
                let (x, y) = center(n)?;
                self.front_for(&n.handle)?;
                let flags = modifiers.iter().fold(0, |f, m| f | crate::keys::flag(*m));
                input::click(x, y, *button, *count, flags)?;
                Ok((Route::Input, Effect::Unverifiable))
            }
            Action::Hover => {
                let (x, y) = center(n)?;
                self.front_for(&n.handle)?;
                input::move_to(x, y)?;
                Ok((Route::Input, Effect::Unverifiable))
            }
            Action::Focus => {
                ax::set_bool(el, "AXFocused", true).map_err(|e| ax::error(e, "focusing"))?;
                let now = ax::boolean(el, "AXFocused").ok().flatten() == Some(true);
                if now {
                    Ok((Route::A11y, Effect::Confirmed))
                } else {
                    Err(failed(
                        format!("{} \"{}\" did not take the focus", n.role, n.name),
                        n,
                    ))
                }
            }
            Action::Type {
                text,
                replace,
                delay,
            } => {
                usable(n)?;
                self.type_into(el, n, text, *replace, *delay)
            }
            Action::Press { combos } => {
                self.front_for(&n.handle)?;
                ax::set_bool(el, "AXFocused", true).map_err(|e| ax::error(e, "focusing"))?;
                input::press(combos)?;
                Ok((Route::Input, Effect::Unverifiable))
            }
            Action::Scroll { direction, amount } => {
                let (x, y) = center(n)?;
                self.front_for(&n.handle)?;
                input::scroll(x, y, *direction, *amount)?;
                Ok((Route::Input, Effect::Unverifiable))
            }
            Action::ScrollIntoView => {
                ax::perform(el, "AXScrollToVisible")
                    .map_err(|e| ax::error(e, "scrolling into view"))?;
                // Confirmed only when it is seen on screen afterwards.
                let shown = |m: &Node| {
                    m.bounds
                        .zip(self.screen())
                        .is_some_and(|(b, s)| b.w > 0 && b.intersects(&s))
                };
                if settle(|| Some(self.read_one(&n.handle).ok()??.1).map(|m| shown(&m))) {
                    Ok((Route::A11y, Effect::Confirmed))
                } else {
                    Ok((Route::A11y, Effect::Unverifiable))
                }
            }
            Action::Drag { to } => {
                let from = center(n)?;
                self.front_for(&n.handle)?;
                let to = match to {
                    Aim::Point { x, y } => (f64::from(*x), f64::from(*y)),
                    _ => {
                        return Err(Error::invalid_args(
                            "a drag ends at a point or an element's id",
                        )
                        .suggest("Give --to-x/--to-y"))
                    }
                };
                input::drag(from, to)?;
                Ok((Route::Input, Effect::Unverifiable))
            }
            Action::SetValue { value } => {
                usable(n)?;
                self.set_value(el, n, value)
            }
            Action::Toggle => {
                usable(n)?;
                if !matches!(
                    n.role,
                    Role::CheckBox | Role::Switch | Role::Toggle | Role::Radio
                ) {
                    return Err(Error::new(
                        ErrorCode::NotInteractable,
                        format!(
                            "{} \"{}\" is not a check box, switch or toggle",
                            n.role, n.name
                        ),
                    )
                    .suggest("Use click for other elements"));
                }
                let was = n.states.contains(States::CHECKED);
                ax::perform(el, "AXPress").map_err(|e| ax::error(e, "pressing"))?;
                let now = settle(|| {
                    self.read_one(&n.handle)
                        .ok()
                        .flatten()
                        .map(|(_, m)| m.states.contains(States::CHECKED) != was)
                });
                if now {
                    Ok((Route::A11y, Effect::Confirmed))
                } else {
                    Err(failed(
                        format!("{} \"{}\" did not change its state", n.role, n.name),
                        n,
                    ))
                }
            }
            Action::Named { name } => {
                let names = ax::actions(el).map_err(|e| ax::error(e, "listing actions"))?;
                if !names.iter().any(|a| a == name) {
                    return Err(Error::new(
                        ErrorCode::ElementNotFound,
                        format!("{} \"{}\" has no action {name:?}", n.role, n.name),
                    )
                    .suggest(format!("Its actions: {}", names.join(", "))));
                }
                ax::perform(el, name).map_err(|e| ax::error(e, "running the action"))?;
                Ok((Route::A11y, Effect::Unverifiable))
            }
        }
    }

    fn type_into(
        &self,
        el: &Element,
        n: &Node,
        text: &str,
        replace: bool,
        delay: Duration,
    ) -> Result<(Route, Effect)> {
        if !n.states.contains(States::EDITABLE) {
            return Err(Error::new(
                ErrorCode::NotInteractable,
                format!("{} \"{}\" takes no text", n.role, n.name),
            )
            .suggest("Type into a text field; read the window to find one"));
        }
        self.front_for(&n.handle)?;
        ax::set_bool(el, "AXFocused", true).map_err(|e| ax::error(e, "focusing"))?;
        if ax::boolean(el, "AXFocused").ok().flatten() != Some(true) {
            return Err(Error::new(
                ErrorCode::NotInteractable,
                format!("{} \"{}\" would not take the focus", n.role, n.name),
            )
            .suggest("Click it first, or check that its window is in front"));
        }
        let count = |el: &Element| {
            ax::string(el, "AXNumberOfCharacters")
                .ok()
                .flatten()
                .and_then(|s| s.parse::<f64>().ok())
        };
        let before = count(el);
        let before_text = field_text(el, n);
        // Select all to replace (and delete, so empty text empties the field); else the
        // caret to the end. Through AXSelectedTextRange: no key events at all, and no
        // layout to read. Keys only where that is refused (press finds the key typing A on
        // the current layout; off the main thread it would be the ANSI key).
        let len = before.unwrap_or(0.0) as isize;
        let selected = if replace {
            ax::select_range(el, 0, len)
        } else {
            ax::select_range(el, len, 0)
        };
        let keys = match (selected.is_ok(), replace) {
            (true, true) => "backspace",
            (true, false) => "",
            (false, true) => "cmd+a backspace",
            (false, false) => "cmd+down",
        };
        let combos: Vec<_> = keys
            .split(' ')
            .filter(|k| !k.is_empty())
            .map(desktop_core::keys::Combo::parse)
            .collect::<Result<_>>()?;
        input::press(&combos)?;
        input::type_text(text, delay)?;
        let typed_text = text.replace("\r\n", "\n").replace('\r', "\n");
        // A secure field's length in UTF-16 units, as AXNumberOfCharacters counts.
        let typed = typed_text.encode_utf16().count() as f64;
        let norm = |v: String| v.replace("\r\n", "\n").replace('\r', "\n");
        let seen = settle(|| {
            if n.is_secure() {
                // A secure field's text is never read: its length tells.
                let now = count(el)?;
                let expect = if replace {
                    typed
                } else {
                    before.unwrap_or(0.0) + typed
                };
                Some(now == expect)
            } else {
                // The field holds exactly what it held plus the text (or the text alone).
                let v = norm(field_text(el, n).unwrap_or_default());
                let expect = if replace {
                    typed_text.clone()
                } else {
                    norm(before_text.clone().unwrap_or_default()) + &typed_text
                };
                Some(v == expect)
            }
        });
        if seen {
            Ok((Route::Input, Effect::Confirmed))
        } else {
            let why = if input::secure_input_on() {
                "macOS Secure Event Input is on (a password field or a terminal's Secure Keyboard Entry holds it) and keeps synthetic keys out"
            } else {
                "the app did not take the keys"
            };
            Err(failed(
                format!(
                    "the text did not appear in {} \"{}\": {why}",
                    n.role, n.name
                ),
                n,
            ))
        }
    }

    fn set_value(&self, el: &Element, n: &Node, value: &str) -> Result<(Route, Effect)> {
        let number = matches!(n.role, Role::Slider | Role::Spin | Role::Progress)
            .then(|| value.trim().parse::<f64>())
            .transpose()
            .map_err(|_| {
                Error::invalid_args(format!(
                    "{} \"{}\" takes a number, not {value:?}",
                    n.role, n.name
                ))
            })?;
        if n.is_secure() {
            return Err(Error::new(
                ErrorCode::NotInteractable,
                "a password field's value is not set through accessibility",
            )
            .suggest("Type it with type --id"));
        }
        ax::set_value(el, value, number).map_err(|e| ax::error(e, "setting the value"))?;
        let seen = settle(|| {
            let (_, now) = self.read_one(&n.handle).ok().flatten()?;
            let v = now.value.unwrap_or_default();
            Some(match number {
                Some(x) => v.parse::<f64>().is_ok_and(|y| (y - x).abs() < 1e-6),
                None => v == value,
            })
        });
        if seen {
            Ok((Route::A11y, Effect::Confirmed))
        } else {
            Err(failed(
                format!(
                    "{} \"{}\" does not show {value:?} after setting it",
                    n.role, n.name
                ),
                n,
            ))
        }
    }
}

/// A text field's text as it is now; never asked of a secure field (its length tells how
/// typing went there), so a password does not pass through this process.
fn field_text(el: &Element, n: &Node) -> Option<String> {
    if n.is_secure() {
        return None;
    }
    ax::string(el, "AXValue").ok().flatten()
}

/// Polls `check` until it says yes (or gives up after about a second): apps apply an
/// action on their own run loop, after the call returned.
fn settle(mut check: impl FnMut() -> Option<bool>) -> bool {
    // Bounded by the clock too: each check may wait the messaging timeout on a hung app.
    let deadline = Instant::now() + Duration::from_secs(2);
    for i in 0..20 {
        if check() == Some(true) {
            return true;
        }
        if Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(if i < 5 { 10 } else { 50 }));
    }
    false
}

/// Attributes as a recorded dump shows them, for the real-app tests' fixtures.
#[allow(dead_code)]
pub(crate) fn dump(el: &Element, depth: u32) -> Option<Attrs> {
    let r = ax::read(el, attrs::MAX_CHILDREN).ok()?;
    let mut a = r.attrs;
    if depth > 0 {
        a.children = r
            .children
            .iter()
            .filter_map(|c| dump(c, depth - 1))
            .collect();
    }
    Some(a)
}
