//! The clipboard on Wayland through the data-control protocol (`zwlr_data_control_v1`,
//! wlroots and KDE): read without taking it, cleared, or served by a holder process until
//! another client sets it — the same life the X clipboard's holder has.

use super::client::{synced, wl_err, Client, TIMEOUT};
use desktop_core::{Error, ErrorCode, Result};
use std::io::{Read as _, Write as _};
use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};
use wayland_client::protocol::wl_seat;
use wayland_client::{
    delegate_noop, event_created_child, Connection, Dispatch, Proxy, QueueHandle,
};
use wayland_protocols_wlr::data_control::v1::client::{
    zwlr_data_control_device_v1::{self as device, ZwlrDataControlDeviceV1 as Device},
    zwlr_data_control_manager_v1::ZwlrDataControlManagerV1 as Manager,
    zwlr_data_control_offer_v1::{self as offer, ZwlrDataControlOfferV1 as Offer},
    zwlr_data_control_source_v1::{self as source, ZwlrDataControlSourceV1 as Source},
};

pub const GLOBAL: &str = "zwlr_data_control_manager_v1";

/// The text types offered and asked for, best first.
const TEXT_TYPES: [&str; 4] = [
    "text/plain;charset=utf-8",
    "UTF8_STRING",
    "text/plain",
    "STRING",
];

#[derive(Default)]
struct Clip {
    /// Offers announced, with their types, by protocol id.
    offers: Vec<(Offer, Vec<String>)>,
    /// The clipboard's selection: `Some(None)` once told it is empty.
    selection: Option<Option<Offer>>,
    /// What a holder serves, and whether another client took the clipboard from it.
    text: String,
    cancelled: bool,
    failed: Option<String>,
}

delegate_noop!(Clip: ignore wl_seat::WlSeat);
delegate_noop!(Clip: Manager);
synced!(Clip);

impl Dispatch<Device, ()> for Clip {
    fn event(
        s: &mut Self,
        _: &Device,
        e: device::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match e {
            device::Event::DataOffer { id } => s.offers.push((id, Vec::new())),
            device::Event::Selection { id } => s.selection = Some(id),
            device::Event::Finished => s.failed = Some("the data device was withdrawn".into()),
            _ => {}
        }
    }

    event_created_child!(Clip, Device, [
        device::EVT_DATA_OFFER_OPCODE => (Offer, ()),
    ]);
}

impl Dispatch<Offer, ()> for Clip {
    fn event(
        s: &mut Self,
        o: &Offer,
        e: offer::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let offer::Event::Offer { mime_type } = e {
            if let Some((_, types)) = s.offers.iter_mut().find(|(x, _)| x.id() == o.id()) {
                types.push(mime_type);
            }
        }
    }
}

impl Dispatch<Source, ()> for Clip {
    fn event(
        s: &mut Self,
        _: &Source,
        e: source::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match e {
            source::Event::Send { fd, .. } => {
                // Written whole and closed: the reader takes EOF as the end of the text.
                let mut f = std::fs::File::from(fd);
                let _ = f.write_all(s.text.as_bytes());
            }
            source::Event::Cancelled => s.cancelled = true,
            _ => {}
        }
    }
}

struct Session {
    queue: wayland_client::EventQueue<Clip>,
    state: Clip,
    manager: Manager,
    device: Device,
}

fn open(client: &Client) -> Result<Session> {
    let mut queue = client.conn.new_event_queue::<Clip>();
    let qh = queue.handle();
    let manager: Manager = client.bind(&qh, 2).ok_or_else(|| {
        super::lacks(
            "the clipboard",
            "data-control (zwlr_data_control_manager_v1)",
        )
    })?;
    let seat: wl_seat::WlSeat = client
        .seat(&qh)
        .ok_or_else(|| super::lacks("the clipboard", "seat"))?;
    let device = manager.get_data_device(&seat, &qh, ());
    let mut state = Clip::default();
    // The device tells the current selection right away.
    client.wait(&mut queue, &mut state, TIMEOUT, |s| s.selection.is_some())?;
    Ok(Session {
        queue,
        state,
        manager,
        device,
    })
}

/// The clipboard's text, `None` when it is empty or holds no text.
pub fn get(client: &Client, timeout: Duration) -> Result<Option<String>> {
    let mut s = open(client)?;
    let Some(Some(current)) = s.state.selection.clone() else {
        return Ok(None);
    };
    let types = s
        .state
        .offers
        .iter()
        .find(|(o, _)| o.id() == current.id())
        .map(|(_, t)| t.clone())
        .unwrap_or_default();
    let Some(mime) = TEXT_TYPES.iter().find(|t| types.iter().any(|x| x == *t)) else {
        return Ok(None);
    };
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .map_err(|e| wl_err("cannot make a pipe", e))?;
    current.receive(mime.to_string(), write.as_fd());
    drop(write);
    client.sync(&mut s.queue, &mut s.state)?;
    let bytes = read_all(read, timeout)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Reads the owner's answer until it closes the pipe, within `timeout`.
fn read_all(fd: OwnedFd, timeout: Duration) -> Result<Vec<u8>> {
    let deadline = Instant::now() + timeout;
    let mut file = std::fs::File::from(fd);
    let mut out = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::new(
                ErrorCode::Timeout,
                "the clipboard's owner did not hand over its text in time",
            )
            .suggest("The app holding the clipboard is busy or hung; retry"));
        }
        if !super::client::readable(&file, left) {
            continue;
        }
        match file.read(&mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(wl_err("cannot read the clipboard", e)),
        }
    }
}

/// Empties the clipboard.
pub fn clear(client: &Client) -> Result<()> {
    let mut s = open(client)?;
    s.device.set_selection(None);
    client.sync(&mut s.queue, &mut s.state)
}

/// Owns the clipboard with `text` and answers requests until another client takes it (or
/// the compositor goes away). Calls `ready` once the compositor has taken the offer.
pub fn serve(client: &Client, text: &str, ready: impl FnOnce()) -> Result<()> {
    let mut s = open(client)?;
    let qh = s.queue.handle();
    let src = s.manager.create_data_source(&qh, ());
    for t in TEXT_TYPES {
        src.offer(t.to_string());
    }
    s.state.text = text.to_string();
    s.device.set_selection(Some(&src));
    client.sync(&mut s.queue, &mut s.state)?;
    ready();
    loop {
        match client.wait(&mut s.queue, &mut s.state, Duration::from_secs(3600), |c| {
            c.cancelled || c.failed.is_some()
        }) {
            Ok(()) => break,
            Err(e) if e.code == ErrorCode::Timeout => continue,
            Err(e) => return Err(e),
        }
    }
    src.destroy();
    Ok(())
}
