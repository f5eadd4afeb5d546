//! The agent's tools as the model sees them (strict JSON Schemas: every property required,
//! nullable where optional, no extra keys) and the parsing of a model's call into a typed
//! step. A call that does not parse is never executed in part: it becomes an error result.

use super::model::{Call, ToolSpec};
use serde_json::{json, Map, Value};

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

fn nullable(kind: &str, description: &str) -> Value {
    json!({"type": [kind, "null"], "description": description})
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn choice(options: &[&str], description: &str) -> Value {
    let mut all: Vec<Value> = options.iter().map(|o| json!(o)).collect();
    all.push(Value::Null);
    json!({"type": ["string", "null"], "enum": all, "description": description})
}

/// A strict object schema: every property required, nothing else allowed.
fn object(props: Vec<(&str, Value)>) -> Value {
    let required: Vec<&str> = props.iter().map(|(k, _)| *k).collect();
    let mut properties = Map::new();
    for (k, v) in props {
        properties.insert(k.to_string(), v);
    }
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

const WHY: &str = "One short sentence: why this step.";
const SPACE: &str =
    "What x/y mean: \"image\" = pixels of the latest screenshot, \"normalized\" = 0-1000 across it. Null with an id.";

fn why() -> (&'static str, Value) {
    ("why", string(WHY))
}

/// Every tool, in a stable order.
pub fn catalogue() -> Vec<ToolSpec> {
    let id = |d: &str| nullable("integer", d);
    let num = |d: &str| nullable("number", d);
    vec![
        ToolSpec { name: "click", description: "Click an element by id (preferred), or a point of the screenshot.", schema: object(vec![
            ("id", id("Element id from the latest screen.")),
            ("x", num("Point x (when no id).")), ("y", num("Point y (when no id).")),
            ("space", choice(&["image", "normalized"], SPACE)),
            ("button", choice(&["left", "right", "middle"], "Mouse button (null = left).")),
            ("double", nullable("boolean", "Double-click.")),
            ("modifiers", json!({"type": ["array", "null"], "items": {"type": "string", "enum": ["ctrl", "shift", "alt", "super"]}, "description": "Keys held during the click: ctrl adds to a selection, shift selects a range (null = none)."})), why()]) },
        ToolSpec { name: "type_text", description: "Type text, into the element with this id (focused first) or where the keyboard focus is.", schema: object(vec![
            ("text", string("The text to type.")), ("id", id("Element to type into; null = the focused element.")), why()]) },
        ToolSpec { name: "press_keys", description: "Press key combos in turn: enter, tab tab enter, escape, ctrl+a, shift+tab, f5.", schema: object(vec![
            ("keys", string("Combos separated by spaces, each with keys joined by +.")),
            ("repeat", nullable("integer", "Press the whole sequence this many times (null = 1, at most 200).")),
            ("id", id("Element to press the keys into (focused first); null = where the focus is.")), why()]) },
        ToolSpec { name: "scroll", description: "Turn the mouse wheel inside an element, at a point, or in the middle of the window.", schema: object(vec![
            ("direction", json!({"type": "string", "enum": ["up", "down", "left", "right"]})),
            ("amount", nullable("integer", "Wheel notches (null = 3).")),
            ("id", id("Scroll inside this element.")), ("x", num("Point x.")), ("y", num("Point y.")),
            ("space", choice(&["image", "normalized"], SPACE)), why()]) },
        ToolSpec { name: "drag", description: "Drag from one element or point to another.", schema: object(vec![
            ("from_id", id("Start element.")), ("from_x", num("Start x.")), ("from_y", num("Start y.")),
            ("to_id", id("End element.")), ("to_x", num("End x.")), ("to_y", num("End y.")),
            ("space", choice(&["image", "normalized"], SPACE)), why()]) },
        ToolSpec { name: "focus", description: "Give the keyboard focus to an element.", schema: object(vec![
            ("id", json!({"type": "integer", "description": "Element id."})), why()]) },
        ToolSpec { name: "switch_window", description: "Work in another window from the window list from now on (it is raised).", schema: object(vec![
            ("app", nullable("string", "Application name.")), ("title", nullable("string", "Window title substring.")), why()]) },
        ToolSpec { name: "launch", description: "Start a program and work in its window.", schema: object(vec![
            ("command", json!({"type": "array", "items": {"type": "string"}, "description": "Program and arguments, e.g. [\"gedit\"]."})), why()]) },
        ToolSpec { name: "wait_for", description: "Wait until an element containing this text appears (or, with gone, disappears).", schema: object(vec![
            ("text", string("Text to wait for.")), ("gone", nullable("boolean", "Wait for it to disappear.")),
            ("timeout_ms", nullable("integer", "Give up after (null = 5000, at most 30000).")), why()]) },
        ToolSpec { name: "set_value", description: "Replace the text of a field, or set a slider or spin button, by id.", schema: object(vec![
            ("id", json!({"type": "integer", "description": "Element id."})), ("value", string("The new value.")), why()]) },
        ToolSpec { name: "toggle", description: "Check or uncheck a check box, switch or toggle button by id.", schema: object(vec![
            ("id", json!({"type": "integer", "description": "Element id."})), why()]) },
        ToolSpec { name: "clipboard_get", description: "Read the clipboard's text.", schema: object(vec![why()]) },
        ToolSpec { name: "clipboard_set", description: "Put text on the clipboard.", schema: object(vec![("text", string("The text.")), why()]) },
        ToolSpec { name: "done", description: "Finish: the goal is reached (success true) or cannot be (false).", schema: object(vec![
            ("success", json!({"type": "boolean"})), ("summary", string("What was done, or why not."))]) },
        ToolSpec { name: "ask_user", description: "Stop and ask the user a question when the goal is unclear or needs their decision.", schema: object(vec![
            ("question", string("The question."))]) },
    ]
}

/// The arguments of one call, read leniently (null = absent) but checked strictly.
struct Args<'a> {
    tool: &'a str,
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    fn get(&self, k: &str) -> Option<&'a Value> {
        self.map.get(k).filter(|v| !v.is_null())
    }
    fn str(&self, k: &str) -> Result<Option<String>, String> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(format!("{}: {k} must be a string, not {v}", self.tool)),
        }
    }
    fn need_str(&self, k: &str) -> Result<String, String> {
        self.str(k)?
            .ok_or_else(|| format!("{}: {k} is required", self.tool))
    }
    fn id(&self, k: &str) -> Result<Option<u32>, String> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .or_else(|| {
                    v.as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                        .map(|f| f as u64)
                })
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| {
                    format!(
                        "{}: {k} must be an element id (a whole number), not {v}",
                        self.tool
                    )
                }),
        }
    }
    fn num(&self, k: &str) -> Result<Option<f64>, String> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .filter(|f| f.is_finite())
                .map(Some)
                .ok_or_else(|| format!("{}: {k} must be a number, not {v}", self.tool)),
        }
    }
    fn strs(&self, k: &str) -> Result<Vec<String>, String> {
        match self.get(k) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| format!("{}: {k} must hold strings, not {v}", self.tool))
                })
                .collect(),
            Some(v) => Err(format!(
                "{}: {k} must be a list of strings, not {v}",
                self.tool
            )),
        }
    }
    fn bool(&self, k: &str) -> Result<bool, String> {
        match self.get(k) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(format!("{}: {k} must be true or false, not {v}", self.tool)),
        }
    }
    fn space(&self) -> Result<Space, String> {
        match self.str("space")?.as_deref() {
            None | Some("image") => Ok(Space::Image),
            Some("normalized") => Ok(Space::Normalized),
            Some(o) => Err(format!(
                "{}: space must be image or normalized, not {o:?}",
                self.tool
            )),
        }
    }
    /// An element id or an x/y point, named by the given keys.
    fn spot(&self, id: &str, x: &str, y: &str) -> Result<Option<Spot>, String> {
        if let Some(id) = self.id(id)? {
            return Ok(Some(Spot::Element(id)));
        }
        match (self.num(x)?, self.num(y)?) {
            (Some(x), Some(y)) => {
                let space = self.space()?;
                if x < 0.0 || y < 0.0 || (space == Space::Normalized && (x > 1000.0 || y > 1000.0))
                {
                    return Err(format!(
                        "{}: the point ({x}, {y}) is outside the screenshot",
                        self.tool
                    ));
                }
                Ok(Some(Spot::Point { x, y, space }))
            }
            (None, None) => Ok(None),
            _ => Err(format!("{}: give both {x} and {y}", self.tool)),
        }
    }
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
    let empty = Map::new();
    let map = match &call.args {
        Value::Object(m) if m.contains_key("__unparsed") => {
            return Err(format!("{tool}: the arguments are not valid JSON"))
        }
        Value::Object(m) => m,
        Value::Null => &empty,
        other => {
            return Err(format!(
                "{tool}: the arguments must be an object, not {other}"
            ))
        }
    };
    let known = catalogue()
        .into_iter()
        .find(|t| t.name == tool)
        .map(|t| {
            t.schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default()
        })
        .unwrap_or_default();
    if let Some(bad) = map.keys().find(|k| !known.contains_key(k.as_str())) {
        return Err(format!("{tool} has no argument {bad:?}"));
    }
    let a = Args { tool, map };
    let need = |s: Option<Spot>, what: &str| s.ok_or_else(|| format!("{tool}: give {what}"));
    let act = match tool {
        "click" => Act::Click {
            at: need(a.spot("id", "x", "y")?, "an id, or x and y")?,
            button: a.str("button")?.unwrap_or_else(|| "left".into()),
            double: a.bool("double")?,
            modifiers: a.strs("modifiers")?,
        },
        "type_text" => Act::TypeText {
            text: a.need_str("text")?,
            id: a.id("id")?,
        },
        "press_keys" => Act::PressKeys {
            keys: a.need_str("keys")?,
            repeat: a.id("repeat")?.unwrap_or(1),
            id: a.id("id")?,
        },
        "scroll" => Act::Scroll {
            direction: a.need_str("direction")?,
            amount: a.id("amount")?.unwrap_or(3).clamp(1, 25),
            at: a.spot("id", "x", "y")?,
        },
        "drag" => Act::Drag {
            from: need(
                a.spot("from_id", "from_x", "from_y")?,
                "from_id, or from_x and from_y",
            )?,
            to: need(a.spot("to_id", "to_x", "to_y")?, "to_id, or to_x and to_y")?,
        },
        "focus" => Act::Focus {
            id: a.id("id")?.ok_or("focus: id is required")?,
        },
        "switch_window" => {
            let (app, title) = (a.str("app")?, a.str("title")?);
            if app.is_none() && title.is_none() {
                return Err("switch_window: give app or title".into());
            }
            Act::SwitchWindow { app, title }
        }
        "launch" => {
            let command: Vec<String> = match a.get("command") {
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<_>>()
                    .ok_or("launch: command must be a list of strings")?,
                _ => return Err("launch: command must be a list of strings".into()),
            };
            if command.first().is_none_or(|c| c.trim().is_empty()) {
                return Err("launch: command is empty".into());
            }
            Act::Launch { command }
        }
        "wait_for" => Act::WaitFor {
            text: a.need_str("text")?,
            gone: a.bool("gone")?,
            timeout_ms: a.num("timeout_ms")?.unwrap_or(5000.0).clamp(0.0, 30_000.0) as u64,
        },
        "set_value" => Act::SetValue {
            id: a.id("id")?.ok_or("set_value: id is required")?,
            value: a.need_str("value")?,
        },
        "toggle" => Act::Toggle {
            id: a.id("id")?.ok_or("toggle: id is required")?,
        },
        "clipboard_get" => Act::ClipboardGet,
        "clipboard_set" => Act::ClipboardSet {
            text: a.need_str("text")?,
        },
        "done" => Act::Done {
            success: match a.get("success") {
                Some(Value::Bool(b)) => *b,
                _ => return Err("done: success must be true or false".into()),
            },
            summary: a.str("summary")?.unwrap_or_default(),
        },
        "ask_user" => Act::AskUser {
            question: a.need_str("question")?,
        },
        _ => unreachable!("checked against the catalogue above"),
    };
    if let Act::Click { button, .. } = &act {
        if !matches!(button.as_str(), "left" | "right" | "middle") {
            return Err(format!(
                "click: button must be left, right or middle, not {button:?}"
            ));
        }
    }
    if let Act::Scroll { direction, .. } = &act {
        if !matches!(direction.as_str(), "up" | "down" | "left" | "right") {
            return Err(format!(
                "scroll: direction must be up, down, left or right, not {direction:?}"
            ));
        }
    }
    Ok(Step {
        act,
        why: a.str("why")?.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        }
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
        assert!(parse(&call("click", json!({"id": 1, "target": 2})))
            .unwrap_err()
            .contains("no argument"));
        assert!(parse(&call("rm_rf", json!({})))
            .unwrap_err()
            .contains("no tool"));
        assert!(parse(&call("type_text", json!({"__unparsed": "{"}))).is_err());
        assert!(parse(&call("launch", json!({"command": []}))).is_err());
        assert!(parse(&call("done", json!({"summary": "x"}))).is_err());
    }
}
