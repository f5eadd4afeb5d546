//! Linux: AT-SPI and X11 through `desktop-linux`, the headless sandbox, the keeper and the
//! clipboard's holder (the hidden commands only Linux has).

use crate::output::notice;
use desktop_core::system::{Diagnosis, System};
use desktop_core::Result;
use std::path::PathBuf;
use std::time::Duration;

/// The headless desktop (`desktop-cli sandbox ...`), on Linux only.
pub use desktop_linux::sandbox;
pub use desktop_linux::LinuxDesktop as Platform;

/// Linux: the desktop through AT-SPI and X11, the sandbox, the clipboard through X11.
#[derive(Clone, Copy, Debug)]
pub struct Linux;

/// The platform this binary was built for.
pub const SYSTEM: Linux = Linux;

impl System for Linux {
    type Desktop = Platform;
    type Clipboard = Clipboard;

    fn check_private(&self) -> Result<()> {
        desktop_linux::sandbox::check_private()
    }

    /// Points this process at the sandbox when `DISPLAY` is unset.
    fn prepare(&self) -> Result<()> {
        self.check_private()?;
        desktop_linux::adopt_sandbox().map(|_| ())
    }

    /// Connects, telling people when accessibility had to be switched on, and makes sure
    /// the bus has its keeper.
    async fn connect(&self, timeout: Duration, warm: bool) -> Result<Platform> {
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

    fn clipboard(&self) -> Clipboard {
        Clipboard
    }

    async fn diagnose(&self, timeout: Duration) -> Diagnosis {
        Diagnosis {
            checks: desktop_linux::doctor_checks(timeout).await,
            sandboxes: desktop_linux::running_sandboxes(),
        }
    }

    fn state_dir(&self) -> PathBuf {
        desktop_linux::sandbox::runtime_root()
    }
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

/// The hidden `keeper` command: runs until the accessibility bus goes away, answering the
/// one-shot commands' reads warm meanwhile (`relay`).
pub async fn run_keeper() -> i32 {
    let Ok(address) = std::env::var("AT_SPI_BUS_ADDRESS") else {
        return 2;
    };
    let ready = || {
        use std::io::Write;
        let mut out = std::io::stdout();
        let _ = out.write_all(b"ready\n").and_then(|()| out.flush());
    };
    let serve = crate::relay::serve(address.clone());
    match desktop_linux::run_keeper(&address, ready, serve).await {
        Ok(()) => 0,
        Err(e) => {
            notice(&e.message);
            1
        }
    }
}

/// The X11 clipboard: text in, text out, kept alive after this process exits by a holder
/// process (`clipboard serve`).
#[derive(Clone, Copy, Debug)]
pub struct Clipboard;

impl desktop_core::system::Clipboard for Clipboard {
    fn get(&self, timeout: Duration) -> Result<Option<String>> {
        desktop_linux::clipboard_text::get(timeout)
    }

    /// A holder process (`clipboard serve`) serves the text after this process exits,
    /// until another program takes the clipboard.
    fn set(&self, value: &str, timeout: Duration) -> Result<()> {
        let holder = this_program(&["clipboard", "serve"])
            .map_err(|e| desktop_core::Error::internal(format!("cannot find this program: {e}")))?;
        desktop_linux::clipboard_text::set(value, holder, timeout)
    }

    fn clear(&self) -> Result<()> {
        desktop_linux::clipboard_text::clear()
    }
}

/// The holder's life (the hidden `clipboard serve`): serve `value` until another client
/// takes the clipboard; `ready` runs once it owns it.
pub fn serve_clipboard(value: &str, ready: impl FnOnce()) -> Result<()> {
    desktop_linux::clipboard_text::serve(value, ready)
}
