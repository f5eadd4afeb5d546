//! How many tokens a text costs a model, estimated the way the o200k tokenizer (GPT-4o,
//! GPT-5; Claude's is close) cuts it: its pre-tokenizer's pieces (words with one leading
//! space or mark, digits in threes, runs of punctuation, whitespace), each costed by what
//! such a piece takes. On reads of GTK and Chromium windows it comes to 0.95–1.10 of the
//! exact count (median 1.00 for text, 1.02 for JSON; `bench/tokens_est.py` measures it
//! against `gpt-tokenizer`); exact counting would take a 4 MB vocabulary and ~100 ms to load
//! on every call.

/// Runs of marks o200k holds as one token (what JSON and the text tree are made of).
const ONE_TOKEN_MARKS: &[&str] = &[
    " \"", " \"#", " \"(", " \"*", " \"/", " (", " (\"", " -", " --", " =", " \\", "!\"", "!\"\n",
    "\"\n", "\"#", "\"(", "\")", "\"*", "\",", "\",\"", "\"/", "\":", "\":\"", "\":[", "\":{\"",
    "\"}", "\"},", "\"},{\"", "%\"", "%\"\n", "%\",", "%,", "(\"", ")\n", ")\"", ")\"\n", ")\",",
    ",\"", ",-", ",{", "--", ".\"", ".\"\n", ".\",", ".\",\"", "...", ".\\", "/\"", "/\"\n",
    "/\",", "//", "///", ":\"", ":\"\n", ":\"#", ":\",", ":/", "://", ":///", "::", ":[", ":\\",
    ":{", "?\"", "?\"\n", "?\",", "[-", "[{", "],", "],\"", "]}", "]},", "{\"", "}\n", "},",
    "},\"", "},{", "},{\"", "}]", "}}", "}}\n",
];

/// Words of this program's own output that are one token (roles, states, keys).
const ONE_TOKEN_WORDS: &[&str] = &[
    "a",
    "actions",
    "alert",
    "app",
    "b",
    "boxes",
    "btn",
    "c",
    "cell",
    "checked",
    "chk",
    "collapsed",
    "combo",
    "command",
    "count",
    "cut",
    "d",
    "data",
    "dialog",
    "disabled",
    "e",
    "elements",
    "expanded",
    "f",
    "false",
    "flat",
    "focused",
    "group",
    "h",
    "hdr",
    "hidden",
    "hint",
    "i",
    "id",
    "img",
    "input",
    "item",
    "k",
    "list",
    "menu",
    "mixed",
    "more",
    "not",
    "null",
    "of",
    "ok",
    "only",
    "or",
    "out",
    "page",
    "pid",
    "progress",
    "pwd",
    "r",
    "radio",
    "read",
    "relative",
    "ro",
    "row",
    "s",
    "screen",
    "scroll",
    "selected",
    "sep",
    "shown",
    "slider",
    "spin",
    "status",
    "switch",
    "t",
    "tab",
    "table",
    "tabs",
    "the",
    "title",
    "to",
    "toggle",
    "toolbar",
    "tooltip",
    "tree",
    "true",
    "ts",
    "txt",
    "v",
    "version",
    "view",
    "was",
    "web",
    "whole",
    "window",
    "with",
    "x",
];

/// Words of this program's own output that are two tokens.
const TWO_TOKEN_WORDS: &[&str] = &["lnk", "menuitem", "treeitem", "scrollbar"];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Letter,
    Digit,
    Space,
    Newline,
    Mark,
}

fn kind(c: char) -> Kind {
    match c {
        '\r' | '\n' => Kind::Newline,
        c if c.is_alphabetic() => Kind::Letter,
        c if c.is_numeric() => Kind::Digit,
        c if c.is_whitespace() => Kind::Space,
        _ => Kind::Mark,
    }
}

/// The estimated token count of `text`.
pub fn estimate(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let mut total = 0.0;
    let mut i = 0;
    while i < chars.len() {
        let (len, cost) = piece(&chars[i..]);
        total += cost;
        i += len.max(1);
    }
    total.ceil() as usize
}

