//! Screen changes for `view`: XDamage on the root window (which counts what every window
//! draws), on a connection and thread of its own, one signal each time the damage becomes
//! non-empty; the damage is emptied at once so the next drawing signals again.

use crate::x11::x_err;
use desktop_core::{Error, ErrorCode, Result};
use std::sync::mpsc::{sync_channel, Receiver, TrySendError};
use x11rb::connection::Connection;
use x11rb::protocol::damage::{ConnectionExt as _, ReportLevel};
use x11rb::protocol::Event;

/// Starts watching; `Err` when the X server has no DAMAGE extension.
pub fn watch() -> Result<Receiver<()>> {
    let display = std::env::var("DISPLAY").map_err(|_| x_err("DISPLAY is not set"))?;
    let (conn, screen) = x11rb::connect(Some(&display)).map_err(x_err)?;
    conn.damage_query_version(1, 1)
        .map_err(x_err)?
        .reply()
        .map_err(|e| {
            Error::new(
                ErrorCode::PlatformNotSupported,
                format!("the X server has no DAMAGE extension: {e}"),
            )
        })?;
    let root = conn.setup().roots[screen].root;
    let damage = conn.generate_id().map_err(x_err)?;
    conn.damage_create(damage, root, ReportLevel::NON_EMPTY)
        .map_err(x_err)?;
    conn.flush().map_err(x_err)?;
    // One pending signal is enough: the viewer captures the screen as it is when it looks.
    let (tx, rx) = sync_channel(1);
    std::thread::Builder::new()
        .name("screen-damage".into())
        .spawn(move || loop {
            let Ok(event) = conn.wait_for_event() else {
                return;
            };
            if let Event::DamageNotify(_) = event {
                let emptied = conn
                    .damage_subtract(damage, x11rb::NONE, x11rb::NONE)
                    .is_ok()
                    && conn.flush().is_ok();
                if !emptied {
                    return;
                }
                if let Err(TrySendError::Disconnected(())) = tx.try_send(()) {
                    return;
                }
            }
        })
        .map_err(|e| Error::internal(format!("cannot start the damage thread: {e}")))?;
    Ok(rx)
}
