//! Actions on one element, run on the command's worker thread: through the element's own
//! patterns or action first, `SendInput` otherwise (the window checked in front before any
//! key), and every change read back from the app before it is reported.

use super::element::{self, Did, Live};
use super::{input, windows as sys};
use desktop_core::action::{usable, Effect, Route};
use desktop_core::request::{Action, Aim, Button};
use desktop_core::{Error, ErrorCode, Handle, Node, Result, Role, States};
use std::time::{Duration, Instant};

/// Brings a top-level window to the front and checks that it got there.
pub fn front(hwnd: u64) -> Result<()> {
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

/// Input sent: the answer waits until the app has taken it in (its GUI thread idle again,
/// at most two seconds), so the next command sees what it did.
fn taken(top: u64) {
    let _ = sys::input_idle(top, 2000);
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

fn failed(what: String) -> Error {
    Error::new(ErrorCode::ActionFailed, what).suggest("Read the window again to see its state")
}

fn gone() -> Error {
    Error::new(ErrorCode::StaleRef, "the element is gone").suggest("Read the window again")
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

fn now(h: &Handle) -> Option<Node> {
    element::probe(h).ok().flatten().map(|l| l.node)
}

fn live(n: &Node) -> Result<Live> {
    match element::probe(&n.handle) {
        Ok(Some(l)) => Ok(l),
        Ok(None) => Err(gone()),
        Err(why) => Err(Error::new(
            ErrorCode::AppUnresponsive,
            format!(
                "the app did not answer about {} \"{}\": {why}",
                n.role, n.name
            ),
        )
        .suggest("The app may be busy or hung: wait, or raise --call-timeout")),
    }
}

/// An element's own action that the app did not answer, nor a question after it.
fn unanswered(n: &Node) -> Error {
    Error::new(
        ErrorCode::AppUnresponsive,
        format!(
            "the app did not answer the action on {} \"{}\", nor a question after it",
            n.role, n.name
        ),
    )
    .suggest("The app may be busy or hung: wait, or raise --call-timeout")
}

fn focused(h: &Handle) -> bool {
    now(h).is_some_and(|m| m.states.contains(States::FOCUSED))
}

/// Runs `action` on the element `n` names; the route, the effect seen, and the element as
/// it is afterwards.
pub fn on_element(n: &Node, action: &Action) -> Result<(Route, Effect, Option<Node>)> {
    let mut under_way = false;
    let (route, effect) = run(n, action, &mut under_way)?;
    // An action still under way (its handler runs a modal dialog) keeps the element's
    // provider busy: it is not asked again, the dialog is there to read.
    let after = if under_way { None } else { now(&n.handle) };
    Ok((route, effect, after))
}

/// Runs the action; `under_way` set when the element's own action was taken but had not
/// answered yet (`Did::UnderWay`).
fn run(n: &Node, action: &Action, under_way: &mut bool) -> Result<(Route, Effect)> {
    let top = element::top_of(&n.handle);
    match action {
        Action::Click {
            button,
            count,
            modifiers,
        } => {
            usable(n)?;
            if *button == Button::Left && *count == 1 && modifiers.is_empty() {
                match live(n)?.press() {
                    Did::Done => return Ok((Route::A11y, Effect::Unverifiable)),
                    Did::UnderWay => {
                        *under_way = true;
                        return Ok((Route::A11y, Effect::Unverifiable));
                    }
                    Did::Unanswered => return Err(unanswered(n)),
                    // No action of its own: a click of the pointer.
                    Did::Not(_) => {}
                }
            }
            front(top)?;
            let (x, y) = center(n)?;
            input::click(x, y, *button, *count, modifiers)?;
            taken(top);
            Ok((Route::Input, Effect::Unverifiable))
        }
        Action::Hover => {
            let (x, y) = center(n)?;
            input::move_to(x, y)?;
            Ok((Route::Input, Effect::Unverifiable))
        }
        Action::Focus => {
            front(top)?;
            // The focus through accessibility: a click would press a button or tick a box.
            live(n)?.focus();
            if settle(|| focused(&n.handle)) {
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
        } => type_into(n, top, text, *replace, *delay),
        Action::Press { combos } => {
            front(top)?;
            input::press(combos)?;
            taken(top);
            Ok((Route::Input, Effect::Unverifiable))
        }
        Action::Scroll { direction, amount } => {
            let (x, y) = center(n)?;
            input::scroll(x, y, *direction, *amount)?;
            taken(top);
            Ok((Route::Input, Effect::Unverifiable))
        }
        Action::ScrollIntoView => {
            let l = live(n)?;
            if l.node.states.contains(States::SHOWING) {
                return Ok((Route::A11y, Effect::Confirmed));
            }
            l.scroll_into_view().map_err(|why| {
                Error::new(
                    ErrorCode::ActionNotSupported,
                    format!(
                        "{} \"{}\" cannot be scrolled into view: {why}",
                        n.role, n.name
                    ),
                )
                .suggest("Scroll its list with scroll, then read again")
            })?;
            if settle(|| now(&n.handle).is_some_and(|m| m.states.contains(States::SHOWING))) {
                Ok((Route::A11y, Effect::Confirmed))
            } else {
                Err(failed(format!(
                    "{} \"{}\" is still out of view",
                    n.role, n.name
                )))
            }
        }
        Action::Drag { to } => {
            let from = center(n)?;
            let Aim::Point { x, y } = to else {
                return Err(
                    Error::invalid_args("a drag ends at a point").suggest("Give --to-x/--to-y")
                );
            };
            input::drag(from, (*x, *y))?;
            taken(top);
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
            live(n)?
                .set_value(value)
                .map_err(|e| failed(format!("{} \"{}\" refused the value: {e}", n.role, n.name)))?;
            let same = |v: &str| {
                v == value
                    || matches!((v.parse::<f64>(), value.trim().parse::<f64>()), (Ok(a), Ok(b)) if a == b)
            };
            if settle(|| {
                now(&n.handle)
                    .and_then(|m| m.value)
                    .is_some_and(|v| same(&v))
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
                    ErrorCode::NotCheckable,
                    format!("{} \"{}\" is not a check box or toggle", n.role, n.name),
                )
                .suggest("Use click for other elements"));
            }
            let was = n.states.contains(States::CHECKED);
            let route = match live(n)?.toggle() {
                Did::Done => Route::A11y,
                // Not waited for: its state shows once the dialog it opened is closed.
                Did::UnderWay => {
                    *under_way = true;
                    return Ok((Route::A11y, Effect::Unverifiable));
                }
                Did::Unanswered => return Err(unanswered(n)),
                Did::Not(_) => {
                    front(top)?;
                    let (x, y) = center(n)?;
                    input::click(x, y, Button::Left, 1, &[])?;
                    Route::Input
                }
            };
            if settle(|| now(&n.handle).is_some_and(|m| m.states.contains(States::CHECKED) != was))
            {
                Ok((route, Effect::Confirmed))
            } else {
                Err(failed(format!(
                    "{} \"{}\" did not change its state",
                    n.role, n.name
                )))
            }
        }
        Action::Named { name } => {
            let l = live(n)?;
            let names = l.action_names();
            if !names.iter().any(|a| a.eq_ignore_ascii_case(name)) {
                return Err(Error::new(
                    ErrorCode::ActionNotSupported,
                    format!("{} \"{}\" has no action {name:?}", n.role, n.name),
                )
                .suggest(if names.is_empty() {
                    "It has no action of its own: use click".to_string()
                } else {
                    format!("Its actions: {}", names.join(", "))
                }));
            }
            match l.run_action(name) {
                Did::Done => Ok((Route::A11y, Effect::Unverifiable)),
                Did::UnderWay => {
                    *under_way = true;
                    Ok((Route::A11y, Effect::Unverifiable))
                }
                Did::Not(e) => Err(failed(format!("the action failed: {e}"))),
                Did::Unanswered => Err(unanswered(n)),
            }
        }
    }
}

/// `type` into a field: in front, focused (through accessibility, else a click into it),
/// the keys sent, and the field read back to hold exactly what it held plus the text (or
/// the text alone on replace). A password box is never read.
fn type_into(
    n: &Node,
    top: u64,
    text: &str,
    replace: bool,
    delay: Duration,
) -> Result<(Route, Effect)> {
    usable(n)?;
    if !n.states.contains(States::EDITABLE) {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!("{} \"{}\" takes no text", n.role, n.name),
        )
        .suggest("Type into a text field"));
    }
    front(top)?;
    if !n.states.contains(States::FOCUSED) {
        live(n)?.focus();
        // A text field takes a click safely where accessibility gave no focus.
        if !settle(|| focused(&n.handle)) {
            let (x, y) = center(n)?;
            input::click(x, y, Button::Left, 1, &[])?;
        }
        if !settle(|| focused(&n.handle)) {
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
    let readable = live(n)?.reads_value();
    let before = now(&n.handle).and_then(|m| m.value).unwrap_or_default();
    // Select all and delete to replace (so empty text empties the field), else the caret
    // to the end.
    let keys = if replace {
        "ctrl+a backspace"
    } else {
        "ctrl+end"
    };
    let combos: Vec<_> = keys
        .split(' ')
        .map(desktop_core::keys::Combo::parse)
        .collect::<Result<_>>()?;
    input::press(&combos)?;
    input::type_text(text, delay)?;
    taken(top);
    if n.is_secure() || !readable {
        // A password box's text is never read, and an editor without a value cannot be:
        // what was sent (and taken in) is all that is known.
        return Ok((Route::Input, Effect::Unverifiable));
    }
    let expect = if replace {
        norm(text)
    } else {
        norm(&before) + &norm(text)
    };
    if settle(|| match now(&n.handle) {
        Some(m) => match m.value {
            Some(v) => norm(&v) == expect,
            None => expect.is_empty(),
        },
        None => false,
    }) {
        Ok((Route::Input, Effect::Confirmed))
    } else {
        Err(failed(format!(
            "the text did not appear in {} \"{}\"",
            n.role, n.name
        )))
    }
}
