//! Window operations on X11: asking the window manager through EWMH and ICCCM client
//! messages (`_NET_MOVERESIZE_WINDOW`, `_NET_WM_STATE`, `WM_CHANGE_STATE`,
//! `_NET_ACTIVE_WINDOW`, `_NET_CLOSE_WINDOW`), or configuring the window itself where no
//! window manager runs; and reading back what the window shows afterwards.

use crate::x11::{x_err, X};
use desktop_core::model::WindowState;
use desktop_core::winops::WindowOp;
use desktop_core::{Error, ErrorCode, Rect, Result};
use x11rb::connection::Connection;
use x11rb::cookie::Cookie;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConfigureWindowAux, ConnectionExt as _, EventMask,
    GetPropertyReply, MapState, Window,
};
use x11rb::rust_connection::RustConnection;

/// The replies that say a window's state: `_NET_WM_STATE` and ICCCM's `WM_STATE`.
pub(crate) type StateCookies<'c> = (
    Cookie<'c, RustConnection, GetPropertyReply>,
    Cookie<'c, RustConnection, GetPropertyReply>,
);

/// `WM_STATE`'s iconic state (ICCCM 4.1.3.1), and `WM_CHANGE_STATE`'s request for it.
const ICONIC: u32 = 3;
/// `_NET_WM_STATE` actions.
const REMOVE: u32 = 0;
const ADD: u32 = 1;
/// The request comes from a pager or tool acting for the user (EWMH source indication),
/// which window managers obey more readily than an application's own request.
const SOURCE_TOOL: u32 = 2;
/// `_NET_MOVERESIZE_WINDOW`: coordinates of the client window itself (StaticGravity), so a
/// move places what `list` reports as the window's bounds, whatever the frame.
const STATIC_GRAVITY: u32 = 10;

/// A window as the X server shows it now: where, in which state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    pub bounds: Rect,
    pub state: WindowState,
    pub mapped: bool,
}

