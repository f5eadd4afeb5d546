//! Commands answered by the keeper (Linux): a one-shot `read`, `list`, `wait`, `screenshot`
//! or element action (click, hover, type, press, focus, scroll, drag, set-value, toggle,
//! action) hands
//! its command line to the desktop's keeper, which runs it on what it keeps warm — per-app
//! connections, caches and window mirrors kept true by the apps' own signals, as the MCP
//! server does — and hands back what the command prints. When anything is amiss before the
//! keeper takes the request (no keeper, another build of this program, another desktop,
//! ref map or activity log, an option it does not serve), the process runs the command
//! itself, as it always could.
//!
//! The socket lives in the bus's private folder (mode 700) and answers only processes of
//! this user. One request and one reply per connection, each a JSON line. Reads run side
//! by side; actions take turns (one pointer, one keyboard), as in the MCP server.

use crate::cli::{Cli, Command, Global};
use crate::output::{self, notice, Out};
use crate::platform::Platform;
use clap::Parser;
use desktop_core::wire;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

/// The only call timeout the keeper reads with (`--call-timeout`'s default); a read asking
/// for another is done by its own process.
const SERVED_TIMEOUT_MS: u64 = 3000;

/// A keeper that does not take the connection at once is not waited for.
const CONNECT: Duration = Duration::from_millis(200);

/// Requests are a command line; anything longer is not one.
const MAX_REQUEST: u64 = 1 << 20;

/// Set (to anything but 0), every read is done by its own process.
const DIRECT: &str = "DESKTOP_CLI_DIRECT";

/// What both sides must share for the keeper's run to be the one this process would make:
/// the same program (the running image: a rebuilt or upgraded binary differs), the same
/// display, ref map, activity log and accessibility bus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Context {
    exe: String,
    display: String,
    wayland: String,
    /// Where windows and their places come from on Wayland (sway's IPC, or not).
    sway: String,
    refs: String,
    activity: String,
    address: String,
}

impl Context {
    fn here(address: &str) -> Option<Context> {
        let var = |k: &str| std::env::var(k).unwrap_or_default();
        Some(Context {
            exe: exe_id(Path::new("/proc/self/exe"))?,
            display: var("DISPLAY"),
            wayland: var("WAYLAND_DISPLAY"),
            sway: var("SWAYSOCK"),
            refs: desktop_linux::sandbox::refs_path().display().to_string(),
            activity: desktop_core::activity::dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
            address: address.to_string(),
        })
    }
}

/// A file's identity: device, inode and modification time.
fn exe_id(path: &Path) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    Some(format!(
        "{}:{}:{}.{}",
        m.dev(),
        m.ino(),
        m.mtime(),
        m.mtime_nsec()
    ))
}

/// Whether the file this process was started from has been replaced (a new build or
/// version installed over it): then a keeper hands over to one of the new program.
fn exe_replaced(own: &str) -> bool {
    let Ok(link) = std::fs::read_link("/proc/self/exe") else {
        return false;
    };
    let link = link.to_string_lossy();
    let path = link.strip_suffix(" (deleted)").unwrap_or(&link);
    exe_id(Path::new(path)).is_some_and(|id| id != own)
}

