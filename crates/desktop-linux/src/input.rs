//! Synthesized input through XTest: pointer moves, clicks, wheel, drags, keys and text.
//! Text types any Unicode character: characters the keyboard map lacks are bound for the
//! moment to a spare key code (the way xdotool does), and the map is restored afterwards.

use crate::x11::{x_err, X};
use desktop_core::keys::{Combo, Key, Modifier, NamedKey};
use desktop_core::{Button, Direction, Error, ErrorCode, Rect, Result};
use std::collections::HashMap;
use std::time::Duration;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConfigureWindowAux, ConnectionExt, InputFocus, StackMode, Window};
use x11rb::protocol::xtest::ConnectionExt as _;

const KEY_PRESS: u8 = 2;
const KEY_RELEASE: u8 = 3;
const BUTTON_PRESS: u8 = 4;
const BUTTON_RELEASE: u8 = 5;
const MOTION: u8 = 6;
const NO_SYMBOL: u32 = 0;

/// A mouse button as X numbers it.
fn x_button(b: Button) -> u8 {
    match b {
        Button::Left => 1,
        Button::Middle => 2,
        Button::Right => 3,
    }
}

/// The X button that turns the wheel one notch in `d` (4-7).
fn x_wheel(d: Direction) -> u8 {
    match d {
        Direction::Up => 4,
        Direction::Down => 5,
        Direction::Left => 6,
        Direction::Right => 7,
    }
}

impl X {
    fn fake(&self, kind: u8, detail: u8, x: i16, y: i16) -> Result<()> {
        self.conn
            .xtest_fake_input(kind, detail, 0, self.root, x, y, 0)
            .map_err(x_err)?;
        Ok(())
    }

    /// Waits until the server has handled every request sent so far.
    pub fn sync(&self) -> Result<()> {
        crate::x11::round_trip(&self.conn)
    }

    /// Releases every key and pointer button the server holds down: what a process that
    /// ended while pressing (the keeper, killed in the middle of typing) left down would
    /// otherwise repeat for good (X repeats a held XTest key). Returns how many.
    pub fn release_held(&self) -> Result<usize> {
        use x11rb::protocol::xproto::KeyButMask;
        let keys = self
            .conn
            .query_keymap()
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        let mut released = 0;
        for (byte, bits) in keys.keys.iter().enumerate() {
            for bit in 0..8u8 {
                let code = byte * 8 + usize::from(bit);
                if bits & (1 << bit) != 0 && code >= 8 {
                    self.fake(KEY_RELEASE, u8::try_from(code).unwrap_or(0), 0, 0)?;
                    released += 1;
                }
            }
        }
        let pointer = self
            .conn
            .query_pointer(self.root)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        let buttons = [
            (1, KeyButMask::BUTTON1),
            (2, KeyButMask::BUTTON2),
            (3, KeyButMask::BUTTON3),
            (4, KeyButMask::BUTTON4),
            (5, KeyButMask::BUTTON5),
        ];
        for (button, held) in buttons {
            if pointer.mask.contains(held) {
                self.fake(BUTTON_RELEASE, button, 0, 0)?;
                released += 1;
            }
        }
        self.sync()?;
        Ok(released)
    }

