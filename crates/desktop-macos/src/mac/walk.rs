//! Reading a window's tree: one batched attribute read per element (and its value where it
//! shows one), at most `MAX_CHILDREN` children in a ranged read, within a budget of elements
//! and time so a huge tree (Electron, Xcode) costs a bounded time; an app that stops
//! answering is `APP_UNRESPONSIVE` for its own commands.

use super::ax::{self, Element};
use crate::attrs::{self, Attrs};
use desktop_core::{Error, ErrorCode, Node, Result};
use objc2_application_services::AXError;
use std::time::{Duration, Instant};

/// How much of a window one read may cost.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub elements: usize,
    pub time: Duration,
    pub depth: u32,
}

/// A window's children as nodes, and why the walk stopped early if it did.
pub struct Walked {
    pub nodes: Vec<Node>,
    pub incomplete: Option<String>,
    pub elements: usize,
}

struct State {
    pid: u32,
    window: usize,
    budget: Budget,
    start: Instant,
    count: usize,
    cut: Option<String>,
}

/// Walks the window element `root` (the window server's window `window`, as handles name it).
pub fn window(root: &Element, pid: u32, window: usize, budget: Budget) -> Result<Walked> {
    let mut st = State {
        pid,
        window,
        budget,
        start: Instant::now(),
        count: 0,
        cut: None,
    };
    let top =
        ax::read(root, attrs::MAX_CHILDREN).map_err(|e| ax::error(e, "reading the window"))?;
    let mut nodes = Vec::new();
    let mut path = Vec::new();
    for (i, child) in top.children.iter().enumerate() {
        path.push(i);
        match visit(child, &mut st, &mut path, 1)? {
            Some(n) => nodes.push(n),
            None => break,
        }
        path.pop();
        if st.cut.is_some() {
            break;
        }
    }
    attrs::clip_to_scroll_areas(&mut nodes, None);
    Ok(Walked {
        nodes,
        incomplete: st.cut,
        elements: st.count,
    })
}

/// One element and what lies below it; `None` once the budget ran out.
fn visit(el: &Element, st: &mut State, path: &mut Vec<usize>, depth: u32) -> Result<Option<Node>> {
    if st.count >= st.budget.elements {
        st.cut = Some(format!("more than {} elements", st.budget.elements));
        return Ok(None);
    }
    if st.start.elapsed() > st.budget.time {
        st.cut = Some(format!("longer than {} ms", st.budget.time.as_millis()));
        return Ok(None);
    }
    st.count += 1;
    let read = match ax::read(el, attrs::MAX_CHILDREN) {
        Ok(r) => r,
        // Gone while we looked: skip it, the rest of the window is still worth reading.
        Err(AXError::InvalidUIElement) => {
            return Ok(Some(attrs::node(
                &Attrs::default(),
                attrs::handle(st.pid, st.window, path),
            )))
        }
        Err(e) => return Err(unresponsive(e)),
    };
    let mut node = attrs::node(&read.attrs, attrs::handle(st.pid, st.window, path));
    node.child_count = u32::try_from(read.child_count).unwrap_or(u32::MAX);
    // A list holding more rows than one read takes says how many it left out.
    node.more =
        u32::try_from(read.child_count.saturating_sub(read.children.len())).unwrap_or(u32::MAX);
    if depth < st.budget.depth {
        for (i, child) in read.children.iter().enumerate() {
            path.push(i);
            let below = visit(child, st, path, depth + 1)?;
            path.pop();
            match below {
                Some(n) => node.children.push(n),
                None => break,
            }
        }
    }
    attrs::named_by_children(&mut node);
    Ok(Some(node))
}

fn unresponsive(e: AXError) -> Error {
    let err = ax::error(e, "reading an element");
    if err.code == ErrorCode::StaleRef {
        // Not one element gone: the app failed mid-read.
        return Error::new(
            ErrorCode::AppUnresponsive,
            "the app stopped answering mid-read",
        )
        .suggest("Wait for the app, or raise --call-timeout");
    }
    err
}

/// The element at `path` below `root`, or `None` when the path no longer leads anywhere.
/// Each step asks for that one child (a range of one), never a whole child list: a step
/// through a huge table costs what a small one does.
pub fn follow(root: &Element, path: &[usize]) -> std::result::Result<Option<Element>, AXError> {
    let mut at = root.clone();
    for &i in path {
        // Reads take at most MAX_CHILDREN children of an element, so no handle of ours
        // steps past them: such a path was not made here.
        if i >= attrs::MAX_CHILDREN {
            return Ok(None);
        }
        match ax::child(&at, i)? {
            Some(k) => at = k,
            None => return Ok(None),
        }
    }
    Ok(Some(at))
}
