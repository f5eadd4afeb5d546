//! The trait each platform backend implements; the CLI and MCP faces only talk to this.

use crate::error::Result;
use crate::filter::Filters;
use crate::model::{AppList, ReadData, Target, WindowList};

/// Reading side of a desktop backend.
// Backends are used through generics, never `dyn`, and the runtime is single-threaded,
// so the futures need no `Send` bound.
#[allow(async_fn_in_trait)]
pub trait Desktop {
    /// Applications with an accessibility connection.
    async fn apps(&self) -> Result<AppList>;
    /// Top-level windows matching `target` (all of them when it is empty).
    async fn windows(&self, target: &Target) -> Result<WindowList>;
    /// One window's element tree, filtered.
    async fn read(&self, target: &Target, filters: &Filters) -> Result<ReadData>;
}
