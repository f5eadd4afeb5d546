//! XKB keymaps for the virtual keyboard (pure). A virtual keyboard on Wayland brings its
//! own keymap, and clients load a new one when it arrives — Chromium on a worker thread,
//! translating the keys that come meanwhile with the map it had. So the map rarely
//! changes: one base layout, the same in every process, with letters, digits, modifiers
//! and named keys at their US keyboard's codes (what an app watching physical keys expects,
//! and what the map a client had before most likely said too), the rest of ASCII on codes
//! of their own; a character outside it (any script) is added for the moment, one level
//! per key, with a pause for the clients to load the map.

use std::collections::HashMap;

/// Evdev codes XKB can address (XKB key code − 8).
const LAST_CODE: u32 = 247;

/// Keysyms at their US keyboard's evdev codes (`linux/input-event-codes.h`).
const PLACED: &[(u32, u32)] = &[
    // Modifiers: Shift_L, Control_L, Alt_L, Super_L.
    (0xffe1, 42),
    (0xffe3, 29),
    (0xffe9, 56),
    (0xffeb, 125),
    // Named keys.
    (0xff1b, 1),   // Escape
    (0xff08, 14),  // BackSpace
    (0xff09, 15),  // Tab
    (0xff0d, 28),  // Return
    (0x0020, 57),  // space
    (0xffe5, 58),  // Caps_Lock
    (0xff7f, 69),  // Num_Lock
    (0xff14, 70),  // Scroll_Lock
    (0xff61, 99),  // Print
    (0xff50, 102), // Home
    (0xff52, 103), // Up
    (0xff55, 104), // Prior
    (0xff51, 105), // Left
    (0xff53, 106), // Right
    (0xff57, 107), // End
    (0xff54, 108), // Down
    (0xff56, 109), // Next
    (0xff63, 110), // Insert
    (0xffff, 111), // Delete
    (0xff13, 119), // Pause
    (0xff67, 127), // Menu
    // Digits 1–9, 0.
    (0x31, 2),
    (0x32, 3),
    (0x33, 4),
    (0x34, 5),
    (0x35, 6),
    (0x36, 7),
    (0x37, 8),
    (0x38, 9),
    (0x39, 10),
    (0x30, 11),
    // Letters, QWERTY rows.
    (0x71, 16),
    (0x77, 17),
    (0x65, 18),
    (0x72, 19),
    (0x74, 20),
    (0x79, 21),
    (0x75, 22),
    (0x69, 23),
    (0x6f, 24),
    (0x70, 25),
    (0x61, 30),
    (0x73, 31),
    (0x64, 32),
    (0x66, 33),
    (0x67, 34),
    (0x68, 35),
    (0x6a, 36),
    (0x6b, 37),
    (0x6c, 38),
    (0x7a, 44),
    (0x78, 45),
    (0x63, 46),
    (0x76, 47),
    (0x62, 48),
    (0x6e, 49),
    (0x6d, 50),
];

/// The modifiers' keysyms, their XKB names and masks.
const MODIFIERS: [(u32, &str, u32); 4] = [
    (0xffe1, "Shift", 1),
    (0xffe3, "Control", 4),
    (0xffe9, "Mod1", 8),
    (0xffeb, "Mod4", 64),
];

/// Every keysym of the base layout: the placed ones, F1–F24, then the rest of printable
/// ASCII (on free codes, in keysym order).
fn base() -> Vec<(u32, u32)> {
    let mut keys: Vec<(u32, u32)> = PLACED.to_vec();
    // F1–F10 at 59–68, F11 and F12 at 87 and 88, F13–F24 at 183–194.
    for n in 0..24u32 {
        let code = match n {
            0..=9 => 59 + n,
            10 => 87,
            11 => 88,
            _ => 183 + (n - 12),
        };
        keys.push((0xffbe + n, code));
    }
    let rest: Vec<u32> = (0x21..=0x7eu32)
        .filter(|k| !keys.iter().any(|(s, _)| s == k))
        .collect();
    let mut free = free_codes(&keys);
    for k in rest {
        if let Some(code) = free.next() {
            keys.push((k, code));
        }
    }
    keys
}

fn free_codes(taken: &[(u32, u32)]) -> impl Iterator<Item = u32> {
    let used: Vec<u32> = taken.iter().map(|(_, c)| *c).collect();
    (1..=LAST_CODE).filter(move |c| !used.contains(c))
}

/// How many keysyms beyond the base one keymap holds.
pub fn capacity() -> usize {
    LAST_CODE as usize - base().len()
}

/// A keymap: its text, and the evdev code of each keysym in it.
#[derive(Debug, Clone)]
pub struct Keymap {
    pub text: String,
    codes: HashMap<u32, u32>,
}

