//! The window system's side of acting, whichever it is: pointer and keys, raising and
//! focusing windows, what shows at a point. X11 (XTest, the X server's own answers) or a
//! Wayland compositor (virtual devices, the compositor's window list); the acting code
//! above is the same for both.

use crate::input::{keysym_for_char, modifier_keysym, named_keysym, XKeyboard};
use crate::wayland::Wl;
use crate::x11::{XWindow, X};
use desktop_core::keys::{Combo, Key, Modifier};
use desktop_core::request::{Button, Direction};
use desktop_core::{Error, ErrorCode, Rect, Result};
use std::time::Duration;

/// How long a drag holds still after its press and before its release, as a hand does:
/// with press, moves and release back to back (about 100 ms in all), jQuery UI's sortable
/// in Debian 13's Chromium left the list as it was in two of about eight runs of the bed's
/// widget suite.
pub(crate) const DRAG_HOLD: Duration = Duration::from_millis(40);

/// Where input goes.
#[derive(Clone, Copy)]
pub(crate) enum Seat<'a> {
    X(&'a X),
    Wayland(&'a Wl),
}

/// How long a pressed combo's key is held (as on X11).
const KEY_HOLD: Duration = Duration::from_millis(15);

impl<'a> Seat<'a> {
    pub fn screen(&self) -> Rect {
        match self {
            Seat::X(x) => x.screen,
            Seat::Wayland(w) => w.screen(),
        }
    }

    /// Fails with OFF_SCREEN when a point lies outside the screen.
    pub fn check_on_screen(&self, x: i32, y: i32) -> Result<()> {
        match self {
            Seat::X(xc) => xc.check_on_screen(x, y),
            Seat::Wayland(_) => {
                let s = self.screen();
                if s.contains_point(x, y) {
                    return Ok(());
                }
                Err(Error::new(
                    ErrorCode::OffScreen,
                    format!(
                        "({x},{y}) is outside the screen ({},{} to {},{})",
                        s.x,
                        s.y,
                        s.x + s.w - 1,
                        s.y + s.h - 1
                    ),
                )
                .suggest(
                    "Use coordinates inside the screen; listing the windows shows their bounds",
                ))
            }
        }
    }

    /// The center of `r`, refusing rectangles that are not on screen.
    pub fn click_point(&self, r: Rect) -> Result<(i32, i32)> {
        let (x, y) = r.center();
        self.check_on_screen(x, y).map_err(|e| {
            Error::new(
                ErrorCode::NotInteractable,
                format!("the element's center ({x},{y}) is off screen"),
            )
            .suggest("Scroll it into view first")
            .detail(e.message)
        })?;
        Ok((x, y))
    }

    pub fn move_pointer(&self, x: i32, y: i32) -> Result<()> {
        match self {
            Seat::X(xc) => xc.move_pointer(x, y),
            Seat::Wayland(w) => {
                self.check_on_screen(x, y)?;
                let screen = self.screen();
                w.with_devices(|d, c| {
                    d.move_to(screen, x, y)?;
                    d.roundtrip(c)
                })
            }
        }
    }

    /// Clicks `count` times at a point.
    pub fn click(&self, x: i32, y: i32, button: Button, count: u32) -> Result<()> {
        match self {
            Seat::X(xc) => xc.click(x, y, button, count),
            Seat::Wayland(w) => {
                self.check_on_screen(x, y)?;
                let screen = self.screen();
                w.with_devices(|d, c| {
                    d.move_to(screen, x, y)?;
                    for _ in 0..count.max(1) {
                        d.button(button, true)?;
                        d.button(button, false)?;
                    }
                    d.roundtrip(c)
                })
            }
        }
    }

    /// Turns the wheel `amount` notches at a point.
    pub fn scroll(&self, x: i32, y: i32, direction: Direction, amount: u32) -> Result<()> {
        match self {
            Seat::X(xc) => xc.scroll(x, y, direction, amount),
            Seat::Wayland(w) => {
                self.check_on_screen(x, y)?;
                let screen = self.screen();
                w.with_devices(|d, c| {
                    d.move_to(screen, x, y)?;
                    d.wheel(direction, amount)?;
                    d.roundtrip(c)
                })
            }
        }
    }

    /// Presses at `from`, moves in steps to `to`, releases, pausing as a hand does after
    /// the press and before the release ([`DRAG_HOLD`]).
    pub async fn drag(&self, from: (i32, i32), to: (i32, i32), button: Button) -> Result<()> {
        let w = match self {
            Seat::X(xc) => return xc.drag(from, to, button).await,
            Seat::Wayland(w) => w,
        };
        self.check_on_screen(to.0, to.1)?;
        self.check_on_screen(from.0, from.1)?;
        let screen = self.screen();
        w.with_devices(|d, c| {
            d.move_to(screen, from.0, from.1)?;
            d.button(button, true)?;
            d.roundtrip(c)
        })?;
        // Up again however the drag ends: an error, or given up at one of its waits.
        let held = HeldButton::new(*self, button);
        tokio::time::sleep(DRAG_HOLD).await;
        const STEPS: i32 = 12;
        for i in 1..=STEPS {
            let x = from.0 + (to.0 - from.0) * i / STEPS;
            let y = from.1 + (to.1 - from.1) * i / STEPS;
            w.with_devices(|d, c| {
                d.move_to(screen, x, y)?;
                d.roundtrip(c)
            })?;
            tokio::time::sleep(Duration::from_millis(8)).await;
        }
        tokio::time::sleep(DRAG_HOLD).await;
        held.release()
    }

    /// Raises a top-level window and gives it the keyboard focus.
    pub fn raise_and_focus(&self, window: u32) -> Result<()> {
        match self {
            Seat::X(x) => x.raise_and_focus(window),
            Seat::Wayland(w) => w.raise_and_focus(window),
        }
    }

    /// Puts a window above the others (on Wayland the compositor also focuses it).
    pub fn raise(&self, window: u32) -> Result<()> {
        match self {
            Seat::X(x) => x.raise(window),
            Seat::Wayland(w) => w.raise_and_focus(window),
        }
    }

    /// Whether other windows hide `window` wholly (X11 only: a tiling compositor shows
    /// every window of the workspace).
    pub fn covered(&self, window: u32) -> bool {
        match self {
            Seat::X(x) => x.covered(window),
            Seat::Wayland(_) => false,
        }
    }

    /// The top-level window holding `window` (its frame on X11; itself on Wayland).
    pub fn frame_of(&self, window: u32) -> u32 {
        match self {
            Seat::X(x) => x.frame_of(window),
            Seat::Wayland(_) => window,
        }
    }

    /// The top-level window showing at a point (what a click there would hit).
    pub fn top_level_at(&self, x: i32, y: i32) -> Option<u32> {
        match self {
            Seat::X(xc) => xc.top_level_at(x, y),
            Seat::Wayland(w) => {
                let tops = w.windows().ok()?;
                // Bottom first: the last holding the point is on top.
                tops.iter()
                    .rev()
                    .find(|t| {
                        !matches!(t.state, desktop_core::model::WindowState::Minimized)
                            && t.bounds.contains_point(x, y)
                    })
                    .map(|t| t.id)
            }
        }
    }

    pub fn windows(&self) -> Result<Vec<XWindow>> {
        match self {
            Seat::X(x) => x.windows(),
            Seat::Wayland(w) => w.windows(),
        }
    }

    pub fn focused(&self, tops: &[XWindow]) -> Option<u32> {
        match self {
            Seat::X(x) => x.focused(tops),
            Seat::Wayland(w) => w.focused(tops),
        }
    }

    /// Waits until the window system has handled everything sent.
    pub fn sync(&self) -> Result<()> {
        match self {
            Seat::X(x) => x.sync(),
            Seat::Wayland(w) => w.with_devices(|d, c| d.roundtrip(c)),
        }
    }
}

/// A pointer button pressed by a drag: released by [`HeldButton::release`], or when dropped
/// (the drag ended by an error, or given up at one of its waits).
pub(crate) struct HeldButton<'a> {
    seat: Seat<'a>,
    button: Button,
}

