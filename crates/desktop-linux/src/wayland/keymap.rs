//! XKB keymaps for the virtual keyboard (pure). A virtual keyboard on Wayland brings its
//! own keymap, and clients load a new one when it arrives — Chromium on a worker thread,
//! translating keys that come meanwhile with the map it had — and they read meaning into
//! key codes too (Chromium takes the code of a context-menu key as that key, whatever it
//! types). So the base map is a US keyboard: every key at its own code, Shift for the
//! upper level, the same in every process (and most likely the map a client had before).
//! A character it lacks (any other script) is put for the moment on keys that only ever
//! type characters (the keypad, the international keys), a few at a time.

use std::collections::HashMap;

/// A key of the US layout: evdev code, its keysym, its keysym with Shift (0: none).
type Key = (u32, u32, u32);

/// Modifiers, named keys and F keys: one level each.
const SINGLE: &[(u32, u32)] = &[
    (42, 0xffe1),  // Shift_L
    (29, 0xffe3),  // Control_L
    (56, 0xffe9),  // Alt_L
    (125, 0xffeb), // Super_L
    (1, 0xff1b),   // Escape
    (14, 0xff08),  // BackSpace
    (15, 0xff09),  // Tab
    (28, 0xff0d),  // Return
    (58, 0xffe5),  // Caps_Lock
    (69, 0xff7f),  // Num_Lock
    (70, 0xff14),  // Scroll_Lock
    (99, 0xff61),  // Print
    (102, 0xff50), // Home
    (103, 0xff52), // Up
    (104, 0xff55), // Prior
    (105, 0xff51), // Left
    (106, 0xff53), // Right
    (107, 0xff57), // End
    (108, 0xff54), // Down
    (109, 0xff56), // Next
    (110, 0xff63), // Insert
    (111, 0xffff), // Delete
    (119, 0xff13), // Pause
    (127, 0xff67), // Menu
];

/// The printable keys: digits and punctuation rows, letters, space.
const PRINTABLE: &[Key] = &[
    (2, 0x31, 0x21),
    (3, 0x32, 0x40),
    (4, 0x33, 0x23),
    (5, 0x34, 0x24),
    (6, 0x35, 0x25),
    (7, 0x36, 0x5e),
    (8, 0x37, 0x26),
    (9, 0x38, 0x2a),
    (10, 0x39, 0x28),
    (11, 0x30, 0x29),
    (12, 0x2d, 0x5f),
    (13, 0x3d, 0x2b),
    (26, 0x5b, 0x7b),
    (27, 0x5d, 0x7d),
    (39, 0x3b, 0x3a),
    (40, 0x27, 0x22),
    (41, 0x60, 0x7e),
    (43, 0x5c, 0x7c),
    (51, 0x2c, 0x3c),
    (52, 0x2e, 0x3e),
    (53, 0x2f, 0x3f),
    (57, 0x20, 0),
    (16, 0x71, 0x51),
    (17, 0x77, 0x57),
    (18, 0x65, 0x45),
    (19, 0x72, 0x52),
    (20, 0x74, 0x54),
    (21, 0x79, 0x59),
    (22, 0x75, 0x55),
    (23, 0x69, 0x49),
    (24, 0x6f, 0x4f),
    (25, 0x70, 0x50),
    (30, 0x61, 0x41),
    (31, 0x73, 0x53),
    (32, 0x64, 0x44),
    (33, 0x66, 0x46),
    (34, 0x67, 0x47),
    (35, 0x68, 0x48),
    (36, 0x6a, 0x4a),
    (37, 0x6b, 0x4b),
    (38, 0x6c, 0x4c),
    (44, 0x7a, 0x5a),
    (45, 0x78, 0x58),
    (46, 0x63, 0x43),
    (47, 0x76, 0x56),
    (48, 0x62, 0x42),
    (49, 0x6e, 0x4e),
    (50, 0x6d, 0x4d),
];

/// Keys that only ever type characters: the keypad's digits and signs, the
/// international keys. Other characters go here, one level each, for the moment.
const SPARE: &[u32] = &[
    55, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 86, 89, 98, 117, 118, 121, 124, 179,
    180,
];

/// The modifiers' keysyms, their XKB names and masks.
const MODIFIERS: [(u32, &str, u32); 4] = [
    (0xffe1, "Shift", 1),
    (0xffe3, "Control", 4),
    (0xffe9, "Mod1", 8),
    (0xffeb, "Mod4", 64),
];

/// Shift_L's keysym and mask.
pub const SHIFT: u32 = 0xffe1;

/// How many characters beyond the base layout one keymap holds.
pub const fn capacity() -> usize {
    SPARE.len()
}

/// Where a keysym is: the key's evdev code, and whether Shift gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub code: u32,
    pub shift: bool,
}

/// A keymap: its text, and where each keysym in it is.
#[derive(Debug, Clone)]
pub struct Keymap {
    pub text: String,
    at: HashMap<u32, At>,
}

