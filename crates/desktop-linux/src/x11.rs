//! X11 through x11rb: top-level windows (EWMH client list, or the root's children when no
//! window manager runs), their pids, titles and bounds, input focus, root properties.
//! Requests are pipelined: all cookies are sent before the first reply is read.

use desktop_core::model::WindowState;
use desktop_core::{Error, ErrorCode, Rect, Result};
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{Atom, AtomEnum, ConnectionExt, MapState, Window};
use x11rb::rust_connection::{DefaultStream, RustConnection};

/// A top-level X window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XWindow {
    pub id: u32,
    pub pid: Option<u32>,
    pub title: String,
    /// WM_CLASS class part, e.g. `Gtk3-widget-factory`.
    pub class: String,
    pub bounds: Rect,
    /// Minimized, maximized or full screen, as the window manager marks it.
    pub state: WindowState,
    /// A modal dialog (`_NET_WM_STATE_MODAL`, which toolkits set where their accessibility
    /// tree may not say it).
    pub modal: bool,
}

/// An open X connection with the atoms we use.
pub struct X {
    pub conn: RustConnection,
    pub root: Window,
    pub screen: Rect,
    atoms: Atoms,
    /// The RandR version agreed on, asked the first time displays are (`displays`).
    pub(crate) randr: std::sync::OnceLock<Option<(u32, u32)>>,
    /// Shared-memory segments for captures (`capture`).
    pub(crate) frames: crate::capture::Frames,
}

impl std::fmt::Debug for X {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X").field("root", &self.root).finish()
    }
}

x11rb::atom_manager! {
    Atoms: AtomsCookie {
        _NET_CLIENT_LIST,
        _NET_ACTIVE_WINDOW,
        _NET_WM_NAME,
        _NET_WM_PID,
        _NET_SUPPORTING_WM_CHECK,
        _NET_WM_STATE,
        _NET_WM_STATE_HIDDEN,
        _NET_WM_STATE_MAXIMIZED_VERT,
        _NET_WM_STATE_MAXIMIZED_HORZ,
        _NET_WM_STATE_FULLSCREEN,
        _NET_WM_STATE_MODAL,
        _NET_MOVERESIZE_WINDOW,
        _NET_CLOSE_WINDOW,
        WM_STATE,
        WM_CHANGE_STATE,
        WM_PROTOCOLS,
        WM_DELETE_WINDOW,
        UTF8_STRING,
        AT_SPI_BUS,
    }
}

// Window operations read the atoms preloaded here.
#[path = "wm.rs"]
pub(crate) mod wm;

/// One request answered: once its reply is in, the server has handled every request `conn`
/// sent before, and every event it sent before is in `conn`'s queue.
pub(crate) fn round_trip(conn: &RustConnection) -> Result<()> {
    conn.get_input_focus()
        .map_err(x_err)?
        .reply()
        .map_err(x_err)?;
    Ok(())
}

pub(crate) fn x_err(e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::NoDisplay, format!("X11 request failed: {e}"))
        .suggest("Check that the X server in DISPLAY is running (the doctor check tests it)")
}

impl X {
    /// Connects to `$DISPLAY` (with `$XAUTHORITY`).
    pub fn connect() -> Result<X> {
        let display = std::env::var("DISPLAY")
            .ok()
            .filter(|d| !d.is_empty())
            .ok_or_else(no_display)?;
        let (conn, screen) = x11rb::connect(Some(&display)).map_err(|e| {
            Error::new(
                ErrorCode::NoDisplay,
                format!("cannot connect to X display {display}: {e}"),
            )
            .suggest("Start a headless desktop (sandbox up), or fix DISPLAY/XAUTHORITY")
        })?;
        Self::from_conn(conn, screen)
    }

    /// Connects to `display` with an explicit MIT-MAGIC-COOKIE-1 (the sandbox's own).
    pub fn connect_with_cookie(display: &str, cookie: &[u8]) -> Result<X> {
        let parsed = x11rb_protocol::parse_display::parse_display(Some(display))
            .map_err(|e| x_err(format!("bad display {display}: {e}")))?;
        let mut last = None;
        for addr in parsed.connect_instruction() {
            match DefaultStream::connect(&addr) {
                Ok((stream, _)) => {
                    let conn = RustConnection::connect_to_stream_with_auth_info(
                        stream,
                        parsed.screen.into(),
                        b"MIT-MAGIC-COOKIE-1".to_vec(),
                        cookie.to_vec(),
                    )
                    .map_err(x_err)?;
                    return Self::from_conn(conn, parsed.screen.into());
                }
                Err(e) => last = Some(e),
            }
        }
        Err(x_err(format!("cannot connect to {display}: {last:?}")))
    }

