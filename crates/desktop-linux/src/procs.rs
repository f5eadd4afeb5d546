//! Processes the sandbox started: identified by pid *and* start time, so a recycled pid
//! is never signalled.

use rustix::process::{kill_process, kill_process_group, Pid, Signal};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// A process we started, as recorded in the sandbox state file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Proc {
    pub name: String,
    pub pid: i32,
    /// Start time in clock ticks since boot (field 22 of `/proc/PID/stat`).
    pub start_time: u64,
}

impl Proc {
    pub fn new(name: &str, pid: u32) -> Option<Self> {
        let pid = i32::try_from(pid).ok()?;
        Some(Self {
            name: name.into(),
            pid,
            start_time: start_time(pid)?,
        })
    }

    /// Still running and still the process we started (not a recycled pid, not a zombie).
    pub fn alive(&self) -> bool {
        start_time(self.pid) == Some(self.start_time) && !is_zombie(self.pid)
    }

    fn signal(&self, sig: Signal) {
        if self.alive() {
            if let Some(pid) = Pid::from_raw(self.pid) {
                let _ = kill_process(pid, sig);
            }
        }
    }
}

fn stat_fields(pid: i32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// Field 22 of `/proc/PID/stat`; index 19 once pid and comm are cut off.
pub fn start_time(pid: i32) -> Option<u64> {
    stat_fields(pid)?.get(19)?.parse().ok()
}

fn is_zombie(pid: i32) -> bool {
    stat_fields(pid).is_some_and(|f| f.first().is_some_and(|s| s == "Z"))
}

/// Stops `procs` (in reverse start order) and then their process group `pgid`, which
/// holds the helpers they spawned; SIGTERM first, SIGKILL after `grace`.
pub fn terminate(procs: &[Proc], pgid: Option<&Proc>, grace: Duration) {
    let group_ok = pgid.is_some_and(Proc::alive);
    for p in procs.iter().rev() {
        p.signal(Signal::TERM);
    }
    if let (true, Some(leader)) = (group_ok, pgid) {
        if let Some(pg) = Pid::from_raw(leader.pid) {
            let _ = kill_process_group(pg, Signal::TERM);
        }
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline && procs.iter().any(Proc::alive) {
        std::thread::sleep(Duration::from_millis(10));
    }
    for p in procs.iter().rev() {
        p.signal(Signal::KILL);
    }
    if let (true, Some(leader)) = (group_ok, pgid) {
        if let Some(pg) = Pid::from_raw(leader.pid) {
            let _ = kill_process_group(pg, Signal::KILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_process_is_alive_and_a_fake_one_is_not() {
        let me = Proc::new("self", std::process::id()).expect("own stat");
        assert!(me.alive());
        let fake = Proc {
            start_time: me.start_time + 1,
            ..me
        };
        assert!(!fake.alive(), "a different start time means a recycled pid");
    }
}
