//! The Wayland connection: the registry's globals, binding them to a feature's own event
//! queue, and waiting for that queue's events with a deadline (a compositor that stops
//! answering costs a timeout, never a hang).

use desktop_core::{Error, ErrorCode, Result};
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use std::time::{Duration, Instant};
use wayland_client::globals::{registry_queue_init, GlobalList, GlobalListContents};
use wayland_client::protocol::{wl_output, wl_registry, wl_seat};
use wayland_client::{Connection, Dispatch, EventQueue, Proxy, QueueHandle};

/// How long one exchange with the compositor may take.
pub const TIMEOUT: Duration = Duration::from_secs(2);

/// A connection and the globals the compositor announced.
pub struct Client {
    pub conn: Connection,
    pub globals: GlobalList,
    /// The registry's own queue (kept so the registry stays alive).
    _registry: EventQueue<Registry>,
}

/// State of the registry's queue: nothing beyond the global list itself.
pub struct Registry;

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for Registry {
    fn event(
        _: &mut Self,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

pub(crate) fn wl_err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::ActionFailed, format!("{what}: {e}"))
        .suggest("Check that the Wayland compositor still runs (WAYLAND_DISPLAY)")
}

impl Client {
    /// Connects to `WAYLAND_DISPLAY` and reads the globals.
    pub fn connect() -> Result<Client> {
        let conn = Connection::connect_to_env().map_err(|e| {
            Error::new(
                ErrorCode::A11yUnavailable,
                format!("cannot connect to the Wayland display: {e}"),
            )
            .suggest("Set WAYLAND_DISPLAY (and XDG_RUNTIME_DIR), or start a sandbox: desktop-cli sandbox up --wayland")
        })?;
        Client::with(conn)
    }

    /// Connects to the display socket at `path`.
    pub fn connect_to(path: &std::path::Path) -> Result<Client> {
        let stream = std::os::unix::net::UnixStream::connect(path)
            .map_err(|e| wl_err("cannot connect to the Wayland display", e))?;
        let conn = Connection::from_socket(stream)
            .map_err(|e| wl_err("cannot connect to the Wayland display", e))?;
        Client::with(conn)
    }

    fn with(conn: Connection) -> Result<Client> {
        let (globals, mut queue) = registry_queue_init::<Registry>(&conn)
            .map_err(|e| wl_err("cannot read the Wayland globals", e))?;
        // The initial roundtrip is done; nothing else arrives on this queue we need.
        let _ = queue.dispatch_pending(&mut Registry);
        Ok(Client {
            conn,
            globals,
            _registry: queue,
        })
    }

    /// Whether the compositor announces `interface`.
    pub fn has(&self, interface: &str) -> bool {
        self.globals
            .contents()
            .with_list(|l| l.iter().any(|g| g.interface == interface))
    }

    /// Binds the global `I` (up to `max` of its versions) to `qh`'s queue.
    pub fn bind<I, S>(&self, qh: &QueueHandle<S>, max: u32) -> Option<I>
    where
        I: Proxy + 'static,
        S: Dispatch<I, ()> + 'static,
    {
        self.globals.bind::<I, S, ()>(qh, 1..=max, ()).ok()
    }