impl Keymap {
    /// The base layout plus those of `keysyms` it lacks (as many as fit).
    pub fn new(keysyms: &[u32]) -> Keymap {
        let mut keys = base();
        let mut extra: Vec<u32> = keysyms
            .iter()
            .copied()
            .filter(|k| !keys.iter().any(|(s, _)| s == k))
            .collect();
        extra.dedup();
        let mut seen = Vec::new();
        extra.retain(|k| {
            let new = !seen.contains(k);
            seen.push(*k);
            new
        });
        let mut free = free_codes(&keys).collect::<Vec<_>>().into_iter();
        for k in extra {
            match free.next() {
                Some(code) => keys.push((k, code)),
                None => break,
            }
        }
        keys.sort_by_key(|(_, c)| *c);
        let mut keycodes = String::new();
        let mut symbols = String::new();
        for (sym, code) in &keys {
            let xkb = code + 8;
            keycodes.push_str(&format!("    <K{xkb}> = {xkb};\n"));
            symbols.push_str(&format!("    key <K{xkb}> {{ [ 0x{sym:08x} ] }};\n"));
        }
        for (sym, name, _) in MODIFIERS {
            if let Some((_, code)) = keys.iter().find(|(s, _)| *s == sym) {
                symbols.push_str(&format!("    modifier_map {name} {{ <K{}> }};\n", code + 8));
            }
        }
        let text = format!(
            "xkb_keymap {{\n\
             xkb_keycodes \"desktop-cli\" {{\n    minimum = 8;\n    maximum = 255;\n{keycodes}}};\n\
             xkb_types \"desktop-cli\" {{ include \"complete\" }};\n\
             xkb_compatibility \"desktop-cli\" {{ include \"complete\" }};\n\
             xkb_symbols \"desktop-cli\" {{\n{symbols}}};\n\
             }};\n"
        );
        Keymap {
            text,
            codes: keys.into_iter().collect(),
        }
    }

    /// The evdev code typing `keysym`.
    pub fn code(&self, keysym: u32) -> Option<u32> {
        self.codes.get(&keysym).copied()
    }

    /// Whether every one of `keysyms` has a key here.
    pub fn has_all(&self, keysyms: &[u32]) -> bool {
        keysyms.iter().all(|k| self.codes.contains_key(k))
    }
}

/// The modifier mask a held modifier keysym adds (0 for other keys).
pub fn mask_of(keysym: u32) -> u32 {
    MODIFIERS.iter().find(|m| m.0 == keysym).map_or(0, |m| m.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_digits_and_named_keys_sit_where_a_us_keyboard_has_them() {
        let k = Keymap::new(&[]);
        assert_eq!(k.codes.len(), base().len());
        assert_eq!(k.code(0x61), Some(30)); // a
        assert_eq!(k.code(0x7a), Some(44)); // z
        assert_eq!(k.code(0x30), Some(11)); // 0
        assert_eq!(k.code(0xff0d), Some(28)); // Return
        assert_eq!(k.code(0xffe3), Some(29)); // Control_L
        assert_eq!(k.code(0xffc9), Some(88)); // F12
        assert!(k.text.contains("<K38> = 38;")); // a: XKB code 30 + 8
        assert!(k.text.contains("modifier_map Control { <K37> };"));
        // The rest of ASCII has keys too, the same in every map.
        assert!(k.has_all(&[0x41, 0x40, 0x7e, 0x21]));
        assert_eq!(Keymap::new(&[]).code(0x40), k.code(0x40));
        // Every code is used once.
        let mut codes: Vec<u32> = k.codes.values().copied().collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), k.codes.len());
    }

    #[test]
    fn other_characters_are_added_while_they_fit() {
        let cjk = 0x0100_4e2d;
        let k = Keymap::new(&[0x61, cjk, cjk]);
        assert_eq!(k.codes.len(), base().len() + 1);
        assert!(k.code(cjk).is_some_and(|c| c <= LAST_CODE));
        assert_eq!(k.code(0x61), Some(30));
        let many: Vec<u32> = (0..400).map(|i| 0x0100_4e00 + i).collect();
        let full = Keymap::new(&many);
        assert!(full.code(many[capacity() - 1]).is_some());
        assert!(full.code(many[capacity()]).is_none());
        assert!(capacity() >= 90, "room for a line of another script");
        assert_eq!(mask_of(0xffe3), 4);
        assert_eq!(mask_of(0x61), 0);
    }
}
#[cfg(test)]
mod dbg {
    #[test]
    fn show() {
        let syms: Vec<u32> = "Zoë Ωμέγα 中文 😀".chars().map(crate::input::keysym_for_char).collect();
        let k = super::Keymap::new(&syms);
        for s in syms { eprintln!("{s:#x} -> {:?}", k.code(s)); }
        eprintln!("base {}", super::base().len());
    }
}
