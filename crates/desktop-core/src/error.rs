//! The one error type every command returns: a stable code, a message and a recovery suggestion.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Defines [`ErrorCode`] from one list: each code's variant, its JSON name and what it
/// means. The enum, its serde names, `as_str`, `ALL` and the documentation (README,
/// `schema error`) all come from this list, so they cannot drift apart.
macro_rules! error_codes {
    ($($variant:ident = $name:literal: $meaning:literal => $advice:literal,)+) => {
        /// Machine-readable error codes. Stable: a code is never reused for a different meaning.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum ErrorCode {
            $(#[doc = $meaning] #[serde(rename = $name)] $variant,)+
        }

        impl ErrorCode {
            /// Every code, in documentation order.
            pub const ALL: &'static [ErrorCode] = &[$(Self::$variant,)+];

            /// The code as it appears in JSON (`"APP_NOT_FOUND"`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            /// What the code means, in one sentence.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Self::$variant => $meaning,)+
                }
            }

            /// What to do about it in general, for errors that carry no better suggestion.
            pub fn advice(self) -> &'static str {
                match self {
                    $(Self::$variant => $advice,)+
                }
            }
        }
    };
}

error_codes! {
    NoDisplay = "NO_DISPLAY": "No desktop session can be reached (no display to connect to) and no sandbox runs." => "Run inside a desktop session, or start a headless one where the platform has it (sandbox up).",
    A11yUnavailable = "A11Y_UNAVAILABLE": "The accessibility bus or its registry cannot be reached, or a window exposes no tree." => "Run the doctor command: it checks every part and says how to fix it.",
    AppNotFound = "APP_NOT_FOUND": "No running app matches the name given." => "List the running apps and use one of their names.",
    WindowNotFound = "WINDOW_NOT_FOUND": "No window matches the title, id or pid given, or it went away." => "List the windows and target one that is open.",
    ElementNotFound = "ELEMENT_NOT_FOUND": "No element of the window was given that id, or none matches the text." => "Read the window again and use an id or text from that read.",
    StaleRef = "STALE_REF": "The element of that id is gone (or shows another name or role) and nothing else is it: read again." => "Read the window again and use the ids it shows.",
    AmbiguousTarget = "AMBIGUOUS_TARGET": "Several windows, sandboxes or elements match; the message lists them." => "Narrow the target (window title, role, exact text) or use an id.",
    WindowMismatch = "WINDOW_MISMATCH": "The id comes from a read of another window than the one named." => "Read the window you mean first, or drop the window options.",
    NotInteractable = "NOT_INTERACTABLE": "The element is hidden, disabled, off screen, covered, or would not take the focus." => "Bring it into view, wait until it is enabled, or act on another element.",
    NotCheckable = "NOT_CHECKABLE": "Toggle on something that is not a check box, switch, toggle or radio button." => "Click it instead.",
    ReadOnly = "READ_ONLY": "A value was to be set on an element that cannot be edited." => "Pick an editable element.",
    OffScreen = "OFF_SCREEN": "Coordinates outside the screen." => "Use coordinates inside the screen.",
    ActionNotSupported = "ACTION_NOT_SUPPORTED": "The element does not support that action (typing into a button, an unknown action name)." => "Read the element's actions and use one of them, or another command.",
    ActionFailed = "ACTION_FAILED": "The app refused the action, or its expected effect did not show; the message says what was seen." => "Read the element to see its state, then retry or take another way.",
    AppUnresponsive = "APP_UNRESPONSIVE": "The app did not answer within the call timeout, or is stopped." => "Retry later, raise the call timeout, or restart the app.",
    Timeout = "TIMEOUT": "A wait ran out of time; the message says what was last seen." => "Raise the timeout, or check the target with a read.",
    InvalidArgs = "INVALID_ARGS": "The command line or tool arguments are invalid (exit status 2)." => "Check the arguments against the command's help.",
    InvalidKey = "INVALID_KEY": "A key combo does not parse (exit status 2)." => "Write combos as modifiers and a key joined by +, e.g. ctrl+shift+t, enter, f5.",
    PermDenied = "PERM_DENIED": "The system refused access (a file, a port, a token)." => "Check the permissions of the file, port or token involved.",
    PermissionRequired = "PERMISSION_REQUIRED": "The system has not granted this program a permission the command needs (to control the computer through accessibility, to record the screen, to send input)." => "Grant the permission the message names where it says (on macOS: System Settings > Privacy & Security), then run the command again.",
    UnsafeState = "UNSAFE_STATE": "A directory holding desktop-cli's state is not private: another user's, open to others, or a symbolic link." => "Remove it or make it yours with mode 700, or set XDG_RUNTIME_DIR to a directory only you can enter.",
    SandboxFailed = "SANDBOX_FAILED": "The headless desktop could not be started, found or stopped." => "Run the doctor command; install the runtime packages if any is missing.",
    PlatformNotSupported = "PLATFORM_NOT_SUPPORTED": "This platform or display server lacks what the action needs." => "The message says what is missing; run where desktop-cli supports it (the README lists the platforms).",
    Internal = "INTERNAL": "A bug in desktop-cli, or the keeper ended while running an action it had taken (it \"may have been done\": read before retrying); please report it with the command." => "This is a bug in desktop-cli; please report it with the command you ran.",
}

impl ErrorCode {
    /// Process exit code: 2 for a usage error, 1 for every other failure.
    pub fn exit_code(self) -> i32 {
        if matches!(self, Self::InvalidArgs | Self::InvalidKey) {
            2
        } else {
            1
        }
    }

    /// The list as a Markdown table (`| code | meaning |`), as the README carries it.
    pub fn markdown_table() -> String {
        let mut out = String::from("| code | meaning |\n|---|---|\n");
        for c in Self::ALL {
            out.push_str(&format!("| `{}` | {} |\n", c.as_str(), c.meaning()));
        }
        out
    }
}

/// A failure with everything an agent needs to recover from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// Raw detail from the platform's API (its error name or code), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform_detail: Option<String>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl Error {
    /// An error with the code's general advice as its suggestion; `suggest` replaces it
    /// with a better one. Every error an agent sees says what to do next.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            suggestion: Some(code.advice().to_string()),
            platform_detail: None,
        }
    }

    pub fn suggest(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = Some(suggestion.into());
        self
    }

    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.platform_detail = Some(detail.into());
        self
    }

    pub fn invalid_args(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgs, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
            .suggest("This is a bug in desktop-cli; please report it with the command you ran")
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    #[test]
    fn every_code_serializes_as_its_name_once() {
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            let json = serde_json::to_value(c).unwrap_or_default();
            assert_eq!(json, c.as_str(), "{c:?}");
            assert!(seen.insert(c.as_str()), "{} twice", c.as_str());
            assert!(c.meaning().ends_with('.'), "{c:?}");
        }
    }
}
