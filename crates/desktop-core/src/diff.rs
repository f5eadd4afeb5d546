//! `observe`'s diff: elements are followed by identity — the id each has in its window
//! (`refs`: the backend's handle showing the same role and name), never by traversal
//! index — so one element inserted at the top is one `added` event rather than a cascade,
//! and every id an event names is the id reads and actions use.

use crate::node::{Handle, Node, Rect, States};
use crate::render::{shown_value, Compact};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Which changes to leave out.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ignore {
    pub bounds: bool,
    pub focus: bool,
}

/// Follows a window's elements from one read to the next.
#[derive(Debug, Default)]
pub struct Observer {
    /// Each element of the last read, childless, by its id, in reading order.
    seen: Vec<Node>,
}

/// One change, as the JSON object `observe` prints (without `ts`).
pub type Change = Value;

/// Every element, childless, with the path of roles above it.
fn flatten(nodes: &[Node]) -> Vec<(Node, String)> {
    let mut out = Vec::new();
    fn go(nodes: &[Node], roles: &mut Vec<String>, out: &mut Vec<(Node, String)>) {
        for n in nodes {
            let mut flat = n.clone();
            flat.children.clear();
            out.push((flat, roles.join(" > ")));
            roles.push(n.role.short().to_string());
            go(&n.children, roles, out);
            roles.pop();
        }
    }
    go(nodes, &mut Vec::new(), &mut out);
    out
}

impl Observer {
    /// Takes the first read (its elements numbered by the read); returns how many there are.
    pub fn baseline(&mut self, nodes: &[Node]) -> usize {
        self.seen = flatten(nodes).into_iter().map(|(n, _)| n).collect();
        self.seen.len()
    }

