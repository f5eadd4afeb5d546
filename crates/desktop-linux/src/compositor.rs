//! A headless Wayland compositor for a sandbox: sway (the default) or labwc, with wlroots'
//! headless backend and its software renderer, one virtual output per display. sway runs
//! without Xwayland and answers on its IPC (window positions); labwc has no IPC, so its
//! windows have no known place, and its outputs are sized with `wlr-randr`.
//!
//! wlroots refuses to start as root ("Unable to drop root"), so when we are root the
//! compositor alone runs as an unprivileged system user created once for the purpose; its
//! runtime folder is handed to that user and everything else (root's apps, the buses, us)
//! connects by the socket's absolute path.

use desktop_core::{Error, ErrorCode, Result};
use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The compositor a sandbox runs unless told otherwise (Debian and Ubuntu package it).
pub const SWAY: &str = "sway";

/// The compositors `sandbox up --wayland` can start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sway,
    Labwc,
}

impl Kind {
    /// The compositor named `name` (`sway`, `labwc`).
    pub fn named(name: &str) -> Result<Kind> {
        match name {
            "sway" => Ok(Kind::Sway),
            "labwc" => Ok(Kind::Labwc),
            other => Err(
                Error::invalid_args(format!("no headless compositor {other:?} to start"))
                    .suggest("Give --wayland sway or --wayland labwc"),
            ),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Sway => SWAY,
            Kind::Labwc => "labwc",
        }
    }
}

/// labwc's configuration: no key bound (labwc binds its defaults only when none is given,
/// so one combination no keyboard sends stands in), windows placed from the top left.
const LABWC_RC: &str = r#"<?xml version="1.0"?>
<!-- written by desktop-cli sandbox up --wayland labwc -->
<labwc_config>
  <keyboard>
    <keybind key="W-A-C-S-F35"><action name="None" /></keybind>
  </keyboard>
  <placement><policy>automatic</policy></placement>
</labwc_config>
"#;
/// The system user the compositor runs as when we are root.
const USER: &str = "desktop-cli";

/// Where a started compositor listens.
#[derive(Clone, Debug)]
pub struct Sockets {
    /// The Wayland display socket (absolute path).
    pub wayland: PathBuf,
    /// sway's IPC socket (labwc has none).
    pub ipc: Option<PathBuf>,
}

/// The configuration: `outputs` outputs of `w`×`h` side by side, nothing bound to keys (so
/// no key an agent sends is taken by the compositor), windows without borders.
pub fn config(outputs: u32, w: u32, h: u32) -> String {
    let mut text = String::from(
        "# written by desktop-cli sandbox up --wayland\n\
         xwayland disable\n\
         default_border none\n\
         default_floating_border none\n\
         focus_follows_mouse no\n\
         focus_on_window_activation focus\n",
    );
    for i in 0..outputs {
        text.push_str(&format!(
            "output HEADLESS-{} resolution {w}x{h} position {} 0 scale 1\n",
            i + 1,
            i * w
        ));
    }
    text
}

/// A fresh folder for the compositor's runtime files outside our private folders (its user
/// must reach it), named so no two sandboxes share one.
pub fn folder() -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!("desktop-cli-wl-{}-{stamp:x}", std::process::id()))
}

/// The command that starts the compositor in `dir` (its runtime folder, made here and never
/// one that exists already), as the unprivileged user when we are root.
pub fn command(kind: Kind, dir: &Path, outputs: u32, w: u32, h: u32) -> Result<Command> {
    let fail = |what: &str, e: std::io::Error| {
        Error::new(
            ErrorCode::SandboxFailed,
            format!("{what} ({}): {e}", dir.display()),
        )
    };
    fs::DirBuilder::new()
        .mode(0o700)
        .create(dir)
        .map_err(|e| fail("cannot create the compositor's folder", e))?;
    let (mut cmd, conf) = match kind {
        Kind::Sway => {
            let conf = dir.join("sway.conf");
            fs::write(&conf, config(outputs, w, h))
                .map_err(|e| fail("cannot write sway.conf", e))?;
            let mut cmd = Command::new(SWAY);
            cmd.arg("-c").arg(&conf);
            (cmd, conf)
        }
        Kind::Labwc => {
            let conf = dir.join("labwc");
            fs::create_dir(&conf).map_err(|e| fail("cannot create labwc's folder", e))?;
            fs::write(conf.join("rc.xml"), LABWC_RC)
                .map_err(|e| fail("cannot write labwc's rc.xml", e))?;
            let mut cmd = Command::new(kind.name());
            cmd.arg("-C").arg(&conf);
            (cmd, conf)
        }
    };
    if rustix::process::geteuid().is_root() {
        let (uid, gid) = system_user()?;
        let owner = (
            Some(rustix::fs::Uid::from_raw(uid)),
            Some(rustix::fs::Gid::from_raw(gid)),
        );
        let mut mine = vec![dir.to_path_buf(), conf.clone()];
        if kind == Kind::Labwc {
            mine.push(conf.join("rc.xml"));
        }
        for p in &mine {
            rustix::fs::chown(p, owner.0, owner.1)
                .map_err(|e| fail("cannot hand the compositor its folder", e.into()))?;
        }
        let mode = if conf.is_dir() { 0o700 } else { 0o600 };
        fs::set_permissions(&conf, fs::Permissions::from_mode(mode))
            .map_err(|e| fail("cannot protect the compositor's configuration", e))?;
        // std drops supplementary groups (setgroups) before setuid when run as root.
        cmd.uid(uid).gid(gid);
    }
    cmd.env_clear()
        .env(
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
        )
        .env("XDG_RUNTIME_DIR", dir)
        .env("HOME", dir)
        .env("WLR_BACKENDS", "headless")
        .env("WLR_HEADLESS_OUTPUTS", outputs.to_string())
        .env("WLR_LIBINPUT_NO_DEVICES", "1")
        .env("WLR_RENDERER", "pixman");
    Ok(cmd)
}

