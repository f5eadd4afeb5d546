//! A run's record: `transcript.jsonl` (one event a line: start, request, reply, action,
//! end) and the screenshots the model saw, in one folder a person can read and `--replay`
//! can re-execute. Secrets typed into password fields are blanked as they are logged and
//! swept from the whole file at the end; the API key never gets in.

use desktop_core::{Error, ErrorCode, Result};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub const REDACTED: &str = "[redacted]";

pub struct Transcript {
    dir: PathBuf,
    file: std::fs::File,
    start: Instant,
    secrets: Vec<String>,
}

fn default_dir() -> PathBuf {
    let base = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(std::env::temp_dir);
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    base.join("desktop-cli/runs")
        .join(format!("{secs}-{}", std::process::id()))
}

impl Transcript {
    /// Opens a run's record: in `dir` (the user's choice, created mode 700 when missing),
    /// or in a new private directory under the state directory. Files are mode 600: they
    /// hold what was on screen.
    pub fn create(dir: Option<PathBuf>) -> Result<Self> {
        let dir = match dir {
            Some(d) => {
                desktop_core::private::make_dir(&d)?;
                d
            }
            None => {
                let d = default_dir();
                if let Some(runs) = d.parent() {
                    desktop_core::private::dir(runs)?;
                }
                desktop_core::private::dir(&d)?;
                d
            }
        };
        let path = dir.join("transcript.jsonl");
        let file = desktop_core::private::create(&path)?;
        Ok(Transcript {
            dir,
            file,
            start: Instant::now(),
            secrets: Vec::new(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Remembers a secret (and, from then on, blanks it in every line written).
    pub fn secret(&mut self, s: &str) {
        if !s.is_empty() && !self.secrets.iter().any(|k| k == s) {
            self.secrets.push(s.to_string());
        }
    }

    /// Blanks every known secret in text or JSON text.
    pub fn redact(&self, text: &str) -> String {
        blank(text, self.secrets.iter().map(String::as_str))
    }

    /// Appends one event; a failure to write costs the record, never the run.
    pub fn log(&mut self, kind: &str, mut ev: Value) {
        ev["ev"] = json!(kind);
        ev["ms"] = json!(self.start.elapsed().as_millis() as u64);
        let line = self.redact(&ev.to_string());
        let _ = writeln!(self.file, "{line}");
    }

    /// Saves a screenshot the model was sent; returns its file name.
    pub fn image(&mut self, turn: u32, mime: &str, bytes: &[u8]) -> Option<String> {
        let ext = if mime == "image/png" { "png" } else { "jpg" };
        let name = format!("turn-{turn:03}.{ext}");
        desktop_core::private::write_record(&self.dir.join(&name), bytes).ok()?;
        Some(name)
    }

    /// Sweeps the secrets learned during the run out of lines written before they were known.
    pub fn finish(&mut self) {
        let _ = self.file.flush();
        if self.secrets.is_empty() {
            return;
        }
        let path = self.dir.join("transcript.jsonl");
        if let Ok(text) = std::fs::read_to_string(&path) {
            let clean = self.redact(&text);
            let _ = desktop_core::private::write_owner_only(&path, clean.as_bytes());
        }
    }
}

/// Blanks each secret in text, as it is and as it appears inside JSON strings (the same
/// unless it holds quotes, backslashes or control characters); longest first, so one
/// cannot hide part of another.
pub fn blank<'a>(text: &str, secrets: impl Iterator<Item = &'a str>) -> String {
    let mut secrets: Vec<&str> = secrets.filter(|s| !s.is_empty()).collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_string();
    for s in secrets {
        let escaped = serde_json::to_string(s).unwrap_or_default();
        let form = &escaped[1..escaped.len().saturating_sub(1).max(1)];
        if !form.is_empty() {
            out = out.replace(form, REDACTED);
        }
        out = out.replace(s, REDACTED);
    }
    out
}

/// The action events of a transcript, in order.
pub fn actions(dir: &Path) -> Result<Vec<Value>> {
    let path = dir.join("transcript.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::new(
            ErrorCode::InvalidArgs,
            format!("cannot read {}: {e}", path.display()),
        )
        .suggest("Give the folder of an earlier run (it holds transcript.jsonl)")
    })?;
    // Tolerant: a line cut off by a crash is skipped, not fatal.
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["ev"] == "action" && v["executed"] == true && v["ok"] == true)
        .collect())
}

/// True when a recorded argument was blanked (a secret the replay cannot know).
pub fn has_redacted(args: &Value) -> bool {
    args.to_string().contains(REDACTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_swept() {
        let dir = std::env::temp_dir().join(format!("dc-transcript-{}", std::process::id()));
        let mut t = Transcript::create(Some(dir.clone())).unwrap();
        t.log("start", json!({"goal": "log in with pa\"ss-42"}));
        t.secret("pa\"ss-42");
        t.log(
            "action",
            json!({"args": {"text": "pa\"ss-42"}, "executed": true, "ok": true}),
        );
        t.finish();
        let text = std::fs::read_to_string(dir.join("transcript.jsonl")).unwrap();
        assert!(!text.contains("ss-42"), "{text}");
        assert_eq!(text.matches(REDACTED).count(), 2);
        assert_eq!(actions(&dir).unwrap().len(), 1);
        let _ = std::fs::remove_dir_all(dir);
    }
}
