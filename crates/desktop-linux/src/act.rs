//! Acting on elements. An element is reached by its recorded handle (checked against its
//! fingerprint, re-found by fingerprint when gone) or by its text; then the element's own
//! accessibility interface acts where it can (works on background windows, needs no
//! pointer), and XTest input at the element's center where it cannot, after making sure
//! the window is raised and focused and the element is showing, enabled and on screen.

use crate::bus::{Bus, CallError, ACTION, COMPONENT, VALUE};
use crate::input::{Button, Keyboard};
use crate::{app_error, filter, tree, LinuxDesktop};
use desktop_core::action::{Acted, ActionResult, ElementState, Route};
use desktop_core::keys::Combo;
use desktop_core::refs::{self, RefMap};
use desktop_core::{
    Caps, Error, ErrorCode, Filters, Handle, Node, Rect, Result, Role, States, Target, WindowInfo,
};
use std::time::{Duration, Instant};
use zbus::zvariant::{OwnedValue, Value};

const EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
/// Actions that mean "activate this", in the spellings of GTK, Chromium and Qt.
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
}

impl Live {
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
        (&self.node.handle.owner, &self.node.handle.path)
    }
}

fn not_interactable(what: &str, n: &Node, suggestion: &str) -> Error {
    Error::new(
        ErrorCode::NotInteractable,
        format!("{} \"{}\" {what}", n.role.short(), n.name),
    )
    .suggest(suggestion)
}

/// The live state of one element: role, states, name, interfaces and bounds.
pub async fn probe(bus: &Bus, handle: &Handle) -> Result<Node, CallError> {
    let (o, p) = (handle.owner.as_str(), handle.path.as_str());
    let (node, extents) = tokio::join!(
        tree::fetch_node(bus, handle.clone(), false),
        bus.call::<_, (i32, i32, i32, i32)>(o, p, COMPONENT, "GetExtents", &(0u32,)),
    );
    let mut node = node?;
    node.bounds = extents.ok().map(|(x, y, w, h)| Rect::new(x, y, w, h));
    if node.states.contains(States::DEFUNCT) {
        return Err(CallError::Gone("the object is defunct".into()));
    }
    if crate::hydrate::has_value(&node) {
        let mut one = [node];
        let want = crate::hydrate::Want {
            bounds: false,
            values: true,
            actions: false,
            skip_pass_through: false,
        };
        crate::hydrate::hydrate(bus, &mut one, want).await?;
        let [n] = one;
        node = n;
    }
    Ok(node)
}

impl LinuxDesktop {
    fn x(&self) -> Result<&crate::x11::X> {
        self.x.as_ref().ok_or_else(|| {
            Error::new(
                ErrorCode::PlatformNotSupported,
                "synthesized input needs an X11 display",
            )
            .suggest(
                "Run under X11 (or Xwayland with DISPLAY set), e.g. in `desktop-cli sandbox up`",
            )
        })
    }

    /// Element `id` of the last read (of the window `scope` names): the recorded handle if
    /// it still shows the same element, else the one element matching its fingerprint.
    pub async fn element_by_id(&self, map: &RefMap, id: u32, scope: &Target) -> Result<Live> {
        let (w, entry) = map.lookup(id, scope)?;
        let bus = self
            .bus
            .with_peer(&entry.handle.owner)
            .await
            .map_err(|e| app_error(e, &w.app, self.timeout))?;
        let window_id = w.window_id.and_then(|i| u32::try_from(i).ok());
        match probe(&bus, &entry.handle).await {
            Ok(node) if refs::same_element(entry, node.role.short(), &node.name) => {
                let mut node = node;
                node.name = entry.name.clone();
                return Ok(Live {
                    node,
                    window_id,
                    id: Some(id),
                    rematched: false,
                    bus,
                });
            }
            Err(CallError::Timeout) => {
                return Err(app_error(CallError::Timeout, &w.app, self.timeout))
            }
            _ => {}
        }
        // The handle is gone or shows something else now: find the element again.
        let target = Target {
            window_id: w.window_id,
            pid: (w.pid != 0).then_some(w.pid),
            window: w.window_id.is_none().then(|| w.title.clone()),
            ..Target::default()
        };
        let window = self.resolve(&target).await.map_err(|e| match e.code {
            ErrorCode::AppNotFound | ErrorCode::WindowNotFound => Error::new(
                ErrorCode::StaleRef,
                format!("the window of element {id} (\"{}\") is gone", w.title),
            )
            .suggest("Run `desktop-cli list` and `read` again"),
            _ => e,
        })?;
        let tree = self.fresh_tree(&window).await?;
        let found = refs::rematch(entry, &tree)?;
        let bus = self
            .bus
            .with_peer(&found.handle.owner)
            .await
            .map_err(|e| app_error(e, &w.app, self.timeout))?;
        let mut node = probe(&bus, &found.handle)
            .await
            .map_err(|e| app_error(e, &w.app, self.timeout))?;
        node.name = entry.name.clone();
        Ok(Live {
            node,
            window_id,
            id: Some(id),
            rematched: true,
            bus,
        })
    }