#[derive(Debug, Serialize, Deserialize)]
struct Request {
    context: Context,
    ask: Ask,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Ask {
    Command {
        /// The command line after the program's name.
        args: Vec<String>,
        /// The command's working folder, which a screenshot's `--output` is relative to.
        cwd: std::path::PathBuf,
    },
    /// One read, handed back whole for the asking process to work on (the agent's).
    Read(wire::Ask),
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Reply {
    /// The command ran: what it printed, and its exit status.
    Done {
        code: i32,
        stdout: String,
        stderr: Vec<String>,
    },
    /// The read asked for, or why it failed.
    Read {
        answer: std::result::Result<wire::Read, desktop_core::Error>,
    },
    /// The keeper did not run it; the process runs it by itself.
    Declined { why: String },
}

fn direct() -> bool {
    std::env::var_os(DIRECT).is_some_and(|v| v != "0")
        || std::env::var_os("DESKTOP_CLI_NO_KEEPER").is_some_and(|v| v != "0")
}

/// Whether the keeper may run `command`: reads, screenshots, and actions on elements,
/// points and keys. Not what starts programs, changes windows, streams, or reads this
/// process's input.
pub fn served(command: &Command) -> bool {
    matches!(
        command,
        Command::Read(_)
            | Command::List(_)
            | Command::Wait(_)
            | Command::Screenshot(_)
            | Command::Click(_)
            | Command::Hover(_)
            | Command::Type(_)
            | Command::Press(_)
            | Command::Focus(_)
            | Command::Scroll(_)
            | Command::Drag(_)
            | Command::SetValue(_)
            | Command::Toggle(_)
            | Command::Action(_)
    )
}

/// Whether `command` only looks (several may run at once). A screenshot raises the window
/// it is of, as it did when run by its own process, and takes no turn.
fn looks(command: &Command) -> bool {
    matches!(
        command,
        Command::Read(_) | Command::List(_) | Command::Wait(_) | Command::Screenshot(_)
    )
}

/// This process's command, run by the keeper: its exit status once the keeper's output is
/// printed, `None` when the process is to run it itself.
pub async fn forward(g: &Global, command: &Command, out: Out) -> Option<i32> {
    if direct() || g.call_timeout != SERVED_TIMEOUT_MS {
        return None;
    }
    let t = Instant::now();
    let args = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string().ok())
        .collect::<Option<Vec<String>>>()?;
    let address = desktop_linux::bus_address(Duration::from_millis(g.call_timeout))
        .await
        .ok()?;
    let socket = desktop_linux::keeper_socket(&address);
    let stream = tokio::time::timeout(CONNECT, UnixStream::connect(&socket))
        .await
        .ok()?
        .ok()?;
    let request = Request {
        context: Context::here(&address)?,
        ask: Ask::Command {
            args,
            cwd: std::env::current_dir().ok()?,
        },
    };
    // A look the keeper does not finish is made again here. An action is never run twice:
    // once handed over it may have happened, so the keeper's silence is reported instead
    // (its own steps are bounded; the outer bound is only a safety net).
    let (wait, again) = if looks(command) {
        (look_bound(g) + own_wait(command), true)
    } else {
        (ACTION_WAIT, false)
    };
    let exchanged = tokio::time::timeout(wait, exchange(stream, &request));
    let reply = match stopped_by_signal(exchanged, again).await {
        Err(e) => return Some(out.err(&crate::command_name(), &e)),
        Ok(r) => r,
    };
    let reply = match reply {
        Ok(Some(r)) => r,
        Ok(None) if again => return None,
        Err(_) if again => {
            notice("the keeper did not answer in time; running the command directly");
            return None;
        }
        Ok(None) | Err(_) => {
            // It may have ended between a key's press and its release.
            let released = desktop_linux::release_held_input().unwrap_or(0);
            let e = unanswered(released);
            return Some(out.err(&crate::command_name(), &e));
        }
    };
    match reply {
        Reply::Done {
            code,
            stdout,
            stderr,
        } => {
            for line in stderr {
                output::write_stderr(&line);
            }
            if g.timing {
                notice(&format!(
                    "timing: keeper total={:.1}ms",
                    t.elapsed().as_secs_f64() * 1000.0
                ));
            }
            output::raw(stdout.as_bytes());
            Some(code)
        }
        Reply::Read { .. } => None,
        Reply::Declined { why } => {
            if g.timing {
                notice(&format!(
                    "the keeper did not run it ({why}); running it directly"
                ));
            }
            None
        }
    }
}

/// Hands the reads of `d` to the keeper, which makes them from the mirrors it keeps for
/// every process of this program: a process that starts afresh and then reads turn after
/// turn (the agent) starts warm on a window any command read lately. Not when reads are
/// to be made directly or with another call timeout than the keeper's; once the keeper
/// declines (another build, another desktop) or does not answer, the process reads itself.
#[cfg(feature = "agent")]
pub fn read_through_keeper(d: &mut Platform, g: &Global) {
    if direct() || g.call_timeout != SERVED_TIMEOUT_MS {
        return;
    }
    let address = d.address().to_string();
    let Some(context) = Context::here(&address) else {
        return;
    };
    let socket = desktop_linux::keeper_socket(&address);
    let wait = look_bound(g);
    let given_up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    d.read_elsewhere(Box::new(move |target, filters| {
        let request = Request {
            context: context.clone(),
            ask: Ask::Read(wire::Ask::new(target, filters)),
        };
        let socket = socket.clone();
        let given_up = given_up.clone();
        Box::pin(async move {
            if given_up.load(std::sync::atomic::Ordering::Relaxed) {
                return None;
            }
            let t = Instant::now();
            let stream = tokio::time::timeout(CONNECT, UnixStream::connect(&socket))
                .await
                .ok()?
                .ok()?;
            match tokio::time::timeout(wait, exchange(stream, &request)).await {
                Ok(Some(Reply::Read { answer })) => Some(answer.map(|read| {
                    let mut data = desktop_core::ReadData::from(read);
                    data.timing = vec![("keeper", t.elapsed().as_secs_f64() * 1000.0)];
                    data
                })),
                // A hung keeper's read is made again here, as a command's would be.
                _ => {
                    given_up.store(true, std::sync::atomic::Ordering::Relaxed);
                    None
                }
            }
        })
    }));
}

/// Waits for the keeper's answer; for an action (`!looks`), Ctrl+C or SIGTERM ends the wait
/// instead: the connection closes with this process, so the keeper gives the action up at
/// its next wait (between two keys of a slow typing) and releases what it left held, and
/// the answer says it may have been done in part.
async fn stopped_by_signal<T>(
    waiting: impl std::future::Future<Output = T>,
    looks: bool,
) -> Result<T, desktop_core::Error> {
    if looks {
        return Ok(waiting.await);
    }
    tokio::select! {
        biased;
        () = crate::commands::watch::interrupted() => Err(desktop_core::stop::interrupted()),
        r = waiting => Ok(r),
    }
}

/// How long a look handed to the keeper is waited for (beside a wait's own timeout) before
/// the process makes it itself.
fn look_bound(g: &Global) -> Duration {
    Duration::from_millis(g.call_timeout * 2) + Duration::from_secs(2)
}

/// The longest an action handed to the keeper is waited for.
const ACTION_WAIT: Duration = Duration::from_secs(600);

/// An action the keeper took and did not answer for: it may have happened, in part.
fn unanswered(released: usize) -> desktop_core::Error {
    let held = if released > 0 {
        format!(" ({released} keys or buttons it left held down were released)")
    } else {
        String::new()
    };
    desktop_core::Error::new(
        desktop_core::ErrorCode::Internal,
        format!("the desktop's keeper took the action and ended without answering; it may have been done{held}"),
    )
    .suggest("Read the window to see whether it happened before trying again")
}

/// How long the command may wait by its own options (`wait --timeout`).
fn own_wait(command: &Command) -> Duration {
    match command {
        Command::Wait(a) => Duration::from_millis(a.timeout),
        _ => Duration::ZERO,
    }
}

/// Sends the request and reads the reply; `None` when the keeper went away meanwhile.
async fn exchange(stream: UnixStream, request: &Request) -> Option<Reply> {
    let (rd, mut wr) = stream.into_split();
    let mut line = serde_json::to_vec(request).ok()?;
    line.push(b'\n');
    wr.write_all(&line).await.ok()?;
    let mut reply = Vec::new();
    BufReader::new(rd)
        .read_until(b'\n', &mut reply)
        .await
        .ok()?;
    serde_json::from_slice(&reply).ok()
}

/// The keeper's side: answers reads on the bus's socket until the keeper ends.
pub async fn serve(address: String) {
    let path = desktop_linux::keeper_socket(&address);
    // Only the keeper holding the bus's lock gets here: a socket left by an earlier one
    // that died is stale.
    let _ = std::fs::remove_file(&path);
    let Ok(listener) = UnixListener::bind(&path) else {
        return;
    };
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
    }
    let Some(here) = Context::here(&address) else {
        return;
    };
    let server = Rc::new(Server {
        here,
        desktop: tokio::sync::OnceCell::new(),
        acting: tokio::sync::Mutex::new(()),
    });
    // Each request on a task of its own, so a hung app costs only the commands aimed at it.
    tokio::task::LocalSet::new()
        .run_until(async move {
            let mut sweep = tokio::time::interval(Duration::from_secs(10));
            let mut upkeep = tokio::time::interval(desktop_linux::WARM_UPKEEP);
            let refilling = Rc::new(std::cell::Cell::new(false));
            loop {
                tokio::select! {
                    conn = listener.accept() => match conn {
                        Ok((stream, _)) => {
                            tokio::task::spawn_local(answer(server.clone(), stream));
                        }
                        Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                    },
                    _ = sweep.tick() => {
                        if let Some(d) = server.desktop.get() {
                            d.sweep_warm(desktop_linux::WARM_IDLE);
                        }
                    }
                    _ = upkeep.tick() => {
                        // Quiet windows read again and mirrors in use walked afresh before
                        // they age out, off the reads' path; one round at a time (a hung
                        // app costs its ping's limit here).
                        if server.desktop.get().is_some() && !refilling.replace(true) {
                            let (server, refilling) = (server.clone(), refilling.clone());
                            tokio::task::spawn_local(async move {
                                if let Some(d) = server.desktop.get() {
                                    d.refill_warm(desktop_linux::WARM_IDLE).await;
                                }
                                refilling.set(false);
                            });
                        }
                    }
                }
            }
        })
        .await;
}

