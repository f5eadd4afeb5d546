//! `WinDesktop`: the contract on Windows through MSAA and Win32 (the path that also runs
//! under Wine). Windows from `EnumWindows`; trees read on a worker thread bounded by the
//! call timeout; ids resolved by the core (`refs`) through hwnd-rooted handles; actions
//! through the element's default action or `SendInput`, each read back afterwards.

use super::{capture, input, msaa, windows as sys};
use crate::props::{self, Props};
use desktop_core::action::{Acted, ActionResult, Effect, ElementState, Route};
use desktop_core::backend::{Display, Found, NoChanges, NoMemo};
use desktop_core::filter;
use desktop_core::refs::{self, Probe, RefMap, WindowRefs};
use desktop_core::request::{Action, ActionRequest, Aim, Button, Element as Wanted};
use desktop_core::shot::Capture;
use desktop_core::windows::ByTitle;
use desktop_core::{
    pipeline, AppInfo, AppList, Desktop, Error, ErrorCode, Filters, Handle, Node, ReadData, Rect,
    Result, Role, States, Target, WindowInfo, WindowList,
};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The Windows desktop, its calls to apps bounded by `timeout`.
#[derive(Debug)]
pub struct WinDesktop {
    pub(crate) timeout: Duration,
    pub(crate) refs: PathBuf,
}

/// Most elements one read takes from a window.
const MAX_ELEMENTS: usize = 20_000;

fn window_info(t: &sys::Top, front: u64) -> WindowInfo {
    WindowInfo {
        app: if t.program.is_empty() {
            t.class.clone()
        } else {
            t.program.clone()
        },
        pid: t.pid,
        title: t.title.clone(),
        id: Some(t.hwnd),
        bounds: Some(Rect::new(t.rect.0, t.rect.1, t.rect.2, t.rect.3)),
        focused: t.hwnd == front,
        a11y: true,
        modal: t.modal,
        handle: Some(props::handle(t.hwnd, &[])),
    }
}

impl WinDesktop {
    fn all(&self) -> WindowList {
        let front = sys::foreground();
        let tops = sys::list();
        let mut names: Vec<String> = tops.iter().map(|t| t.program.clone()).collect();
        names.sort();
        names.dedup();
        WindowList {
            windows: tops.iter().map(|t| window_info(t, front)).collect(),
            unresponsive: Vec::new(),
            app_names: names,
        }
    }

    /// The element a handle names now, with its properties.
    fn probe_now(&self, h: &Handle) -> Option<(msaa::Acc, Node)> {
        let (hwnd, path) = props::parse_handle(h)?;
        let acc = msaa::follow(sys::hwnd(hwnd), &path)?;
        let node = props::node(&msaa::props(&acc), h.clone());
        Some((acc, node))
    }

