//! The Stop of `view`: a request that every agent run on a desktop ends before its next
//! action, as Ctrl+C does. It is a file beside the desktop's refs (owner-only, like them)
//! whose time is the request's; a run stops when it finds one newer than its own start.

use crate::Result;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Where the stop request of the desktop whose refs live at `refs` is kept.
pub fn path(refs: &Path) -> PathBuf {
    refs.with_extension("stop")
}

/// Asks every agent run on the desktop to stop.
pub fn request(path: &Path) -> Result<()> {
    let now = crate::activity::rfc3339(SystemTime::now());
    crate::private::write(path, format!("{now}\n").as_bytes())
}

/// Whether a stop was asked for after `since`.
pub fn requested_since(path: &Path, since: SystemTime) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t > since)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_counts_only_for_runs_started_before_it() {
        let dir = std::env::temp_dir().join(format!("desktop-core-stop-{}", std::process::id()));
        let p = path(&dir.join("refs.json"));
        assert_eq!(p.file_name().unwrap(), "refs.stop");
        let before = SystemTime::now() - std::time::Duration::from_secs(1);
        assert!(!requested_since(&p, before));
        request(&p).unwrap();
        assert!(requested_since(&p, before));
        let after = SystemTime::now() + std::time::Duration::from_secs(1);
        assert!(!requested_since(&p, after));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
