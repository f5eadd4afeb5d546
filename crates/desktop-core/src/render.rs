//! Renders element trees: compact JSON (the keys of seed 000) and an indented text tree.
//!
//! JSON element keys, each omitted when empty or default:
//! `i` id, `r` short role, `t` name, `v` value, `d` description, `b` bounds `[x,y,w,h]`,
//! `f` focused (true), `e` enabled (false when disabled), `s` selected (true),
//! `k` checked (true, or `"mixed"`), `x` expanded (true/false, only on expandable elements),
//! `ro` read-only (true, on editable roles), `a` the element's accessibility actions
//! (with `--actions`), `h` hint (a word or two for an element without a name),
//! `more` children of a list scrolled out of view, `out` out of view (found by text),
//! `cut` elements it holds that a token budget left out (`read --id` opens it), `c` children.

use crate::node::{Node, Rect, States};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use std::fmt::Write as _;

/// Serializes a node with compact keys; `flat` leaves out `c`.
#[derive(Clone, Copy, Debug)]
pub struct Compact<'a> {
    pub node: &'a Node,
    pub flat: bool,
}

impl<'a> Compact<'a> {
    /// One element, with its bounds, without its children.
    pub fn flat(node: &'a Node) -> Self {
        Compact { node, flat: true }
    }

    fn with(self, bounds: bool) -> Shaped<'a> {
        Shaped { el: self, bounds }
    }
}

/// An element with or without its bounds (and its children likewise).
#[derive(Clone, Copy, Debug)]
struct Shaped<'a> {
    el: Compact<'a>,
    bounds: bool,
}

/// Bounds as a four-integer array.
#[derive(Clone, Copy, Debug)]
pub struct Bounds(pub Rect);

impl Serialize for Bounds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(4))?;
        for v in [self.0.x, self.0.y, self.0.w, self.0.h] {
            seq.serialize_element(&v)?;
        }
        seq.end()
    }
}

/// A rectangle as the four-integer array (for `serialize_with`).
pub fn bounds_array<S: Serializer>(r: &Rect, s: S) -> Result<S::Ok, S::Error> {
    Bounds(*r).serialize(s)
}

/// The state keys `f e s k x ro` (omitted when default), as `read` and `post_state` both
/// write them. `unchecked`: write `k: false` (a check box whose state is asked about);
/// `read_only`: write `ro` when read-only (it says something only where editing could be).
pub(crate) fn state_keys<M: SerializeMap>(
    m: &mut M,
    st: States,
    unchecked: bool,
    read_only: bool,
) -> Result<(), M::Error> {
    if st.contains(States::FOCUSED) {
        m.serialize_entry("f", &true)?;
    }
    if st.contains(States::DISABLED) {
        m.serialize_entry("e", &false)?;
    }
    if st.contains(States::SELECTED) {
        m.serialize_entry("s", &true)?;
    }
    if st.contains(States::MIXED) {
        m.serialize_entry("k", "mixed")?;
    } else if st.contains(States::CHECKED) {
        m.serialize_entry("k", &true)?;
    } else if unchecked {
        m.serialize_entry("k", &false)?;
    }
    if st.contains(States::EXPANDABLE) {
        m.serialize_entry("x", &st.contains(States::EXPANDED))?;
    }
    if read_only && st.contains(States::READ_ONLY) {
        m.serialize_entry("ro", &true)?;
    }
    Ok(())
}

impl Serialize for Compact<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.with(true).serialize(s)
    }
}

