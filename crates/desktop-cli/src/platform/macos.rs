//! macOS: the AX API, CGEvents, ScreenCaptureKit and NSPasteboard through `desktop-macos`.
//! Compiled and unit-tested on Linux; it runs only on a Mac (see the README's table).

pub use desktop_macos::{MacDesktop as Platform, MacSystem};

/// The platform this binary was built for.
pub const SYSTEM: MacSystem = MacSystem;