    /// Fails with OFF_SCREEN when a point lies outside the screen.
    pub fn check_on_screen(&self, x: i32, y: i32) -> Result<()> {
        if self.screen.contains_point(x, y) {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::OffScreen,
            format!(
                "({x},{y}) is outside the screen (0,0 to {},{})",
                self.screen.w - 1,
                self.screen.h - 1
            ),
        )
        .suggest("Use coordinates inside the screen; listing the windows shows their bounds"))
    }

    /// Raises a top-level window and gives it keyboard focus. Without a window manager
    /// (a sandbox) this is what the user's click would have done.
    pub fn raise_and_focus(&self, window: Window) -> Result<()> {
        self.conn
            .configure_window(
                window,
                &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE),
            )
            .map_err(x_err)?;
        // ICCCM: a client that takes no input itself but asks for WM_TAKE_FOCUS (Java)
        // moves the focus to its own window when told to; the others get it set.
        if self.offer_focus(window)? {
            self.conn
                .set_input_focus(InputFocus::PARENT, window, x11rb::CURRENT_TIME)
                .map_err(x_err)?;
        }
        self.activate_with_wm(window)?;
        self.sync()
    }

    /// Puts a top-level window above the others without moving the keyboard focus.
    pub fn raise(&self, window: Window) -> Result<()> {
        self.conn
            .configure_window(
                window,
                &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE),
            )
            .map_err(x_err)?;
        self.sync()
    }

    /// Whether other windows hide `window` wholly: none of nine points spread over it shows
    /// it. Chromium stops drawing such a window and stops updating its page's
    /// accessibility tree until it shows again.
    pub fn covered(&self, window: Window) -> bool {
        let Some(geom) = self
            .conn
            .get_geometry(window)
            .ok()
            .and_then(|c| c.reply().ok())
        else {
            return false;
        };
        let Some(pos) = self
            .conn
            .translate_coordinates(window, self.root, 0, 0)
            .ok()
            .and_then(|c| c.reply().ok())
        else {
            return false;
        };
        let on_screen = Rect::new(
            i32::from(pos.dst_x),
            i32::from(pos.dst_y),
            i32::from(geom.width),
            i32::from(geom.height),
        );
        let (x0, y0) = (i64::from(on_screen.x), i64::from(on_screen.y));
        let (w, h) = (i64::from(on_screen.w), i64::from(on_screen.h));
        let frame = self.frame_of(window);
        let mut looked = false;
        for fy in [1, 2, 3] {
            for fx in [1, 2, 3] {
                let (x, y) = (x0 + w * fx / 4, y0 + h * fy / 4);
                let (Ok(x), Ok(y)) = (i32::try_from(x), i32::try_from(y)) else {
                    continue;
                };
                if !self.screen.contains_point(x, y) {
                    continue;
                }
                looked = true;
                if self.top_level_at(x, y) == Some(frame) {
                    return false;
                }
            }
        }
        looked
    }

    /// The child of the root window that holds `window`: the window itself, or the frame a
    /// reparenting window manager put around it (what `top_level_at` answers for it).
    pub fn frame_of(&self, window: Window) -> Window {
        let mut at = window;
        for _ in 0..8 {
            let Some(tree) = self.conn.query_tree(at).ok().and_then(|c| c.reply().ok()) else {
                break;
            };
            if tree.parent == self.root || tree.parent == 0 {
                return at;
            }
            at = tree.parent;
        }
        window
    }

    /// The top-level window showing at a point (what a click there would hit).
    pub fn top_level_at(&self, x: i32, y: i32) -> Option<Window> {
        let (x, y) = (i16::try_from(x).ok()?, i16::try_from(y).ok()?);
        let reply = self
            .conn
            .translate_coordinates(self.root, self.root, x, y)
            .ok()?
            .reply()
            .ok()?;
        (reply.child != 0).then_some(reply.child)
    }

    /// Where the pointer is, in screen coordinates.
    pub fn pointer(&self) -> Result<(i32, i32)> {
        let r = self
            .conn
            .query_pointer(self.root)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        Ok((i32::from(r.root_x), i32::from(r.root_y)))
    }

    pub fn move_pointer(&self, x: i32, y: i32) -> Result<()> {
        self.check_on_screen(x, y)?;
        self.fake(MOTION, 0, x as i16, y as i16)
    }

    /// Clicks `count` times at a point.
    pub fn click(&self, x: i32, y: i32, button: Button, count: u32) -> Result<()> {
        self.move_pointer(x, y)?;
        for _ in 0..count.max(1) {
            self.fake(BUTTON_PRESS, x_button(button), 0, 0)?;
            self.fake(BUTTON_RELEASE, x_button(button), 0, 0)?;
        }
        self.sync()
    }

    /// Turns the wheel `amount` notches at a point.
    pub fn scroll(&self, x: i32, y: i32, direction: Direction, amount: u32) -> Result<()> {
        self.move_pointer(x, y)?;
        for _ in 0..amount {
            self.fake(BUTTON_PRESS, x_wheel(direction), 0, 0)?;
            self.fake(BUTTON_RELEASE, x_wheel(direction), 0, 0)?;
        }
        self.sync()
    }

    /// Releases a pointer button.
    pub(crate) fn button_up(&self, button: Button) -> Result<()> {
        self.fake(BUTTON_RELEASE, x_button(button), 0, 0)?;
        self.sync()
    }

    /// Presses at `from`, moves in steps to `to`, releases: toolkits that wait for motion
    /// before they start a drag see it; holds still after the press and before the release.
    pub async fn drag(&self, from: (i32, i32), to: (i32, i32), button: Button) -> Result<()> {
        self.check_on_screen(to.0, to.1)?;
        self.move_pointer(from.0, from.1)?;
        self.fake(BUTTON_PRESS, x_button(button), 0, 0)?;
        // Up again however the drag ends: an error, or given up at one of its waits
        // (a cancelled request, its command's process gone).
        let held = crate::seat::HeldButton::new(crate::seat::Seat::X(self), button);
        self.sync()?;
        tokio::time::sleep(crate::seat::DRAG_HOLD).await;
        const STEPS: i32 = 12;
        for i in 1..=STEPS {
            let x = from.0 + (to.0 - from.0) * i / STEPS;
            let y = from.1 + (to.1 - from.1) * i / STEPS;
            self.fake(MOTION, 0, x as i16, y as i16)?;
            self.sync()?;
            tokio::time::sleep(Duration::from_millis(8)).await;
        }
        tokio::time::sleep(crate::seat::DRAG_HOLD).await;
        held.release()
    }
}

