//! Text as `SendInput` types it: each character as `KEYEVENTF_UNICODE` UTF-16 units (a
//! character outside the BMP is its surrogate pair, sent back to back), newlines as the
//! Return key and tabs as the Tab key, which controls react to as keys.

/// One unit of typing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A UTF-16 code unit, sent with `KEYEVENTF_UNICODE` (down, then up).
    Utf16(u16),
    Return,
    Tab,
}

/// The units that type `text`.
pub fn units(text: &str) -> Vec<Unit> {
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(Unit::Return);
            }
            '\n' => out.push(Unit::Return),
            '\t' => out.push(Unit::Tab),
            c => {
                let mut buf = [0u16; 2];
                out.extend(c.encode_utf16(&mut buf).iter().map(|u| Unit::Utf16(*u)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_becomes_utf16_units_and_keys() {
        assert_eq!(
            units("a\r\nb\tc"),
            [
                Unit::Utf16(97),
                Unit::Return,
                Unit::Utf16(98),
                Unit::Tab,
                Unit::Utf16(99)
            ]
        );
        // An emoji is its surrogate pair, in order.
        assert_eq!(units("👋"), [Unit::Utf16(0xD83D), Unit::Utf16(0xDC4B)]);
        assert_eq!(units("é"), [Unit::Utf16(0xE9)]);
        assert!(units("").is_empty());
    }
}
