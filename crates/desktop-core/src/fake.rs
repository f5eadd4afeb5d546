//! An in-memory desktop for tests of platform-neutral logic (ref resolution, `wait`,
//! `observe`, the agent's steps): windows whose trees a test can mutate, elements that react
//! to actions the way toolkits do (check boxes flip, fields take text and values), change
//! notices for every change of a tree, and a log of every input. No display, no
//! accessibility bus: these tests run in milliseconds, and every backend inherits what they
//! pin down.

mod changes;
mod desktop;
mod windows;

pub use changes::FakeChanges;

use crate::backend::{Desktop, Display};
use crate::error::{Error, ErrorCode, Result};
use crate::filter::Filters;
use crate::model::{ReadData, Target, WindowInfo};
use crate::node::{Handle, Node, Rect, States};
use std::cell::RefCell;
use std::path::PathBuf;

/// The fake desktop. Handles are `/fake/N`, given to every element without one, unique
/// across its windows.
#[derive(Debug)]
pub struct FakeDesktop {
    state: RefCell<State>,
    refs: PathBuf,
}

/// One top-level window: what `windows` lists, and its tree.
#[derive(Debug)]
struct Window {
    info: WindowInfo,
    tree: Vec<Node>,
    /// Closed windows keep their place (the first window stays the first) but are not
    /// listed, read or acted on.
    open: bool,
}

#[derive(Debug)]
struct State {
    windows: Vec<Window>,
    next: u32,
    inputs: Vec<String>,
    displays: Vec<Display>,
    /// Where the pointer is (None: the platform cannot tell).
    pointer: Option<(i32, i32)>,
    subscribers: changes::Subscribers,
}

/// The first window's id; later ones count up from it.
const FIRST_WINDOW: u64 = 0x40_0001;
/// The first app's pid; other apps count up from it.
const FIRST_PID: u32 = 4242;

/// An element for a fake tree: role, name, bounds, children.
pub fn el(role: crate::Role, name: &str, b: (i32, i32, i32, i32), children: Vec<Node>) -> Node {
    Node {
        role,
        name: name.into(),
        bounds: Some(Rect::new(b.0, b.1, b.2, b.3)),
        states: States::SHOWING,
        children,
        ..Node::default()
    }
}

fn find_in<'a>(nodes: &'a mut [Node], h: &Handle) -> Option<&'a mut Node> {
    for n in nodes {
        if &n.handle == h {
            return Some(n);
        }
        if let Some(found) = find_in(&mut n.children, h) {
            return Some(found);
        }
    }
    None
}

fn window_id(w: &Window) -> u64 {
    w.info.id.unwrap_or_default()
}

impl State {
    fn assign_handles(&mut self) {
        fn walk(nodes: &mut [Node], next: &mut u32) {
            for n in nodes {
                if n.handle.is_empty() {
                    *next += 1;
                    n.handle = Handle::new(format!("/fake/{next}"));
                }
                walk(&mut n.children, next);
            }
        }
        for w in &mut self.windows {
            walk(&mut w.tree, &mut self.next);
        }
    }

    fn index_of(&self, id: u64) -> Result<usize> {
        self.windows
            .iter()
            .position(|w| w.info.id == Some(id))
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::WindowNotFound,
                    format!("the fake desktop has no window {id}"),
                )
            })
    }

    /// The open window `info` describes (by id, else by its root's handle).
    fn open_index(&self, info: &WindowInfo) -> Result<usize> {
        self.windows
            .iter()
            .position(|w| {
                w.open
                    && match info.id {
                        Some(id) => w.info.id == Some(id),
                        None => w.info.handle.is_some() && w.info.handle == info.handle,
                    }
            })
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::WindowNotFound,
                    format!("the window \"{}\" is closed", info.title),
                )
            })
    }

    /// The open window holding the element `handle`.
    fn holding(&self, handle: &Handle) -> Option<usize> {
        fn has(nodes: &[Node], h: &Handle) -> bool {
            nodes.iter().any(|n| &n.handle == h || has(&n.children, h))
        }
        self.windows
            .iter()
            .position(|w| w.open && has(&w.tree, handle))
    }

    fn open_windows(&self) -> Vec<WindowInfo> {
        self.windows
            .iter()
            .filter(|w| w.open)
            .map(|w| w.info.clone())
            .collect()
    }

    /// Changes window `k`'s tree with `f`, gives new elements handles, and tells the
    /// window's subscribers what changed.
    fn change<T>(&mut self, k: usize, f: impl FnOnce(&mut Vec<Node>) -> T) -> T {
        let before = self.windows[k].tree.clone();
        let out = f(&mut self.windows[k].tree);
        self.assign_handles();
        let w = &self.windows[k];
        let root = w.info.handle.clone().unwrap_or_default();
        let told = changes::notices(&root, &before, &w.tree);
        self.subscribers.send(window_id(w), &told);
        out
    }
}

