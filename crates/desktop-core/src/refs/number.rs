//! Giving ids: an element a read finds again (its handle, showing the same role and name)
//! keeps the id it has; anything else gets the window's next unused number. The first read
//! of a window numbers in tree order from 1, as a read always did, so ids stay small.

use super::resolve::{names_what_it_shows, same_element};
use super::{RefEntry, RefMap, WindowRefs, MAX_ENTRIES};
use crate::model::ReadData;
use crate::node::{Handle, Node, Rect};
use std::collections::HashMap;

/// Named ancestors as `role:name`, the way both recording and re-matching see them.
pub(super) fn step(n: &Node) -> Option<String> {
    (!n.name.is_empty()).then(|| format!("{}:{}", n.role.short(), n.name))
}

impl RefMap {
    /// Numbers every element of `data` with its window's ids, records what changed, and
    /// answers whether anything did (a read that found the window as the last one did, an
    /// agent's loop on a quiet window, changes nothing).
    /// Its window becomes the latest read when `latest`.
    pub fn number_read(&mut self, data: &mut ReadData, latest: bool) -> bool {
        let (window, moved) = self.window_for(data, latest);
        window.number(&mut data.elements) | moved
    }
}

impl WindowRefs {
    /// Gives `nodes` (a read of this window) their ids: see the module's rule.
    fn number(&mut self, nodes: &mut [Node]) -> bool {
        self.reads += 1;
        let read = self.reads;
        let mut changed = false;
        let index: HashMap<&Handle, usize> = self
            .elements
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.gone && !e.handle.is_empty())
            .map(|(i, e)| (&e.handle, i))
            .collect();
        // Decided first, against the entries as they were, then applied.
        let mut found: Vec<Option<usize>> = Vec::new();
        let mut retire: Vec<usize> = Vec::new();
        for n in nodes.iter() {
            n.walk(&mut |x| {
                let hit = index.get(&x.handle).copied();
                match hit {
                    Some(i) if same_kind(&self.elements[i], x) => found.push(Some(i)),
                    Some(i) => {
                        retire.push(i);
                        found.push(None);
                    }
                    None => found.push(None),
                }
            });
        }
        drop(index);
        for i in retire {
            let e = &mut self.elements[i];
            if !e.gone {
                e.gone = true;
                changed = true;
            }
        }
        let mut at = found.into_iter();
        let mut fresh = Vec::new();
        let mut ancestry = Vec::new();
        let mut ctx = Numbering {
            refs: self,
            read,
            changed: &mut changed,
            fresh: &mut fresh,
        };
        ctx.visit(nodes, &mut at, &mut ancestry);
        if !fresh.is_empty() {
            // New ids are above every id given: appending keeps the list in id order.
            self.elements.append(&mut fresh);
            changed = true;
        }
        if self.elements.len() > MAX_ENTRIES {
            self.forget_oldest();
            changed = true;
        }
        changed
    }

    /// Lets go of the entries over [`MAX_ENTRIES`]: those whose element is gone first, then
    /// those seen least recently.
    fn forget_oldest(&mut self) {
        let extra = self.elements.len() - MAX_ENTRIES;
        let mut order: Vec<(bool, u32, u32)> = self
            .elements
            .iter()
            .map(|e| (!e.gone, e.last, e.id))
            .collect();
        order.sort_unstable();
        let dropped: std::collections::HashSet<u32> =
            order.iter().take(extra).map(|(_, _, id)| *id).collect();
        self.elements.retain(|e| !dropped.contains(&e.id));
    }
}

/// The element an entry recorded, where the handle is the same: [`same_element`] (a handle
/// that shows another name or role — a list's row widget given another item, a status
/// line's new text — is another element to an agent, which acts on what it read), or the
/// entry's unnamed element now named by its label child (`-i` after `--full`).
fn same_kind(e: &RefEntry, n: &Node) -> bool {
    same_element(e, n.role.short(), &n.name)
        || (e.role == n.role.short() && e.name.is_empty() && n.name_from_child)
}

fn bounds_of(n: &Node) -> Option<[i32; 4]> {
    n.bounds
        .filter(Rect::is_valid)
        .map(|b| [b.x, b.y, b.w, b.h])
}

struct Numbering<'a> {
    refs: &'a mut WindowRefs,
    read: u32,
    changed: &'a mut bool,
    fresh: &'a mut Vec<RefEntry>,
}

impl Numbering<'_> {
    fn visit(
        &mut self,
        nodes: &mut [Node],
        at: &mut impl Iterator<Item = Option<usize>>,
        ancestry: &mut Vec<String>,
    ) {
        for n in nodes {
            n.id = match at.next().flatten() {
                Some(i) => self.again(i, n, ancestry),
                None => self.new_entry(n, ancestry),
            };
            let pushed = step(n).map(|s| ancestry.push(s)).is_some();
            self.visit(&mut n.children, at, ancestry);
            if pushed {
                ancestry.pop();
            }
        }
    }

    /// An element found again: its id, its entry brought up to date.
    fn again(&mut self, i: usize, n: &Node, ancestry: &[String]) -> u32 {
        let e = &mut self.refs.elements[i];
        e.last = self.read;
        let name = n.name.trim();
        // A combo box showing another option, or a name its label child gives: the entry
        // says what the element reads as now (a read keeping the child leaves it).
        let renamed = names_what_it_shows(&e.role) || (e.name.is_empty() && n.name_from_child);
        if renamed && e.name != name {
            e.name = name.to_string();
            e.label |= n.name_from_child;
            *self.changed = true;
        }
        let b = bounds_of(n);
        if b.is_some() && e.bounds != b {
            e.bounds = b;
            *self.changed = true;
        }
        // A read that shows fewer of the ancestors (`--roles`, `-i`) says less, not
        // something else: the fuller line is kept unless this one departs from it.
        if e.ancestry != ancestry && !super::resolve::is_subsequence(ancestry, &e.ancestry) {
            e.ancestry = ancestry.to_vec();
            *self.changed = true;
        }
        e.id
    }

    fn new_entry(&mut self, n: &Node, ancestry: &[String]) -> u32 {
        let id = self.refs.next;
        self.refs.next += 1;
        self.fresh.push(RefEntry {
            id,
            handle: n.handle.clone(),
            role: n.role.short().to_string(),
            name: n.name.trim().to_string(),
            label: n.name_from_child,
            ancestry: ancestry.to_vec(),
            bounds: bounds_of(n),
            first: self.read,
            last: self.read,
            gone: false,
        });
        id
    }
}
