//! Key combos as agents write them (`ctrl+shift+t`, `enter`, `super`, `f5`), parsed into
//! modifiers and one key; platform backends map them to their key codes.

use crate::error::{Error, ErrorCode, Result};

/// A modifier held while the key is pressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Modifier {
    Ctrl,
    Shift,
    Alt,
    Super,
    Meta,
    AltGr,
}

/// The key pressed (after the modifiers).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// A printable character (`a`, `5`, `/`, `é`, `+`).
    Char(char),
    /// A key that types no character.
    Named(NamedKey),
    /// Only modifiers were given (`super`): the last one is pressed as a key.
    ModifierOnly(Modifier),
}

/// The keys that type no character, as every platform has them; each backend maps them to
/// its own key codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NamedKey {
    Enter,
    Tab,
    Escape,
    Space,
    Backspace,
    Delete,
    Insert,
    Home,
    End,
    PageUp,
    PageDown,
    Up,
    Down,
    Left,
    Right,
    Menu,
    PrintScreen,
    CapsLock,
    NumLock,
    ScrollLock,
    Pause,
    /// A function key, F1 to F24.
    F(u8),
}

/// A parsed combo: modifiers in the order given, then the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Combo {
    pub modifiers: Vec<Modifier>,
    pub key: Key,
}

/// The names agents write for keys without a character, and for characters that are hard
/// to write in a combo (`ctrl+plus`).
enum Word {
    Key(NamedKey),
    Char(char),
}

const NAMED: &[(&[&str], Word)] = &[
    (&["enter", "return", "ret"], Word::Key(NamedKey::Enter)),
    (&["tab"], Word::Key(NamedKey::Tab)),
    (&["esc", "escape"], Word::Key(NamedKey::Escape)),
    (&["space", "spacebar"], Word::Key(NamedKey::Space)),
    (&["backspace", "bksp"], Word::Key(NamedKey::Backspace)),
    (&["delete", "del"], Word::Key(NamedKey::Delete)),
    (&["insert", "ins"], Word::Key(NamedKey::Insert)),
    (&["home"], Word::Key(NamedKey::Home)),
    (&["end"], Word::Key(NamedKey::End)),
    (
        &["pageup", "pgup", "page_up", "prior"],
        Word::Key(NamedKey::PageUp),
    ),
    (
        &["pagedown", "pgdn", "page_down", "next"],
        Word::Key(NamedKey::PageDown),
    ),
    (&["up", "arrowup", "uparrow"], Word::Key(NamedKey::Up)),
    (
        &["down", "arrowdown", "downarrow"],
        Word::Key(NamedKey::Down),
    ),
    (
        &["left", "arrowleft", "leftarrow"],
        Word::Key(NamedKey::Left),
    ),
    (
        &["right", "arrowright", "rightarrow"],
        Word::Key(NamedKey::Right),
    ),
    (&["menu", "contextmenu", "apps"], Word::Key(NamedKey::Menu)),
    (
        &["printscreen", "print", "prtsc"],
        Word::Key(NamedKey::PrintScreen),
    ),
    (&["capslock", "caps"], Word::Key(NamedKey::CapsLock)),
    (&["numlock"], Word::Key(NamedKey::NumLock)),
    (&["scrolllock"], Word::Key(NamedKey::ScrollLock)),
    (&["pause", "break"], Word::Key(NamedKey::Pause)),
    (&["plus"], Word::Char('+')),
    (&["minus"], Word::Char('-')),
    (&["comma"], Word::Char(',')),
    (&["period", "dot"], Word::Char('.')),
    (&["slash"], Word::Char('/')),
    (&["backslash"], Word::Char('\\')),
    (&["semicolon"], Word::Char(';')),
    (&["apostrophe", "quote"], Word::Char('\'')),
    (&["grave", "backtick"], Word::Char('`')),
    (&["bracketleft", "lbracket"], Word::Char('[')),
    (&["bracketright", "rbracket"], Word::Char(']')),
    (&["equal", "equals"], Word::Char('=')),
];

fn modifier(word: &str) -> Option<Modifier> {
    Some(match word {
        "ctrl" | "control" | "ctl" => Modifier::Ctrl,
        "shift" => Modifier::Shift,
        "alt" | "option" | "opt" => Modifier::Alt,
        "super" | "win" | "windows" | "cmd" | "command" | "logo" => Modifier::Super,
        "meta" => Modifier::Meta,
        "altgr" => Modifier::AltGr,
        _ => return None,
    })
}