impl<'a> HeldButton<'a> {
    /// Takes charge of `button`, already pressed on `seat`.
    pub fn new(seat: Seat<'a>, button: Button) -> Self {
        Self { seat, button }
    }

    fn up(&self) -> Result<()> {
        match self.seat {
            Seat::X(x) => x.button_up(self.button),
            Seat::Wayland(w) => w.with_devices(|d, c| {
                d.button(self.button, false)?;
                d.roundtrip(c)
            }),
        }
    }

    /// Releases the button, saying whether that worked.
    pub fn release(self) -> Result<()> {
        let r = self.up();
        std::mem::forget(self);
        r
    }
}

impl Drop for HeldButton<'_> {
    fn drop(&mut self) {
        let _ = self.up();
    }
}

/// The keyboard of a seat: XTest with keys bound for the moment on X11, a virtual keyboard
/// with its own keymap on Wayland.
pub(crate) enum Keyboard<'a> {
    X(XKeyboard<'a>),
    Wayland(&'a Wl),
}

impl<'a> Keyboard<'a> {
    pub fn new(seat: Seat<'a>) -> Result<Keyboard<'a>> {
        Ok(match seat {
            Seat::X(x) => Keyboard::X(XKeyboard::new(x)?),
            Seat::Wayland(w) => Keyboard::Wayland(w),
        })
    }

    /// Types `text` with `delay` between keys, waiting on the runtime's timer rather than
    /// holding the thread: a process serving other commands meanwhile (the keeper, the MCP
    /// server) answers them while a slow typing goes on, and the typing can be given up at
    /// any wait (no key is down then). Stops between keys when asked ([`desktop_core::stop`]).
    pub async fn type_paced(&mut self, text: &str, delay: Duration) -> Result<()> {
        if delay.is_zero() {
            return self.type_text(text, delay);
        }
        let mut buf = [0u8; 4];
        for (i, c) in text.chars().filter(|c| *c != '\r').enumerate() {
            if i > 0 {
                tokio::time::sleep(delay).await;
            }
            if desktop_core::stop::requested() {
                return Err(desktop_core::stop::interrupted());
            }
            self.type_text(c.encode_utf8(&mut buf), Duration::ZERO)?;
        }
        Ok(())
    }

    /// Types `text` character by character, `delay` after each, holding the thread.
    pub fn type_text(&mut self, text: &str, delay: Duration) -> Result<()> {
        match self {
            Keyboard::X(k) => k.type_text(text, delay),
            Keyboard::Wayland(w) => {
                let syms: Vec<u32> = text
                    .chars()
                    .filter(|c| *c != '\r')
                    .map(keysym_for_char)
                    .collect();
                w.with_devices(|d, c| d.type_keysyms(c, &syms, delay))
            }
        }
    }

    /// Presses a combo: modifiers down in order, the key held a moment, modifiers up in
    /// reverse.
    pub fn press(&mut self, combo: &Combo) -> Result<()> {
        let w = match self {
            Keyboard::X(k) => return k.press(combo),
            Keyboard::Wayland(w) => *w,
        };
        let mods: Vec<u32> = combo
            .modifiers
            .iter()
            .map(|m| modifier_keysym(*m))
            .collect();
        let key = match &combo.key {
            Key::Char(c) => keysym_for_char(*c),
            Key::Named(k) => named_keysym(*k),
            Key::ModifierOnly(m) => modifier_keysym(*m),
        };
        let mut all = mods.clone();
        all.push(key);
        let shift = crate::wayland::input::SHIFT_KEY;
        let mut added = false;
        w.with_devices(|d, c| {
            d.ensure_keys(c, &all)?;
            for &m in &mods {
                d.key(m, true)?;
            }
            // A character on the upper level of its key ("A", "@") takes Shift.
            added = d.needs_shift(key)?;
            if added {
                d.key(shift, true)?;
            }
            d.key(key, true)?;
            d.roundtrip(c)
        })?;
        std::thread::sleep(KEY_HOLD);
        w.with_devices(|d, c| {
            d.key(key, false)?;
            if added {
                d.key(shift, false)?;
            }
            for &m in mods.iter().rev() {
                d.key(m, false)?;
            }
            d.roundtrip(c)
        })
    }

    /// Runs `f` with `mods` held down; they go up in reverse order whatever `f` returns.
    pub fn holding<T>(
        &mut self,
        mods: &[Modifier],
        f: impl FnOnce(Seat<'_>) -> Result<T>,
    ) -> Result<T> {
        let w = match self {
            Keyboard::X(k) => return k.holding(mods, |x| f(Seat::X(x))),
            Keyboard::Wayland(w) => *w,
        };
        let syms: Vec<u32> = mods.iter().map(|m| modifier_keysym(*m)).collect();
        w.with_devices(|d, c| {
            d.ensure_keys(c, &syms)?;
            for &m in &syms {
                d.key(m, true)?;
            }
            d.roundtrip(c)
        })?;
        let out = f(Seat::Wayland(w));
        let released = w.with_devices(|d, c| {
            for &m in syms.iter().rev() {
                d.key(m, false)?;
            }
            d.roundtrip(c)
        });
        let out = out?;
        released?;
        Ok(out)
    }
}
