//! What a platform offers around its desktop, which every backend implements besides
//! [`Desktop`]: getting the process ready and connecting, the clipboard, the doctor's
//! checks, and where desktop-cli keeps its state. The binary names one `System` at compile
//! time; faces use it only through this trait.

use crate::backend::{Check, Desktop};
use crate::error::Result;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;

/// The platform's text clipboard.
pub trait Clipboard {
    /// The clipboard's text, `None` when empty; never takes the clipboard from its owner.
    fn get(&self, timeout: Duration) -> Result<Option<String>>;
    /// Puts `text` on the clipboard, where it stays after this process exits.
    fn set(&self, text: &str, timeout: Duration) -> Result<()>;
    /// Empties the clipboard.
    fn clear(&self) -> Result<()>;
}

/// What `doctor` found: each part the tool needs, and the headless desktops running (on
/// platforms that have them).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Diagnosis {
    pub checks: Vec<Check>,
    pub sandboxes: Vec<u32>,
}

/// A platform: its desktop and the services around it.
#[allow(async_fn_in_trait)]
pub trait System {
    type Desktop: Desktop;
    type Clipboard: Clipboard;

    /// Refuses to run when a directory holding desktop-cli's state is not this user's
    /// alone (`UNSAFE_STATE`).
    fn check_private(&self) -> Result<()>;
    /// Gets this process ready to reach the desktop (on Linux: adopting a running
    /// sandbox's addresses). Runs before any thread starts, as it may set environment
    /// variables; includes [`Self::check_private`].
    fn prepare(&self) -> Result<()>;
    /// Connects to the desktop. `warm`: keep connections and caches between calls (a
    /// long-lived server).
    async fn connect(&self, timeout: Duration, warm: bool) -> Result<Self::Desktop>;
    /// The clipboard.
    fn clipboard(&self) -> Self::Clipboard;
    /// Every check `doctor` runs, with how to fix what fails.
    async fn diagnose(&self, timeout: Duration) -> Diagnosis;
    /// This user's private directory for desktop-cli's state (ids of reads, the MCP
    /// server's token).
    fn state_dir(&self) -> PathBuf;
}
