//! The keeper: one small background process per accessibility bus that stays a client of
//! every application, started by the first command that needs the bus.
//!
//! atk-bridge (GTK, Chromium, every ATK toolkit) switches its event listeners on when the
//! first client calls it and off again when the last client leaves. Chromium crashes
//! (SIGSEGV) when that switch-off happens while it is handing a key press to those
//! listeners: a short-lived command that exits while the browser still processes typed
//! keys — its own or the user's — closed the whole browser. Measured here: `read` in a
//! loop while keys were typed at 30 ms intervals killed Chromium within 6 reads; with one
//! long-lived client connected, 150 reads and 12 back-to-back `type --id` did not.
//!
//! The keeper learns each app's name, pid and toolkit when it appears (while it still
//! answers) and records them in the bus's identities file, and exits when the bus goes. It
//! also registers for every change event, so that toolkits that send only registered ones
//! (Qt) show an action's settling their reaction. While it holds the bus it may also serve
//! (`run`'s `serve`: the binary's warm reads over [`socket`]).

use crate::bus::{Bus, CallError, ACCESSIBLE, APPLICATION, REGISTRY, ROOT_PATH};
use crate::identity::{self, Identities, Identity};
use desktop_core::{Error, ErrorCode, Result};
use futures_util::future::join_all;
use futures_util::StreamExt;
use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::Read as _;
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use zbus::zvariant::OwnedObjectPath;
use zbus::{MatchRule, MessageStream};

/// How often the registry is asked for new apps when it sends no signal.
const RESCAN: Duration = Duration::from_secs(2);
/// Bound on each call the keeper makes: a hung app is retried at the next scan.
const CALL_TIMEOUT: Duration = Duration::from_secs(1);

fn lock_file(address: &str) -> std::io::Result<File> {
    let dir = identity::bus_dir(address);
    desktop_core::private::dir(&dir).map_err(|e| std::io::Error::other(e.message))?;
    fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(dir.join("keeper.lock"))
}

/// Where the keeper of the bus at `address` answers (in the bus's private folder).
pub fn socket(address: &str) -> std::path::PathBuf {
    identity::bus_dir(address).join("keeper.sock")
}

/// Takes the keeper's lock; `None` when another process holds it.
fn try_lock(address: &str) -> std::io::Result<Option<File>> {
    let f = lock_file(address)?;
    match rustix::fs::flock(&f, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(f)),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Starts `cmd` (this program's hidden keeper command) unless a keeper runs, and waits up
/// to `wait` until it is a client of every app. Returns whether one was started.
pub fn ensure(address: &str, mut cmd: Command, wait: Duration) -> Result<bool> {
    if std::env::var_os("DESKTOP_CLI_NO_KEEPER").is_some_and(|v| v != "0") {
        return Ok(false);
    }
    match try_lock(address) {
        Ok(None) => return Ok(false),
        Ok(Some(free)) => drop(free),
        // No state directory: nothing to coordinate on, and nothing a keeper could record.
        Err(_) => return Ok(false),
    }
    cmd.env("AT_SPI_BUS_ADDRESS", address)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let spawned = match crate::sandbox::in_use() {
        Some(sb) if sb.a11y_bus_address == address => sb.spawn(&mut cmd),
        _ => {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0).spawn()
        }
    };
    let child = spawned.map_err(|e| {
        Error::new(
            ErrorCode::A11yUnavailable,
            format!("cannot start the accessibility keeper: {e}"),
        )
    })?;
    wait_ready(child, wait);
    Ok(true)
}

/// Waits for the keeper's "ready" line; a keeper that is slow (a hung app on the bus)
/// goes on in the background either way.
fn wait_ready(mut child: Child, wait: Duration) {
    let Some(mut out) = child.stdout.take() else {
        return;
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 6];
        let _ = tx.send(out.read_exact(&mut buf).is_ok() && &buf == b"ready\n");
    });
    let _ = rx.recv_timeout(wait);
}

