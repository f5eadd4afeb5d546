//! The headless desktop: Xvfb, a private session bus, the AT-SPI bus, accessibility on;
//! on request several displays (RandR monitors side by side) and a window manager — or,
//! with `--wayland`, a headless Wayland compositor in Xvfb's place (`compositor`).
//!
//! Each sandbox lives in `$XDG_RUNTIME_DIR/desktop-cli/sandbox/N/` (or
//! `/tmp/desktop-cli-UID/sandbox/N/`, N the display number) with its X cookie, its bus
//! socket, logs, and `state.json` recording every process it started (pid + start time).
//! `down` stops exactly those processes and their process group, never anything by name.

use crate::procs::{self, Proc};
use desktop_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const XVFB: &str = "Xvfb";
/// The window manager `--wm` starts: small, EWMH-complete, in Debian and Ubuntu.
const WM: &str = "openbox";
const DBUS_DAEMON: &str = "dbus-daemon";
const BUS_LAUNCHER: &[&str] = &[
    "/usr/libexec/at-spi-bus-launcher",
    "/usr/lib/at-spi2-core/at-spi-bus-launcher",
    "/usr/lib/at-spi-bus-launcher",
];

/// A running (or recorded) sandbox, as saved in its `state.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Sandbox {
    pub display: u32,
    pub dir: PathBuf,
    pub xauthority: PathBuf,
    pub bus_address: String,
    pub a11y_bus_address: String,
    pub size: String,
    /// How many displays the screen is split into (side by side, each `size`).
    #[serde(default = "one")]
    pub outputs: u32,
    /// The window manager running in it, if one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wm: Option<String>,
    /// A Wayland sandbox's compositor (no X server runs then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wayland: Option<Compositor>,
    /// Unix seconds.
    pub started: u64,
    /// Xvfb, dbus-daemon, at-spi-bus-launcher; the first leads the process group.
    pub procs: Vec<Proc>,
}

fn one() -> u32 {
    1
}

/// Where a Wayland sandbox's compositor listens, and the folder it keeps them in.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Compositor {
    /// `sway` or `labwc`.
    pub name: String,
    /// The display socket's absolute path (what `WAYLAND_DISPLAY` holds).
    pub socket: PathBuf,
    /// sway's IPC socket (`SWAYSOCK`); labwc has none.
    #[serde(default)]
    pub ipc: Option<PathBuf>,
    /// Its runtime folder, removed with the sandbox.
    pub folder: PathBuf,
}

/// Wayland sandboxes are numbered from here, so no X server's display number meets them.
const FIRST_WAYLAND: u32 = 500;
/// How to start a sandbox.
#[derive(Clone, Debug)]
pub struct UpOptions {
    /// Each display's size and the depth, `WIDTHxHEIGHTxDEPTH`.
    pub size: String,
    /// Displays side by side (1 to 8), the first primary.
    pub outputs: u32,
    /// Start a window manager (openbox): minimizing, maximizing and full screen need one.
    pub wm: bool,
    /// A Wayland compositor (headless sway or labwc) instead of Xvfb.
    pub wayland: Option<crate::compositor::Kind>,
    /// The command that keeps a keyboard and pointer plugged into a Wayland sandbox's seat
    /// (this program's hidden `sandbox seat`).
    pub seat: Option<Vec<std::ffi::OsString>>,
    pub timeout: Duration,
}

impl Default for UpOptions {
    fn default() -> Self {
        Self {
            size: "1280x800x24".into(),
            outputs: 1,
            wm: false,
            wayland: None,
            seat: None,
            timeout: Duration::from_secs(10),
        }
    }
}

impl Sandbox {
    pub fn display_name(&self) -> String {
        format!(":{}", self.display)
    }

    /// Every recorded process is still the one we started.
    pub fn alive(&self) -> bool {
        !self.procs.is_empty() && self.procs.iter().all(Proc::alive)
    }

