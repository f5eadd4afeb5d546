//! CSV (RFC 4180) forms of a read and of the window and app lists: a header row, one row
//! per element or window, the same ids as the JSON. The most compact output for agents that
//! take tables.

use crate::model::{AppList, ReadData, WindowList};
use crate::node::{Node, Rect};
use crate::render::{shown_value, state_words};

/// The columns of `read --format csv`.
pub const READ_COLUMNS: &[&str] = &[
    "id",
    "parent",
    "role",
    "name",
    "value",
    "hint",
    "description",
    "x",
    "y",
    "w",
    "h",
    "states",
];

/// The columns of `list --format csv`.
pub const WINDOW_COLUMNS: &[&str] = &["id", "pid", "app", "title", "x", "y", "w", "h", "states"];

/// The columns of `list --apps --format csv`.
pub const APP_COLUMNS: &[&str] = &["pid", "name", "windows", "states"];

/// One field, quoted when it holds a comma, a quote or a line break (quotes doubled).
fn field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// One record, CRLF-terminated as RFC 4180 writes them.
fn row<S: AsRef<str>>(out: &mut String, fields: &[S]) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        field(out, f.as_ref());
    }
    out.push_str("\r\n");
}

fn rect(b: Option<Rect>) -> [String; 4] {
    match b.filter(Rect::is_valid) {
        Some(b) => [b.x, b.y, b.w, b.h].map(|v| v.to_string()),
        None => Default::default(),
    }
}

fn number(n: u64) -> String {
    if n == 0 {
        String::new()
    } else {
        n.to_string()
    }
}

/// A read as CSV. The first row after the header is the window itself (id 0, role
/// `window`, name its title, value its app); a last row of role `truncated` or
/// `incomplete` says what was left out. `parent` is the id of the element holding this one
/// (empty at the top). Where boxes are relative to the window, not the screen, the
/// window's row says so in its description.
pub fn read_csv(data: &ReadData) -> String {
    let mut out = String::new();
    row(&mut out, READ_COLUMNS);
    let w = &data.window;
    let [x, y, bw, bh] = rect(w.bounds);
    let mut states = Vec::new();
    if w.focused {
        states.push("focused");
    }
    if w.modal {
        states.push("modal");
    }
    row(
        &mut out,
        &[
            "0",
            "",
            "window",
            &w.title,
            &w.app,
            "",
            if data.window_boxes && data.bounds {
                "boxes relative to the window (not the screen)"
            } else {
                ""
            },
            &x,
            &y,
            &bw,
            &bh,
            &states.join(" "),
        ],
    );
    fn visit(out: &mut String, nodes: &[Node], parent: u32, bounds: bool) {
        for n in nodes {
            let [x, y, w, h] = rect(n.bounds.filter(|_| bounds));
            let value = match shown_value(n) {
                Some(v) => v,
                None if n.is_secure() => "(hidden)",
                None => "",
            };
            let description = if n.description != n.name && n.description != n.hint {
                &n.description
            } else {
                ""
            };
            row(
                out,
                &[
                    &n.id.to_string(),
                    &number(u64::from(parent)),
                    n.role.short(),
                    &n.name,
                    value,
                    &n.hint,
                    description,
                    &x,
                    &y,
                    &w,
                    &h,
                    &state_words(n, "|").join(" "),
                ],
            );
            visit(out, &n.children, n.id, bounds);
        }
    }
    visit(&mut out, &data.elements, 0, data.bounds);
    if data.truncated() > 0 {
        let note = format!(
            "{} more elements not shown (--max-elements {}); narrow with --roles, --bbox, --text or -i",
            data.truncated(),
            data.shown + data.cut
        );
        row(
            &mut out,
            &["", "", "truncated", &note, "", "", "", "", "", "", "", ""],
        );
    }
    if data.cut > 0 {
        let note = format!(
            "{} more elements left out to fit the token budget; open an element marked cut:N with read --id",
            data.cut
        );
        row(
            &mut out,
            &["", "", "cut", &note, "", "", "", "", "", "", "", ""],
        );
    }
    if let Some(reason) = &data.incomplete {
        let note = format!(
            "the window was not read whole ({reason}); narrow with --depth, --bbox or --text"
        );
        row(
            &mut out,
            &["", "", "incomplete", &note, "", "", "", "", "", "", "", ""],
        );
    }
    out
}

/// The window list as CSV; apps that did not answer are rows with state `not-answering`.
pub fn windows_csv(list: &WindowList) -> String {
    let mut out = String::new();
    row(&mut out, WINDOW_COLUMNS);
    for w in &list.windows {
        let [x, y, bw, bh] = rect(w.bounds);
        let mut states = Vec::new();
        if w.focused {
            states.push("focused");
        }
        if w.modal {
            states.push("modal");
        }
        if !w.a11y {
            states.push("no-a11y");
        }
        let id = w.id.map(|i| i.to_string()).unwrap_or_default();
        row(
            &mut out,
            &[
                &id,
                &number(u64::from(w.pid)),
                &w.app,
                &w.title,
                &x,
                &y,
                &bw,
                &bh,
                &states.join(" "),
            ],
        );
    }
    for u in &list.unresponsive {
        let app = u.app.as_deref().unwrap_or("");
        let pid = number(u64::from(u.pid));
        row(
            &mut out,
            &["", &pid, app, "", "", "", "", "", "not-answering"],
        );
    }
    out
}

/// The app list as CSV; apps that did not answer are rows with state `not-answering`.
pub fn apps_csv(list: &AppList) -> String {
    let mut out = String::new();
    row(&mut out, APP_COLUMNS);
    for a in &list.apps {
        let pid = number(u64::from(a.pid));
        row(&mut out, &[&pid, &a.name, &a.windows.to_string(), ""]);
    }
    for u in &list.unresponsive {
        let app = u.app.as_deref().unwrap_or("");
        let pid = number(u64::from(u.pid));
        row(&mut out, &[pid.as_str(), app, "", "not-answering"]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_as_rfc_4180_says() {
        let mut out = String::new();
        row(&mut out, &["plain", "a,b", "say \"hi\"", "two\nlines", ""]);
        assert_eq!(out, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\r\n");
    }
}
