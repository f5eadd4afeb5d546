//! The MCP tool catalogue: names, descriptions a model can choose by, input schemas,
//! output schemas, and honest annotations (the protocol's defaults say destructive and
//! open-world, so every hint is set explicitly).

use crate::schema;
use desktop_core::{Error, Result};
use desktop_tools::params as p;
use desktop_tools::schema::plain;
use rmcp::model::{Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde_json::{Map, Value};
use std::sync::Arc;

/// What a tool may do, for its annotations.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Reads only.
    Read,
    /// Changes the desktop but cannot lose data (focus, scroll, hover).
    Harmless { idempotent: bool },
    /// May change or lose data (typing, clicking, setting values).
    Acts { idempotent: bool, open_world: bool },
}

fn input_schema<T: JsonSchema>() -> Arc<Map<String, Value>> {
    Arc::new(plain::<T>())
}

fn output_schema(name: &str) -> Option<Arc<Map<String, Value>>> {
    let mut v = schema::get(Some(name)).ok()?;
    // Paid in every session's tool list: the shape, not the prose (`schema` has the prose).
    desktop_tools::schema::terse(&mut v);
    let obj = v.as_object_mut()?;
    obj.remove("$schema");
    if !obj.contains_key("type") {
        // MCP wants an object schema at the top.
        let inner = Value::Object(obj.clone());
        let mut wrapped = Map::new();
        wrapped.insert("type".into(), Value::String("object".into()));
        if let Some(one_of) = inner.get("oneOf") {
            wrapped.insert("anyOf".into(), one_of.clone());
        }
        return Some(Arc::new(wrapped));
    }
    Some(Arc::new(obj.clone()))
}

fn tool<T: JsonSchema>(
    name: &'static str,
    title: &str,
    description: &'static str,
    kind: Kind,
    out: Option<&str>,
) -> Tool {
    let annotations = match kind {
        Kind::Read => ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
        Kind::Harmless { idempotent } => ToolAnnotations::new()
            .read_only(false)
            .destructive(false)
            .idempotent(idempotent)
            .open_world(false),
        Kind::Acts {
            idempotent,
            open_world,
        } => ToolAnnotations::new()
            .read_only(false)
            .destructive(true)
            .idempotent(idempotent)
            .open_world(open_world),
    };
    let mut t = Tool::new_with_raw(name, Some(description.into()), input_schema::<T>())
        .with_title(title)
        .with_annotations(annotations);
    if let Some(schema) = out.and_then(output_schema) {
        t = t.with_raw_output_schema(schema);
    }
    t
}

/// The tools to serve: those named (all when none), less those excluded, and with
/// `read_only` only those annotated read-only, so a user can give an assistant eyes without
/// hands. Calls to a tool not served are refused like unknown ones.
pub fn select(include: &[String], exclude: &[String], read_only: bool) -> Result<Vec<Tool>> {
    let all = catalogue();
    let known: Vec<&str> = all.iter().map(|t| t.name.as_ref()).collect();
    for name in include.iter().chain(exclude) {
        if !known.contains(&name.as_str()) {
            return Err(Error::invalid_args(format!("there is no tool {name:?}"))
                .suggest(format!("Tools: {}", known.join(","))));
        }
    }
    let served: Vec<Tool> = all
        .iter()
        .filter(|t| include.is_empty() || include.iter().any(|n| t.name == n.as_str()))
        .filter(|t| !exclude.iter().any(|n| t.name == n.as_str()))
        .filter(|t| {
            !read_only || t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true)
        })
        .cloned()
        .collect();
    if served.is_empty() {
        return Err(Error::invalid_args("these options leave no tool to serve")
            .suggest("Example: --tools read,list_windows,screenshot"));
    }
    Ok(served)
}