    /// The environment a program needs to run inside this sandbox with accessibility on.
    /// The accessibility bus is not in it: the sandbox's X root window (`AT_SPI_BUS`) and
    /// session bus (`org.a11y.Bus`) lead every toolkit there, while Qt 6 connects but never
    /// registers when `AT_SPI_BUS_ADDRESS` is set ([`UNSET`] lists it for removal).
    ///
    /// A Wayland sandbox gives the compositor's socket by its absolute path and tells GTK and
    /// Qt to use it; GTK 3 also wants *some* `XDG_RUNTIME_DIR`, given where none is set.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = match &self.wayland {
            None => vec![
                ("DISPLAY", self.display_name()),
                ("XAUTHORITY", self.xauthority.display().to_string()),
            ],
            Some(c) => {
                let mut env = vec![("WAYLAND_DISPLAY", c.socket.display().to_string())];
                if let Some(ipc) = &c.ipc {
                    env.push(("SWAYSOCK", ipc.display().to_string()));
                }
                env.extend([
                    ("XDG_SESSION_TYPE", "wayland".into()),
                    ("GDK_BACKEND", "wayland".into()),
                    ("QT_QPA_PLATFORM", "wayland".into()),
                ]);
                if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
                    env.push(("XDG_RUNTIME_DIR", runtime_root().display().to_string()));
                }
                env
            }
        };
        env.extend([
            ("DBUS_SESSION_BUS_ADDRESS", self.bus_address.clone()),
            ("DESKTOP_CLI_SANDBOX", self.display.to_string()),
        ]);
        env.extend(toolkit_env());
        env
    }

    /// Variables of the surrounding desktop a program in this sandbox must not see: an
    /// accessibility bus address ([`UNSET`]), and in a Wayland sandbox any X display.
    pub fn unset(&self) -> &'static [&'static str] {
        match self.wayland {
            None => UNSET,
            Some(_) => &["AT_SPI_BUS_ADDRESS", "DISPLAY", "XAUTHORITY"],
        }
    }

    /// Starts `cmd` in this sandbox's process group, so `down` stops it too; in a group of
    /// its own where the kernel refuses (the caller runs in another session). Programs
    /// outside the group still end with the sandbox: they lose their X connection.
    pub fn spawn(&self, cmd: &mut Command) -> std::io::Result<std::process::Child> {
        if let Some(leader) = self.procs.first() {
            cmd.process_group(leader.pid);
            match cmd.spawn() {
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {}
                other => return other,
            }
        }
        cmd.process_group(0);
        cmd.spawn()
    }

    /// Where detached programs started in this sandbox write their output.
    pub fn app_log(&self) -> Stdio {
        fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("apps.log"))
            .map_or_else(|_| Stdio::null(), Stdio::from)
    }

    /// Stops every process this sandbox started and removes its directory.
    pub fn stop(&self) {
        procs::terminate(&self.procs, self.procs.first(), Duration::from_secs(2));
        let _ = fs::remove_dir_all(&self.dir);
        if let Some(c) = &self.wayland {
            let _ = fs::remove_dir_all(&c.folder);
        }
    }

    fn save(&self) -> Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(|e| Error::internal(e.to_string()))?;
        desktop_core::private::write(&self.dir.join("state.json"), &json)
    }
}

/// Variables a program in a sandbox must not inherit: an accessibility bus address from
/// elsewhere would lead it astray, and Qt 6 does not register when given one at all.
pub const UNSET: &[&str] = &["AT_SPI_BUS_ADDRESS"];

/// Where distributions install Java's ATK wrapper (Debian's libatk-wrapper-java first).
const JAVA_ATK_WRAPPER: &[&str] = &[
    "/usr/share/java/java-atk-wrapper.jar",
    "/usr/lib/java-atk-wrapper/java-atk-wrapper.jar",
];

