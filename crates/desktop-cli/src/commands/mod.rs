//! One module per command; `dispatch` routes a parsed command line to it.

pub(crate) mod act;
mod activity;
pub(crate) mod clip;
mod docs;
mod doctor;
pub(crate) mod list;
pub(crate) mod read;
#[cfg(target_os = "linux")]
mod sandbox;
pub(crate) mod shot;
pub(crate) mod watch;

use crate::cli::{Cli, Command, Global};
use crate::output::{notice, Out};
use crate::platform::{self, Platform};
use desktop_core::Result;
use std::time::Duration;

pub async fn dispatch(cli: Cli, out: Out) -> i32 {
    // Where the desktop's keeper answers, reads and element actions run on what it keeps
    // warm (`relay`); else, or when it declines, here.
    #[cfg(target_os = "linux")]
    if crate::relay::served(&cli.command) {
        if let Some(code) = crate::relay::forward(&cli.global, &cli.command, out).await {
            return code;
        }
    }
    dispatch_on(None, cli, out).await
}

/// Runs one command, on `lent` (the keeper's desktop) when given, else on a connection of
/// its own.
pub async fn dispatch_on(lent: Option<&Platform>, cli: Cli, out: Out) -> i32 {
    let g = cli.global;
    match cli.command {
        Command::List(args) => {
            let csv = out.format == crate::cli::Format::Csv;
            finish(out, "list", list::run(lent, &g, args, csv).await)
        }
        Command::Read(args) => read::run_on(lent, &g, out, args).await,
        Command::Click(a) => {
            let req = a.request();
            acting(lent, &g, out, "click", |d| {
                Box::pin(act::run(d, req, "cli"))
            })
            .await
        }
        Command::Hover(a) => {
            let req = a.hover_request();
            acting(lent, &g, out, "hover", |d| {
                Box::pin(act::run(d, req, "cli"))
            })
            .await
        }
        Command::Type(a) => {
            let req = a.request();
            acting(lent, &g, out, "type", |d| Box::pin(act::run(d, req, "cli"))).await
        }
        Command::Press(a) => {
            let req = a.request();
            acting(lent, &g, out, "press", |d| {
                Box::pin(act::run(d, req, "cli"))
            })
            .await
        }
        Command::Focus(a) => {
            let req = a.request();
            acting(lent, &g, out, "focus", |d| {
                Box::pin(act::run(d, req, "cli"))
            })
            .await
        }
        Command::Scroll(a) => {
            let req = a.request();
            acting(lent, &g, out, "scroll", |d| {
                Box::pin(act::run(d, req, "cli"))
            })
            .await
        }
        Command::Drag(a) => {
            let req = a.request();
            acting(lent, &g, out, "drag", |d| Box::pin(act::run(d, req, "cli"))).await
        }
        Command::SetValue(a) => {
            let req = a.request();
            acting(lent, &g, out, "set-value", |d| {
                Box::pin(act::run(d, req, "cli"))
            })
            .await
        }
        Command::Toggle(a) => {
            let req = a.request();
            acting(lent, &g, out, "toggle", |d| {
                Box::pin(act::run(d, req, "cli"))
            })
            .await
        }
        Command::Action(a) => {
            let req = a.request();
            acting(lent, &g, out, "action", |d| {
                Box::pin(act::run(d, req, "cli"))
            })
            .await
        }
        Command::Launch(a) => {
            let wait = Duration::from_secs(a.wait);
            let cmd = a.cmd;
            acting(lent, &g, out, "launch", |d| {
                Box::pin(async move { act::launch(d, &cmd, wait, "cli").await })
            })
            .await
        }
        Command::Window(a) => {
            let (target, op) = a.op.request();
            acting(lent, &g, out, "window", |d| {
                Box::pin(act::window(d, target, op, "cli"))
            })
            .await
        }
        Command::CloseApp(a) => {
            let grace = a.force.then(|| Duration::from_secs(a.grace));
            acting(lent, &g, out, "close-app", |d| {
                Box::pin(async move { act::close_app(d, &a.app, grace, "cli").await })
            })
            .await
        }
        Command::Menu(a) => {
            let target = a.target.target();
            acting(lent, &g, out, "menu", |d| {
                Box::pin(async move { act::menu(d, &target, &a.path, "cli").await })
            })
            .await
        }
        Command::FileDialog(a) => {
            let target = a.target.target();
            acting(lent, &g, out, "file-dialog", |d| {
                Box::pin(async move {
                    act::file_dialog(d, &target, &a.path, a.action.as_deref(), "cli").await
                })
            })
            .await
        }
        Command::Displays => match connect(&g).await {
            Ok(d) => out.ok("displays", list::displays(&d)),
            Err(e) => out.err("displays", &e),
        },
        Command::Wait(a) => match a.request() {
            Ok(req) => {
                acting_value(lent, &g, out, "wait", |d| {
                    Box::pin(async move { watch::wait(d, &req).await })
                })
                .await
            }
            Err(e) => out.err("wait", &e),
        },
        Command::Observe(a) => {
            let req = match a.request() {
                Ok(r) => r,
                Err(e) => return out.err("observe", &e),
            };
            match connect(&g).await {
                Ok(d) => watch::observe(&d, &req, out).await,
                Err(e) => out.err("observe", &e),
            }
        }
        Command::Screenshot(a) => {
            let r = match (a.request(g.format), desk(lent, &g).await) {
                (Ok(req), Ok(d)) => shot::run(&*d, &req, a.output.as_deref()).await,
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
            match r {
                Ok(data) => out.ok("screenshot", data),
                Err(e) => out.err("screenshot", &e),
            }
        }
        Command::Clipboard(cmd) => {
            use crate::cli::ClipboardCmd;
            let timeout = Duration::from_millis(g.call_timeout);
            let (name, r) = match cmd {
                ClipboardCmd::Get => ("clipboard-get", clip::get(timeout)),
                ClipboardCmd::Set { text, text_opt } => (
                    "clipboard-set",
                    clip::text_of(text.or(text_opt)).and_then(|t| clip::set(&t, timeout)),
                ),
                ClipboardCmd::Clear => ("clipboard-clear", clip::clear()),
                #[cfg(target_os = "linux")]
                ClipboardCmd::Serve => return clip::serve().map_or(1, |()| 0),
            };
            match r {
                Ok(data) => out.ok(name, data),
                Err(e) => out.err(name, &e),
            }
        }
        // The other faces are routed by `main`: they use these commands, never the reverse.
        #[cfg(feature = "mcp")]
        Command::Mcp(_) => 2,
        #[cfg(feature = "view")]
        Command::View(_) => 2,
        #[cfg(feature = "agent")]
        Command::Agent(_) | Command::Ask(_) => 2,
        #[cfg(target_os = "linux")]
        Command::Keeper => platform::run_keeper().await,
        #[cfg(target_os = "linux")]
        Command::Sandbox(cmd) => sandbox::run(&g, out, cmd).await,
        Command::Activity(a) => activity::run(out, a).await,
        Command::Doctor => doctor::run(&g, out).await,
        Command::Schema { command } => match crate::schema::get(command.as_deref()) {
            Ok(s) => out.ok("schema", s),
            Err(e) => out.err("schema", &e),
        },
        Command::Completions { shell } => docs::completions(shell),
        Command::Man { dir } => match docs::man(dir.as_deref()) {
            Ok(()) => 0,
            Err(e) => out.err("man", &e),
        },
    }
}

type Acting<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<desktop_core::action::ActionResult>> + 'a>,
>;

/// Connects (or takes the desktop lent), runs one action command, prints its result.
async fn acting(
    lent: Option<&Platform>,
    g: &Global,
    out: Out,
    command: &str,
    run: impl for<'a> FnOnce(&'a Platform) -> Acting<'a>,
) -> i32 {
    let t = std::time::Instant::now();
    let result = match desk(lent, g).await {
        #[cfg(target_os = "linux")]
        Ok(d) if lent.is_none() => interruptible(run(&d)).await,
        Ok(d) => run(&d).await,
        Err(e) => Err(e),
    };
    let code = match &result {
        Ok(r) => out.ok(command, r),
        Err(e) => out.err(command, e),
    };
    if g.timing {
        if let Ok(r) = &result {
            let parts: Vec<String> = r
                .timing
                .iter()
                .map(|(k, v)| format!("{k}={v:.1}"))
                .collect();
            notice(&format!(
                "timing: {} total={:.1}ms",
                parts.join(" "),
                t.elapsed().as_secs_f64() * 1000.0
            ));
        }
    }
    code
}

