//! The action commands: each turns its arguments into one `ActionRequest` (see
//! `cli::requests`) and hands it to the desktop, which validates it before acting, so an
//! invalid request types and clicks nothing. `launch` is the one that starts a program.

use crate::cli::LaunchArgs;
use desktop_core::action::ActionResult;
use desktop_core::request::ActionRequest;
use desktop_core::{Error, Result};
use desktop_linux::LinuxDesktop;
use std::time::Duration;

/// Carries out one request.
pub async fn run(d: &LinuxDesktop, req: Result<ActionRequest>) -> Result<ActionResult> {
    d.act(&req?).await
}

pub async fn launch(d: &LinuxDesktop, a: LaunchArgs) -> Result<ActionResult> {
    if a.wait == 0 || a.wait > 600 {
        return Err(Error::invalid_args("--wait must be 1 to 600 seconds"));
    }
    d.launch(&a.cmd, Duration::from_secs(a.wait)).await
}