/// What toolkits need to expose their accessibility trees (see the testbed notes).
pub fn toolkit_env() -> Vec<(&'static str, String)> {
    let mut env = vec![
        // Qt 5/6 only talk AT-SPI when told an assistive technology runs.
        ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1".into()),
        ("QT_ACCESSIBILITY", "1".into()),
        // GTK4's GL renderer on llvmpipe eats both cores and slows every a11y call 60x.
        ("GSK_RENDERER", "cairo".into()),
        // Old GTK2/ATK apps and some Java/Electron builds look at these.
        ("GNOME_ACCESSIBILITY", "1".into()),
        ("ACCESSIBILITY_ENABLED", "1".into()),
        // atk-bridge disables itself only on exactly "1".
        ("NO_AT_BRIDGE", "0".into()),
        // GTK 2 exposes nothing without these modules (GTK 3 and later ignore them).
        ("GTK_MODULES", "gail:atk-bridge".into()),
    ];
    // Java (Swing, AWT) talks AT-SPI only through the ATK wrapper, loaded by name; a
    // name without the jar would stop every Swing app, so only where it is installed.
    if let Some(jar) = JAVA_ATK_WRAPPER.iter().find(|j| Path::new(j).exists()) {
        env.push((
            "JAVA_TOOL_OPTIONS",
            format!("-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper -Xbootclasspath/a:{jar}"),
        ));
    }
    env
}

/// This user's runtime directory for desktop-cli (not persistent state): sandboxes, ref maps.
///
/// Without `XDG_RUNTIME_DIR` it is a private folder in the temporary directory; a Wayland
/// sandbox hands that folder to its programs as their `XDG_RUNTIME_DIR` (GTK needs one), so
/// a runtime directory that *is* that folder is taken as is.
pub fn runtime_root() -> PathBuf {
    let fallback = std::env::temp_dir().join(format!(
        "desktop-cli-{}",
        rustix::process::getuid().as_raw()
    ));
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| Path::new(d).is_dir()) {
        Some(dir) if Path::new(&dir) == fallback => fallback,
        Some(dir) => PathBuf::from(dir).join("desktop-cli"),
        None => fallback,
    }
}

/// Refuses state directories another user could have planted or can write into: the
/// runtime root and what desktop-cli keeps in it (sandboxes, ref maps, per-bus state) must
/// be this user's, mode 700, not links. Missing ones pass; they are created private.
pub fn check_private() -> Result<()> {
    let root = runtime_root();
    desktop_core::private::check_dir(&root)?;
    for sub in ["sandbox", "refs", "bus"] {
        desktop_core::private::check_dir(&root.join(sub))?;
    }
    Ok(())
}

/// Where sandbox directories live.
pub fn state_root() -> PathBuf {
    runtime_root().join("sandbox")
}

/// The ref map of the desktop in use: inside the sandbox's directory (so it goes with the
/// sandbox), else one file per `DISPLAY`.
pub fn refs_path() -> PathBuf {
    if let Some(sb) = in_use() {
        return sb.dir.join("refs.json");
    }
    let display = std::env::var("DISPLAY").unwrap_or_else(|_| "none".into());
    let key: String = display
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    runtime_root().join("refs").join(format!("{key}.json"))
}

/// Every recorded sandbox, running or not, lowest display first.
pub fn all() -> Vec<Sandbox> {
    let mut out: Vec<Sandbox> = fs::read_dir(state_root())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| fs::read(e.path().join("state.json")).ok())
        .filter_map(|bytes| serde_json::from_slice(&bytes).ok())
        .collect();
    out.sort_by_key(|s| s.display);
    out
}

/// The sandbox a command without `DISPLAY` should use: `DESKTOP_CLI_SANDBOX` if set,
/// else the lowest-numbered running one.
pub fn current() -> Option<Sandbox> {
    let wanted: Option<u32> = std::env::var("DESKTOP_CLI_SANDBOX")
        .ok()
        .and_then(|v| v.trim_start_matches(':').parse().ok());
    all()
        .into_iter()
        .filter(Sandbox::alive)
        .find(|s| wanted.is_none_or(|d| d == s.display))
}

