//! The agent's tools as the model sees them (the strict schemas of their typed parameters in
//! `desktop-tools`, shared in kind with the MCP server's) and the parsing of a model's call
//! into a typed step. A call that does not parse is never executed in part: it becomes an
//! error result.

use super::model::{Call, ToolSpec};
use desktop_tools::agent as a;
use desktop_tools::schema;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Where a point is given: in the screenshot's pixels, or 0-1000 across the screenshot;
/// `Screen` (screen pixels) only for replays, never from a model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Space {
    Image,
    Normalized,
    Screen,
}

/// An element by id, or a point.
#[derive(Clone, Debug, PartialEq)]
pub enum Spot {
    Element(u32),
    Point { x: f64, y: f64, space: Space },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Act {
    Click {
        at: Spot,
        button: String,
        double: bool,
        /// Keys held during the click (`ctrl`, `shift`, ...), checked when it runs.
        modifiers: Vec<String>,
    },
    TypeText {
        text: String,
        id: Option<u32>,
    },
    PressKeys {
        /// Combos separated by spaces, tapped in turn.
        keys: String,
        repeat: u32,
        /// The element the keys go into (focused first); none: where the focus is.
        id: Option<u32>,
    },
    Scroll {
        direction: String,
        amount: u32,
        at: Option<Spot>,
    },
    Drag {
        from: Spot,
        to: Spot,
    },
    Focus {
        id: u32,
    },
    SwitchWindow {
        app: Option<String>,
        title: Option<String>,
    },
    Launch {
        command: Vec<String>,
    },
    /// An operation on the working window; move and resize in the screenshot's pixels
    /// (`Space::Image`), mapped to the screen when run.
    Window {
        op: a::WindowOp,
        at: Option<(f64, f64)>,
        size: Option<(f64, f64)>,
    },
    CloseApp {
        app: String,
    },
    /// A menu item of the working window opened by its path.
    Menu {
        path: String,
    },
    /// The file chooser showing filled with a path and confirmed.
    FileDialog {
        path: String,
        action: Option<a::FileAction>,
    },
    WaitFor {
        text: String,
        gone: bool,
        timeout_ms: u64,
    },
    SetValue {
        id: u32,
        value: String,
    },
    Toggle {
        id: u32,
    },
    ClipboardGet,
    ClipboardSet {
        text: String,
    },
    Done {
        success: bool,
        summary: String,
    },
    AskUser {
        question: String,
    },
}

/// A parsed call: what to do and the model's one-line reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub act: Act,
    pub why: String,
}

/// A tool: its name, what it is for, and the strict schema of its typed parameters.
fn spec<T: JsonSchema>(name: &'static str, description: &'static str) -> ToolSpec {
    ToolSpec {
        name,
        description,
        schema: schema::strict::<T>(),
    }
}

/// Every tool, in a stable order.
pub fn catalogue() -> Vec<ToolSpec> {
    vec![
        spec::<a::Click>("click", "Click an element by id (preferred), or a point of the screenshot."),
        spec::<a::TypeText>("type_text", "Type text, into the element with this id (focused first) or where the keyboard focus is."),
        spec::<a::PressKeys>("press_keys", "Press key combos in turn: enter, tab tab enter, escape, ctrl+a, shift+tab, f5."),
        spec::<a::Scroll>("scroll", "Turn the mouse wheel inside an element, at a point, or in the middle of the window."),
        spec::<a::Drag>("drag", "Drag from one element or point to another."),
        spec::<a::ById>("focus", "Give the keyboard focus to an element."),
        spec::<a::SwitchWindow>("switch_window", "Work in another window from the window list from now on (it is raised)."),
        spec::<a::Launch>("launch", "Start a program and work in its window."),
        spec::<a::Window>("window", "Move, resize, minimize, maximize, restore, make full screen or close the working window."),
        spec::<a::Menu>("menu", "Open a menu item of the window by its path: \"File > Save As\" (a missing level lists what it has)."),
        spec::<a::FileDialog>("file_dialog", "Fill the open or save file chooser that is showing with a path and confirm it."),
        spec::<a::CloseApp>("close_app", "Close every window of an app (an app that asks to save first is reported, unanswered)."),
        spec::<a::WaitFor>("wait_for", "Wait until an element containing this text appears (or, with gone, disappears)."),
        spec::<a::SetValue>("set_value", "Replace the text of a field, or set a slider or spin button, by id."),
        spec::<a::ById>("toggle", "Check or uncheck a check box, switch or toggle button by id."),
        spec::<a::Why>("clipboard_get", "Read the clipboard's text."),
        spec::<a::ClipboardSet>("clipboard_set", "Put text on the clipboard."),
        spec::<a::Done>("done", "Finish: the goal is reached (success true) or cannot be (false)."),
        spec::<a::AskUser>("ask_user", "Stop and ask the user a question when the goal is unclear or needs their decision."),
    ]
}

