//! Runs one parsed step on the desktop with the same command functions the CLI uses, in
//! the working window, mapping screenshot points to the screen. Answers with the text the
//! model gets back.

use super::screen::Screen;
use super::tools::{Act, Space, Spot};
use desktop_core::keys;
use desktop_core::request::{Action, ActionRequest, Aim, Element};
use desktop_core::system::Clipboard;
use desktop_core::watch::WaitRequest;
use desktop_core::Desktop;
use desktop_core::{Button, Direction, Error, ErrorCode, Result, Target};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// What a step did: the result for the model, and a new working window if it changed.
#[derive(Debug)]
pub struct Done {
    pub result: Value,
    pub window: Option<Target>,
}

/// Where a step aims: an element by id, or a screen point mapped from the screenshot.
fn aim(screen: &Screen, spot: &Spot) -> Result<Aim> {
    match spot {
        Spot::Element(id) => Ok(Aim::Element(Element::Id(*id))),
        Spot::Point {
            x,
            y,
            space: Space::Screen,
        } => Ok(Aim::Point {
            x: x.round() as i32,
            y: y.round() as i32,
        }),
        Spot::Point { x, y, space } => {
            let f = screen.frame.ok_or_else(|| {
                Error::invalid_args("no screenshot was sent, so there are no points to click")
                    .suggest("Use element ids from the tree")
            })?;
            let (x, y) = f.to_screen(*x, *y, *space);
            Ok(Aim::Point { x, y })
        }
    }
}

fn id(id: u32) -> Aim {
    Aim::Element(Element::Id(id))
}

fn value(r: impl serde::Serialize) -> Value {
    serde_json::to_value(r).unwrap_or(Value::Null)
}

/// One action in the working window, answered with its result for the model.
async fn act_on<D: Desktop>(d: &D, window: &Target, at: Aim, action: Action) -> Result<Done> {
    let req = ActionRequest::new(window.clone(), at, action);
    let t = std::time::Instant::now();
    let r = d.act(&req).await;
    desktop_core::activity::record("agent", &req, &r, t.elapsed());
    let r = r?;
    Ok(Done {
        result: serde_json::to_value(r).unwrap_or(Value::Null),
        window: None,
    })
}

/// The operation a `window` step asks for, its point and size mapped from the screenshot's
/// pixels to the screen (taken as screen units when no screenshot was sent).
fn window_op(
    screen: &Screen,
    op: desktop_tools::agent::WindowOp,
    at: Option<(f64, f64)>,
    size: Option<(f64, f64)>,
) -> desktop_core::winops::WindowOp {
    use desktop_core::winops::WindowOp as W;
    use desktop_tools::agent::WindowOp as A;
    let map = |(x, y): (f64, f64)| match screen.frame {
        Some(f) => f.to_screen(x, y, Space::Image),
        None => (x.round() as i32, y.round() as i32),
    };
    match op {
        A::Move => {
            let (x, y) = map(at.unwrap_or_default());
            W::Move { x, y }
        }
        A::Resize => {
            // A size is the distance between two mapped points.
            let (w, h) = size.unwrap_or_default();
            let (x0, y0) = map((0.0, 0.0));
            let (x1, y1) = map((w, h));
            W::Resize {
                w: x1 - x0,
                h: y1 - y0,
            }
        }
        A::Minimize => W::Minimize,
        A::Maximize => W::Maximize,
        A::Restore => W::Restore,
        A::Fullscreen => W::Fullscreen,
        A::Close => W::Close,
    }
}

/// A window operation on the working window, recorded in the activity log.
async fn act_on_window<D: Desktop>(
    d: &D,
    window: &Target,
    op: desktop_core::winops::WindowOp,
) -> Result<desktop_core::action::ActionResult> {
    let t = std::time::Instant::now();
    let r = desktop_core::winops::run(d, window, op).await;
    let named = window
        .app
        .clone()
        .or_else(|| window.window.clone())
        .unwrap_or_default();
    desktop_core::activity::record_desktop(
        "agent",
        &format!("window {}", op.name()),
        named,
        &r,
        t.elapsed(),
    );
    r
}