impl FakeDesktop {
    /// A desktop with one window of app `app`, titled `title`, showing `tree` (focused);
    /// the ids of its reads are kept in `refs` (a file the test owns).
    pub fn new(app: &str, title: &str, tree: Vec<Node>, refs: PathBuf) -> FakeDesktop {
        let d = FakeDesktop {
            state: RefCell::new(State {
                windows: Vec::new(),
                next: 0,
                inputs: Vec::new(),
                displays: vec![Display::new(Rect::new(0, 0, 1280, 800), 1.0, true)],
                pointer: Some((640, 400)),
                subscribers: changes::Subscribers::default(),
            }),
            refs,
        };
        d.add_window(app, title, tree);
        d.state.borrow_mut().windows[0].info.focused = true;
        d
    }

    /// Opens another window (not focused: see [`FakeDesktop::focus_window`]) and returns its
    /// id. A window of an app already on the desktop shares its pid; each window is placed
    /// 40 units right of and below the one before.
    pub fn add_window(&self, app: &str, title: &str, tree: Vec<Node>) -> u64 {
        let mut s = self.state.borrow_mut();
        let k = s.windows.len();
        let id = FIRST_WINDOW + k as u64;
        let pid = match s.windows.iter().find(|w| w.info.app == app) {
            Some(w) => w.info.pid,
            None => {
                let mut apps: Vec<&str> = s.windows.iter().map(|w| w.info.app.as_str()).collect();
                apps.sort_unstable();
                apps.dedup();
                FIRST_PID + apps.len() as u32
            }
        };
        let offset = 40 * k as i32;
        // The first window keeps the handle it always had; tests may hold on to it.
        let handle = match k {
            0 => "/fake/window".to_string(),
            _ => format!("/fake/window/{}", k + 1),
        };
        s.windows.push(Window {
            info: WindowInfo {
                app: app.into(),
                pid,
                title: title.into(),
                id: Some(id),
                bounds: Some(Rect::new(offset, offset, 800, 600)),
                focused: false,
                a11y: true,
                modal: false,
                state: Default::default(),
                display: None,
                handle: Some(Handle::new(handle)),
            },
            tree,
            open: true,
        });
        s.assign_handles();
        id
    }

    /// Changes the first window's tree, as the app would (new elements get handles, the
    /// window's subscribers are told what changed).
    pub fn mutate(&self, f: impl FnOnce(&mut Vec<Node>)) {
        self.state.borrow_mut().change(0, f);
    }

    /// Changes the tree of window `id`, as [`FakeDesktop::mutate`] does the first's.
    pub fn mutate_window(&self, id: u64, f: impl FnOnce(&mut Vec<Node>)) -> Result<()> {
        let mut s = self.state.borrow_mut();
        let k = s.index_of(id)?;
        s.change(k, f);
        Ok(())
    }

    /// Closes the first window.
    pub fn close(&self) {
        self.close_k(0);
    }

    /// Closes window `id`: it is no longer listed, its ids go stale, its notices end.
    pub fn close_window(&self, id: u64) -> Result<()> {
        let k = self.state.borrow().index_of(id)?;
        self.close_k(k);
        Ok(())
    }

    fn close_k(&self, k: usize) {
        let mut s = self.state.borrow_mut();
        let w = &mut s.windows[k];
        w.open = false;
        w.info.focused = false;
        let id = window_id(w);
        s.subscribers.close(id);
    }

    /// Gives window `id` the focus (taking it from the others), as a click on it would.
    pub fn focus_window(&self, id: u64) -> Result<()> {
        let mut s = self.state.borrow_mut();
        let k = s.index_of(id)?;
        for (i, w) in s.windows.iter_mut().enumerate() {
            w.info.focused = i == k;
        }
        Ok(())
    }

    /// Every input the desktop received, in order (`"click /fake/3"`, `"type /fake/2 abc"`).
    pub fn inputs(&self) -> Vec<String> {
        self.state.borrow().inputs.clone()
    }

    /// The element with this handle path, as it is now (in any window).
    pub fn node(&self, path: &str) -> Option<Node> {
        let h = Handle::new(path);
        let mut s = self.state.borrow_mut();
        s.windows
            .iter_mut()
            .find_map(|w| find_in(&mut w.tree, &h).map(|n| n.clone()))
    }

    /// Reads the focused window as `read` does (its ids recorded by the read itself).
    pub async fn read_and_record(&self, filters: &Filters) -> Result<ReadData> {
        self.read(&Target::default(), filters).await
    }

    /// Replaces the displays (several, scaled, left of or above the primary one).
    pub fn set_displays(&self, displays: Vec<Display>) {
        self.state.borrow_mut().displays = displays;
    }

    /// Moves the pointer (None: its position unknown, as on a platform that cannot tell).
    pub fn set_pointer(&self, at: Option<(i32, i32)>) {
        self.state.borrow_mut().pointer = at;
    }
}

/// A fresh, private refs file for one test.
pub fn refs_file(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("desktop-cli-fake-{}", std::process::id()));
    let _ = crate::private::make_dir(&dir);
    let path = dir.join(format!("{test}.json"));
    let _ = std::fs::remove_file(&path);
    path
}

/// Runs a future to completion on the current thread by polling it until it is ready (the
/// fake never waits on anything; a future that waits for a change notice nobody sends
/// would spin: take notices with `try_next` here, or run on a real runtime).
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut cx = Context::from_waker(Waker::noop());
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}
