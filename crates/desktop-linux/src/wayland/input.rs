//! Input on wlroots compositors: a virtual keyboard (`zwp_virtual_keyboard_v1`) carrying a
//! keymap made for the keys about to be sent, and a virtual pointer
//! (`zwlr_virtual_pointer_v1`) placed in absolute layout coordinates. Every burst ends
//! with a round trip, so the compositor has handled it before we look for its effect.

use super::client::{synced, wl_err, Client};
use super::keymap::{capacity, mask_of, Keymap, SHIFT};
use desktop_core::request::{Button, Direction};
use desktop_core::{Rect, Result};
use std::io::Write as _;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};
use wayland_client::protocol::{wl_pointer, wl_seat};
use wayland_client::{delegate_noop, EventQueue};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1 as KeyboardManager,
    zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1 as VKeyboard,
};
use wayland_protocols_wlr::virtual_pointer::v1::client::{
    zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1 as PointerManager,
    zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1 as VPointer,
};

/// The protocols' global names, for `doctor` and for saying what is missing.
/// Shift_L's keysym, for callers holding it around a key.
pub const SHIFT_KEY: u32 = SHIFT;
pub const KEYBOARD_GLOBAL: &str = "zwp_virtual_keyboard_manager_v1";
pub const POINTER_GLOBAL: &str = "zwlr_virtual_pointer_manager_v1";

/// Linux's button codes (`linux/input-event-codes.h`).
fn code(b: Button) -> u32 {
    match b {
        Button::Left => 0x110,
        Button::Right => 0x111,
        Button::Middle => 0x112,
    }
}

/// What the devices' queue hears: nothing but round trips.
pub struct Devs;
delegate_noop!(Devs: ignore wl_seat::WlSeat);
delegate_noop!(Devs: KeyboardManager);
delegate_noop!(Devs: ignore VKeyboard);
delegate_noop!(Devs: PointerManager);
delegate_noop!(Devs: ignore VPointer);
synced!(Devs);

/// The virtual keyboard and pointer of this process.
pub struct Devices {
    queue: EventQueue<Devs>,
    keyboard: Option<VKeyboard>,
    pointer: Option<VPointer>,
    keymap: Option<Keymap>,
    /// Modifiers held now (their mask).
    held: u32,
    /// Whether the compositor has made this keyboard the seat's and clients had time to
    /// load its keymap.
    announced: bool,
    epoch: Instant,
}

impl Devices {
    /// Creates whichever of the two devices the compositor offers.
    pub fn new(client: &Client) -> Result<Devices> {
        let queue = client.conn.new_event_queue::<Devs>();
        let qh = queue.handle();
        let seat: Option<wl_seat::WlSeat> = client.seat(&qh);
        let keyboard = match (&seat, client.bind::<KeyboardManager, _>(&qh, 1)) {
            (Some(seat), Some(m)) => Some(m.create_virtual_keyboard(seat, &qh, ())),
            _ => None,
        };
        let pointer = client
            .bind::<PointerManager, _>(&qh, 1)
            .map(|m| m.create_virtual_pointer(seat.as_ref(), &qh, ()));
        let mut d = Devices {
            queue,
            keyboard,
            pointer,
            keymap: None,
            held: 0,
            announced: false,
            epoch: Instant::now(),
        };
        if d.keyboard.is_some() {
            d.upload(Keymap::new(&[]))?;
        }
        d.roundtrip(client)?;
        Ok(d)
    }

    fn now(&self) -> u32 {
        self.epoch.elapsed().as_millis() as u32
    }

    /// Keeps the devices until the connection ends (the seat holder's life).
    pub fn hold(&mut self, client: &Client) -> Result<()> {
        loop {
            match client.wait(
                &mut self.queue,
                &mut Devs,
                Duration::from_secs(3600),
                |_| false,
            ) {
                Err(e) if e.code == desktop_core::ErrorCode::Timeout => continue,
                Err(_) => return Ok(()),
                Ok(()) => {}
            }
        }
    }

    /// Waits until the compositor has handled everything sent.
    pub fn roundtrip(&mut self, client: &Client) -> Result<()> {
        client.sync(&mut self.queue, &mut Devs)
    }

    fn vpointer(&self) -> Result<&VPointer> {
        self.pointer.as_ref().ok_or_else(|| {
            super::lacks("pointer input", "virtual pointer (zwlr_virtual_pointer_v1)")
        })
    }

    fn vkeyboard(&self) -> Result<&VKeyboard> {
        self.keyboard.as_ref().ok_or_else(|| {
            super::lacks(
                "keyboard input",
                "virtual keyboard (zwp_virtual_keyboard_v1)",
            )
        })
    }

    /// Moves the pointer to `(x, y)` of the layout whose box is `screen`.
    pub fn move_to(&mut self, screen: Rect, x: i32, y: i32) -> Result<()> {
        let t = self.now();
        let p = self.vpointer()?;
        let rx = (x - screen.x).clamp(0, screen.w.max(1) - 1) as u32;
        let ry = (y - screen.y).clamp(0, screen.h.max(1) - 1) as u32;
        p.motion_absolute(t, rx, ry, screen.w.max(1) as u32, screen.h.max(1) as u32);
        p.frame();
        Ok(())
    }

    pub fn button(&mut self, b: Button, down: bool) -> Result<()> {
        let t = self.now();
        let p = self.vpointer()?;
        let state = if down {
            wl_pointer::ButtonState::Pressed
        } else {
            wl_pointer::ButtonState::Released
        };
        p.button(t, code(b), state);
        p.frame();
        Ok(())
    }

