//! Key combos as Windows sends them: virtual-key codes for keys and modifiers
//! (`SendInput` with `KEYEVENTF_EXTENDEDKEY` where the key is on the extended block), and
//! characters without a key of their own as Unicode input. Pure tables.

use desktop_core::keys::{Key, Modifier, NamedKey};

/// One key of a combo as `SendInput` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stroke {
    /// A virtual key, and whether it is an extended key (arrows, Home, Delete, ...).
    Vk { vk: u16, extended: bool },
    /// A character sent as one UTF-16 unit or a surrogate pair (`KEYEVENTF_UNICODE`).
    Unicode(char),
}

/// A modifier's virtual key: Ctrl, Shift, Alt (Menu), the Windows key.
pub fn modifier_vk(m: Modifier) -> Stroke {
    let (vk, extended) = match m {
        Modifier::Ctrl => (0x11, false),
        Modifier::Shift => (0x10, false),
        Modifier::Alt => (0x12, false),
        // AltGr is Right Alt, an extended key.
        Modifier::AltGr => (0xA5, true),
        Modifier::Super | Modifier::Meta => (0x5B, true),
    };
    Stroke::Vk { vk, extended }
}

/// A key without a character.
pub fn named_vk(k: NamedKey) -> Stroke {
    let (vk, extended) = match k {
        NamedKey::Enter => (0x0D, false),
        NamedKey::Tab => (0x09, false),
        NamedKey::Escape => (0x1B, false),
        NamedKey::Space => (0x20, false),
        NamedKey::Backspace => (0x08, false),
        NamedKey::Delete => (0x2E, true),
        NamedKey::Insert => (0x2D, true),
        NamedKey::Home => (0x24, true),
        NamedKey::End => (0x23, true),
        NamedKey::PageUp => (0x21, true),
        NamedKey::PageDown => (0x22, true),
        NamedKey::Left => (0x25, true),
        NamedKey::Up => (0x26, true),
        NamedKey::Right => (0x27, true),
        NamedKey::Down => (0x28, true),
        NamedKey::Menu => (0x5D, true),
        NamedKey::PrintScreen => (0x2C, true),
        NamedKey::CapsLock => (0x14, false),
        NamedKey::NumLock => (0x90, true),
        NamedKey::ScrollLock => (0x91, false),
        NamedKey::Pause => (0x13, false),
        NamedKey::F(n) => (0x6F + u16::from(n.clamp(1, 24)), false),
    };
    Stroke::Vk { vk, extended }
}

/// The key of a character in a combo: letters and digits by their virtual keys (so
/// `ctrl+s` is a shortcut whatever the layout types), anything else as Unicode.
pub fn char_key(c: char) -> Stroke {
    match c.to_ascii_uppercase() {
        u @ ('A'..='Z' | '0'..='9') => Stroke::Vk {
            vk: u as u16,
            extended: false,
        },
        _ => Stroke::Unicode(c),
    }
}

/// The key pressed after the modifiers of a combo.
pub fn stroke(key: &Key) -> Stroke {
    match key {
        Key::Named(k) => named_vk(*k),
        Key::ModifierOnly(m) => modifier_vk(*m),
        Key::Char(c) => char_key(*c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use desktop_core::keys::Combo;

    #[test]
    fn combos_become_virtual_keys() {
        let c = Combo::parse("ctrl+shift+s").unwrap();
        assert_eq!(
            stroke(&c.key),
            Stroke::Vk {
                vk: 0x53,
                extended: false
            }
        );
        assert_eq!(
            modifier_vk(c.modifiers[0]),
            Stroke::Vk {
                vk: 0x11,
                extended: false
            }
        );
        assert_eq!(
            stroke(&Combo::parse("alt+f4").unwrap().key),
            Stroke::Vk {
                vk: 0x73,
                extended: false
            }
        );
        assert_eq!(
            stroke(&Combo::parse("up").unwrap().key),
            Stroke::Vk {
                vk: 0x26,
                extended: true
            }
        );
        assert_eq!(
            stroke(&Combo::parse("super").unwrap().key),
            Stroke::Vk {
                vk: 0x5B,
                extended: true
            }
        );
        assert_eq!(
            stroke(&Combo::parse("ctrl+plus").unwrap().key),
            Stroke::Unicode('+')
        );
        assert_eq!(
            named_vk(NamedKey::F(24)),
            Stroke::Vk {
                vk: 0x87,
                extended: false
            }
        );
    }
}
