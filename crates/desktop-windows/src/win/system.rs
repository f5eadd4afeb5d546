//! `WinSystem`: connecting (COM, DPI awareness), the clipboard, the doctor's checks, and
//! the state directory.

use super::{clipboard::Clipboard, desktop::WinDesktop};
use desktop_core::backend::Check;
use desktop_core::system::{Diagnosis, System};
use desktop_core::{Desktop, Result};
use std::path::PathBuf;
use std::time::Duration;

/// The Windows platform.
#[derive(Clone, Copy, Debug, Default)]
pub struct WinSystem;

/// `%LOCALAPPDATA%\desktop-cli`, this user's alone.
fn state_dir() -> PathBuf {
    std::env::var_os("LOCALAPPDATA")
        .map_or_else(std::env::temp_dir, PathBuf::from)
        .join("desktop-cli")
}

#[allow(unsafe_code)]
fn dpi_aware() -> bool {
    use windows::Win32::UI::HiDpi::{
        SetProcessDpiAwarenessContext, DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2,
    };
    // SAFETY: sets this process's awareness once, before any window is asked about.
    unsafe { SetProcessDpiAwarenessContext(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2) }.is_ok()
}

impl System for WinSystem {
    type Desktop = WinDesktop;
    type Clipboard = Clipboard;

    fn check_private(&self) -> Result<()> {
        desktop_core::private::check_dir(&state_dir())
    }

    fn prepare(&self) -> Result<()> {
        // Screen coordinates in pixels on every monitor, whatever its scaling.
        let _ = dpi_aware();
        self.check_private()
    }

    async fn connect(&self, timeout: Duration, _warm: bool) -> Result<WinDesktop> {
        super::com_init();
        super::automation::set_call_timeout(u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX));
        let dir = state_dir();
        desktop_core::private::dir(&dir)?;
        Ok(WinDesktop {
            timeout,
            refs: dir.join("refs.json"),
        })
    }

    fn clipboard(&self) -> Clipboard {
        Clipboard
    }

    async fn diagnose(&self, timeout: Duration) -> Diagnosis {
        let mut checks = Vec::new();
        match self.connect(timeout, false).await {
            Ok(d) => {
                let n = d
                    .windows(&desktop_core::Target::default())
                    .await
                    .map(|l| l.windows.len());
                checks.push(Check::new(
                    "windows",
                    n.map(|n| format!("{n} top-level windows"))
                        .map_err(|e| e.message),
                    "Run desktop-cli in an interactive desktop session",
                ));
                let screens = d.displays();
                checks.push(Check::new(
                    "screen",
                    screens
                        .first()
                        .map(|s| {
                            format!(
                                "{}x{} at {},{}",
                                s.bounds.w, s.bounds.h, s.bounds.x, s.bounds.y
                            )
                        })
                        .ok_or_else(|| "no screen".to_string()),
                    "Run desktop-cli in an interactive desktop session",
                ));
            }
            Err(e) => checks.push(Check::new(
                "connect",
                Err(e.message),
                "Run desktop-cli in an interactive desktop session",
            )),
        }
        checks.extend(super::checks::all());
        Diagnosis {
            checks,
            sandboxes: Vec::new(),
        }
    }

    fn state_dir(&self) -> PathBuf {
        state_dir()
    }
}
