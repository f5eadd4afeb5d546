//! The platform backend, chosen at compile time by target OS (enigo's `cfg` + `path`
//! pattern): the one module of the binary that names a backend crate. Every other module
//! uses [`Platform`] through `desktop_core::Desktop` and the functions each backend module
//! offers with the same names and signatures: connecting, the refs file, the clipboard, the
//! doctor's checks, and the process-level helpers (keeper, sandbox adoption).

#[cfg(target_os = "linux")]
#[path = "linux.rs"]
mod imp;

#[cfg(not(target_os = "linux"))]
#[path = "unsupported.rs"]
mod imp;

pub use imp::*;

/// The system the desktop runs, as models are told (keys and habits differ).
pub fn name() -> &'static str {
    match std::env::consts::OS {
        "macos" => "macOS",
        "windows" => "Windows",
        "linux" => "Linux",
        _ => "computer",
    }
}