/// The sockets once they exist in the compositor's folder: the display's, and sway's IPC.
pub fn sockets(kind: Kind, dir: &Path) -> Option<Sockets> {
    let mut wayland = None;
    let mut ipc = None;
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("wayland-") && !name.ends_with(".lock") {
            wayland = Some(entry.path());
        } else if name.starts_with("sway-ipc.") && name.ends_with(".sock") {
            ipc = Some(entry.path());
        }
    }
    let ipc = match kind {
        Kind::Sway => Some(ipc?),
        Kind::Labwc => None,
    };
    Some(Sockets {
        wayland: wayland?,
        ipc,
    })
}

/// The uid and gid of the compositor's user, created (a system user, no home, no login
/// shell) the first time.
fn system_user() -> Result<(u32, u32)> {
    if let Some(ids) = lookup(USER) {
        return Ok(ids);
    }
    let out = Command::new("useradd")
        .args([
            "--system",
            "--no-create-home",
            "--shell",
            "/usr/sbin/nologin",
        ])
        .args(["--comment", "desktop-cli sandbox compositor", USER])
        .output()
        .map_err(|e| {
            Error::new(ErrorCode::SandboxFailed, format!("cannot run useradd: {e}"))
                .suggest("Install the passwd package, or run the sandbox as a user other than root")
        })?;
    lookup(USER).ok_or_else(|| {
        Error::new(
            ErrorCode::SandboxFailed,
            format!("cannot create the system user {USER} the compositor runs as (wlroots refuses root)"),
        )
        .detail(String::from_utf8_lossy(&out.stderr).trim().to_string())
        .suggest("Create it yourself (useradd --system desktop-cli), or run the sandbox as a user other than root")
    })
}

/// A local user's uid and gid from `/etc/passwd`.
fn lookup(user: &str) -> Option<(u32, u32)> {
    let passwd = fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let f: Vec<&str> = line.split(':').collect();
        (f.len() > 3 && f[0] == user).then(|| Some((f[2].parse().ok()?, f[3].parse().ok()?)))?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_places_outputs_side_by_side() {
        let c = config(2, 1280, 800);
        assert!(c.contains("output HEADLESS-1 resolution 1280x800 position 0 0"));
        assert!(c.contains("output HEADLESS-2 resolution 1280x800 position 1280 0"));
        assert!(c.contains("xwayland disable"));
        assert!(
            !c.contains("bindsym"),
            "no key may be taken by the compositor"
        );
    }

    #[test]
    fn compositors_by_name() {
        assert_eq!(Kind::named("sway").unwrap(), Kind::Sway);
        assert_eq!(Kind::named("labwc").unwrap().name(), "labwc");
        assert_eq!(
            Kind::named("mutter").unwrap_err().code,
            ErrorCode::InvalidArgs
        );
    }

    #[test]
    fn sockets_need_both() {
        let dir = std::env::temp_dir().join(format!("dc-sock-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("wayland-1.lock"), "").unwrap();
        assert!(sockets(Kind::Sway, &dir).is_none());
        fs::write(dir.join("wayland-1"), "").unwrap();
        assert!(sockets(Kind::Sway, &dir).is_none());
        assert_eq!(sockets(Kind::Labwc, &dir).unwrap().ipc, None);
        fs::write(dir.join("sway-ipc.0.12.sock"), "").unwrap();
        let s = sockets(Kind::Sway, &dir).unwrap();
        assert_eq!(s.wayland, dir.join("wayland-1"));
        assert_eq!(s.ipc, Some(dir.join("sway-ipc.0.12.sock")));
        fs::remove_dir_all(&dir).unwrap();
    }
}