/// The keeper's life: hold the lock, be a client of every app, record who they are, and
/// end with the bus. `ready` runs once every app present at the start has been reached;
/// `serve` runs beside, only in the process that holds the lock.
pub async fn run(
    address: &str,
    ready: impl FnOnce(),
    serve: impl std::future::Future<Output = ()>,
) -> Result<()> {
    let lock = try_lock(address).map_err(|e| {
        Error::new(
            ErrorCode::A11yUnavailable,
            format!("no state directory for the keeper: {e}"),
        )
    })?;
    let Some(_lock) = lock else {
        // Another keeper got there first.
        ready();
        return Ok(());
    };
    let serving = async {
        serve.await;
        std::future::pending::<()>().await
    };
    tokio::select! {
        r = keep(address, ready) => r,
        () = serving => Ok(()),
    }
}

/// Being a client of every app until the bus goes.
async fn keep(address: &str, ready: impl FnOnce()) -> Result<()> {
    let bus = Bus::open(address, CALL_TIMEOUT).await.map_err(|e| {
        Error::new(
            ErrorCode::A11yUnavailable,
            format!("cannot connect to {address}: {e}"),
        )
    })?;
    // Before anything else: apps that learn of it later send their events from then on.
    let _ = crate::events::register_all(&bus).await;
    let mut signals = registry_signals(&bus).await;
    let mut held: BTreeSet<String> = BTreeSet::new();
    let mut ready = Some(ready);
    loop {
        match scan(&bus, address, &mut held).await {
            Err(CallError::Timeout) => {}
            Err(_) => return Ok(()), // the bus or its registry is gone
            Ok(()) => {
                if let Some(r) = ready.take() {
                    r();
                }
            }
        }
        let signal = async {
            match signals.as_mut() {
                Some(s) => s.next().await.is_some(),
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            alive = signal => if !alive { return Ok(()) },
            () = tokio::time::sleep(RESCAN) => {}
        }
    }
}

/// Signals from the registry (an app registered or left), so new apps are reached at once.
async fn registry_signals(bus: &Bus) -> Option<MessageStream> {
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(REGISTRY)
        .ok()?
        .build();
    MessageStream::for_match_rule(rule, &bus.conn, Some(64))
        .await
        .ok()
}

/// Becomes a client of every app not yet held and records their identities.
async fn scan(bus: &Bus, address: &str, held: &mut BTreeSet<String>) -> Result<(), CallError> {
    let refs: Vec<(String, OwnedObjectPath)> = bus
        .call(REGISTRY, ROOT_PATH, ACCESSIBLE, "GetChildren", &())
        .await?;
    let live: Vec<String> = refs.into_iter().map(|(n, _)| n).collect();
    held.retain(|h| live.contains(h));
    let new: Vec<&String> = live.iter().filter(|n| !held.contains(*n)).collect();
    if new.is_empty() {
        return Ok(());
    }
    let reached = join_all(new.iter().map(|name| introduce(bus, name))).await;
    let mut learned = Vec::new();
    for (name, id) in new.into_iter().zip(reached) {
        if let Some(id) = id {
            held.insert(name.clone());
            learned.push((name.clone(), id));
        }
    }
    Identities::merge_save(address, &learned, &live);
    Ok(())
}

/// `GetApplicationBusAddress` makes atk-bridge count us as a client (Qt has no such notion
/// and answers with an error); the name, pid and toolkit come with it. `None` when the app
/// did not answer: it is tried again at the next scan.
async fn introduce(bus: &Bus, name: &str) -> Option<Identity> {
    let (client, app_name, toolkit, pid) = tokio::join!(
        bus.call::<_, String>(
            name,
            ROOT_PATH,
            APPLICATION,
            "GetApplicationBusAddress",
            &()
        ),
        bus.string_property(name, ROOT_PATH, ACCESSIBLE, "Name"),
        bus.string_property(name, ROOT_PATH, APPLICATION, "ToolkitName"),
        bus.pid_of(name),
    );
    if matches!(client, Err(CallError::Timeout)) {
        return None;
    }
    Some(Identity {
        name: app_name.ok()?,
        pid: pid.unwrap_or(0),
        toolkit: toolkit.unwrap_or_default(),
    })
}
