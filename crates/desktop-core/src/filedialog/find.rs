//! Finding the chooser that shows: the windows looked at, in which order, and for how long.

use super::chooser::{blind, classify, Chooser, Mode};
use crate::backend::Desktop;
use crate::error::{Error, ErrorCode, Result};
use crate::filter::Filters;
use crate::model::{name_matches, ReadData, Target, WindowInfo};
use std::time::{Duration, Instant};

/// How long a chooser gets to come up before none is said to show.
const APPEAR_WAIT: Duration = Duration::from_millis(1500);
const POLL: Duration = Duration::from_millis(120);
/// Windows read while looking for a chooser, at most.
const MAX_CANDIDATES: usize = 8;

/// The chooser found.
pub(super) enum Found {
    /// Read: its tree and what it holds.
    Tree(WindowInfo, Box<ReadData>, Chooser),
    /// No tree to read (GTK inside Chromium): told by its title, filled by keyboard.
    Blind(WindowInfo, Mode),
}

/// The chooser showing: among the target's windows and their processes' other windows
/// (every window when no target is named), the focused and modal ones first; a desktop
/// portal's chooser (another process) too. One opened by the step before may still be
/// coming up: looked for again for a moment before `WINDOW_NOT_FOUND`.
pub(super) async fn find<D: Desktop, F: std::future::Future<Output = ()>>(
    d: &D,
    target: &Target,
    sleep: &impl Fn(Duration) -> F,
) -> Result<Found> {
    let deadline = Instant::now() + APPEAR_WAIT;
    // Windows read and found to be no chooser, not read again (a modal one may still be
    // filling in, so it is).
    let mut not: Vec<Option<u64>> = Vec::new();
    let mut looked: Vec<String> = Vec::new();
    loop {
        for w in candidates(d, target).await? {
            if not.contains(&w.id) {
                continue;
            }
            if let Some(mode) = blind(&w) {
                return Ok(Found::Blind(w, mode));
            }
            if let Ok(data) = read(d, &w).await {
                if let Some(c) = classify(&data.elements) {
                    return Ok(Found::Tree(w, Box::new(data), c));
                }
            }
            if !w.modal {
                not.push(w.id);
            }
            let title = format!("\"{}\"", w.title);
            if !looked.contains(&title) {
                looked.push(title);
            }
        }
        if Instant::now() >= deadline {
            break;
        }
        sleep(POLL).await;
    }
    let seen = if looked.is_empty() {
        "no windows".to_string()
    } else {
        looked.join(", ")
    };
    Err(Error::new(
        ErrorCode::WindowNotFound,
        format!("no file chooser is showing (looked at {seen})"),
    )
    .suggest("Open one first (menu --path \"File > Open\", or the app's own button), then fill it"))
}

/// The windows a chooser is looked for in, focused and modal first, at most
/// [`MAX_CANDIDATES`].
async fn candidates<D: Desktop>(d: &D, target: &Target) -> Result<Vec<WindowInfo>> {
    let all = d.windows(&Target::default()).await?.windows;
    let mine: Vec<WindowInfo> = if target.is_empty() {
        all.clone()
    } else {
        let named = d.windows(target).await?.windows;
        let pids: Vec<u32> = named.iter().map(|w| w.pid).filter(|p| *p != 0).collect();
        all.iter()
            .filter(|w| pids.contains(&w.pid) || named.iter().any(|n| n.id == w.id))
            .cloned()
            .collect()
    };
    let portal: Vec<WindowInfo> = all
        .into_iter()
        .filter(|w| name_matches(&w.app, "portal") && !mine.iter().any(|m| m.id == w.id))
        .collect();
    let mut out: Vec<WindowInfo> = mine.into_iter().chain(portal).collect();
    // Where windows have ids, one without is still coming up (its tree is there before
    // its window is mapped): taken on a later look, once the window system shows it.
    if out.iter().any(|w| w.id.is_some()) {
        out.retain(|w| w.id.is_some());
    }
    out.sort_by_key(|w| (!w.focused, !w.modal));
    out.truncate(MAX_CANDIDATES);
    Ok(out)
}

/// One read of a chooser's window: what shows, on screen or not (a chooser taller than the
/// screen has its field above the top without a window manager), bounded.
pub(super) async fn read<D: Desktop>(d: &D, window: &WindowInfo) -> Result<ReadData> {
    let filters = Filters {
        visible_only: false,
        max_elements: Some(3000),
        ..Filters::default()
    };
    d.read_window(window.clone(), &filters, None).await
}
