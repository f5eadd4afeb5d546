//! Text as macOS takes it from synthetic key events: `CGEventKeyboardSetUnicodeString`
//! carries at most 20 UTF-16 units an event (longer strings are cut), so text goes in
//! chunks that never split a character, and newlines and tabs go as their own keys (a
//! field reacts to Return and Tab as keys, not as characters).

/// One event's worth of typing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Characters for one key event, at most [`MAX_UNITS`] UTF-16 units.
    Text(Vec<u16>),
    Return,
    Tab,
}

/// Most UTF-16 units one key event carries.
pub const MAX_UNITS: usize = 20;

/// Splits `text` into the events that type it.
pub fn pieces(text: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut chunk: Vec<u16> = Vec::new();
    let flush = |chunk: &mut Vec<u16>, out: &mut Vec<Piece>| {
        if !chunk.is_empty() {
            out.push(Piece::Text(std::mem::take(chunk)));
        }
    };
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                // \r\n is one newline.
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                flush(&mut chunk, &mut out);
                out.push(Piece::Return);
            }
            '\n' => {
                flush(&mut chunk, &mut out);
                out.push(Piece::Return);
            }
            '\t' => {
                flush(&mut chunk, &mut out);
                out.push(Piece::Tab);
            }
            c => {
                let mut units = [0u16; 2];
                let units = c.encode_utf16(&mut units);
                if chunk.len() + units.len() > MAX_UNITS {
                    flush(&mut chunk, &mut out);
                }
                chunk.extend_from_slice(units);
            }
        }
    }
    flush(&mut chunk, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(p: &Piece) -> String {
        match p {
            Piece::Text(u) => String::from_utf16(u).unwrap(),
            Piece::Return => "⏎".into(),
            Piece::Tab => "⇥".into(),
        }
    }

    #[test]
    fn long_text_goes_in_chunks_of_twenty_units() {
        let p = pieces(&"a".repeat(45));
        assert_eq!(
            p.iter().map(text).collect::<Vec<_>>(),
            ["a".repeat(20), "a".repeat(20), "a".repeat(5)]
        );
    }

    #[test]
    fn a_character_outside_the_bmp_is_never_split() {
        // 19 units, then an emoji of two: the emoji starts the next event.
        let s = format!("{}👋b", "x".repeat(19));
        let p = pieces(&s);
        assert_eq!(
            p.iter().map(text).collect::<Vec<_>>(),
            ["x".repeat(19), "👋b".to_string()]
        );
        for piece in &p {
            if let Piece::Text(u) = piece {
                assert!(u.len() <= MAX_UNITS);
                assert!(String::from_utf16(u).is_ok(), "no half of a surrogate pair");
            }
        }
    }

    #[test]
    fn newlines_and_tabs_are_keys() {
        let p = pieces("one\r\ntwo\nthree\tfour");
        assert_eq!(p.iter().map(text).collect::<String>(), "one⏎two⏎three⇥four");
        assert_eq!(pieces(""), Vec::<Piece>::new());
    }
}
