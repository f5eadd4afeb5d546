//! Starting a program: an app by name or bundle path through `open -a` (LaunchServices),
//! anything else as a process; then waiting until one of its windows can be read.

use super::desktop::MacDesktop;
use desktop_core::action::{ActionResult, Effect, Route};
use desktop_core::model::name_matches;
use desktop_core::{Desktop, Error, ErrorCode, Result, Target};
use std::time::{Duration, Instant};

/// Whether `program` names an app for LaunchServices (`TextEdit`, `/Applications/X.app`)
/// rather than an executable.
fn is_app(program: &str) -> bool {
    program.ends_with(".app") || !program.contains('/') && which(program).is_none()
}

fn which(program: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH")?
        .to_string_lossy()
        .split(':')
        .map(|d| std::path::Path::new(d).join(program))
        .find(|p| p.is_file())
}

pub async fn launch(d: &MacDesktop, cmd: &[String], wait: Duration) -> Result<ActionResult> {
    let Some(program) = cmd.first() else {
        return Err(Error::invalid_args("no program to start").suggest("Example: launch TextEdit"));
    };
    let app = is_app(program);
    let child = if app {
        std::process::Command::new("/usr/bin/open")
            .args(["-a", program])
            .args(if cmd.len() > 1 {
                vec!["--args"]
            } else {
                vec![]
            })
            .args(&cmd[1..])
            .status()
            .map(|s| (s.success(), None))
    } else {
        std::process::Command::new(program)
            .args(&cmd[1..])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map(|c| (true, Some(c.id())))
    };
    let (started, pid) = child.map_err(|e| {
        Error::new(
            ErrorCode::AppNotFound,
            format!("cannot start {program}: {e}"),
        )
        .suggest("Check the program's name or path")
    })?;
    if !started {
        return Err(Error::new(
            ErrorCode::AppNotFound,
            format!("macOS found no app named {program}"),
        )
        .suggest("Give the app's name as Finder shows it, or its .app path"));
    }
    let name = std::path::Path::new(program)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| program.clone());
    let deadline = Instant::now() + wait;
    loop {
        let list = d.windows(&Target::default()).await?;
        let hit = list
            .windows
            .into_iter()
            .find(|w| w.a11y && (pid == Some(w.pid) || name_matches(&w.app, &name)));
        if let Some(w) = hit {
            let mut r = ActionResult::new("launch", Route::System)
                .with("app", w.app.clone())
                .with("pid", w.pid)
                .with("window", serde_json::json!({"title": w.title, "id": w.id}));
            r.effect = Effect::Confirmed;
            return Ok(r);
        }
        if Instant::now() >= deadline {
            return Err(Error::new(
                ErrorCode::Timeout,
                format!(
                    "{program} started but showed no readable window in {} s",
                    wait.as_secs()
                ),
            )
            .suggest("Wait longer (--wait), or check its window with list"));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
