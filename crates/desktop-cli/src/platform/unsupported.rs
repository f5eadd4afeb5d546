//! Targets without a backend yet (macOS and Windows have their own issues): the binary
//! builds, and every command answers `PLATFORM_NOT_SUPPORTED` with what would be needed.

use desktop_core::action::ActionResult;
use desktop_core::backend::{Check, Found, NoChanges, NoMemo};
use desktop_core::request::{ActionRequest, Element};
use desktop_core::shot::Capture;
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
    fn screen(&self) -> Option<Rect> {
        None
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

pub fn prepare() -> Result<()> {
    Ok(())
}

pub fn check_private() -> Result<()> {
    Ok(())
}

pub async fn connect(_timeout: Duration, _warm: bool) -> Result<Platform> {
    Err(unsupported())
}

pub async fn run_keeper() -> i32 {
    1
}

#[cfg(feature = "mcp")]
pub fn runtime_dir() -> PathBuf {
    std::env::temp_dir().join("desktop-cli")
}

pub fn refs_path() -> PathBuf {
    std::env::temp_dir().join("desktop-cli-refs.json")
}

pub async fn doctor(_timeout: Duration) -> (Vec<Check>, Vec<u32>) {
    let check = Check::new(
        "platform",
        Err(unsupported().message),
        "Run desktop-cli on Linux (X11, or Xwayland with DISPLAY set)",
    );
    (vec![check], Vec::new())
}

pub mod clipboard {
    use desktop_core::Result;
    use std::time::Duration;

    pub fn get(_timeout: Duration) -> Result<Option<String>> {
        Err(super::unsupported())
    }
    pub fn set(_text: &str, _timeout: Duration) -> Result<()> {
        Err(super::unsupported())
    }
    pub fn clear() -> Result<()> {
        Err(super::unsupported())
    }
    pub fn serve(_text: &str, _ready: impl FnOnce()) -> Result<()> {
        Err(super::unsupported())
    }
}
