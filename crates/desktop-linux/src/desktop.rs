//! The contract (`desktop_core::Desktop`) on Linux: reading through AT-SPI, acting through
//! `act`, capturing and raising through X11, change notices from AT-SPI events.

use crate::bus::Addr;
use crate::warm::Showing;
use crate::{app_error, events, sandbox};
use crate::{apps, clues, hydrate, identity, quiet, tree, windows, LinuxDesktop, LIST_BUDGET};
use desktop_core::action::ActionResult;
use desktop_core::backend::{Change, Changes, Found, ReadMemo};
use desktop_core::pipeline::{self, Walked};
use desktop_core::request::{ActionRequest, Element};
use desktop_core::shot::Capture;
use desktop_core::{
    AppInfo, AppList, Desktop, Error, ErrorCode, Filters, ReadData, Rect, Result, States, Target,
    WindowInfo, WindowList,
};
use futures_util::{FutureExt, StreamExt};
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use zbus::MessageStream;

impl ReadMemo for tree::Memo {
    fn touched(&mut self, handle: &desktop_core::Handle, children: bool) {
        tree::Memo::touched(self, handle.path(), children);
    }
    fn reuse(&mut self, boxes: bool) {
        tree::Memo::reuse(self, boxes);
    }
    fn clear(&mut self) {
        tree::Memo::clear(self);
    }
    fn walked_any(&self) -> bool {
        tree::Memo::walked_any(self)
    }
    fn poll(&mut self) {
        tree::Memo::poll(self);
    }
}

/// An app's AT-SPI object events, as change notices.
pub struct AppChanges(MessageStream);

impl std::fmt::Debug for AppChanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AppChanges")
    }
}

/// The element an event is about, and whether its children changed.
fn change_of(msg: &zbus::Message) -> Option<Change> {
    let (path, children) = events::object_of(msg)?;
    let header = msg.header();
    let sender = header.sender().map(|s| s.as_str()).unwrap_or_default();
    Some(Change {
        handle: crate::bus::handle(sender, &path),
        children,
    })
}

impl Changes for AppChanges {
    async fn next(&mut self) -> Option<Change> {
        loop {
            match self.0.next().await? {
                Ok(msg) => {
                    if let Some(c) = change_of(&msg) {
                        return Some(c);
                    }
                }
                Err(_) => continue,
            }
        }
    }

    fn try_next(&mut self) -> Option<Change> {
        while let Some(Some(msg)) = self.0.next().now_or_never() {
            if let Some(c) = msg.ok().as_ref().and_then(change_of) {
                return Some(c);
            }
        }
        None
    }
}

impl Desktop for LinuxDesktop {
    type Memo = tree::Memo;
    type Changes = AppChanges;

    async fn apps(&self) -> Result<AppList> {
        let apps::Listing {
            apps,
            mut unresponsive,
            ..
        } = self
            .app_list(&apps::AppQuery {
                frames: true,
                budget: Some(LIST_BUDGET.min(self.timeout)),
                ..Default::default()
            })
            .await?;
        for u in unresponsive.iter_mut().filter(|u| u.app.is_none()) {
            u.app = identity::program_name(u.pid);
        }
        let mut apps: Vec<AppInfo> = apps
            .into_iter()
            .map(|a| AppInfo {
                windows: a
                    .frames
                    .iter()
                    .filter(|f| f.states.contains(desktop_core::States::SHOWING))
                    .count(),
                name: a.name,
                pid: a.pid,
            })
            .collect();
        apps.sort_by(|a, b| {
            a.name
                .to_lowercase()
                .cmp(&b.name.to_lowercase())
                .then(a.pid.cmp(&b.pid))
        });
        Ok(AppList { apps, unresponsive })
    }

    async fn windows(&self, target: &Target) -> Result<WindowList> {
        let mut list = self
            .target_windows(target, Some(LIST_BUDGET.min(self.timeout)))
            .await?;
        list.windows = windows::filter(list.windows, target);
        Ok(list)
    }

    async fn resolve(&self, target: &Target) -> Result<WindowInfo> {
        self.resolve_window(target).await
    }

    async fn read_window(
        &self,
        window: WindowInfo,
        filters: &Filters,
        memo: Option<&mut tree::Memo>,
    ) -> Result<ReadData> {
        read_window_with(self, window, filters, memo).await
    }

