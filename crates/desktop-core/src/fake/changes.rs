//! The fake's change notices, as an app sends them: when a window's tree changes (a test's
//! `mutate`, an action that flips, types or sets something), each subscriber of that window
//! is told which elements changed themselves and which had children added or removed,
//! by the fake's handles. No notice for a change that changed nothing.

use crate::backend::{Change, Changes};
use crate::node::{Handle, Node};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Poll, Waker};

/// What one subscription has been told and not yet taken.
#[derive(Debug, Default)]
struct Inbox {
    queue: VecDeque<Change>,
    /// The task waiting in `next`, woken by the next notice.
    waker: Option<Waker>,
    /// The window closed: `next` ends once the queue is empty.
    closed: bool,
}

impl Inbox {
    fn wake(&mut self) {
        if let Some(w) = self.waker.take() {
            w.wake();
        }
    }
}

/// A poisoned lock only means a test panicked mid-notice; the queue is still usable.
fn lock(inbox: &Mutex<Inbox>) -> MutexGuard<'_, Inbox> {
    inbox.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One window's change notices (`Desktop::changes` on the fake). Shared through a mutex
/// rather than a `RefCell` so the fake stays `Send`, as a backend's desktop may need to be.
#[derive(Debug)]
pub struct FakeChanges(Arc<Mutex<Inbox>>);

impl Changes for FakeChanges {
    async fn next(&mut self) -> Option<Change> {
        std::future::poll_fn(|cx| {
            let mut inbox = lock(&self.0);
            if let Some(c) = inbox.queue.pop_front() {
                return Poll::Ready(Some(c));
            }
            if inbox.closed {
                return Poll::Ready(None);
            }
            inbox.waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }

    fn try_next(&mut self) -> Option<Change> {
        lock(&self.0).queue.pop_front()
    }
}

/// Who listens to which window (by window id); a dropped subscription is forgotten at the
/// next notice.
#[derive(Debug, Default)]
pub(super) struct Subscribers(Vec<(u64, Weak<Mutex<Inbox>>)>);

impl Subscribers {
    pub(super) fn subscribe(&mut self, window: u64) -> FakeChanges {
        let inbox = Arc::new(Mutex::new(Inbox::default()));
        self.0.push((window, Arc::downgrade(&inbox)));
        FakeChanges(inbox)
    }

    /// Every subscriber of `window` gets `changes`, in order.
    pub(super) fn send(&mut self, window: u64, changes: &[Change]) {
        if changes.is_empty() {
            return;
        }
        self.0.retain(|(_, w)| w.strong_count() > 0);
        for inbox in self.of(window) {
            let mut inbox = lock(&inbox);
            inbox.queue.extend(changes.iter().cloned());
            inbox.wake();
        }
    }

    /// The window closed: its subscribers' streams end.
    pub(super) fn close(&mut self, window: u64) {
        for inbox in self.of(window) {
            let mut inbox = lock(&inbox);
            inbox.closed = true;
            inbox.wake();
        }
        self.0.retain(|(w, _)| *w != window);
    }

    fn of(&self, window: u64) -> Vec<Arc<Mutex<Inbox>>> {
        self.0
            .iter()
            .filter(|(w, _)| *w == window)
            .filter_map(|(_, inbox)| inbox.upgrade())
            .collect()
    }
}

/// One element as it was: itself (without its children) and its children's handles.
struct Seen {
    own: Node,
    children: Vec<Handle>,
}

fn index(nodes: &[Node], out: &mut HashMap<Handle, Seen>) {
    for n in nodes {
        let mut own = n.clone();
        own.children.clear();
        let children = n.children.iter().map(|c| c.handle.clone()).collect();
        out.insert(n.handle.clone(), Seen { own, children });
        index(&n.children, out);
    }
}

/// The notices for a window's tree going from `before` to `after` (elements matched by
/// handle): an element whose own fields changed is a change of itself; one whose list of
/// children changed (added, removed, reordered) a change of its children; a change of the
/// top-level list is a change of the window's children (`root`). A new element is reported
/// through its parent only, as toolkits do.
pub(super) fn notices(root: &Handle, before: &[Node], after: &[Node]) -> Vec<Change> {
    let mut old = HashMap::new();
    index(before, &mut old);
    let mut out = Vec::new();
    let handles = |nodes: &[Node]| nodes.iter().map(|n| n.handle.clone()).collect::<Vec<_>>();
    if handles(before) != handles(after) {
        out.push(Change {
            handle: root.clone(),
            children: true,
        });
    }
    fn walk(nodes: &[Node], old: &HashMap<Handle, Seen>, out: &mut Vec<Change>) {
        for n in nodes {
            if let Some(was) = old.get(&n.handle) {
                let mut own = n.clone();
                own.children.clear();
                if own != was.own {
                    out.push(Change {
                        handle: n.handle.clone(),
                        children: false,
                    });
                }
                let children: Vec<&Handle> = n.children.iter().map(|c| &c.handle).collect();
                if children != was.children.iter().collect::<Vec<_>>() {
                    out.push(Change {
                        handle: n.handle.clone(),
                        children: true,
                    });
                }
            }
            walk(&n.children, old, out);
        }
    }
    walk(after, &old, &mut out);
    // A test may give two elements one handle; each notice once is enough.
    let mut told = HashSet::new();
    out.retain(|c| told.insert((c.handle.clone(), c.children)));
    out
}