    fn from_conn(conn: RustConnection, screen: usize) -> Result<X> {
        let s = &conn.setup().roots[screen];
        let root = s.root;
        let screen = Rect::new(
            0,
            0,
            i32::from(s.width_in_pixels),
            i32::from(s.height_in_pixels),
        );
        let atoms = Atoms::new(&conn).map_err(x_err)?.reply().map_err(x_err)?;
        Ok(X {
            conn,
            root,
            screen,
            atoms,
            randr: std::sync::OnceLock::new(),
            frames: crate::capture::Frames::default(),
        })
    }

    /// A string property of the root window (e.g. `AT_SPI_BUS`).
    pub fn root_string(&self, name: &str) -> Result<Option<String>> {
        let atom = if name == "AT_SPI_BUS" {
            self.atoms.AT_SPI_BUS
        } else {
            self.conn
                .intern_atom(true, name.as_bytes())
                .map_err(x_err)?
                .reply()
                .map_err(x_err)?
                .atom
        };
        let reply = self
            .conn
            .get_property(false, self.root, atom, AtomEnum::ANY, 0, 4096)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        Ok((!reply.value.is_empty()).then(|| String::from_utf8_lossy(&reply.value).into_owned()))
    }

    /// Whether an EWMH window manager runs (it publishes `_NET_SUPPORTING_WM_CHECK`).
    pub(crate) fn has_wm(&self) -> bool {
        self.conn
            .get_property(
                false,
                self.root,
                self.atoms._NET_SUPPORTING_WM_CHECK,
                AtomEnum::WINDOW,
                0,
                1,
            )
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some_and(|r| {
                r.value32()
                    .and_then(|mut v| v.next())
                    .is_some_and(|w| w != 0)
            })
    }

    /// Top-level, mapped, managed windows in stacking order (bottom first); under a window
    /// manager its minimized ones too (they are unmapped until restored).
    pub fn windows(&self) -> Result<Vec<XWindow>> {
        self.windows_of(&self.top_ids()?)
    }

    /// Every window that may be a top-level one: the EWMH client list under a window
    /// manager, else the root's children (unmapped and helper windows too).
    pub fn top_ids(&self) -> Result<Vec<Window>> {
        Ok(if self.has_wm() {
            self.conn
                .get_property(
                    false,
                    self.root,
                    self.atoms._NET_CLIENT_LIST,
                    AtomEnum::WINDOW,
                    0,
                    4096,
                )
                .map_err(x_err)?
                .reply()
                .map_err(x_err)?
                .value32()
                .map(Iterator::collect)
                .unwrap_or_default()
        } else {
            self.conn
                .query_tree(self.root)
                .map_err(x_err)?
                .reply()
                .map_err(x_err)?
                .children
        })
    }