/// Every tool the server offers.
pub fn catalogue() -> Vec<Tool> {
    let act = Kind::Acts {
        idempotent: false,
        open_world: true,
    };
    vec![
        tool::<p::ListWindows>("list_windows", "List windows", "Top-level windows on the desktop: app, pid, title, window id, bounds, which is focused. Start here to find a target.", Kind::Read, Some("list")),
        tool::<p::Empty>("list_apps", "List apps", "Applications with an accessibility connection, with their window counts.", Kind::Read, Some("list")),
        tool::<p::Read>("read", "Read a window", "A window's UI as a compact tree of elements with short ids (the focused window unless app/window/pid is given). By default only what can be acted on, capped at 200 elements. Keys: i id, r role, t name, v value, b [x,y,w,h], f focused, e:false disabled, k checked, x expanded, c children. Act on elements with their ids.", Kind::Read, Some("read")),
        tool::<p::Find>("find", "Find elements", "Elements of a window whose name, value or description contains a text (optionally of one role), with ids for the action tools.", Kind::Read, None),
        tool::<p::Click>("click", "Click", "Click an element by id (from read/find) or by its text, or a screen point. A plain left click uses the element's own accessibility action; other clicks are real pointer input at its center. Refuses disabled, hidden or covered elements instead of clicking whatever is there. Answers once the app has taken the click, with `effect` (confirmed or unverifiable): a read right after shows its result.", act, Some("action")),
        tool::<p::Type>("type", "Type text", "Type text into element `id` (focused first; the text goes after its existing text, or replaces it with replace=true), or where the keyboard focus is. Any Unicode text works. Answers once the field shows the text (effect confirmed); refuses elements that take no text, and types nothing when the element would not take the focus.", act, Some("action")),
        tool::<p::Press>("press", "Press keys", "Press a key combo: \"ctrl+s\", \"enter\", \"shift+tab\", \"alt+f4\", \"super\".", act, Some("action")),
        tool::<p::Focus>("focus", "Focus", "Bring a window to the front and give it the keyboard, or focus one element (id).", Kind::Harmless { idempotent: true }, Some("action")),
        tool::<p::Scroll>("scroll", "Scroll", "Turn the mouse wheel at a point, inside an element or over a window; or with into_view, let the app scroll element `id` into view.", Kind::Harmless { idempotent: false }, Some("action")),
        tool::<p::Drag>("drag", "Drag", "Drag with the left button from a point or element to another.", act, Some("action")),
        tool::<p::SetValue>("set_value", "Set a value", "Set a text field's text, or a slider's or spin button's number.", Kind::Acts { idempotent: true, open_world: true }, Some("action")),
        tool::<p::Toggle>("toggle", "Toggle", "Check or uncheck a check box, switch or toggle button.", Kind::Acts { idempotent: false, open_world: false }, Some("action")),
        tool::<p::Action>("action", "Run an element action", "Run one of an element's own accessibility actions by name (read with actions=true lists them).", act, Some("action")),
        tool::<p::Launch>("launch", "Launch a program", "Start a program and wait until its window can be read; returns its app name, pid and window.", Kind::Acts { idempotent: false, open_world: true }, Some("action")),
        tool::<p::Screenshot>("screenshot", "Screenshot", "An image of the screen, a window, an element or a region, sized for vision models (long edge 1568 px by default). With annotate, each interactive element carries its id (usable with click). The result says the scale and origin: screen x = origin x + image x / scale.", Kind::Read, None),
        tool::<p::Empty>("clipboard_get", "Read the clipboard", "The clipboard's text.", Kind::Read, None),
        tool::<p::ClipboardSet>("clipboard_set", "Set the clipboard", "Put text on the clipboard (replacing what was there).", Kind::Acts { idempotent: true, open_world: false }, None),
        tool::<p::Wait>("wait", "Wait for an element", "Wait until an element with a text or role appears (or with gone, disappears), up to timeout_ms. Returns the matching elements with ids.", Kind::Read, None),
        tool::<p::Observe>("observe", "Observe changes", "Watch a window for duration_s seconds and return what changed: added, removed and changed elements (followed by identity, with ids).", Kind::Read, None),
    ]
}
