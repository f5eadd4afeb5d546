//! Runs one parsed step on the desktop with the same command functions the CLI uses, in
//! the working window, mapping screenshot points to the screen. Answers with the text the
//! model gets back.

use super::screen::Screen;
use super::tools::{Act, Space, Spot};
use crate::cli::{
    ClickArgs, Direction, DragArgs, ElementArgs, ElementCmdArgs, FocusArgs, LaunchArgs,
    MouseButton, PressArgs, ScrollArgs, SetValueArgs, TargetArgs, TypeArgs, WaitArgs,
};
use crate::commands::{act, clip, watch};
use desktop_core::{Error, ErrorCode, Result, Target};
use desktop_linux::LinuxDesktop;
use serde_json::{json, Value};
use std::time::Duration;

/// What a step did: the result for the model, and a new working window if it changed.
pub struct Done {
    pub result: Value,
    pub window: Option<TargetArgs>,
}

/// An element id, or a screen point.
type Aim = (Option<u32>, Option<(i32, i32)>);

fn point(screen: &Screen, spot: &Spot) -> Result<Aim> {
    match spot {
        Spot::Element(id) => Ok((Some(*id), None)),
        Spot::Point {
            x,
            y,
            space: Space::Screen,
        } => Ok((None, Some((x.round() as i32, y.round() as i32)))),
        Spot::Point { x, y, space } => {
            let f = screen.frame.ok_or_else(|| {
                Error::invalid_args("no screenshot was sent, so there are no points to click")
                    .suggest("Use element ids from the tree")
            })?;
            Ok((None, Some(f.to_screen(*x, *y, *space))))
        }
    }
}

fn element(id: Option<u32>) -> ElementArgs {
    ElementArgs {
        id,
        ..ElementArgs::default()
    }
}

fn value(r: impl serde::Serialize) -> Value {
    serde_json::to_value(r).unwrap_or(Value::Null)
}

/// Executes one step (never `done` or `ask_user`, which the loop handles).
pub async fn run(
    d: &LinuxDesktop,
    window: &TargetArgs,
    screen: &Screen,
    act: &Act,
    call_timeout: Duration,
) -> Result<Done> {
    let t = window.clone();
    let plain = |r: Value| {
        Ok(Done {
            result: r,
            window: None,
        })
    };
    match act {
        Act::Click { at, button, double } => {
            let (id, xy) = point(screen, at)?;
            let button = match button.as_str() {
                "right" => MouseButton::Right,
                "middle" => MouseButton::Middle,
                _ => MouseButton::Left,
            };
            let a = ClickArgs {
                target: t,
                element: element(id),
                x: xy.map(|p| p.0),
                y: xy.map(|p| p.1),
                button,
                double: *double,
            };
            plain(value(act::click(d, a).await?))
        }
        Act::TypeText { text, id } => {
            let a = TypeArgs {
                target: t,
                input: Some(text.clone()),
                text: None,
                key: None,
                delay: 0,
                id: *id,
                replace: false,
            };
            plain(value(act::type_text(d, a).await?))
        }
        Act::PressKeys { keys } => plain(value(
            act::press(
                d,
                PressArgs {
                    target: t,
                    combo: keys.clone(),
                },
            )
            .await?,
        )),
        Act::Scroll {
            direction,
            amount,
            at,
        } => {
            let direction = match direction.as_str() {
                "up" => Direction::Up,
                "left" => Direction::Left,
                "right" => Direction::Right,
                _ => Direction::Down,
            };
            let (id, xy) = match at {
                Some(s) => point(screen, s)?,
                None => (None, None),
            };
            let a = ScrollArgs {
                target: t,
                direction,
                amount: *amount,
                x: xy.map(|p| p.0),
                y: xy.map(|p| p.1),
                id,
                into_view: false,
            };
            plain(value(act::scroll(d, a).await?))
        }
        Act::Drag { from, to } => {
            let (from_id, f) = point(screen, from)?;
            let (to_id, e) = point(screen, to)?;
            let a = DragArgs {
                target: t,
                from_x: f.map(|p| p.0),
                from_y: f.map(|p| p.1),
                to_x: e.map(|p| p.0),
                to_y: e.map(|p| p.1),
                from_id,
                to_id,
            };
            plain(value(act::drag(d, a).await?))
        }
        Act::Focus { id } => plain(value(
            act::focus(
                d,
                FocusArgs {
                    target: t,
                    id: Some(*id),
                },
            )
            .await?,
        )),
        Act::SwitchWindow { app, title } => {
            let w = d
                .resolve(&Target {
                    app: app.clone(),
                    window: title.clone(),
                    ..Target::default()
                })
                .await?;
            let next = TargetArgs {
                window_id: w.id,
                pid: w.id.is_none().then_some(w.pid),
                ..TargetArgs::default()
            };
            let r = act::focus(
                d,
                FocusArgs {
                    target: next.clone(),
                    id: None,
                },
            )
            .await;
            let mut result = json!({"action": "switch_window", "app": w.app, "title": w.title});
            if let Err(e) = r {
                result["note"] = json!(format!("could not raise it: {}", e.message));
            }
            Ok(Done {
                result,
                window: Some(next),
            })
        }
        Act::Launch { command } => {
            let r = act::launch(
                d,
                LaunchArgs {
                    wait: 30,
                    cmd: command.clone(),
                },
            )
            .await?;
            let next = r
                .extra
                .get("window_id")
                .and_then(Value::as_u64)
                .map(|id| TargetArgs {
                    window_id: Some(id),
                    ..TargetArgs::default()
                });
            Ok(Done {
                result: value(r),
                window: next,
            })
        }
        Act::WaitFor {
            text,
            gone,
            timeout_ms,
        } => {
            let a = WaitArgs {
                target: t,
                for_text: Some(text.clone()),
                for_role: None,
                for_id: None,
                gone: *gone,
                timeout: *timeout_ms,
                interval: 200,
            };
            let r = watch::wait(d, a).await?;
            // The matches carry ids from a read the model has not seen: keep the count only.
            plain(
                json!({"action": "wait_for", "found": !gone, "count": r.get("count").cloned().unwrap_or(Value::Null)}),
            )
        }
        Act::SetValue { id, value: v } => {
            let a = SetValueArgs {
                target: t,
                element: element(Some(*id)),
                value: v.clone(),
            };
            plain(value(act::set_value(d, a).await?))
        }
        Act::Toggle { id } => plain(value(
            act::toggle(
                d,
                ElementCmdArgs {
                    target: t,
                    element: element(Some(*id)),
                },
            )
            .await?,
        )),
        Act::ClipboardGet => {
            let r = tokio::task::spawn_blocking(move || {
                clip::run(crate::cli::ClipboardCmd::Get, call_timeout)
            })
            .await
            .map_err(|e| Error::internal(e.to_string()))??;
            plain(r)
        }
        Act::ClipboardSet { text } => {
            let cmd = crate::cli::ClipboardCmd::Set {
                text: Some(text.clone()),
                text_opt: None,
            };
            let r = tokio::task::spawn_blocking(move || clip::run(cmd, call_timeout))
                .await
                .map_err(|e| Error::internal(e.to_string()))??;
            plain(r)
        }
        Act::Done { .. } | Act::AskUser { .. } => {
            Err(Error::new(ErrorCode::Internal, "not an action"))
        }
    }
}

