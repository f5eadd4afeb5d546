//! `completions` and `man`: the shell completion scripts and manual pages, generated from the
//! same clap definition the program parses with, so they never drift from the options.

use crate::cli::Cli;
use clap::CommandFactory;
use desktop_core::{Error, ErrorCode, Result};
use std::io::Write;
use std::path::Path;

/// Writes to stdout; a reader that went away (`| head`) is no failure.
fn print(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes).and_then(|()| out.flush());
}

/// Prints the completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> i32 {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "desktop-cli", &mut script);
    if shell == clap_complete::Shell::Bash {
        // clap_complete spells the state of a hyphenated program two ways (the loop sets
        // `desktop__cli__subcmd__read`, the arms match `desktop__subcmd__cli__subcmd__read`),
        // so no subcommand's options would complete (clap-rs/clap#6421). One spelling.
        script = String::from_utf8_lossy(&script)
            .replace("desktop__subcmd__cli", "desktop__cli")
            .into_bytes();
    }
    print(&script);
    0
}

/// Prints the main manual page, or writes every page (one per command) into `dir`.
pub fn man(dir: Option<&Path>) -> Result<()> {
    let cmd = Cli::command();
    let failed = |e: std::io::Error| {
        Error::new(
            ErrorCode::PermDenied,
            format!("cannot write the manual: {e}"),
        )
        .suggest("Give a folder you can write to: --dir ./man")
    };
    match dir {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(failed)?;
            clap_mangen::generate_to(cmd, d).map_err(failed)
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut page)
                .map_err(failed)?;
            print(&page);
            Ok(())
        }
    }
}
