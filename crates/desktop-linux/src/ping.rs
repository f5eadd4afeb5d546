//! Proof that an app has taken the input sent to it: an EWMH `_NET_WM_PING` round trip.
//!
//! X delivers events to a client in order, and GTK, Qt and Chromium answer the ping when
//! they reach it in their event queue, so its answer means every key and button event we
//! sent before it has been read by the app. Chromium's browser process answers only after
//! it has dispatched the earlier events (and forwarded them to the page); GTK answers when
//! it reads the batch, so callers still check the element for the effect they expect.

use crate::x11::{x_err, X};
use desktop_core::Result;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ChangeWindowAttributesAux, ClientMessageEvent, ConnectionExt, EventMask, Window,
};
use x11rb::protocol::Event;

/// How long a window that cannot be pinged is watched for closing after input.
const UNPINGED_LOOK: Duration = Duration::from_millis(150);

/// How a ping ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ping {
    /// The app answered: it has read everything sent before.
    Answered,
    /// The window does not take part in the protocol (no `_NET_WM_PING` in WM_PROTOCOLS).
    Unsupported,
    /// No answer within the time given: the app is busy or hung.
    NoAnswer,
    /// The window went away (destroyed or unmapped) instead of answering: the input
    /// closed it, or quit its app.
    Closed,
}

impl X {
    /// Pings the client owning top-level `window` and waits up to `timeout` for its answer.
    pub fn ping(&self, window: Window, timeout: Duration) -> Result<Ping> {
        let wm_protocols = self.atom("WM_PROTOCOLS")?;
        let net_wm_ping = self.atom("_NET_WM_PING")?;
        let protocols = match self
            .conn
            .get_property(false, window, wm_protocols, AtomEnum::ATOM, 0, 32)
            .map_err(x_err)?
            .reply()
        {
            Ok(p) => p,
            // The window is gone already (a BadWindow error).
            Err(x11rb::errors::ReplyError::X11Error(_)) => return Ok(Ping::Closed),
            Err(e) => return Err(x_err(e)),
        };
        let supported = protocols
            .value32()
            .is_some_and(|mut v| v.any(|a| a == net_wm_ping));
        // The answer is sent to the root window, for SubstructureNotify listeners (GTK,
        // Chromium) or StructureNotify ones (Qt): listen for both, keeping whatever else
        // this connection already listens to.
        let current = self
            .conn
            .get_window_attributes(self.root)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?
            .your_event_mask;
        self.conn
            .change_window_attributes(
                self.root,
                &ChangeWindowAttributesAux::new().event_mask(
                    current | EventMask::SUBSTRUCTURE_NOTIFY | EventMask::STRUCTURE_NOTIFY,
                ),
            )
            .map_err(x_err)?;
        if !supported {
            // No proof of reading can be asked of this window (Java's); a window the
            // input closes is still seen going, within a short look.
            let gone = self.wait_for(UNPINGED_LOOK, |e| match e {
                Event::DestroyNotify(d) => d.window == window,
                Event::UnmapNotify(u) => u.window == window,
                _ => false,
            })?;
            let _ = self.conn.change_window_attributes(
                self.root,
                &ChangeWindowAttributesAux::new().event_mask(current),
            );
            return Ok(if gone || !self.is_viewable(window) {
                Ping::Closed
            } else {
                Ping::Unsupported
            });
        }
        let stamp = ping_stamp();
        let event =
            ClientMessageEvent::new(32, window, wm_protocols, [net_wm_ping, stamp, window, 0, 0]);
        self.conn
            .send_event(false, window, EventMask::NO_EVENT, event)
            .map_err(x_err)?;
        self.conn.flush().map_err(x_err)?;
        let mut closed = false;
        let answered = self.wait_for(timeout, |e| match e {
            Event::ClientMessage(m) if m.type_ == wm_protocols => {
                let d = m.data.as_data32();
                d[0] == net_wm_ping && d[1] == stamp
            }
            Event::DestroyNotify(d) if d.window == window => {
                closed = true;
                true
            }
            Event::UnmapNotify(u) if u.window == window => {
                closed = true;
                true
            }
            _ => false,
        });
        // Stop listening to the root's substructure: nothing else here reads those events.
        let _ = self.conn.change_window_attributes(
            self.root,
            &ChangeWindowAttributesAux::new().event_mask(current),
        );
        Ok(match answered? {
            true if closed => Ping::Closed,
            true => Ping::Answered,
            // Closed without a notice reaching us (it went before we listened).
            false if !self.is_viewable(window) => Ping::Closed,
            false => Ping::NoAnswer,
        })
    }

    /// Whether `window` still exists and is mapped.
    fn is_viewable(&self, window: Window) -> bool {
        let attrs = self
            .conn
            .get_window_attributes(window)
            .ok()
            .and_then(|c| c.reply().ok());
        attrs.is_some_and(|a| a.map_state == x11rb::protocol::xproto::MapState::VIEWABLE)
    }

    /// Reads events until one matches or `timeout` passes.
    fn wait_for(&self, timeout: Duration, mut matches: impl FnMut(&Event) -> bool) -> Result<bool> {
        let deadline = Instant::now() + timeout;
        loop {
            while let Some(e) = self.conn.poll_for_event().map_err(x_err)? {
                if matches(&e) {
                    return Ok(true);
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let fd = self.conn.stream().as_fd();
            let mut fds = [rustix::event::PollFd::new(
                &fd,
                rustix::event::PollFlags::IN,
            )];
            let ts = rustix::event::Timespec {
                tv_sec: left.as_secs() as i64,
                tv_nsec: i64::from(left.subsec_nanos()),
            };
            match rustix::event::poll(&mut fds, Some(&ts)) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(x_err(e)),
            }
        }
    }
}

/// A value no earlier ping of this process used (the timestamp field of the message).
fn ping_stamp() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let base = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    base.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed))
        .max(1)
}
