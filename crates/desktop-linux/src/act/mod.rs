//! Acting on elements. An element is reached by its recorded handle or by its text
//! (`resolve`); then the element's own accessibility interface acts where it can (works on
//! background windows, needs no pointer), and XTest input at the element's center where it
//! cannot, after making sure the window is raised and focused and the element is showing,
//! enabled and on screen. Every action settles before it answers (`settle`); keyboard
//! input reaches only the element it was meant for (`text`).

mod choice;
pub(crate) use choice::{is_choice, shown_option};
mod date;
mod popup;
mod request;
mod resolve;
mod settle;
mod sheet;
mod taken;
mod text;
mod view;

use crate::bus::Addr;
use resolve::probe;

use crate::bus::{Bus, ACTION};
use crate::{app_error, LinuxDesktop};
use desktop_core::action::{Acted, ActionResult, ElementState, Route};
use desktop_core::keys::Modifier;
use desktop_core::{Button, Caps, Error, ErrorCode, Node, Rect, Result, Role, States};
use settle::{Expect, Watch};

/// Whether an element can be checked and unchecked.
fn checkable(n: &Node) -> bool {
    matches!(
        n.role,
        Role::CheckBox | Role::Toggle | Role::Switch | Role::Radio
    ) || n.states.contains(States::CHECKABLE)
}

/// Actions that mean "activate this", in the spellings of GTK, Chromium and Qt.
/// How long an action's reply may take before the app is asked whether it still answers
/// (see `do_action`).
const NESTED_LOOP_AFTER: std::time::Duration = std::time::Duration::from_millis(300);

const DEFAULT_ACTIONS: &[&str] = &[
    "click",
    "press",
    "activate",
    "jump",
    "toggle",
    "dodefault",
    "open",
    "select",
];

/// An element found and checked just now.
#[derive(Debug, Clone)]
pub struct Live {
    pub node: Node,
    /// Its top-level X window, when known.
    pub window_id: Option<u32>,
    pub id: Option<u32>,
    pub rematched: bool,
    /// A connection that reaches the element's app (directly where the app allows).
    pub bus: Bus,
    /// The app's name, for messages.
    pub app: String,
    /// `Application.ToolkitName` of the app.
    pub toolkit: String,
    /// Its window's title and its app's process, to say what closed when an action
    /// closes them.
    pub window_title: String,
    pub pid: Option<u32>,
    /// Its box is a place on screen; false where it is relative to a window the window
    /// system does not place (Wayland without sway's IPC): then no input aims at it.
    pub placed: bool,
    /// What was added to the toolkit's boxes to put them on screen (GTK 4 and Wayland
    /// report them from the window's corner): every fresh look at an element of this
    /// window is moved the same way ([`Live::probe_again`]).
    pub offset: (i32, i32),
}

impl Live {
    /// The element as its app shows it now, its box on screen as `node`'s is.
    pub(crate) async fn probe_again(
        &self,
        handle: &desktop_core::Handle,
    ) -> std::result::Result<Node, crate::bus::CallError> {
        let mut n = probe(&self.bus, handle).await?;
        n.shift(self.offset.0, self.offset.1);
        Ok(n)
    }

    fn acted(&self) -> Acted {
        Acted {
            role: self.node.role.short().to_string(),
            name: self.node.name.clone(),
            bounds: self.node.bounds,
        }
    }

    fn result(&self, action: &'static str, route: Route) -> ActionResult {
        let mut r = ActionResult::new(action, route);
        r.id = self.id;
        r.element = Some(self.acted());
        r.rematched = self.rematched;
        r
    }

    fn h(&self) -> (&str, &str) {
        (self.node.handle.owner(), self.node.handle.path())
    }

    /// Whether the app's tree changes after it has handled an input, not while (Chromium
    /// and Electron: the page runs in another process).
    pub fn async_tree(&self) -> bool {
        let t = self.toolkit.to_ascii_lowercase();
        t.contains("chrom") || t.contains("electron")
    }