impl X {
    /// Asks for a window's state properties (replies read with [`X::state_reply`]).
    pub(crate) fn state_request(&self, w: Window) -> Result<StateCookies<'_>> {
        let a = &self.atoms;
        Ok((
            self.conn
                .get_property(false, w, a._NET_WM_STATE, AtomEnum::ATOM, 0, 64)
                .map_err(x_err)?,
            self.conn
                .get_property(false, w, a.WM_STATE, a.WM_STATE, 0, 2)
                .map_err(x_err)?,
        ))
    }

    /// The state the properties say: minimized (hidden, or ICCCM iconic) before full
    /// screen before maximized (both ways) before normal; and whether it is modal.
    pub(crate) fn state_reply(&self, (net, icccm): StateCookies<'_>) -> (WindowState, bool) {
        let a = &self.atoms;
        let net: Vec<u32> = net
            .reply()
            .ok()
            .and_then(|r| r.value32().map(Iterator::collect))
            .unwrap_or_default();
        let iconic = icccm
            .reply()
            .ok()
            .and_then(|r| r.value32().and_then(|mut v| v.next()))
            == Some(ICONIC);
        let state = if iconic || net.contains(&a._NET_WM_STATE_HIDDEN) {
            WindowState::Minimized
        } else if net.contains(&a._NET_WM_STATE_FULLSCREEN) {
            WindowState::Fullscreen
        } else if net.contains(&a._NET_WM_STATE_MAXIMIZED_VERT)
            && net.contains(&a._NET_WM_STATE_MAXIMIZED_HORZ)
        {
            WindowState::Maximized
        } else {
            WindowState::Normal
        };
        (state, net.contains(&a._NET_WM_STATE_MODAL))
    }

    /// The window now: `None` once it is destroyed.
    pub fn seen(&self, w: Window) -> Result<Option<Seen>> {
        let attrs = self.conn.get_window_attributes(w).map_err(x_err)?;
        let geom = self.conn.get_geometry(w).map_err(x_err)?;
        let pos = self
            .conn
            .translate_coordinates(w, self.root, 0, 0)
            .map_err(x_err)?;
        let state = self.state_request(w)?;
        let (Ok(attrs), Ok(geom), Ok(pos)) = (attrs.reply(), geom.reply(), pos.reply()) else {
            return Ok(None);
        };
        Ok(Some(Seen {
            bounds: Rect::new(
                i32::from(pos.dst_x),
                i32::from(pos.dst_y),
                i32::from(geom.width),
                i32::from(geom.height),
            ),
            state: self.state_reply(state).0,
            mapped: attrs.map_state == MapState::VIEWABLE,
        }))
    }

    /// Sends the request for `op` on the top-level window `w` (nothing is waited for).
    /// Without a window manager, moving, resizing and closing are done with the window
    /// itself; the states need one: `PLATFORM_NOT_SUPPORTED` says so.
    pub fn request(&self, w: Window, op: WindowOp, now: WindowState) -> Result<()> {
        let wm = self.has_wm();
        let a = &self.atoms;
        match op {
            WindowOp::Move { x, y } if wm => self.to_root(
                w,
                a._NET_MOVERESIZE_WINDOW,
                [
                    STATIC_GRAVITY | 1 << 8 | 1 << 9 | SOURCE_TOOL << 12,
                    x as u32,
                    y as u32,
                    0,
                    0,
                ],
            )?,
            WindowOp::Resize { w: width, h } if wm => self.to_root(
                w,
                a._NET_MOVERESIZE_WINDOW,
                [
                    STATIC_GRAVITY | 1 << 10 | 1 << 11 | SOURCE_TOOL << 12,
                    0,
                    0,
                    width as u32,
                    h as u32,
                ],
            )?,
            WindowOp::Move { x, y } => {
                self.conn
                    .configure_window(w, &ConfigureWindowAux::new().x(x).y(y))
                    .map_err(x_err)?;
            }
            WindowOp::Resize { w: width, h } => {
                let aux = ConfigureWindowAux::new()
                    .width(width as u32)
                    .height(h as u32);
                self.conn.configure_window(w, &aux).map_err(x_err)?;
            }
            WindowOp::Close if wm => self.to_root(
                w,
                a._NET_CLOSE_WINDOW,
                [x11rb::CURRENT_TIME, SOURCE_TOOL, 0, 0, 0],
            )?,
            WindowOp::Close => self.delete_window(w)?,
            _ if !wm => return Err(needs_wm(op)),
            WindowOp::Minimize => self.to_root(w, a.WM_CHANGE_STATE, [ICONIC, 0, 0, 0, 0])?,
            WindowOp::Maximize => self.to_root(
                w,
                a._NET_WM_STATE,
                [
                    ADD,
                    a._NET_WM_STATE_MAXIMIZED_VERT,
                    a._NET_WM_STATE_MAXIMIZED_HORZ,
                    SOURCE_TOOL,
                    0,
                ],
            )?,
            WindowOp::Fullscreen => self.to_root(
                w,
                a._NET_WM_STATE,
                [ADD, a._NET_WM_STATE_FULLSCREEN, 0, SOURCE_TOOL, 0],
            )?,
            WindowOp::Restore => {
                if now == WindowState::Minimized {
                    // Activating an iconified window maps it again (EWMH _NET_ACTIVE_WINDOW).
                    self.activate_with_wm(w)?;
                }
                self.to_root(
                    w,
                    a._NET_WM_STATE,
                    [REMOVE, a._NET_WM_STATE_FULLSCREEN, 0, SOURCE_TOOL, 0],
                )?;
                self.to_root(
                    w,
                    a._NET_WM_STATE,
                    [
                        REMOVE,
                        a._NET_WM_STATE_MAXIMIZED_VERT,
                        a._NET_WM_STATE_MAXIMIZED_HORZ,
                        SOURCE_TOOL,
                        0,
                    ],
                )?;
            }
        }
        self.conn.flush().map_err(x_err)?;
        Ok(())
    }

    /// A client message about `w` to the root window, where the window manager listens.
    pub(crate) fn to_root(&self, w: Window, kind: u32, data: [u32; 5]) -> Result<()> {
        let event = ClientMessageEvent::new(32, w, kind, data);
        self.conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                event,
            )
            .map_err(x_err)?;
        Ok(())
    }

    /// ICCCM's close request, sent to the window itself (what a window manager does): only
    /// to a window that takes part in `WM_DELETE_WINDOW`; others could only be killed.
    fn delete_window(&self, w: Window) -> Result<()> {
        let a = &self.atoms;
        let takes = self
            .conn
            .get_property(false, w, a.WM_PROTOCOLS, AtomEnum::ATOM, 0, 32)
            .map_err(x_err)?
            .reply()
            .ok()
            .and_then(|r| r.value32().map(|mut v| v.any(|p| p == a.WM_DELETE_WINDOW)))
            .unwrap_or(false);
        if !takes {
            return Err(Error::new(
                ErrorCode::ActionNotSupported,
                "the window takes no close request (WM_DELETE_WINDOW), and no window manager runs to ask",
            )
            .suggest("Close it from inside the app (its menu or button), or end it with close-app --force"));
        }
        let event = ClientMessageEvent::new(
            32,
            w,
            a.WM_PROTOCOLS,
            [a.WM_DELETE_WINDOW, x11rb::CURRENT_TIME, 0, 0, 0],
        );
        self.conn
            .send_event(false, w, EventMask::NO_EVENT, event)
            .map_err(x_err)?;
        Ok(())
    }
}

/// `PLATFORM_NOT_SUPPORTED` for a state change with no window manager to make it.
fn needs_wm(op: WindowOp) -> Error {
    Error::new(
        ErrorCode::PlatformNotSupported,
        format!(
            "to {} a window needs a window manager, and none runs on this X display",
            op.name()
        ),
    )
    .suggest("Start one (any EWMH window manager; a sandbox starts openbox with sandbox up --wm); move, resize and close work without")
}