    async fn read(&self, target: &Target, filters: &Filters) -> Result<ReadData> {
        if let Some(read) = &self.elsewhere {
            if let Some(answer) = read(target, filters).await {
                return answer;
            }
        }
        let t = Instant::now();
        let window = self.resolve_window(target).await?;
        let resolve_ms = t.elapsed().as_secs_f64() * 1000.0;
        let mut data = read_window_with(self, window, filters, None).await?;
        data.timing.insert(1, ("resolve", resolve_ms));
        Ok(data)
    }

    async fn find(&self, scope: &Target, element: &Element) -> Result<Found> {
        let live = self.element(scope, element).await?;
        Ok(Found {
            id: live.id,
            role: live.node.role.clone(),
            name: live.node.name.clone(),
            // A box relative to a window nothing places is no place on screen.
            bounds: live.node.bounds.filter(|b| b.is_valid() && live.placed),
            window_id: live.window_id.map(u64::from),
        })
    }

    async fn act(&self, request: &ActionRequest) -> Result<ActionResult> {
        self.perform(request).await
    }

    async fn launch(&self, cmd: &[String], wait: Duration) -> Result<ActionResult> {
        self.start_program(cmd, wait).await
    }

    async fn changes(&self, window: &WindowInfo) -> Option<AppChanges> {
        let owner = window.handle.as_ref()?.owner().to_string();
        events::object_events(&self.bus, &owner)
            .await
            .ok()
            .map(AppChanges)
    }

    /// The monitors RandR reports (all parts of the one root window, one pixel a unit),
    /// else the root window; none without X.
    fn displays(&self) -> Vec<desktop_core::backend::Display> {
        match (&self.x, &self.wl) {
            (Some(x), _) => match self.warm.as_ref().and_then(|w| w.tops.as_ref()) {
                Some(tops) => tops.displays(x),
                None => x.displays(),
            },
            (None, Some(wl)) => wl.displays(),
            (None, None) => Vec::new(),
        }
    }

    /// Where the pointer is; Wayland tells no client that.
    fn pointer(&self) -> Option<(i32, i32)> {
        self.x.as_ref()?.pointer().ok()
    }

    fn raise(&self, window_id: u64) -> Result<()> {
        let id = u32::try_from(window_id)
            .map_err(|_| Error::invalid_args(format!("{window_id} is not a window id")))?;
        match (&self.x, &self.wl) {
            (Some(x), _) => x.raise(id),
            (None, Some(wl)) => wl.raise_and_focus(id),
            (None, None) => Err(crate::x11::no_display()),
        }
    }

    async fn capture(&self, area: Rect) -> Result<Capture> {
        match (&self.x, &self.wl) {
            (Some(x), _) => x.capture(area),
            (None, Some(wl)) => crate::wayland::capture::capture(&wl.client, &wl.displays(), area),
            (None, None) => Err(crate::x11::no_display()),
        }
    }

    fn refs_path(&self) -> PathBuf {
        self.refs.get_or_init(sandbox::refs_path).clone()
    }

    fn screen_changes(&self) -> Option<std::sync::mpsc::Receiver<()>> {
        self.x.as_ref()?;
        crate::damage::watch().ok()
    }

    async fn window_op(
        &self,
        window: &WindowInfo,
        op: desktop_core::winops::WindowOp,
    ) -> Result<Option<WindowInfo>> {
        crate::window_ops::window_op(self, window, op).await
    }

    async fn end_process(&self, pid: u32, grace: Duration) -> Result<bool> {
        crate::window_ops::end_process(pid, grace).await
    }

    async fn upkeep(&self) {
        self.refill_warm(crate::warm::IDLE).await;
    }
}

