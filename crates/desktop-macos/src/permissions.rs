//! The two privacy permissions (TCC) desktop-cli needs on macOS, and the errors that name
//! what to grant to whom. An untrusted process gets empty trees and silent no-ops from the
//! system; checking up front turns that into an error instead of a false success.

use desktop_core::{Error, ErrorCode};

/// A permission and the System Settings pane that grants it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permission {
    /// Reading other apps' UI and sending input (`AXIsProcessTrusted`).
    Accessibility,
    /// Capturing the screen and reading window titles (`CGPreflightScreenCaptureAccess`).
    ScreenRecording,
}

impl Permission {
    pub fn pane(self) -> &'static str {
        match self {
            Permission::Accessibility => "System Settings > Privacy & Security > Accessibility",
            Permission::ScreenRecording => {
                "System Settings > Privacy & Security > Screen & System Audio Recording"
            }
        }
    }

    fn what(self) -> &'static str {
        match self {
            Permission::Accessibility => "to read other apps' windows and act in them",
            Permission::ScreenRecording => "to capture the screen",
        }
    }
}

/// `PERMISSION_REQUIRED` for `p`, naming the program the grant must go to: the app that
/// started desktop-cli (a terminal, or the MCP host), which macOS holds responsible.
pub fn required(p: Permission, responsible: &str) -> Error {
    Error::new(
        ErrorCode::PermissionRequired,
        format!(
            "macOS has not given {responsible} the {} permission, which desktop-cli needs {}",
            match p {
                Permission::Accessibility => "Accessibility",
                Permission::ScreenRecording => "Screen Recording",
            },
            p.what()
        ),
    )
    .suggest(format!(
        "Open {}, turn on {responsible} (add it with + if it is not listed), then quit and reopen {responsible} and run the command again",
        p.pane()
    ))
}

/// The app macOS holds responsible for this process: the first ancestor that is an app
/// bundle (`/Applications/iTerm.app/Contents/MacOS/iTerm2` → `iTerm`), else the
/// executable's own name. `ancestors`: executable paths from the parent upwards.
pub fn responsible<'a>(ancestors: impl IntoIterator<Item = &'a str>, own: &str) -> String {
    for path in ancestors {
        if let Some(at) = path.find(".app/") {
            let bundle = &path[..at];
            let name = bundle.rsplit('/').next().unwrap_or(bundle);
            if !name.is_empty() {
                return name.to_string();
            }
        }
    }
    own.rsplit('/').next().unwrap_or(own).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_names_the_pane_and_the_program() {
        let e = required(Permission::Accessibility, "Terminal");
        assert_eq!(e.code, ErrorCode::PermissionRequired);
        assert!(e.message.contains("Terminal") && e.message.contains("Accessibility"));
        let fix = e.suggestion.unwrap_or_default();
        assert!(fix.contains("Privacy & Security > Accessibility"), "{fix}");
        let e = required(Permission::ScreenRecording, "Claude");
        assert!(e
            .suggestion
            .unwrap_or_default()
            .contains("Screen & System Audio Recording"));
    }

    #[test]
    fn the_responsible_app_is_the_nearest_bundle() {
        let chain = [
            "/bin/zsh",
            "/Applications/iTerm.app/Contents/MacOS/iTerm2",
            "/sbin/launchd",
        ];
        assert_eq!(responsible(chain, "/usr/local/bin/desktop-cli"), "iTerm");
        let host = ["/Applications/Claude.app/Contents/Helpers/node"];
        assert_eq!(responsible(host, "desktop-cli"), "Claude");
        assert_eq!(responsible([], "/usr/local/bin/desktop-cli"), "desktop-cli");
    }
}
