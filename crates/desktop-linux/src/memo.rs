//! What earlier reads of one window learned (`Memo`), kept by `observe` and the warm mirrors
//! between reads: elements the app has not named in a notice since are not asked again, a
//! timed look asks again what the toolkit may change silently, and reads compared with each
//! other (`observe`) take a wordless element's clue, and where boxes do not matter leave its
//! box out, from the last read.

use crate::bus::Addr;
use crate::children::Kids;
use crate::tree::Trust;
use desktop_core::Node;
use std::collections::HashMap;

/// What earlier walks of one window learned, kept by `observe` between reads: elements the
/// app has not reported a change of since are not asked again.
#[derive(Debug, Default)]
pub struct Memo {
    /// Each element's own properties as last asked, by path.
    pub(crate) info: HashMap<String, Node>,
    /// Each element's children list as last asked, by path.
    pub(crate) children: HashMap<String, Kids>,
    /// Elements the app named since they were asked: themselves, and their children.
    pub(crate) dirty_info: std::collections::HashSet<String>,
    pub(crate) dirty_children: std::collections::HashSet<String>,
    /// Children lists are asked again on every read: the toolkit moves, adds or removes
    /// children without always saying so (GTK 3, Qt 5, Chromium's walked parts).
    pub(crate) recheck_children: bool,
    /// Every remembered element's states are asked again on every read, not only list,
    /// table and tree items': the toolkit changes what shows without a word (Qt 5).
    pub(crate) restate_all: bool,
    /// A timed look is due ([`Memo::poll`]); the next read settles what it asks again.
    poll: bool,
    /// This read asks every children list again (a timed look at a toolkit that drops
    /// structural notices).
    pub(crate) recheck_once: bool,
    /// This read asks every remembered element's states again too (the window was seen to
    /// change where the app said nothing: Chromium's SHOWING on scrolling).
    pub(crate) restate_once: bool,
    /// What reads compared with each other (`observe`) take from the last one.
    reuse: Option<Reuse>,
}

/// What a read takes from the last one where nothing named an element since (`observe`,
/// through [`Memo::reuse`]): a wordless element's clue (its attributes and actions, asked
/// again only where the element itself changed or was named), and, where the caller
/// compares no boxes and keeps elements wherever they are, no box at all for an element
/// seen before (never a stale one: it comes without). A timed look asks every clue again,
/// and still leaves out the boxes of elements as they were.
#[derive(Debug, Default)]
struct Reuse {
    /// Boxes are asked of every element still.
    boxes: bool,
    /// The last read's elements: a digest of what they were, and the clue found, if asked.
    last: HashMap<String, (u64, Option<(String, bool)>)>,
    /// Elements the app named since the last read.
    named: std::collections::HashSet<String>,
    /// The next read takes nothing from the last (a timed look is due).
    off: bool,
}

impl Reuse {
    /// The last read's entry for the element at `path`, if it may stand: no timed look is
    /// due, nothing named the element since, and its digest is `d` still.
    fn known(&self, path: &str, d: u64) -> Option<&(u64, Option<(String, bool)>)> {
        if self.off || !self.unchanged(path, d) {
            return None;
        }
        self.last.get(path)
    }

    /// Whether the element at `path` is as the last read found it and nothing named it
    /// since: its box may be left out even in a timed look, which asks its clue again (a
    /// page changes an icon's class without a word) but has no use for a box the caller
    /// never compares.
    fn unchanged(&self, path: &str, d: u64) -> bool {
        !self.named.contains(path) && self.last.get(path).is_some_and(|(was, _)| *was == d)
    }
}

/// What an element was, as far as its clue goes: role, name, states, interfaces, and its
/// children's roles and names (a wordless element's clue depends on them too).
fn digest(n: &Node) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&n.role, &n.name, n.states, n.caps, n.child_count).hash(&mut h);
    for c in &n.children {
        (&c.role, &c.name).hash(&mut h);
    }
    h.finish()
}

impl Memo {
    /// The app reported a change of the object at `path` (of its children, or of itself).
    /// A change of children changes the object's child count too.
    pub fn touched(&mut self, path: &str, children: bool) {
        if children {
            self.dirty_children.insert(path.to_string());
        }
        self.dirty_info.insert(path.to_string());
        if let Some(r) = self.reuse.as_mut() {
            r.named.insert(path.to_string());
        }
    }

    /// Reads through this memo are compared with each other (`observe`): what an element
    /// was in the last read is taken again where nothing named it since ([`Reuse`]); with
    /// `boxes` false, such an element's box is left out instead of asked.
    pub fn reuse(&mut self, boxes: bool) {
        self.reuse = Some(Reuse {
            boxes,
            ..Reuse::default()
        });
    }

