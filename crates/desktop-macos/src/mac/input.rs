//! Synthetic input as CGEvents posted to the HID event tap: clicks, drags and wheel turns
//! at points (in points), key combos, and text in chunks the OS accepts. Modifiers are
//! flags on each event, so none is ever left held down.
#![allow(unsafe_code)]

use crate::keys::{self, Stroke};
use crate::typing::{self, Piece};
use desktop_core::keys::Combo;
use desktop_core::request::{Button, Direction};
use desktop_core::{Error, ErrorCode, Result};
use objc2_core_foundation::{CFRetained, CGPoint};
use objc2_core_graphics::{
    CGEvent, CGEventField, CGEventFlags, CGEventSource, CGEventSourceStateID, CGEventTapLocation,
    CGEventType, CGMouseButton, CGScrollEventUnit,
};
use std::time::Duration;

#[link(name = "Carbon", kind = "framework")]
extern "C" {
    /// HIToolbox: whether some process turned on Secure Event Input (a focused password
    /// field, a terminal's Secure Keyboard Entry), which can keep synthetic keys out.
    fn IsSecureEventInputEnabled() -> u8;
}

/// Whether Secure Event Input is on somewhere on the system.
pub fn secure_input_on() -> bool {
    // SAFETY: a query without arguments.
    unsafe { IsSecureEventInputEnabled() != 0 }
}

fn source() -> Option<CFRetained<CGEventSource>> {
    CGEventSource::new(CGEventSourceStateID::HIDSystemState)
}

fn refused() -> Error {
    Error::new(
        ErrorCode::PermissionRequired,
        "macOS refused to create an input event (the Accessibility permission is needed to send input)",
    )
    .suggest(crate::permissions::Permission::Accessibility.pane())
}

fn post(ev: &CGEvent) {
    CGEvent::post(CGEventTapLocation::HIDEventTap, Some(ev));
}

/// Where the pointer is, in points.
pub fn pointer() -> Option<(i32, i32)> {
    let ev = CGEvent::new(None)?;
    let p = CGEvent::location(Some(&ev));
    Some((p.x.floor() as i32, p.y.floor() as i32))
}

fn mouse(
    kind: CGEventType,
    at: CGPoint,
    button: CGMouseButton,
    flags: u64,
    clicks: i64,
) -> Result<()> {
    let src = source();
    let ev = CGEvent::new_mouse_event(src.as_deref(), kind, at, button).ok_or_else(refused)?;
    CGEvent::set_flags(Some(&ev), CGEventFlags::from_bits_retain(flags));
    // The click count tells a double click from two single ones.
    CGEvent::set_integer_value_field(Some(&ev), CGEventField::MouseEventClickState, clicks);
    post(&ev);
    Ok(())
}

fn kinds(button: Button) -> (CGEventType, CGEventType, CGMouseButton) {
    match button {
        Button::Left => (
            CGEventType::LeftMouseDown,
            CGEventType::LeftMouseUp,
            CGMouseButton::Left,
        ),
        Button::Right => (
            CGEventType::RightMouseDown,
            CGEventType::RightMouseUp,
            CGMouseButton::Right,
        ),
        Button::Middle => (
            CGEventType::OtherMouseDown,
            CGEventType::OtherMouseUp,
            CGMouseButton::Center,
        ),
    }
}

/// Moves the pointer to (x, y).
pub fn move_to(x: f64, y: f64) -> Result<()> {
    mouse(
        CGEventType::MouseMoved,
        CGPoint::new(x, y),
        CGMouseButton::Left,
        0,
        0,
    )
}

/// `count` clicks of `button` at (x, y) with `flags` (modifier masks) on every event.
pub fn click(x: f64, y: f64, button: Button, count: u32, flags: u64) -> Result<()> {
    let at = CGPoint::new(x, y);
    let (down, up, b) = kinds(button);
    move_to(x, y)?;
    for n in 1..=i64::from(count) {
        mouse(down, at, b, flags, n)?;
        mouse(up, at, b, flags, n)?;
    }
    Ok(())
}