/// A key sequence as faces take it: combos tapped in turn, given as separate words or
/// separated by spaces within one (`["tab", "tab enter"]`), the whole run `repeat` times.
pub fn sequence<'a>(words: impl IntoIterator<Item = &'a str>, repeat: u32) -> Result<Vec<Combo>> {
    if repeat == 0 || repeat > MAX_REPEAT {
        return Err(Error::invalid_args(format!(
            "repeat must be 1 to {MAX_REPEAT}, not {repeat}"
        )));
    }
    let one: Vec<Combo> = words
        .into_iter()
        .flat_map(str::split_whitespace)
        .map(Combo::parse)
        .collect::<Result<_>>()?;
    if one.is_empty() {
        return Err(Error::new(ErrorCode::InvalidKey, "no key to press")
            .suggest("Give one or more combos: enter, tab tab enter, ctrl+s"));
    }
    Ok((0..repeat).flat_map(|_| one.iter().cloned()).collect())
}

/// Most taps of one sequence's repeat (a slider's whole range, a long list).
pub const MAX_REPEAT: u32 = 200;

/// The modifiers held around a click, written `ctrl`, `ctrl,shift` or `ctrl+shift` (one
/// word per item of `words`, each item may hold several). Repeats are refused.
pub fn parse_modifiers<'a>(words: impl IntoIterator<Item = &'a str>) -> Result<Vec<Modifier>> {
    let mut out = Vec::new();
    for word in words
        .into_iter()
        .flat_map(|w| w.split([',', '+']))
        .map(str::trim)
        .filter(|w| !w.is_empty())
    {
        let m = modifier(&word.to_lowercase()).ok_or_else(|| {
            Error::invalid_args(format!("`{word}` is not a modifier"))
                .suggest("Modifiers: ctrl shift alt super meta altgr, e.g. ctrl or ctrl,shift")
        })?;
        if out.contains(&m) {
            return Err(Error::invalid_args(format!(
                "the modifier `{word}` is repeated"
            )));
        }
        out.push(m);
    }
    Ok(out)
}

impl Modifier {
    /// The name written in combos and results (`ctrl`).
    pub fn name(self) -> &'static str {
        match self {
            Modifier::Ctrl => "ctrl",
            Modifier::Shift => "shift",
            Modifier::Alt => "alt",
            Modifier::Super => "super",
            Modifier::Meta => "meta",
            Modifier::AltGr => "altgr",
        }
    }
}

fn bad(combo: &str, why: &str) -> Error {
    Error::new(ErrorCode::InvalidKey, format!("bad key combo `{combo}`: {why}")).suggest(
        "Write modifiers and one key joined by '+': ctrl+shift+t, alt+f4, enter, super, f5, ctrl+plus. \
         Modifiers: ctrl shift alt super meta altgr",
    )
}

