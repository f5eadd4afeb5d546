//! One entry point for every action: an [`ActionRequest`] is validated, its aim found (an
//! element by id or text, a screen point, a window), and handed to the action's own code.

use super::{text::TypeOptions, Live};
use crate::seat::Keyboard;
use crate::LinuxDesktop;
use desktop_core::action::{ActionResult, Effect, Route};
use desktop_core::keys::Modifier;
use desktop_core::{
    Action, ActionRequest, Aim, Button, Direction, Element, Error, ErrorCode, Rect, Result, Role,
    Target, WindowInfo,
};

impl LinuxDesktop {
    /// Carries out one request and answers once it has settled (see `settle`).
    pub(crate) async fn perform(&self, req: &ActionRequest) -> Result<ActionResult> {
        req.validate()?;
        let scope = &req.scope;
        match (&req.aim, &req.action) {
            (
                Aim::Point { x, y },
                Action::Click {
                    button,
                    count,
                    modifiers,
                },
            ) => {
                self.check_points("a click at a point")?;
                let xc = self.x()?;
                xc.check_on_screen(*x, *y)?;
                self.raise_scoped(scope).await?;
                // On a page, clicks go one by one, each once the page reacted to the one
                // before, as on an element (`LinuxDesktop::click`).
                let mut page = if *count > 1 {
                    self.page_watch_at(*x, *y).await
                } else {
                    None
                };
                let (clicks, each) = if page.is_some() {
                    (*count, 1)
                } else {
                    (1, *count)
                };
                for i in 0..clicks {
                    if let (true, Some(w)) = (i > 0, page.as_mut()) {
                        w.reaction().await;
                    }
                    Keyboard::new(xc)?.holding(modifiers, |xc| xc.click(*x, *y, *button, each))?;
                }
                let r = with_modifiers(ActionResult::new("click", Route::Input), modifiers)
                    .with("x", *x)
                    .with("y", *y);
                self.at_point(r, (*x, *y)).await
            }
            (Aim::Point { x, y }, Action::Hover) => {
                self.check_points("moving the pointer to a point")?;
                let xc = self.x()?;
                xc.check_on_screen(*x, *y)?;
                xc.move_pointer(*x, *y)?;
                let r = ActionResult::new("hover", Route::Input)
                    .with("x", *x)
                    .with("y", *y);
                self.at_point(r, (*x, *y)).await
            }
            (Aim::Point { x, y }, Action::Scroll { direction, amount }) => {
                self.check_points("turning the wheel at a point")?;
                self.x()?.check_on_screen(*x, *y)?;
                self.raise_scoped(scope).await?;
                self.wheel(
                    ActionResult::new("scroll", Route::Input),
                    (*x, *y),
                    *direction,
                    *amount,
                )
                .await
            }
            (Aim::Window, Action::Scroll { direction, amount }) => {
                let window = self.scoped(scope).await?.ok_or_else(|| {
                    Error::invalid_args("scroll where? give a point, an element or a window")
                        .suggest("Name the window by app or title")
                })?;
                if window.bounds.is_none() {
                    self.check_points("turning the wheel over a window")?;
                }
                let b = window
                    .bounds
                    .ok_or_else(|| Error::invalid_args("the window has no bounds"))?;
                let xc = self.x()?;
                if let Some(id) = window_id(&window) {
                    xc.raise_and_focus(id)?;
                }
                let (cx, cy) = b.center();
                let s = xc.screen();
                let at = (cx.clamp(s.x, s.x + s.w - 1), cy.clamp(s.y, s.y + s.h - 1));
                self.wheel(
                    ActionResult::new("scroll", Route::Input),
                    at,
                    *direction,
                    *amount,
                )
                .await
            }
            (Aim::Element(e), Action::Scroll { direction, amount }) => {
                let live = self.element(scope, e).await?;
                self.check_placed(&live, "turning the wheel over the element")?;
                let xc = self.x()?;
                if let Some(w) = live.window_id {
                    xc.raise_and_focus(w)?;
                }
                let b = on_screen(&live)?;
                let at = xc.click_point(b)?;
                let mut r = ActionResult::new("scroll", Route::Input);
                r.id = live.id;
                self.wheel(r, at, *direction, *amount).await
            }
            (Aim::Window, Action::Type { text, delay, .. }) => {
                let window = self.scoped(scope).await?;
                let opts = TypeOptions {
                    replace: false,
                    delay: *delay,
                };
                self.type_text(None, window.as_ref(), text, opts).await
            }
            (Aim::Window, Action::Press { combos }) => {
                let window = self.scoped(scope).await?;
                self.press(window.as_ref(), combos).await
            }
            (Aim::Element(e), Action::Press { combos }) => {
                let live = self.element(scope, e).await?;
                self.press_into(&live, combos).await
            }
            (Aim::Window, Action::Focus) => {
                let window = self.scoped(scope).await?.ok_or_else(|| {
                    Error::invalid_args("name a window (app, title, id, pid) or an element")
                        .suggest("Example: focus the window of app chromium")
                })?;
                self.focus_window(&window)
            }
            (from, Action::Drag { to }) => self.drag(scope, from, to).await,
            (Aim::Element(e), action) => {
                let found = std::time::Instant::now();
                let mut live = self.element(scope, e).await?;
                // What a hidden window's app showed may be stale: found again once it shows.
                let raised = self.uncover(&live).await?;
                if raised {
                    live = self.element(scope, e).await?;
                }
                if let Action::Click { .. } = action {
                    // An option of a closed combo: chosen through its combo, never a
                    // click where its popup would be.
                    if let Some(r) = self.choose_closed_option(&live).await? {
                        return Ok(r);
                    }
                }
                let scrolled = !matches!(action, Action::ScrollIntoView)
                    && self.into_view_first(&mut live).await?;
                let find_ms = found.elapsed().as_secs_f64() * 1000.0;
                let mut r = self.on_element(&live, action).await?;
                r.timing.insert(0, ("find", find_ms));
                if raised {
                    r = r.with("raised_window", true);
                }
                Ok(if scrolled {
                    r.with("scrolled_into_view", true)
                } else {
                    r
                })
            }
            (aim, action) => Err(Error::invalid_args(format!(
                "{} does not work on {}",
                action.name(),
                match aim {
                    Aim::Point { .. } => "a screen point",
                    _ => "a whole window",
                }
            ))
            .suggest("Name the element by its id or text")),
        }
    }

