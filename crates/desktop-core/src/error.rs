//! The one error type every command returns: a stable code, a message and a recovery suggestion.

use serde::Serialize;
use std::fmt;

/// Machine-readable error codes. Stable: a code is never reused for a different meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    PermDenied,
    NoDisplay,
    A11yUnavailable,
    AppNotFound,
    WindowNotFound,
    ElementNotFound,
    StaleRef,
    AmbiguousTarget,
    ActionNotSupported,
    ActionFailed,
    AppUnresponsive,
    Timeout,
    InvalidArgs,
    /// A key combo that does not parse (`ctrl++`, `hyper+q`).
    InvalidKey,
    /// An element id from a read of another window than the one named.
    WindowMismatch,
    /// Coordinates outside every screen.
    OffScreen,
    /// A value was to be set on an element that cannot be edited.
    ReadOnly,
    /// Toggle on something that is not a check box, switch or toggle button.
    NotCheckable,
    /// Synthesized input would land on an element that is hidden, disabled, off screen or covered.
    NotInteractable,
    PlatformNotSupported,
    SandboxFailed,
    Internal,
}

impl ErrorCode {
    /// The code as it appears in JSON (`"APP_NOT_FOUND"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PermDenied => "PERM_DENIED",
            Self::NoDisplay => "NO_DISPLAY",
            Self::A11yUnavailable => "A11Y_UNAVAILABLE",
            Self::AppNotFound => "APP_NOT_FOUND",
            Self::WindowNotFound => "WINDOW_NOT_FOUND",
            Self::ElementNotFound => "ELEMENT_NOT_FOUND",
            Self::StaleRef => "STALE_REF",
            Self::AmbiguousTarget => "AMBIGUOUS_TARGET",
            Self::ActionNotSupported => "ACTION_NOT_SUPPORTED",
            Self::ActionFailed => "ACTION_FAILED",
            Self::AppUnresponsive => "APP_UNRESPONSIVE",
            Self::Timeout => "TIMEOUT",
            Self::InvalidArgs => "INVALID_ARGS",
            Self::InvalidKey => "INVALID_KEY",
            Self::WindowMismatch => "WINDOW_MISMATCH",
            Self::OffScreen => "OFF_SCREEN",
            Self::ReadOnly => "READ_ONLY",
            Self::NotCheckable => "NOT_CHECKABLE",
            Self::NotInteractable => "NOT_INTERACTABLE",
            Self::PlatformNotSupported => "PLATFORM_NOT_SUPPORTED",
            Self::SandboxFailed => "SANDBOX_FAILED",
            Self::Internal => "INTERNAL",
        }
    }

    /// Process exit code: 2 for a usage error, 1 for every other failure.
    pub fn exit_code(self) -> i32 {
        if matches!(self, Self::InvalidArgs | Self::InvalidKey) {
            2
        } else {
            1
        }
    }

    /// Every code, for the schema and the docs.
    pub const ALL: &'static [ErrorCode] = &[
        Self::PermDenied,
        Self::NoDisplay,
        Self::A11yUnavailable,
        Self::AppNotFound,
        Self::WindowNotFound,
        Self::ElementNotFound,
        Self::StaleRef,
        Self::AmbiguousTarget,
        Self::ActionNotSupported,
        Self::ActionFailed,
        Self::AppUnresponsive,
        Self::Timeout,
        Self::InvalidArgs,
        Self::InvalidKey,
        Self::WindowMismatch,
        Self::OffScreen,
        Self::ReadOnly,
        Self::NotCheckable,
        Self::NotInteractable,
        Self::PlatformNotSupported,
        Self::SandboxFailed,
        Self::Internal,
    ];
}

/// A failure with everything an agent needs to recover from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// Raw detail from the platform API (a D-Bus error name, an X11 error), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform_detail: Option<String>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            suggestion: None,
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
