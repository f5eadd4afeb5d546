//! The action commands: each turns its arguments into one `ActionRequest` (see
//! `cli::requests`) and hands it to the desktop, which validates it before acting, so an
//! invalid request types and clicks nothing. `launch` starts a program; `window` and
//! `close-app` act on windows and apps rather than elements (`desktop_core::winops`).
//! Every action carried out goes into the activity log, named by the face that asked.

use desktop_core::action::ActionResult;
use desktop_core::request::ActionRequest;
use desktop_core::winops::{self, WindowOp};
use desktop_core::{Desktop, Target};
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

/// One window operation for `face`, on the window `target` names.
pub async fn window<D: Desktop>(
    d: &D,
    target: Target,
    op: WindowOp,
    face: &'static str,
) -> Result<ActionResult> {
    let t = std::time::Instant::now();
    let r = winops::run(d, &target, op).await;
    let named = target
        .app
        .clone()
        .or_else(|| target.window.clone())
        .or_else(|| target.window_id.map(|id| format!("window {id:#x}")))
        .unwrap_or_default();
    let command = format!("window {}", op.name());
    desktop_core::activity::record_desktop(face, &command, named, &r, t.elapsed());
    r
}

/// `close-app` for `face`: `grace` is how long the app gets before its processes are ended
/// (`--force`), `None` to end nothing.
pub async fn close_app<D: Desktop>(
    d: &D,
    app: &str,
    grace: Option<Duration>,
    face: &'static str,
) -> Result<ActionResult> {
    let t = std::time::Instant::now();
    let force = grace.map_or(winops::Force::No, winops::Force::After);
    let r = winops::close_app(d, app, force).await;
    desktop_core::activity::record_desktop(face, "close-app", app.to_string(), &r, t.elapsed());
    r
}

/// `menu --path` for `face`: each level opened, the last activated.
pub async fn menu<D: Desktop>(
    d: &D,
    target: &Target,
    path: &str,
    face: &'static str,
) -> Result<ActionResult> {
    let t = std::time::Instant::now();
    let r = desktop_core::menu::open(d, target, path, tokio::time::sleep).await;
    let named = target
        .app
        .clone()
        .or_else(|| target.window.clone())
        .unwrap_or_default();
    desktop_core::activity::record_desktop(face, "menu", named, &r, t.elapsed());
    r
}

/// `file-dialog --path` for `face`: the chooser showing filled and confirmed.
pub async fn file_dialog<D: Desktop>(
    d: &D,
    target: &Target,
    path: &str,
    action: Option<&str>,
    face: &'static str,
) -> Result<ActionResult> {
    let t = std::time::Instant::now();
    let r = match action
        .map(desktop_core::filedialog::Mode::parse)
        .transpose()
    {
        Ok(mode) => desktop_core::filedialog::fill(d, target, path, mode, tokio::time::sleep).await,
        Err(e) => Err(e),
    };
    desktop_core::activity::record_desktop(face, "file-dialog", path.to_string(), &r, t.elapsed());
    r
}
