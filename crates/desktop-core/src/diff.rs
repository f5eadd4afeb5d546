//! `observe`'s diff: elements are followed by identity (backend handle first, then
//! fingerprint: role, name, named ancestors), not by traversal index, so one element
//! inserted at the top is one `added` event rather than a cascade. Each element keeps the
//! id it was first given for the whole observation.

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

/// One element as last seen.
#[derive(Clone, Debug)]
struct Seen {
    id: u32,
    handle: Handle,
    fingerprint: String,
    node: Node,
}

/// Follows a window's elements from one read to the next.
#[derive(Debug, Default)]
pub struct Observer {
    next_id: u32,
    seen: Vec<Seen>,
}

/// One change, as the JSON object `observe` prints (without `ts`).
pub type Change = Value;

fn flatten(nodes: &[Node]) -> Vec<(Node, String, String)> {
    let mut out = Vec::new();
    fn go(
        nodes: &[Node],
        roles: &mut Vec<String>,
        named: &mut Vec<String>,
        out: &mut Vec<(Node, String, String)>,
    ) {
        for n in nodes {
            let mut flat = n.clone();
            flat.children.clear();
            let fingerprint = format!("{}|{}|{}", n.role.short(), n.name, named.join(">"));
            out.push((flat, fingerprint, roles.join(" > ")));
            roles.push(n.role.short().to_string());
            let pushed = !n.name.is_empty();
            if pushed {
                named.push(format!("{}:{}", n.role.short(), n.name));
            }
            go(&n.children, roles, named, out);
            roles.pop();
            if pushed {
                named.pop();
            }
        }
    }
    go(nodes, &mut Vec::new(), &mut Vec::new(), &mut out);
    out
}

impl Observer {
    /// Takes the first read; returns the number of elements.
    pub fn baseline(&mut self, nodes: &mut [Node]) -> usize {
        let flat = flatten(nodes);
        self.seen = flat
            .into_iter()
            .map(|(node, fingerprint, _)| {
                self.next_id += 1;
                Seen {
                    id: self.next_id,
                    handle: node.handle.clone(),
                    fingerprint,
                    node,
                }
            })
            .collect();
        self.assign_ids(nodes);
        self.seen.len()
    }

    /// Compares a new read with the last one and returns the changes; `nodes` get the
    /// observer's ids (so actions on them work with `--id`).
    pub fn diff(&mut self, nodes: &mut [Node], ignore: Ignore) -> Vec<Change> {
        let flat = flatten(nodes);
        let mut prev_by_handle: HashMap<&Handle, usize> = HashMap::new();
        for (i, s) in self.seen.iter().enumerate() {
            prev_by_handle.insert(&s.handle, i);
        }
        let mut taken = vec![false; self.seen.len()];
        let mut matched: Vec<Option<usize>> = vec![None; flat.len()];
        for (k, (node, _, _)) in flat.iter().enumerate() {
            if let Some(&i) = prev_by_handle.get(&node.handle) {
                if !taken[i] {
                    taken[i] = true;
                    matched[k] = Some(i);
                }
            }
        }
        // A new object that looks the same as a vanished one is the same element re-made.
        for (k, (_, fp, _)) in flat.iter().enumerate() {
            if matched[k].is_none() {
                if let Some(i) =
                    (0..self.seen.len()).find(|&i| !taken[i] && &self.seen[i].fingerprint == fp)
                {
                    taken[i] = true;
                    matched[k] = Some(i);
                }
            }
        }
        let mut changes = Vec::new();
        let mut next_seen = Vec::with_capacity(flat.len());
        for (k, (node, fingerprint, path)) in flat.into_iter().enumerate() {
            let id = match matched[k] {
                Some(i) => {
                    let before = &self.seen[i];
                    let fields = changed_fields(&before.node, &node, ignore);
                    if !fields.is_empty() {
                        changes
                            .push(json!({"type": "changed", "id": before.id, "changes": fields}));
                    }
                    before.id
                }
                None => {
                    self.next_id += 1;
                    let mut el = node.clone();
                    el.id = self.next_id;
                    let el = serde_json::to_value(Compact::flat(&el)).unwrap_or(Value::Null);
                    changes.push(json!({"type": "added", "el": el, "p": path}));
                    self.next_id
                }
            };
            next_seen.push(Seen {
                id,
                handle: node.handle.clone(),
                fingerprint,
                node,
            });
        }
        for (i, s) in self.seen.iter().enumerate() {
            if !taken[i] {
                let mut gone = json!({"type": "removed", "id": s.id, "r": s.node.role.short()});
                if !s.node.name.is_empty() {
                    gone["t"] = json!(s.node.name);
                }
                changes.push(gone);
            }
        }
        self.seen = next_seen;
        self.assign_ids(nodes);
        changes
    }