    /// The last read's clue of `n` (hint, clickable), if it may stand for this read's.
    pub(crate) fn clue(&self, n: &Node) -> Option<(String, bool)> {
        self.known(n).and_then(|(_, clue)| clue.clone())
    }

    /// Whether `n`'s box is left out of this read (see [`Memo::reuse`]).
    #[cfg(test)]
    pub(crate) fn spares_box(&self, n: &Node) -> bool {
        self.reuse
            .as_ref()
            .is_some_and(|r| !r.boxes && r.unchanged(n.handle.path(), digest(n)))
    }

    /// What the last read found of `n`, if nothing named it since and it is as it was.
    fn known(&self, n: &Node) -> Option<&(u64, Option<(String, bool)>)> {
        self.reuse.as_ref()?.known(n.handle.path(), digest(n))
    }

    /// Keeps what this read found of the elements under `nodes` (`clue`: each one's clue
    /// if it had one asked or taken), for the next read to take from; returns the paths of
    /// those whose box this read leaves out (see [`Memo::reuse`]), each element's digest
    /// made once for both.
    pub(crate) fn read_done(
        &mut self,
        nodes: &[Node],
        clue: impl Fn(&Node) -> bool,
    ) -> std::collections::HashSet<String> {
        let mut spared = std::collections::HashSet::new();
        let Some(r) = self.reuse.as_mut() else {
            return spared;
        };
        let mut last = HashMap::with_capacity(r.last.len());
        for n in nodes {
            n.walk(&mut |x| {
                let (path, d) = (x.handle.path(), digest(x));
                if !r.boxes && r.unchanged(path, d) {
                    spared.insert(path.to_string());
                }
                let found = clue(x).then(|| (x.hint.clone(), x.clickable));
                last.insert(path.to_string(), (d, found));
            });
        }
        r.last = last;
        r.named.clear();
        r.off = false;
        spared
    }

    /// The next read asks every remembered element's states and children again.
    pub fn restate(&mut self) {
        self.recheck_once = true;
        self.restate_once = true;
    }

    /// Whether the next read asks every remembered element's states.
    pub fn restating(&self) -> bool {
        self.restate_once || self.restate_all
    }

    /// Whether earlier reads had to walk (the app's cache lacked part of the window).
    pub fn walked_any(&self) -> bool {
        !self.children.is_empty()
    }

    /// An empty memo; `recheck` asks children lists again on every read, `restate_all` every
    /// element's states.
    pub(crate) fn rechecking(recheck: bool, restate_all: bool) -> Memo {
        Memo {
            recheck_children: recheck,
            restate_all,
            ..Memo::default()
        }
    }

    /// A timed look: the next read asks again what the window's toolkit may change without
    /// a notice ([`Trust`]): nothing for GTK 4, children lists for GTK 3 and Chromium, and
    /// every element's states too for Qt 5, everything for the rest.
    pub fn poll(&mut self) {
        self.poll = true;
        if let Some(r) = self.reuse.as_mut() {
            r.off = true;
        }
    }

    /// What a pending timed look asks again, now that the toolkit is known.
    pub(crate) fn settle_poll(&mut self, trust: Trust) {
        if !std::mem::take(&mut self.poll) {
            return;
        }
        match trust {
            Trust::Everything => {}
            Trust::NamesAndStates => self.recheck_once = true,
            // States too, of every element (what is asked again is asked in full): Qt 5
            // changes what shows without a word.
            Trust::Names => {
                self.recheck_once = true;
                self.restate_all = true;
            }
            Trust::Nothing => self.clear(),
        }
    }

    /// A child that came into a children list it was not in before is asked about afresh,
    /// with all below it: it may come back from where the app tells nothing (a hidden part
    /// whose changes went unsignalled, under the same names).
    pub(crate) fn forget_arrivals(&mut self, old: &Kids, new: &Kids) {
        let mut stack: Vec<String> = new
            .refs
            .iter()
            .filter(|r| !old.refs.contains(r))
            .map(|(_, path)| path.to_string())
            .collect();
        let mut seen = std::collections::HashSet::new();
        while let Some(path) = stack.pop() {
            if !seen.insert(path.clone()) {
                continue;
            }
            self.info.remove(&path);
            if let Some(kids) = self.children.remove(&path) {
                stack.extend(kids.refs.iter().map(|(_, p)| p.to_string()));
            }
        }
    }

