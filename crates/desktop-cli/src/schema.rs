//! JSON Schemas of each command's `data` (and of the error object), for `desktop-cli schema`.

use desktop_core::role::SHORT_NAMES;
use desktop_core::{Error, ErrorCode, Result};
use serde_json::{json, Value};

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

fn bounds() -> Value {
    json!({"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4,
           "description": "[x, y, width, height] in screen pixels"})
}

fn element() -> Value {
    json!({
        "type": "object",
        "description": "One UI element; keys are omitted when empty or default",
        "required": ["i", "r"],
        "properties": {
            "i": {"type": "integer", "description": "id, unique within this read; pass to actions as --id"},
            "r": {"type": "string", "description": "short role", "examples": SHORT_NAMES},
            "t": {"type": "string", "description": "name / label"},
            "v": {"type": "string", "description": "value or text content (never for password fields)"},
            "d": {"type": "string", "description": "description"},
            "b": bounds(),
            "f": {"const": true, "description": "has keyboard focus"},
            "e": {"const": false, "description": "disabled"},
            "s": {"const": true, "description": "selected"},
            "k": {"enum": [true, "mixed"], "description": "checked"},
            "x": {"type": "boolean", "description": "expanded (only on expandable elements)"},
            "ro": {"const": true, "description": "read-only (editable roles only)"},
            "a": {"type": "array", "items": {"type": "string"}, "description": "the element's accessibility actions (read --actions)"},
            "h": {"type": "string", "description": "hint: a word or two for a control without a name (label attribute, id and class words, tooltip); --text matches it"},
            "cut": {"type": "integer", "description": "elements it holds that --max-tokens left out: read --id opens it, with the same ids"},
            "more": {"type": "integer", "description": "children of this list scrolled out of view"},
            "out": {"const": true, "description": "out of view (found by a text search); actions scroll it in first"},
            "c": {"type": "array", "items": {"$ref": "#/$defs/element"}, "description": "children"}
        },
        "additionalProperties": false
    })
}

fn window() -> Value {
    json!({
        "type": "object",
        "required": ["app", "title", "focused"],
        "properties": {
            "app": {"type": "string"},
            "pid": {"type": "integer"},
            "title": {"type": "string"},
            "id": {"type": "integer", "description": "the platform's window id (--window-id takes it); absent where the window system gives none (Wayland without sway's IPC)"},
            "bounds": {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4,
                       "description": "[x, y, width, height] in screen pixels; absent where the window system tells no position (Wayland without sway's IPC: never guessed)"},
            "focused": {"type": "boolean"},
            "modal": {"const": true, "description": "present (true) when the window is a modal dialog: its app takes input there first, and commands naming only the app act on it"},
            "a11y": {"const": false, "description": "present (false) when the window exposes no accessibility tree"},
            "state": {"enum": ["minimized", "maximized", "fullscreen"], "description": "present when the window is not in its normal state (window restore brings it back)"},
            "display": {"type": "string", "description": "the name of the display holding the window's center (as displays lists it)"}
        }
    })
}

fn display() -> Value {
    json!({
        "type": "object",
        "required": ["name", "bounds", "scale", "primary"],
        "properties": {
            "name": {"type": "string", "description": "the system's name for it (RandR monitor or output, the screen's name on macOS, the GDI device on Windows); may be empty"},
            "bounds": bounds(),
            "scale": {"type": "number", "description": "image pixels per screen unit there (2 on a Retina display; 1 on X11)"},
            "primary": {"type": "boolean"},
            "refresh": {"type": "number", "description": "refresh rate in Hz, absent where the system does not say"}
        }
    })
}

fn unresponsive() -> Value {
    json!({"type": "array", "description": "apps that did not answer within --timeout",
           "items": {"type": "object", "properties": {"app": {"type": "string"}, "pid": {"type": "integer"}, "code": {"const": "APP_UNRESPONSIVE"}}}})
}

fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        (
            "list",
            json!({
                "$schema": DRAFT, "title": "list data",
                "oneOf": [
                    {"type": "object", "required": ["windows"], "properties": {"windows": {"type": "array", "items": window()}, "unresponsive": unresponsive()}},
                    {"type": "object", "required": ["apps"], "properties": {"apps": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "pid": {"type": "integer"}, "windows": {"type": "integer"}}}}, "unresponsive": unresponsive()}}
                ]
            }),
        ),
        (
            "read",
            json!({
                "$schema": DRAFT, "title": "read data",
                "type": "object",
                "required": ["app", "window", "ts", "count", "elements"],
                "properties": {
                    "app": {"type": "string"},
                    "pid": {"type": "integer"},
                    "window": {"type": "object", "properties": {"title": {"type": "string"}, "id": {"type": "integer"}, "b": bounds()}},
                    "ts": {"type": "integer", "description": "unix seconds"},
                    "count": {"type": "integer", "description": "elements shown"},
                    "page": {"const": true, "description": "present when only a browser's page was read (--page): the elements start at its document, whose value is its address"},
                    "boxes": {"const": "window", "description": "present when the elements' boxes (`b`) are relative to their window's top-left corner, not screen pixels: the window system tells no position of the window (Wayland without sway's IPC). Input at points and screenshot marks are then refused (PLATFORM_NOT_SUPPORTED); actions by id or text through the element's accessibility still work"},
                    "elements": {"type": "array", "items": {"$ref": "#/$defs/element"}, "description": "tree (flat list with --compact); without `b` with --no-bounds"},
                    "truncated": {"type": "object", "description": "present when --max-elements cut the output",
                                  "properties": {"shown": {"type": "integer"}, "total": {"type": "integer"}, "hint": {"type": "string"}}},
                    "cut": {"type": "object", "description": "present when --max-tokens left elements out: how many (each also counted by the shown container holding it, `cut`)",
                            "properties": {"elements": {"type": "integer"}, "hint": {"type": "string"}}},
                    "incomplete": {"type": "object", "description": "present when the reader stopped before the whole window was read (its budget of time or elements ran out: an app building objects without end)",
                                   "properties": {"reason": {"type": "string"}, "hint": {"type": "string"}}}
                },
                "$defs": {"element": element()}
            }),
        ),
        (
            "csv",
            json!({
                "$schema": DRAFT, "title": "read and list with --format csv",
                "description": "RFC 4180 tables (a header row, CRLF line ends, fields with a comma, quote or line break quoted, quotes doubled); an empty field is an absent value. read: the first row is the window itself (id 0, role `window`, name its title, value its app, description `boxes relative to the window (not the screen)` where they are, as JSON's \"boxes\":\"window\", states `focused`/`modal`); then one row per element in tree order, with the ids of the JSON read; a last row of role `truncated`, `cut` or `incomplete` says what was left out (name: why and how to narrow). states are words separated by spaces: focused disabled selected checked mixed expanded collapsed read-only actions:a|b cut:N more:N out-of-view. list: one row per window (states focused, modal, no-a11y) or, with --apps, per app; apps that did not answer are rows with state not-answering.",
                "x-columns": {
                    "read": desktop_core::table::READ_COLUMNS,
                    "list": desktop_core::table::WINDOW_COLUMNS,
                    "list --apps": desktop_core::table::APP_COLUMNS
                },
                "x-column-meanings": {
                    "id": "read: the element's id for actions (--id); list: the window id (--window-id)",
                    "parent": "id of the element holding this one; empty at the top of the window",
                    "role": "short role (as `r` in JSON)",
                    "value": "value or text (never a password: `(hidden)`)",
                    "hint": "a word or two for a control without a name",
                    "x,y,w,h": "bounds in screen units (in the window's, where its row says so)"
                }
            }),
        ),
        (
            "sandbox",
            json!({
                "$schema": DRAFT, "title": "sandbox up/status data (one sandbox)",
                "type": "object",
                "properties": {
                    "display": {"type": "string"}, "size": {"type": "string", "description": "each display's size"}, "running": {"type": "boolean"},
                    "outputs": {"type": "integer", "description": "displays side by side (sandbox up --outputs)"},
                    "wm": {"type": ["string", "null"], "description": "the window manager it runs (sandbox up --wm), null for none"},
                    "wayland": {"type": ["string", "null"], "description": "a Wayland sandbox's display socket (sandbox up --wayland; its wm is the compositor), null for X11"},
                    "dir": {"type": "string"}, "a11y_bus": {"type": "string"},
                    "pids": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "pid": {"type": "integer"}}}},
                    "env": {"type": "object", "additionalProperties": {"type": "string"}}
                }
            }),
        ),
        (
            "doctor",
            json!({
                "$schema": DRAFT, "title": "doctor data",
                "type": "object",
                "required": ["healthy", "checks"],
                "properties": {
                    "healthy": {"type": "boolean"},
                    "checks": {"type": "array", "items": {"type": "object", "required": ["name", "ok", "detail"],
                        "properties": {"name": {"type": "string"}, "ok": {"type": "boolean"}, "detail": {"type": "string"}, "fix": {"type": "string"}}}},
                    "sandboxes": {"type": "array", "items": {"type": "integer"}}
                }
            }),
        ),
        (
            "action",
            json!({
                "$schema": DRAFT, "title": "data of click, type, press, focus, scroll, drag, set-value, toggle, action, launch",
                "description": "An action answers only after the app has taken it in (input consumed, the element read back until it shows the expected change, asynchronous trees' events quiet), so the next command sees its result. An expected change that did not happen is an ACTION_FAILED error, not data.",
                "type": "object",
                "required": ["action", "route", "effect"],
                "properties": {
                    "action": {"type": "string"},
                    "id": {"type": "integer", "description": "the element id acted on"},
                    "route": {"enum": ["a11y", "input", "system"], "description": "accessibility interface, synthesized XTest input, or the window system"},
                    "effect": {"enum": ["confirmed", "unverifiable"], "description": "confirmed: the intended change was observed (text present, value equal, check state flipped, focus moved, element in view); unverifiable: nothing observable to compare (a plain button press, a key combo, a wheel turn)"},
                    "element": {"type": "object", "description": "what was acted on", "properties": {"r": {"type": "string"}, "t": {"type": "string"}, "b": bounds()}},
                    "rematched": {"const": true, "description": "the recorded handle was gone; the element was found again by its fingerprint"},
                    "post_state": {"type": "object", "description": "the element's state after the action has settled, when it changed (keys as in read; never a password's value)",
                                   "properties": {"r": {"type": "string"}, "v": {"type": "string"}, "f": {"const": true}, "e": {"const": false},
                                                  "s": {"const": true}, "k": {"enum": [true, false, "mixed"]}, "x": {"type": "boolean"}, "ro": {"const": true}}},
                    "chars": {"type": "integer", "description": "type: characters typed"},
                    "modifiers": {"type": "array", "items": {"type": "string"}, "description": "click: the keys held during the click"},
                    "scrolled_into_view": {"const": true, "description": "the element was out of view and was scrolled in first"},
                    "value": {"type": "string", "description": "set-value on a combo: the option chosen"},
                    "closed": {"type": "object", "description": "the action closed the window (or ended its app) instead of the app answering: an observed effect",
                               "properties": {"window": {"type": "string"}, "app": {"type": "string"}, "exited": {"type": "boolean", "description": "the app's process has exited"}}},
                    "x": {"type": "integer"}, "y": {"type": "integer"},
                    "app": {"type": "string"}, "pid": {"type": "integer"}, "title": {"type": "string"}, "window_id": {"type": "integer"}
                }
            }),
        ),
        (
            "displays",
            json!({
                "$schema": DRAFT, "title": "displays data",
                "type": "object",
                "required": ["displays"],
                "properties": {"displays": {"type": "array", "items": display(), "description": "the primary display first; all in one coordinate space (negative left of or above the primary)"}}
            }),
        ),
        (
            "window",
            json!({
                "$schema": DRAFT, "title": "window data (move, resize, minimize, maximize, restore, fullscreen, close)",
                "description": "Answers once the window showed the change (its geometry held still), with the window as it is now. A change not seen is an ACTION_FAILED error with what was seen; a window whose app asks first (\"save changes?\") is an ACTION_FAILED error naming its dialog, left unanswered.",
                "type": "object",
                "required": ["action", "op", "route", "effect"],
                "properties": {
                    "action": {"const": "window"},
                    "op": {"enum": ["move", "resize", "minimize", "maximize", "restore", "fullscreen", "close"]},
                    "route": {"const": "system"},
                    "effect": {"const": "confirmed"},
                    "window": window(),
                    "adjusted": {"const": true, "description": "the window changed, but not exactly as asked (kept on screen by the window manager, sized to the app's own steps or minimum)"},
                    "unchanged": {"const": true, "description": "it already was so; nothing was asked of the window system"},
                    "closed": {"const": true, "description": "close: the window is gone"},
                    "id": {"type": "integer"}, "title": {"type": "string"}
                }
            }),
        ),
        (
            "close-app",
            json!({
                "$schema": DRAFT, "title": "close-app data",
                "description": "Every window of the one app named was asked to close and went away; with --force, the processes that still showed windows were ended. A window held by the app's own question, or a dialog already showing, is an ACTION_FAILED error naming it (nothing answered, nothing ended).",
                "type": "object",
                "required": ["action", "app", "route", "effect", "closed"],
                "properties": {
                    "action": {"const": "close-app"},
                    "app": {"type": "string"},
                    "route": {"const": "system"},
                    "effect": {"const": "confirmed"},
                    "closed": {"type": "array", "items": {"type": "string"}, "description": "titles of the windows that closed"},
                    "ended": {"type": "array", "items": {"type": "integer"}, "description": "--force: pids of the processes ended"}
                }
            }),
        ),
        (
            "file-dialog",
            json!({
                "$schema": DRAFT, "title": "file-dialog data",
                "description": "The chooser showing took the path and closed. No chooser showing is WINDOW_NOT_FOUND; one that asks first (replace the file?) or stays open is an ACTION_FAILED error naming what it shows, nothing answered.",
                "type": "object",
                "required": ["action", "route", "effect", "path", "dialog"],
                "properties": {
                    "action": {"const": "file-dialog"},
                    "route": {"const": "a11y"},
                    "effect": {"const": "confirmed"},
                    "path": {"type": "string", "description": "the absolute path given to the chooser"},
                    "dialog": {"type": "string", "description": "the chooser's title"},
                    "mode": {"enum": ["open", "save"], "description": "what the chooser was for, from its button or --action"},
                    "written": {"type": "boolean", "description": "save: the file showed up written within 1.5 s of the chooser closing"}
                }
            }),
        ),
        (
            "error",
            json!({
                "$schema": DRAFT, "title": "error object (envelope with ok:false)",
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"oneOf": ErrorCode::ALL.iter().map(|c| json!({"const": c.as_str(), "description": c.meaning()})).collect::<Vec<_>>()},
                    "message": {"type": "string"},
                    "suggestion": {"type": "string"},
                    "platform_detail": {"type": "string"}
                }
            }),
        ),
    ]
}

