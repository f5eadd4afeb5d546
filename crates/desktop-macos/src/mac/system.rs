//! `MacSystem`: connecting (the Accessibility permission checked up front), the clipboard,
//! the doctor's checks, and the state directory.

use super::{ax, clipboard::Clipboard, desktop::MacDesktop};
use crate::permissions::{self, Permission};
use desktop_core::backend::Check;
use desktop_core::system::{Diagnosis, System};
use desktop_core::{Desktop, Result};
use std::path::PathBuf;
use std::time::Duration;

/// The macOS platform.
#[derive(Clone, Copy, Debug, Default)]
pub struct MacSystem;

/// `~/Library/Application Support/desktop-cli`, this user's alone.
fn state_dir() -> PathBuf {
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    home.join("Library/Application Support/desktop-cli")
}

impl System for MacSystem {
    type Desktop = MacDesktop;
    type Clipboard = Clipboard;

    fn check_private(&self) -> Result<()> {
        desktop_core::private::check_dir(&state_dir())
    }

    fn prepare(&self) -> Result<()> {
        self.check_private()
    }

    async fn connect(&self, timeout: Duration, _warm: bool) -> Result<MacDesktop> {
        if !ax::trusted() {
            return Err(permissions::required(
                Permission::Accessibility,
                &super::responsible_app(),
            ));
        }
        ax::set_global_timeout(timeout.as_secs_f32());
        let dir = state_dir();
        desktop_core::private::dir(&dir)?;
        Ok(MacDesktop {
            timeout,
            refs: dir.join("refs.json"),
        })
    }

    fn clipboard(&self) -> Clipboard {
        Clipboard
    }

    async fn diagnose(&self, timeout: Duration) -> Diagnosis {
        let who = super::responsible_app();
        let fix_ax = Permission::Accessibility.pane();
        let fix_rec = Permission::ScreenRecording.pane();
        let mut checks = vec![
            Check::new(
                "accessibility",
                if ax::trusted() {
                    Ok(format!("{who} may read and operate apps"))
                } else {
                    Err(format!("{who} lacks the Accessibility permission"))
                },
                fix_ax,
            ),
            Check::new(
                "screen recording",
                if objc2_core_graphics::CGPreflightScreenCaptureAccess() {
                    Ok(format!("{who} may capture the screen"))
                } else {
                    Err(format!("{who} lacks the Screen Recording permission (screenshots and window titles)"))
                },
                fix_rec,
            ),
        ];
        let displays = crate::geometry::displays(&super::displays());
        checks.push(Check::new(
            "displays",
            if displays.is_empty() {
                Err("no display found".into())
            } else {
                Ok(displays
                    .iter()
                    .map(|d| {
                        let name = if d.name.is_empty() {
                            String::new()
                        } else {
                            format!("{} ", d.name)
                        };
                        let hz = d.refresh.map(|r| format!(" {r} Hz")).unwrap_or_default();
                        format!(
                            "{name}{}x{} at {},{} x{}{hz}",
                            d.bounds.w, d.bounds.h, d.bounds.x, d.bounds.y, d.scale
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "))
            },
            "Wake the display, or log in to a graphical session",
        ));
        if let Ok(d) = self.connect(timeout, false).await {
            let n = d
                .windows(&desktop_core::Target::default())
                .await
                .map(|l| l.windows.len());
            checks.push(Check::new(
                "windows",
                n.map(|n| format!("{n} windows readable"))
                    .map_err(|e| e.message),
                "Grant the permissions above, then run doctor again",
            ));
        }
        Diagnosis {
            checks,
            sandboxes: Vec::new(),
        }
    }

    fn state_dir(&self) -> PathBuf {
        state_dir()
    }
}
