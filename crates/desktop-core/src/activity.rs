//! The activity log: one JSON line for every action any face (the CLI, the MCP server, the
//! agent) performs on a desktop — when, which face, the command, the window aimed at, the
//! element acted on, the effect or the error code, how long it took. Reads are not actions.
//! It never holds what was typed or set (a password's value cannot reach it), nor error
//! messages (they may quote a value): only codes. Kept in the user's state directory
//! (`$XDG_STATE_HOME/desktop-cli`, else `~/.local/state/desktop-cli`; `%LOCALAPPDATA%` on
//! Windows), directory 0700, file 0600, rotated at [`LIMIT`] into one older file.

use crate::action::ActionResult;
use crate::request::ActionRequest;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Size of the log at which it is rotated (the older half kept as `activity.1.jsonl`).
pub const LIMIT: u64 = 1 << 20;
const FILE: &str = "activity.jsonl";
const OLDER: &str = "activity.1.jsonl";

/// The element an action was aimed at, as the action result names it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Target {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub id: Option<u32>,
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub role: String,
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub name: String,
    /// Its box on screen when acted on (`x, y, w, h`), so a viewer can show where.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub b: Option<[i32; 4]>,
}

/// One line of the log.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// UTC, RFC 3339 with milliseconds.
    pub time: String,
    /// `cli`, `mcp` or `agent`.
    pub face: String,
    pub command: String,
    /// The app or window title the action named (empty: the focused window).
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub app: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub target: Option<Target>,
    /// `confirmed`, `unverifiable`, … when it succeeded.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub effect: Option<String>,
    /// The error code when it failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    pub ms: u64,
}

/// Where the log lives, `None` where no home is known.
pub fn dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if cfg!(windows) {
        return var("LOCALAPPDATA").map(|d| d.join("desktop-cli"));
    }
    var("XDG_STATE_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".local/state")))
        .map(|d| d.join("desktop-cli"))
}

/// `t` as RFC 3339 UTC with milliseconds (`2026-11-24T23:41:05.123Z`).
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        d.subsec_millis()
    )
}

/// The entry for an action request and what came of it.
pub fn entry(
    face: &str,
    req: &ActionRequest,
    result: &Result<ActionResult>,
    took: Duration,
) -> Entry {
    let s = &req.scope;
    let app = s
        .app
        .clone()
        .or_else(|| s.window.clone())
        .or_else(|| s.window_id.map(|id| format!("window {id:#x}")))
        .unwrap_or_default();
    let mut e = Entry {
        time: rfc3339(SystemTime::now() - took),
        face: face.into(),
        command: req.action.name().replace('_', "-"),
        app,
        ms: took.as_millis() as u64,
        ..Entry::default()
    };
    let aimed_id = match &req.aim {
        crate::request::Aim::Element(crate::request::Element::Id(id)) => Some(*id),
        _ => None,
    };
    match result {
        Ok(r) => {
            e.effect = serde_json::to_value(r.effect)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string));
            e.target = r
                .element
                .as_ref()
                .map(|a| Target {
                    id: r.id.or(aimed_id),
                    role: a.role.clone(),
                    name: a.name.chars().take(120).collect(),
                    b: a.bounds.map(|b| [b.x, b.y, b.w, b.h]),
                })
                .or_else(|| {
                    aimed_id.map(|id| Target {
                        id: Some(id),
                        ..Target::default()
                    })
                });
        }
        Err(err) => {
            e.error = Some(err.code.as_str().to_string());
            e.target = aimed_id.map(|id| Target {
                id: Some(id),
                ..Target::default()
            });
        }
    }
    e
}