/// The sandbox this process was pointed at (by `DESKTOP_CLI_SANDBOX`, which adopting one sets).
pub fn in_use() -> Option<Sandbox> {
    let wanted = std::env::var("DESKTOP_CLI_SANDBOX").ok()?;
    current().filter(|s| wanted.trim_start_matches(':') == s.display.to_string())
}

/// Removes state left by sandboxes whose processes are gone (killed, machine rebooted).
pub fn reap_dead() {
    for s in all().into_iter().filter(|s| !s.alive()) {
        s.stop();
    }
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::new(
        ErrorCode::SandboxFailed,
        format!("{what} ({}): {e}", path.display()),
    )
    .suggest("Check that the runtime directory is writable, or set XDG_RUNTIME_DIR")
}

fn missing(program: &str, e: &std::io::Error) -> Error {
    Error::new(ErrorCode::SandboxFailed, format!("cannot start {program}: {e}"))
        .suggest("Install the runtime packages: scripts/install-deps.sh --runtime-only (xvfb dbus at-spi2-core)")
}

/// Starts a new sandbox on the first free display and waits until accessibility works.
pub async fn up(opts: &UpOptions) -> Result<Sandbox> {
    reap_dead();
    check_private()?;
    let root = state_root();
    desktop_core::private::dir(&runtime_root())?;
    desktop_core::private::dir(&root)?;
    // The directory name is fixed before Xvfb starts: Xvfb re-reads its -auth file by path.
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let staging = root.join(format!("sb-{}-{stamp:x}", std::process::id()));
    fs::DirBuilder::new()
        .mode(0o700)
        .create(&staging)
        .map_err(|e| io_error("cannot create the sandbox directory", &staging, e))?;
    let deadline = Instant::now() + opts.timeout;

    let mut started: Vec<Proc> = Vec::new();
    let result = start_all(opts, &staging, deadline, &mut started).await;
    if result.is_err() {
        procs::terminate(&started, started.first(), Duration::from_secs(1));
        let _ = fs::remove_dir_all(&staging);
    }
    result
}

