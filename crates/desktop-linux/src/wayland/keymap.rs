//! XKB keymaps made for what is about to be typed (pure): a virtual keyboard on Wayland
//! brings its own keymap, so every character (any script) and key gets a key code of its
//! own, one level each, and the four modifiers keys of their own mapped to their masks.

use std::collections::HashMap;

/// The first XKB key code (evdev code + 8) handed out.
const FIRST: u32 = 9;
/// The last one XKB allows.
const LAST: u32 = 255;

/// The modifiers' keysyms, in the order of their key codes and masks below.
pub const MODIFIERS: [(u32, &str, u32); 4] = [
    (0xffe1, "Shift", 1),   // Shift_L
    (0xffe3, "Control", 4), // Control_L
    (0xffe9, "Mod1", 8),    // Alt_L
    (0xffeb, "Mod4", 64),   // Super_L
];

/// How many other keysyms fit in one keymap.
pub const CAPACITY: usize = (LAST - FIRST + 1) as usize - MODIFIERS.len();

/// A keymap: its text, and the evdev code of each keysym in it.
#[derive(Debug, Clone)]
pub struct Keymap {
    pub text: String,
    codes: HashMap<u32, u32>,
}

impl Keymap {
    /// A keymap with the modifiers and `keysyms` (at most [`CAPACITY`] of them after the
    /// modifiers' own; the rest are left out).
    pub fn new(keysyms: &[u32]) -> Keymap {
        let mut all: Vec<u32> = MODIFIERS.iter().map(|m| m.0).collect();
        for k in keysyms {
            if !all.contains(k) && all.len() < MODIFIERS.len() + CAPACITY {
                all.push(*k);
            }
        }
        let mut keycodes = String::new();
        let mut symbols = String::new();
        let mut codes = HashMap::new();
        for (i, sym) in all.iter().enumerate() {
            let code = FIRST + i as u32;
            keycodes.push_str(&format!("    <K{code}> = {code};\n"));
            symbols.push_str(&format!("    key <K{code}> {{ [ 0x{sym:08x} ] }};\n"));
            codes.insert(*sym, code - 8);
        }
        for (i, (_, name, _)) in MODIFIERS.iter().enumerate() {
            symbols.push_str(&format!(
                "    modifier_map {name} {{ <K{}> }};\n",
                FIRST + i as u32
            ));
        }
        let text = format!(
            "xkb_keymap {{\n\
             xkb_keycodes \"desktop-cli\" {{\n    minimum = 8;\n    maximum = 255;\n{keycodes}}};\n\
             xkb_types \"desktop-cli\" {{ include \"complete\" }};\n\
             xkb_compatibility \"desktop-cli\" {{ include \"complete\" }};\n\
             xkb_symbols \"desktop-cli\" {{\n{symbols}}};\n\
             }};\n"
        );
        Keymap { text, codes }
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
    fn every_keysym_gets_a_code_after_the_modifiers() {
        let k = Keymap::new(&[0x61, 0x0100_4e2d, 0xff0d, 0x61]);
        assert_eq!(k.code(0xffe1), Some(1));
        assert_eq!(k.code(0xffeb), Some(4));
        assert_eq!(k.code(0x61), Some(5));
        assert_eq!(k.code(0x0100_4e2d), Some(6));
        assert_eq!(k.code(0xff0d), Some(7));
        assert!(k.text.contains("<K13> = 13;"));
        assert!(k.text.contains("key <K14> { [ 0x01004e2d ] };"));
        assert!(k.text.contains("modifier_map Control { <K10> };"));
        assert!(k.has_all(&[0x61, 0xff0d]));
        assert!(!k.has_all(&[0x62]));
    }

    #[test]
    fn a_full_map_leaves_the_rest_out() {
        let many: Vec<u32> = (0..400).map(|i| 0x0100_4e00 + i).collect();
        let k = Keymap::new(&many);
        assert!(k.code(many[CAPACITY - 1]).is_some());
        assert!(k.code(many[CAPACITY]).is_none());
        assert_eq!(mask_of(0xffe3), 4);
        assert_eq!(mask_of(0x61), 0);
    }
}
