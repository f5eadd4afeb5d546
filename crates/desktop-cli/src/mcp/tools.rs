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
    description: &'static str,
    kind: Kind,
    out: Option<&'static str>,
) -> Entry {
    // Only the hints that differ from the protocol's defaults (not read-only, destructive,
    // not idempotent, open world): the rest is said by leaving them out.
    let mut a = ToolAnnotations::new();
    match kind {
        Kind::Read => a = a.read_only(true).open_world(false),
        Kind::Harmless { idempotent } => {
            a = a.destructive(false).open_world(false);
            if idempotent {
                a = a.idempotent(true);
            }
        }
        Kind::Acts {
            idempotent,
            open_world,
        } => {
            if idempotent {
                a = a.idempotent(true);
            }
            if !open_world {
                a = a.open_world(false);
            }
        }
    }
    let mut tool = Tool::new_with_raw(name, Some(description.into()), input_schema::<T>());
    let says_something = a.read_only_hint.is_some()
        || a.destructive_hint.is_some()
        || a.idempotent_hint.is_some()
        || a.open_world_hint.is_some();
    if says_something {
        tool = tool.with_annotations(a);
    }
    Entry { tool, out }
}

/// A tool and the name of its output schema in `desktop-cli schema`.
#[derive(Clone)]
pub struct Entry {
    tool: Tool,
    out: Option<&'static str>,
}

/// The tools to serve: those named (all when none), less those excluded, and with
/// `read_only` only those annotated read-only, so a user can give an assistant eyes without
/// hands. Calls to a tool not served are refused like unknown ones. `output_schemas` adds
/// each tool's output schema (terse): hosts may validate results with them, but they cost
/// about a third of the tool list in every session and models seldom see them.
pub fn select(
    include: &[String],
    exclude: &[String],
    read_only: bool,
    output_schemas: bool,
) -> Result<Vec<Tool>> {
    let all: Vec<Tool> = catalogue()
        .into_iter()
        .map(|Entry { mut tool, out }| {
            if let Some(schema) = out.filter(|_| output_schemas).and_then(output_schema) {
                tool = tool.with_raw_output_schema(schema);
            }
            tool
        })
        .collect();
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

/// Every tool the server offers. Descriptions say what a model needs to choose a tool and
/// no more: each is paid in every session's tool list.
pub fn catalogue() -> Vec<Entry> {
    let act = Kind::Acts {
        idempotent: false,
        open_world: true,
    };
    vec![
        tool::<p::ListWindows>("list_windows", "Top-level windows: app, pid, title, id, bounds, focused. Start here.", Kind::Read, Some("list")),
        tool::<p::Empty>("list_apps", "Apps with an accessibility connection and their window counts.", Kind::Read, Some("list")),
        tool::<p::Read>("read", "A window's elements with ids to act on; app, window (part of its title), window_id or pid pick the window (else the focused one). An id names its element in every later call, whatever read showed it. Default: what can be acted on, headings and status lines, at most 200, fitted to max_tokens (cut:N: a container holding N elements left out; read with its id to open it); a browser as its page, whose address is the web element's value. JSON keys: i id, r role, t name, v value, b box, f focused, e:false disabled, k checked, x expanded, c children.", Kind::Read, Some("read")),
        tool::<p::Find>("find", "Elements whose name, value or description contains a text, with ids.", Kind::Read, None),
        tool::<p::Click>("click", "Click an element (id or text) or a screen point. Refuses disabled, hidden or covered elements; answers once the app took the click (effect confirmed or unverifiable).", act, Some("action")),
        tool::<p::Type>("type", "Type text into element id, or where the focus is. Answers once the field shows it.", act, Some("action")),
        tool::<p::Press>("press", "Press keys.", act, Some("action")),
        tool::<p::Focus>("focus", "Bring a window to the front, or focus an element.", Kind::Harmless { idempotent: true }, Some("action")),
        tool::<p::Scroll>("scroll", "Scroll at a point, in an element or over a window.", Kind::Harmless { idempotent: false }, Some("action")),
        tool::<p::Drag>("drag", "Drag from a point or element to another.", act, Some("action")),
        tool::<p::SetValue>("set_value", "Set a field's text, or a slider's or spin button's number.", Kind::Acts { idempotent: true, open_world: true }, Some("action")),
        tool::<p::Toggle>("toggle", "Check or uncheck a check box, switch or toggle button.", Kind::Acts { idempotent: false, open_world: false }, Some("action")),
        tool::<p::Action>("action", "Run an element's accessibility action by name (read with actions=true lists them).", act, Some("action")),
        tool::<p::Launch>("launch", "Start a program; answers once its window can be read.", Kind::Acts { idempotent: false, open_world: true }, Some("action")),
        tool::<p::Window>("window", "Move, resize, minimize, maximize, restore or make full screen a window; answers its geometry and state as seen after.", Kind::Harmless { idempotent: true }, Some("window")),
        tool::<p::Menu>("menu", "Open a menu item by its path (\"File > Save As\"); a missing level lists the items it has.", act, Some("action")),
        tool::<p::FileDialog>("file_dialog", "Fill the open or save file chooser showing with a path and confirm; answers once it closed. A question it asks (replace the file?) is reported, unanswered.", Kind::Acts { idempotent: false, open_world: false }, Some("file-dialog")),
        tool::<p::CloseWindow>("close_window", "Close a window as its close button would; an app that asks first (save changes?) is reported with its dialog, unanswered.", Kind::Acts { idempotent: false, open_world: false }, Some("window")),
        tool::<p::CloseApp>("close_app", "Close every window of an app; force ends its processes if they stay (unsaved work lost).", Kind::Acts { idempotent: false, open_world: false }, Some("close-app")),
        tool::<p::Empty>("list_displays", "Displays: name, bounds in screen coordinates, scale, primary, refresh rate.", Kind::Read, Some("displays")),
        tool::<p::Screenshot>("screenshot", "Image of the screen, a window, an element or a region. The result says scale and origin: screen x = origin x + image x / scale.", Kind::Read, None),
        tool::<p::Empty>("clipboard_get", "The clipboard's text.", Kind::Read, None),
        tool::<p::ClipboardSet>("clipboard_set", "Put text on the clipboard.", Kind::Acts { idempotent: true, open_world: false }, None),
        tool::<p::Wait>("wait", "Wait until an element appears (or with gone, disappears); returns matches with ids.", Kind::Read, None),
        tool::<p::Observe>("observe", "Watch a window for duration_s and return added, removed and changed elements.", Kind::Read, None),
    ]
}
