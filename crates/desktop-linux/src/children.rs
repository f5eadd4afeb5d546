//! Which children of a container the reader asks an app for. Small containers give their
//! whole list in one call; a container with more children than the cap is never asked for
//! its whole list, because toolkits build child objects on demand and one request can make
//! an app build millions (LibreOffice Calc's sheet reports 2^31-1 cells and, asked for its
//! children, builds them until it runs out of memory). Such a container is read as the
//! cells in view when it is a table, else as its first children by index, and says how
//! many it has in all.

use crate::bus::Addr;
use crate::bus::{Bus, CallError, ObjectRef, ACCESSIBLE, TABLE};
use crate::cells::{Cell, Cells};
use desktop_core::{Caps, Node, Rect};
use futures_util::future::join_all;
use std::collections::HashMap;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};

/// The path AT-SPI answers for "no object".
pub(crate) const NULL_PATH: &str = "/org/a11y/atspi/null";

/// A container's children as read: the references asked for, and how many it has in all.
#[derive(Clone, Debug, Default)]
pub(crate) struct Kids {
    pub refs: Vec<ObjectRef>,
    /// The container's own count, when it is more than `refs` holds.
    pub total: Option<u32>,
}

/// The children of `node` (up to `cap` of them; those in view first where it is a table
/// larger than the cap). `view` is the part of the screen the window shows; `cells` holds
/// the cells recent reads were handed, to ask for again rather than have them made anew.
pub(crate) async fn children(
    bus: &Bus,
    node: &Node,
    cap: usize,
    view: Option<Rect>,
    cells: Option<&Cells>,
) -> Result<Kids, CallError> {
    let (o, p) = (node.handle.owner(), node.handle.path());
    // A cached container that manages its descendants says -1: ask for the count.
    let count = if node.child_count == u32::MAX {
        let v: OwnedValue = bus.property(o, p, ACCESSIBLE, "ChildCount").await?;
        i32::try_from(v).map_or(0, |n| u32::try_from(n).unwrap_or(0))
    } else {
        node.child_count
    };
    if count as usize <= cap {
        let refs = bus.call(o, p, ACCESSIBLE, "GetChildren", &()).await?;
        return Ok(Kids { refs, total: None });
    }
    let total = Some(count);
    if node.caps.contains(Caps::TABLE) {
        match cells_in_view(bus, o, p, cap, view, cells).await {
            Ok(Some(refs)) => return Ok(Kids { refs, total }),
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            _ => {}
        }
    }
    Ok(Kids {
        refs: first_children(bus, o, p, count, cap).await?,
        total,
    })
}

/// The children of the object at `o`/`p`, at most `cap` of them (the first ones): for
/// callers that look through a container whose size they do not know (a combo's options).
pub(crate) async fn bounded(
    bus: &Bus,
    o: &str,
    p: &str,
    cap: usize,
) -> Result<Vec<ObjectRef>, CallError> {
    let v: OwnedValue = bus.property(o, p, ACCESSIBLE, "ChildCount").await?;
    let count = i32::try_from(v).map_or(0, |n| u32::try_from(n).unwrap_or(0));
    if count as usize <= cap {
        return bus.call(o, p, ACCESSIBLE, "GetChildren", &()).await;
    }
    first_children(bus, o, p, count, cap).await
}

/// The first `cap` children, asked for by index, all at once.
async fn first_children(
    bus: &Bus,
    o: &str,
    p: &str,
    count: u32,
    cap: usize,
) -> Result<Vec<ObjectRef>, CallError> {
    let n = (count as usize).min(cap);
    let refs = join_all((0..n).map(|i| async move {
        let i = i32::try_from(i).unwrap_or(i32::MAX);
        bus.call::<_, ObjectRef>(o, p, ACCESSIBLE, "GetChildAtIndex", &(i,))
            .await
    }))
    .await;
    let mut out = Vec::with_capacity(n);
    for r in refs {
        match r {
            Ok(r) if r.1.as_str() != NULL_PATH => out.push(r),
            Ok(_) => {}
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(_) => {}
        }
    }
    Ok(out)
}

/// Where a cell sits in its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct At {
    row: i32,
    col: i32,
}