    /// One wheel notch per `amount`, as a mouse wheel sends them.
    pub fn wheel(&mut self, direction: Direction, amount: u32) -> Result<()> {
        let (axis, sign) = match direction {
            Direction::Up => (wl_pointer::Axis::VerticalScroll, -1),
            Direction::Down => (wl_pointer::Axis::VerticalScroll, 1),
            Direction::Left => (wl_pointer::Axis::HorizontalScroll, -1),
            Direction::Right => (wl_pointer::Axis::HorizontalScroll, 1),
        };
        for _ in 0..amount {
            let t = self.now();
            let p = self.vpointer()?;
            p.axis_source(wl_pointer::AxisSource::Wheel);
            p.axis_discrete(t, axis, f64::from(15 * sign), sign);
            p.frame();
        }
        Ok(())
    }

    /// Makes sure the keymap has every one of `keysyms`, uploading a new one if not (the
    /// base layout and as many others as fit: callers send longer texts in parts), then
    /// pausing while clients load it.
    pub fn ensure_keys(&mut self, client: &Client, keysyms: &[u32]) -> Result<()> {
        if !self.announced {
            // A new keyboard becomes the seat's at its first event, and its keymap goes to
            // the focused client then: a modifiers event does that without a key. The map
            // is the base layout the seat holder's keyboard has too, so keys that come while
            // a client loads it are read the same either way: no pause.
            self.vkeyboard()?.modifiers(0, 0, 0, 0);
            self.roundtrip(client)?;
            self.announced = true;
        }
        if self.keymap.as_ref().is_some_and(|k| k.has_all(keysyms)) {
            return Ok(());
        }
        self.upload(Keymap::new(keysyms))?;
        self.roundtrip(client)?;
        std::thread::sleep(REMAP_SETTLE);
        Ok(())
    }

    fn upload(&mut self, map: Keymap) -> Result<()> {
        let mut file = memfd()?;
        file.write_all(map.text.as_bytes())
            .and_then(|()| file.write_all(&[0]))
            .map_err(|e| wl_err("cannot write the keymap", e))?;
        let size = map.text.len() as u32 + 1;
        // XKB_V1 = 1.
        self.vkeyboard()?.keymap(1, file.as_fd(), size);
        self.keymap = Some(map);
        Ok(())
    }

    /// Presses or releases the key of `keysym` (in the keymap: `ensure_keys` first).
    pub fn key(&mut self, keysym: u32, down: bool) -> Result<()> {
        let code = self.position(keysym)?.code;
        let t = self.now();
        let mask = mask_of(keysym);
        if mask != 0 {
            self.held = if down {
                self.held | mask
            } else {
                self.held & !mask
            };
        }
        let kb = self.vkeyboard()?;
        kb.key(t, code, u32::from(down));
        if mask != 0 {
            kb.modifiers(self.held, 0, 0, 0);
        }
        Ok(())
    }

    fn position(&self, keysym: u32) -> Result<super::keymap::At> {
        self.keymap
            .as_ref()
            .and_then(|k| k.at(keysym))
            .ok_or_else(|| {
                wl_err(
                    "cannot type",
                    format!("keysym {keysym:#x} is not in the keymap"),
                )
            })
    }

    /// Whether typing `keysym` takes Shift that is not held now.
    pub fn needs_shift(&self, keysym: u32) -> Result<bool> {
        Ok(self.position(keysym)?.shift && self.held & mask_of(SHIFT) == 0)
    }

    /// Presses and releases the key of `keysym`, with Shift around it where its level
    /// needs it (as a typist does).
    pub fn tap(&mut self, keysym: u32) -> Result<()> {
        let shift = self.needs_shift(keysym)?;
        if shift {
            self.key(SHIFT, true)?;
        }
        self.key(keysym, true)?;
        self.key(keysym, false)?;
        if shift {
            self.key(SHIFT, false)?;
        }
        Ok(())
    }

    /// Types `keysyms` one key each, in parts that fit a keymap, `delay` after each.
    pub fn type_keysyms(
        &mut self,
        client: &Client,
        keysyms: &[u32],
        delay: Duration,
    ) -> Result<()> {
        let base = Keymap::new(&[]);
        let room = capacity();
        let mut start = 0;
        while start < keysyms.len() {
            let mut part: Vec<u32> = Vec::new();
            let mut extra = 0;
            let mut end = start;
            while end < keysyms.len() {
                let k = keysyms[end];
                if !part.contains(&k) {
                    if base.at(k).is_none() {
                        if extra == room {
                            break;
                        }
                        extra += 1;
                    }
                    part.push(k);
                }
                end += 1;
            }
            self.ensure_keys(client, &part)?;
            for &k in &keysyms[start..end] {
                // A stop asked for (a signal to this process) ends the typing between keys.
                if desktop_core::stop::requested() {
                    self.roundtrip(client)?;
                    return Err(desktop_core::stop::interrupted());
                }
                self.tap(k)?;
                if !delay.is_zero() {
                    self.roundtrip(client)?;
                    std::thread::sleep(delay);
                }
            }
            start = end;
        }
        self.roundtrip(client)
    }
}

/// Time for clients to load a changed keymap before keys that need it arrive (Chromium
/// loads it on another thread and translates keys meanwhile with the map it had).
const REMAP_SETTLE: Duration = Duration::from_millis(50);

/// An anonymous in-memory file the compositor maps (the keymap).
fn memfd() -> Result<std::fs::File> {
    let fd = rustix::fs::memfd_create("desktop-cli-keymap", rustix::fs::MemfdFlags::CLOEXEC)
        .map_err(|e| wl_err("cannot make the keymap's file", e))?;
    Ok(std::fs::File::from(fd))
}