/// Every key of the base layout: evdev code, levels. F1–F24 added.
fn base() -> Vec<Key> {
    let mut keys: Vec<Key> = SINGLE.iter().map(|&(c, s)| (c, s, 0)).collect();
    keys.extend_from_slice(PRINTABLE);
    // F1–F10 at 59–68, F11 and F12 at 87 and 88, F13–F24 at 183–194.
    for n in 0..24u32 {
        let code = match n {
            0..=9 => 59 + n,
            10 => 87,
            11 => 88,
            _ => 183 + (n - 12),
        };
        keys.push((code, 0xffbe + n, 0));
    }
    keys
}

impl Keymap {
    /// The base layout plus those of `keysyms` it lacks (as many as [`capacity`] allows).
    pub fn new(keysyms: &[u32]) -> Keymap {
        let mut keys = base();
        let mut extra: Vec<u32> = Vec::new();
        for &k in keysyms {
            let known = keys
                .iter()
                .any(|&(_, lo, hi)| lo == k || (hi != 0 && hi == k));
            if !known && !extra.contains(&k) {
                extra.push(k);
            }
        }
        for (k, code) in extra.into_iter().zip(SPARE) {
            keys.push((*code, k, 0));
        }
        keys.sort_by_key(|(c, _, _)| *c);
        let mut keycodes = String::new();
        let mut symbols = String::new();
        let mut at = HashMap::new();
        for &(code, lo, hi) in &keys {
            let xkb = code + 8;
            keycodes.push_str(&format!("    <K{xkb}> = {xkb};\n"));
            if hi == 0 {
                symbols.push_str(&format!("    key <K{xkb}> {{ [ 0x{lo:08x} ] }};\n"));
            } else {
                symbols.push_str(&format!(
                    "    key <K{xkb}> {{ [ 0x{lo:08x}, 0x{hi:08x} ] }};\n"
                ));
                at.entry(hi).or_insert(At { code, shift: true });
            }
            at.insert(lo, At { code, shift: false });
        }
        for (sym, name, _) in MODIFIERS {
            if let Some(a) = at.get(&sym) {
                symbols.push_str(&format!(
                    "    modifier_map {name} {{ <K{}> }};\n",
                    a.code + 8
                ));
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
        Keymap { text, at }
    }

    /// Where `keysym` is.
    pub fn at(&self, keysym: u32) -> Option<At> {
        self.at.get(&keysym).copied()
    }

    /// Whether every one of `keysyms` has a key here.
    pub fn has_all(&self, keysyms: &[u32]) -> bool {
        keysyms.iter().all(|k| self.at.contains_key(k))
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
    fn a_us_keyboard_with_shift_for_the_upper_level() {
        let k = Keymap::new(&[]);
        let at = |s| k.at(s).unwrap();
        assert_eq!(
            at(0x61),
            At {
                code: 30,
                shift: false
            }
        ); // a
        assert_eq!(
            at(0x41),
            At {
                code: 30,
                shift: true
            }
        ); // A
        assert_eq!(
            at(0x40),
            At {
                code: 3,
                shift: true
            }
        ); // @
        assert_eq!(
            at(0x2e),
            At {
                code: 52,
                shift: false
            }
        ); // .
        assert_eq!(
            at(0xff0d),
            At {
                code: 28,
                shift: false
            }
        ); // Return
        assert_eq!(at(0xffe3).code, 29); // Control_L
        assert_eq!(at(0xffc9).code, 88); // F12
        assert!(k.text.contains("key <K38> { [ 0x00000061, 0x00000041 ] };"));
        assert!(k.text.contains("modifier_map Control { <K37> };"));
        // All of printable ASCII, in every process the same.
        assert!((0x20..=0x7e).all(|c| k.at(c).is_some()));
        assert_eq!(Keymap::new(&[]).text, k.text);
        // No code is used twice.
        let mut codes: Vec<u32> = base().iter().map(|k| k.0).collect();
        codes.extend_from_slice(SPARE);
        let n = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), n);
    }

    #[test]
    fn other_characters_go_on_keys_that_only_type() {
        let cjk = 0x0100_4e2d;
        let k = Keymap::new(&[0x61, cjk, cjk, 0xeb]);
        assert_eq!(
            k.at(cjk),
            Some(At {
                code: SPARE[0],
                shift: false
            })
        );
        assert_eq!(
            k.at(0xeb),
            Some(At {
                code: SPARE[1],
                shift: false
            })
        );
        assert_eq!(k.at(0x61).unwrap().code, 30);
        let many: Vec<u32> = (0..100).map(|i| 0x0100_4e00 + i).collect();
        let full = Keymap::new(&many);
        assert!(full.at(many[capacity() - 1]).is_some());
        assert!(full.at(many[capacity()]).is_none());
        assert_eq!(mask_of(0xffe3), 4);
        assert_eq!(mask_of(0x61), 0);
    }
}
