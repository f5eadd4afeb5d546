//! `clipboard get|set|clear`, and the hidden `clipboard serve` that holds the text after
//! `set` has exited (see the platform's clipboard).

use crate::platform::SYSTEM;
use desktop_core::system::Clipboard;
use desktop_core::System;
use desktop_core::{Error, Result};
use serde_json::{json, Value};
use std::io::Read;
use std::time::Duration;

/// The clipboard's text (`{"text": ..}`, or `"empty": true`); never takes the clipboard.
pub fn get(timeout: Duration) -> Result<Value> {
    Ok(match SYSTEM.clipboard().get(timeout)? {
        Some(text) => json!({ "text": text }),
        None => json!({ "text": "", "empty": true }),
    })
}

/// Puts `text` on the clipboard; it stays there after this process exits.
pub fn set(text: &str, timeout: Duration) -> Result<Value> {
    SYSTEM.clipboard().set(text, timeout)?;
    Ok(json!({ "chars": text.chars().count() }))
}

/// Empties the clipboard.
pub fn clear() -> Result<Value> {
    SYSTEM.clipboard().clear()?;
    Ok(json!({ "cleared": true }))
}

/// The hidden `clipboard serve` (Linux): holds the text read from stdin until another
/// client takes the clipboard.
#[cfg(target_os = "linux")]
pub fn serve() -> Result<()> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| Error::internal(e.to_string()))?;
    crate::platform::serve_clipboard(&text, || {
        use std::io::Write;
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
