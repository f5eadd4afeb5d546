//! Targets without a backend (not Linux, macOS or Windows): the binary
//! builds, and every command answers `PLATFORM_NOT_SUPPORTED` with what would be needed.

use desktop_core::action::ActionResult;
use desktop_core::backend::{Check, Found, NoChanges, NoMemo};
use desktop_core::request::{ActionRequest, Element};
use desktop_core::shot::Capture;
use desktop_core::system::{Diagnosis, System};
use desktop_core::{
    AppList, Desktop, Error, ErrorCode, Filters, ReadData, Rect, Result, Target, WindowInfo,
    WindowList,
};
use std::path::PathBuf;
use std::time::Duration;

fn unsupported() -> Error {
    Error::new(
        ErrorCode::PlatformNotSupported,
        format!(
            "desktop-cli has no backend for {} yet",
            std::env::consts::OS
        ),
    )
    .suggest("Run it on Linux (X11, or Xwayland with DISPLAY set)")
}

/// A desktop that can do nothing here.
#[derive(Debug)]
pub struct Platform;

impl Desktop for Platform {
    type Memo = NoMemo;
    type Changes = NoChanges;

    async fn apps(&self) -> Result<AppList> {
        Err(unsupported())
    }
    async fn windows(&self, _: &Target) -> Result<WindowList> {
        Err(unsupported())
    }
    async fn resolve(&self, _: &Target) -> Result<WindowInfo> {
        Err(unsupported())
    }
    async fn read_window(
        &self,
        _: WindowInfo,
        _: &Filters,
        _: Option<&mut NoMemo>,
    ) -> Result<ReadData> {
        Err(unsupported())
    }
    async fn find(&self, _: &Target, _: &Element) -> Result<Found> {
        Err(unsupported())
    }
    async fn act(&self, _: &ActionRequest) -> Result<ActionResult> {
        Err(unsupported())
    }
    async fn launch(&self, _: &[String], _: Duration) -> Result<ActionResult> {
        Err(unsupported())
    }
    async fn changes(&self, _: &WindowInfo) -> Option<NoChanges> {
        None
    }
    fn displays(&self) -> Vec<desktop_core::backend::Display> {
        Vec::new()
    }
    fn pointer(&self) -> Option<(i32, i32)> {
        None
    }
    fn raise(&self, _: u64) -> Result<()> {
        Err(unsupported())
    }
    async fn capture(&self, _: Rect) -> Result<Capture> {
        Err(unsupported())
    }
    fn refs_path(&self) -> PathBuf {
        refs_path()
    }
}

/// A platform without a backend yet.
#[derive(Clone, Copy, Debug)]
pub struct Unsupported;

/// The platform this binary was built for.
pub const SYSTEM: Unsupported = Unsupported;

impl System for Unsupported {
    type Desktop = Platform;
    type Clipboard = Clipboard;

    fn check_private(&self) -> Result<()> {
        Ok(())
    }
    fn prepare(&self) -> Result<()> {
        Ok(())
    }
    async fn connect(&self, _timeout: Duration, _warm: bool) -> Result<Platform> {
        Err(unsupported())
    }
    fn clipboard(&self) -> Clipboard {
        Clipboard
    }
    async fn diagnose(&self, _timeout: Duration) -> Diagnosis {
        let check = Check::new(
            "platform",
            Err(unsupported().message),
            "Run desktop-cli on Linux (X11, or Xwayland with DISPLAY set)",
        );
        Diagnosis {
            checks: vec![check],
            sandboxes: Vec::new(),
        }
    }
    fn state_dir(&self) -> PathBuf {
        std::env::temp_dir().join("desktop-cli")
    }
}

pub fn refs_path() -> PathBuf {
    std::env::temp_dir().join("desktop-cli-refs.json")
}

/// No clipboard without a backend.
#[derive(Clone, Copy, Debug)]
pub struct Clipboard;

impl desktop_core::system::Clipboard for Clipboard {
    fn get(&self, _timeout: Duration) -> Result<Option<String>> {
        Err(unsupported())
    }
    fn set(&self, _text: &str, _timeout: Duration) -> Result<()> {
        Err(unsupported())
    }
    fn clear(&self) -> Result<()> {
        Err(unsupported())
    }
}