    /// [`X::windows`] among `ids` (from [`X::top_ids`]).
    pub fn windows_of(&self, ids: &[Window]) -> Result<Vec<XWindow>> {
        let wm = self.has_wm();
        // Send every request for every window, then read the replies in order.
        let a = &self.atoms;
        let mut pending = Vec::with_capacity(ids.len());
        for &w in ids {
            pending.push((
                w,
                self.conn.get_window_attributes(w).map_err(x_err)?,
                self.conn.get_geometry(w).map_err(x_err)?,
                self.conn
                    .translate_coordinates(w, self.root, 0, 0)
                    .map_err(x_err)?,
                self.conn
                    .get_property(false, w, a._NET_WM_NAME, a.UTF8_STRING, 0, 1024)
                    .map_err(x_err)?,
                self.conn
                    .get_property(false, w, AtomEnum::WM_NAME, AtomEnum::ANY, 0, 1024)
                    .map_err(x_err)?,
                self.conn
                    .get_property(false, w, a._NET_WM_PID, AtomEnum::CARDINAL, 0, 1)
                    .map_err(x_err)?,
                self.conn
                    .get_property(false, w, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 256)
                    .map_err(x_err)?,
                self.state_request(w)?,
            ));
        }
        let mut out = Vec::new();
        for (id, attrs, geom, pos, net_name, name, pid, class, state) in pending {
            // A window destroyed meanwhile answers with an error: skip it.
            let (Ok(attrs), Ok(geom), Ok(pos)) = (attrs.reply(), geom.reply(), pos.reply()) else {
                continue;
            };
            let (state, modal) = self.state_reply(state);
            let shown =
                attrs.map_state == MapState::VIEWABLE || (wm && state == WindowState::Minimized);
            if !shown || attrs.override_redirect {
                continue;
            }
            let text = |r: Option<x11rb::protocol::xproto::GetPropertyReply>| {
                r.filter(|r| !r.value.is_empty())
                    .map(|r| String::from_utf8_lossy(&r.value).into_owned())
            };
            let title = text(net_name.reply().ok())
                .or_else(|| text(name.reply().ok()))
                .unwrap_or_default();
            let pid = pid
                .reply()
                .ok()
                .and_then(|r| r.value32().and_then(|mut v| v.next()));
            let class = class
                .reply()
                .ok()
                .map(|r| {
                    let parts: Vec<&[u8]> = r.value.split(|b| *b == 0).collect();
                    String::from_utf8_lossy(parts.get(1).copied().unwrap_or_default()).into_owned()
                })
                .unwrap_or_default();
            if title.is_empty() && class.is_empty() && pid.is_none() {
                continue; // an anonymous helper window, not something a user sees as a window
            }
            out.push(XWindow {
                id,
                pid,
                title,
                class,
                bounds: Rect::new(
                    i32::from(pos.dst_x),
                    i32::from(pos.dst_y),
                    i32::from(geom.width),
                    i32::from(geom.height),
                ),
                state,
                modal,
            });
        }
        Ok(out)
    }

    /// Mapped override-redirect windows (menus, tooltips and popups a toolkit places
    /// itself), for the frames some toolkits give them (Chromium's menus); nothing else
    /// lists them as windows.
    pub fn popups(&self) -> Vec<XWindow> {
        let Some(tree) = self
            .conn
            .query_tree(self.root)
            .ok()
            .and_then(|c| c.reply().ok())
        else {
            return Vec::new();
        };
        let pending: Vec<_> = tree
            .children
            .iter()
            .filter_map(|&w| {
                Some((
                    w,
                    self.conn.get_window_attributes(w).ok()?,
                    self.conn.get_geometry(w).ok()?,
                    self.conn
                        .get_property(false, w, self.atoms._NET_WM_PID, AtomEnum::CARDINAL, 0, 1)
                        .ok()?,
                ))
            })
            .collect();
        pending
            .into_iter()
            .filter_map(|(id, attrs, geom, pid)| {
                let (attrs, geom) = (attrs.reply().ok()?, geom.reply().ok()?);
                let shown = attrs.override_redirect
                    && attrs.map_state == MapState::VIEWABLE
                    && geom.width > 1
                    && geom.height > 1;
                shown.then(|| XWindow {
                    id,
                    pid: pid
                        .reply()
                        .ok()
                        .and_then(|r| r.value32().and_then(|mut v| v.next())),
                    title: String::new(),
                    class: String::new(),
                    bounds: Rect::new(
                        i32::from(geom.x),
                        i32::from(geom.y),
                        i32::from(geom.width),
                        i32::from(geom.height),
                    ),
                    state: WindowState::Normal,
                    modal: false,
                })
            })
            .collect()
    }

    /// The top-level window with keyboard focus: `_NET_ACTIVE_WINDOW` under a window manager,
    /// else the X input focus, else (focus follows the pointer) the window under the pointer.
    pub fn focused(&self, tops: &[XWindow]) -> Option<u32> {
        self.focused_told(tops).0
    }

    /// [`X::focused`], and whether the server tells of its change a client watching the
    /// root's properties and each of `tops` for focus changes (`tops::Tops`): always but
    /// where the pointer decided, or the server could not be asked.
    pub fn focused_told(&self, tops: &[XWindow]) -> (Option<u32>, bool) {
        let is_top = |w: u32| tops.iter().any(|t| t.id == w);
        // A window manager coming or going, and the active window, are the root's
        // properties.
        if self.has_wm() {
            let active = self
                .conn
                .get_property(
                    false,
                    self.root,
                    self.atoms._NET_ACTIVE_WINDOW,
                    AtomEnum::WINDOW,
                    0,
                    1,
                )
                .ok()
                .and_then(|c| c.reply().ok())
                .and_then(|r| r.value32().and_then(|mut v| v.next()));
            if let Some(w) = active.filter(|w| is_top(*w)) {
                return (Some(w), true);
            }
        }
        let Some(focus) = self
            .conn
            .get_input_focus()
            .ok()
            .and_then(|c| c.reply().ok())
            .map(|r| r.focus)
        else {
            return (None, false);
        };
        // 0 is None, 1 is PointerRoot: keyboard input goes to the window under the pointer.
        // Focus that leaves a top-level's windows is told to it (FocusOut); moving among
        // them changes nothing here.
        if focus > 1 {
            if let Some(top) = self.top_level_of(focus, &is_top) {
                return (Some(top), true);
            }
        }
        let child = self
            .conn
            .query_pointer(self.root)
            .ok()
            .and_then(|c| c.reply().ok())
            .map(|r| r.child);
        (child.filter(|&c| c != 0 && is_top(c)), false)
    }

