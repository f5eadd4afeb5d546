//! desktop-cli's agent: a model carries out a goal on a desktop, grounded in the
//! accessibility tree (ids) and a marked screenshot, acting through the same engine as the
//! CLI, with confirmation of risky steps, a kill switch, a step limit and a transcript.
//! Generic over [`Desktop`], so whole runs are tested on the in-memory desktop.

mod ask;
mod config;
mod contract;
mod exec;
mod model;
mod palette;
mod reel;
mod replay;
pub mod report;
mod run;
#[cfg(test)]
mod run_tests;
mod safety;
mod screen;
mod secrets;
mod tools;
mod transcript;
mod wire;

pub use ask::{ask, Answer, AskRequest, Located, Pointed, Question};
use desktop_core::system::Clipboard;
use desktop_core::Desktop;
use desktop_core::{Error, Result, Target};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// When the agent asks before acting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confirm {
    /// Launching programs, typing into terminals, system key combos, apps outside the
    /// allowed ones.
    Risky,
    /// Every action.
    All,
    /// No action (apps outside the allowed ones are then refused instead of asked about).
    Never,
}

/// Choices given for this run (flags); each overrides the environment and the settings
/// file. `None`/empty: not given.
#[derive(Debug, Default, Clone)]
pub struct Choices {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub fallback_model: Option<String>,
    pub base_url: Option<String>,
    /// The settings file (default `~/.config/desktop-cli/agent.toml`).
    pub config: Option<PathBuf>,
    pub max_steps: Option<u32>,
    pub max_tokens: Option<u32>,
    pub model_timeout_s: Option<u64>,
    pub confirm: Option<Confirm>,
    pub allow_apps: Vec<String>,
}

/// What the model is shown of the window each time (the agent's turns, `ask`).
#[derive(Debug, Clone, Copy)]
pub struct Look {
    /// Send no screenshots: the element tree alone.
    pub no_screenshot: bool,
    pub grid: bool,
    /// Each element's rectangle in the tree sent to the model.
    pub tree_bounds: bool,
    /// Cap on the tree sent, in tokens (200 to 100000).
    pub tree_tokens: usize,
    /// A browser window's own toolbar and tabs in the tree too (by default only its page).
    pub browser_controls: bool,
}

impl Look {
    fn check(&self) -> Result<()> {
        if !(200..=100_000).contains(&self.tree_tokens) {
            return Err(Error::invalid_args("--tree-tokens must be 200 to 100000")
                .suggest("Example: --tree-tokens 6000"));
        }
        Ok(())
    }

    /// The observation's options; `pointer`: the pointer overlays of agent.toml.
    fn options(&self, pointer: bool) -> screen::Options {
        screen::Options {
            tree_tokens: self.tree_tokens,
            // Without a screenshot the tree is the only place positions can be.
            bounds: self.tree_bounds || self.no_screenshot,
            screenshot: !self.no_screenshot,
            grid: self.grid,
            pointer,
            page: !self.browser_controls,
        }
    }
}

/// The window `start` names, pinned by its id so a title change does not lose it (empty:
/// the focused window, as it is at each look).
async fn pin<D: Desktop>(d: &D, start: &Target) -> Result<Target> {
    if start.is_empty() {
        return Ok(start.clone());
    }
    let w = d.resolve(start).await?;
    Ok(Target {
        window_id: w.id,
        pid: w.id.is_none().then_some(w.pid),
        ..Default::default()
    })
}

/// One run of the agent, or a replay of a recorded one.
#[derive(Debug, Clone)]
pub struct Request {
    /// What to do, in plain words.
    pub goal: Option<String>,
    /// The window to start in (empty: the focused window).
    pub start: Target,
    pub choices: Choices,
    /// Plan and show the actions, act on nothing.
    pub dry_run: bool,
    /// Ask for the whole plan up front.
    pub plan: bool,
    /// The JSON step contract in the reply text instead of native tool calls.
    pub json_contract: bool,
    pub look: Look,
    /// Folder for the transcript (default under the user's state directory).
    pub transcript: Option<PathBuf>,
    /// `NAME=env:VAR` / `NAME=file:PATH`.
    pub secrets: Vec<String>,
    /// `NAME=FIELD`.
    pub secret_fields: Vec<String>,
    /// Re-execute a recorded run's actions instead.
    pub replay: Option<PathBuf>,
    /// Longest wait for one call to the desktop.
    pub call_timeout: Duration,
}

/// How a run (or a replay) ended, and what it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The goal was reached (a replay: every step ran).
    pub success: bool,
    /// `done`, `ask_user`, `max_steps`, `refused`, `killed`, `error`, ...; a replay:
    /// `replayed` or `failed`.
    pub stop: String,
    pub message: String,
    /// Each step as the transcript records it (tool, action, why, result or error).
    pub steps: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// Per model turn: tokens, latency, model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// The run's transcript folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// The transcript a replay followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed_from: Option<String>,
}

/// Model tokens over a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
}

/// What the agent uses besides the desktop itself.
#[derive(Clone)]
pub struct Services {
    pub clipboard: Arc<dyn Clipboard + Send + Sync>,
    /// The platform's name, for the model ("Linux", "macOS", "Windows").
    pub platform: &'static str,
}

/// Runs the agent; `connect` is awaited only once the request checks out.
pub async fn run<D, F>(req: Request, connect: F, services: Services) -> Result<Report>
where
    D: Desktop,
    F: Future<Output = Result<D>>,
{
    let secrets = secrets::Secrets::parse(&req.secrets, &req.secret_fields)?;
    if let Some(dir) = &req.replay {
        let d = connect.await?;
        let o = replay::Options {
            confirm: req.choices.confirm.unwrap_or(Confirm::Risky),
            allow_apps: req.choices.allow_apps.clone(),
            dry_run: req.dry_run,
            call_timeout: req.call_timeout,
            secrets,
            clipboard: services.clipboard,
        };
        return replay::run(&d, dir, o).await;
    }
    let goal = req.goal.clone().unwrap_or_default();
    if goal.trim().is_empty() {
        return Err(Error::invalid_args("the goal is empty")
            .suggest("Example: desktop-cli agent \"tick the check box and press Save\""));
    }
    req.look.check()?;
    let settings = config::resolve(&req.choices)?;
    let d = connect.await?;
    let window = pin(&d, &req.start).await?;
    let log = transcript::Transcript::create(req.transcript.clone())?;
    let o = run::Options {
        goal,
        max_steps: settings.max_steps,
        confirm: settings.confirm,
        allow_apps: settings.allow_apps,
        dry_run: req.dry_run,
        plan: req.plan,
        json_contract: req.json_contract,
        screen: req.look.options(settings.pointer_overlays),
        call_timeout: req.call_timeout,
        secrets,
        services,
    };
    run::run(&d, settings.provider, o, window, log).await
}

/// A line on stderr for the person watching the run (never the envelope on stdout).
#[allow(clippy::print_stderr)]
pub(crate) fn notice(msg: &str) {
    eprintln!("desktop-cli: {msg}");
}