async fn start_all(
    opts: &UpOptions,
    dir: &Path,
    deadline: Instant,
    started: &mut Vec<Proc>,
) -> Result<Sandbox> {
    let log = |name: &str| -> Result<Stdio> {
        let path = dir.join(format!("{name}.log"));
        fs::File::create(&path)
            .map(Stdio::from)
            .map_err(|e| io_error("cannot create a log", &path, e))
    };

    let dims: Vec<u32> = opts
        .size
        .split('x')
        .filter_map(|p| p.parse().ok())
        .collect();
    let (w, h, depth) = match dims[..] {
        [w, h, d] => (w, h, d),
        [w, h] => (w, h, 24),
        _ => return Err(Error::invalid_args(format!("bad size {}", opts.size))),
    };
    let outputs = opts.outputs.clamp(1, 8);
    let (display, server) = if let Some(kind) = opts.wayland {
        let (display, c) =
            start_compositor(kind, dir, outputs, (w, h), deadline, started, &log).await?;
        (display, Server::Wayland(c))
    } else {
        let (display, xauth, cookie) =
            start_x(dir, (w * outputs, h, depth), deadline, started, &log).await?;
        (display, Server::X { xauth, cookie })
    };
    let pgid = started[0].pid;

    // Private session bus on a socket inside the sandbox directory.
    let bus_path = dir.join("bus");
    let bus_address = format!("unix:path={}", bus_path.display());
    let dbus = clean(Command::new(DBUS_DAEMON))
        .args(["--session", "--nofork", "--nopidfile", "--nosyslog"])
        .arg(format!("--address={bus_address}"))
        .stdin(Stdio::null())
        .stdout(log("dbus")?)
        .stderr(log("dbus-err")?)
        .process_group(pgid)
        .spawn()
        .map_err(|e| missing(DBUS_DAEMON, &e))?;
    started.push(record("dbus-daemon", dbus.id())?);
    let dbus_proc = started[1].clone();
    wait_for(
        deadline,
        "the session bus socket",
        || bus_path.exists().then_some(()),
        || dbus_proc.alive(),
        dir.join("dbus-err.log"),
    )
    .await?;

    // The AT-SPI bus launcher: starts the accessibility bus, publishes it as org.a11y.Bus
    // and in the AT_SPI_BUS root-window property (which Qt needs). Its XDG_RUNTIME_DIR
    // is the sandbox directory, so the bus socket lives there too.
    let launcher = BUS_LAUNCHER
        .iter()
        .find(|p| Path::new(p).exists())
        .ok_or_else(|| {
            missing(
                "at-spi-bus-launcher",
                &std::io::Error::from(std::io::ErrorKind::NotFound),
            )
        })?;
    let display_name = format!(":{display}");
    let mut shared: Vec<(&str, String)> = match &server {
        Server::X { xauth, .. } => vec![
            ("DISPLAY", display_name.clone()),
            ("XAUTHORITY", xauth.display().to_string()),
        ],
        Server::Wayland(c) => vec![
            ("WAYLAND_DISPLAY", c.socket.display().to_string()),
            ("XDG_SESSION_TYPE", "wayland".into()),
            ("GDK_BACKEND", "wayland".into()),
            ("QT_QPA_PLATFORM", "wayland".into()),
        ],
    };
    let atspi = clean(Command::new(launcher))
        .arg("--launch-immediately")
        .envs(shared.iter().map(|(k, v)| (k, v)))
        .env("DBUS_SESSION_BUS_ADDRESS", &bus_address)
        .env("XDG_RUNTIME_DIR", dir)
        .stdin(Stdio::null())
        .stdout(log("at-spi")?)
        .stderr(log("at-spi-err")?)
        .process_group(pgid)
        .spawn()
        .map_err(|e| missing(launcher, &e))?;
    started.push(record("at-spi-bus-launcher", atspi.id())?);
    // The Child handles are dropped without waiting: the processes must outlive us.
    drop((dbus, atspi));
    if let (Server::Wayland(c), Some(seat)) = (&server, &opts.seat) {
        plug_seat(c, seat, pgid, dir, deadline, started, &log).await?;
    }

    let a11y_bus_address = crate::session::enable_accessibility(&bus_address, deadline)
        .await
        .map_err(|e| {
            Error::new(
                ErrorCode::SandboxFailed,
                format!("the accessibility bus did not come up: {}", e.message),
            )
            .detail(fs::read_to_string(dir.join("at-spi-err.log")).unwrap_or_default())
        })?;
    if let Server::X { cookie, .. } = &server {
        crate::x11::wait_for_root_property(&display_name, cookie, "AT_SPI_BUS", deadline).await?;
    }
    shared.extend(toolkit_env());
    // Best effort: a sandbox whose activated services cannot show windows still works.
    let _ = crate::session::share_environment(&bus_address, &shared).await;
    let (xauth, wayland) = match server {
        Server::X { xauth, cookie } => {
            if outputs > 1 {
                crate::x11::X::connect_with_cookie(&display_name, &cookie)?
                    .split_screen(outputs, w, h)?;
            }
            (xauth, None)
        }
        // The compositor manages windows itself.
        Server::Wayland(c) => (PathBuf::new(), Some(c)),
    };
    let wm = if let Some(c) = &wayland {
        Some(c.name.clone())
    } else if opts.wm {
        let wm = clean(Command::new(WM))
            .args(["--sm-disable"])
            .env("DISPLAY", &display_name)
            .env("XAUTHORITY", &xauth)
            .env("DBUS_SESSION_BUS_ADDRESS", &bus_address)
            // Its own configuration folder: the defaults, not a user's.
            .env("XDG_CONFIG_HOME", dir)
            .stdin(Stdio::null())
            .stdout(log("wm")?)
            .stderr(log("wm-err")?)
            .process_group(pgid)
            .spawn()
            .map_err(|e| missing(WM, &e))?;
        started.push(record(WM, wm.id())?);
        drop(wm);
        let wm_proc = started[started.len() - 1].clone();
        let cookie = read_cookie(&xauth).unwrap_or_default();
        let x = crate::x11::X::connect_with_cookie(&display_name, &cookie)?;
        wait_for(
            deadline,
            "the window manager to take the screen",
            || x.has_wm().then_some(()),
            || wm_proc.alive(),
            dir.join("wm-err.log"),
        )
        .await?;
        Some(WM.to_string())
    } else {
        None
    };
    let sandbox = Sandbox {
        display,
        dir: dir.to_path_buf(),
        xauthority: xauth,
        bus_address,
        a11y_bus_address,
        size: format!("{w}x{h}"),
        outputs,
        wm,
        wayland,
        started: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        procs: started.clone(),
    };
    sandbox.save()?;
    Ok(sandbox)
}

