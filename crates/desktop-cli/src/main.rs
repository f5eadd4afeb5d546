//! desktop-cli: thin entry point. Parses options, points the process at the right desktop,
//! runs one command on a single-threaded runtime and exits with its status.

#[cfg(feature = "agent")]
mod agent;
#[cfg(feature = "agent")]
mod ask;
mod cli;
mod commands;
#[cfg(feature = "http")]
mod guard;
#[cfg(feature = "mcp")]
mod mcp;
mod output;
mod platform;
#[cfg(target_os = "linux")]
mod relay;
mod schema;
#[cfg(feature = "view")]
mod view;

use clap::Parser;
use cli::{Cli, Format};
use desktop_core::{Error, System};
use output::Out;

fn main() {
    // Whatever happens, stdout carries an envelope: a panic (a bug) becomes INTERNAL.
    let code = std::panic::catch_unwind(run).unwrap_or_else(|_| {
        let e = Error::internal("desktop-cli stopped on an unexpected condition (see stderr)");
        Out {
            pretty: false,
            format: Format::Json,
        }
        .err(&command_name(), &e)
    });
    std::process::exit(code);
}

/// The arguments as text; bytes that are not UTF-8 are replaced (for messages only: clap
/// refuses such arguments with INVALID_ARGS).
fn args_lossy() -> Vec<String> {
    std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let tabular = matches!(cli.command, cli::Command::Read(_) | cli::Command::List(_));
    let out = Out::of(&cli);
    let is_screenshot = matches!(cli.command, cli::Command::Screenshot(_));
    if !is_screenshot && matches!(cli.global.format, Some(Format::Png | Format::Jpg)) {
        let e = Error::invalid_args(
            "--format png/jpg is for screenshot; other commands print json or text",
        )
        .suggest("Use --format json or --format text");
        return out.err("desktop-cli", &e);
    }
    if !tabular && cli.global.format == Some(Format::Csv) {
        let e = Error::invalid_args("--format csv is for read and list")
            .suggest("Use --format json or --format text here");
        return out.err("desktop-cli", &e);
    }
    // Before any thread exists: adopting a sandbox sets this process's environment.
    // `sandbox` commands manage sandboxes themselves and must not inherit one's addresses.
    let ready = if cli.command.is_offline() {
        Ok(())
    } else if cli.command.manages_sandboxes() {
        platform::SYSTEM.check_private()
    } else if matches!(cli.command, cli::Command::Doctor) {
        // Doctor reports unsafe state as a failed check (and adopts no sandbox from it).
        match platform::SYSTEM.prepare() {
            Err(e) if e.code == desktop_core::ErrorCode::UnsafeState => Ok(()),
            r => r,
        }
    } else {
        platform::SYSTEM.prepare()
    };
    if let Err(e) = ready {
        return out.err(&command_name(), &e);
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            return out.err(
                "desktop-cli",
                &Error::internal(format!("cannot start the runtime: {e}")),
            )
        }
    };
    let code = rt.block_on(async move {
        // The MCP server and the agent use the commands; the commands never use them.
        match cli.command {
            #[cfg(feature = "mcp")]
            cli::Command::Mcp(a) => mcp::command(&cli.global, out, a).await,
            #[cfg(feature = "view")]
            cli::Command::View(a) => view::command(&cli.global, out, a).await,
            #[cfg(feature = "agent")]
            cli::Command::Agent(a) => agent::command(&cli.global, out, *a).await,
            #[cfg(feature = "agent")]
            cli::Command::Ask(a) => ask::command(&cli.global, out, *a).await,
            command => commands::dispatch(cli::Cli { command, ..cli }, out).await,
        }
    });
    // What was abandoned (a model call the agent stopped waiting for) must not hold the
    // process: the command has answered.
    rt.shutdown_background();
    code
}

/// The command as typed (the first word that is not an option), for envelopes written
/// before the command runs.
fn command_name() -> String {
    use clap::CommandFactory;
    let cli = Cli::command();
    let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
    args_lossy()
        .into_iter()
        .find(|a| names.contains(&a.as_str()))
        .unwrap_or_else(|| "desktop-cli".into())
}

/// Help and version go to stdout as clap prints them; any other parse failure becomes an
/// INVALID_ARGS envelope with exit status 2.
fn usage_error(e: &clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return 0;
    }
    let args = args_lossy();
    let command = command_name();
    let command = command.as_str();
    let message = e.render().to_string();
    let first = message
        .lines()
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ");
    let err = Error::invalid_args(first.to_string()).suggest(
        format!(
            "Run `desktop-cli {} --help` for the options",
            if command == "desktop-cli" {
                ""
            } else {
                command
            }
        )
        .replace("  ", " "),
    );
    let format = if args
        .windows(2)
        .any(|w| w[0] == "--format" && w[1] == "text")
    {
        Format::Text
    } else {
        Format::Json
    };
    Out {
        pretty: args.iter().any(|a| a == "--pretty"),
        format,
    }
    .err(command, &err)
}
