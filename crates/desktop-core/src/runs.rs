//! Agent runs on a desktop as `view` sees them: each run's status (thinking or acting, its
//! step, its last error) in a small file beside the desktop's refs, and the Stop request —
//! a file there whose time is the request's, which ends every run started before it, before
//! its next action, as Ctrl+C does. Owner-only files, like the refs.

use crate::Result;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Where the stop request of the desktop whose refs live at `refs` is kept.
pub fn stop_path(refs: &Path) -> PathBuf {
    refs.with_extension("stop")
}

/// Asks every agent run on the desktop to stop.
pub fn request_stop(path: &Path) -> Result<()> {
    let now = crate::activity::rfc3339(SystemTime::now());
    crate::private::write(path, format!("{now}\n").as_bytes())
}

/// Whether a stop was asked for after `since`.
pub fn stop_requested_since(path: &Path, since: SystemTime) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t > since)
}

/// What a run is doing, as it last said.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub pid: u32,
    /// `thinking` (waiting for the model) or `acting`.
    pub state: String,
    /// Actions taken so far, and the most allowed.
    pub step: u32,
    pub max_steps: u32,
    /// The goal, cut short.
    pub goal: String,
    /// The error code of the last failed action.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub last_error: Option<String>,
}

/// Where run `pid` on the desktop whose refs live at `refs` keeps its status.
pub fn status_path(refs: &Path, pid: u32) -> PathBuf {
    refs.with_extension(format!("run-{pid}.json"))
}

/// Saves a run's status (a failure to is only a viewer missing it).
pub fn save(refs: &Path, s: &Status) {
    if let Ok(bytes) = serde_json::to_vec(s) {
        let _ = crate::private::write_scratch(&status_path(refs, s.pid), &bytes);
    }
}

/// Forgets a run's status when it ends.
pub fn clear(refs: &Path, pid: u32) {
    let _ = std::fs::remove_file(status_path(refs, pid));
}

/// The status of every run on the desktop whose process still lives (where that can be
/// told), by pid.
pub fn statuses(refs: &Path) -> Vec<Status> {
    let (Some(dir), Some(stem)) = (refs.parent(), refs.file_stem().and_then(|s| s.to_str())) else {
        return Vec::new();
    };
    let prefix = format!("{stem}.run-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Status> = entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
        })
        .filter_map(|e| std::fs::read(e.path()).ok())
        .filter_map(|b| serde_json::from_slice::<Status>(&b).ok())
        .filter(|s| alive(s.pid))
        .collect();
    out.sort_by_key(|s| s.pid);
    out
}

fn alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_counts_only_for_runs_started_before_it() {
        let dir = std::env::temp_dir().join(format!("desktop-core-stop-{}", std::process::id()));
        let p = stop_path(&dir.join("refs.json"));
        assert_eq!(p.file_name().unwrap(), "refs.stop");
        let before = SystemTime::now() - std::time::Duration::from_secs(1);
        assert!(!stop_requested_since(&p, before));
        request_stop(&p).unwrap();
        assert!(stop_requested_since(&p, before));
        let after = SystemTime::now() + std::time::Duration::from_secs(1);
        assert!(!stop_requested_since(&p, after));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn statuses_of_live_runs_only() {
        let dir = std::env::temp_dir().join(format!("desktop-core-runs-{}", std::process::id()));
        let refs = dir.join(":5.json");
        let me = Status {
            pid: std::process::id(),
            state: "thinking".into(),
            step: 2,
            max_steps: 30,
            goal: "Tick".into(),
            last_error: Some("ELEMENT_NOT_FOUND".into()),
        };
        save(&refs, &me);
        // Another desktop's run, and one whose process is gone.
        save(
            &dir.join(":6.json"),
            &Status {
                pid: std::process::id(),
                ..Status::default()
            },
        );
        if cfg!(target_os = "linux") {
            save(
                &refs,
                &Status {
                    pid: u32::MAX - 1,
                    ..Status::default()
                },
            );
        }
        assert_eq!(statuses(&refs), vec![me]);
        clear(&refs, std::process::id());
        assert!(statuses(&refs).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
