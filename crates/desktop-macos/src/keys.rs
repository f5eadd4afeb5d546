//! Key combos as macOS posts them: virtual key codes (`kVK_*` of Carbon's `Events.h`, the
//! positions of an ANSI keyboard), the current layout's own character → key table (read by
//! `mac/layout.rs`), and `CGEventFlags` modifier masks. Pure tables; the events themselves
//! are made in `input.rs`.

use desktop_core::keys::{Key, Modifier, NamedKey};
use desktop_core::{Error, ErrorCode, Result};
use std::collections::HashMap;

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

/// The keys that type characters: the main block of ANSI, ISO (`kVK_ISO_Section`, 0x0A)
/// and JIS (`kVK_JIS_Yen`, `kVK_JIS_Underscore`) keyboards, without Return and Tab. The
/// keypad is left out: its digits are the same on every layout, and a digit sent from it
/// is another key to an app (on AZERTY a plain `1` would otherwise be the keypad's).
pub const CHARACTER_KEYS: [u16; 51] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,
    0x20, 0x21, 0x22, 0x23, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x31,
    0x32, 0x5D, 0x5E,
];

/// The modifiers a layout's table was read under. Layouts may type other characters with
/// Command held: "Dvorak - QWERTY ⌘" is QWERTY then, and Cyrillic or Greek layouts type
/// Latin letters, which is what an app's Cmd shortcuts match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    Plain,
    Shift,
    Command,
    CommandShift,
}

impl Level {
    pub const ALL: [Level; 4] = [
        Level::Plain,
        Level::Shift,
        Level::Command,
        Level::CommandShift,
    ];

    /// Whether a key at this level needs Shift held.
    fn shift(self) -> bool {
        matches!(self, Level::Shift | Level::CommandShift)
    }
}

/// Which key types each character on the current keyboard layout, per [`Level`], as the
/// layout's own table says. Empty where no layout could be read: then combos take the ANSI
/// table ([`char_code`]), as before there were layouts.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    keys: HashMap<(Level, char), u16>,
}

impl Layout {
    /// Records that `code` types `c` at `level`. Only [`CHARACTER_KEYS`] and printing
    /// characters count; where two keys type the same character the first recorded keeps it
    /// (they are read in key-code order).
    pub fn insert(&mut self, level: Level, code: u16, c: char) {
        let private_use = ('\u{E000}'..='\u{F8FF}').contains(&c);
        if !CHARACTER_KEYS.contains(&code) || c.is_control() || private_use {
            return;
        }
        self.keys.entry((level, c)).or_insert(code);
    }

    /// Whether the layout gave nothing at all.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key typing `c`, and whether Shift is needed for it; with Command held the
    /// layout's Command table first, then its plain one.
    pub fn code(&self, c: char, command: bool) -> Option<(u16, bool)> {
        let levels: &[Level] = if command { &Level::ALL[2..] } else { &[] };
        levels
            .iter()
            .chain(&Level::ALL[..2])
            .find_map(|l| self.keys.get(&(*l, c)).map(|code| (*code, l.shift())))
    }
}

/// The key for the character `c` of a combo held with `modifiers`: the layout's key that
/// types it; the ANSI key only where the layout gave nothing, that is, no layout could be
/// read, or a shortcut (a modifier besides Shift) names a character no key of the layout
/// types (`ctrl+c` on a Cyrillic layout: apps match those by the key's place). A plain
/// character the layout lacks has no key: the ANSI key would type another character there.
pub fn char_key(layout: &Layout, modifiers: &[Modifier], c: char) -> Option<(u16, bool)> {
    let command = modifiers
        .iter()
        .any(|m| matches!(m, Modifier::Super | Modifier::Meta));
    let shortcut = modifiers.iter().any(|m| *m != Modifier::Shift);
    layout
        .code(c, command)
        .or_else(|| (layout.is_empty() || shortcut).then(|| char_code(c))?)
}

/// What to post for one key of a combo: a key code and extra flags, or (a character no key
/// types here) the character itself on a key event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stroke {
    Code { code: u16, flags: u64 },
    Unicode(char),
}