    /// An action on one element, found and checked just now.
    async fn on_element(&self, live: &Live, action: &Action) -> Result<ActionResult> {
        match action {
            Action::Click {
                button,
                count,
                modifiers,
            } => self.click(live, *button, *count, modifiers).await,
            Action::Hover => self.hover(live).await,
            Action::Type {
                text,
                replace,
                delay,
            } => {
                let opts = TypeOptions {
                    replace: *replace,
                    delay: *delay,
                };
                self.type_text(Some(live), None, text, opts).await
            }
            Action::Focus => self.focus(live).await,
            Action::ScrollIntoView => self.scroll_into_view(live).await,
            Action::SetValue { value } => self.set_value(live, value).await,
            Action::Toggle => self.toggle(live).await,
            Action::Named { name } => self.named_action(live, name.trim()).await,
            Action::Press { .. } | Action::Scroll { .. } | Action::Drag { .. } => {
                Err(Error::internal("routed before reaching an element"))
            }
        }
    }

    /// The element an aim names: by id from the ref map of this desktop, or by text.
    pub async fn element(&self, scope: &Target, e: &Element) -> Result<Live> {
        match e {
            Element::Id(id) => {
                let path = desktop_core::Desktop::refs_path(self);
                self.element_by_id(&path, *id, scope).await
            }
            Element::Text { text, role, exact } => {
                self.element_by_text(scope, text, role.as_ref(), *exact)
                    .await
            }
        }
    }

    /// The window `scope` names, if it names one.
    async fn scoped(&self, scope: &Target) -> Result<Option<WindowInfo>> {
        if scope.is_empty() {
            return Ok(None);
        }
        self.resolve_window(scope).await.map(Some)
    }

    /// Raises and focuses the window `scope` names, if any (input at a point goes there).
    async fn raise_scoped(&self, scope: &Target) -> Result<()> {
        if let Some(id) = self.scoped(scope).await?.as_ref().and_then(window_id) {
            self.x()?.raise_and_focus(id)?;
        }
        Ok(())
    }

    /// Raises and focuses a top-level window.
    fn focus_window(&self, window: &WindowInfo) -> Result<ActionResult> {
        let xc = self.x()?;
        let id = window_id(window).ok_or_else(|| {
            Error::new(
                ErrorCode::ActionNotSupported,
                format!("window \"{}\" has no X11 window to focus", window.title),
            )
        })?;
        xc.raise_and_focus(id)?;
        let mut r = ActionResult::new("focus", Route::System);
        if xc.focused(&xc.windows()?) == Some(id) {
            r.effect = Effect::Confirmed;
        }
        Ok(r.with("app", window.app.clone())
            .with("title", window.title.clone())
            .with("window_id", id))
    }

