//! `desktop-cli agent "goal"`: the command face of the `desktop-agent` crate, which runs the
//! loop on this platform's desktop.

use crate::cli::{AgentArgs, Confirm, Global, LookArgs, ModelArgs, ToolFormat};
use crate::output::{notice, Out};
use crate::platform::SYSTEM;
use desktop_core::{Error, Result, System};
use std::io::{BufRead, IsTerminal, Read};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The most a goal may hold: a goal is a few sentences, not a document.
const MAX_GOAL: u64 = 64 * 1024;

fn read_all(from: impl Read, what: &str) -> Result<String> {
    let mut text = String::new();
    from.take(MAX_GOAL).read_to_string(&mut text).map_err(|e| {
        Error::invalid_args(format!("cannot read the goal from {what}: {e}"))
            .suggest("Give the goal as text (UTF-8)")
    })?;
    Ok(text)
}

fn from_path(path: &Path) -> Result<String> {
    if path == Path::new("-") {
        return read_all(std::io::stdin().lock(), "standard input");
    }
    let file = std::fs::File::open(path).map_err(|e| {
        Error::invalid_args(format!("cannot read {}: {e}", path.display()))
            .suggest("Give an existing file with --goal-file")
    })?;
    read_all(file, &path.display().to_string())
}

/// The goal: given, from a file or standard input, or asked for on the terminal. `None`
/// for a replay.
fn goal(a: &AgentArgs) -> Result<Option<String>> {
    if a.replay.is_some() {
        return Ok(None);
    }
    match (&a.goal, &a.goal_file) {
        (Some(g), _) if g == "-" => from_path(Path::new("-")).map(Some),
        (Some(g), _) => Ok(Some(g.clone())),
        (None, Some(path)) => from_path(path).map(Some),
        (None, None) if std::io::stdin().is_terminal() => {
            notice("what should the agent do? (one line; Enter to start)");
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .take(MAX_GOAL)
                .read_line(&mut line)
                .map_err(|e| Error::invalid_args(format!("cannot read the goal: {e}")))?;
            Ok(Some(line))
        }
        (None, None) => Err(Error::invalid_args("no goal given").suggest(
            "desktop-cli agent \"tick the check box and press Save\", or --goal-file PATH, or - to read it from standard input",
        )),
    }
}

impl From<Confirm> for desktop_agent::Confirm {
    fn from(c: Confirm) -> Self {
        match c {
            Confirm::Risky => desktop_agent::Confirm::Risky,
            Confirm::All => desktop_agent::Confirm::All,
            Confirm::Never => desktop_agent::Confirm::Never,
        }
    }
}

fn request(g: &Global, a: AgentArgs, goal: Option<String>) -> desktop_agent::Request {
    desktop_agent::Request {
        goal,
        start: a.target.target(),
        choices: desktop_agent::Choices {
            max_steps: a.max_steps,
            confirm: a.confirm.map(Into::into),
            allow_apps: a.allow_apps,
            ..choices(a.model)
        },
        dry_run: a.dry_run,
        plan: a.plan,
        json_contract: a.tool_format == ToolFormat::Json,
        look: look(&a.look),
        transcript: a.transcript,
        secrets: a.secrets,
        secret_fields: a.secret_fields,
        replay: a.replay,
        call_timeout: Duration::from_millis(g.call_timeout.max(1)),
    }
}

/// The model settings given on the command line.
pub(crate) fn choices(m: ModelArgs) -> desktop_agent::Choices {
    desktop_agent::Choices {
        provider: m.provider,
        model: m.model,
        fallback_model: m.fallback_model,
        base_url: m.base_url,
        config: m.config,
        max_tokens: m.max_tokens,
        model_timeout_s: m.model_timeout,
        ..desktop_agent::Choices::default()
    }
}

/// What the model is shown, as given on the command line.
pub(crate) fn look(l: &LookArgs) -> desktop_agent::Look {
    desktop_agent::Look {
        no_screenshot: l.no_screenshot,
        grid: l.grid,
        tree_bounds: l.tree_bounds,
        tree_tokens: l.tree_tokens,
        browser_controls: l.browser_controls,
    }
}

/// The platform's services the agent crate uses.
pub(crate) fn services() -> desktop_agent::Services {
    desktop_agent::Services {
        clipboard: Arc::new(SYSTEM.clipboard()),
        platform: crate::platform::name(),
    }
}

/// Runs the command; the envelope's `data.success` says whether the goal was reached, and
/// the exit status is 1 when it was not.
pub async fn command(g: &Global, out: Out, mut a: AgentArgs) -> i32 {
    if let Some(dir) = a.report_dir.take() {
        if a.goal.as_deref() != Some("report") || a.report.is_some() {
            let e = desktop_core::Error::invalid_args("a goal is one argument")
                .suggest("Quote the goal: agent \"open the file and ...\"; or agent report DIR");
            return out.err("agent", &e);
        }
        a.goal = None;
        a.report = Some(dir);
    }
    if a.report_output.is_some() && a.report.is_none() {
        let e = desktop_core::Error::invalid_args("--output is for agent report DIR").suggest(
            "Example: agent report ~/.local/state/desktop-cli/runs/RUN --output page.html",
        );
        return out.err("agent", &e);
    }
    if let Some(dir) = &a.report {
        return match desktop_agent::report::write(dir, a.report_output.as_deref()) {
            Ok(path) => out.ok(
                "agent-report",
                serde_json::json!({"report": path.display().to_string()}),
            ),
            Err(e) => out.err("agent-report", &e),
        };
    }
    let services = services();
    let goal = match goal(&a) {
        Ok(goal) => goal,
        Err(e) => return out.err("agent", &e),
    };
    // The loop reads the same windows turn after turn: keep them warm, and on Linux start
    // from the keeper's mirrors (they outlive this process).
    let connect = async {
        #[allow(unused_mut)]
        let mut d = crate::commands::connect_for(g, true).await?;
        #[cfg(target_os = "linux")]
        crate::relay::read_through_keeper(&mut d, g);
        Ok(d)
    };
    match desktop_agent::run(request(g, a, goal), connect, services).await {
        Ok(report) => {
            let success = report.success;
            let code = out.ok("agent", report);
            if code == 0 && !success {
                1
            } else {
                code
            }
        }
        Err(e) => out.err("agent", &e),
    }
}