/// The stroke for `key` held with `modifiers` on `layout`.
pub fn stroke(layout: &Layout, modifiers: &[Modifier], key: &Key) -> Result<Stroke> {
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
        Key::Char(c) => match char_key(layout, modifiers, *c) {
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
        on(&Layout::default(), combo)
    }

    fn on(layout: &Layout, combo: &str) -> Stroke {
        let c = Combo::parse(combo).unwrap();
        stroke(layout, &c.modifiers, &c.key).unwrap()
    }

    fn code(code: u16, flags: u64) -> Stroke {
        Stroke::Code { code, flags }
    }

    /// A layout from (level, key, character) rows, as `mac/layout.rs` reads them.
    fn layout(rows: &[(Level, u16, char)]) -> Layout {
        let mut l = Layout::default();
        for (level, code, c) in rows {
            l.insert(*level, *code, *c);
        }
        l
    }

    #[test]
    fn on_azerty_shortcuts_go_to_the_keys_that_type_their_letters() {
        use Level::*;
        // French AZERTY: A and Q swap places, Z and W too; the top row types & é " ' ( ...
        // plain and the digits with Shift; the keypad types digits plain.
        let fr = layout(&[
            (Plain, 0x00, 'q'),
            (Plain, 0x0C, 'a'),
            (Plain, 0x0D, 'z'),
            (Plain, 0x06, 'w'),
            (Plain, 0x12, '&'),
            (Plain, 0x53, '1'),
            (Plain, 0x24, '\r'),
            (Shift, 0x12, '1'),
            (Shift, 0x0C, 'A'),
            (Command, 0x00, 'q'),
            (Command, 0x0C, 'a'),
        ]);
        // Cmd+A selects all there, and is never the key of Cmd+Q.
        assert_eq!(on(&fr, "cmd+a"), code(0x0C, FLAG_COMMAND));
        assert_eq!(on(&fr, "cmd+q"), code(0x00, FLAG_COMMAND));
        assert_eq!(on(&fr, "ctrl+z"), code(0x0D, FLAG_CONTROL));
        assert_eq!(on(&fr, "A"), code(0x0C, FLAG_SHIFT));
        // A digit is the top row's with Shift, not the keypad's.
        assert_eq!(on(&fr, "1"), code(0x12, FLAG_SHIFT));
        assert_eq!(on(&fr, "&"), code(0x12, 0));
        // What the layout lacks but a shortcut names: the ANSI key.
        assert_eq!(on(&fr, "cmd+s"), code(0x01, FLAG_COMMAND));
    }

    #[test]
    fn the_command_table_of_a_layout_wins_with_command_held() {
        use Level::*;
        // Dvorak - QWERTY ⌘: C is on the ANSI I key, but QWERTY's C key with Command.
        let dvorak = layout(&[
            (Plain, 0x22, 'c'),
            (Command, 0x08, 'c'),
            (Command, 0x22, 'i'),
        ]);
        assert_eq!(on(&dvorak, "cmd+c"), code(0x08, FLAG_COMMAND));
        assert_eq!(on(&dvorak, "ctrl+c"), code(0x22, FLAG_CONTROL));
        assert_eq!(on(&dvorak, "c"), code(0x22, 0));
        // Russian: Cyrillic letters plain, Latin ones with Command.
        let ru = layout(&[(Plain, 0x00, 'ф'), (Command, 0x00, 'a')]);
        assert_eq!(on(&ru, "cmd+a"), code(0x00, FLAG_COMMAND));
        assert_eq!(on(&ru, "ф"), code(0x00, 0));
        // A plain Latin letter no key types there is posted as itself, not as the ANSI
        // key (which would type ф); a Ctrl shortcut goes to the ANSI key's place.
        assert_eq!(on(&ru, "a"), Stroke::Unicode('a'));
        assert_eq!(on(&ru, "ctrl+a"), code(0x00, FLAG_CONTROL));
    }

    #[test]
    fn a_layout_keeps_character_keys_and_printing_characters_only() {
        use Level::*;
        let l = layout(&[
            (Plain, 0x24, '\r'),
            (Plain, 0x7B, '\u{F702}'),
            (Plain, 0x53, '1'),
            (Plain, 0x35, '\u{1b}'),
            (Plain, 0x0A, '§'),
            (Plain, 0x32, '§'),
        ]);
        assert_eq!(l.code('\r', false), None);
        assert_eq!(l.code('\u{F702}', false), None);
        assert_eq!(l.code('1', false), None);
        // The first key found for a character keeps it.
        assert_eq!(l.code('§', false), Some((0x0A, false)));
        assert!(!l.is_empty());
        assert!(layout(&[(Plain, 0x53, '1')]).is_empty());
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
        let e = stroke(&Layout::default(), &c.modifiers, &c.key).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidKey);
    }
}