/// Executes one step (never `done` or `ask_user`, which the loop handles).
pub async fn run<D: Desktop>(
    d: &D,
    window: &Target,
    screen: &Screen,
    act: &Act,
    call_timeout: Duration,
    clipboard: &Arc<dyn Clipboard + Send + Sync>,
) -> Result<Done> {
    let t = window.clone();
    let plain = |r: Value| {
        Ok(Done {
            result: r,
            window: None,
        })
    };
    match act {
        Act::Click {
            at,
            button,
            double,
            modifiers,
        } => {
            let button: Button = button
                .parse()
                .map_err(|e: String| Error::invalid_args(e).suggest("Use left, right or middle"))?;
            let count = if *double { 2 } else { 1 };
            let modifiers = keys::parse_modifiers(modifiers.iter().map(String::as_str))?;
            let action = Action::Click {
                button,
                count,
                modifiers,
            };
            act_on(d, &t, aim(screen, at)?, action).await
        }
        Act::TypeText { text, id: element } => {
            let at = element.map_or(Aim::Window, id);
            let action = Action::Type {
                text: text.clone(),
                replace: false,
                delay: Duration::ZERO,
            };
            act_on(d, &t, at, action).await
        }
        Act::PressKeys {
            keys,
            repeat,
            id: at,
        } => {
            let combos = keys::sequence([keys.as_str()], *repeat)?;
            let at = at.map_or(Aim::Window, id);
            act_on(d, &t, at, Action::Press { combos }).await
        }
        Act::Scroll {
            direction,
            amount,
            at,
        } => {
            let direction: Direction = direction
                .parse()
                .map_err(|e: String| Error::invalid_args(e))?;
            let at = match at {
                Some(s) => aim(screen, s)?,
                None => Aim::Window,
            };
            let action = Action::Scroll {
                direction,
                amount: *amount,
            };
            act_on(d, &t, at, action).await
        }
        Act::Drag { from, to } => {
            let to = aim(screen, to)?;
            act_on(d, &t, aim(screen, from)?, Action::Drag { to }).await
        }
        Act::Focus { id: element } => act_on(d, &t, id(*element), Action::Focus).await,
        Act::SwitchWindow { app, title } => {
            let w = d
                .resolve(&Target {
                    app: app.clone(),
                    window: title.clone(),
                    ..Target::default()
                })
                .await?;
            let next = Target {
                window_id: w.id,
                pid: w.id.is_none().then_some(w.pid),
                ..Target::default()
            };
            let req = ActionRequest::new(next.clone(), Aim::Window, Action::Focus);
            let t = std::time::Instant::now();
            let r = d.act(&req).await;
            desktop_core::activity::record("agent", &req, &r, t.elapsed());
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
            let t = std::time::Instant::now();
            let r = d.launch(command, Duration::from_secs(30)).await;
            desktop_core::activity::record_launch("agent", command, &r, t.elapsed());
            let r = r?;
            let next = r
                .extra
                .get("window_id")
                .and_then(Value::as_u64)
                .map(|id| Target {
                    window_id: Some(id),
                    ..Target::default()
                });
            Ok(Done {
                result: value(r),
                window: next,
            })
        }
        Act::Window { op, at, size } => {
            let op = window_op(screen, *op, *at, *size);
            let r = act_on_window(d, &t, op).await?;
            Ok(Done {
                result: value(r),
                window: None,
            })
        }
        Act::Menu { path } => {
            let t0 = std::time::Instant::now();
            let r = desktop_core::menu::open(d, &t, path, tokio::time::sleep).await;
            desktop_core::activity::record_desktop("agent", "menu", path.clone(), &r, t0.elapsed());
            plain(value(r?))
        }
        Act::FileDialog { path, action } => {
            use desktop_core::filedialog::{fill, Mode};
            let mode = action.map(|a| match a {
                desktop_tools::agent::FileAction::Open => Mode::Open,
                desktop_tools::agent::FileAction::Save => Mode::Save,
            });
            let t0 = std::time::Instant::now();
            let r = fill(d, &t, path, mode, tokio::time::sleep).await;
            let named = path.clone();
            desktop_core::activity::record_desktop("agent", "file-dialog", named, &r, t0.elapsed());
            plain(value(r?))
        }
        Act::CloseApp { app } => {
            let t0 = std::time::Instant::now();
            let r = desktop_core::winops::close_app(d, app, desktop_core::winops::Force::No).await;
            desktop_core::activity::record_desktop(
                "agent",
                "close-app",
                app.clone(),
                &r,
                t0.elapsed(),
            );
            Ok(Done {
                result: value(r?),
                window: None,
            })
        }
        Act::WaitFor {
            text,
            gone,
            timeout_ms,
        } => {
            let req = WaitRequest {
                target: t,
                text: Some(text.clone()),
                role: None,
                id: None,
                gone: *gone,
                timeout: Duration::from_millis(*timeout_ms),
                interval: Duration::from_millis(200),
            };
            let r = desktop_core::watch::wait(d, &req, tokio::time::sleep).await?;
            // The matches carry ids from a read the model has not seen: keep the count only.
            let count = match r {
                desktop_core::watch::Waited::Seen { elements, .. } => Some(elements.len()),
                desktop_core::watch::Waited::Gone { .. } => None,
            };
            plain(json!({"action": "wait_for", "found": !gone, "count": count}))
        }
        Act::SetValue { id: element, value } => {
            let action = Action::SetValue {
                value: value.clone(),
            };
            act_on(d, &t, id(*element), action).await
        }
        Act::Toggle { id: element } => act_on(d, &t, id(*element), Action::Toggle).await,
        Act::ClipboardGet => {
            // The platform's clipboard may block (X11 waits on the selection's owner).
            let c = Arc::clone(clipboard);
            let text = tokio::task::spawn_blocking(move || c.get(call_timeout))
                .await
                .map_err(|e| Error::internal(e.to_string()))??;
            plain(match text {
                Some(text) => json!({ "text": text }),
                None => json!({ "text": "", "empty": true }),
            })
        }
        Act::ClipboardSet { text } => {
            let text = text.clone();
            let c = Arc::clone(clipboard);
            let chars = text.chars().count();
            tokio::task::spawn_blocking(move || c.set(&text, call_timeout))
                .await
                .map_err(|e| Error::internal(e.to_string()))??;
            plain(json!({ "chars": chars }))
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
        Act::Click {
            at,
            button,
            double,
            modifiers,
        } => {
            let held = if modifiers.is_empty() {
                String::new()
            } else {
                format!("{}+", modifiers.join("+"))
            };
            let kind = if *double {
                "double-click"
            } else if button == "left" {
                "click"
            } else {
                "click (right/middle)"
            };
            format!("{held}{kind} {}", spot(at))
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
        Act::PressKeys { keys, repeat, id } => format!(
            "press {keys}{}{}",
            if *repeat > 1 {
                format!(" ×{repeat}")
            } else {
                String::new()
            },
            id.map(|i| format!(" into {}", el(i))).unwrap_or_default()
        ),
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
        Act::Window { op, .. } => format!("window {}", op.as_str()),
        Act::CloseApp { app } => format!("close the app {app}"),
        Act::Menu { path } => format!("open the menu item {path:?}"),
        Act::FileDialog { path, .. } => format!("choose the file {path} in the file dialog"),
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

#[cfg(test)]
mod tests {
    //! A model's steps on the in-memory desktop: each becomes the request it should, lands on
    //! the element it names, and a bad step reaches nothing.

    use super::*;
    use desktop_core::fake::{el, refs_file, FakeDesktop};
    use desktop_core::{Filters, Node, Role, States};

    fn form() -> Vec<Node> {
        let mut agree = el(Role::CheckBox, "Agree", (10, 100, 80, 20), vec![]);
        agree.states.insert(States::CHECKABLE);
        let mut name = el(Role::Input, "Name", (10, 40, 200, 20), vec![]);
        name.states.insert(States::EDITABLE);
        vec![el(
            Role::Group,
            "Form",
            (0, 0, 400, 300),
            vec![
                name,
                el(Role::Button, "Save", (10, 200, 60, 24), vec![]),
                agree,
            ],
        )]
    }

    fn run_step(d: &FakeDesktop, screen: &Screen, act: Act) -> Result<Done> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(run(
            d,
            &Target::default(),
            screen,
            &act,
            Duration::from_secs(1),
            &crate::run_tests::services().clipboard,
        ))
    }

    /// The desktop and what the model saw: a read with ids.
    fn setup(test: &str) -> (FakeDesktop, Screen, impl Fn(&str) -> u32) {
        let d = FakeDesktop::new("demo", "Form", form(), refs_file(test));
        let data = desktop_core::fake::block_on(d.read_and_record(&Filters {
            visible_only: true,
            ..Filters::default()
        }))
        .unwrap();
        let ids: Vec<(String, u32)> = {
            let mut v = Vec::new();
            for n in &data.elements {
                n.walk(&mut |x| v.push((x.name.clone(), x.id)));
            }
            v
        };
        let id = move |name: &str| ids.iter().find(|(n, _)| n == name).unwrap().1;
        let screen = Screen {
            data: Some(data),
            text: String::new(),
            frame: None,
            image: None,
        };
        (d, screen, id)
    }

    #[test]
    fn steps_land_on_the_elements_they_name() {
        let (d, screen, id) = setup("agent-steps");
        let click = Act::Click {
            at: Spot::Element(id("Save")),
            button: "left".into(),
            double: false,
            modifiers: Vec::new(),
        };
        run_step(&d, &screen, click).unwrap();
        run_step(&d, &screen, Act::Toggle { id: id("Agree") }).unwrap();
        let typed = Act::TypeText {
            text: "Ada".into(),
            id: Some(id("Name")),
        };
        let done = run_step(&d, &screen, typed).unwrap();
        assert_eq!(done.result["effect"], "confirmed", "{}", done.result);
        let save = d.node("/fake/3").unwrap();
        assert_eq!(save.name, "Save");
        assert_eq!(
            d.inputs(),
            ["click /fake/3", "toggle /fake/4", "type /fake/2 Ada"]
        );
    }

    #[test]
    fn a_bad_step_reaches_nothing() {
        let (d, screen, id) = setup("agent-bad");
        let odd = Act::Click {
            at: Spot::Element(id("Save")),
            button: "primary".into(),
            double: false,
            modifiers: Vec::new(),
        };
        assert_eq!(
            run_step(&d, &screen, odd).unwrap_err().code,
            ErrorCode::InvalidArgs
        );
        // A point in screenshot pixels needs a screenshot to map from.
        let point = Act::Click {
            at: Spot::Point {
                x: 5.0,
                y: 5.0,
                space: Space::Image,
            },
            button: "left".into(),
            double: false,
            modifiers: Vec::new(),
        };
        assert_eq!(
            run_step(&d, &screen, point).unwrap_err().code,
            ErrorCode::InvalidArgs
        );
        let typed_on_button = Act::TypeText {
            text: "x".into(),
            id: Some(id("Save")),
        };
        let e = run_step(&d, &screen, typed_on_button).unwrap_err();
        assert_eq!(e.code, ErrorCode::ActionNotSupported);
        assert!(d.inputs().is_empty(), "{:?}", d.inputs());
    }

    #[test]
    fn the_clipboard_steps_use_the_platform_clipboard() {
        let (d, screen, _) = setup("agent-exec-clipboard");
        let services = crate::run_tests::services();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let step = |act: Act| {
            rt.block_on(run(
                &d,
                &Target::default(),
                &screen,
                &act,
                Duration::from_secs(1),
                &services.clipboard,
            ))
            .unwrap()
            .result
        };
        assert_eq!(step(Act::ClipboardGet), json!({"text": "", "empty": true}));
        let set = Act::ClipboardSet {
            text: "héllo".into(),
        };
        assert_eq!(step(set), json!({"chars": 5}));
        assert_eq!(step(Act::ClipboardGet), json!({"text": "héllo"}));
    }
}