impl Serialize for Shaped<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Shaped { el, bounds } = *self;
        let n = el.node;
        let st = n.states;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("i", &n.id)?;
        m.serialize_entry("r", n.role.short())?;
        if !n.name.is_empty() {
            m.serialize_entry("t", &n.name)?;
        }
        if !n.hint.is_empty() {
            m.serialize_entry("h", &n.hint)?;
        }
        if let Some(v) = shown_value(n) {
            m.serialize_entry("v", v)?;
        }
        if !n.description.is_empty() && n.description != n.name && n.description != n.hint {
            m.serialize_entry("d", &n.description)?;
        }
        if let Some(b) = n.bounds.filter(|b| bounds && b.is_valid()) {
            m.serialize_entry("b", &Bounds(b))?;
        }
        state_keys(&mut m, st, false, n.role.is_editable())?;
        let extra: Vec<&str> = shown_actions(n).collect();
        if !extra.is_empty() {
            m.serialize_entry("a", &extra)?;
        }
        if n.cut > 0 {
            m.serialize_entry("cut", &n.cut)?;
        }
        if n.more > 0 {
            m.serialize_entry("more", &n.more)?;
        }
        if n.out_of_view {
            m.serialize_entry("out", &true)?;
        }
        if !el.flat && !n.children.is_empty() {
            let children = Elements {
                nodes: &n.children,
                flat: false,
                bounds,
            };
            m.serialize_entry("c", &children)?;
        }
        m.end()
    }
}

/// A read's elements as a JSON array with compact keys: nested (`c`) or flattened in
/// pre-order, with or without each element's bounds.
#[derive(Clone, Copy, Debug)]
pub struct Elements<'a> {
    pub nodes: &'a [Node],
    pub flat: bool,
    pub bounds: bool,
}

impl Serialize for Elements<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let bounds = self.bounds;
        if !self.flat {
            return s.collect_seq(
                self.nodes
                    .iter()
                    .map(|node| Compact { node, flat: false }.with(bounds)),
            );
        }
        let mut all = Vec::new();
        for n in self.nodes {
            n.walk(&mut |x| all.push(x));
        }
        s.collect_seq(all.into_iter().map(|node| Compact::flat(node).with(bounds)))
    }
}

/// A tree of nodes as a JSON array with compact keys.
#[derive(Clone, Copy, Debug)]
pub struct Tree<'a>(pub &'a [Node]);

impl Serialize for Tree<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (nodes, flat, bounds) = (self.0, false, true);
        Elements {
            nodes,
            flat,
            bounds,
        }
        .serialize(s)
    }
}

/// The tree flattened in pre-order, without `c`.
#[derive(Clone, Copy, Debug)]
pub struct Flat<'a>(pub &'a [Node]);

impl Serialize for Flat<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (nodes, flat, bounds) = (self.0, true, true);
        Elements {
            nodes,
            flat,
            bounds,
        }
        .serialize(s)
    }
}

/// The value as output shows it: never for secure elements, never when it repeats the name.
pub fn shown_value(n: &Node) -> Option<&str> {
    if n.is_secure() {
        return None;
    }
    n.value.as_deref().filter(|v| !v.is_empty() && *v != n.name)
}

/// The element's accessibility actions (fetched only with `--actions`).
pub fn shown_actions(n: &Node) -> impl Iterator<Item = &str> {
    n.actions.iter().map(String::as_str)
}

/// An indented, human-readable tree, one element a line: `12 btn "Save" 10,20,80,24 focused`
/// (id, role, name, `= value`, bounds x,y,w,h, states, `-- description`).
pub fn text_tree(nodes: &[Node]) -> String {
    text_tree_with(nodes, true)
}

/// The text tree, with or without each element's screen rectangle (about half the tokens
/// of a typical line; a reader that also has a screenshot may not need it).
pub fn text_tree_with(nodes: &[Node], bounds: bool) -> String {
    let mut out = String::new();
    for n in nodes {
        text_node(&mut out, n, 0, bounds);
    }
    out
}