    /// Turns the wheel at a point and settles.
    async fn wheel(
        &self,
        r: ActionResult,
        at: (i32, i32),
        direction: Direction,
        amount: u32,
    ) -> Result<ActionResult> {
        self.x()?.scroll(at.0, at.1, direction, amount)?;
        self.at_point(r, at)
            .await
            .map(|r| r.with("x", at.0).with("y", at.1).with("amount", amount))
    }

    /// One end of a drag: a point, or an element's center (and its window, role and box).
    async fn drag_end(&self, scope: &Target, aim: &Aim) -> Result<DragEnd> {
        let xc = self.x()?;
        match aim {
            Aim::Point { x, y } => {
                self.check_points("a drag from or to a point")?;
                xc.check_on_screen(*x, *y)?;
                Ok(DragEnd {
                    at: (*x, *y),
                    window: None,
                    item: None,
                })
            }
            Aim::Element(e) => {
                let live = self.element(scope, e).await?;
                self.check_placed(&live, "a drag from or to the element")?;
                let b = on_screen(&live)?;
                Ok(DragEnd {
                    at: xc.click_point(b)?,
                    window: live.window_id,
                    item: Some((live.node.role.clone(), b)),
                })
            }
            Aim::Window => Err(Error::invalid_args(
                "a drag goes between points or elements",
            )),
        }
    }

    async fn drag(&self, scope: &Target, from: &Aim, to: &Aim) -> Result<ActionResult> {
        let from = self.drag_end(scope, from).await?;
        let to = self.drag_end(scope, to).await?;
        let start = from.at;
        let end = into_place(&from, &to);
        let window = match from.window.or(to.window) {
            Some(w) => Some(w),
            None => self.scoped(scope).await?.as_ref().and_then(window_id),
        };
        let xc = self.x()?;
        if let Some(w) = window {
            xc.raise_and_focus(w)?;
        }
        xc.drag(start, end, Button::Left).await?;
        self.at_point(ActionResult::new("drag", Route::Input), end)
            .await
            .map(|r| {
                r.with("from", vec![start.0, start.1])
                    .with("to", vec![end.0, end.1])
            })
    }

    /// Settles input sent at a point (see `settle_at`).
    async fn at_point(&self, mut r: ActionResult, at: (i32, i32)) -> Result<ActionResult> {
        let (ms, closed) = self.settle_at(at.0, at.1).await?;
        r.timing.push(("settle", ms));
        Ok(super::taken::with_closed(r, closed))
    }
}

/// Says which modifiers a click held (nothing when none).
pub(super) fn with_modifiers(r: ActionResult, mods: &[Modifier]) -> ActionResult {
    if mods.is_empty() {
        return r;
    }
    r.with(
        "modifiers",
        mods.iter().map(|m| m.name()).collect::<Vec<_>>(),
    )
}

/// One end of a drag.
struct DragEnd {
    at: (i32, i32),
    window: Option<u32>,
    /// The element there: its role and box.
    item: Option<(Role, Rect)>,
}

/// Where a drag ends. An item dragged onto another item of the same role in a row or a
/// column (a sortable list, tabs) takes that item's place, as a person drops it: past the
/// middle of the target in the direction of travel, since lists decide before or after
/// by which half the pointer is in (jQuery UI, GTK and Qt alike). Otherwise the target's
/// center.
fn into_place(from: &DragEnd, to: &DragEnd) -> (i32, i32) {
    let (Some((r1, a)), Some((r2, b))) = (&from.item, &to.item) else {
        return to.at;
    };
    if r1 != r2 {
        return to.at;
    }
    let (x, y) = to.at;
    if a.x == b.x && a.w == b.w && a.y != b.y {
        let quarter = b.h / 4;
        return (
            x,
            if b.y < a.y {
                b.y + quarter
            } else {
                b.y + b.h - quarter
            },
        );
    }
    if a.y == b.y && a.h == b.h && a.x != b.x {
        let quarter = b.w / 4;
        return (
            if b.x < a.x {
                b.x + quarter
            } else {
                b.x + b.w - quarter
            },
            y,
        );
    }
    (x, y)
}

fn window_id(w: &WindowInfo) -> Option<u32> {
    w.id.and_then(|i| u32::try_from(i).ok())
}

/// The element's box, when it has one on screen.
fn on_screen(live: &Live) -> Result<Rect> {
    live.node.bounds.filter(Rect::is_valid).ok_or_else(|| {
        Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{} \"{}\" has no place on screen",
                live.node.role.short(),
                live.node.name
            ),
        )
        .suggest("Scroll it into view first")
    })
}