/// The cells of a table that are in view, row by row (at most `cap`), with the column
/// headers of those columns first: found by asking which cells lie at the corners of the
/// table's visible area, then for each cell between them by row and column.
/// `Ok(None)` when the table does not say (no cell at any probed point).
async fn cells_in_view(
    bus: &Bus,
    o: &str,
    p: &str,
    cap: usize,
    view: Option<Rect>,
    memo: Option<&Cells>,
) -> Result<Option<Vec<ObjectRef>>, CallError> {
    let (ext, rows, cols) = tokio::join!(
        bus.extents_of(o, p),
        bus.property(o, p, TABLE, "NRows"),
        bus.property(o, p, TABLE, "NColumns"),
    );
    let (x, y, w, h) = ext?;
    let rows = i32::try_from(rows?).unwrap_or(0);
    let cols = i32::try_from(cols?).unwrap_or(0);
    if rows <= 0 || cols <= 0 {
        return Ok(None);
    }
    let Some(area) = visible_area(Rect::new(x, y, w, h), view) else {
        return Ok(None);
    };
    // Corner probes: headers, margins and a short last row can sit at the very corner, so
    // points further inward are tried where the corner itself holds no cell (each probe
    // that lands makes the app build a cell: the corners first, alone).
    let mut first = None;
    let mut last = None;
    // Rows are 15-30 px tall and a header row about as tall: the second round's points
    // are close enough that the first row under a header is not stepped over.
    let near: Vec<i32> = (1..=12).map(|k| k * 8).collect();
    for steps in [&[2][..], &near[..]] {
        let top = steps.iter().map(|&d| (area.x + 2, area.y + d));
        let bottom = steps
            .iter()
            .map(|&d| (area.x + area.w - 3, area.y + area.h - 1 - d));
        let probes: Vec<(i32, i32, bool)> = top
            .map(|(x, y)| (x, y, true))
            .chain(bottom.map(|(x, y)| (x, y, false)))
            .filter(|&(_, _, top)| if top { first.is_none() } else { last.is_none() })
            .collect();
        let found = join_all(probes.iter().map(|&(px, py, _)| cell_at(bus, o, p, px, py))).await;
        for (&(_, _, top), f) in probes.iter().zip(found) {
            let at = match f {
                Ok(a) => a,
                Err(CallError::Timeout) => return Err(CallError::Timeout),
                Err(_) => None,
            };
            let slot = if top { &mut first } else { &mut last };
            if slot.is_none() {
                *slot = at;
            }
        }
        if first.is_some() && last.is_some() {
            break;
        }
    }
    let Some(first) = first else {
        return Ok(None);
    };
    let last = last.unwrap_or(At {
        row: rows - 1,
        col: cols - 1,
    });
    let (r0, c0) = (first.row, first.col);
    let r1 = last.row.clamp(r0, rows - 1);
    let c1 = last.col.clamp(c0, cols - 1);
    let cap = i32::try_from(cap).unwrap_or(i32::MAX).max(1);
    let ncols = (c1 - c0 + 1).min(cap);
    let nrows = (r1 - r0 + 1).min((cap / ncols).max(1));
    let headers = join_all((c0..c0 + ncols).map(|c| async move {
        bus.call::<_, ObjectRef>(o, p, TABLE, "GetColumnHeader", &(c,))
            .await
    }));
    let wanted: Vec<(i32, i32)> = (r0..r0 + nrows)
        .flat_map(|r| (c0..c0 + ncols).map(move |c| (r, c)))
        .collect();
    let (headers, cells) = tokio::join!(headers, cells_at(bus, o, p, &wanted, memo));
    let cells = cells?;
    let mut out = Vec::new();
    for r in headers.into_iter().chain(cells) {
        match r {
            Ok(r) if r.1.as_str() != NULL_PATH && !r.1.as_str().is_empty() => {
                if !out.contains(&r) {
                    out.push(r);
                }
            }
            Ok(_) => {}
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(_) => {}
        }
    }
    Ok((!out.is_empty()).then_some(out))
}

