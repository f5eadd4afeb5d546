//! The one read pipeline every backend runs on a window's raw tree: structural filters,
//! the backend's hydrate step (bounds, values and actions of what survived), spatial and
//! text filters, simplification, caps and ids (each element's own in its window, kept in
//! the ref map: `refs`). What a read shows depends on this order, so it is written once,
//! here.

use crate::error::{Error, ErrorCode, Result};
use crate::filter::{self, Filters};
use crate::model::{ReadData, WindowInfo};
use crate::node::{Node, Rect};
use std::path::Path;
use std::time::Instant;

/// How a read's elements get their ids.
#[derive(Clone, Copy, Debug)]
pub enum Ids<'a> {
    /// The window's own ids, kept in the ref map at this path: every read a face shows, so
    /// an id from any earlier read names the same element (`refs`).
    Kept(&'a Path),
    /// The same, for a read nobody asked for (a long-lived process keeping its answers
    /// fresh in the background): the window read last stays the one ids without a window
    /// name.
    Aside(&'a Path),
    /// In reading order from 1, kept nowhere: a backend's fixture tests.
    InOrder,
}

/// A window's tree as the backend walked it, before any filter.
#[derive(Debug)]
pub struct Walked {
    pub window: WindowInfo,
    /// The window's children.
    pub children: Vec<Node>,
    /// Why the walk stopped early, when it did (a budget ran out).
    pub incomplete: Option<String>,
    /// What each step of the walk took, in milliseconds (or a count), for `--timing`.
    pub timing: Vec<(&'static str, f64)>,
}

/// Filters, hydrates (the backend's `hydrate` fills in what the structural filters kept),
/// filters by place and text within `screen`, simplifies, caps and numbers the walked tree.
pub async fn finish<H>(
    walked: Walked,
    filters: &Filters,
    screen: Option<Rect>,
    ids: Ids<'_>,
    hydrate: H,
) -> Result<ReadData>
where
    H: AsyncFnOnce(&mut Vec<Node>) -> Result<()>,
{
    let Walked {
        window,
        children,
        incomplete,
        mut timing,
    } = walked;
    let children = match filters.under {
        Some(id) => part(children, id, ids, &window)?,
        None => children,
    };
    let (children, page) = if filters.page && filters.under.is_none() {
        match crate::page::only(children) {
            Ok(page) => (page, true),
            Err(all) => (all, false),
        }
    } else {
        (children, false)
    };
    let mut nodes = filter::structural(children, filters);
    let t = Instant::now();
    hydrate(&mut nodes).await?;
    timing.push(("hydrate", t.elapsed().as_secs_f64() * 1000.0));
    let nodes = filter::spatial_and_text(nodes, filters, screen.or(window.bounds));
    let nodes = if filters.full {
        nodes
    } else {
        filter::simplify(nodes, filters)
    };
    let mut nodes = filter::shown_depth(nodes, filters);
    let total = filter::cap(&mut nodes, filters.max_elements);
    let shown = filters.max_elements.map_or(total, |m| total.min(m));
    let ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut data = ReadData {
        window,
        ts,
        elements: nodes,
        total,
        shown,
        flat: false,
        bounds: true,
        page,
        incomplete,
        cut: 0,
        window_boxes: false,
        timing,
    };
    number(ids, &mut data)?;
    Ok(data)
}

/// Gives a read's elements their ids (and makes its window the latest read): every answer
/// a backend gives, also one it kept from an earlier read and gives again.
pub fn number(ids: Ids<'_>, data: &mut ReadData) -> Result<()> {
    let t = Instant::now();
    let (path, done) = match ids {
        Ids::Kept(path) => (path, crate::refs::RefMap::number(path, data)),
        Ids::Aside(path) => (path, crate::refs::RefMap::number_aside(path, data)),
        Ids::InOrder => {
            filter::number_in_order(&mut data.elements);
            return Ok(());
        }
    };
    done.map_err(|e| {
        Error::new(
            ErrorCode::UnsafeState,
            format!("cannot record element ids in {}: {e}", path.display()),
        )
        .suggest("Check that the directory is yours and writable, or set XDG_RUNTIME_DIR")
    })?;
    data.timing
        .push(("ids", t.elapsed().as_secs_f64() * 1000.0));
    Ok(())
}

/// Element `id` of the window's ids and what it holds, taken out of the walked tree: the
/// part `read --id` opens. An element gone, or showing another name or role than its id
/// named, is `STALE_REF` saying what it was.
fn part(children: Vec<Node>, id: u32, ids: Ids<'_>, window: &WindowInfo) -> Result<Vec<Node>> {
    let (Ids::Kept(path) | Ids::Aside(path)) = ids else {
        return Err(Error::invalid_args(
            "this read keeps no ids to open a part by",
        ));
    };
    let entry = crate::refs::RefMap::entry_in(path, window, id)?;
    let stale = |why: &str| {
        Error::new(
            ErrorCode::StaleRef,
            format!("element {id} ({}) {why}", entry.what()),
        )
        .suggest("Read the window again and open a part by an id it shows")
    };
    if entry.gone {
        return Err(stale("shows something else now"));
    }
    fn take(nodes: Vec<Node>, handle: &crate::node::Handle) -> Option<Node> {
        for n in nodes {
            if &n.handle == handle {
                return Some(n);
            }
            if let Some(found) = take(n.children, handle) {
                return Some(found);
            }
        }
        None
    }
    match take(children, &entry.handle) {
        Some(n) if n.role.short() == entry.role => Ok(vec![n]),
        Some(_) => Err(stale("shows something else now")),
        None => Err(stale("is gone from the window, or hidden")),
    }
}