    /// Compares a new read with the last one and returns the changes, by the elements' ids.
    /// An object that now shows another name or role has a new id (reads give it one, as
    /// an agent acting on the old id means what it named): one `changed` event, with the
    /// new id and the one it had (`was`).
    pub fn diff(&mut self, nodes: &[Node], ignore: Ignore) -> Vec<Change> {
        let flat = flatten(nodes);
        let before: HashMap<u32, &Node> = self.seen.iter().map(|n| (n.id, n)).collect();
        let now: std::collections::HashSet<u32> = flat.iter().map(|(n, _)| n.id).collect();
        // Objects whose id went away, by handle: a new id on one of them is a change.
        let renamed: HashMap<&Handle, &Node> = self
            .seen
            .iter()
            .filter(|s| !now.contains(&s.id) && !s.handle.is_empty())
            .map(|s| (&s.handle, s))
            .collect();
        let mut changes = Vec::new();
        let mut still = std::collections::HashSet::new();
        for (node, path) in &flat {
            still.insert(node.id);
            let old = before.get(&node.id).copied();
            let was = old.is_none().then(|| renamed.get(&node.handle)).flatten();
            match (old, was) {
                (Some(old), _) => {
                    let fields = changed_fields(old, node, ignore);
                    if !fields.is_empty() {
                        changes.push(json!({"type": "changed", "id": node.id, "changes": fields}));
                    }
                }
                (None, Some(was)) => {
                    still.insert(was.id);
                    let fields = changed_fields(was, node, ignore);
                    changes.push(
                        json!({"type": "changed", "id": node.id, "was": was.id, "changes": fields}),
                    );
                }
                (None, None) => {
                    let el = serde_json::to_value(Compact::flat(node)).unwrap_or(Value::Null);
                    changes.push(json!({"type": "added", "el": el, "p": path}));
                }
            }
        }
        for s in self.seen.iter().filter(|s| !still.contains(&s.id)) {
            let mut gone = json!({"type": "removed", "id": s.id, "r": s.role.short()});
            if !s.name.is_empty() {
                gone["t"] = json!(s.name);
            }
            changes.push(gone);
        }
        self.seen = flat.into_iter().map(|(n, _)| n).collect();
        changes
    }

    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

fn bounds_value(b: Option<Rect>) -> Value {
    match b.filter(Rect::is_valid) {
        Some(r) => json!([r.x, r.y, r.w, r.h]),
        None => Value::Null,
    }
}

fn checked(n: &Node) -> Value {
    if n.states.contains(States::MIXED) {
        json!("mixed")
    } else {
        json!(n.states.contains(States::CHECKED))
    }
}

/// Fields that differ, as `{"v": [old, new], ...}` with the keys of `read`.
fn changed_fields(a: &Node, b: &Node, ignore: Ignore) -> Map<String, Value> {
    let mut out = Map::new();
    let mut put = |k: &str, old: Value, new: Value| {
        if old != new {
            out.insert(k.to_string(), json!([old, new]));
        }
    };
    put("r", json!(a.role.short()), json!(b.role.short()));
    put("t", json!(a.name), json!(b.name));
    put(
        "v",
        json!(shown_value(a).unwrap_or("")),
        json!(shown_value(b).unwrap_or("")),
    );
    put("d", json!(a.description), json!(b.description));
    if !ignore.bounds {
        put("b", bounds_value(a.bounds), bounds_value(b.bounds));
    }
    if !ignore.focus {
        put(
            "f",
            json!(a.states.contains(States::FOCUSED)),
            json!(b.states.contains(States::FOCUSED)),
        );
    }
    put(
        "e",
        json!(!a.states.contains(States::DISABLED)),
        json!(!b.states.contains(States::DISABLED)),
    );
    put(
        "s",
        json!(a.states.contains(States::SELECTED)),
        json!(b.states.contains(States::SELECTED)),
    );
    put("k", checked(a), checked(b));
    put(
        "x",
        json!(a.states.contains(States::EXPANDED)),
        json!(b.states.contains(States::EXPANDED)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::role::Role;

    /// An element with the id its window's record gives it.
    fn el(role: Role, name: &str, id: u32, y: i32) -> Node {
        Node {
            id,
            role,
            name: name.into(),
            bounds: Some(Rect::new(0, y, 50, 20)),
            ..Node::default()
        }
    }

    fn page(items: &[(&str, u32)]) -> Vec<Node> {
        let children = items
            .iter()
            .enumerate()
            .map(|(i, (n, id))| el(Role::Button, n, *id, i as i32 * 20))
            .collect();
        vec![Node {
            children,
            ..el(Role::Group, "Form", 1, 0)
        }]
    }

    #[test]
    fn insert_at_top_is_one_added_event() {
        let mut o = Observer::default();
        assert_eq!(o.baseline(&page(&[("A", 2), ("B", 3)])), 3);
        let next = page(&[("New", 4), ("A", 2), ("B", 3)]);
        let ch = o.diff(
            &next,
            Ignore {
                bounds: true,
                focus: false,
            },
        );
        assert_eq!(ch.len(), 1, "{ch:?}");
        assert_eq!(ch[0]["type"], "added");
        assert_eq!(ch[0]["el"]["t"], "New");
        assert_eq!(ch[0]["el"]["i"], 4, "the id its read gave it");
        assert_eq!(ch[0]["p"], "group");
        // Without --ignore-bounds, the shifted ones report their move.
        let ch = o.diff(&page(&[("A", 2), ("B", 3)]), Ignore::default());
        assert!(ch.iter().any(|c| c["type"] == "removed" && c["t"] == "New"));
        assert!(ch
            .iter()
            .any(|c| c["type"] == "changed" && c["changes"]["b"].is_array()));
    }

    #[test]
    fn value_change_and_rerendered_objects() {
        let mut o = Observer::default();
        o.baseline(&page(&[("A", 2)]));
        let mut next = page(&[("A", 2)]);
        next[0].children[0].value = Some("typed".into());
        let ch = o.diff(&next, Ignore::default());
        assert_eq!(ch.len(), 1, "{ch:?}");
        assert_eq!(ch[0]["changes"]["v"], json!(["", "typed"]));
        assert_eq!(ch[0]["id"], 2);
        // A new object in its place has a new id (an action on the old one finds it again
        // by its fingerprint, `refs::rematch`): its going and its coming, as reads show.
        let ch = o.diff(&page(&[("A", 5)]), Ignore::default());
        let kinds: Vec<&str> = ch.iter().map(|c| c["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["added", "removed"], "{ch:?}");
    }

    #[test]
    fn a_renamed_object_is_one_change_under_its_new_id() {
        let mut o = Observer::default();
        let mut first = page(&[("A", 2), ("B", 3)]);
        first[0].children[0].handle = Handle::new("/a");
        o.baseline(&first);
        let mut next = page(&[("A2", 4), ("B", 3)]);
        next[0].children[0].handle = Handle::new("/a");
        let ch = o.diff(&next, Ignore::default());
        assert_eq!(ch.len(), 1, "{ch:?}");
        assert_eq!(ch[0]["type"], "changed");
        assert_eq!(
            (ch[0]["id"].as_u64(), ch[0]["was"].as_u64()),
            (Some(4), Some(2))
        );
        assert_eq!(ch[0]["changes"]["t"], json!(["A", "A2"]));
    }

    #[test]
    fn stable_ui_has_no_events() {
        let mut o = Observer::default();
        o.baseline(&page(&[("A", 2), ("B", 3)]));
        assert!(o
            .diff(&page(&[("A", 2), ("B", 3)]), Ignore::default())
            .is_empty());
    }
}
