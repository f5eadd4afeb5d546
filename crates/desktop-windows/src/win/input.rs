//! Synthetic input through `SendInput`: keys (virtual keys, or UTF-16 units with
//! `KEYEVENTF_UNICODE`), clicks and wheel turns at virtual-screen points, drags. Modifiers
//! go down in order and up in reverse within one batch, so none stays held.
#![allow(unsafe_code)]

use crate::keys::{self, Stroke};
use crate::typing::{self, Unit};
use desktop_core::keys::Combo;
use desktop_core::request::{Button, Direction};
use desktop_core::{Error, ErrorCode, Result};
use windows::Win32::UI::Input::KeyboardAndMouse::{
    SendInput, INPUT, INPUT_0, INPUT_KEYBOARD, INPUT_MOUSE, KEYBDINPUT, KEYBD_EVENT_FLAGS,
    KEYEVENTF_EXTENDEDKEY, KEYEVENTF_KEYUP, KEYEVENTF_UNICODE, MOUSEEVENTF_ABSOLUTE,
    MOUSEEVENTF_HWHEEL, MOUSEEVENTF_LEFTDOWN, MOUSEEVENTF_LEFTUP, MOUSEEVENTF_MIDDLEDOWN,
    MOUSEEVENTF_MIDDLEUP, MOUSEEVENTF_MOVE, MOUSEEVENTF_RIGHTDOWN, MOUSEEVENTF_RIGHTUP,
    MOUSEEVENTF_VIRTUALDESK, MOUSEEVENTF_WHEEL, MOUSEINPUT, MOUSE_EVENT_FLAGS, VIRTUAL_KEY,
};
use windows::Win32::UI::WindowsAndMessaging::{
    GetCursorPos, GetSystemMetrics, SM_CXVIRTUALSCREEN, SM_CYVIRTUALSCREEN, SM_XVIRTUALSCREEN,
    SM_YVIRTUALSCREEN,
};

fn key(vk: u16, scan: u16, flags: KEYBD_EVENT_FLAGS) -> INPUT {
    INPUT {
        r#type: INPUT_KEYBOARD,
        Anonymous: INPUT_0 {
            ki: KEYBDINPUT {
                wVk: VIRTUAL_KEY(vk),
                wScan: scan,
                dwFlags: flags,
                time: 0,
                dwExtraInfo: 0,
            },
        },
    }
}

fn send(inputs: &[INPUT]) -> Result<()> {
    if inputs.is_empty() {
        return Ok(());
    }
    // SAFETY: a slice of initialized INPUTs and their size.
    let n = unsafe { SendInput(inputs, core::mem::size_of::<INPUT>() as i32) };
    if n as usize != inputs.len() {
        return Err(Error::new(
            ErrorCode::PermissionRequired,
            "Windows blocked the input (another program holds the desktop, or it runs at a higher integrity level)",
        )
        .suggest("Run desktop-cli at the same integrity level as the app (not elevated vs. elevated), on an unlocked desktop"));
    }
    Ok(())
}

fn stroke_inputs(s: Stroke, out: &mut Vec<INPUT>, up: bool) {
    let up_flag = if up {
        KEYEVENTF_KEYUP
    } else {
        KEYBD_EVENT_FLAGS(0)
    };
    match s {
        Stroke::Vk { vk, extended } => {
            let ext = if extended {
                KEYEVENTF_EXTENDEDKEY
            } else {
                KEYBD_EVENT_FLAGS(0)
            };
            out.push(key(vk, 0, ext | up_flag));
        }
        Stroke::Unicode(c) => {
            let mut buf = [0u16; 2];
            for u in c.encode_utf16(&mut buf) {
                out.push(key(0, *u, KEYEVENTF_UNICODE | up_flag));
            }
        }
    }
}

/// Taps each combo: modifiers down, the key down and up, modifiers up in reverse.
pub fn press(combos: &[Combo]) -> Result<()> {
    for c in combos {
        let mut v = Vec::new();
        for m in &c.modifiers {
            stroke_inputs(keys::modifier_vk(*m), &mut v, false);
        }
        let k = keys::stroke(&c.key);
        stroke_inputs(k, &mut v, false);
        stroke_inputs(k, &mut v, true);
        for m in c.modifiers.iter().rev() {
            stroke_inputs(keys::modifier_vk(*m), &mut v, true);
        }
        send(&v)?;
    }
    Ok(())
}