/// An element id or an x/y point.
fn spot(
    tool: &str,
    id: Option<u32>,
    (x, y): (Option<f64>, Option<f64>),
    space: Option<a::Space>,
    names: (&str, &str),
) -> Result<Option<Spot>, String> {
    if let Some(id) = id {
        return Ok(Some(Spot::Element(id)));
    }
    match (x, y) {
        (Some(x), Some(y)) => {
            let space = match space {
                None | Some(a::Space::Image) => Space::Image,
                Some(a::Space::Normalized) => Space::Normalized,
            };
            if !x.is_finite()
                || !y.is_finite()
                || x < 0.0
                || y < 0.0
                || (space == Space::Normalized && (x > 1000.0 || y > 1000.0))
            {
                return Err(format!(
                    "{tool}: the point ({x}, {y}) is outside the screenshot"
                ));
            }
            Ok(Some(Spot::Point { x, y, space }))
        }
        (None, None) => Ok(None),
        _ => Err(format!("{tool}: give both {} and {}", names.0, names.1)),
    }
}

/// Reads a call's arguments as the tool's typed parameters.
fn args<T: DeserializeOwned>(tool: &str, v: &Value) -> Result<T, String> {
    serde_json::from_value(v.clone()).map_err(|e| format!("{tool}: {e}"))
}