/// The schema of one command, or all of them keyed by command.
pub fn get(command: Option<&str>) -> Result<Value> {
    let all = schemas();
    match command {
        None => Ok(Value::Object(
            all.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        )),
        Some(name) => all
            .into_iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
            .ok_or_else(|| {
                Error::invalid_args(format!("no schema for `{name}`"))
                    .suggest("Known: list, read, csv, action, window, close-app, file-dialog, displays, sandbox, doctor, error")
            }),
    }
}

#[cfg(test)]
mod tests {
    use desktop_core::ErrorCode;

    /// The README's list of error codes is the one `ErrorCode` defines, word for word.
    #[test]
    fn readme_lists_every_error_code() {
        let readme = include_str!("../../../README.md");
        let start = "<!-- error-codes:start -->\n";
        let end = "<!-- error-codes:end -->";
        let at = readme.find(start).map(|i| i + start.len());
        let to = readme.find(end);
        let (Some(at), Some(to)) = (at, to) else {
            panic!("README.md lacks the error-codes markers");
        };
        assert_eq!(
            &readme[at..to],
            ErrorCode::markdown_table(),
            "README.md's error codes differ from ErrorCode; paste the table from ErrorCode::markdown_table()"
        );
    }

    #[test]
    fn schema_error_lists_every_code() {
        let all = super::get(Some("error")).unwrap_or_default();
        let listed: Vec<&str> = all["properties"]["code"]["oneOf"]
            .as_array()
            .map(|a| a.iter().filter_map(|c| c["const"].as_str()).collect())
            .unwrap_or_default();
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(listed, codes);
    }
}