/// Types `text` (any script) with `delay` between characters.
pub fn type_text(text: &str, delay: std::time::Duration) -> Result<usize> {
    let mut batch = Vec::new();
    for u in typing::units(text) {
        match u {
            Unit::Utf16(c) => {
                batch.push(key(0, c, KEYEVENTF_UNICODE));
                batch.push(key(0, c, KEYEVENTF_UNICODE | KEYEVENTF_KEYUP));
            }
            Unit::Return => stroke_inputs_pair(
                Stroke::Vk {
                    vk: 0x0D,
                    extended: false,
                },
                &mut batch,
            ),
            Unit::Tab => stroke_inputs_pair(
                Stroke::Vk {
                    vk: 0x09,
                    extended: false,
                },
                &mut batch,
            ),
        }
        if !delay.is_zero() {
            send(&std::mem::take(&mut batch))?;
            std::thread::sleep(delay);
        }
    }
    send(&batch)?;
    Ok(text.chars().count())
}

fn stroke_inputs_pair(s: Stroke, out: &mut Vec<INPUT>) {
    stroke_inputs(s, out, false);
    stroke_inputs(s, out, true);
}

fn mouse(dx: i32, dy: i32, data: i32, flags: MOUSE_EVENT_FLAGS) -> INPUT {
    INPUT {
        r#type: INPUT_MOUSE,
        Anonymous: INPUT_0 {
            mi: MOUSEINPUT {
                dx,
                dy,
                mouseData: data as u32,
                dwFlags: flags,
                time: 0,
                dwExtraInfo: 0,
            },
        },
    }
}

/// A virtual-screen point as `SendInput`'s absolute coordinates (0–65535 across every
/// monitor, negative origins included).
fn absolute(x: i32, y: i32) -> (i32, i32) {
    // SAFETY: metric queries.
    let (vx, vy, vw, vh) = unsafe {
        (
            GetSystemMetrics(SM_XVIRTUALSCREEN),
            GetSystemMetrics(SM_YVIRTUALSCREEN),
            GetSystemMetrics(SM_CXVIRTUALSCREEN).max(2),
            GetSystemMetrics(SM_CYVIRTUALSCREEN).max(2),
        )
    };
    (
        ((x - vx) as i64 * 65535 / (vw - 1) as i64) as i32,
        ((y - vy) as i64 * 65535 / (vh - 1) as i64) as i32,
    )
}

fn move_input(x: i32, y: i32) -> INPUT {
    let (ax, ay) = absolute(x, y);
    mouse(
        ax,
        ay,
        0,
        MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK,
    )
}

pub fn move_to(x: i32, y: i32) -> Result<()> {
    send(&[move_input(x, y)])
}

/// `count` clicks of `button` at (x, y), with `modifiers` held around them.
pub fn click(
    x: i32,
    y: i32,
    button: Button,
    count: u32,
    modifiers: &[desktop_core::keys::Modifier],
) -> Result<()> {
    let (down, up) = match button {
        Button::Left => (MOUSEEVENTF_LEFTDOWN, MOUSEEVENTF_LEFTUP),
        Button::Right => (MOUSEEVENTF_RIGHTDOWN, MOUSEEVENTF_RIGHTUP),
        Button::Middle => (MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_MIDDLEUP),
    };
    let mut v = vec![move_input(x, y)];
    for m in modifiers {
        stroke_inputs(keys::modifier_vk(*m), &mut v, false);
    }
    for _ in 0..count {
        v.push(mouse(0, 0, 0, down));
        v.push(mouse(0, 0, 0, up));
    }
    for m in modifiers.iter().rev() {
        stroke_inputs(keys::modifier_vk(*m), &mut v, true);
    }
    send(&v)
}

/// Turns the wheel `amount` notches at (x, y).
pub fn scroll(x: i32, y: i32, direction: Direction, amount: u32) -> Result<()> {
    const NOTCH: i32 = 120;
    let (flag, sign) = match direction {
        Direction::Up => (MOUSEEVENTF_WHEEL, 1),
        Direction::Down => (MOUSEEVENTF_WHEEL, -1),
        Direction::Right => (MOUSEEVENTF_HWHEEL, 1),
        Direction::Left => (MOUSEEVENTF_HWHEEL, -1),
    };
    let mut v = vec![move_input(x, y)];
    v.extend((0..amount).map(|_| mouse(0, 0, sign * NOTCH, flag)));
    send(&v)
}

/// Presses at `from`, moves in steps, releases at `to`.
pub fn drag(from: (i32, i32), to: (i32, i32)) -> Result<()> {
    send(&[
        move_input(from.0, from.1),
        mouse(0, 0, 0, MOUSEEVENTF_LEFTDOWN),
    ])?;
    for i in 1..=10 {
        let x = from.0 + (to.0 - from.0) * i / 10;
        let y = from.1 + (to.1 - from.1) * i / 10;
        send(&[move_input(x, y)])?;
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    send(&[mouse(0, 0, 0, MOUSEEVENTF_LEFTUP)])
}

/// Where the pointer is.
pub fn pointer() -> Option<(i32, i32)> {
    let mut p = windows::Win32::Foundation::POINT::default();
    // SAFETY: a valid out-pointer.
    unsafe { GetCursorPos(&mut p) }.ok()?;
    Some((p.x, p.y))
}