    /// The one element of the target window whose name is `text` (`exact`) or contains it
    /// (case-insensitive), optionally of `role`. Several: interactive ones win, then whole
    /// names; still several is `AMBIGUOUS_TARGET`, listing them.
    pub async fn element_by_text(
        &self,
        target: &Target,
        text: &str,
        role: Option<&Role>,
        exact: bool,
    ) -> Result<Live> {
        let window = self.resolve(target).await?;
        let tree = self.fresh_tree(&window).await?;
        let needle = text.trim().to_lowercase();
        let mut found: Vec<&Node> = Vec::new();
        for n in &tree {
            n.walk(&mut |x| {
                let name = x.name.trim();
                let hit = if exact {
                    name == text.trim()
                } else {
                    !name.is_empty() && name.to_lowercase().contains(&needle)
                };
                if hit && role.is_none_or(|r| &x.role == r) {
                    found.push(x);
                }
            });
        }
        if found.len() > 1 && found.iter().any(|n| n.is_interactive()) {
            found.retain(|n| n.is_interactive());
        }
        if found.len() > 1 && found.iter().any(|n| n.name.trim().to_lowercase() == needle) {
            found.retain(|n| n.name.trim().to_lowercase() == needle);
        }
        let window_id = window.id.and_then(|i| u32::try_from(i).ok());
        match found.len() {
            0 => Err(Error::new(
                ErrorCode::ElementNotFound,
                format!(
                    "no element named {text:?}{} in {} \"{}\"",
                    role.map(|r| format!(" with role {r}")).unwrap_or_default(),
                    window.app,
                    window.title
                ),
            )
            .suggest("Check the name with `desktop-cli read --text ...`, or drop --exact/--role")),
            1 => {
                let handle = found[0].handle.clone();
                let bus = self
                    .bus
                    .with_peer(&handle.owner)
                    .await
                    .map_err(|e| app_error(e, &window.app, self.timeout))?;
                let mut node = probe(&bus, &handle)
                    .await
                    .map_err(|e| app_error(e, &window.app, self.timeout))?;
                if node.name.is_empty() {
                    node.name = found[0].name.clone();
                }
                Ok(Live {
                    node,
                    window_id,
                    id: None,
                    rematched: false,
                    bus,
                })
            }
            n => {
                let list: Vec<String> = found
                    .iter()
                    .take(10)
                    .map(|c| {
                        let b = c
                            .bounds
                            .map(|b| format!(" at {},{}", b.x, b.y))
                            .unwrap_or_default();
                        format!("{} \"{}\"{b}", c.role.short(), c.name)
                    })
                    .collect();
                Err(Error::new(
                    ErrorCode::AmbiguousTarget,
                    format!("{n} elements match {text:?}: {}", list.join("; ")),
                )
                .suggest("Add --role or --exact, or `read` and act with --id"))
            }
        }
    }

    /// The window's current tree (showing elements, labels lifted), with bounds, for
    /// matching by fingerprint or text.
    async fn fresh_tree(&self, window: &WindowInfo) -> Result<Vec<Node>> {
        let handle = window.handle.clone().ok_or_else(|| {
            Error::new(
                ErrorCode::A11yUnavailable,
                format!("window \"{}\" exposes no accessibility tree", window.title),
            )
        })?;
        let bus = self
            .bus
            .with_peer(&handle.owner)
            .await
            .map_err(|e| app_error(e, &window.app, self.timeout))?;
        let (root, _) = tree::read_subtree(&bus, &handle, tree::Limits::default())
            .await
            .map_err(|e| app_error(e, &window.app, self.timeout))?;
        let filters = Filters {
            visible_only: true,
            ..Filters::default()
        };
        let mut nodes = filter::structural(root.children, &filters);
        let want = crate::hydrate::Want {
            bounds: true,
            values: false,
            actions: false,
            skip_pass_through: true,
        };
        crate::hydrate::hydrate(&bus, &mut nodes, want)
            .await
            .map_err(|e| app_error(e, &window.app, self.timeout))?;
        Ok(nodes)
    }

