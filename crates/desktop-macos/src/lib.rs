//! The macOS backend of desktop-cli (macOS 13+): windows and apps from Core Graphics and
//! AppKit, element trees from the AX API in one batched attribute read per element, input
//! as CGEvents, captures through ScreenCaptureKit, the clipboard through NSPasteboard.
//!
//! What is not a system call — role mapping, attribute decoding, the tree, key codes,
//! typing chunks, points and pixels, permission errors, window states and the watch after
//! a window operation — is plain Rust, compiled and unit-tested on every platform
//! (recorded attribute dumps stand in for apps). The system calls are compiled on macOS
//! alone; nothing on Linux can run them.

pub mod attrs;
pub mod geometry;
pub mod keys;
pub mod permissions;
pub mod roles;
pub mod typing;
pub mod windows;
pub mod winops;

#[cfg(target_os = "macos")]
mod mac;

#[cfg(target_os = "macos")]
pub use mac::{clipboard::Clipboard, desktop::MacDesktop, system::MacSystem};
