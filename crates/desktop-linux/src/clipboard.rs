//! The X11 CLIPBOARD selection, as text. Reading asks the owner to convert it (and never
//! takes ownership, so nothing the user copied is lost). Setting needs an owner that keeps
//! answering after the command exits: a small background process (`serve`) holds the
//! selection until another client takes it.

use crate::x11::{x_err, X};
use desktop_core::{Error, ErrorCode, Result};
use std::time::{Duration, Instant};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ConnectionExt, CreateWindowAux, EventMask, PropMode, Property,
    SelectionNotifyEvent, Window, WindowClass, SELECTION_NOTIFY_EVENT,
};
use x11rb::protocol::Event;
use x11rb::wrapper::ConnectionExt as _;

struct Atoms {
    clipboard: Atom,
    utf8: Atom,
    targets: Atom,
    incr: Atom,
    text: Atom,
    prop: Atom,
}

fn atoms(x: &X) -> Result<Atoms> {
    Ok(Atoms {
        clipboard: x.atom("CLIPBOARD")?,
        utf8: x.atom("UTF8_STRING")?,
        targets: x.atom("TARGETS")?,
        incr: x.atom("INCR")?,
        text: x.atom("TEXT")?,
        prop: x.atom("DESKTOP_CLI_SELECTION")?,
    })
}

/// An unmapped window to own or receive a selection with.
fn helper_window(x: &X) -> Result<Window> {
    let win = x.conn.generate_id().map_err(x_err)?;
    x.conn
        .create_window(
            0,
            win,
            x.root,
            -10,
            -10,
            1,
            1,
            0,
            WindowClass::INPUT_ONLY,
            0,
            &CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE),
        )
        .map_err(x_err)?;
    Ok(win)
}

fn timed_out(what: &str) -> Error {
    Error::new(
        ErrorCode::Timeout,
        format!("the clipboard owner did not answer ({what})"),
    )
    .suggest("The app holding the clipboard is busy or hung; try again")
}