/// The cells at `wanted` (row, column), in that order: those a recent read was handed and
/// that still answer with their index are reused, the others asked for (and remembered).
async fn cells_at(
    bus: &Bus,
    o: &str,
    p: &str,
    wanted: &[(i32, i32)],
    memo: Option<&Cells>,
) -> Result<Vec<Result<ObjectRef, CallError>>, CallError> {
    let recent: HashMap<(i32, i32), Cell> = memo
        .map(|m| m.recent(o, p))
        .unwrap_or_default()
        .into_iter()
        .map(|c| ((c.row, c.col), c))
        .collect();
    let known: Vec<Option<&Cell>> = wanted.iter().map(|at| recent.get(at)).collect();
    let checked = join_all(known.iter().map(|k| async move {
        let c = (*k)?;
        let index = bus
            .call::<_, i32>(o, &c.path, ACCESSIBLE, "GetIndexInParent", &())
            .await;
        Some(match index {
            Ok(i) if i == c.index => Ok(true),
            Ok(_) => Ok(false),
            Err(CallError::Timeout) => Err(CallError::Timeout),
            Err(_) => Ok(false),
        })
    }))
    .await;
    let mut alive = Vec::with_capacity(wanted.len());
    for c in checked {
        alive.push(match c {
            Some(Err(e)) => return Err(e),
            Some(Ok(ok)) => ok,
            None => false,
        });
    }
    let made = join_all(wanted.iter().zip(&alive).filter(|(_, a)| !**a).map(
        |(&(r, c), _)| async move {
            let at = (r, c);
            let (cell, index) = tokio::join!(
                bus.call::<_, ObjectRef>(o, p, TABLE, "GetAccessibleAt", &at),
                bus.call::<_, i32>(o, p, TABLE, "GetIndexAt", &at),
            );
            (r, c, cell, index)
        },
    ))
    .await;
    let mut fresh = Vec::new();
    let mut made = made.into_iter();
    let mut out = Vec::with_capacity(wanted.len());
    for (k, a) in known.into_iter().zip(alive) {
        match (k, a) {
            (Some(c), true) => match OwnedObjectPath::try_from(c.path.clone()) {
                Ok(path) => out.push(Ok((o.to_string(), path))),
                Err(e) => out.push(Err(CallError::Decode(e.to_string()))),
            },
            _ => {
                let Some((row, col, cell, index)) = made.next() else {
                    continue;
                };
                if let (Ok(cell), Ok(index)) = (&cell, index) {
                    if cell.1.as_str() != NULL_PATH {
                        fresh.push(Cell {
                            owner: o.to_string(),
                            table: p.to_string(),
                            row,
                            col,
                            path: cell.1.as_str().to_string(),
                            index,
                            made: 0,
                        });
                    }
                }
                out.push(cell);
            }
        }
    }
    if let Some(m) = memo {
        m.add(fresh);
    }
    Ok(out)
}

/// The part of a table's box that can be seen: inside the window's view when known.
fn visible_area(table: Rect, view: Option<Rect>) -> Option<Rect> {
    if !table.is_valid() {
        return None;
    }
    match view.filter(Rect::is_valid) {
        Some(v) => table.intersection(&v),
        None => Some(table),
    }
}

/// The row and column of the cell at a screen point, if a cell of this table is there.
async fn cell_at(bus: &Bus, o: &str, p: &str, x: i32, y: i32) -> Result<Option<At>, CallError> {
    let (co, cp) = bus.at_point(o, p, x, y).await?;
    if cp.as_str() == NULL_PATH || cp.as_str() == p {
        return Ok(None);
    }
    let co = if co.is_empty() { o.to_string() } else { co };
    let index: i32 = bus
        .call(&co, cp.as_str(), ACCESSIBLE, "GetIndexInParent", &())
        .await?;
    if index < 0 {
        return Ok(None);
    }
    let at = (index,);
    let (row, col) = tokio::join!(
        bus.call::<_, i32>(o, p, TABLE, "GetRowAtIndex", &at),
        bus.call::<_, i32>(o, p, TABLE, "GetColumnAtIndex", &at),
    );
    let (row, col) = (row?, col?);
    Ok((row >= 0 && col >= 0).then_some(At { row, col }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_area_is_the_table_inside_the_view() {
        let table = Rect::new(98, 188, 1051, 478);
        assert_eq!(visible_area(table, None), Some(table));
        let view = Rect::new(0, 0, 1000, 600);
        assert_eq!(
            visible_area(table, Some(view)),
            Some(Rect::new(98, 188, 902, 412))
        );
        assert_eq!(visible_area(table, Some(Rect::new(0, 0, 50, 50))), None);
        assert_eq!(
            visible_area(Rect::new(i32::MIN, i32::MIN, 1, 1), Some(view)),
            None
        );
    }
}