/// Reads, filters and numbers one window's tree, reusing what `memo` learned in earlier
/// reads of the window (`observe`).
pub(crate) async fn read_window_with(
    d: &LinuxDesktop,
    window: WindowInfo,
    filters: &Filters,
    memo: Option<&mut tree::Memo>,
) -> Result<ReadData> {
    let Some(handle) = window.handle.clone() else {
        return Err(Error::new(
            ErrorCode::A11yUnavailable,
            format!("window \"{}\" of {} exposes no accessibility tree", window.title, window.app),
        )
        .suggest("Start the app with accessibility on: Chromium needs --force-renderer-accessibility, Qt needs QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (a sandbox sets both)"));
    };
    // A warm desktop (the keeper, the MCP server) connected long before this read.
    let mut timing = if d.warm.is_some() {
        Vec::new()
    } else {
        vec![("connect", d.connect_ms)]
    };
    // `--depth` counts the levels the answer shows, which lie any number of the toolkit's
    // levels down: the walk goes all the way (within its budget), the pipeline cuts.
    let limits = tree::Limits {
        // A text search also looks at what is scrolled out of view.
        skip_hidden: filters.visible_only && filters.text.is_none(),
        ..d.limits(&window)
    };
    let t = Instant::now();
    let (bus, known) = match &d.warm {
        Some(w) => {
            let (bus, cache) = w
                .app(&d.bus, handle.owner())
                .await
                .map_err(|e| app_error(e, &window.app, d.timeout))?;
            (bus, Some(cache))
        }
        None => (
            d.bus
                .with_peer(handle.owner())
                .await
                .map_err(|e| app_error(e, &window.app, d.timeout))?,
            None,
        ),
    };
    timing.push(("peer", t.elapsed().as_secs_f64() * 1000.0));
    // The displays' union, asked once for the whole read (a round trip or more each time).
    let screen = d.screen();
    // A long-lived process gives a quiet window's last answer again (`quiet`).
    let quietly = match (&d.warm, &memo, &known) {
        (Some(w), None, Some(cache))
            if cache.trust() != tree::Trust::Nothing
                && filters.visible_only
                && filters.text.is_none() =>
        {
            w.drawn.as_ref().map(|drawn| (w, drawn))
        }
        _ => None,
    };
    let mut seen = None;
    let mut drew = None;
    // When the window was seen drawing what its boxes could not explain, if lately: its
    // pixels are kept with the answer, to tell next time what such drawing changed.
    let mut unexplained = None;
    // What the last answer learned of where the window draws without end, handed on.
    let mut restless = crate::pixels::Restless::default();
    let mut known = known;
    if let Some((w, drawn)) = quietly {
        let (owner, path) = (handle.owner(), handle.path());
        if let Some(now) = drawn.now() {
            if let Some((answer, heard)) = w.answer(owner, path).await {
                let asked = quiet::Asked {
                    filters,
                    screen,
                    window: &window,
                    heard,
                    drawn: now,
                    get_all: known.as_ref().is_some_and(|c| c.get_all),
                    derived: known
                        .as_ref()
                        .map_or(States::empty(), tree::AppCache::derived),
                    x: d.x.as_ref(),
                };
                // Once such drawing was seen, the pixels are kept with the answers after
                // for a while.
                unexplained = answer.unexplained_lately();
                match quiet::again(&bus, drawn, answer, asked).await {
                    quiet::Outcome::Again(again) => {
                        let (mut data, answer) = *again;
                        w.keep_answer(owner, path, answer).await;
                        timing.append(&mut data.timing);
                        data.timing = timing;
                        // Given again, it is this window's latest read; an element read
                        // anew in it is numbered.
                        let refs = desktop_core::Desktop::refs_path(d);
                        pipeline::number(ids_kept(&refs), &mut data)?;
                        return Ok(data);
                    }
                    // Chromium changes which elements show as a page scrolls without a
                    // signal: its cache is asked again, and the states the window's mirror
                    // remembers.
                    quiet::Outcome::Drew(at, r)
                        if known.as_ref().is_some_and(tree::AppCache::scrolls_silently) =>
                    {
                        restless = r;
                        timing.push(("drew", 1.0));
                        drew = Some(at);
                        unexplained = Some(Instant::now());
                        w.restate(owner, path).await;
                        let (_, cache) = w
                            .app_afresh(&d.bus, owner)
                            .await
                            .map_err(|e| app_error(e, &window.app, d.timeout))?;
                        known = Some(cache);
                    }
                    quiet::Outcome::Drew(_, r) => {
                        restless = r;
                        unexplained = Some(Instant::now());
                    }
                    quiet::Outcome::Read(r) => restless = r,
                }
            }
            seen = w.changes(owner).await.map(|heard| (heard, now));
        }
    }
    // Captured after the drawing's count and before the read: whatever changes meanwhile
    // is drawn after that count, so compared next time.
    let t = Instant::now();
    let pixels = match (&d.x, seen.is_some() && unexplained.is_some()) {
        (Some(x), true) => quiet::shown(&window, screen).and_then(|a| x.capture(a).ok()),
        _ => None,
    };
    if pixels.is_some() {
        timing.push(("capture", t.elapsed().as_secs_f64() * 1000.0));
    }
    // A long-lived process reads through its mirror of the window, unless the caller
    // brought its own memo (`observe`), which is kept at hand: its reads take from the last.
    let (read, theirs) = match (&d.warm, memo, known) {
        (Some(w), None, Some(cache)) => {
            // Chromium changes which elements show as its page scrolls, without a signal:
            // where no look at the drawing above had its states asked again, a walk of what
            // shows asks them again if the window drew since they were last asked (a read
            // after a silent scroll left out what came back into view, `--test mirror`),
            // and always where nothing counts the drawing (Wayland).
            let showing = match (&w.drawn, limits.skip_hidden && cache.scrolls_silently()) {
                (_, false) => Showing::Signalled,
                (Some(_), true) if drew.is_some() => Showing::Signalled,
                (Some(drawn), true) => match (drawn.now(), quiet::shown(&window, screen)) {
                    (Some(_), Some(area)) => Showing::Drawn { drawn, area },
                    _ => Showing::Asked,
                },
                (None, true) => Showing::Asked,
            };
            let read = w.walk(&bus, &handle, limits, Some(&d.cells), cache, showing);
            (read.await, None)
        }
        (_, mut memo, known) => {
            let read = tree::read_subtree_with(
                &bus,
                &handle,
                limits,
                Some(&d.cells),
                memo.as_deref_mut(),
                known,
            );
            (read.await, memo)
        }
    };
    let (mut root, stats) = read.map_err(|e| app_error(e, &window.app, d.timeout))?;
    d.cells.save();
    let t = Instant::now();
    let visible_only = filters.visible_only;
    clues::gather(&bus, &mut root.children, visible_only, |n| {
        theirs.as_deref().and_then(|m| m.clue(n))
    })
    .await
    .map_err(|e| app_error(e, &window.app, d.timeout))?;
    timing.push(("clues", t.elapsed().as_secs_f64() * 1000.0));
    // The memo takes this read in, and says which elements' boxes it leaves out.
    let mut spared = HashSet::new();
    if let Some(m) = theirs {
        spared = m.read_done(&root.children, |x| clues::is_candidate(x, visible_only));
        timing.push(("spared", spared.len() as f64));
    }
    timing.push(("cache", stats.cache_ms));
    timing.push(("walk", stats.walk_ms));
    timing.push(("cache_items", stats.cache_items as f64));
    timing.push(("walked", stats.walked as f64));
    if stats.beside > 0 {
        timing.push(("beside", stats.beside as f64));
    }
    let want = hydrate::Want {
        bounds: true,
        values: true,
        actions: filters.actions,
        skip_pass_through: !filters.full,
    };
    let (app, timeout) = (window.app.clone(), d.timeout);
    // GTK 4 reports boxes from its window's corner, and every toolkit on Wayland (which
    // tells no client where its window is): moved to the screen's. A window the window
    // system does not place keeps them so, and the read says they are the window's.
    let relative = d.wl.is_some() || stats.window_relative;
    // The frame's own box says where the boxes' origin is in the window (GTK 4.10+ puts it
    // 5 px inside the frame's corner on X11; client-side shadows on Wayland).
    let shift = match window.bounds {
        Some(w) if relative => {
            let frame = crate::bus::extents(&bus, &handle).await;
            Some(crate::wayland::shift(frame, w))
        }
        _ => None,
    };
    let window_boxes = relative && shift.is_none();
    let walked = Walked {
        window,
        children: root.children,
        incomplete: stats.incomplete.map(str::to_string),
        timing,
    };
    let hydrate = async |nodes: &mut Vec<desktop_core::Node>| {
        hydrate::hydrate_sparing(&bus, nodes, want, |n| spared.contains(n.handle.path()))
            .await
            .map_err(|e| app_error(e, &app, timeout))?;
        if let Some((dx, dy)) = shift {
            for n in nodes.iter_mut() {
                n.shift(dx, dy);
            }
        }
        Ok(())
    };
    let refs = desktop_core::Desktop::refs_path(d);
    let mut data = pipeline::finish(walked, filters, screen, ids_kept(&refs), hydrate).await?;
    data.window_boxes = window_boxes;
    if let (Some(w), Some((heard, drawn))) = (&d.warm, seen) {
        if !window_boxes && data.incomplete.is_none() {
            let seen = quiet::Seen {
                filters,
                screen,
                heard,
                drawn,
                shift: shift.unwrap_or((0, 0)),
                drew,
                pixels,
                unexplained,
                restless,
            };
            let answer = quiet::Answer::new(seen, &data);
            w.keep_answer(handle.owner(), handle.path(), answer).await;
        }
    }
    Ok(data)
}

/// How a read keeps its ids: a read in the background leaves the window read last as it
/// was (ids given without a window name go there).
fn ids_kept(refs: &std::path::Path) -> pipeline::Ids<'_> {
    if crate::warm::is_background() {
        pipeline::Ids::Aside(refs)
    } else {
        pipeline::Ids::Kept(refs)
    }
}