/// Parses a call into a step, or says exactly what is wrong with it.
pub fn parse(call: &Call) -> Result<Step, String> {
    let tool = call.name.as_str();
    if !catalogue().iter().any(|t| t.name == tool) {
        let names: Vec<&str> = catalogue().iter().map(|t| t.name).collect();
        return Err(format!(
            "there is no tool {tool:?}; the tools are {}",
            names.join(", ")
        ));
    }
    let v = match &call.args {
        Value::Object(m) if m.contains_key("__unparsed") => {
            return Err(format!("{tool}: the arguments are not valid JSON"))
        }
        Value::Object(_) => call.args.clone(),
        Value::Null => Value::Object(Map::new()),
        other => {
            return Err(format!(
                "{tool}: the arguments must be an object, not {other}"
            ))
        }
    };
    let need = |s: Option<Spot>, what: &str| s.ok_or_else(|| format!("{tool}: give {what}"));
    let (act, why) = match tool {
        "click" => {
            let p: a::Click = args(tool, &v)?;
            let at = spot(tool, p.id, (p.x, p.y), p.space, ("x", "y"))?;
            let act = Act::Click {
                at: need(at, "an id, or x and y")?,
                button: p.button.unwrap_or(a::MouseButton::Left).as_str().into(),
                double: p.double.unwrap_or(false),
                modifiers: p
                    .modifiers
                    .unwrap_or_default()
                    .into_iter()
                    .map(|m| m.as_str().to_string())
                    .collect(),
            };
            (act, p.why)
        }
        "type_text" => {
            let p: a::TypeText = args(tool, &v)?;
            (
                Act::TypeText {
                    text: p.text,
                    id: p.id,
                },
                p.why,
            )
        }
        "press_keys" => {
            let p: a::PressKeys = args(tool, &v)?;
            let act = Act::PressKeys {
                keys: p.keys,
                repeat: p.repeat.unwrap_or(1),
                id: p.id,
            };
            (act, p.why)
        }
        "scroll" => {
            let p: a::Scroll = args(tool, &v)?;
            let act = Act::Scroll {
                direction: p.direction.as_str().into(),
                amount: p.amount.unwrap_or(3).clamp(1, 25),
                at: spot(tool, p.id, (p.x, p.y), p.space, ("x", "y"))?,
            };
            (act, p.why)
        }
        "drag" => {
            let p: a::Drag = args(tool, &v)?;
            let from = spot(
                tool,
                p.from_id,
                (p.from_x, p.from_y),
                p.space,
                ("from_x", "from_y"),
            )?;
            let to = spot(tool, p.to_id, (p.to_x, p.to_y), p.space, ("to_x", "to_y"))?;
            let act = Act::Drag {
                from: need(from, "from_id, or from_x and from_y")?,
                to: need(to, "to_id, or to_x and to_y")?,
            };
            (act, p.why)
        }
        "focus" => {
            let p: a::ById = args(tool, &v)?;
            (Act::Focus { id: p.id }, p.why)
        }
        "switch_window" => {
            let p: a::SwitchWindow = args(tool, &v)?;
            if p.app.is_none() && p.title.is_none() {
                return Err("switch_window: give app or title".into());
            }
            let act = Act::SwitchWindow {
                app: p.app,
                title: p.title,
            };
            (act, p.why)
        }
        "launch" => {
            let p: a::Launch = args(tool, &v)?;
            if p.command.first().is_none_or(|c| c.trim().is_empty()) {
                return Err("launch: command is empty".into());
            }
            (Act::Launch { command: p.command }, p.why)
        }
        "window" => {
            let p: a::Window = args(tool, &v)?;
            let pair = |a: Option<f64>, b: Option<f64>, names: &str| match (a, b) {
                (Some(a), Some(b)) if a.is_finite() && b.is_finite() => Ok(Some((a, b))),
                (None, None) => Ok(None),
                _ => Err(format!("window: give both {names}, as numbers")),
            };
            let at = pair(p.x, p.y, "x and y")?;
            let size = pair(p.width, p.height, "width and height")?;
            match p.op {
                a::WindowOp::Move if at.is_none() => return Err("window move: give x and y".into()),
                a::WindowOp::Resize if size.is_none() => {
                    return Err("window resize: give width and height".into())
                }
                _ => {}
            }
            (Act::Window { op: p.op, at, size }, p.why)
        }
        "menu" => {
            let p: a::Menu = args(tool, &v)?;
            desktop_core::menu::levels(&p.path).map_err(|e| format!("menu: {}", e.message))?;
            (Act::Menu { path: p.path }, p.why)
        }
        "file_dialog" => {
            let p: a::FileDialog = args(tool, &v)?;
            if p.path.trim().is_empty() {
                return Err("file_dialog: path is empty".into());
            }
            (
                Act::FileDialog {
                    path: p.path,
                    action: p.action,
                },
                p.why,
            )
        }
        "close_app" => {
            let p: a::CloseApp = args(tool, &v)?;
            if p.app.trim().is_empty() {
                return Err("close_app: app is empty".into());
            }
            (Act::CloseApp { app: p.app }, p.why)
        }
        "wait_for" => {
            let p: a::WaitFor = args(tool, &v)?;
            let act = Act::WaitFor {
                text: p.text,
                gone: p.gone.unwrap_or(false),
                timeout_ms: p
                    .timeout_ms
                    .filter(|t| t.is_finite())
                    .unwrap_or(5000.0)
                    .clamp(0.0, 30_000.0) as u64,
            };
            (act, p.why)
        }
        "set_value" => {
            let p: a::SetValue = args(tool, &v)?;
            let act = Act::SetValue {
                id: p.id,
                value: p.value,
            };
            (act, p.why)
        }
        "toggle" => {
            let p: a::ById = args(tool, &v)?;
            (Act::Toggle { id: p.id }, p.why)
        }
        "clipboard_get" => (Act::ClipboardGet, args::<a::Why>(tool, &v)?.why),
        "clipboard_set" => {
            let p: a::ClipboardSet = args(tool, &v)?;
            (Act::ClipboardSet { text: p.text }, p.why)
        }
        "done" => {
            let p: a::Done = args(tool, &v)?;
            let act = Act::Done {
                success: p.success,
                summary: p.summary.unwrap_or_default(),
            };
            (act, None)
        }
        "ask_user" => {
            let p: a::AskUser = args(tool, &v)?;
            (
                Act::AskUser {
                    question: p.question,
                },
                None,
            )
        }
        _ => unreachable!("checked against the catalogue above"),
    };
    Ok(Step {
        act,
        why: why.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: Value) -> Call {
        Call {
            id: "c".into(),
            name: name.into(),
            args,
        }
    }

    #[test]
    fn schemas_are_strict() {
        for t in catalogue() {
            let props = t.schema["properties"].as_object().unwrap();
            let req = t.schema["required"].as_array().unwrap();
            assert_eq!(props.len(), req.len(), "{}", t.name);
            assert_eq!(t.schema["additionalProperties"], false);
            // Nothing strict mode refuses, nothing to look up elsewhere.
            let text = t.schema.to_string();
            for bad in [
                "\"$ref\"",
                "\"$defs\"",
                "\"format\"",
                "\"default\"",
                "\"$schema\"",
            ] {
                assert!(!text.contains(bad), "{}: {bad} in {text}", t.name);
            }
        }
        // Optional parameters are nullable; required ones are not.
        let click = &catalogue()[0].schema["properties"];
        assert_eq!(click["id"]["type"], json!(["integer", "null"]));
        assert_eq!(click["modifiers"]["type"], json!(["array", "null"]));
        let scroll = &catalogue()[3].schema["properties"];
        assert!(
            !scroll["direction"].to_string().contains("null"),
            "{scroll}"
        );
        assert!(click["button"].to_string().contains("middle"), "{click}");
    }

    #[test]
    fn parses_and_refuses() {
        let s = parse(&call("click", json!({"id": 4, "x": null, "y": null, "space": null, "button": null, "double": null, "why": "go"}))).unwrap();
        assert_eq!(
            s.act,
            Act::Click {
                at: Spot::Element(4),
                button: "left".into(),
                double: false,
                modifiers: Vec::new(),
            }
        );
        let p = parse(&call(
            "click",
            json!({"x": 500, "y": 250, "space": "normalized"}),
        ))
        .unwrap();
        assert!(matches!(
            p.act,
            Act::Click {
                at: Spot::Point {
                    space: Space::Normalized,
                    ..
                },
                ..
            }
        ));
        assert!(parse(&call("click", json!({"x": 5})))
            .unwrap_err()
            .contains("both"));
        assert!(parse(&call(
            "click",
            json!({"x": 1200, "y": 5, "space": "normalized"})
        ))
        .is_err());
        assert!(parse(&call("click", json!({"id": "four"}))).is_err());
        // Models write whole numbers as 4.0 at times; 4.5 is no id.
        let whole = parse(&call("toggle", json!({"id": 4.0}))).unwrap();
        assert_eq!(whole.act, Act::Toggle { id: 4 });
        assert!(parse(&call("toggle", json!({"id": 4.5}))).is_err());
        assert!(parse(&call("toggle", json!({}))).is_err());
        let b = parse(&call("click", json!({"id": 2, "button": "back"})));
        assert!(b.unwrap_err().contains("back"));
        assert!(parse(&call("click", json!({"id": 1, "target": 2})))
            .unwrap_err()
            .contains("unknown field `target`"));
        assert!(parse(&call("rm_rf", json!({})))
            .unwrap_err()
            .contains("no tool"));
        assert!(parse(&call("type_text", json!({"__unparsed": "{"}))).is_err());
        assert!(parse(&call("launch", json!({"command": []}))).is_err());
        assert!(parse(&call("done", json!({"summary": "x"}))).is_err());
    }

    #[test]
    fn window_steps_need_their_numbers() {
        let full = |op: &str, x: Value, w: Value| json!({"op": op, "x": x, "y": x, "width": w, "height": w, "why": null});
        let ok = parse(&call("window", full("move", json!(10.0), Value::Null))).unwrap();
        assert_eq!(
            ok.act,
            Act::Window {
                op: a::WindowOp::Move,
                at: Some((10.0, 10.0)),
                size: None
            }
        );
        assert!(parse(&call("window", full("move", Value::Null, Value::Null))).is_err());
        assert!(parse(&call("window", full("resize", Value::Null, Value::Null))).is_err());
        assert!(parse(&call("window", full("explode", Value::Null, Value::Null))).is_err());
        let min = parse(&call("window", full("minimize", Value::Null, Value::Null))).unwrap();
        assert!(matches!(
            min.act,
            Act::Window {
                op: a::WindowOp::Minimize,
                ..
            }
        ));
        assert!(parse(&call("close_app", json!({"app": " ", "why": null}))).is_err());
    }
}