fn text_node(out: &mut String, n: &Node, depth: usize, bounds: bool) {
    let _ = write!(
        out,
        "{:indent$}{} {}",
        "",
        n.id,
        n.role.short(),
        indent = depth * 2
    );
    if !n.name.is_empty() {
        let _ = write!(out, " {}", quote(&n.name));
    }
    if !n.hint.is_empty() {
        let _ = write!(out, " hint:{}", quote(&n.hint));
    }
    if let Some(v) = shown_value(n) {
        let _ = write!(out, " = {}", quote(v));
    } else if n.is_secure() {
        out.push_str(" = (hidden)");
    }
    if let Some(b) = n.bounds.filter(|b| bounds && b.is_valid()) {
        let _ = write!(out, " {},{},{},{}", b.x, b.y, b.w, b.h);
    }
    for word in state_words(n, ",") {
        let _ = write!(out, " {word}");
    }
    if !n.description.is_empty() && n.description != n.name && n.description != n.hint {
        let _ = write!(out, " -- {}", quote(&n.description));
    }
    out.push('\n');
    for c in &n.children {
        text_node(out, c, depth + 1, bounds);
    }
}

/// An element's states and extras as words, the way the text tree shows them: `focused`,
/// `disabled`, `selected`, `checked`, `mixed`, `expanded`/`collapsed`, `read-only`,
/// `actions:a<sep>b`, `cut:N`, `more:N`, `out-of-view`.
pub fn state_words(n: &Node, sep: &str) -> Vec<String> {
    let st = n.states;
    let mut words: Vec<String> = [
        (States::FOCUSED, "focused"),
        (States::DISABLED, "disabled"),
        (States::SELECTED, "selected"),
        (States::CHECKED, "checked"),
        (States::MIXED, "mixed"),
    ]
    .into_iter()
    .filter(|(flag, _)| st.contains(*flag))
    .map(|(_, w)| w.to_string())
    .collect();
    if st.contains(States::EXPANDABLE) {
        let open = st.contains(States::EXPANDED);
        words.push(if open { "expanded" } else { "collapsed" }.into());
    }
    if st.contains(States::READ_ONLY) && n.role.is_editable() {
        words.push("read-only".into());
    }
    let extra: Vec<&str> = shown_actions(n).collect();
    if !extra.is_empty() {
        words.push(format!("actions:{}", extra.join(sep)));
    }
    if n.cut > 0 {
        words.push(format!("cut:{}", n.cut));
    }
    if n.more > 0 {
        words.push(format!("more:{}", n.more));
    }
    if n.out_of_view {
        words.push("out-of-view".into());
    }
    words
}

/// JSON-style quoting keeps one element per line whatever the text holds.
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A read as text: the window's line (saying where boxes are relative to the window), its
/// element tree (with or without each element's rectangle), and what was left out.
pub fn read_text(data: &crate::ReadData, bounds: bool) -> String {
    let w = &data.window;
    let mut s = format!("{} \"{}\"", w.app, w.title);
    if let Some(id) = w.id {
        let _ = write!(s, " id 0x{id:x}");
    }
    if w.pid != 0 {
        let _ = write!(s, " pid {}", w.pid);
    }
    if data.window_boxes && bounds {
        s.push_str(" (boxes relative to the window, not the screen)");
    }
    s.push('\n');
    s.push_str(&text_tree_with(&data.elements, bounds));
    if data.truncated() > 0 {
        let _ = writeln!(
            s,
            "... {} more elements not shown (--max-elements {}); narrow with --roles, --bbox, --text or -i",
            data.truncated(),
            data.shown + data.cut
        );
    }
    if data.cut > 0 {
        let _ = writeln!(
            s,
            "... {} more elements left out to fit the token budget; open an element marked cut:N with read --id",
            data.cut
        );
    }
    if let Some(reason) = &data.incomplete {
        let _ = writeln!(
            s,
            "... the window was not read whole ({reason}); narrow with --depth, --bbox or --text"
        );
    }
    s
}

/// The text of a read fitted to about `max_tokens` (`budget::fit`): what an agent acts on
/// first, containers left out marked `cut:N`.
pub fn capped_read_text(data: &mut crate::ReadData, max_tokens: usize, bounds: bool) -> String {
    crate::budget::fit(data, max_tokens, crate::budget::Form::Text, &|d| {
        read_text(d, bounds)
    })
}
