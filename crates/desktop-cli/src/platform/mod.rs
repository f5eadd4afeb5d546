//! The platform backend, chosen at compile time by target OS (enigo's `cfg` + `path`
//! pattern): the one module of the binary that names a backend crate. Every other module
//! uses [`Platform`] through `desktop_core::Desktop` and [`SYSTEM`] through
//! `desktop_core::System` (connecting, the clipboard, the doctor's checks, the state
//! directory); what only Linux has (the keeper, the clipboard's holder, the sandbox) is
//! compiled on Linux alone.

#[cfg(target_os = "linux")]
#[path = "linux.rs"]
mod imp;

#[cfg(target_os = "macos")]
#[path = "macos.rs"]
mod imp;

#[cfg(windows)]
#[path = "windows.rs"]
mod imp;

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
#[path = "unsupported.rs"]
mod imp;

pub use imp::*;

/// The system the desktop runs, as models are told (keys and habits differ).
#[cfg(any(feature = "mcp", feature = "agent"))]
pub fn name() -> &'static str {
    match std::env::consts::OS {
        "macos" => "macOS",
        "windows" => "Windows",
        "linux" => "Linux",
        _ => "computer",
    }
}