/// The keyboard map, and keys bound on the fly for characters it lacks.
pub struct XKeyboard<'a> {
    x: &'a X,
    min_keycode: u8,
    per_keycode: usize,
    syms: Vec<u32>,
    /// Key codes with no symbol at all: free to bind temporarily.
    spare: Vec<u8>,
    bound: HashMap<u32, u8>,
}

impl std::fmt::Debug for XKeyboard<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XKeyboard")
            .field("spare", &self.spare.len())
            .finish()
    }
}

impl<'a> XKeyboard<'a> {
    pub fn new(x: &'a X) -> Result<XKeyboard<'a>> {
        let setup = x.conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let reply = x
            .conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        let per = usize::from(reply.keysyms_per_keycode).max(1);
        let spare = reply
            .keysyms
            .chunks(per)
            .enumerate()
            .filter(|(_, syms)| syms.iter().all(|s| *s == NO_SYMBOL))
            .map(|(i, _)| min + i as u8)
            .rev()
            .collect();
        Ok(XKeyboard {
            x,
            min_keycode: min,
            per_keycode: per,
            syms: reply.keysyms,
            spare,
            bound: HashMap::new(),
        })
    }

    /// A key code that produces `keysym`, and whether Shift is needed.
    fn find(&self, keysym: u32) -> Option<(u8, bool)> {
        for (i, syms) in self.syms.chunks(self.per_keycode).enumerate() {
            let code = self.min_keycode + i as u8;
            if syms.first() == Some(&keysym) {
                return Some((code, false));
            }
            if syms.get(1) == Some(&keysym) {
                return Some((code, true));
            }
        }
        None
    }

    /// The key code for `keysym`, binding a spare one if the map lacks it.
    fn code_for(&mut self, keysym: u32) -> Result<(u8, bool)> {
        if let Some(found) = self.find(keysym) {
            return Ok(found);
        }
        if let Some(code) = self.bound.get(&keysym) {
            return Ok((*code, false));
        }
        let code = match self.spare.pop() {
            Some(c) => c,
            None => {
                // Every spare key is in use: release them all and start over.
                self.restore()?;
                self.spare.pop().ok_or_else(|| {
                    Error::new(
                        ErrorCode::ActionFailed,
                        "the keyboard map has no spare key code to type this character",
                    )
                })?
            }
        };
        let syms = vec![keysym; self.per_keycode];
        self.x
            .conn
            .change_keyboard_mapping(1, code, self.per_keycode as u8, &syms)
            .map_err(x_err)?;
        self.x.sync()?;
        self.bound.insert(keysym, code);
        Ok((code, false))
    }

    fn tap(&self, code: u8, shift: bool, delay: Duration) -> Result<()> {
        let shift_code = if shift {
            self.find(SHIFT_L).map(|(c, _)| c)
        } else {
            None
        };
        if let Some(s) = shift_code {
            self.x.fake(KEY_PRESS, s, 0, 0)?;
        }
        self.x.fake(KEY_PRESS, code, 0, 0)?;
        self.x.fake(KEY_RELEASE, code, 0, 0)?;
        if let Some(s) = shift_code {
            self.x.fake(KEY_RELEASE, s, 0, 0)?;
        }
        if !delay.is_zero() {
            self.x.sync()?;
            std::thread::sleep(delay);
        }
        Ok(())
    }

    /// Types `text` character by character.
    ///
    /// Characters the map lacks are all bound before the first key goes out, and unbound
    /// only after a pause: XKB clients (GTK, Qt, Chromium) re-read the whole map when told
    /// it changed, at the moment they get to that notice, and translate the keys queued
    /// behind it with whatever map they read then.
    pub fn type_text(&mut self, text: &str, delay: Duration) -> Result<()> {
        let chars: Vec<char> = text.chars().filter(|c| *c != '\r').collect();
        let mut missing: Vec<u32> = chars
            .iter()
            .map(|c| keysym_for_char(*c))
            .filter(|k| self.find(*k).is_none())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        let mut start = 0;
        while start < chars.len() {
            // Bind as many of the missing characters as there are spare key codes.
            let batch: Vec<u32> = missing
                .iter()
                .copied()
                .filter(|k| !self.bound.contains_key(k))
                .take(self.spare.len().max(1))
                .collect();
            if !batch.is_empty() {
                for k in &batch {
                    self.code_for(*k)?;
                }
                std::thread::sleep(REMAP_SETTLE);
            }
            let mut end = start;
            let mut stopped = false;
            while end < chars.len() {
                // A stop asked for (a signal to this process) ends the typing between keys.
                if desktop_core::stop::requested() {
                    stopped = true;
                    break;
                }
                let k = keysym_for_char(chars[end]);
                let (code, shift) = match self
                    .find(k)
                    .or_else(|| self.bound.get(&k).map(|c| (*c, false)))
                {
                    Some(found) => found,
                    None => break, // not bound in this batch: next round
                };
                self.tap(code, shift, delay)?;
                end += 1;
            }
            self.x.sync()?;
            if stopped {
                if !self.bound.is_empty() {
                    std::thread::sleep(REMAP_LINGER);
                }
                self.restore()?;
                return Err(desktop_core::stop::interrupted());
            }
            if end < chars.len() {
                // Out of spare keys: let the app read what was typed, then rebind.
                std::thread::sleep(REMAP_LINGER);
                self.restore()?;
            }
            start = end;
        }
        if !self.bound.is_empty() {
            std::thread::sleep(REMAP_LINGER);
        }
        self.restore()
    }

    /// Presses a combo: modifiers down in order, the key, modifiers up in reverse.
    pub fn press(&mut self, combo: &Combo) -> Result<()> {
        let mut mods = Vec::new();
        for m in &combo.modifiers {
            mods.push(self.code_for(modifier_keysym(*m))?.0);
        }
        let keysym = match &combo.key {
            Key::Char(c) => keysym_for_char(*c),
            Key::Named(key) => named_keysym(*key),
            Key::ModifierOnly(m) => modifier_keysym(*m),
        };
        let (code, shift) = self.code_for(keysym)?;
        let add_shift = shift && !combo.modifiers.contains(&Modifier::Shift);
        let shift_code = if add_shift {
            self.find(SHIFT_L).map(|(c, _)| c)
        } else {
            None
        };
        for &m in mods.iter().chain(shift_code.iter()) {
            self.x.fake(KEY_PRESS, m, 0, 0)?;
        }
        self.x.fake(KEY_PRESS, code, 0, 0)?;
        // Held a moment, as a finger does: a press and release in one batch is lost on
        // some widgets (GTK 3's file chooser takes no Enter so).
        self.x.sync()?;
        std::thread::sleep(KEY_HOLD);
        self.x.fake(KEY_RELEASE, code, 0, 0)?;
        for &m in shift_code.iter().chain(mods.iter().rev()) {
            self.x.fake(KEY_RELEASE, m, 0, 0)?;
        }
        self.x.sync()?;
        if !self.bound.is_empty() {
            std::thread::sleep(REMAP_LINGER);
        }
        self.restore()
    }

    /// Runs `f` with `mods` held down. They go up in reverse order whatever `f` returns, so
    /// an error never leaves a modifier pressed (no await in between: a timeout cannot
    /// interrupt it either).
    pub fn holding<T>(&mut self, mods: &[Modifier], f: impl FnOnce(&X) -> Result<T>) -> Result<T> {
        let mut down = Vec::new();
        let mut pressed = Ok(());
        for m in mods {
            match self.code_for(modifier_keysym(*m)) {
                Ok((code, _)) => match self.x.fake(KEY_PRESS, code, 0, 0) {
                    Ok(()) => down.push(code),
                    Err(e) => {
                        pressed = Err(e);
                        break;
                    }
                },
                Err(e) => {
                    pressed = Err(e);
                    break;
                }
            }
        }
        let out = pressed.and_then(|()| f(self.x));
        let mut released = Ok(());
        for &code in down.iter().rev() {
            if let Err(e) = self.x.fake(KEY_RELEASE, code, 0, 0) {
                released = Err(e);
            }
        }
        let synced = self.x.sync();
        let out = out?;
        released?;
        synced?;
        Ok(out)
    }

    /// Unbinds the temporary key codes.
    fn restore(&mut self) -> Result<()> {
        let none = vec![NO_SYMBOL; self.per_keycode];
        for (_, code) in self.bound.drain() {
            self.x
                .conn
                .change_keyboard_mapping(1, code, self.per_keycode as u8, &none)
                .map_err(x_err)?;
            self.spare.push(code);
        }
        self.x.sync()
    }
}

impl Drop for XKeyboard<'_> {
    fn drop(&mut self) {
        let _ = self.restore();
    }
}