    /// Whether the element's press action is put off: Qt runs a push button's "Press" as
    /// `animateClick`, 100 ms later, the button held down meanwhile (measured: a click by
    /// the action 107 ms whole process, by the pointer 8 ms).
    fn press_is_deferred(&self) -> bool {
        self.toolkit.eq_ignore_ascii_case("Qt")
            && self.node.role == Role::Button
            && !checkable(&self.node)
    }
}

fn not_interactable(what: &str, n: &Node, suggestion: &str) -> Error {
    Error::new(
        ErrorCode::NotInteractable,
        format!("{} \"{}\" {what}", n.role.short(), n.name),
    )
    .suggest(suggestion)
}

/// What a click or toggle of `n` should change.
fn click_expectation(n: &Node) -> Expect {
    let checkable = matches!(
        n.role,
        Role::CheckBox | Role::Toggle | Role::Switch | Role::Radio
    ) || n.states.contains(States::CHECKABLE);
    if checkable {
        // A radio button only ever becomes checked; the others flip.
        let now = n.states.contains(States::CHECKED);
        return Expect::Checked(n.role == Role::Radio || !now);
    }
    if n.states.contains(States::EXPANDABLE) {
        return Expect::Expanded(!n.states.contains(States::EXPANDED));
    }
    if n.role == Role::Tab && !n.states.contains(States::SELECTED) {
        return Expect::Selected;
    }
    Expect::Nothing
}

/// Input at an element refused for want of a place on screen, where the element offered no
/// accessible action either (`offered`: one was looked for): the answer says both, rather
/// than send the agent to the accessible route that just failed (GTK 4.18's check buttons
/// have no action; labwc, mutter and KWin tell no window positions).
fn unreachable_both_ways(live: &Live, what: &str, offered: bool, e: Error) -> Error {
    if e.code != ErrorCode::PlatformNotSupported || !offered {
        return e;
    }
    let n = &live.node;
    Error::new(
        ErrorCode::PlatformNotSupported,
        format!(
            "{what} of {} \"{}\" cannot be done here: {} offers no accessible action for it, and this desktop tells no window positions, so no pointer can reach it",
            n.role.short(),
            n.name,
            live.app
        ),
    )
    .detail(e.message)
    .suggest("Run the app where windows have places on screen: an X11 or sway sandbox (desktop-cli sandbox up, or --wayland sway)")
}