    /// Brings a top-level window to the front and checks that it got there.
    fn front(&self, hwnd: u64) -> Result<()> {
        sys::set_foreground(hwnd);
        let deadline = Instant::now() + Duration::from_millis(500);
        while sys::foreground() != hwnd {
            if Instant::now() > deadline {
                return Err(Error::new(ErrorCode::NotInteractable, "the window would not come to the front, so nothing was typed")
                    .suggest("Windows keeps another program in front: click the window first, or focus it with focus"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    async fn aimed(&self, scope: &Target, e: &Wanted) -> Result<(Node, Option<u32>, bool)> {
        match e {
            Wanted::Id(id) => {
                let map = RefMap::load(&self.refs);
                let (_, found) = refs::resolve(self, &map, *id, scope).await?;
                Ok((found.node, Some(*id), found.rematched))
            }
            Wanted::Text { text, role, exact } => {
                let f = Filters {
                    visible_only: true,
                    text: Some(text.clone()),
                    ..Filters::default()
                };
                let data = self.read(scope, &f).await?;
                let n = filter::named(&data.elements, text, role.as_ref(), *exact)?;
                Ok((n, None, false))
            }
        }
    }
}

impl Probe for WinDesktop {
    async fn probe(&self, handle: &Handle) -> Result<Option<Node>> {
        Ok(self.probe_now(handle).map(|(_, n)| n))
    }

    async fn current_tree(&self, refs: &WindowRefs) -> Result<Vec<Node>> {
        let t = Target {
            window_id: refs.window_id,
            ..Target::default()
        };
        let window = self.resolve(&t).await.map_err(|_| {
            Error::new(ErrorCode::StaleRef, "the window of that read is gone")
                .suggest("Read a window again")
        })?;
        let f = Filters {
            visible_only: true,
            ..Filters::default()
        };
        Ok(self.read_window(window, &f, None).await?.elements)
    }
}

fn center(n: &Node) -> Result<(i32, i32)> {
    let b = n.bounds.filter(|b| b.w > 0 && b.h > 0).ok_or_else(|| {
        Error::new(
            ErrorCode::NotInteractable,
            format!("{} \"{}\" has no place on screen", n.role, n.name),
        )
        .suggest("Scroll it into view or open what holds it, then read again")
    })?;
    Ok((b.x + b.w / 2, b.y + b.h / 2))
}

fn usable(n: &Node) -> Result<()> {
    if n.states.contains(States::DISABLED) {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!("{} \"{}\" is disabled", n.role, n.name),
        )
        .suggest("Wait until it is enabled, or act on another element"));
    }
    Ok(())
}

fn failed(what: String) -> Error {
    Error::new(ErrorCode::ActionFailed, what).suggest("Read the window again to see its state")
}

/// Polls `check` for about a second: apps take input on their own message loop.
fn settle(mut check: impl FnMut() -> bool) -> bool {
    for i in 0..25 {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(if i < 5 { 10 } else { 40 }));
    }
    false
}

impl Desktop for WinDesktop {
    type Memo = NoMemo;
    type Changes = NoChanges;

    async fn apps(&self) -> Result<AppList> {
        let all = self.all();
        let mut apps: Vec<AppInfo> = Vec::new();
        for w in &all.windows {
            match apps.iter_mut().find(|a| a.pid == w.pid) {
                Some(a) => a.windows += 1,
                None => apps.push(AppInfo {
                    name: w.app.clone(),
                    pid: w.pid,
                    windows: 1,
                }),
            }
        }
        Ok(AppList {
            apps,
            unresponsive: Vec::new(),
        })
    }

    async fn windows(&self, target: &Target) -> Result<WindowList> {
        let mut all = self.all();
        all.windows = desktop_core::windows::filter(&all.windows, target, &ByTitle);
        Ok(all)
    }

    async fn resolve(&self, target: &Target) -> Result<WindowInfo> {
        let all = self.all();
        desktop_core::windows::pick(&all.windows, target, &all.app_names, &ByTitle)
    }

    async fn read_window(
        &self,
        window: WindowInfo,
        filters: &Filters,
        _memo: Option<&mut NoMemo>,
    ) -> Result<ReadData> {
        filters.validate()?;
        let hwnd = window
            .id
            .ok_or_else(|| Error::new(ErrorCode::WindowNotFound, "the window has no handle"))?;
        let t = Instant::now();
        // MSAA calls go to the app: on a worker thread of their own, so a hung app costs a
        // timeout, never a hang.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            super::com_init();
            let _ = tx.send(msaa::dump(sys::hwnd(hwnd), MAX_ELEMENTS).map_err(|e| e.to_string()));
        });
        let wait = (self.timeout * 4).max(Duration::from_secs(5));
        let (top, cut): (Props, bool) = match rx.recv_timeout(wait) {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                return Err(Error::new(
                    ErrorCode::NotInteractable,
                    format!("the window's accessibility object is not available: {e}"),
                )
                .suggest("Take a screenshot and act at points instead"))
            }
            Err(_) => {
                return Err(Error::new(
                    ErrorCode::AppUnresponsive,
                    format!(
                        "{} did not answer within {} ms",
                        window.app,
                        wait.as_millis()
                    ),
                )
                .suggest("The app may be busy or hung: wait, or raise --call-timeout"))
            }
        };
        let w = pipeline::Walked {
            children: props::tree(hwnd, &top),
            incomplete: cut.then(|| format!("more than {MAX_ELEMENTS} elements")),
            timing: vec![("walk", t.elapsed().as_secs_f64() * 1000.0)],
            window,
        };
        pipeline::finish(w, filters, self.screen(), async |_| Ok(())).await
    }

    async fn find(&self, scope: &Target, element: &Wanted) -> Result<Found> {
        let (node, id, _) = self.aimed(scope, element).await?;
        let window_id = props::parse_handle(&node.handle).map(|(h, _)| h);
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
        super::com_init();
        let name = request.action.name();
        let wanted = match &request.aim {
            Aim::Point { x, y } => return point_action(name, &request.action, *x, *y),
            Aim::Window => {
                let w = self.resolve(&request.scope).await?;
                return self.window_action(name, &request.action, &w);
            }
            Aim::Element(e) => e,
        };
        let (node, id, rematched) = self.aimed(&request.scope, wanted).await?;
        let (route, effect) = self.element_action(&node, &request.action)?;
        let mut r = ActionResult::new(name, route);
        r.effect = effect;
        r.id = id;
        r.rematched = rematched;
        r.element = Some(Acted {
            role: node.role.short().to_string(),
            name: node.name.clone(),
            bounds: node.bounds,
        });
        if let Some((_, now)) = self.probe_now(&node.handle) {
            r.post_state = Some(ElementState::of(&now)).filter(|s| *s != ElementState::of(&node));
        }
        Ok(r)
    }

    async fn launch(&self, cmd: &[String], wait: Duration) -> Result<ActionResult> {
        let Some(program) = cmd.first() else {
            return Err(
                Error::invalid_args("no program to start").suggest("Example: launch notepad")
            );
        };
        // Not this process's streams: under `mcp` over stdio they carry the protocol.
        let child = std::process::Command::new(program)
            .args(&cmd[1..])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| {
                Error::new(
                    ErrorCode::AppNotFound,
                    format!("cannot start {program}: {e}"),
                )
                .suggest("Check the program's name or path")
            })?;
        let pid = child.id();
        let deadline = Instant::now() + wait;
        loop {
            if let Some(w) = self.all().windows.into_iter().find(|w| w.pid == pid) {
                let mut r = ActionResult::new("launch", Route::System)
                    .with("app", w.app.clone())
                    .with("pid", pid)
                    .with("window", serde_json::json!({"title": w.title, "id": w.id}));
                r.effect = Effect::Confirmed;
                return Ok(r);
            }
            if Instant::now() >= deadline {
                return Err(Error::new(
                    ErrorCode::Timeout,
                    format!(
                        "{program} started but showed no window in {} s",
                        wait.as_secs()
                    ),
                )
                .suggest("Wait longer, or check with list"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn changes(&self, _window: &WindowInfo) -> Option<NoChanges> {
        // UIA events are not wired yet: observe and wait read on their interval.
        None
    }

    fn displays(&self) -> Vec<Display> {
        let (x, y, w, h) = sys::virtual_screen();
        if w <= 0 || h <= 0 {
            return Vec::new();
        }
        vec![Display {
            bounds: Rect::new(x, y, w, h),
            scale: 1.0,
            primary: true,
        }]
    }

    fn pointer(&self) -> Option<(i32, i32)> {
        input::pointer()
    }

    fn raise(&self, window_id: u64) -> Result<()> {
        self.front(window_id)
    }

    async fn capture(&self, area: Rect) -> Result<Capture> {
        capture::area(area)
    }

    fn refs_path(&self) -> PathBuf {
        self.refs.clone()
    }
}

fn point_action(name: &'static str, action: &Action, x: i32, y: i32) -> Result<ActionResult> {
    match action {
        Action::Click {
            button,
            count,
            modifiers,
        } => input::click(x, y, *button, *count, modifiers)?,
        Action::Hover => input::move_to(x, y)?,
        Action::Scroll { direction, amount } => input::scroll(x, y, *direction, *amount)?,
        Action::Drag {
            to: Aim::Point { x: tx, y: ty },
        } => input::drag((x, y), (*tx, *ty))?,
        _ => {
            return Err(
                Error::invalid_args(format!("{name} needs an element, not a point"))
                    .suggest("Name the element by its id or its text"),
            )
        }
    }
    Ok(ActionResult::new(name, Route::Input))
}

impl WinDesktop {
    fn window_action(
        &self,
        name: &'static str,
        action: &Action,
        w: &WindowInfo,
    ) -> Result<ActionResult> {
        let hwnd = w.id.unwrap_or_default();
        self.front(hwnd)?;
        let mut r = ActionResult::new(name, Route::Input);
        match action {
            Action::Focus => {
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
                input::scroll(b.x + b.w / 2, b.y + b.h / 2, *direction, *amount)?;
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

    fn top_of(n: &Node) -> u64 {
        props::parse_handle(&n.handle).map_or(0, |(h, _)| h)
    }

    fn element_action(&self, n: &Node, action: &Action) -> Result<(Route, Effect)> {
        let now = |h: &Handle| self.probe_now(h).map(|(_, m)| m);
        match action {
            Action::Click {
                button,
                count,
                modifiers,
            } => {
                usable(n)?;
                if *button == Button::Left && *count == 1 && modifiers.is_empty() {
                    if let Some((acc, _)) = self.probe_now(&n.handle) {
                        if msaa::do_default(&acc).is_ok() || msaa::click_button(&acc) {
                            return Ok((Route::A11y, Effect::Unverifiable));
                        }
                    }
                }
                self.front(Self::top_of(n))?;
                let (x, y) = center(n)?;
                input::click(x, y, *button, *count, modifiers)?;
                Ok((Route::Input, Effect::Unverifiable))
            }
            Action::Hover => {
                let (x, y) = center(n)?;
                input::move_to(x, y)?;
                Ok((Route::Input, Effect::Unverifiable))
            }
            Action::Focus => {
                self.front(Self::top_of(n))?;
                // The focus through accessibility: a click would press a button or tick a box.
                if let Some((acc, _)) = self.probe_now(&n.handle) {
                    let _ = msaa::take_focus(&acc);
                }
                if settle(|| now(&n.handle).is_some_and(|m| m.states.contains(States::FOCUSED))) {
                    Ok((Route::A11y, Effect::Confirmed))
                } else {
                    Err(failed(format!(
                        "{} \"{}\" did not take the focus",
                        n.role, n.name
                    )))
                }
            }
            Action::Type {
                text,
                replace,
                delay,
            } => {
                usable(n)?;
                if !n.states.contains(States::EDITABLE) {
                    return Err(Error::new(
                        ErrorCode::NotInteractable,
                        format!("{} \"{}\" takes no text", n.role, n.name),
                    )
                    .suggest("Type into a text field"));
                }
                self.front(Self::top_of(n))?;
                if !n.states.contains(States::FOCUSED) {
                    if let Some((acc, _)) = self.probe_now(&n.handle) {
                        let _ = msaa::take_focus(&acc);
                    }
                    // A text field takes a click safely where accessibility gave no focus.
                    if !settle(|| {
                        now(&n.handle).is_some_and(|m| m.states.contains(States::FOCUSED))
                    }) {
                        let (x, y) = center(n)?;
                        input::click(x, y, Button::Left, 1, &[])?;
                    }
                    if !settle(|| {
                        now(&n.handle).is_some_and(|m| m.states.contains(States::FOCUSED))
                    }) {
                        return Err(Error::new(
                            ErrorCode::NotInteractable,
                            format!(
                                "{} \"{}\" would not take the focus, so nothing was typed",
                                n.role, n.name
                            ),
                        )
                        .suggest("Click it first, then type"));
                    }
                }
                let norm = |v: &str| v.replace("\r\n", "\n").replace('\r', "\n");
                let before = now(&n.handle).and_then(|m| m.value).unwrap_or_default();
                // Select all and delete to replace (so empty text empties the field), else
                // the caret to the end.
                let keys = if *replace {
                    "ctrl+a backspace"
                } else {
                    "ctrl+end"
                };
                let combos: Vec<_> = keys
                    .split(' ')
                    .map(desktop_core::keys::Combo::parse)
                    .collect::<Result<_>>()?;
                input::press(&combos)?;
                input::type_text(text, *delay)?;
                if n.is_secure() {
                    // A password box's text is never read: what was sent is all that is known.
                    return Ok((Route::Input, Effect::Unverifiable));
                }
                // The field holds exactly what it held plus the text (or the text alone).
                let expect = if *replace {
                    norm(text)
                } else {
                    norm(&before) + &norm(text)
                };
                if settle(|| {
                    now(&n.handle)
                        .and_then(|m| m.value)
                        .is_some_and(|v| norm(&v) == expect)
                        || (expect.is_empty() && now(&n.handle).is_some_and(|m| m.value.is_none()))
                }) {
                    Ok((Route::Input, Effect::Confirmed))
                } else {
                    Err(failed(format!(
                        "the text did not appear in {} \"{}\"",
                        n.role, n.name
                    )))
                }
            }
            Action::Press { combos } => {
                self.front(Self::top_of(n))?;
                input::press(combos)?;
                Ok((Route::Input, Effect::Unverifiable))
            }
            Action::Scroll { direction, amount } => {
                let (x, y) = center(n)?;
                input::scroll(x, y, *direction, *amount)?;
                Ok((Route::Input, Effect::Unverifiable))
            }
            Action::ScrollIntoView => Err(Error::new(
                ErrorCode::ActionFailed,
                "scrolling an element into view needs UI Automation, not wired yet",
            )
            .suggest("Scroll its list with scroll, then read again")),
            Action::Drag { to } => {
                let from = center(n)?;
                let Aim::Point { x, y } = to else {
                    return Err(
                        Error::invalid_args("a drag ends at a point").suggest("Give --to-x/--to-y")
                    );
                };
                input::drag(from, (*x, *y))?;
                Ok((Route::Input, Effect::Unverifiable))
            }
            Action::SetValue { value } => {
                usable(n)?;
                if n.is_secure() {
                    return Err(Error::new(
                        ErrorCode::NotInteractable,
                        "a password box's value is not set through accessibility",
                    )
                    .suggest("Type it with type --id"));
                }
                let (acc, _) = self
                    .probe_now(&n.handle)
                    .ok_or_else(|| failed("the element is gone".into()))?;
                msaa::set_value(&acc, value).map_err(|e| {
                    failed(format!("{} \"{}\" refused the value: {e}", n.role, n.name))
                })?;
                if settle(|| {
                    now(&n.handle).and_then(|m| m.value).as_deref() == Some(value.as_str())
                }) {
                    Ok((Route::A11y, Effect::Confirmed))
                } else {
                    Err(failed(format!(
                        "{} \"{}\" does not show {value:?} after setting it",
                        n.role, n.name
                    )))
                }
            }
            Action::Toggle => {
                usable(n)?;
                if !matches!(
                    n.role,
                    Role::CheckBox | Role::Switch | Role::Toggle | Role::Radio
                ) {
                    return Err(Error::new(
                        ErrorCode::NotInteractable,
                        format!("{} \"{}\" is not a check box or toggle", n.role, n.name),
                    )
                    .suggest("Use click for other elements"));
                }
                let was = n.states.contains(States::CHECKED);
                self.front(Self::top_of(n))?;
                let (x, y) = center(n)?;
                input::click(x, y, Button::Left, 1, &[])?;
                if settle(|| {
                    now(&n.handle).is_some_and(|m| m.states.contains(States::CHECKED) != was)
                }) {
                    Ok((Route::Input, Effect::Confirmed))
                } else {
                    Err(failed(format!(
                        "{} \"{}\" did not change its state",
                        n.role, n.name
                    )))
                }
            }
            Action::Named { name } => {
                let (acc, _) = self
                    .probe_now(&n.handle)
                    .ok_or_else(|| failed("the element is gone".into()))?;
                let default = msaa::default_action(&acc);
                if default.is_empty() || !default.eq_ignore_ascii_case(name) {
                    return Err(Error::new(
                        ErrorCode::ElementNotFound,
                        format!("{} \"{}\" has no action {name:?}", n.role, n.name),
                    )
                    .suggest(if default.is_empty() {
                        "It has no action of its own: use click".to_string()
                    } else {
                        format!("Its action: {default}")
                    }));
                }
                msaa::do_default(&acc).map_err(|e| failed(format!("the action failed: {e}")))?;
                Ok((Route::A11y, Effect::Unverifiable))
            }
        }
    }
}