    fn top_level_of(&self, mut w: u32, is_top: &impl Fn(u32) -> bool) -> Option<u32> {
        for _ in 0..64 {
            if is_top(w) {
                return Some(w);
            }
            let tree = self.conn.query_tree(w).ok()?.reply().ok()?;
            if tree.parent == 0 || tree.parent == self.root {
                return None;
            }
            w = tree.parent;
        }
        None
    }

    /// Whether the server has an extension (e.g. `XTEST`, needed for synthesized input).
    pub fn has_extension(&self, name: &str) -> bool {
        self.conn
            .query_extension(name.as_bytes())
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some_and(|r| r.present)
    }

    /// Under an EWMH window manager, asks it to activate `window` (it may ignore a bare
    /// SetInputFocus). Without one, nothing to do.
    pub(crate) fn activate_with_wm(&self, window: Window) -> Result<()> {
        if !self.has_wm() {
            return Ok(());
        }
        self.to_root(
            window,
            self.atoms._NET_ACTIVE_WINDOW,
            [2, x11rb::CURRENT_TIME, 0, 0, 0],
        )
    }

    /// Sends `WM_TAKE_FOCUS` to a window that takes part in that protocol, as a window
    /// manager would; returns whether the window also wants its focus set for it (its
    /// WM_HINTS input flag, true when absent).
    pub(crate) fn offer_focus(&self, window: Window) -> Result<bool> {
        let prop = |name: Atom, kind: Atom| {
            self.conn
                .get_property(false, window, name, kind, 0, 32)
                .ok()
                .and_then(|c| c.reply().ok())
        };
        let hints = prop(AtomEnum::WM_HINTS.into(), AtomEnum::WM_HINTS.into());
        let input = hints
            .and_then(|h| h.value32().map(|v| v.collect::<Vec<u32>>()))
            .is_none_or(|v| v.first().is_none_or(|flags| flags & 1 == 0) || v.get(1) != Some(&0));
        let protocols = self.atom("WM_PROTOCOLS")?;
        let take_focus = self.atom("WM_TAKE_FOCUS")?;
        let offered = prop(protocols, AtomEnum::ATOM.into())
            .and_then(|p| p.value32().map(|mut v| v.any(|a| a == take_focus)))
            .unwrap_or(false);
        if offered {
            let event = x11rb::protocol::xproto::ClientMessageEvent::new(
                32,
                window,
                protocols,
                [take_focus, x11rb::CURRENT_TIME, 0, 0, 0],
            );
            self.conn
                .send_event(
                    false,
                    window,
                    x11rb::protocol::xproto::EventMask::NO_EVENT,
                    event,
                )
                .map_err(x_err)?;
        }
        Ok(input || !offered)
    }

    /// Interns an atom (used by callers that need one we do not preload).
    pub fn atom(&self, name: &str) -> Result<Atom> {
        Ok(self
            .conn
            .intern_atom(false, name.as_bytes())
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?
            .atom)
    }
}

pub fn no_display() -> Error {
    Error::new(
        ErrorCode::NoDisplay,
        "no X display: DISPLAY is not set and no sandbox is running",
    )
    .suggest("Start a headless desktop (sandbox up), or set DISPLAY")
}

/// Waits until the root window of `display` carries `name` (at-spi-bus-launcher sets
/// `AT_SPI_BUS` once the accessibility bus runs; Qt reads it, not the session bus).
pub async fn wait_for_root_property(
    display: &str,
    cookie: &[u8],
    name: &str,
    deadline: Instant,
) -> Result<()> {
    let x = X::connect_with_cookie(display, cookie)?;
    loop {
        if x.root_string(name)?.is_some() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(Error::new(
                ErrorCode::SandboxFailed,
                format!("the {name} root property never appeared"),
            ));
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