/// Appends `e` to the log in `dir`, rotating it at [`LIMIT`]. The log is a record, never a
/// reason for an action to fail: the caller may ignore the error.
pub fn append(dir: &Path, e: &Entry) -> Result<()> {
    crate::private::dir(dir)?;
    let path = dir.join(FILE);
    let mut line = serde_json::to_vec(e).map_err(|err| Error::internal(err.to_string()))?;
    line.push(b'\n');
    let size = std::fs::symlink_metadata(&path).map_or(0, |m| m.len());
    if size + line.len() as u64 > LIMIT {
        // Whoever rotates first wins; a racing writer appends to the new file.
        let _ = std::fs::rename(&path, dir.join(OLDER));
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Never through a link someone planted; readable by this user alone.
        opts.mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    let mut f = opts
        .open(&path)
        .map_err(|err| Error::internal(format!("cannot open {}: {err}", path.display())))?;
    // One write per line: appends of several processes do not interleave within a line.
    f.write_all(&line)
        .map_err(|err| Error::internal(format!("cannot write {}: {err}", path.display())))
}

/// Records an action in the user's log (nothing where no home is known).
pub fn record(face: &str, req: &ActionRequest, result: &Result<ActionResult>, took: Duration) {
    if let Some(d) = dir() {
        let _ = append(&d, &entry(face, req, result, took));
    }
}

/// Records a `launch`: the program's name only (its arguments may carry anything).
pub fn record_launch(face: &str, cmd: &[String], result: &Result<ActionResult>, took: Duration) {
    let program = cmd
        .first()
        .map(|p| {
            Path::new(p)
                .file_name()
                .map_or_else(|| p.clone(), |n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    record_desktop(face, "launch", program, result, took);
}

/// Records an operation on the desktop rather than on an element (`launch`, `window ...`,
/// `close-app`): the command, the app or window it named, how it ended.
pub fn record_desktop(
    face: &str,
    command: &str,
    app: String,
    result: &Result<ActionResult>,
    took: Duration,
) {
    let Some(d) = dir() else { return };
    let e = Entry {
        time: rfc3339(SystemTime::now() - took),
        face: face.into(),
        command: command.into(),
        app,
        effect: result.as_ref().ok().and_then(|r| {
            serde_json::to_value(r.effect)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
        }),
        error: result.as_ref().err().map(|e| e.code.as_str().to_string()),
        ms: took.as_millis() as u64,
        ..Entry::default()
    };
    let _ = append(&d, &e);
}

/// The entries of the log in `dir`, oldest first (the rotated file's, then the current
/// one's), those at or after `since` and of `app` (a part of its app or title, any case).
pub fn entries(dir: &Path, since: Option<SystemTime>, app: Option<&str>) -> Vec<Entry> {
    let since = since.map(rfc3339);
    let app = app.map(str::to_lowercase);
    let mut out = Vec::new();
    for name in [OLDER, FILE] {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
            continue;
        };
        out.extend(lines(&text).filter(|e| keep(e, since.as_deref(), app.as_deref())));
    }
    out
}

/// The entries in a piece of the log (a line cut short by a writer is skipped).
pub fn lines(text: &str) -> impl Iterator<Item = Entry> + '_ {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Entry>(l).ok())
}

/// Whether `e` passes the filters of [`entries`] (`since` in the log's own time format,
/// which sorts as text; `app` lower case).
pub fn keep(e: &Entry, since: Option<&str>, app: Option<&str>) -> bool {
    since.is_none_or(|s| e.time.as_str() >= s)
        && app.is_none_or(|a| e.app.to_lowercase().contains(a))
}

/// The log file in `dir` (what `activity --follow` watches).
pub fn file(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// What is appended to the log from a point on (`activity --follow`, `view`): whole lines
/// only (a writer may be half-way through one), from the start again once it was rotated.
pub struct Tail {
    path: PathBuf,
    at: u64,
    partial: String,
}

impl Tail {
    /// From the log's current end.
    pub fn from_end(dir: &Path) -> Tail {
        let path = file(dir);
        let at = std::fs::metadata(&path).map_or(0, |m| m.len());
        Tail {
            path,
            at,
            partial: String::new(),
        }
    }

    /// The entries appended since the last look.
    pub fn poll(&mut self) -> Vec<Entry> {
        use std::io::{Read, Seek, SeekFrom};
        let len = std::fs::metadata(&self.path).map_or(0, |m| m.len());
        // A shorter file was rotated: its start is new.
        if len < self.at {
            self.at = 0;
            self.partial.clear();
        }
        if len == self.at {
            return Vec::new();
        }
        let Ok(mut f) = std::fs::File::open(&self.path) else {
            return Vec::new();
        };
        let mut text = String::new();
        if f.seek(SeekFrom::Start(self.at)).is_err() || f.read_to_string(&mut text).is_err() {
            return Vec::new();
        }
        self.at += text.len() as u64;
        self.partial.push_str(&text);
        let Some(end) = self.partial.rfind('\n') else {
            return Vec::new();
        };
        let done: String = self.partial.drain(..=end).collect();
        lines(&done).collect()
    }
}

/// One readable line for an entry (`activity --format text`).
pub fn text_line(e: &Entry) -> String {
    let target = e.target.as_ref().map_or(String::new(), |t| {
        let id = t.id.map_or(String::new(), |i| format!("[{i}] "));
        if t.role.is_empty() && t.name.is_empty() {
            format!(" {}", id.trim_end())
        } else {
            format!(" {id}{} {:?}", t.role, t.name)
        }
    });
    let outcome = match (&e.effect, &e.error) {
        (_, Some(code)) => format!("failed {code}"),
        (Some(effect), None) => effect.clone(),
        (None, None) => "done".into(),
    };
    let app = if e.app.is_empty() {
        String::new()
    } else {
        format!(" in {}", e.app)
    };
    format!(
        "{} {} {}{app}{target}: {outcome} ({} ms)",
        e.time, e.face, e.command, e.ms
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::{Acted, Effect, Route};
    use crate::request::{Action, Aim, Element};
    use crate::{ErrorCode, Target as Scope};

    #[test]
    fn times_are_rfc3339_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_795_563_665_123);
        assert_eq!(rfc3339(t), "2026-11-24T23:41:05.123Z");
        // A leap day.
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00.000Z");
    }

    fn typing(text: &str) -> ActionRequest {
        ActionRequest::new(
            Scope {
                app: Some("gedit".into()),
                ..Scope::default()
            },
            Aim::Element(Element::Id(7)),
            Action::Type {
                text: text.into(),
                replace: false,
                delay: Duration::ZERO,
            },
        )
    }

    #[test]
    fn an_entry_holds_the_target_and_outcome_never_the_text() {
        let mut r = ActionResult::new("type", Route::Input);
        r.effect = Effect::Unverifiable;
        r.id = Some(7);
        r.element = Some(Acted {
            role: "pwd".into(),
            name: "Password".into(),
            bounds: None,
        });
        let e = entry(
            "cli",
            &typing("hunter2-secret"),
            &Ok(r),
            Duration::from_millis(42),
        );
        let line = serde_json::to_string(&e).unwrap();
        assert!(!line.contains("hunter2"), "{line}");
        assert_eq!(
            (e.command.as_str(), e.app.as_str(), e.ms),
            ("type", "gedit", 42)
        );
        assert_eq!(e.effect.as_deref(), Some("unverifiable"));
        assert_eq!(e.target.as_ref().unwrap().name, "Password");
        let failed = entry(
            "mcp",
            &typing("hunter2-secret"),
            &Err(Error::new(
                ErrorCode::StaleRef,
                "typed \"hunter2-secret\" nowhere",
            )),
            Duration::ZERO,
        );
        let line = serde_json::to_string(&failed).unwrap();
        assert!(!line.contains("hunter2"), "{line}");
        assert_eq!(failed.error.as_deref(), Some("STALE_REF"));
        assert_eq!(failed.target.unwrap().id, Some(7));
    }

    #[test]
    fn the_log_rotates_and_keeps_the_newest() {
        let dir = std::env::temp_dir().join(format!("activity-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut e = Entry {
            time: rfc3339(SystemTime::now()),
            face: "cli".into(),
            command: "click".into(),
            app: "x".repeat(1000),
            ..Entry::default()
        };
        let per = serde_json::to_vec(&e).unwrap().len() as u64 + 1;
        let n = LIMIT / per * 3;
        for i in 0..n {
            e.ms = i;
            append(&dir, &e).unwrap();
        }
        let current = std::fs::metadata(file(&dir)).unwrap().len();
        let older = std::fs::metadata(dir.join(OLDER)).unwrap().len();
        assert!(current <= LIMIT && older <= LIMIT, "{current} {older}");
        let all = entries(&dir, None, None);
        // The newest are all there, in order, ending with the last one written.
        assert_eq!(all.last().unwrap().ms, n - 1);
        assert!(all.windows(2).all(|w| w[1].ms == w[0].ms + 1));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&file(&dir)), 0o600);
            assert_eq!(mode(&dir), 0o700);
        }
        assert!(entries(&dir, None, Some("y")).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
