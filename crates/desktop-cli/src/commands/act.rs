//! The action commands: each turns its arguments into one `ActionRequest` (see
//! `cli::requests`) and hands it to the desktop, which validates it before acting, so an
//! invalid request types and clicks nothing. `launch` is the one that starts a program.
//! Every action carried out goes into the activity log, named by the face that asked.

use desktop_core::action::ActionResult;
use desktop_core::request::ActionRequest;
use desktop_core::Desktop;
use desktop_core::{Error, Result};
use std::time::Duration;

/// Carries out one request for `face` (`cli`, `mcp`).
pub async fn run<D: Desktop>(
    d: &D,
    req: Result<ActionRequest>,
    face: &'static str,
) -> Result<ActionResult> {
    let req = req?;
    let t = std::time::Instant::now();
    let r = d.act(&req).await;
    desktop_core::activity::record(face, &req, &r, t.elapsed());
    r
}

/// Starts `cmd` for `face` and waits up to `wait` for its window.
pub async fn launch<D: Desktop>(
    d: &D,
    cmd: &[String],
    wait: Duration,
    face: &'static str,
) -> Result<ActionResult> {
    if cmd.first().is_none_or(|c| c.trim().is_empty()) {
        return Err(Error::invalid_args("the command to launch is empty")
            .suggest("Example: gtk3-widget-factory"));
    }
    if wait.is_zero() || wait > Duration::from_secs(600) {
        return Err(Error::invalid_args(
            "the wait for its window must be 1 to 600 seconds",
        ));
    }
    let t = std::time::Instant::now();
    let r = d.launch(cmd, wait).await;
    desktop_core::activity::record_launch(face, cmd, &r, t.elapsed());
    r
}
