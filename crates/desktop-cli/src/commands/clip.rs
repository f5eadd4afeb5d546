//! `clipboard get|set|clear`, and the hidden `clipboard serve` that holds the text after
//! `set` has exited.

use desktop_core::{Error, ErrorCode, Result};
use desktop_linux::x11::X;
use desktop_linux::{clipboard, sandbox};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The clipboard's text (`{"text": ..}`, or `"empty": true`); never takes the clipboard.
pub fn get(timeout: Duration) -> Result<Value> {
    let x = X::connect()?;
    Ok(match clipboard::get(&x, timeout)? {
        Some(text) => json!({ "text": text }),
        None => json!({ "text": "", "empty": true }),
    })
}

/// Puts `text` on the clipboard; a holder process serves it after this one exits.
pub fn set(text: &str, timeout: Duration) -> Result<Value> {
    // Fail early (before any background process starts) if there is no display.
    X::connect()?;
    spawn_server(text, timeout)?;
    Ok(json!({ "chars": text.chars().count() }))
}

/// Empties the clipboard.
pub fn clear() -> Result<Value> {
    clipboard::clear(&X::connect()?)?;
    Ok(json!({ "cleared": true }))
}

/// The hidden `clipboard serve`: holds the text read from stdin until another client
/// takes the clipboard.
pub fn serve() -> Result<()> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| Error::internal(e.to_string()))?;
    let x = X::connect()?;
    clipboard::serve(&x, &text, || {
        let mut out = std::io::stdout();
        let _ = out.write_all(b"ready\n").and_then(|()| out.flush());
    })
}

/// The text `clipboard set` was given: its argument, else stdin.
pub fn text_of(text: Option<String>) -> Result<String> {
    match text {
        Some(t) => Ok(t),
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| {
                Error::invalid_args(format!("no text given and stdin unreadable: {e}"))
                    .suggest("clipboard set \"text\"")
            })?;
            Ok(s)
        }
    }
}

/// Starts `clipboard serve` in the background, hands it the text, waits until it owns the
/// clipboard.
fn spawn_server(text: &str, timeout: Duration) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe()
        .map_err(|e| Error::internal(format!("cannot find this program: {e}")))?;
    let mut cmd = Command::new(exe);
    cmd.args(["clipboard", "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // In a sandbox, join its process group so `sandbox down` ends the holder too.
    let spawned = match sandbox::in_use() {
        Some(sb) => sb.spawn(&mut cmd),
        None => cmd.process_group(0).spawn(),
    };
    let mut child =
        spawned.map_err(|e| Error::internal(format!("cannot start the clipboard holder: {e}")))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| Error::internal(e.to_string()))?;
    }
    let mut stdout = child
        .stdout
        .take()
        .ok_or_else(|| Error::internal("no pipe from the clipboard holder"))?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 6];
        let ok = stdout.read_exact(&mut buf).is_ok() && &buf == b"ready\n";
        let _ = tx.send(ok);
    });
    match rx.recv_timeout(timeout) {
        Ok(true) => Ok(()),
        _ => {
            let _ = child.kill();
            Err(
                Error::new(ErrorCode::ActionFailed, "the clipboard could not be taken")
                    .suggest("Check the display with `desktop-cli doctor`"),
            )
        }
    }
}
