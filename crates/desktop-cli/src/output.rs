//! The only place that writes to stdout: one envelope per command (or text for people).
//! A closed pipe (`desktop-cli read | head -1`) ends the process quietly with status 0.
//! Inside [`capture`] (the keeper answering another process's read) what would be printed
//! is kept for that process instead.

#![allow(clippy::print_stderr)]

use crate::cli::Format;
use desktop_core::envelope::Envelope;
use desktop_core::Error;
use serde::Serialize;
use std::cell::RefCell;
use std::io::Write;

tokio::task_local! {
    static CAPTURED: RefCell<Captured>;
}

/// What a command run inside [`capture`] printed.
#[derive(Debug, Default)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub struct Captured {
    pub stdout: Vec<u8>,
    /// Lines for stderr, without their newlines.
    pub stderr: Vec<String>,
}

/// Runs `f`, keeping what it prints (stdout and stderr) instead of printing it (the keeper's
/// answers, on Linux).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub async fn capture<F: std::future::Future<Output = i32>>(f: F) -> (i32, Captured) {
    CAPTURED
        .scope(RefCell::new(Captured::default()), async {
            let code = f.await;
            (code, CAPTURED.with(RefCell::take))
        })
        .await
}

#[derive(Clone, Copy, Debug)]
pub struct Out {
    pub pretty: bool,
    pub format: Format,
}

impl Out {
    /// How `cli`'s command prints: image formats belong to `screenshot`, tables to `read`
    /// and `list`; everything else prints JSON or text.
    pub fn of(cli: &crate::cli::Cli) -> Out {
        use crate::cli::Command;
        let tabular = matches!(cli.command, Command::Read(_) | Command::List(_));
        Out {
            pretty: cli.global.pretty,
            format: match cli.global.format {
                Some(Format::Text) if !matches!(cli.command, Command::Screenshot(_)) => {
                    Format::Text
                }
                Some(Format::Csv) if tabular => Format::Csv,
                _ => Format::Json,
            },
        }
    }

    /// Prints a success envelope; returns the exit status (0).
    pub fn ok<T: Serialize>(&self, command: &str, data: T) -> i32 {
        let env = Envelope::ok(command, data);
        self.json(&env);
        0
    }

    /// Prints an error envelope (text mode: a readable message on stderr); returns 1, or 2
    /// for invalid arguments.
    pub fn err(&self, command: &str, e: &Error) -> i32 {
        if self.format == Format::Text {
            write_stderr(&format!("error {}: {}", e.code.as_str(), e.message));
            if let Some(s) = &e.suggestion {
                write_stderr(&format!("  fix: {s}"));
            }
            if let Some(d) = &e.platform_detail {
                write_stderr(&format!("  detail: {d}"));
            }
        } else {
            self.json(&Envelope::err(command, e));
        }
        e.code.exit_code()
    }

    /// Prints text as is (for `--format text` and shell snippets).
    pub fn text(&self, text: &str) -> i32 {
        write_stdout(text.as_bytes());
        0
    }

    /// The success envelope as [`Out::ok`] prints it (to measure what it costs a model).
    pub fn ok_string<T: Serialize>(&self, command: &str, data: T) -> String {
        let env = Envelope::ok(command, data);
        let json = if self.pretty {
            serde_json::to_string_pretty(&env)
        } else {
            serde_json::to_string(&env)
        };
        json.unwrap_or_default()
    }

    /// One JSON line (for `observe`'s stream), written at once.
    pub fn line<T: Serialize>(&self, value: &T) {
        let mut buf = serde_json::to_vec(value).unwrap_or_default();
        buf.push(b'\n');
        write_stdout(&buf);
    }

    fn json<T: Serialize>(&self, value: &T) {
        let mut buf = if self.pretty {
            serde_json::to_vec_pretty(value)
        } else {
            serde_json::to_vec(value)
        }
        .unwrap_or_else(|e| format!("{{\"version\":\"1\",\"ok\":false,\"error\":{{\"code\":\"INTERNAL\",\"message\":\"cannot serialize output: {e}\"}}}}").into_bytes());
        buf.push(b'\n');
        write_stdout(&buf);
    }
}

/// Writes bytes as they are (what the keeper printed for this process).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub fn raw(bytes: &[u8]) {
    write_stdout(bytes);
}

fn write_stdout(bytes: &[u8]) {
    if CAPTURED
        .try_with(|c| c.borrow_mut().stdout.extend_from_slice(bytes))
        .is_ok()
    {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("desktop-cli: cannot write output: {e}");
        std::process::exit(1);
    }
}

/// A notice for people on stderr; never part of the machine-readable output.
pub fn notice(msg: &str) {
    write_stderr(&format!("desktop-cli: {msg}"));
}

/// One line on stderr (kept inside [`capture`]).
pub fn write_stderr(line: &str) {
    if CAPTURED
        .try_with(|c| c.borrow_mut().stderr.push(line.to_string()))
        .is_ok()
    {
        return;
    }
    eprintln!("{line}");
}