/// An action run by this process itself (not the keeper, which finishes what it took):
/// Ctrl+C or SIGTERM ends it between its steps, never between a key's press and its release
/// (a key left down is repeated by X for good, and a held modifier changes every key after),
/// then whatever is still held goes up and the answer says it may have been done in part.
#[cfg(target_os = "linux")]
async fn interruptible<T>(action: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    // Typing goes out key by key without a pause to look at signals: it reads this flag.
    for s in [rustix::process::Signal::INT, rustix::process::Signal::TERM] {
        // SAFETY: the action only stores to an atomic, which is async-signal-safe.
        #[allow(unsafe_code)]
        let _ = unsafe { signal_hook_registry::register(s.as_raw(), desktop_core::stop::request) };
    }
    let result = tokio::select! {
        biased;
        () = watch::interrupted() => Err(desktop_core::stop::interrupted()),
        r = action => r,
    };
    // A signal that came once the action was done and seen changes nothing of its answer.
    if result.is_ok() || !desktop_core::stop::requested() {
        return result;
    }
    let e = desktop_core::stop::interrupted();
    match desktop_linux::release_held_input() {
        Ok(n) if n > 0 => Err(desktop_core::Error {
            message: format!(
                "{} ({n} keys or buttons left held down were released)",
                e.message
            ),
            ..e
        }),
        _ => Err(e),
    }
}