impl LinuxDesktop {
    /// Where synthesized input goes: the X display, or the Wayland compositor.
    pub(crate) fn x(&self) -> Result<crate::seat::Seat<'_>> {
        match (&self.x, &self.wl) {
            (Some(x), _) => Ok(crate::seat::Seat::X(x)),
            (None, Some(w)) => Ok(crate::seat::Seat::Wayland(w)),
            (None, None) => Err(Error::new(
                ErrorCode::PlatformNotSupported,
                "synthesized input needs a display (X11 or Wayland)",
            )
            .suggest("Set DISPLAY or WAYLAND_DISPLAY, or use a headless sandbox")),
        }
    }

    async fn action_names(&self, live: &Live) -> Result<Vec<String>> {
        let (o, p) = live.h();
        crate::hydrate::action_names(&live.bus, o, p)
            .await
            .map_err(|e| app_error(e, &live.app, self.timeout))
    }

    async fn do_action(&self, live: &Live, index: usize) -> Result<bool> {
        let (o, p) = live.h();
        let args = (index as i32,);
        let call = live.bus.call::<_, bool>(o, p, ACTION, "DoAction", &args);
        tokio::pin!(call);
        // Most apps answer at once. One that has not may run the action's own event loop:
        // Qt opens a modal dialog inside the action's handler and replies only once the
        // dialog closes. If the app answers another question meanwhile, its event loop runs
        // and the action is under way: taken (settling then sees what it did). A busy or
        // hung app answers neither.
        if let Ok(r) = tokio::time::timeout(NESTED_LOOP_AFTER, &mut call).await {
            return r.map_err(|e| app_error(e, &live.app, self.timeout));
        }
        let probe = live.bus.property(o, p, crate::bus::ACCESSIBLE, "Name");
        tokio::select! {
            r = &mut call => r.map_err(|e| app_error(e, &live.app, self.timeout)),
            answered = probe => match answered {
                Ok(_) => Ok(true),
                // The probe's own timeout: the app answers nothing.
                Err(_) => call.await.map_err(|e| app_error(e, &live.app, self.timeout)),
            },
        }
    }

    /// Runs the element's default ("click") accessibility action; false when it has none.
    async fn default_action(&self, live: &Live, prefer: &[&str]) -> Result<bool> {
        if !live.node.caps.contains(Caps::ACTION) {
            return Ok(false);
        }
        let names = self.action_names(live).await?;
        // Qt gives list and table items only "Toggle", which adds to or removes from a
        // selection: not what a click does, so a click on them is pointer input.
        let toggles = checkable(&live.node);
        let pick = prefer
            .iter()
            .chain(DEFAULT_ACTIONS)
            .filter(|want| toggles || !want.eq_ignore_ascii_case("toggle"))
            .find_map(|want| names.iter().position(|n| n.eq_ignore_ascii_case(want)));
        match pick {
            Some(i) => self.do_action(live, i).await,
            None => Ok(false),
        }
    }

    /// Refuses input at a screen point where the compositor tells no window positions: a
    /// point an agent has comes from boxes relative to some window, and would land
    /// elsewhere.
    pub(crate) fn check_points(&self, what: &str) -> Result<()> {
        match &self.wl {
            Some(wl) if !wl.positions() => Err(crate::wayland::unplaced(what)),
            _ => Ok(()),
        }
    }

    /// Refuses input aimed at an element whose box is not a place on screen.
    pub(crate) fn check_placed(&self, live: &Live, what: &str) -> Result<()> {
        if live.placed {
            return Ok(());
        }
        self.check_points(what)?;
        Err(Error::new(
            ErrorCode::PlatformNotSupported,
            format!(
                "{what} needs a place on screen: {} \"{}\" has a box relative to its window, whose place the window system does not tell",
                live.node.role.short(),
                live.node.name
            ),
        )
        .suggest("Act through the element's accessibility instead (a plain left click, toggle, set-value, type --id), or list the windows and read again"))
    }

    /// Raises the element's window and checks that a synthesized event at the element's
    /// center would reach it: showing, enabled, placed and on screen, not covered.
    fn input_point(&self, live: &Live) -> Result<(i32, i32)> {
        self.check_placed(live, "pointer input at the element")?;
        let x = self.x()?;
        let n = &live.node;
        if !n.states.contains(States::SHOWING) {
            return Err(not_interactable(
                "is not showing",
                n,
                "Open the view that holds it, or scroll it into view first",
            ));
        }
        let bounds = n.bounds.filter(Rect::is_valid).ok_or_else(|| {
            not_interactable("has no place on screen", n, "Scroll it into view first")
        })?;
        let point = x.click_point(bounds)?;
        if let Some(w) = live.window_id {
            x.raise_and_focus(w)?;
            match x.top_level_at(point.0, point.1) {
                Some(top) if top != x.frame_of(w) => {
                    return Err(not_interactable(
                        "is covered by another window",
                        n,
                        "Close or move the window on top, or use the element's own action (a plain left click)",
                    ));
                }
                Some(_) => {}
                // No window there at all: the element's box lies outside its window.
                None => {
                    return Err(not_interactable(
                        "lies outside its window (nothing is drawn at its place)",
                        n,
                        "Open what holds it (a popup, a menu) or scroll it into view, then read again",
                    ));
                }
            }
        }
        Ok(point)
    }

    fn check_enabled(live: &Live) -> Result<()> {
        if live.node.states.contains(States::DISABLED) {
            return Err(not_interactable(
                "is disabled",
                &live.node,
                "Wait until it is enabled, or act on another element",
            ));
        }
        Ok(())
    }

    /// `click`: the default accessibility action for a plain left click, XTest otherwise
    /// (with the modifiers held around it).
    pub async fn click(
        &self,
        live: &Live,
        button: Button,
        count: u32,
        modifiers: &[Modifier],
    ) -> Result<ActionResult> {
        Self::check_enabled(live)?;
        let before = ElementState::of(&live.node);
        let mut watch = Watch::start(live).await;
        let plain = button == Button::Left && count == 1 && modifiers.is_empty();
        if plain && sheet::is_sheet_cell(&live.node) {
            // Clicking a cell makes it the active one: the sheet does that on request.
            let route = self.deliver_focus(live).await?;
            return self
                .finish(live, "click", route, Expect::Focused, watch, &before)
                .await;
        }
        // Where the press action is put off, the pointer clicks when it can reach the
        // element (on X11: shown, on screen, not covered); else the action still does.
        let point = if plain && live.press_is_deferred() && self.wl.is_none() {
            self.input_point(live).ok()
        } else {
            None
        };
        let route = if point.is_none() && plain && self.default_action(live, &[]).await? {
            Route::A11y
        } else {
            let (x, y) = match point {
                Some(p) => p,
                None => self
                    .input_point(live)
                    .map_err(|e| unreachable_both_ways(live, "a click", plain, e))?,
            };
            let xc = self.x()?;
            // A page handles clicks in its own process and may show two clicks' reactions
            // in separate updates of its tree, the second after the read that follows (a
            // double click's second redraw was missed so): on such a tree each click goes
            // once the one before has been reacted to, as a person's would, well inside a
            // double click's time. The modifiers are held for each click.
            let one_by_one = count > 1 && live.async_tree();
            let (clicks, each) = if one_by_one { (count, 1) } else { (1, count) };
            for i in 0..clicks {
                if i > 0 {
                    watch.reaction().await;
                }
                crate::seat::Keyboard::new(xc)?
                    .holding(modifiers, |xc| xc.click(x, y, button, each))?;
            }
            Route::Input
        };
        // Only a single plain click has a predictable effect on a check box.
        let expect = if plain {
            click_expectation(&live.node)
        } else {
            Expect::Nothing
        };
        self.finish(live, "click", route, expect, watch, &before)
            .await
            .map(|r| request::with_modifiers(r, modifiers))
    }

    /// `hover`: the pointer onto the element's center (the window raised, the element checked).
    pub async fn hover(&self, live: &Live) -> Result<ActionResult> {
        let before = ElementState::of(&live.node);
        let watch = Watch::start(live).await;
        let (x, y) = self.input_point(live)?;
        let xc = self.x()?;
        xc.move_pointer(x, y)?;
        self.finish(live, "hover", Route::Input, Expect::Nothing, watch, &before)
            .await
    }

    /// `toggle`: only for things that can be checked.
    pub async fn toggle(&self, live: &Live) -> Result<ActionResult> {
        let n = &live.node;
        if !checkable(n) {
            return Err(Error::new(ErrorCode::NotCheckable, format!("{} \"{}\" cannot be checked or unchecked", n.role.short(), n.name))
                .suggest("Click buttons and links; toggle works on check boxes, switches, toggle buttons and radio buttons"));
        }
        Self::check_enabled(live)?;
        let before = ElementState::of(n);
        let watch = Watch::start(live).await;
        let route = if self.default_action(live, &["toggle"]).await? {
            Route::A11y
        } else {
            let (x, y) = self
                .input_point(live)
                .map_err(|e| unreachable_both_ways(live, "toggling", true, e))?;
            self.x()?.click(x, y, Button::Left, 1)?;
            Route::Input
        };
        self.finish(live, "toggle", route, click_expectation(n), watch, &before)
            .await
    }

    /// `action --name NAME`: one of the element's own actions.
    pub async fn named_action(&self, live: &Live, name: &str) -> Result<ActionResult> {
        let names = if live.node.caps.contains(Caps::ACTION) {
            self.action_names(live).await?
        } else {
            Vec::new()
        };
        let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(name)) else {
            let n = &live.node;
            return Err(Error::new(
                ErrorCode::ActionNotSupported,
                format!(
                    "{} \"{}\" has no action {name:?}; it has: {}",
                    n.role.short(),
                    n.name,
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            )
            .suggest("Use one of the listed names (a read with actions lists them)"));
        };
        let before = ElementState::of(&live.node);
        let watch = Watch::start(live).await;
        if !self.do_action(live, i).await? {
            return Err(Error::new(
                ErrorCode::ActionFailed,
                format!("the app refused action {name:?}"),
            ));
        }
        let expect = if DEFAULT_ACTIONS.contains(&names[i].to_ascii_lowercase().as_str()) {
            click_expectation(&live.node)
        } else {
            Expect::Nothing
        };
        let r = self
            .finish(live, "action", Route::A11y, expect, watch, &before)
            .await?;
        Ok(r.with("name", names[i].clone()))
    }

    /// `focus --id N`: the element holds the keyboard focus when this answers.
    pub async fn focus(&self, live: &Live) -> Result<ActionResult> {
        let before = ElementState::of(&live.node);
        let watch = Watch::start(live).await;
        let route = self.deliver_focus(live).await?;
        self.finish(live, "focus", route, Expect::Nothing, watch, &before)
            .await
            .map(|mut r| {
                r.effect = desktop_core::action::Effect::Confirmed;
                r
            })
    }

    /// Brings an element the app reports out of view (not showing, or off the screen) into
    /// view before acting on it, as a person would scroll to it; says whether it did. The
    /// app scrolls on its next frame: the element is read back until it shows.
    pub async fn into_view_first(&self, live: &mut Live) -> Result<bool> {
        let screen = self.screen_box();
        let in_view = |n: &Node| {
            n.states.contains(States::SHOWING)
                && n.bounds
                    .filter(Rect::is_valid)
                    .is_some_and(|b| screen.is_none_or(|s| s.intersects(&b)))
        };
        if in_view(&live.node) && !self.half_hidden(live).await {
            return Ok(false);
        }
        let hidden = |n: &Node| !n.states.contains(States::SHOWING);
        let put_away = |n: &Node| {
            not_interactable(
                "is hidden (on a page, in a menu or a section that is not open)",
                n,
                "Open what holds it first (its tab, menu or expander), then read again",
            )
        };
        if self.bring_into_view(live).await?.is_none() {
            // Acting on what no one can see would be a blind act: refused, as input is.
            return if hidden(&live.node) {
                Err(put_away(&live.node))
            } else {
                Ok(false)
            };
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(600);
        while std::time::Instant::now() < deadline {
            if let Ok(mut now) = live.probe_again(&live.node.handle).await {
                if in_view(&now) {
                    if now.name.is_empty() {
                        now.name = std::mem::take(&mut live.node.name);
                    }
                    now.hint = std::mem::take(&mut live.node.hint);
                    now.clickable = live.node.clickable;
                    live.node = now;
                    return Ok(true);
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(15)).await;
        }
        match live.probe_again(&live.node.handle).await {
            Ok(now) if hidden(&now) => Err(put_away(&live.node)),
            _ => Ok(true),
        }
    }

    /// `scroll --id N --into-view`.
    pub async fn scroll_into_view(&self, live: &Live) -> Result<ActionResult> {
        let before = ElementState::of(&live.node);
        let watch = Watch::start(live).await;
        let route = if let Some(route) = self.bring_into_view(&mut live.clone()).await? {
            route
        } else {
            return Err(Error::new(
                ErrorCode::ActionNotSupported,
                format!(
                    "{} \"{}\" cannot be scrolled into view by the app",
                    live.node.role.short(),
                    live.node.name
                ),
            )
            .suggest("Turn the wheel over its container instead"));
        };
        let screen =
            self.screen_box()
                .unwrap_or(Rect::new(i32::MIN / 2, i32::MIN / 2, i32::MAX, i32::MAX));
        let mut r = self
            .finish(
                live,
                "scroll",
                route,
                Expect::InView(screen),
                watch,
                &before,
            )
            .await?;
        if let (Some(e), Ok(now)) = (
            r.element.as_mut(),
            live.probe_again(&live.node.handle).await,
        ) {
            e.bounds = now.bounds;
        }
        r.extra.insert("into_view".into(), true.into());
        Ok(r)
    }

    /// Settles after an action and builds its result.
    async fn finish(
        &self,
        live: &Live,
        action: &'static str,
        route: Route,
        expect: Expect,
        watch: Watch,
        before: &ElementState,
    ) -> Result<ActionResult> {
        let settled = self.settle(live, route, expect, watch, before).await?;
        Ok(settled.into_result(live.result(action, route)))
    }
}
