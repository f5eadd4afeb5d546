//! The action commands: click, type, press, focus, scroll, drag, set-value, toggle,
//! action, launch. Arguments are checked before anything is sent to the desktop, so an
//! invalid request types and clicks nothing.

use super::read::target;
use crate::cli::{
    ActionArgs, ClickArgs, Direction, DragArgs, ElementArgs, ElementCmdArgs, FocusArgs, LaunchArgs,
    MouseButton, PressArgs, ScrollArgs, SetValueArgs, TargetArgs, TypeArgs,
};
use desktop_core::action::{ActionResult, Route};
use desktop_core::keys::Combo;
use desktop_core::refs::RefMap;
use desktop_core::role::SHORT_NAMES;
use desktop_core::{Error, Result, Role};
use desktop_linux::act::{Live, TypeOptions};
use desktop_linux::input::{Button, Wheel};
use desktop_linux::{sandbox, LinuxDesktop};
use std::time::Duration;

fn button(b: MouseButton) -> Button {
    match b {
        MouseButton::Left => Button::Left,
        MouseButton::Right => Button::Right,
        MouseButton::Middle => Button::Middle,
    }
}

fn need_element() -> Error {
    Error::invalid_args("name the element with --id N (from `read`) or --text T")
        .suggest("Example: click --id 12, or click --text Save --role btn")
}

/// The element `--id` or `--text` names, found and checked now.
async fn element(d: &LinuxDesktop, t: &TargetArgs, e: &ElementArgs) -> Result<Live> {
    let scope = target(t);
    if let Some(id) = e.id {
        let map = RefMap::load(&sandbox::refs_path());
        return d.element_by_id(&map, id, &scope).await;
    }
    let Some(text) = &e.text else {
        return Err(need_element());
    };
    let role = match &e.role {
        Some(r) => Some(
            Role::parse(r)
                .filter(|r| !matches!(r, Role::Other(_)))
                .ok_or_else(|| {
                    Error::invalid_args(format!("unknown role `{r}`"))
                        .suggest(format!("Known roles: {}", SHORT_NAMES.join(",")))
                })?,
        ),
        None => None,
    };
    d.element_by_text(&scope, text, role.as_ref(), e.exact)
        .await
}

async fn by_id(d: &LinuxDesktop, t: &TargetArgs, id: u32) -> Result<Live> {
    element(
        d,
        t,
        &ElementArgs {
            id: Some(id),
            ..ElementArgs::default()
        },
    )
    .await
}

/// The window `--app/--window/...` names, if any was given.
async fn scoped_window(
    d: &LinuxDesktop,
    t: &TargetArgs,
) -> Result<Option<desktop_core::WindowInfo>> {
    let scope = target(t);
    if scope.is_empty() {
        return Ok(None);
    }
    d.resolve(&scope).await.map(Some)
}

/// Waits until the window at `at` has taken the input sent there (see `settle_at`).
async fn settled(d: &LinuxDesktop, mut r: ActionResult, at: (i32, i32)) -> Result<ActionResult> {
    let ms = d.settle_at(at.0, at.1).await?;
    r.timing.push(("settle", ms));
    Ok(r)
}

pub async fn click(d: &LinuxDesktop, a: ClickArgs) -> Result<ActionResult> {
    let count = if a.double { 2 } else { 1 };
    if let (Some(x), Some(y)) = (a.x, a.y) {
        let xc = d.x.as_ref().ok_or_else(desktop_linux::x11::no_display)?;
        xc.check_on_screen(x, y)?;
        if let Some(id) = scoped_window(d, &a.target)
            .await?
            .and_then(|w| w.id)
            .and_then(|i| u32::try_from(i).ok())
        {
            xc.raise_and_focus(id)?;
        }
        xc.click(x, y, button(a.button), count)?;
        return settled(d, ActionResult::new("click", Route::Input), (x, y))
            .await
            .map(|r| r.with("x", x).with("y", y));
    }
    let live = element(d, &a.target, &a.element).await?;
    d.click(&live, button(a.button), count).await
}

pub async fn hover(d: &LinuxDesktop, a: ClickArgs) -> Result<ActionResult> {
    if let (Some(x), Some(y)) = (a.x, a.y) {
        let xc = d.x.as_ref().ok_or_else(desktop_linux::x11::no_display)?;
        xc.check_on_screen(x, y)?;
        xc.move_pointer(x, y)?;
        return settled(d, ActionResult::new("hover", Route::Input), (x, y))
            .await
            .map(|r| r.with("x", x).with("y", y));
    }
    let live = element(d, &a.target, &a.element).await?;
    d.hover(&live).await
}