/// A one-line description of a step for people: `click #12 "Submit" (btn)`.
pub fn describe(screen: &Screen, act: &Act) -> String {
    let el = |id: u32| match screen.element(id) {
        Some(n) if !n.name.is_empty() => format!("#{id} \"{}\" ({})", n.name, n.role.short()),
        Some(n) => format!("#{id} ({})", n.role.short()),
        None => format!("#{id}"),
    };
    let spot = |s: &Spot| match s {
        Spot::Element(id) => el(*id),
        Spot::Point {
            x,
            y,
            space: Space::Normalized,
        } => format!("({x}, {y})/1000"),
        Spot::Point {
            x,
            y,
            space: Space::Screen,
        } => format!("screen ({x}, {y})"),
        Spot::Point { x, y, .. } => format!("({x}, {y}) px"),
    };
    match act {
        Act::Click { at, button, double } => {
            let kind = if *double {
                "double-click"
            } else if button == "left" {
                "click"
            } else {
                "click (right/middle)"
            };
            format!("{kind} {}", spot(at))
        }
        Act::TypeText { text, id } => {
            let shown = match id.and_then(|i| screen.element(i)).or_else(|| {
                if id.is_none() {
                    screen.focused()
                } else {
                    None
                }
            }) {
                Some(n) if n.is_secure() => "•••".to_string(),
                _ => format!("{:?}", text.chars().take(40).collect::<String>()),
            };
            match id {
                Some(i) => format!("type {shown} into {}", el(*i)),
                None => format!("type {shown}"),
            }
        }
        Act::PressKeys { keys } => format!("press {keys}"),
        Act::Scroll {
            direction,
            amount,
            at,
        } => format!(
            "scroll {direction} {amount}{}",
            at.as_ref()
                .map(|s| format!(" at {}", spot(s)))
                .unwrap_or_default()
        ),
        Act::Drag { from, to } => format!("drag {} to {}", spot(from), spot(to)),
        Act::Focus { id } => format!("focus {}", el(*id)),
        Act::SwitchWindow { app, title } => format!(
            "switch to {} {}",
            app.as_deref().unwrap_or(""),
            title
                .as_deref()
                .map(|t| format!("{t:?}"))
                .unwrap_or_default()
        )
        .trim_end()
        .to_string(),
        Act::Launch { command } => format!("launch {}", command.join(" ")),
        Act::WaitFor { text, gone, .. } => {
            format!("wait for {text:?}{}", if *gone { " to go" } else { "" })
        }
        Act::SetValue { id, value } => {
            let shown = if screen.element(*id).is_some_and(|n| n.is_secure()) {
                "•••".to_string()
            } else {
                format!("{:?}", value.chars().take(40).collect::<String>())
            };
            format!("set {} to {shown}", el(*id))
        }
        Act::Toggle { id } => format!("toggle {}", el(*id)),
        Act::ClipboardGet => "read the clipboard".into(),
        Act::ClipboardSet { .. } => "set the clipboard".into(),
        Act::Done { success, summary } => format!(
            "done ({}): {summary}",
            if *success { "success" } else { "failed" }
        ),
        Act::AskUser { question } => format!("ask: {question}"),
    }
}
