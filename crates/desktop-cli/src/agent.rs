//! `desktop-cli agent "goal"`: the command face of the `desktop-agent` crate, which runs the
//! loop on this platform's desktop.

use crate::cli::{AgentArgs, Confirm, Global, ToolFormat};
use crate::output::Out;
use crate::platform::SYSTEM;
use desktop_core::System;
use std::sync::Arc;
use std::time::Duration;

impl From<Confirm> for desktop_agent::Confirm {
    fn from(c: Confirm) -> Self {
        match c {
            Confirm::Risky => desktop_agent::Confirm::Risky,
            Confirm::All => desktop_agent::Confirm::All,
            Confirm::Never => desktop_agent::Confirm::Never,
        }
    }
}

fn request(g: &Global, a: AgentArgs) -> desktop_agent::Request {
    desktop_agent::Request {
        goal: a.goal,
        start: a.target.target(),
        choices: desktop_agent::Choices {
            provider: a.provider,
            model: a.model,
            fallback_model: a.fallback_model,
            base_url: a.base_url,
            config: a.config,
            max_steps: a.max_steps,
            max_tokens: a.max_tokens,
            model_timeout_s: a.model_timeout,
            confirm: a.confirm.map(Into::into),
            allow_apps: a.allow_apps,
        },
        dry_run: a.dry_run,
        plan: a.plan,
        json_contract: a.tool_format == ToolFormat::Json,
        no_screenshot: a.no_screenshot,
        grid: a.grid,
        tree_bounds: a.tree_bounds,
        tree_tokens: a.tree_tokens,
        transcript: a.transcript,
        secrets: a.secrets,
        secret_fields: a.secret_fields,
        replay: a.replay,
        call_timeout: Duration::from_millis(g.call_timeout.max(1)),
    }
}

/// Runs the command; the envelope's `data.success` says whether the goal was reached, and
/// the exit status is 1 when it was not.
pub async fn command(g: &Global, out: Out, a: AgentArgs) -> i32 {
    let services = desktop_agent::Services {
        clipboard: Arc::new(SYSTEM.clipboard()),
        platform: crate::platform::name(),
    };
    let connect = crate::commands::connect(g);
    match desktop_agent::run(request(g, a), connect, services).await {
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
