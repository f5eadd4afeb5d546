//! Windows: MSAA and Win32 through `desktop-windows` (the path that also runs under Wine);
//! UI Automation is still to come.

pub use desktop_windows::{WinDesktop as Platform, WinSystem};

/// The platform this binary was built for.
pub const SYSTEM: WinSystem = WinSystem;