impl Combo {
    /// Parses `ctrl+shift+t`. Case-insensitive; `+` itself is written `plus`.
    pub fn parse(combo: &str) -> Result<Combo> {
        let text = combo.trim();
        if text.is_empty() {
            return Err(bad(combo, "it is empty"));
        }
        let parts: Vec<&str> = text.split('+').map(str::trim).collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(bad(combo, "an empty part (write `+` as `plus`)"));
        }
        let mut modifiers = Vec::new();
        let (last, mods) = parts
            .split_last()
            .ok_or_else(|| bad(combo, "it is empty"))?;
        for m in mods {
            let m = modifier(&m.to_lowercase())
                .ok_or_else(|| bad(combo, &format!("`{m}` is not a modifier")))?;
            if modifiers.contains(&m) {
                return Err(bad(combo, "a modifier is repeated"));
            }
            modifiers.push(m);
        }
        let lower = last.to_lowercase();
        let key = if let Some(m) = modifier(&lower) {
            if modifiers.contains(&m) {
                return Err(bad(combo, "a modifier is repeated"));
            }
            Key::ModifierOnly(m)
        } else if let Some((_, word)) = NAMED
            .iter()
            .find(|(names, _)| names.contains(&lower.as_str()))
        {
            match word {
                Word::Key(k) => Key::Named(*k),
                Word::Char(c) => Key::Char(*c),
            }
        } else if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
            match n {
                1..=24 => Key::Named(NamedKey::F(n)),
                _ => return Err(bad(combo, "function keys go from f1 to f24")),
            }
        } else {
            let mut chars = last.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if !c.is_control() => Key::Char(if modifiers.is_empty() {
                    c
                } else {
                    c.to_ascii_lowercase()
                }),
                _ => return Err(bad(combo, &format!("`{last}` is not a key name"))),
            }
        };
        Ok(Combo { modifiers, key })
    }

    /// Whether pressing this could do something drastic to a session (ctrl+alt+del,
    /// super, alt+f4, ...): for an agent loop's confirmation policy.
    pub fn is_risky(&self) -> bool {
        let has = |m| self.modifiers.contains(&m);
        matches!(self.key, Key::ModifierOnly(Modifier::Super))
            || has(Modifier::Super)
            || (has(Modifier::Ctrl) && has(Modifier::Alt))
            || (has(Modifier::Alt) && self.key == Key::Named(NamedKey::F(4)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_split_words_and_repeat() {
        let s = sequence(["tab tab", "enter"], 2).unwrap();
        assert_eq!(s.len(), 6);
        assert_eq!(s[2].key, Key::Named(NamedKey::Enter));
        assert!(sequence(["  "], 1).is_err());
        assert!(sequence(["down"], 0).is_err());
        assert!(sequence(["down"], MAX_REPEAT + 1).is_err());
        assert!(sequence(["ctrl+"], 1).is_err());
    }

    #[test]
    fn modifier_lists_parse_and_refuse_repeats_and_strangers() {
        assert_eq!(
            parse_modifiers(["ctrl,Shift"]).unwrap(),
            [Modifier::Ctrl, Modifier::Shift]
        );
        assert_eq!(
            parse_modifiers(["alt", "super+meta"]).unwrap(),
            [Modifier::Alt, Modifier::Super, Modifier::Meta]
        );
        assert!(parse_modifiers(["ctrl,ctrl"]).is_err());
        assert!(parse_modifiers(["hyper"]).is_err());
        assert!(parse_modifiers(Vec::<&str>::new()).unwrap().is_empty());
    }

    #[test]
    fn combos_parse() {
        let c = Combo::parse("Ctrl+Shift+T").unwrap();
        assert_eq!(c.modifiers, [Modifier::Ctrl, Modifier::Shift]);
        assert_eq!(c.key, Key::Char('t'));
        assert_eq!(
            Combo::parse("enter").unwrap().key,
            Key::Named(NamedKey::Enter)
        );
        assert_eq!(
            Combo::parse("Return").unwrap().key,
            Key::Named(NamedKey::Enter)
        );
        assert_eq!(
            Combo::parse("Page_Up").unwrap().key,
            Key::Named(NamedKey::PageUp)
        );
        assert_eq!(Combo::parse("f5").unwrap().key, Key::Named(NamedKey::F(5)));
        assert_eq!(
            Combo::parse("super").unwrap().key,
            Key::ModifierOnly(Modifier::Super)
        );
        assert_eq!(Combo::parse("ctrl+plus").unwrap().key, Key::Char('+'));
        assert_eq!(Combo::parse("A").unwrap().key, Key::Char('A'));
        assert_eq!(Combo::parse("é").unwrap().key, Key::Char('é'));
        assert!(Combo::parse("ctrl+alt+delete").unwrap().is_risky());
        assert!(!Combo::parse("ctrl+a").unwrap().is_risky());
    }

    #[test]
    fn malformed_combos_are_rejected() {
        for bad in [
            "",
            "ctrl++",
            "hyper+q",
            "ctrl+",
            "+a",
            "ctrl+ctrl+a",
            "f0",
            "f25",
            "ctrl+shift",
            "abc",
            "ctrl+foo",
        ] {
            let e = Combo::parse(bad);
            if bad == "ctrl+shift" {
                // Modifiers alone are a valid combo: the last is pressed as a key.
                assert!(e.is_ok());
                continue;
            }
            let e = e.unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidKey, "{bad}");
            assert!(e.suggestion.is_some());
        }
    }
}
