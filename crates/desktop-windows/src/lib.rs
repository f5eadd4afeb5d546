//! The Windows backend of desktop-cli (Windows 10/11), in progress: the parts that are not
//! system calls — UI Automation control types and MSAA roles mapped to core roles, virtual
//! key codes, typing as UTF-16 units, window placement and monitors, the cache of elements
//! found again and the bound on a pattern call that opens a modal dialog — built and
//! unit-tested on every platform.

pub mod found;
pub mod keys;
pub mod monitors;
pub mod pending;
pub mod placement;
pub mod props;
pub mod roles;
pub mod typing;
pub mod uia;

#[cfg(windows)]
mod win;

#[cfg(windows)]
pub use win::{clipboard::Clipboard, desktop::WinDesktop, system::WinSystem};