pub async fn type_text(d: &LinuxDesktop, a: TypeArgs) -> Result<ActionResult> {
    if let Some(combo) = &a.key {
        let combo = Combo::parse(combo)?;
        if a.id.is_some() {
            return Err(Error::invalid_args("--key presses a combo where the focus is; focus the element first with `focus --id N`")
                .suggest("Or type text into it: type --id N \"text\""));
        }
        let window = scoped_window(d, &a.target).await?;
        return d
            .press(window.as_ref(), std::slice::from_ref(&combo))
            .await
            .map(|mut r| {
                r.action = "type";
                r
            });
    }
    let text = a.input.or(a.text).ok_or_else(|| {
        Error::invalid_args("nothing to type")
            .suggest("Give the text: type \"hello\" (or --text, or --key COMBO)")
    })?;
    if a.replace && a.id.is_none() {
        return Err(Error::invalid_args("replace needs the element's id")
            .suggest("Read the window, then type with --id N --replace"));
    }
    let opts = TypeOptions {
        replace: a.replace,
        delay: Duration::from_millis(a.delay.min(10_000)),
    };
    match a.id {
        Some(id) => {
            let live = by_id(d, &a.target, id).await?;
            d.type_text(Some(&live), None, &text, opts).await
        }
        None => {
            let window = scoped_window(d, &a.target).await?;
            d.type_text(None, window.as_ref(), &text, opts).await
        }
    }
}

pub async fn press(d: &LinuxDesktop, a: PressArgs) -> Result<ActionResult> {
    let combo = Combo::parse(&a.combo)?;
    let window = scoped_window(d, &a.target).await?;
    d.press(window.as_ref(), std::slice::from_ref(&combo))
        .await
        .map(|r| r.with("combo", a.combo))
}

pub async fn focus(d: &LinuxDesktop, a: FocusArgs) -> Result<ActionResult> {
    if let Some(id) = a.id {
        let live = by_id(d, &a.target, id).await?;
        return d.focus(&live).await;
    }
    let window = scoped_window(d, &a.target).await?.ok_or_else(|| {
        Error::invalid_args(
            "name a window (--app, --window, --window-id, --pid) or an element (--id)",
        )
        .suggest("Example: focus --app chromium")
    })?;
    let xc = d.x.as_ref().ok_or_else(desktop_linux::x11::no_display)?;
    let id = window
        .id
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| {
            Error::new(
                desktop_core::ErrorCode::ActionNotSupported,
                format!("window \"{}\" has no X11 window to focus", window.title),
            )
        })?;
    xc.raise_and_focus(id)?;
    let mut r = ActionResult::new("focus", Route::System);
    if xc.focused(&xc.windows()?) == Some(id) {
        r.effect = desktop_core::action::Effect::Confirmed;
    }
    Ok(r.with("app", window.app)
        .with("title", window.title)
        .with("window_id", id))
}

pub async fn scroll(d: &LinuxDesktop, a: ScrollArgs) -> Result<ActionResult> {
    if a.amount == 0 || a.amount > 100 {
        return Err(Error::invalid_args("--amount must be 1 to 100").suggest("Example: --amount 3"));
    }
    let wheel = match a.direction {
        Direction::Up => Wheel::Up,
        Direction::Down => Wheel::Down,
        Direction::Left => Wheel::Left,
        Direction::Right => Wheel::Right,
    };
    let xc = d.x.as_ref().ok_or_else(desktop_linux::x11::no_display)?;
    let mut result = ActionResult::new("scroll", Route::Input);
    let (x, y) = if let (Some(x), Some(y)) = (a.x, a.y) {
        xc.check_on_screen(x, y)?;
        if let Some(id) = scoped_window(d, &a.target)
            .await?
            .and_then(|w| w.id)
            .and_then(|i| u32::try_from(i).ok())
        {
            xc.raise_and_focus(id)?;
        }
        (x, y)
    } else if let Some(id) = a.id {
        let live = by_id(d, &a.target, id).await?;
        if a.into_view {
            return d.scroll_into_view(&live).await;
        }
        if let Some(w) = live.window_id {
            xc.raise_and_focus(w)?;
        }
        let b = live.node.bounds.filter(|b| b.is_valid()).ok_or_else(|| {
            Error::new(
                desktop_core::ErrorCode::NotInteractable,
                "the element has no place on screen",
            )
            .suggest("Use --into-view")
        })?;
        result.id = Some(id);
        xc.click_point(b)?
    } else {
        let window = scoped_window(d, &a.target).await?.ok_or_else(|| {
            Error::invalid_args("scroll where? give --x/--y, --id, or a window (--app ...)")
                .suggest("Example: scroll --app chromium --direction down")
        })?;
        let b = window
            .bounds
            .ok_or_else(|| Error::invalid_args("the window has no bounds"))?;
        if let Some(id) = window.id.and_then(|i| u32::try_from(i).ok()) {
            xc.raise_and_focus(id)?;
        }
        let visible = b;
        let (cx, cy) = visible.center();
        (cx.clamp(0, xc.screen.w - 1), cy.clamp(0, xc.screen.h - 1))
    };
    xc.scroll(x, y, wheel, a.amount)?;
    settled(d, result, (x, y))
        .await
        .map(|r| r.with("x", x).with("y", y).with("amount", a.amount))
}