const SHIFT_L: u32 = 0xffe1;
/// Time for clients to read a changed keyboard map before keys that need it arrive.
/// How long a pressed combo's key is held down.
const KEY_HOLD: Duration = Duration::from_millis(15);
const REMAP_SETTLE: Duration = Duration::from_millis(20);
/// Time for clients to translate the keys typed with temporary bindings before those go.
const REMAP_LINGER: Duration = Duration::from_millis(120);

/// The X keysym of a character: Latin-1 maps to itself, the rest to the Unicode range.
pub fn keysym_for_char(c: char) -> u32 {
    match c {
        '\n' => 0xff0d,
        '\t' => 0xff09,
        '\u{8}' => 0xff08,
        '\u{1b}' => 0xff1b,
        c if (' '..='~').contains(&c) || ('\u{a0}'..='\u{ff}').contains(&c) => c as u32,
        c => 0x0100_0000 | c as u32,
    }
}

pub(crate) fn modifier_keysym(m: Modifier) -> u32 {
    match m {
        Modifier::Ctrl => 0xffe3,
        Modifier::Shift => SHIFT_L,
        Modifier::Alt => 0xffe9,
        Modifier::Super => 0xffeb,
        Modifier::Meta => 0xffe7,
        Modifier::AltGr => 0xfe03,
    }
}