/// What shows the sandbox's windows.
enum Server {
    X { xauth: PathBuf, cookie: [u8; 16] },
    Wayland(Compositor),
}

type Log<'a> = &'a dyn Fn(&str) -> Result<Stdio>;

/// Xvfb on the first free display (it claims it itself: `-displayfd`, no race), with a
/// random cookie so no other local user can read or drive the screen.
async fn start_x(
    dir: &Path,
    (w, h, depth): (u32, u32, u32),
    deadline: Instant,
    started: &mut Vec<Proc>,
    log: Log<'_>,
) -> Result<(u32, PathBuf, [u8; 16])> {
    let cookie = random_cookie()?;
    let xauth = dir.join("Xauthority");
    write_xauthority(&xauth, &cookie)
        .map_err(|e| io_error("cannot write Xauthority", &xauth, e))?;
    let screen = format!("{w}x{h}x{depth}");
    let xvfb = clean(Command::new(XVFB))
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            &screen,
            "-noreset",
            "-nolisten",
            "tcp",
        ])
        .arg("-auth")
        .arg(&xauth)
        .stdin(Stdio::null())
        .stdout(log("display")?)
        .stderr(log("xvfb")?)
        .process_group(0)
        .spawn()
        .map_err(|e| missing(XVFB, &e))?;
    started.push(record("Xvfb", xvfb.id())?);
    drop(xvfb);
    let xvfb_proc = started[0].clone();
    let display_log = dir.join("display.log");
    let display = wait_for(
        deadline,
        "Xvfb to report its display",
        || {
            let text = fs::read_to_string(&display_log).ok()?;
            text.ends_with('\n')
                .then(|| text.trim().parse::<u32>().ok())
                .flatten()
        },
        || xvfb_proc.alive(),
        dir.join("xvfb.log"),
    )
    .await?;
    Ok((display, xauth, cookie))
}