type Valuing<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<serde_json::Value>> + 'a>>;

/// Connects (or takes the desktop lent), runs one command that answers with a JSON value,
/// prints it.
async fn acting_value(
    lent: Option<&Platform>,
    g: &Global,
    out: Out,
    command: &str,
    run: impl for<'a> FnOnce(&'a Platform) -> Valuing<'a>,
) -> i32 {
    let result = match desk(lent, g).await {
        Ok(d) => run(&d).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(r) => out.ok(command, r),
        Err(e) => out.err(command, &e),
    }
}

/// Prints a command's result as an envelope.
fn finish<T: serde::Serialize>(out: Out, command: &str, r: Result<Rendered<T>>) -> i32 {
    match r {
        Ok(Rendered { data, text }) => match (out.format, text) {
            (crate::cli::Format::Text | crate::cli::Format::Csv, Some(t)) => out.text(&t),
            _ => out.ok(command, data),
        },
        Err(e) => out.err(command, &e),
    }
}

/// A command's `data`, with an optional text form for `--format text`.
pub(crate) struct Rendered<T> {
    pub(crate) data: T,
    pub(crate) text: Option<String>,
}

/// The desktop a command runs on: a connection of its own, or the keeper's, lent.
pub(crate) enum Desk<'a> {
    Own(Box<Platform>),
    Lent(&'a Platform),
}

impl std::ops::Deref for Desk<'_> {
    type Target = Platform;
    fn deref(&self) -> &Platform {
        match self {
            Desk::Own(d) => d,
            Desk::Lent(d) => d,
        }
    }
}

/// `lent` when given, else a connection of this command's own.
pub(crate) async fn desk<'a>(lent: Option<&'a Platform>, g: &Global) -> Result<Desk<'a>> {
    match lent {
        Some(d) => Ok(Desk::Lent(d)),
        None => connect(g).await.map(|d| Desk::Own(Box::new(d))),
    }
}

/// Connects to the desktop with the global timeout, for one command.
pub(crate) async fn connect(g: &Global) -> Result<Platform> {
    connect_for(g, false).await
}

/// Connects to the desktop with the global timeout; `warm` for the faces that read the same
/// windows many times (the agent, `ask`): per-app connections, caches and mirrors kept.
pub(crate) async fn connect_for(g: &Global, warm: bool) -> Result<Platform> {
    desktop_core::System::connect(
        &platform::SYSTEM,
        Duration::from_millis(g.call_timeout.max(1)),
        warm,
    )
    .await
}
