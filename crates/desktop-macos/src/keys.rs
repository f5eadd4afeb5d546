//! Key combos as macOS posts them: virtual key codes (`kVK_*` of Carbon's `Events.h`, the
//! positions of an ANSI keyboard) and `CGEventFlags` modifier masks. Pure tables; the
//! events themselves are made in `input.rs`.

use desktop_core::keys::{Key, Modifier, NamedKey};
use desktop_core::{Error, ErrorCode, Result};

/// `kCGEventFlagMask*` bits.
pub const FLAG_SHIFT: u64 = 0x0002_0000;
pub const FLAG_CONTROL: u64 = 0x0004_0000;
pub const FLAG_OPTION: u64 = 0x0008_0000;
pub const FLAG_COMMAND: u64 = 0x0010_0000;

/// `kVK_Return` and `kVK_Tab`, which typing sends for newlines and tabs.
pub const RETURN: u16 = 0x24;
pub const TAB: u16 = 0x30;

/// A modifier's flag. On a Mac `super` (and `meta`) is Command, `alt` (and AltGr) Option.
pub fn flag(m: Modifier) -> u64 {
    match m {
        Modifier::Ctrl => FLAG_CONTROL,
        Modifier::Shift => FLAG_SHIFT,
        Modifier::Alt | Modifier::AltGr => FLAG_OPTION,
        Modifier::Super | Modifier::Meta => FLAG_COMMAND,
    }
}

/// A modifier's own key (pressed alone, as in `super`).
pub fn modifier_code(m: Modifier) -> u16 {
    match m {
        Modifier::Super | Modifier::Meta => 0x37,
        Modifier::Shift => 0x38,
        Modifier::Alt => 0x3A,
        Modifier::Ctrl => 0x3B,
        Modifier::AltGr => 0x3D,
    }
}

/// The key code of a key that types no character; `INVALID_KEY` for keys a Mac lacks.
pub fn named_code(k: NamedKey) -> Result<u16> {
    const F: [u16; 20] = [
        0x7A, 0x78, 0x63, 0x76, 0x60, 0x61, 0x62, 0x64, 0x65, 0x6D, 0x67, 0x6F, 0x69, 0x6B, 0x71,
        0x6A, 0x40, 0x4F, 0x50, 0x5A,
    ];
    Ok(match k {
        NamedKey::Enter => RETURN,
        NamedKey::Tab => TAB,
        NamedKey::Space => 0x31,
        NamedKey::Backspace => 0x33,
        NamedKey::Escape => 0x35,
        NamedKey::Delete => 0x75,
        // The Help key sits where Insert is on a PC keyboard.
        NamedKey::Insert => 0x72,
        NamedKey::Home => 0x73,
        NamedKey::PageUp => 0x74,
        NamedKey::End => 0x77,
        NamedKey::PageDown => 0x79,
        NamedKey::Left => 0x7B,
        NamedKey::Right => 0x7C,
        NamedKey::Down => 0x7D,
        NamedKey::Up => 0x7E,
        NamedKey::CapsLock => 0x39,
        NamedKey::F(n @ 1..=20) => F[usize::from(n - 1)],
        other => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("a Mac keyboard has no {other:?} key"),
            )
            .suggest("Use another key; F1-F20, the arrows, Home/End, PageUp/PageDown exist"))
        }
    })
}

/// The ANSI key that types `c` (lower-case), with whether Shift is needed for it.
pub fn char_code(c: char) -> Option<(u16, bool)> {
    const PLAIN: &str = "asdfhgzxcv\0bqweryt123465=97-80]ou[ip\0lj'k;\\,/nm.";
    const SHIFTED: &str = "ASDFHGZXCV\0BQWERYT!@#$^%+(&_*)}OU{IP\0LJ\"K:|<?NM>";
    let find = |set: &str| set.chars().position(|x| x == c && x != '\0');
    if let Some(i) = find(PLAIN) {
        return Some((i as u16, false));
    }
    if let Some(i) = find(SHIFTED) {
        return Some((i as u16, true));
    }
    match c {
        '`' => Some((0x32, false)),
        '~' => Some((0x32, true)),
        ' ' => Some((0x31, false)),
        _ => None,
    }
}

/// What to post for one key of a combo: a key code and extra flags, or (a character no
/// ANSI key types) the character itself on a key event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stroke {
    Code { code: u16, flags: u64 },
    Unicode(char),
}

/// The stroke for `key` held with `modifiers`.
pub fn stroke(modifiers: &[Modifier], key: &Key) -> Result<Stroke> {
    let mut flags = modifiers.iter().fold(0, |f, m| f | flag(*m));
    Ok(match key {
        Key::Named(k) => Stroke::Code {
            code: named_code(*k)?,
            flags,
        },
        // The modifier's own key goes down with its flag set, as a keyboard sends it.
        Key::ModifierOnly(m) => Stroke::Code {
            code: modifier_code(*m),
            flags: flags | flag(*m),
        },
        Key::Char(c) => match char_code(*c) {
            Some((code, shift)) => {
                if shift {
                    flags |= FLAG_SHIFT;
                }
                Stroke::Code { code, flags }
            }
            None => Stroke::Unicode(*c),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use desktop_core::keys::Combo;

    fn one(combo: &str) -> Stroke {
        let c = Combo::parse(combo).unwrap();
        stroke(&c.modifiers, &c.key).unwrap()
    }

    #[test]
    fn combos_become_codes_and_flags() {
        assert_eq!(
            one("cmd+s"),
            Stroke::Code {
                code: 0x01,
                flags: FLAG_COMMAND
            }
        );
        assert_eq!(
            one("ctrl+shift+t"),
            Stroke::Code {
                code: 0x11,
                flags: FLAG_CONTROL | FLAG_SHIFT
            }
        );
        assert_eq!(
            one("enter"),
            Stroke::Code {
                code: RETURN,
                flags: 0
            }
        );
        assert_eq!(
            one("f5"),
            Stroke::Code {
                code: 0x60,
                flags: 0
            }
        );
        assert_eq!(
            one("super"),
            Stroke::Code {
                code: 0x37,
                flags: FLAG_COMMAND
            }
        );
        // Shifted characters add Shift.
        assert_eq!(
            one("ctrl+plus"),
            Stroke::Code {
                code: 0x18,
                flags: FLAG_CONTROL | FLAG_SHIFT
            }
        );
        assert_eq!(char_code('A'), Some((0x00, true)));
        // No ANSI key types it: the character itself.
        assert_eq!(one("é"), Stroke::Unicode('é'));
    }

    #[test]
    fn every_ansi_character_has_a_distinct_key() {
        let mut seen = std::collections::HashSet::new();
        for c in "abcdefghijklmnopqrstuvwxyz0123456789-=[];',./\\`".chars() {
            let (code, shift) = char_code(c).unwrap();
            assert!(!shift, "{c}");
            assert!(seen.insert(code), "{c} shares key {code:#x}");
        }
        assert_eq!(char_code('z'), Some((0x06, false)));
        assert_eq!(char_code('m'), Some((0x2E, false)));
        assert_eq!(char_code('?'), Some((0x2C, true)));
    }

    #[test]
    fn keys_a_mac_lacks_are_refused() {
        let c = Combo::parse("printscreen").unwrap();
        let e = stroke(&c.modifiers, &c.key).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidKey);
    }
}