    /// Writes the observer's ids into the tree, in the same pre-order the flattening used.
    fn assign_ids(&self, nodes: &mut [Node]) {
        let mut it = self.seen.iter().map(|s| s.id);
        for n in nodes.iter_mut() {
            n.walk_mut(&mut |x| x.id = it.next().unwrap_or(0));
        }
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

    fn el(role: Role, name: &str, path: &str, y: i32) -> Node {
        Node {
            role,
            name: name.into(),
            handle: Handle::new(path),
            bounds: Some(Rect::new(0, y, 50, 20)),
            ..Node::default()
        }
    }

    fn page(items: &[(&str, &str)]) -> Vec<Node> {
        let children = items
            .iter()
            .enumerate()
            .map(|(i, (n, p))| el(Role::Button, n, p, i as i32 * 20))
            .collect();
        vec![Node {
            children,
            ..el(Role::Group, "Form", "/form", 0)
        }]
    }

    #[test]
    fn insert_at_top_is_one_added_event() {
        let mut o = Observer::default();
        let mut first = page(&[("A", "/a"), ("B", "/b")]);
        assert_eq!(o.baseline(&mut first), 3);
        let mut next = page(&[("New", "/n"), ("A", "/a"), ("B", "/b")]);
        let ch = o.diff(
            &mut next,
            Ignore {
                bounds: true,
                focus: false,
            },
        );
        assert_eq!(ch.len(), 1, "{ch:?}");
        assert_eq!(ch[0]["type"], "added");
        assert_eq!(ch[0]["el"]["t"], "New");
        assert_eq!(ch[0]["el"]["i"], 4, "new ids continue after the baseline's");
        assert_eq!(ch[0]["p"], "group");
        // Ids stay with their elements.
        assert_eq!(next[0].children[1].id, 2);
        // Without --ignore-bounds, the shifted ones report their move.
        let mut again = page(&[("A", "/a"), ("B", "/b")]);
        let ch = o.diff(&mut again, Ignore::default());
        assert!(ch.iter().any(|c| c["type"] == "removed" && c["t"] == "New"));
        assert!(ch
            .iter()
            .any(|c| c["type"] == "changed" && c["changes"]["b"].is_array()));
    }

    #[test]
    fn value_change_and_rerendered_objects() {
        let mut o = Observer::default();
        let mut first = page(&[("A", "/a")]);
        o.baseline(&mut first);
        let mut next = page(&[("A", "/a2")]);
        next[0].children[0].value = Some("typed".into());
        let ch = o.diff(&mut next, Ignore::default());
        assert_eq!(
            ch.len(),
            1,
            "same fingerprint, new object: one change, not remove+add: {ch:?}"
        );
        assert_eq!(ch[0]["changes"]["v"], json!(["", "typed"]));
        assert_eq!(ch[0]["id"], 2);
        assert!(o
            .diff(&mut page(&[("A", "/a2")]), Ignore::default())
            .iter()
            .all(|c| c["type"] == "changed"));
    }

    #[test]
    fn stable_ui_has_no_events() {
        let mut o = Observer::default();
        o.baseline(&mut page(&[("A", "/a"), ("B", "/b")]));
        assert!(o
            .diff(&mut page(&[("A", "/a"), ("B", "/b")]), Ignore::default())
            .is_empty());
    }
}
