//! The Debian 13 bed (scripts/bed.sh): another distribution's userland in a directory,
//! mounted for one test binary, with every program a [`crate::Desk`] starts run inside it.
//!
//! The bed shares this machine's kernel, network namespace and `/tmp`: the sandbox's X and
//! D-Bus sockets and the tests' temporary directories are the same paths on both sides, the
//! repository is mounted at its own path (fixtures, support scripts, the binary under test),
//! and display numbers cannot collide because abstract X sockets are shared.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// The environment variable naming the bed's root; unset, tests run on this machine.
pub const ROOT_VAR: &str = "DESKTOP_CLI_TEST_ROOT";

/// A mounted bed; unmounted (after ending every process living in it) when the last
/// [`crate::Desk`] using it is dropped.
pub struct Bed {
    root: PathBuf,
    mounts: Vec<PathBuf>,
    /// Held while mounted: one test binary uses a bed at a time.
    _lock: File,
}

impl std::fmt::Debug for Bed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bed").field("root", &self.root).finish()
    }
}

impl Bed {
    /// The bed `DESKTOP_CLI_TEST_ROOT` names, mounted (shared by the desks of a test
    /// binary), or `None` when the variable is unset.
    pub fn from_env(bin: &Path) -> Option<Arc<Bed>> {
        static OPEN: Mutex<Weak<Bed>> = Mutex::new(Weak::new());
        let root = std::env::var_os(ROOT_VAR).filter(|r| !r.is_empty())?;
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bed) = open.upgrade() {
            return Some(bed);
        }
        let bed = Arc::new(Bed::mount(Path::new(&root), bin));
        *open = Arc::downgrade(&bed);
        Some(bed)
    }

    fn mount(root: &Path, bin: &Path) -> Bed {
        let root = root
            .canonicalize()
            .unwrap_or_else(|e| panic!("{ROOT_VAR}={}: {e}", root.display()));
        assert!(
            root.join("opt/desktop-cli-bed/versions.txt").is_file(),
            "{} is not a finished bed (scripts/bed.sh build makes one)",
            root.display()
        );
        let lock = File::create(root.with_extension("lock")).expect("create the bed's lock file");
        lock.lock().expect("lock the bed");
        // A run that was killed leaves its mounts behind.
        unmount(&mounted_under(&root));
        let repo = crate::repo_root();
        let mut binds: Vec<PathBuf> = vec!["/dev".into(), std::env::temp_dir(), repo.clone()];
        // The binary under test, where a CARGO_TARGET_DIR puts it outside the repository.
        if let Some(dir) = bin
            .canonicalize()
            .ok()
            .and_then(|b| b.parent().map(Path::to_path_buf))
        {
            if !dir.starts_with(&repo) {
                binds.push(dir);
            }
        }
        let mut mounts = Vec::new();
        let mut run = |args: &[&str], at: PathBuf| {
            std::fs::create_dir_all(&at).expect("make a mount point in the bed");
            let status = Command::new("mount")
                .args(args)
                .arg(&at)
                .status()
                .expect("run mount");
            assert!(status.success(), "mount {args:?} {} failed", at.display());
            mounts.push(at);
        };
        run(&["-t", "proc", "proc"], root.join("proc"));
        run(&["-t", "sysfs", "sys"], root.join("sys"));
        for (i, dir) in binds.iter().enumerate() {
            // A directory inside one bound already (a checkout under /tmp) is there.
            if binds[..i].iter().any(|b| dir.starts_with(b)) {
                continue;
            }
            let at = root.join(dir.strip_prefix("/").unwrap_or(dir));
            run(&["--rbind", &dir.to_string_lossy()], at);
        }
        Bed {
            root,
            mounts,
            _lock: lock,
        }
    }

    /// The bed's root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `program` to be run inside the bed, in `cwd` (a path both sides share).
    pub fn command(&self, program: &str, cwd: &Path) -> Command {
        let mut c = Command::new("chroot");
        c.arg(&self.root).arg("/usr/bin/env").arg("-C").arg(cwd);
        // The bed has no user session: nothing of this machine's runtime directory.
        c.env_remove("XDG_RUNTIME_DIR").arg(program);
        c
    }

    /// Processes whose root is the bed.
    fn residents(&self) -> Vec<i32> {
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        procs
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read_link(format!("/proc/{pid}/root")).is_ok_and(|r| r == self.root)
            })
            .collect()
    }
}

impl Drop for Bed {
    fn drop(&mut self) {
        use rustix::process::{kill_process, Pid, Signal};
        // Every process living in the bed ends before its mounts go.
        let signal_all = |signal: Signal| {
            for pid in self.residents() {
                if let Some(p) = Pid::from_raw(pid) {
                    let _ = kill_process(p, signal);
                }
            }
        };
        signal_all(Signal::TERM);
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline && !self.residents().is_empty() {
            std::thread::sleep(Duration::from_millis(50));
        }
        signal_all(Signal::KILL);
        let mut mounts = mounted_under(&self.root);
        mounts.extend(self.mounts.iter().rev().cloned());
        unmount(&mounts);
    }
}

/// Mount points at or below `root` (deepest first), from this process's mount table.
fn mounted_under(root: &Path) -> Vec<PathBuf> {
    let table = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mut found: Vec<PathBuf> = table
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .map(PathBuf::from)
        .filter(|m| m.starts_with(root) && m != root)
        .collect();
    found.sort_by_key(|m| std::cmp::Reverse(m.components().count()));
    found.dedup();
    found
}

fn unmount(mounts: &[PathBuf]) {
    for m in mounts {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(m)
            .stderr(std::process::Stdio::null())
            .status();
    }
}
