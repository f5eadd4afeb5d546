//! `WinDesktop`: the contract on Windows. Windows from `EnumWindows`; a window's tree read
//! through UI Automation in one cached call, or through MSAA where UI Automation is absent
//! or gives nothing (old Win32 apps, Wine); every call into an app on a worker thread
//! bounded by the call timeout, and never into the program hosting us; ids resolved by the
//! core (`refs`) through handles; actions in `act`, window operations in `winops`, the
//! displays from `monitors`.

use super::{act, capture, element, input, msaa, windows as sys};
use crate::props;
use desktop_core::action::{Acted, ActionResult, Effect, ElementState, Route};
use desktop_core::backend::{Display, Found, NoMemo};
use desktop_core::filter;
use desktop_core::refs::{self, Probe, WindowRefs};
use desktop_core::request::{Action, ActionRequest, Aim, Element as Wanted};
use desktop_core::shot::Capture;
use desktop_core::windows::ByTitle;
use desktop_core::winops::WindowOp;
use desktop_core::{
    pipeline, AppInfo, AppList, Desktop, Error, ErrorCode, Filters, Handle, Node, ReadData, Rect,
    Result, Target, Unresponsive, WindowInfo, WindowList,
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
        state: t.state,
        display: None,
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
        let mut unresponsive: Vec<Unresponsive> = Vec::new();
        for t in tops.iter().filter(|t| t.hung) {
            if !unresponsive.iter().any(|u| u.pid == t.pid) {
                unresponsive.push(Unresponsive {
                    app: Some(t.program.clone()).filter(|p| !p.is_empty()),
                    pid: t.pid,
                    code: "APP_UNRESPONSIVE",
                });
            }
        }
        WindowList {
            windows: tops.iter().map(|t| window_info(t, front)).collect(),
            unresponsive,
            app_names: names,
        }
    }

    /// Runs `f` on a worker thread of COM's multithreaded apartment and waits for it at
    /// most `wait`: calls into a hung app cost a timeout, never a hang (the thread is left
    /// to its call).
    pub(crate) fn bounded<T: Send + 'static>(
        &self,
        app: &str,
        wait: Duration,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            super::com_init();
            let r = f();
            element::release();
            let _ = tx.send(r);
        });
        rx.recv_timeout(wait).map_err(|_| {
            Error::new(
                ErrorCode::AppUnresponsive,
                format!("{app} did not answer within {} ms", wait.as_millis()),
            )
            .suggest("The app may be busy or hung: wait, or raise --call-timeout")
        })
    }

    /// The element a handle names now, read on a worker thread.
    async fn probe_now(&self, h: &Handle) -> Result<Option<Node>> {
        self.not_our_host(element::top_of(h))?;
        let h = h.clone();
        self.bounded("the app", self.timeout * 2, move || {
            element::probe(&h).map(|l| l.map(|l| l.node))
        })?
        .map_err(|why| {
            Error::new(
                ErrorCode::AppUnresponsive,
                format!("the app did not answer: {why}"),
            )
            .suggest("The app may be busy or hung: wait, or raise --call-timeout")
        })
    }

    /// Refuses a window of a program that hosts this one (the terminal or editor that ran
    /// us): it waits for our answer, so a call into it could wait for ever (a peer
    /// deadlocked an editor this way until Windows killed it).
    pub(crate) fn not_our_host(&self, hwnd: u64) -> Result<()> {
        let pid = sys::pid_of(hwnd);
        if pid != 0 && sys::ancestors().contains(&pid) {
            return Err(Error::new(
                ErrorCode::NotInteractable,
                "desktop-cli runs inside this program: reading it could hang them both",
            )
            .suggest("Take a screenshot of it instead, or run desktop-cli from another program"));
        }
        Ok(())
    }

    async fn aimed(&self, scope: &Target, e: &Wanted) -> Result<(Node, Option<u32>, bool)> {
        match e {
            Wanted::Id(id) => {
                let (_, found) = refs::resolve(self, &self.refs, *id, scope).await?;
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
        self.probe_now(handle).await
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

impl Desktop for WinDesktop {
    type Memo = NoMemo;
    type Changes = super::events::WinChanges;

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
            unresponsive: all.unresponsive,
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
        self.not_our_host(hwnd)?;
        let t = Instant::now();
        let wait = (self.timeout * 4).max(Duration::from_secs(5));
        let actions = filters.actions;
        let read = self.bounded(&window.app, wait, move || read_tree(hwnd, actions))?;
        let (children, cut, layer) = read.map_err(|e| {
            Error::new(
                ErrorCode::NotInteractable,
                format!("the window's accessibility tree is not available: {e}"),
            )
            .suggest("Take a screenshot and act at points instead")
        })?;
        let w = pipeline::Walked {
            children,
            incomplete: cut.then(|| format!("more than {MAX_ELEMENTS} elements")),
            timing: vec![(layer, t.elapsed().as_secs_f64() * 1000.0)],
            window,
        };
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
        let (node, id, _) = self.aimed(scope, element).await?;
        let window_id = Some(element::top_of(&node.handle)).filter(|w| *w != 0);
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
        self.not_our_host(element::top_of(&node.handle))?;
        let (n, action) = (node.clone(), request.action.clone());
        // Each action reads back for about a second at most, a few times.
        let wait = self.timeout * 4 + Duration::from_secs(5);
        let (route, effect, now) =
            self.bounded("the app", wait, move || act::on_element(&n, &action))??;
        let mut r = ActionResult::new(name, route);
        r.effect = effect;
        r.id = id;
        r.rematched = rematched;
        r.element = Some(Acted {
            role: node.role.short().to_string(),
            name: node.name.clone(),
            bounds: node.bounds,
        });
        if let Some(now) = now {
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
        // Programs that hand their start to a running copy or another process (Windows 11's
        // Notepad, Calculator, Edge) show their window from another pid: a window new since
        // the start whose program has the launched one's name is theirs too.
        let before: Vec<u64> = sys::list().iter().map(|t| t.hwnd).collect();
        let started = sys::now();
        let stem = std::path::Path::new(program)
            .file_stem()
            .map(|s| s.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
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
            // A new window of a program of that name, or of a process that started after
            // ours (Calculator's is CalculatorApp, started by calc.exe).
            let ours = |w: &WindowInfo| {
                w.pid == pid
                    || (w.id.is_some_and(|id| !before.contains(&id))
                        && (w.app.to_ascii_lowercase() == stem
                            || sys::created(w.pid).is_some_and(|c| c >= started)))
            };
            if let Some(w) = self.all().windows.into_iter().find(ours) {
                let mut r = ActionResult::new("launch", Route::System)
                    .with("app", w.app.clone())
                    .with("pid", w.pid)
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

    async fn changes(&self, window: &WindowInfo) -> Option<super::events::WinChanges> {
        let hwnd = window.id?;
        self.not_our_host(hwnd).ok()?;
        super::events::watch(hwnd, window.handle.clone()?, self.timeout * 2)
    }

    /// The monitors (`crate::monitors`), else the virtual screen as one display.
    fn displays(&self) -> Vec<Display> {
        let all = crate::monitors::displays(&super::monitors::all());
        if !all.is_empty() {
            return all;
        }
        let (x, y, w, h) = sys::virtual_screen();
        if w <= 0 || h <= 0 {
            return Vec::new();
        }
        vec![Display::new(
            Rect::new(x, y, w, h),
            crate::monitors::SCALE,
            true,
        )]
    }

    fn pointer(&self) -> Option<(i32, i32)> {
        input::pointer()
    }

    fn raise(&self, window_id: u64) -> Result<()> {
        act::front(window_id)
    }

    async fn capture(&self, area: Rect) -> Result<Capture> {
        capture::area(area)
    }

    async fn capture_window(&self, window: &WindowInfo) -> Result<Option<Capture>> {
        let (Some(hwnd), Some(r)) = (window.id, window.bounds) else {
            return Ok(None);
        };
        // The window draws itself: a hung one costs a timeout, and a program hosting us
        // (waiting on our answer) is captured from the screen instead.
        if self.not_our_host(hwnd).is_err() {
            return Ok(None);
        }
        self.bounded(&window.app, self.timeout * 2, move || {
            capture::window(sys::hwnd(hwnd), r)
        })?
    }

    fn refs_path(&self) -> PathBuf {
        self.refs.clone()
    }

    async fn window_op(&self, window: &WindowInfo, op: WindowOp) -> Result<Option<WindowInfo>> {
        super::winops::window_op(self, window, op).await
    }

    async fn end_process(&self, pid: u32, grace: Duration) -> Result<bool> {
        super::ending::end_process(pid, grace).await
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
        act::front(hwnd)?;
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
        // The answer waits until the app has taken the input in.
        if r.route == Route::Input {
            let _ = sys::input_idle(hwnd, 2000);
        }
        Ok(r)
    }
}

/// A window's tree, through UI Automation where it gives one, else through MSAA; whether
/// it was cut, and which layer read it.
fn read_tree(
    hwnd: u64,
    actions: bool,
) -> std::result::Result<(Vec<Node>, bool, &'static str), String> {
    // A read numbers the window's elements afresh: the ones kept for the former numbers
    // go, so none is kept long past the read that named it.
    element::forget_window(hwnd);
    if let Some(uia) = element::client() {
        if let Ok((mut top, mut cut)) = uia.dump(sys::hwnd(hwnd), MAX_ELEMENTS) {
            // Chromium and Edge build a page's tree on the first UI Automation request:
            // a first read finds the document empty; the next, a moment later, the page.
            if empty_document(&top) {
                std::thread::sleep(std::time::Duration::from_millis(300));
                if let Ok(again) = uia.dump(sys::hwnd(hwnd), MAX_ELEMENTS) {
                    (top, cut) = again;
                }
            }
            if !top.children.is_empty() {
                return Ok((crate::uia::tree(hwnd, &top, actions), cut, "uia"));
            }
        }
    }
    let (top, cut) = msaa::dump(sys::hwnd(hwnd), MAX_ELEMENTS).map_err(|e| e.to_string())?;
    Ok((props::tree(hwnd, &top), cut, "msaa"))
}

/// Whether a tree holds a Chromium (or Edge) document with nothing in it yet: a page being
/// built. Other documents may well be empty (Notepad's editor has no children).
fn empty_document(e: &crate::uia::Element) -> bool {
    const DOCUMENT: i32 = 50030;
    (e.control_type == DOCUMENT && e.framework_id == "Chrome" && e.children.is_empty())
        || e.children.iter().any(empty_document)
}