    /// The state after an action, if it changed. Where a change is expected (check boxes,
    /// values, expanders) it is awaited briefly, since some toolkits apply it asynchronously.
    async fn settle(&self, live: &Live, before: &ElementState) -> Option<ElementState> {
        let n = &live.node;
        let expect_change = n.states.contains(States::CHECKABLE)
            || n.states.contains(States::EXPANDABLE)
            || matches!(
                n.role,
                Role::CheckBox
                    | Role::Toggle
                    | Role::Switch
                    | Role::Radio
                    | Role::Slider
                    | Role::Spin
                    | Role::Input
                    | Role::Combo
            )
            || n.caps.contains(Caps::VALUE);
        let deadline = Instant::now()
            + if expect_change {
                Duration::from_millis(150)
            } else {
                Duration::ZERO
            };
        loop {
            if let Ok(now) = probe(&live.bus, &n.handle).await {
                let after = ElementState::of(&now);
                if &after != before {
                    return Some(after);
                }
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    async fn action_names(&self, live: &Live) -> Result<Vec<String>> {
        let (o, p) = live.h();
        crate::hydrate::action_names(&live.bus, o, p)
            .await
            .map_err(|e| app_error(e, "the app", self.timeout))
    }

    async fn do_action(&self, live: &Live, index: usize) -> Result<bool> {
        let (o, p) = live.h();
        live.bus
            .call::<_, bool>(o, p, ACTION, "DoAction", &(index as i32,))
            .await
            .map_err(|e| app_error(e, "the app", self.timeout))
    }

    /// Runs the element's default ("click") accessibility action; false when it has none.
    async fn default_action(&self, live: &Live, prefer: &[&str]) -> Result<bool> {
        if !live.node.caps.contains(Caps::ACTION) {
            return Ok(false);
        }
        let names = self.action_names(live).await?;
        let pick = prefer
            .iter()
            .chain(DEFAULT_ACTIONS)
            .find_map(|want| names.iter().position(|n| n.eq_ignore_ascii_case(want)));
        match pick {
            Some(i) => self.do_action(live, i).await,
            None => Ok(false),
        }
    }

    /// Raises the element's window and checks that a synthesized event at the element's
    /// center would reach it: showing, enabled, on screen, not covered.
    fn input_point(&self, live: &Live) -> Result<(i32, i32)> {
        let x = self.x()?;
        let n = &live.node;
        if !n.states.contains(States::SHOWING) {
            return Err(not_interactable(
                "is not showing",
                n,
                "Open the view that holds it, or `scroll --id N --into-view`",
            ));
        }
        let bounds = n.bounds.filter(Rect::is_valid).ok_or_else(|| {
            not_interactable(
                "has no place on screen",
                n,
                "Bring it into view: `desktop-cli scroll --id N --into-view`",
            )
        })?;
        let point = x.click_point(bounds)?;
        if let Some(w) = live.window_id {
            x.raise_and_focus(w)?;
            if let Some(top) = x.top_level_at(point.0, point.1) {
                if top != w {
                    return Err(not_interactable(
                        "is covered by another window",
                        n,
                        "Close or move the window on top, or use an accessibility action (`click` without --button/--double)",
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
                "Wait until it is enabled (`desktop-cli wait`), or act on another element",
            ));
        }
        Ok(())
    }

    /// `click`: the default accessibility action for a plain left click, XTest otherwise.
    pub async fn click(&self, live: &Live, button: Button, count: u32) -> Result<ActionResult> {
        Self::check_enabled(live)?;
        let before = ElementState::of(&live.node);
        let route =
            if button == Button::Left && count == 1 && self.default_action(live, &[]).await? {
                Route::A11y
            } else {
                let (x, y) = self.input_point(live)?;
                self.x()?.click(x, y, button, count)?;
                Route::Input
            };
        let mut r = live.result("click", route);
        r.post_state = self.settle(live, &before).await;
        Ok(r)
    }

    /// `hover`: the pointer onto the element's center (the window raised, the element checked).
    pub async fn hover(&self, live: &Live) -> Result<ActionResult> {
        let before = ElementState::of(&live.node);
        let (x, y) = self.input_point(live)?;
        let xc = self.x()?;
        xc.move_pointer(x, y)?;
        xc.sync()?;
        let mut r = live.result("hover", Route::Input);
        r.post_state = self.settle(live, &before).await;
        Ok(r)
    }

    /// `toggle`: only for things that can be checked.
    pub async fn toggle(&self, live: &Live) -> Result<ActionResult> {
        let n = &live.node;
        let checkable = matches!(
            n.role,
            Role::CheckBox | Role::Toggle | Role::Switch | Role::Radio
        ) || n.states.contains(States::CHECKABLE);
        if !checkable {
            return Err(Error::new(ErrorCode::NotCheckable, format!("{} \"{}\" cannot be checked or unchecked", n.role.short(), n.name))
                .suggest("Use `click` for buttons and links; toggle works on check boxes, switches, toggle buttons and radio buttons"));
        }
        Self::check_enabled(live)?;
        let before = ElementState::of(n);
        let route = if self.default_action(live, &["toggle"]).await? {
            Route::A11y
        } else {
            let (x, y) = self.input_point(live)?;
            self.x()?.click(x, y, Button::Left, 1)?;
            Route::Input
        };
        let mut r = live.result("toggle", route);
        r.post_state = self.settle(live, &before).await;
        Ok(r)
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
            .suggest("Use one of the listed names (`read --actions` shows them)"));
        };
        let before = ElementState::of(&live.node);
        if !self.do_action(live, i).await? {
            return Err(Error::new(
                ErrorCode::ActionFailed,
                format!("the app refused action {name:?}"),
            ));
        }
        let mut r = live
            .result("action", Route::A11y)
            .with("name", names[i].clone());
        r.post_state = self.settle(live, &before).await;
        Ok(r)
    }

    /// Gives the element keyboard focus (and raises its window).
    pub async fn focus_element(&self, live: &Live) -> Result<Route> {
        if let (Some(w), Some(x)) = (live.window_id, self.x.as_ref()) {
            x.raise_and_focus(w)?;
        }
        let (o, p) = live.h();
        let grabbed = live
            .bus
            .call::<_, bool>(o, p, COMPONENT, "GrabFocus", &())
            .await
            .unwrap_or(false);
        if grabbed {
            return Ok(Route::A11y);
        }
        // No GrabFocus: a click at the element focuses it.
        Self::check_enabled(live)?;
        let (x, y) = self.input_point(live)?;
        self.x()?.click(x, y, Button::Left, 1)?;
        Ok(Route::Input)
    }

    /// `focus --id N`.
    pub async fn focus(&self, live: &Live) -> Result<ActionResult> {
        let before = ElementState::of(&live.node);
        let route = self.focus_element(live).await?;
        let mut r = live.result("focus", route);
        r.post_state = self.settle(live, &before).await;
        Ok(r)
    }

    /// `type`: focuses the element (or window) first if given, then types with XTest.
    pub async fn type_text(
        &self,
        live: Option<&Live>,
        window: Option<&WindowInfo>,
        text: &str,
        delay: Duration,
    ) -> Result<ActionResult> {
        let x = self.x()?;
        let before = live.map(|l| ElementState::of(&l.node));
        if let Some(l) = live {
            Self::check_enabled(l)?;
            self.focus_element(l).await?;
        } else if let Some(id) = window
            .and_then(|w| w.id)
            .and_then(|i| u32::try_from(i).ok())
        {
            x.raise_and_focus(id)?;
        }
        Keyboard::new(x)?.type_text(text, delay)?;
        let mut r = match live {
            Some(l) => l.result("type", Route::Input),
            None => ActionResult::new("type", Route::Input),
        };
        r = r.with("chars", text.chars().count());
        if let (Some(l), Some(b)) = (live, before) {
            r.post_state = self.settle(l, &b).await;
        }
        Ok(r)
    }

    /// `press COMBO` (`type --key`).
    pub fn press(&self, window: Option<&WindowInfo>, combo: &Combo) -> Result<ActionResult> {
        let x = self.x()?;
        if let Some(id) = window
            .and_then(|w| w.id)
            .and_then(|i| u32::try_from(i).ok())
        {
            x.raise_and_focus(id)?;
        }
        Keyboard::new(x)?.press(combo)?;
        Ok(ActionResult::new("press", Route::Input))
    }

    /// `set-value`: Value for ranges, EditableText for text; text fields without
    /// EditableText (Chromium) get select-all and typing.
    pub async fn set_value(&self, live: &Live, value: &str) -> Result<ActionResult> {
        let n = &live.node;
        let (o, p) = live.h();
        let read_only = || {
            Error::new(ErrorCode::ReadOnly, format!("{} \"{}\" is read-only", n.role.short(), n.name))
                .suggest("Pick an editable element (inputs, sliders, spin buttons); `read` marks read-only ones with \"ro\"")
        };
        if n.states.contains(States::READ_ONLY) || n.role == Role::Progress {
            return Err(read_only());
        }
        Self::check_enabled(live)?;
        let before = ElementState::of(n);
        let route = if n.caps.contains(Caps::VALUE)
            && !matches!(n.role, Role::Input | Role::Password)
        {
            let v: f64 = value.trim().parse().map_err(|_| {
                Error::invalid_args(format!(
                    "{} \"{}\" takes a number, not {value:?}",
                    n.role.short(),
                    n.name
                ))
                .suggest("Example: --value 42")
            })?;
            let bound = |name: &'static str| async move {
                let raw: Result<OwnedValue, _> = live.bus.property(o, p, VALUE, name).await;
                raw.ok().and_then(|v| f64::try_from(v).ok())
            };
            let (min, max) = tokio::join!(bound("MinimumValue"), bound("MaximumValue"));
            if let (Some(min), Some(max)) = (min, max) {
                if min < max && (v < min || v > max) {
                    return Err(
                        Error::invalid_args(format!("{v} is outside {}..{}", min, max))
                            .suggest(format!("Give a value from {min} to {max}")),
                    );
                }
            }
            live.bus
                .call::<_, ()>(
                    o,
                    p,
                    crate::bus::PROPERTIES,
                    "Set",
                    &(VALUE, "CurrentValue", Value::from(v)),
                )
                .await
                .map_err(|e| app_error(e, "the app", self.timeout))?;
            Route::A11y
        } else if n.caps.contains(Caps::EDITABLE_TEXT) {
            if !n.states.contains(States::EDITABLE) {
                return Err(read_only());
            }
            let ok: bool = live
                .bus
                .call(o, p, EDITABLE_TEXT, "SetTextContents", &(value,))
                .await
                .map_err(|e| app_error(e, "the app", self.timeout))?;
            if !ok {
                return Err(
                    Error::new(ErrorCode::ActionFailed, "the app refused the new text")
                        .suggest("Try `type --id N` instead"),
                );
            }
            Route::A11y
        } else if n.role.is_editable() || n.states.contains(States::EDITABLE) {
            self.focus_element(live).await?;
            let x = self.x()?;
            let mut kb = Keyboard::new(x)?;
            kb.press(&Combo::parse("ctrl+a")?)?;
            if value.is_empty() {
                kb.press(&Combo::parse("backspace")?)?;
            } else {
                kb.type_text(value, Duration::ZERO)?;
            }
            Route::Input
        } else {
            return Err(Error::new(ErrorCode::ActionNotSupported, format!("{} \"{}\" has no value to set", n.role.short(), n.name))
                .suggest("set-value works on text fields, sliders and spin buttons; use click or toggle for others"));
        };
        let mut r = live.result("set-value", route);
        r.post_state = self.settle(live, &before).await;
        Ok(r)
    }

    /// `scroll --id N --into-view`.
    pub async fn scroll_into_view(&self, live: &Live) -> Result<ActionResult> {
        let (o, p) = live.h();
        // 6 = ATSPI_SCROLL_ANYWHERE: the least movement that shows the element.
        let ok = live
            .bus
            .call::<_, bool>(o, p, COMPONENT, "ScrollTo", &(6u32,))
            .await
            .unwrap_or(false);
        if !ok {
            return Err(Error::new(ErrorCode::ActionNotSupported, format!("{} \"{}\" cannot be scrolled into view by the app", live.node.role.short(), live.node.name))
                .suggest("Scroll its container with the wheel: `desktop-cli scroll --direction down --x X --y Y`"));
        }
        let mut r = live.result("scroll", Route::A11y);
        let mut bounds = None;
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            if let Ok(now) = probe(&live.bus, &live.node.handle).await {
                bounds = now.bounds;
                if now.bounds.is_some_and(|b| {
                    self.x
                        .as_ref()
                        .is_none_or(|x| b.is_valid() && x.screen.intersects(&b))
                }) {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        if let Some(e) = r.element.as_mut() {
            e.bounds = bounds;
        }
        r.extra.insert("into_view".into(), true.into());
        Ok(r)
    }
}