/// The headless compositor, numbered past every X display and recorded sandbox, up when
/// its sockets exist and it answers on IPC with its outputs made.
async fn start_compositor(
    kind: crate::compositor::Kind,
    dir: &Path,
    outputs: u32,
    (w, h): (u32, u32),
    deadline: Instant,
    started: &mut Vec<Proc>,
    log: Log<'_>,
) -> Result<(u32, Compositor)> {
    let taken: Vec<u32> = all().iter().map(|s| s.display).collect();
    let display = (FIRST_WAYLAND..)
        .find(|n| !taken.contains(n))
        .unwrap_or(FIRST_WAYLAND);
    let folder = crate::compositor::folder();
    let mut cmd = crate::compositor::command(kind, &folder, outputs, w, h)?;
    let child = cmd
        .stdin(Stdio::null())
        .stdout(log("compositor")?)
        .stderr(log("compositor-err")?)
        .process_group(0)
        .spawn()
        .map_err(|e| {
            let _ = fs::remove_dir_all(&folder);
            Error::new(
                ErrorCode::SandboxFailed,
                format!("cannot start {}: {e}", kind.name()),
            )
            .suggest(format!(
                "Install {} (scripts/install-deps.sh installs sway; the Debian 13 bed, labwc)",
                kind.name()
            ))
        })?;
    started.push(record(kind.name(), child.id())?);
    drop(child);
    let proc = started[0].clone();
    let err_log = dir.join("compositor-err.log");
    let sockets = wait_for(
        deadline,
        "the compositor's sockets",
        || crate::compositor::sockets(kind, &folder),
        || proc.alive(),
        err_log.clone(),
    )
    .await;
    let sockets = match sockets {
        Ok(s) => s,
        Err(e) => {
            let _ = fs::remove_dir_all(&folder);
            return Err(e);
        }
    };
    let c = Compositor {
        name: kind.name().into(),
        socket: sockets.wayland,
        ipc: sockets.ipc,
        folder,
    };
    let (ipc, socket) = (c.ipc.clone(), c.socket.clone());
    let ready = wait_for(
        deadline,
        "the compositor's outputs",
        || {
            let made = match &ipc {
                Some(ipc) => crate::wayland::outputs_at(ipc).ok()?.len(),
                None => crate::wayland::output_count(&socket)?,
            };
            (made as u32 >= outputs).then_some(())
        },
        || proc.alive(),
        err_log,
    )
    .await;
    let sized = match (ready, kind) {
        (Ok(()), crate::compositor::Kind::Labwc) => size_outputs(&c, outputs, (w, h), dir),
        (ready, _) => ready,
    };
    if let Err(e) = sized {
        let _ = fs::remove_dir_all(&c.folder);
        return Err(e);
    }
    Ok((display, c))
}

/// Gives a compositor that sets no output modes itself (labwc) its outputs' size and places
/// them side by side, with `wlr-randr` (wlroots' output management).
fn size_outputs(c: &Compositor, outputs: u32, (w, h): (u32, u32), dir: &Path) -> Result<()> {
    for i in 0..outputs {
        let out = clean(Command::new("wlr-randr"))
            .env("WAYLAND_DISPLAY", &c.socket)
            .env("XDG_RUNTIME_DIR", dir)
            .args(["--output", &format!("HEADLESS-{}", i + 1)])
            .args(["--custom-mode", &format!("{w}x{h}")])
            .args(["--pos", &format!("{},0", i * w)])
            .output()
            .map_err(|e| {
                Error::new(
                    ErrorCode::SandboxFailed,
                    format!("cannot size {}'s outputs with wlr-randr: {e}", c.name),
                )
                .suggest("Install wlr-randr")
            })?;
        if !out.status.success() {
            return Err(Error::new(
                ErrorCode::SandboxFailed,
                format!("wlr-randr could not size {}'s output {}", c.name, i + 1),
            )
            .detail(String::from_utf8_lossy(&out.stderr).trim().to_string()));
        }
    }
    Ok(())
}

