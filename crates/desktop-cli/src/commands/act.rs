//! The action commands: each turns its arguments into one `ActionRequest` (see
//! `cli::requests`) and hands it to the desktop, which validates it before acting, so an
//! invalid request types and clicks nothing. `launch` is the one that starts a program.

use desktop_core::action::ActionResult;
use desktop_core::request::ActionRequest;
use desktop_core::Desktop;
use desktop_core::{Error, Result};
use std::time::Duration;

/// Carries out one request.
pub async fn run<D: Desktop>(d: &D, req: Result<ActionRequest>) -> Result<ActionResult> {
    d.act(&req?).await
}

/// Starts `cmd` and waits up to `wait` for its window.
pub async fn launch<D: Desktop>(d: &D, cmd: &[String], wait: Duration) -> Result<ActionResult> {
    if cmd.first().is_none_or(|c| c.trim().is_empty()) {
        return Err(Error::invalid_args("the command to launch is empty")
            .suggest("Example: gtk3-widget-factory"));
    }
    if wait.is_zero() || wait > Duration::from_secs(600) {
        return Err(Error::invalid_args(
            "the wait for its window must be 1 to 600 seconds",
        ));
    }
    d.launch(cmd, wait).await
}
