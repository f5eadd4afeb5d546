//! Platform-neutral core of desktop-cli: the element model, roles, filters, compact output,
//! the response envelope and the error type. No OS dependencies.

pub mod action;
pub mod activity;
pub mod backend;
pub mod budget;
pub mod conformance;
pub mod diff;
pub mod envelope;
pub mod error;
#[cfg(any(test, feature = "fake"))]
pub mod fake;
#[cfg(test)]
mod fake_conformance;
#[cfg(test)]
mod fake_tests;
pub mod filedialog;
pub mod filter;
pub mod hint;
mod jpeg;
pub mod keys;
pub mod menu;
pub mod model;
pub mod node;
pub mod overlay;
pub mod page;
mod paint;
pub mod pipeline;
pub mod private;
pub mod refs;
pub mod render;
pub mod request;
pub mod role;
pub mod runs;
pub mod screenshot;
pub mod shot;
pub mod stop;
pub mod system;
pub mod table;
pub mod tokens;
pub mod watch;
pub mod windows;
pub mod winops;
pub mod wire;

pub use backend::Desktop;
pub use error::{Error, ErrorCode, Result};
pub use filter::Filters;
pub use model::{AppInfo, AppList, ReadData, Target, Unresponsive, WindowInfo, WindowList};
pub use node::{is_cell_address, steady_name, without_mnemonic, Caps, Handle, Node, Rect, States};
pub use request::{Action, ActionRequest, Aim, Button, Direction, Element};
pub use role::Role;
pub use system::System;