/// Presses at `from`, moves in steps, releases at `to`.
pub fn drag(from: (f64, f64), to: (f64, f64)) -> Result<()> {
    let start = CGPoint::new(from.0, from.1);
    move_to(from.0, from.1)?;
    mouse(CGEventType::LeftMouseDown, start, CGMouseButton::Left, 0, 1)?;
    const STEPS: i32 = 10;
    for i in 1..=STEPS {
        let t = f64::from(i) / f64::from(STEPS);
        let p = CGPoint::new(from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
        mouse(CGEventType::LeftMouseDragged, p, CGMouseButton::Left, 0, 1)?;
        std::thread::sleep(Duration::from_millis(10));
    }
    mouse(
        CGEventType::LeftMouseUp,
        CGPoint::new(to.0, to.1),
        CGMouseButton::Left,
        0,
        1,
    )
}

/// Turns the wheel `amount` notches at (x, y).
pub fn scroll(x: f64, y: f64, direction: Direction, amount: u32) -> Result<()> {
    move_to(x, y)?;
    let (dy, dx) = match direction {
        Direction::Up => (1, 0),
        Direction::Down => (-1, 0),
        Direction::Left => (0, 1),
        Direction::Right => (0, -1),
    };
    for _ in 0..amount {
        let src = source();
        let ev =
            CGEvent::new_scroll_wheel_event2(src.as_deref(), CGScrollEventUnit::Line, 2, dy, dx, 0)
                .ok_or_else(refused)?;
        post(&ev);
    }
    Ok(())
}

fn key(code: u16, down: bool, flags: u64, text: Option<&[u16]>) -> Result<()> {
    let src = source();
    let ev = CGEvent::new_keyboard_event(src.as_deref(), code, down).ok_or_else(refused)?;
    CGEvent::set_flags(Some(&ev), CGEventFlags::from_bits_retain(flags));
    if let Some(units) = text {
        // SAFETY: `units` is a live slice of `len` UTF-16 units.
        unsafe {
            CGEvent::keyboard_set_unicode_string(Some(&ev), units.len() as _, units.as_ptr())
        };
    }
    post(&ev);
    Ok(())
}

/// Taps each combo in turn, a character on the key that types it on the current layout
/// (read once for the whole call, and only when a combo names a character).
pub fn press(combos: &[Combo]) -> Result<()> {
    let needs_layout = combos
        .iter()
        .any(|c| matches!(c.key, desktop_core::keys::Key::Char(_)));
    let layout = if needs_layout {
        super::layout::current()
    } else {
        keys::Layout::default()
    };
    for c in combos {
        match keys::stroke(&layout, &c.modifiers, &c.key)? {
            Stroke::Code { code, flags } => {
                key(code, true, flags, None)?;
                // A modifier pressed alone comes up without its own flag, or the app would
                // see it still held.
                let up = match &c.key {
                    desktop_core::keys::Key::ModifierOnly(m) => flags & !keys::flag(*m),
                    _ => flags,
                };
                key(code, false, up, None)?;
            }
            Stroke::Unicode(ch) => {
                let mut buf = [0u16; 2];
                let units = ch.encode_utf16(&mut buf);
                let flags = c.modifiers.iter().fold(0, |f, m| f | keys::flag(*m));
                key(0, true, flags, Some(units))?;
                key(0, false, flags, Some(units))?;
            }
        }
    }
    Ok(())
}

/// Types `text`: chunks as Unicode key events, newlines and tabs as their keys; `delay`
/// between events. Returns the characters sent.
pub fn type_text(text: &str, delay: Duration) -> Result<usize> {
    for piece in typing::pieces(text) {
        match piece {
            Piece::Text(units) => {
                key(0, true, 0, Some(&units))?;
                key(0, false, 0, Some(&units))?;
            }
            Piece::Return => {
                key(keys::RETURN, true, 0, None)?;
                key(keys::RETURN, false, 0, None)?;
            }
            Piece::Tab => {
                key(keys::TAB, true, 0, None)?;
                key(keys::TAB, false, 0, None)?;
            }
        }
        if !delay.is_zero() {
            std::thread::sleep(delay);
        }
    }
    Ok(text.chars().count())
}