/// Waits for the next event matching `want`, up to `deadline`.
fn next_event(
    x: &X,
    deadline: Instant,
    mut want: impl FnMut(&Event) -> bool,
) -> Result<Option<Event>> {
    loop {
        while let Some(ev) = x.conn.poll_for_event().map_err(x_err)? {
            if want(&ev) {
                return Ok(Some(ev));
            }
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The clipboard's text, or `None` when nobody owns the clipboard.
pub fn get(x: &X, timeout: Duration) -> Result<Option<String>> {
    let a = atoms(x)?;
    let owner = x
        .conn
        .get_selection_owner(a.clipboard)
        .map_err(x_err)?
        .reply()
        .map_err(x_err)?
        .owner;
    if owner == x11rb::NONE {
        return Ok(None);
    }
    let win = helper_window(x)?;
    let result = (|| {
        for target in [a.utf8, AtomEnum::STRING.into()] {
            x.conn
                .convert_selection(win, a.clipboard, target, a.prop, x11rb::CURRENT_TIME)
                .map_err(x_err)?;
            x.conn.flush().map_err(x_err)?;
            let deadline = Instant::now() + timeout;
            let ev = next_event(
                x,
                deadline,
                |e| matches!(e, Event::SelectionNotify(n) if n.requestor == win),
            )?
            .ok_or_else(|| timed_out("no reply to the conversion"))?;
            let Event::SelectionNotify(n) = ev else {
                continue;
            };
            if n.property == x11rb::NONE {
                continue; // this target is refused: try the next
            }
            return read_property(x, win, &a, deadline + timeout).map(Some);
        }
        Ok(Some(String::new()))
    })();
    let _ = x.conn.destroy_window(win);
    let _ = x.conn.flush();
    result
}

/// Reads (and deletes) the transferred property, following the INCR protocol for big ones.
fn read_property(x: &X, win: Window, a: &Atoms, deadline: Instant) -> Result<String> {
    let reply = x
        .conn
        .get_property(true, win, a.prop, AtomEnum::ANY, 0, u32::MAX / 4)
        .map_err(x_err)?
        .reply()
        .map_err(x_err)?;
    if reply.type_ != a.incr {
        return Ok(String::from_utf8_lossy(&reply.value).into_owned());
    }
    // INCR: the owner sends chunks, each announced by a new value of the property.
    let mut data = Vec::new();
    loop {
        next_event(x, deadline, |e| {
            matches!(e, Event::PropertyNotify(p) if p.window == win && p.atom == a.prop && p.state == Property::NEW_VALUE)
        })?
        .ok_or_else(|| timed_out("a large transfer stalled"))?;
        let chunk = x
            .conn
            .get_property(true, win, a.prop, AtomEnum::ANY, 0, u32::MAX / 4)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        if chunk.value.is_empty() {
            return Ok(String::from_utf8_lossy(&data).into_owned());
        }
        data.extend_from_slice(&chunk.value);
    }
}

/// Takes the clipboard and lets it go: afterwards nobody owns it.
pub fn clear(x: &X) -> Result<()> {
    let a = atoms(x)?;
    let win = helper_window(x)?;
    x.conn
        .set_selection_owner(win, a.clipboard, x11rb::CURRENT_TIME)
        .map_err(x_err)?;
    x.conn
        .set_selection_owner(x11rb::NONE, a.clipboard, x11rb::CURRENT_TIME)
        .map_err(x_err)?;
    x.conn.destroy_window(win).map_err(x_err)?;
    x.sync()
}

/// Owns the clipboard with `text` and answers requests until another client takes it
/// (or the X server goes away). Calls `ready` once ownership is confirmed.
pub fn serve(x: &X, text: &str, ready: impl FnOnce()) -> Result<()> {
    let a = atoms(x)?;
    let win = helper_window(x)?;
    x.conn
        .set_selection_owner(win, a.clipboard, x11rb::CURRENT_TIME)
        .map_err(x_err)?;
    let owner = x
        .conn
        .get_selection_owner(a.clipboard)
        .map_err(x_err)?
        .reply()
        .map_err(x_err)?
        .owner;
    if owner != win {
        return Err(Error::new(
            ErrorCode::ActionFailed,
            "could not take the clipboard",
        ));
    }
    ready();
    let max = x.conn.maximum_request_bytes().saturating_sub(64);
    loop {
        let ev = x.conn.wait_for_event().map_err(x_err)?;
        match ev {
            Event::SelectionClear(c) if c.selection == a.clipboard => return Ok(()),
            Event::SelectionRequest(r) if r.selection == a.clipboard => {
                // Old clients send property None: use the target as the property then.
                let property = if r.property == x11rb::NONE {
                    r.target
                } else {
                    r.property
                };
                let answered = if r.target == a.targets {
                    let list = [a.targets, a.utf8, a.text, AtomEnum::STRING.into()];
                    x.conn
                        .change_property32(
                            PropMode::REPLACE,
                            r.requestor,
                            property,
                            AtomEnum::ATOM,
                            &list,
                        )
                        .is_ok()
                } else if (r.target == a.utf8
                    || r.target == a.text
                    || r.target == u32::from(AtomEnum::STRING))
                    && text.len() <= max
                {
                    let kind = if r.target == u32::from(AtomEnum::STRING) {
                        AtomEnum::STRING.into()
                    } else {
                        a.utf8
                    };
                    x.conn
                        .change_property8(
                            PropMode::REPLACE,
                            r.requestor,
                            property,
                            kind,
                            text.as_bytes(),
                        )
                        .is_ok()
                } else {
                    false
                };
                let notify = SelectionNotifyEvent {
                    response_type: SELECTION_NOTIFY_EVENT,
                    sequence: 0,
                    time: r.time,
                    requestor: r.requestor,
                    selection: r.selection,
                    target: r.target,
                    property: if answered { property } else { x11rb::NONE },
                };
                let _ = x
                    .conn
                    .send_event(false, r.requestor, EventMask::NO_EVENT, notify);
                let _ = x.conn.flush();
            }
            _ => {}
        }
    }
}

/// Puts `text` on the clipboard and keeps it there after this process exits: `holder` (this
/// program's hidden clipboard-serve command) is started in the background — in the
/// sandbox's process group when one is in use, so stopping the sandbox ends it — given the
/// text on stdin, and awaited until it owns the clipboard.
pub fn hand_over(text: &str, mut holder: std::process::Command, timeout: Duration) -> Result<()> {
    use std::io::{Read as _, Write as _};
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    // The display must be there before a holder is started for it.
    if crate::is_wayland() {
        crate::wayland::Client::connect()?;
    } else {
        X::connect()?;
    }
    holder
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let spawned = match crate::sandbox::in_use() {
        Some(sb) => sb.spawn(&mut holder),
        None => holder.process_group(0).spawn(),
    };
    let mut child =
        spawned.map_err(|e| Error::internal(format!("cannot start the clipboard holder: {e}")))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| Error::internal(e.to_string()))?;
    }
    let mut stdout = child
        .stdout
        .take()
        .ok_or_else(|| Error::internal("no pipe from the clipboard holder"))?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 6];
        let ok = stdout.read_exact(&mut buf).is_ok() && &buf == b"ready\n";
        let _ = tx.send(ok);
    });
    match rx.recv_timeout(timeout) {
        Ok(true) => Ok(()),
        _ => {
            let _ = child.kill();
            Err(
                Error::new(ErrorCode::ActionFailed, "the clipboard could not be taken")
                    .suggest("Check the display with the doctor command"),
            )
        }
    }
}
