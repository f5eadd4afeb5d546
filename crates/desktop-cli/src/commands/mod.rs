//! One module per command; `dispatch` routes a parsed command line to it.

mod doctor;
mod list;
mod read;
mod sandbox;

use crate::cli::{Cli, Command, Global};
use crate::output::{notice, Out};
use desktop_core::Result;
use desktop_linux::LinuxDesktop;
use std::time::Duration;

pub async fn dispatch(cli: Cli, out: Out) -> i32 {
    let g = cli.global;
    match cli.command {
        Command::List(args) => finish(out, "list", list::run(&g, args).await),
        Command::Read(args) => read::run(&g, out, args).await,
        Command::Sandbox(cmd) => sandbox::run(&g, out, cmd).await,
        Command::Doctor => doctor::run(&g, out).await,
        Command::Schema { command } => match crate::schema::get(command.as_deref()) {
            Ok(s) => out.ok("schema", s),
            Err(e) => out.err("schema", &e),
        },
    }
}

/// Prints a command's result as an envelope.
fn finish<T: serde::Serialize>(out: Out, command: &str, r: Result<Rendered<T>>) -> i32 {
    match r {
        Ok(Rendered { data, text }) => match (out.format, text) {
            (crate::cli::Format::Text, Some(t)) => out.text(&t),
            _ => out.ok(command, data),
        },
        Err(e) => out.err(command, &e),
    }
}

/// A command's `data`, with an optional text form for `--format text`.
struct Rendered<T> {
    data: T,
    text: Option<String>,
}

/// Connects to the desktop with the global timeout, telling people when accessibility had
/// to be switched on.
async fn connect(g: &Global) -> Result<LinuxDesktop> {
    let d = LinuxDesktop::connect(Duration::from_millis(g.timeout.max(1))).await?;
    if d.enabled_now {
        notice("accessibility was off; switched org.a11y.Status.IsEnabled on (apps started before may need a restart)");
    }
    Ok(d)
}