/// Starts the seat holder: a headless compositor has no keyboard, and a seat without one
/// tells clients so — each command's own virtual keyboard would then come and go, and keys
/// sent while a client binds its keyboard anew are lost. Up once the seat has a keyboard.
async fn plug_seat(
    c: &Compositor,
    cmd: &[std::ffi::OsString],
    pgid: i32,
    dir: &Path,
    deadline: Instant,
    started: &mut Vec<Proc>,
    log: Log<'_>,
) -> Result<()> {
    let (program, args) = cmd
        .split_first()
        .ok_or_else(|| Error::internal("no seat holder command"))?;
    let child = clean(Command::new(program))
        .args(args)
        .env("WAYLAND_DISPLAY", &c.socket)
        .envs(c.ipc.iter().map(|ipc| ("SWAYSOCK", ipc)))
        .env("XDG_RUNTIME_DIR", dir)
        .stdin(Stdio::null())
        .stdout(log("seat")?)
        .stderr(log("seat-err")?)
        .process_group(pgid)
        .spawn()
        .map_err(|e| {
            Error::new(
                ErrorCode::SandboxFailed,
                format!("cannot start the seat holder: {e}"),
            )
        })?;
    started.push(record("seat", child.id())?);
    drop(child);
    let proc = started[started.len() - 1].clone();
    let socket = c.socket.clone();
    wait_for(
        deadline,
        "a keyboard on the compositor's seat",
        || crate::wayland::seat_has_keyboard(&socket).then_some(()),
        || proc.alive(),
        dir.join("seat-err.log"),
    )
    .await
}

/// A command without the desktop variables of whatever started us: a sandbox's helpers
/// (at-spi2-registryd above all, which trusts AT_SPI_BUS_ADDRESS) must only see its own.
fn clean(mut cmd: Command) -> Command {
    for var in [
        "DISPLAY",
        "XAUTHORITY",
        "DBUS_SESSION_BUS_ADDRESS",
        "AT_SPI_BUS_ADDRESS",
        "DESKTOP_CLI_SANDBOX",
        "WAYLAND_DISPLAY",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

fn record(name: &str, pid: u32) -> Result<Proc> {
    Proc::new(name, pid).ok_or_else(|| {
        Error::new(
            ErrorCode::SandboxFailed,
            format!("{name} exited right after it started"),
        )
    })
}

/// Polls `ready` every 5 ms until it yields, the process died (`alive` false) or time ran out.
async fn wait_for<T>(
    deadline: Instant,
    what: &str,
    mut ready: impl FnMut() -> Option<T>,
    alive: impl Fn() -> bool,
    log: PathBuf,
) -> Result<T> {
    loop {
        if let Some(v) = ready() {
            return Ok(v);
        }
        let tail = || {
            let text = fs::read_to_string(&log).unwrap_or_default();
            let lines: Vec<&str> = text.lines().rev().take(5).collect();
            lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
        };
        if !alive() {
            return Err(Error::new(
                ErrorCode::SandboxFailed,
                format!("gave up waiting for {what}: the process exited"),
            )
            .detail(tail())
            .suggest("See the log above; the doctor check names missing packages"));
        }
        if Instant::now() >= deadline {
            return Err(Error::new(
                ErrorCode::SandboxFailed,
                format!("timed out waiting for {what}"),
            )
            .detail(tail()));
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn random_cookie() -> Result<[u8; 16]> {
    let mut cookie = [0u8; 16];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut cookie))
        .map_err(|e| {
            Error::new(
                ErrorCode::SandboxFailed,
                format!("cannot read /dev/urandom: {e}"),
            )
        })?;
    Ok(cookie)
}

/// One `FamilyWild` entry with an empty display number: it matches this server whatever
/// display number Xvfb picks (libXau and x11rb both treat an empty number as "any").
fn write_xauthority(path: &Path, cookie: &[u8; 16]) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(64);
    buf.extend_from_slice(&0xffffu16.to_be_bytes());
    for field in [&b""[..], b"", b"MIT-MAGIC-COOKIE-1", cookie] {
        buf.extend_from_slice(&(field.len() as u16).to_be_bytes());
        buf.extend_from_slice(field);
    }
    let mut f = fs::File::create(path)?;
    f.set_permissions(fs::Permissions::from_mode(0o600))?;
    f.write_all(&buf)
}

/// Reads the cookie back from a sandbox's Xauthority file.
pub fn read_cookie(path: &Path) -> Option<[u8; 16]> {
    let bytes = fs::read(path).ok()?;
    bytes.get(bytes.len().checked_sub(16)?..)?.try_into().ok()
}
