//! The fake's window list: which windows a target names and the one it acts on, by the
//! core's rules every backend shares (the fake knows an app also by a window's title).

use crate::error::Result;
use crate::model::{Target, WindowInfo};
use crate::windows::ByTitle;

pub(super) fn filter(windows: &[WindowInfo], t: &Target) -> Vec<WindowInfo> {
    crate::windows::filter(windows, t, &ByTitle)
}

pub(super) fn pick(all: &[WindowInfo], t: &Target) -> Result<WindowInfo> {
    crate::windows::pick(all, t, &[], &ByTitle)
}