struct Server {
    here: Context,
    /// Connected at the first request, with per-app state kept warm.
    desktop: tokio::sync::OnceCell<Platform>,
    /// Held by the action running: one pointer, one keyboard.
    acting: tokio::sync::Mutex<()>,
}

impl Server {
    async fn desktop(&self) -> desktop_core::Result<&Platform> {
        self.desktop
            .get_or_try_init(|| async {
                let mut d = Platform::connect(Duration::from_millis(SERVED_TIMEOUT_MS)).await?;
                d.keep_warm();
                Ok(d)
            })
            .await
    }

    /// Runs the request; `acting` is set once it holds the turn to act (an action started).
    async fn run(&self, request: Request, acting: &std::cell::Cell<bool>) -> Reply {
        if request.context != self.here {
            return declined(if request.context.exe == self.here.exe {
                "another desktop"
            } else {
                "another build of desktop-cli"
            });
        }
        match request.ask {
            Ask::Command { args, cwd } => self.command(args, cwd, acting).await,
            Ask::Read(ask) => {
                let d = match self.desktop().await {
                    Ok(d) => d,
                    Err(e) => return declined(&e.message),
                };
                let (target, filters) = ask.parts();
                let answer = desktop_core::Desktop::read(d, &target, &filters).await;
                Reply::Read {
                    answer: answer.map(|data| wire::Read::from(&data)),
                }
            }
        }
    }

