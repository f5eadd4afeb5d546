//! The only place that writes to stdout: one envelope per command (or text for people).
//! A closed pipe (`desktop-cli read | head -1`) ends the process quietly with status 0.

#![allow(clippy::print_stderr)]

use crate::cli::Format;
use desktop_core::envelope::Envelope;
use desktop_core::Error;
use serde::Serialize;
use std::io::Write;

#[derive(Clone, Copy, Debug)]
pub struct Out {
    pub pretty: bool,
    pub format: Format,
}

impl Out {
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
            eprintln!("error {}: {}", e.code.as_str(), e.message);
            if let Some(s) = &e.suggestion {
                eprintln!("  fix: {s}");
            }
            if let Some(d) = &e.platform_detail {
                eprintln!("  detail: {d}");
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

fn write_stdout(bytes: &[u8]) {
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
    eprintln!("desktop-cli: {msg}");
}