    /// Forgets everything (the next read asks the app about every element again), but for
    /// what leaves out, where boxes do not matter, the boxes of elements found as they were.
    pub fn clear(&mut self) {
        let reuse = self.reuse.take();
        *self = Memo {
            recheck_children: self.recheck_children,
            restate_all: self.restate_all,
            ..Memo::default()
        };
        if let Some(r) = reuse {
            self.reuse = Some(Reuse {
                boxes: r.boxes,
                last: if r.boxes { HashMap::new() } else { r.last },
                named: r.named,
                off: true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    //! What a timed look asks again, by how far the toolkit's notices are trusted.

    use super::*;
    use desktop_core::Handle;

    fn filled() -> Memo {
        let mut m = Memo::default();
        m.children.insert(
            "/a".into(),
            Kids {
                refs: Vec::new(),
                total: None,
            },
        );
        m
    }

    #[test]
    fn a_timed_look_asks_again_what_the_toolkit_may_change_silently() {
        let mut m = filled();
        m.poll();
        m.settle_poll(Trust::Everything);
        assert!(
            !m.recheck_once && m.walked_any(),
            "GTK 4: nothing asked again"
        );

        let mut m = filled();
        m.poll();
        m.settle_poll(Trust::NamesAndStates);
        assert!(
            m.recheck_once && m.walked_any(),
            "children lists only, the rest kept"
        );

        assert!(!m.restate_all, "states trusted");

        let mut m = filled();
        m.poll();
        m.settle_poll(Trust::Names);
        assert!(
            m.recheck_once && m.restate_all && m.walked_any(),
            "Qt 5: children lists and every state"
        );

        let mut m = filled();
        m.poll();
        m.settle_poll(Trust::Nothing);
        assert!(!m.walked_any(), "everything forgotten");
    }

    #[test]
    fn without_a_timed_look_nothing_is_asked_again() {
        let mut m = filled();
        m.settle_poll(Trust::Nothing);
        assert!(m.walked_any() && !m.recheck_once);
        m.poll();
        m.settle_poll(Trust::NamesAndStates);
        m.recheck_once = false; // as the read does once it has walked
        m.settle_poll(Trust::NamesAndStates);
        assert!(!m.recheck_once, "one look, one recheck");
    }

    /// An element as a read gives it, at `path`, wordless (`name` "") or named.
    fn element(path: &str, name: &str) -> Node {
        Node {
            role: desktop_core::Role::Button,
            name: name.into(),
            hint: "play".into(),
            handle: Handle::new(format!(":1.5{path}")),
            ..Node::default()
        }
    }

    #[test]
    fn reads_compared_take_from_the_last_only_what_nothing_named_since() {
        let (icon, other) = (element("/icon", ""), element("/other", "Save"));
        let read = [icon.clone(), other.clone()];
        let mut m = Memo::default();
        // Not asked for: nothing taken.
        m.read_done(&read, |_| true);
        assert!(m.clue(&icon).is_none() && !m.spares_box(&icon));
        m.reuse(false);
        assert!(m.clue(&icon).is_none(), "nothing read yet");
        m.read_done(&read, |n| n.name.is_empty());
        assert_eq!(m.clue(&icon), Some(("play".into(), false)));
        assert!(m.clue(&other).is_none(), "no clue was asked of it");
        assert!(m.spares_box(&icon) && m.spares_box(&other));
        // Named by a notice, or changed: asked again, box and all.
        m.touched("/icon", false);
        assert!(m.clue(&icon).is_none() && !m.spares_box(&icon));
        assert!(m.spares_box(&other));
        m.read_done(&read, |n| n.name.is_empty());
        let renamed = element("/icon", "Pause");
        assert!(m.clue(&renamed).is_none() && !m.spares_box(&renamed));
        // A new element is asked.
        assert!(!m.spares_box(&element("/new", "")));
        // A timed look takes no clue (a page changes an icon's class silently), but leaves
        // out the boxes of elements as they were; the read after it takes again.
        m.poll();
        assert!(m.clue(&icon).is_none() && m.spares_box(&other));
        assert!(!m.spares_box(&renamed));
        m.read_done(&read, |n| n.name.is_empty());
        assert!(m.clue(&icon).is_some());
        // Forgetting keeps the asking, not what was read but for boxes that do not matter.
        m.clear();
        assert!(m.clue(&icon).is_none() && m.spares_box(&other));
        assert!(!m.spares_box(&renamed));
        m.read_done(&read, |n| n.name.is_empty());
        assert!(m.spares_box(&other) && m.clue(&icon).is_some());
        // Boxes that matter are never spared.
        m.reuse(true);
        m.read_done(&read, |n| n.name.is_empty());
        assert!(m.clue(&icon).is_some() && !m.spares_box(&other));
    }
}
