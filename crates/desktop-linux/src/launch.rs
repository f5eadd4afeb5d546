//! `launch`: start a program on this desktop and wait until its window can be read.

use crate::{sandbox, LinuxDesktop};
use desktop_core::action::{ActionResult, Route};
use desktop_core::{Desktop, Error, ErrorCode, Result, Target};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Flags Chromium-family browsers need before they expose web content (see the testbed notes).
const CHROMIUM_A11Y: &str = "--force-renderer-accessibility";
/// Chromium draws through X11 unless told to use Wayland.
const CHROMIUM_WAYLAND: &str = "--ozone-platform=wayland";
/// Chromium stops laying out a page whose window others hide wholly, and its accessibility
/// tree goes stale until the window shows again; this keeps it current (browser automation
/// tools pass it too).
const CHROMIUM_OCCLUDED: &str = "--disable-backgrounding-occluded-windows";

fn is_chromium(program: &str) -> bool {
    let base = Path::new(program)
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or(program);
    matches!(
        base,
        "chromium"
            | "chromium-browser"
            | "google-chrome"
            | "google-chrome-stable"
            | "chrome"
            | "brave-browser"
            | "microsoft-edge"
    )
}

/// Whether process `pid` is `ancestor` or one of its descendants (a wrapper script that
/// starts the real program: LibreOffice's `soffice` starts `soffice.bin`).
fn descends_from(pid: u32, ancestor: u32) -> bool {
    let mut at = pid;
    for _ in 0..16 {
        if at == ancestor {
            return true;
        }
        if at <= 1 {
            return false;
        }
        let Some(parent) = parent_of(at) else {
            return false;
        };
        at = parent;
    }
    false
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (in parentheses, which may hold spaces).
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

impl LinuxDesktop {
    /// Starts `cmd` (in the sandbox's process group when running in one, so `sandbox down`
    /// stops it) and waits up to `timeout` for a window of its process to be readable.
    pub(crate) async fn start_program(
        &self,
        cmd: &[String],
        timeout: Duration,
    ) -> Result<ActionResult> {
        let (program, args) = cmd
            .split_first()
            .ok_or_else(|| Error::invalid_args("launch needs a program"))?;
        let mut args: Vec<String> = args.to_vec();
        let mut notes = Vec::new();
        if is_chromium(program) && !args.iter().any(|a| a == CHROMIUM_A11Y) {
            args.insert(0, CHROMIUM_A11Y.to_string());
            notes.push(format!(
                "added {CHROMIUM_A11Y} (Chromium shows no page tree without it)"
            ));
            if !args.iter().any(|a| a == CHROMIUM_OCCLUDED) {
                args.insert(0, CHROMIUM_OCCLUDED.to_string());
                notes.push(format!(
                    "added {CHROMIUM_OCCLUDED} (a page hidden behind other windows stays current)"
                ));
            }
            if self.wl.is_some() && !args.iter().any(|a| a.starts_with("--ozone-platform")) {
                args.insert(0, CHROMIUM_WAYLAND.to_string());
                notes.push(format!(
                    "added {CHROMIUM_WAYLAND} (else it looks for an X display)"
                ));
            }
            if rustix::process::getuid().is_root() && !args.iter().any(|a| a == "--no-sandbox") {
                args.insert(0, "--no-sandbox".to_string());
                notes.push(
                    "added --no-sandbox (Chromium refuses to run as root without it)".to_string(),
                );
            }
        }
        let mut command = Command::new(program);
        command.args(&args).stdin(Stdio::null());
        // Qt 6 connects to the accessibility bus but never registers when handed its
        // address: leave it out wherever the X root window leads there anyway.
        let root_bus = self
            .x
            .as_ref()
            .and_then(|x| x.root_string("AT_SPI_BUS").ok().flatten());
        match sandbox::in_use() {
            Some(sb) => {
                for var in sb.unset() {
                    command.env_remove(var);
                }
            }
            None if root_bus.as_deref() == Some(self.address.as_str()) => {
                for var in sandbox::UNSET {
                    command.env_remove(var);
                }
            }
            None => {}
        }
        // Windows already open are not the new program's, whatever their app is called
        // (another python3 app, say).
        let before: Vec<Option<u64>> = self
            .windows(&Target::default())
            .await
            .map(|l| l.windows.iter().map(|w| w.id).collect())
            .unwrap_or_default();
        let spawned = match sandbox::in_use() {
            Some(sb) => {
                command.stdout(sb.app_log()).stderr(sb.app_log());
                sb.spawn(&mut command)
            }
            None => command
                .process_group(0)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn(),
        };
        let mut child = spawned.map_err(|e| {
            Error::new(
                ErrorCode::ActionFailed,
                format!("cannot start {program}: {e}"),
            )
            .suggest("Check the program name and PATH")
        })?;
        let pid = child.id();
        let name = Path::new(program)
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or(program)
            .to_lowercase();
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(Error::new(ErrorCode::ActionFailed, format!("{program} exited ({status}) before showing a window"))
                    .suggest("Run it by hand to see its error output; single-instance apps hand over to a running copy"));
            }
            let mut list = self.windows(&Target::default()).await?;
            // On Wayland a frame shows up before the compositor maps its window (and says
            // where it is): wait for both.
            if self.wl.is_some() {
                list.windows.retain(|w| w.id.is_some());
            }
            let mine = list
                .windows
                .iter()
                .find(|w| w.a11y && descends_from(w.pid, pid))
                .or_else(|| {
                    // A program that hands over to another process (a single-instance
                    // app's copy already running): a new window of its name.
                    list.windows.iter().find(|w| {
                        let app = w.app.to_lowercase();
                        w.a11y
                            && (w.id.is_none() || !before.contains(&w.id))
                            && (app.contains(&name) || name.contains(&app))
                    })
                });
            if let Some(w) = mine {
                let mut r = ActionResult::new("launch", Route::System);
                // Its window can be read: the launch did what it was for.
                r.effect = desktop_core::action::Effect::Confirmed;
                let mut r = r
                    .with("app", w.app.clone())
                    .with("pid", w.pid)
                    .with("title", w.title.clone());
                if let Some(id) = w.id {
                    r = r.with("window_id", id);
                }
                if !notes.is_empty() {
                    r = r.with("notes", notes);
                }
                return Ok(r);
            }
            if Instant::now() >= deadline {
                return Err(Error::new(ErrorCode::Timeout, format!("{program} (pid {pid}) showed no readable window within {} s", timeout.as_secs()))
                    .suggest("It may still be starting (wait longer), or it exposes no accessibility tree; it was left running"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
