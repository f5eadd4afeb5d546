//! Linux: AT-SPI and X11 through `desktop-linux`, the headless sandbox, the keeper.

use crate::output::notice;
use desktop_core::backend::Check;
use desktop_core::Result;
use std::path::PathBuf;
use std::time::Duration;

/// The headless desktop (`desktop-cli sandbox ...`), on Linux only.
pub use desktop_linux::sandbox;
pub use desktop_linux::LinuxDesktop as Platform;

/// Points this process at the sandbox when `DISPLAY` is unset. Must run before any thread
/// starts: it sets environment variables.
pub fn prepare() -> Result<()> {
    check_private()?;
    desktop_linux::adopt_sandbox().map(|_| ())
}

/// Refuses state directories that are not this user's alone (see `sandbox::check_private`).
pub fn check_private() -> Result<()> {
    desktop_linux::sandbox::check_private()
}

/// Connects to the desktop, telling people when accessibility had to be switched on, and
/// makes sure the bus has its keeper. `warm`: keep per-app connections and caches between
/// calls (a long-lived server).
pub async fn connect(timeout: Duration, warm: bool) -> Result<Platform> {
    let mut d = Platform::connect(timeout).await?;
    if d.enabled_now() {
        notice("accessibility was off; switched org.a11y.Status.IsEnabled on (apps started before may need a restart)");
    }
    ensure_keeper(&d);
    if warm {
        d.keep_warm();
    }
    Ok(d)
}

/// This program, with arguments, for the helpers it starts in the background.
fn this_program(args: &[&str]) -> std::io::Result<std::process::Command> {
    let mut cmd = std::process::Command::new(std::env::current_exe()?);
    cmd.args(args);
    Ok(cmd)
}

/// Starts the keeper of this accessibility bus if none runs (see desktop-linux's keeper:
/// without a lasting client, a command that ends while Chromium handles typed keys crashes
/// the browser). A failure to start it is reported and does not stop the command.
fn ensure_keeper(d: &Platform) {
    let cmd = match this_program(&["keeper"]) {
        Ok(c) => c,
        Err(e) => return notice(&format!("cannot start the accessibility keeper: {e}")),
    };
    if let Err(e) = desktop_linux::ensure_keeper(d.address(), cmd, Duration::from_secs(1)) {
        notice(&e.message);
    }
}

/// The hidden `keeper` command: runs until the accessibility bus goes away.
pub async fn run_keeper() -> i32 {
    let Ok(address) = std::env::var("AT_SPI_BUS_ADDRESS") else {
        return 2;
    };
    let ready = || {
        use std::io::Write;
        let mut out = std::io::stdout();
        let _ = out.write_all(b"ready\n").and_then(|()| out.flush());
    };
    match desktop_linux::run_keeper(&address, ready).await {
        Ok(()) => 0,
        Err(e) => {
            notice(&e.message);
            1
        }
    }
}

/// This user's private runtime directory for desktop-cli (ref maps, sandboxes, the MCP
/// server's token).
#[cfg(feature = "mcp")]
pub fn runtime_dir() -> PathBuf {
    desktop_linux::sandbox::runtime_root()
}

/// Where the ids of reads of the desktop in use are kept.
pub fn refs_path() -> PathBuf {
    desktop_linux::sandbox::refs_path()
}

/// `doctor`'s checks and the running sandboxes.
pub async fn doctor(timeout: Duration) -> (Vec<Check>, Vec<u32>) {
    (
        desktop_linux::doctor_checks(timeout).await,
        desktop_linux::running_sandboxes(),
    )
}

/// The clipboard: text in, text out, kept alive after this process exits.
pub mod clipboard {
    use desktop_core::Result;
    use desktop_linux::clipboard_text as text;
    use std::time::Duration;

    /// The clipboard's text, `None` when empty; never takes the clipboard from its owner.
    pub fn get(timeout: Duration) -> Result<Option<String>> {
        text::get(timeout)
    }

    /// Puts `text` on the clipboard; a holder process (`clipboard serve`) serves it after
    /// this process exits, until another program takes the clipboard.
    pub fn set(value: &str, timeout: Duration) -> Result<()> {
        let holder = super::this_program(&["clipboard", "serve"])
            .map_err(|e| desktop_core::Error::internal(format!("cannot find this program: {e}")))?;
        text::set(value, holder, timeout)
    }

    pub fn clear() -> Result<()> {
        text::clear()
    }

    /// The holder's life: serve `value` until another client takes the clipboard; `ready`
    /// runs once it owns it.
    pub fn serve(value: &str, ready: impl FnOnce()) -> Result<()> {
        text::serve(value, ready)
    }
}
