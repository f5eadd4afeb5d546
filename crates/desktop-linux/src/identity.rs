//! Who is behind each connection of the accessibility bus: app name, pid and toolkit per
//! unique bus name, remembered in a small file for the life of the bus. A unique name is
//! never reused while its bus lives, so an entry never goes stale; asking a hung app its
//! name costs a timeout, and with this file no command has to ask an app it does not need.

use crate::sandbox;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

/// One application as it introduced itself while it answered.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub name: String,
    #[serde(default)]
    pub pid: u32,
    /// `Application.ToolkitName`: `GTK`, `Qt`, `Chromium`, ...
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub toolkit: String,
}

impl Identity {
    /// Chromium (and Electron) update their accessibility tree asynchronously, after the
    /// renderer has handled an input: callers have to wait for its events.
    pub fn is_chromium(&self) -> bool {
        let t = self.toolkit.to_ascii_lowercase();
        t.contains("chrom") || t.contains("electron")
    }
}

/// Every known connection of one bus.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identities {
    pub apps: BTreeMap<String, Identity>,
}

/// The directory of per-bus state (the keeper's lock, the identities): the sandbox's own
/// directory when one is in use, else one directory per bus under the runtime root, named
/// after the bus's GUID (unique per bus instance).
pub fn bus_dir(address: &str) -> PathBuf {
    if let Some(sb) = sandbox::in_use() {
        if sb.a11y_bus_address == address {
            return sb.dir;
        }
    }
    sandbox::runtime_root().join("bus").join(bus_key(address))
}

/// A file-name-safe key for a bus address: its GUID, else a hash of the address.
pub fn bus_key(address: &str) -> String {
    if let Some(guid) = address
        .split([',', ';'])
        .find_map(|kv| kv.trim().strip_prefix("guid="))
        .filter(|g| !g.is_empty() && g.chars().all(|c| c.is_ascii_alphanumeric()))
    {
        return guid.to_string();
    }
    // FNV-1a: stable across runs and builds (std's hasher is not).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in address.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("addr-{h:016x}")
}

fn path(address: &str) -> PathBuf {
    bus_dir(address).join("apps.json")
}

impl Identities {
    /// What earlier commands and the keeper learned on this bus (empty when nothing yet).
    pub fn load(address: &str) -> Identities {
        fs::read(path(address))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Adds what a command learned, keeping only connections that still exist (`live`),
    /// and writes the file atomically when anything changed. Failures are ignored: the
    /// file only saves time.
    pub fn merge_save(address: &str, learned: &[(String, Identity)], live: &[String]) {
        let mut ids = Identities::load(address);
        let before = ids.clone();
        for (bus_name, id) in learned {
            ids.apps.insert(bus_name.clone(), id.clone());
        }
        if !live.is_empty() {
            ids.apps.retain(|k, _| live.iter().any(|l| l == k));
        }
        if ids != before {
            let _ = ids.save(address);
        }
    }

    fn save(&self, address: &str) -> std::io::Result<()> {
        let dir = bus_dir(address);
        desktop_core::private::dir(&dir).map_err(|e| std::io::Error::other(e.message))?;
        let json = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        let tmp = dir.join(format!("apps.json.{}.tmp", std::process::id()));
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(&json)?;
        drop(f);
        fs::rename(&tmp, dir.join("apps.json"))
    }
}

/// The process's full program name (`argv[0]` without its directory), where `comm` would
/// cut it to 15 characters.
pub fn program_name(pid: u32) -> Option<String> {
    if pid == 0 {
        return None;
    }
    let raw = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let argv0 = raw.split(|b| *b == 0).next()?;
    let s = String::from_utf8_lossy(argv0);
    let base = s.rsplit('/').next().unwrap_or(&s).trim();
    (!base.is_empty()).then(|| base.to_string())
}

/// Whether the process is stopped (SIGSTOP, a debugger, Ctrl+Z): it cannot answer anything
/// until continued, so nobody should wait for it.
pub fn is_stopped(pid: u32) -> bool {
    if pid == 0 {
        return false;
    }
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the command name, which is in parentheses and may contain spaces.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .is_some_and(|s| s == "T" || s == "t")
}

/// Whether the process has exited and waits only to be reaped by its parent.
pub fn is_zombie(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|s| s == "Z" || s == "X")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_keys() {
        assert_eq!(
            bus_key("unix:path=/tmp/x/bus_0,guid=68c88319375c7d0dbb836cc06b047b6f"),
            "68c88319375c7d0dbb836cc06b047b6f"
        );
        let a = bus_key("unix:path=/tmp/a");
        assert!(a.starts_with("addr-"));
        assert_eq!(a, bus_key("unix:path=/tmp/a"));
        assert_ne!(a, bus_key("unix:path=/tmp/b"));
        // A GUID with odd characters is not trusted as a file name.
        assert!(bus_key("unix:path=/x,guid=../../etc").starts_with("addr-"));
    }

    #[test]
    fn this_process_is_running_not_stopped() {
        assert!(!is_stopped(std::process::id()));
        assert!(program_name(std::process::id()).is_some());
        assert!(!is_stopped(0));
    }
}