/// The first piece of `s`: its length in characters and its cost.
fn piece(s: &[char]) -> (usize, f64) {
    let at = |k: usize| s.get(k).copied().map(kind);
    let first = kind(s[0]);
    // A word, with one leading space or mark.
    let lead =
        usize::from(matches!(first, Kind::Space | Kind::Mark) && at(1) == Some(Kind::Letter));
    if at(lead) == Some(Kind::Letter) {
        let mut k = lead;
        while s
            .get(k)
            .is_some_and(|c| kind(*c) == Kind::Letter && c.is_uppercase())
        {
            k += 1;
        }
        while s
            .get(k)
            .is_some_and(|c| kind(*c) == Kind::Letter && !c.is_uppercase())
        {
            k += 1;
        }
        let word: String = s[lead..k].iter().collect();
        let spaced = lead == 1 && s[0] == ' ';
        let mark = if lead == 1 && !spaced { 1.0 } else { 0.0 };
        return (k, mark + word_cost(&word, spaced));
    }
    if first == Kind::Digit {
        let k = s
            .iter()
            .take(3)
            .take_while(|c| kind(**c) == Kind::Digit)
            .count();
        return (k, 1.0);
    }
    // Marks, with one leading space, and the line ends or slashes after them.
    let lead = usize::from(s[0] == ' ' && at(1) == Some(Kind::Mark));
    if at(lead) == Some(Kind::Mark) {
        let mut k = lead;
        while at(k) == Some(Kind::Mark) {
            k += 1;
        }
        while s.get(k).is_some_and(|c| matches!(c, '\r' | '\n' | '/')) {
            k += 1;
        }
        return (k, marks_cost(&s[..k]).max(1.0));
    }
    // Whitespace: a line end with the indentation after it is two tokens, else one.
    let mut k = 0;
    while matches!(at(k), Some(Kind::Space | Kind::Newline)) {
        k += 1;
    }
    // A run of spaces before a word leaves its last one to the word.
    if k > 1 && s[k - 1] == ' ' && k < s.len() && !s[..k].contains(&'\n') {
        k -= 1;
    }
    let newline = s[..k].contains(&'\n');
    (k, if newline && k > 1 { 2.0 } else { 1.0 })
}

fn word_cost(word: &str, spaced: bool) -> f64 {
    let (ascii, other): (String, String) = word.chars().partition(char::is_ascii);
    let wide: f64 = other.chars().map(wide_cost).sum::<f64>() * 0.8;
    if ascii.is_empty() {
        return wide;
    }
    let lower = ascii.to_lowercase();
    let own = if TWO_TOKEN_WORDS.contains(&lower.as_str()) {
        2.0
    } else if ONE_TOKEN_WORDS.contains(&lower.as_str()) {
        1.0
    } else {
        let n = ascii.len();
        // Common words are one token with their leading space; without it fewer are.
        match (spaced, n) {
            (_, 0..=3) => 1.0,
            (false, 4) => 1.0,
            (false, 5) => 1.3,
            (false, 6..=8) => 1.8,
            (false, _) => n as f64 / 4.0,
            (true, 4..=5) => 1.1,
            (true, 6) => 1.25,
            (true, 7..=8) => 1.4,
            (true, 9..=11) => 1.8,
            (true, _) => n as f64 / 5.5,
        }
    };
    own + wide
}

/// A character outside ASCII: CJK about one token, emoji about three, other symbols two.
fn wide_cost(c: char) -> f64 {
    match u32::from(c) {
        0x3040..=0x30FF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF => 1.0,
        0x1F000.. => 3.0,
        0x2000.. => 2.0,
        _ => 1.0,
    }
}

/// A run of marks: the longest runs o200k holds as one token first, else a token a mark.
fn marks_cost(s: &[char]) -> f64 {
    let mut cost = 0.0;
    let mut i = 0;
    while i < s.len() {
        if !s[i].is_ascii() {
            cost += wide_cost(s[i]);
            i += 1;
            continue;
        }
        let longest = (2..=6.min(s.len() - i)).rev().find(|&n| {
            let run: String = s[i..i + n].iter().collect();
            ONE_TOKEN_MARKS.contains(&run.as_str())
        });
        cost += 1.0;
        i += longest.unwrap_or(1);
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces whose o200k counts are known (`gpt-tokenizer`).
    #[test]
    fn known_pieces() {
        for (text, tokens) in [
            ("{\"i\":12,\"r\":\"btn\",\"t\":\"Save\"}", 13),
            ("12 btn \"Save\" 10,20,80,24 focused\n", 15),
            ("", 0),
        ] {
            let e = estimate(text);
            assert!(
                e.abs_diff(tokens) <= 2,
                "{text:?}: estimated {e}, o200k {tokens}"
            );
        }
    }

    #[test]
    fn any_text_is_counted_without_panicking() {
        for text in [
            "日本語のテキスト",
            "😀😀 ok",
            "\n\n\n",
            "   ",
            "a\u{301}",
            "x".repeat(5000).as_str(),
        ] {
            let e = estimate(text);
            assert!(e >= 1, "{text:?}");
        }
    }
}