    /// Dispatches `queue` until `done` holds, within `timeout`.
    pub fn wait<S>(
        &self,
        queue: &mut EventQueue<S>,
        state: &mut S,
        timeout: Duration,
        done: impl Fn(&S) -> bool,
    ) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            queue
                .dispatch_pending(state)
                .map_err(|e| wl_err("the Wayland connection failed", e))?;
            if done(state) {
                return Ok(());
            }
            queue
                .flush()
                .map_err(|e| wl_err("the Wayland connection failed", e))?;
            let Some(guard) = queue.prepare_read() else {
                continue;
            };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::new(
                    ErrorCode::Timeout,
                    format!(
                        "the Wayland compositor did not answer within {} ms",
                        timeout.as_millis()
                    ),
                )
                .suggest("The compositor is busy or hung; retry"));
            }
            let ready = readable(guard.connection_fd(), left);
            if ready {
                match guard.read() {
                    Ok(_) => {}
                    Err(wayland_client::backend::WaylandError::Io(e))
                        if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(e) => return Err(wl_err("the Wayland connection failed", e)),
                }
            }
        }
    }

    /// Sends everything queued and waits until the compositor has handled it.
    pub fn sync<S>(&self, queue: &mut EventQueue<S>, state: &mut S) -> Result<()>
    where
        S: Dispatch<wayland_client::protocol::wl_callback::WlCallback, Synced> + 'static,
    {
        let done = Synced::default();
        let flag = done.0.clone();
        self.conn.display().sync(&queue.handle(), done);
        self.wait(queue, state, TIMEOUT, |_| {
            flag.load(std::sync::atomic::Ordering::Relaxed)
        })
    }

    /// The first output's size in pixels (where no compositor IPC says more).
    pub fn output_size(&self) -> Option<(i32, i32)> {
        let mut queue = self.conn.new_event_queue::<OutputMode>();
        let mut state = OutputMode(None);
        let _output: wl_output::WlOutput = self.bind(&queue.handle(), 2)?;
        self.wait(&mut queue, &mut state, TIMEOUT, |s| s.0.is_some())
            .ok()?;
        state.0
    }

    /// Whether the seat has a keyboard now (its capabilities, as clients are told them).
    pub fn seat_has_keyboard(&self) -> bool {
        let mut queue = self.conn.new_event_queue::<SeatCaps>();
        let mut state = SeatCaps(None);
        let Some(_seat) = self.seat::<SeatCaps>(&queue.handle()) else {
            return false;
        };
        self.wait(&mut queue, &mut state, TIMEOUT, |s| s.0.is_some())
            .is_ok()
            && state
                .0
                .is_some_and(|c| c.contains(wl_seat::Capability::Keyboard))
    }

    /// The seat input devices attach to.
    pub fn seat<S>(&self, qh: &QueueHandle<S>) -> Option<wl_seat::WlSeat>
    where
        S: Dispatch<wl_seat::WlSeat, ()> + 'static,
    {
        self.bind(qh, 1)
    }
}

/// Whether `fd` has something to read within `left`.
pub(crate) fn readable(fd: impl std::os::fd::AsFd, left: Duration) -> bool {
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    let ts = Timespec {
        tv_sec: left.as_secs() as i64,
        tv_nsec: i64::from(left.subsec_nanos()),
    };
    poll(&mut fds, Some(&ts)).unwrap_or(0) > 0
}

/// Set once the compositor answered a `wl_display.sync`.
#[derive(Clone, Default)]
pub struct Synced(pub std::sync::Arc<std::sync::atomic::AtomicBool>);

/// Implements the sync callback's dispatch for a feature's state type.
macro_rules! synced {
    ($state:ty) => {
        impl
            wayland_client::Dispatch<
                wayland_client::protocol::wl_callback::WlCallback,
                $crate::wayland::client::Synced,
            > for $state
        {
            fn event(
                _: &mut Self,
                _: &wayland_client::protocol::wl_callback::WlCallback,
                _: wayland_client::protocol::wl_callback::Event,
                done: &$crate::wayland::client::Synced,
                _: &wayland_client::Connection,
                _: &wayland_client::QueueHandle<Self>,
            ) {
                done.0.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
    };
}
pub(crate) use synced;

/// The seat's capabilities, once told.
struct SeatCaps(Option<wl_seat::Capability>);

impl Dispatch<wl_seat::WlSeat, ()> for SeatCaps {
    fn event(
        state: &mut Self,
        _: &wl_seat::WlSeat,
        event: wl_seat::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_seat::Event::Capabilities {
            capabilities: wayland_client::WEnum::Value(c),
        } = event
        {
            state.0 = Some(c);
        }
    }
}

/// The current mode of the first output.
struct OutputMode(Option<(i32, i32)>);

impl Dispatch<wl_output::WlOutput, ()> for OutputMode {
    fn event(
        state: &mut Self,
        _: &wl_output::WlOutput,
        event: wl_output::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_output::Event::Mode {
            flags: wayland_client::WEnum::Value(f),
            width,
            height,
            ..
        } = event
        {
            if f.contains(wl_output::Mode::Current) {
                state.0 = Some((width, height));
            }
        }
    }
}