/// The X keysym of a key without a character.
pub(crate) fn named_keysym(key: NamedKey) -> u32 {
    match key {
        NamedKey::Enter => 0xff0d,
        NamedKey::Tab => 0xff09,
        NamedKey::Escape => 0xff1b,
        NamedKey::Space => 0x20,
        NamedKey::Backspace => 0xff08,
        NamedKey::Delete => 0xffff,
        NamedKey::Insert => 0xff63,
        NamedKey::Home => 0xff50,
        NamedKey::End => 0xff57,
        NamedKey::PageUp => 0xff55,
        NamedKey::PageDown => 0xff56,
        NamedKey::Left => 0xff51,
        NamedKey::Up => 0xff52,
        NamedKey::Right => 0xff53,
        NamedKey::Down => 0xff54,
        NamedKey::Menu => 0xff67,
        NamedKey::PrintScreen => 0xff61,
        NamedKey::CapsLock => 0xffe5,
        NamedKey::NumLock => 0xff7f,
        NamedKey::ScrollLock => 0xff14,
        NamedKey::Pause => 0xff13,
        // F1 is 0xffbe; the parser keeps F keys within 1..=24.
        NamedKey::F(n) => 0xffbe + u32::from(n.clamp(1, 35)) - 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keysyms() {
        assert_eq!(keysym_for_char('a'), 0x61);
        assert_eq!(keysym_for_char('é'), 0xe9);
        assert_eq!(keysym_for_char('中'), 0x0100_4e2d);
        assert_eq!(keysym_for_char('😀'), 0x0101_f600);
        assert_eq!(keysym_for_char('\n'), 0xff0d);
        assert_eq!(named_keysym(NamedKey::F(5)), 0xffc2);
        assert_eq!(named_keysym(NamedKey::F(24)), 0xffbe + 23);
        assert_eq!(named_keysym(NamedKey::Enter), 0xff0d);
        assert_eq!(named_keysym(NamedKey::PageUp), 0xff55);
    }
}