/// One end of a drag: a point, or the center of an element (with its window).
async fn drag_end(
    d: &LinuxDesktop,
    t: &TargetArgs,
    xy: (Option<i32>, Option<i32>),
    id: Option<u32>,
    which: &str,
) -> Result<((i32, i32), Option<u32>)> {
    let xc = d.x.as_ref().ok_or_else(desktop_linux::x11::no_display)?;
    if let (Some(x), Some(y)) = xy {
        xc.check_on_screen(x, y)?;
        return Ok(((x, y), None));
    }
    let id = id.ok_or_else(|| {
        Error::invalid_args(format!(
            "give the {which} point: --{which}-x/--{which}-y or --{which}-id"
        ))
        .suggest("Example: drag --from-id 4 --to-x 600 --to-y 300")
    })?;
    let live = by_id(d, t, id).await?;
    let b = live.node.bounds.filter(|b| b.is_valid()).ok_or_else(|| {
        Error::new(
            desktop_core::ErrorCode::NotInteractable,
            format!("element {id} has no place on screen"),
        )
        .suggest("Bring it into view with scroll --id N --into-view")
    })?;
    Ok((xc.click_point(b)?, live.window_id))
}

pub async fn drag(d: &LinuxDesktop, a: DragArgs) -> Result<ActionResult> {
    let xc = d.x.as_ref().ok_or_else(desktop_linux::x11::no_display)?;
    let (from, w1) = drag_end(d, &a.target, (a.from_x, a.from_y), a.from_id, "from").await?;
    let (to, w2) = drag_end(d, &a.target, (a.to_x, a.to_y), a.to_id, "to").await?;
    let mut window = w1.or(w2);
    if window.is_none() {
        window = scoped_window(d, &a.target)
            .await?
            .and_then(|w| w.id)
            .and_then(|i| u32::try_from(i).ok());
    }
    if let Some(w) = window {
        xc.raise_and_focus(w)?;
    }
    xc.drag(from, to, Button::Left).await?;
    settled(d, ActionResult::new("drag", Route::Input), to)
        .await
        .map(|r| {
            r.with("from", vec![from.0, from.1])
                .with("to", vec![to.0, to.1])
        })
}

pub async fn set_value(d: &LinuxDesktop, a: SetValueArgs) -> Result<ActionResult> {
    let live = element(d, &a.target, &a.element).await?;
    d.set_value(&live, &a.value).await
}

pub async fn toggle(d: &LinuxDesktop, a: ElementCmdArgs) -> Result<ActionResult> {
    let live = element(d, &a.target, &a.element).await?;
    d.toggle(&live).await
}

pub async fn action(d: &LinuxDesktop, a: ActionArgs) -> Result<ActionResult> {
    if a.name.trim().is_empty() {
        return Err(Error::invalid_args("--name is empty")
            .suggest("`read --actions` lists each element's actions"));
    }
    let live = element(d, &a.target, &a.element).await?;
    d.named_action(&live, a.name.trim()).await
}

pub async fn launch(d: &LinuxDesktop, a: LaunchArgs) -> Result<ActionResult> {
    if a.wait == 0 || a.wait > 600 {
        return Err(Error::invalid_args("--wait must be 1 to 600 seconds"));
    }
    d.launch(&a.cmd, Duration::from_secs(a.wait)).await
}
