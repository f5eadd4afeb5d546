//! The one read pipeline every backend runs on a window's raw tree: structural filters,
//! the backend's hydrate step (bounds, values and actions of what survived), spatial and
//! text filters, simplification, numbering and caps. The ids a user sees depend on this
//! order, so it is written once, here.

use crate::error::Result;
use crate::filter::{self, Filters};
use crate::model::{ReadData, WindowInfo};
use crate::node::{Node, Rect};
use std::time::Instant;

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
/// filters by place and text within `screen`, simplifies and numbers the walked tree.
pub async fn finish<H>(
    walked: Walked,
    filters: &Filters,
    screen: Option<Rect>,
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
    let (children, page) = if filters.page {
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
    let mut nodes = if filters.full {
        nodes
    } else {
        filter::simplify(nodes, filters)
    };
    let total = filter::number_and_cap(&mut nodes, filters.max_elements);
    let shown = filters.max_elements.map_or(total, |m| total.min(m));
    let ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Ok(ReadData {
        window,
        ts,
        elements: nodes,
        total,
        shown,
        flat: false,
        bounds: true,
        page,
        incomplete,
        window_boxes: false,
        timing,
    })
}