    /// Runs a command line as its own process would have.
    async fn command(
        &self,
        args: Vec<String>,
        cwd: std::path::PathBuf,
        acting: &std::cell::Cell<bool>,
    ) -> Reply {
        let argv = std::iter::once("desktop-cli".to_string()).chain(args);
        let Ok(mut cli) = Cli::try_parse_from(argv) else {
            return declined("not a command line it reads");
        };
        // The image goes where the command's own process would have written it.
        if let Command::Screenshot(a) = &mut cli.command {
            if let Some(p) = a.output.as_mut().filter(|p| p.is_relative()) {
                *p = cwd.join(&*p);
            }
        }
        let out = Out::of(&cli);
        if !served(&cli.command) {
            return declined("not a command it runs");
        }
        if cli.global.call_timeout != SERVED_TIMEOUT_MS {
            return declined("another call timeout");
        }
        let d = match self.desktop().await {
            Ok(d) => d,
            Err(e) => return declined(&e.message),
        };
        let _turn = if looks(&cli.command) {
            None
        } else {
            let turn = self.acting.lock().await;
            acting.set(true);
            Some(turn)
        };
        let run = crate::commands::dispatch_on(Some(d), cli, out);
        let (code, printed) = output::capture(run).await;
        Reply::Done {
            code,
            stdout: String::from_utf8_lossy(&printed.stdout).into_owned(),
            stderr: printed.stderr,
        }
    }
}

fn declined(why: &str) -> Reply {
    Reply::Declined { why: why.into() }
}

/// One connection: the request, the read, the reply.
async fn answer(server: Rc<Server>, stream: UnixStream) {
    // The folder is private; this is the second lock on the door.
    let me = rustix::process::geteuid().as_raw();
    if !stream.peer_cred().is_ok_and(|c| c.uid() == me) {
        return;
    }
    let (rd, mut wr) = stream.into_split();
    let mut line = Vec::new();
    let mut rd = BufReader::new(rd.take(MAX_REQUEST));
    let got = tokio::time::timeout(Duration::from_secs(1), rd.read_until(b'\n', &mut line)).await;
    if !matches!(got, Ok(Ok(n)) if n > 0) {
        return;
    }
    // The command's process waits for the answer with its end of the socket open; if it
    // ends first (Ctrl+C, a harness's timeout), the command is given up at its next wait
    // (a slow typing between two keys), and what an action left held goes up.
    let mut rest = rd.into_inner().into_inner();
    let gone = async move {
        let mut byte = [0u8; 1];
        while let Ok(n) = rest.read(&mut byte).await {
            if n == 0 {
                break;
            }
        }
    };
    let (reply, hand_over) = match serde_json::from_slice::<Request>(&line) {
        Ok(request) => {
            let newer = request.context.exe != server.here.exe && exe_replaced(&server.here.exe);
            let acting = std::cell::Cell::new(false);
            tokio::select! {
                reply = server.run(request, &acting) => (reply, newer),
                () = gone => {
                    if acting.get() {
                        let _ = desktop_linux::release_held_input();
                    }
                    return;
                }
            }
        }
        Err(e) => (
            Reply::Declined {
                why: format!("unreadable request: {e}"),
            },
            false,
        ),
    };
    let mut buf = serde_json::to_vec(&reply).unwrap_or_default();
    buf.push(b'\n');
    let _ = wr.write_all(&buf).await;
    let _ = wr.shutdown().await;
    if hand_over {
        // This program was replaced on disk: the next command starts the new one's keeper.
        std::process::exit(0);
    }
}
