//! `desktop-cli agent "goal"`: a model carries out a goal on the desktop, grounded in the
//! accessibility tree (ids) and a marked screenshot, acting through the same engine as the
//! CLI, with confirmation of risky steps, a kill switch, a step limit and a transcript.

mod config;
mod contract;
mod exec;
mod model;
mod replay;
mod run;
#[cfg(test)]
mod run_tests;
mod safety;
mod screen;
mod secrets;
mod tools;
mod transcript;
mod wire;

use crate::cli::{AgentArgs, Confirm, Global, ToolFormat};
use crate::output::Out;
use desktop_core::Desktop;
use desktop_core::{Error, Result};
use serde_json::Value;
use std::time::Duration;

/// Runs the command; the envelope's `data.success` says whether the goal was reached, and
/// the exit status is 1 when it was not.
pub async fn command(g: &Global, out: Out, a: AgentArgs) -> i32 {
    match start(g, a).await {
        Ok(data) => {
            let success = data["success"].as_bool().unwrap_or(false);
            let code = out.ok("agent", data);
            if code == 0 && !success {
                1
            } else {
                code
            }
        }
        Err(e) => out.err("agent", &e),
    }
}

async fn start(g: &Global, a: AgentArgs) -> Result<Value> {
    let call_timeout = Duration::from_millis(g.call_timeout.max(1));
    let secrets = secrets::Secrets::parse(&a.secrets, &a.secret_fields)?;
    if let Some(dir) = &a.replay {
        let d = crate::commands::connect(g).await?;
        let o = replay::Options {
            confirm: a.confirm.unwrap_or(Confirm::Risky),
            allow_apps: a.allow_apps.clone(),
            dry_run: a.dry_run,
            call_timeout,
            secrets,
        };
        return replay::run(&d, dir, o).await;
    }
    let goal = a.goal.clone().unwrap_or_default();
    if goal.trim().is_empty() {
        return Err(Error::invalid_args("the goal is empty")
            .suggest("Example: desktop-cli agent \"tick the check box and press Save\""));
    }
    if !(200..=100_000).contains(&a.tree_tokens) {
        return Err(Error::invalid_args("--tree-tokens must be 200 to 100000")
            .suggest("Example: --tree-tokens 6000"));
    }
    let settings = config::resolve(&a)?;
    let d = crate::commands::connect(g).await?;
    // The starting window, pinned by its id so a title change does not lose it.
    let scope = a.target.target();
    let window = if scope.is_empty() {
        scope
    } else {
        let w = d.resolve(&scope).await?;
        desktop_core::Target {
            window_id: w.id,
            pid: w.id.is_none().then_some(w.pid),
            ..Default::default()
        }
    };
    let log = transcript::Transcript::create(a.transcript.clone())?;
    let o = run::Options {
        goal,
        max_steps: settings.max_steps,
        confirm: settings.confirm,
        allow_apps: settings.allow_apps,
        dry_run: a.dry_run,
        plan: a.plan,
        json_contract: a.tool_format == ToolFormat::Json,
        screen: screen::Options {
            tree_tokens: a.tree_tokens,
            bounds: a.tree_bounds || a.no_screenshot,
            screenshot: !a.no_screenshot,
            grid: a.grid,
        },
        call_timeout,
        secrets,
    };
    run::run(&d, settings.provider, o, window, log).await
}
