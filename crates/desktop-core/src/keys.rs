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
    /// A printable character (`a`, `5`, `/`, `é`).
    Char(char),
    /// A named key, in its canonical spelling (`Return`, `Tab`, `F5`, `Page_Up`, ...).
    Named(&'static str),
    /// Only modifiers were given (`super`): the last one is pressed as a key.
    ModifierOnly(Modifier),
}

/// A parsed combo: modifiers in the order given, then the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Combo {
    pub modifiers: Vec<Modifier>,
    pub key: Key,
}

const NAMED: &[(&[&str], &str)] = &[
    (&["enter", "return", "ret"], "Return"),
    (&["tab"], "Tab"),
    (&["esc", "escape"], "Escape"),
    (&["space", "spacebar"], "space"),
    (&["backspace", "bksp"], "BackSpace"),
    (&["delete", "del"], "Delete"),
    (&["insert", "ins"], "Insert"),
    (&["home"], "Home"),
    (&["end"], "End"),
    (&["pageup", "pgup", "page_up", "prior"], "Page_Up"),
    (&["pagedown", "pgdn", "page_down", "next"], "Page_Down"),
    (&["up", "arrowup", "uparrow"], "Up"),
    (&["down", "arrowdown", "downarrow"], "Down"),
    (&["left", "arrowleft", "leftarrow"], "Left"),
    (&["right", "arrowright", "rightarrow"], "Right"),
    (&["menu", "contextmenu", "apps"], "Menu"),
    (&["printscreen", "print", "prtsc"], "Print"),
    (&["capslock", "caps"], "Caps_Lock"),
    (&["numlock"], "Num_Lock"),
    (&["scrolllock"], "Scroll_Lock"),
    (&["pause", "break"], "Pause"),
    (&["plus"], "plus"),
    (&["minus"], "minus"),
    (&["comma"], "comma"),
    (&["period", "dot"], "period"),
    (&["slash"], "slash"),
    (&["backslash"], "backslash"),
    (&["semicolon"], "semicolon"),
    (&["apostrophe", "quote"], "apostrophe"),
    (&["grave", "backtick"], "grave"),
    (&["bracketleft", "lbracket"], "bracketleft"),
    (&["bracketright", "rbracket"], "bracketright"),
    (&["equal", "equals"], "equal"),
];

const FUNCTION_KEYS: [&str; 24] = [
    "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "F13", "F14", "F15",
    "F16", "F17", "F18", "F19", "F20", "F21", "F22", "F23", "F24",
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
        } else if let Some((_, name)) = NAMED
            .iter()
            .find(|(names, _)| names.contains(&lower.as_str()))
        {
            Key::Named(name)
        } else if let Some(n) = lower
            .strip_prefix('f')
            .and_then(|n| n.parse::<usize>().ok())
        {
            match FUNCTION_KEYS.get(n.wrapping_sub(1)) {
                Some(name) => Key::Named(name),
                None => return Err(bad(combo, "function keys go from f1 to f24")),
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
            || (has(Modifier::Alt) && self.key == Key::Named("F4"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_split_words_and_repeat() {
        let s = sequence(["tab tab", "enter"], 2).unwrap();
        assert_eq!(s.len(), 6);
        assert_eq!(s[2].key, Key::Named("Return"));
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
        assert_eq!(Combo::parse("enter").unwrap().key, Key::Named("Return"));
        assert_eq!(Combo::parse("f5").unwrap().key, Key::Named("F5"));
        assert_eq!(
            Combo::parse("super").unwrap().key,
            Key::ModifierOnly(Modifier::Super)
        );
        assert_eq!(Combo::parse("ctrl+plus").unwrap().key, Key::Named("plus"));
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
