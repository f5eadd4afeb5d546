//! Settling: what an action did is visible to the very next command, with no pause.

use crate::{elements, ids, Env, Test, GTK, QT, WEB};
use serde_json::Value;

pub const TESTS: &[(&str, Test)] = &[
    (
        "settle::chromium_click_then_read_shows_the_click",
        click_then_read,
    ),
    (
        "settle::type_without_id_names_the_focused_element",
        type_where_focused,
    ),
    (
        "settle::chromium_text_targets_follow_the_page_20_rounds",
        text_targets_follow,
    ),
    ("settle::gtk3_dialog_type_then_ok_10_rounds", dialog_gtk),
    ("settle::qt5_dialog_type_then_ok_10_rounds", dialog_qt),
];

/// The page's counter `what` ("Generation": clicks on Redraw; "Double clicks"), as an
/// immediate `read` shows it.
fn counter(env: &Env, what: &str) -> u64 {
    let data = env.ok(&["read", "--window", WEB, "--text", what]);
    let texts: Vec<String> = elements(&data).into_iter().map(|(_, t, _)| t).collect();
    texts
        .iter()
        .find_map(|t| t.strip_prefix(what)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {what:?} in {texts:?}"))
}

fn generation(env: &Env) -> u64 {
    counter(env, "Generation")
}

/// A click whose handler redraws part of the page, then a read at once: the read shows the
/// redraw every time, through synthesized input (a double click: two clicks, which a page
/// also takes as one double click) and through the element's own action.
fn click_then_read(env: &Env) {
    let click = ["click", "--text", "Redraw", "--exact", "--window", WEB];
    let mut want = generation(env);
    let double = [&click[..], &["--double"]].concat();
    doubles_then_read(env, &double, 50, &mut want, "input");
    // Double clicks where a page counts them, between redraws. (The pointer goes elsewhere
    // in between: to Chromium, clicks at one spot in quick succession are one run of
    // clicks, of which only some make a double click: 33 of the 100 above.)
    let twice = [
        "click", "--text", "Twice", "--exact", "--double", "--window", WEB,
    ];
    let doubled = counter(env, "Double clicks");
    for round in 0..10 {
        env.ok(&twice);
        assert_eq!(
            counter(env, "Double clicks"),
            doubled + round + 1,
            "round {round}: the page took the two clicks as a double click"
        );
        env.ok(&double);
        want += 2;
        assert_eq!(generation(env), want, "round {round}: the redraws");
    }
    // At a point, as an agent clicks what it saw on a screenshot.
    let found = env.ok(&["read", "--window", WEB, "--text", "Redraw"]);
    fn button(es: &Value) -> Option<&Value> {
        let here = |e: &Value| e["t"] == "Redraw";
        let mut all = es.as_array()?.iter();
        all.find_map(|e| {
            if here(e) {
                Some(&e["b"])
            } else {
                button(&e["c"])
            }
        })
    }
    let b = button(&found["elements"]).unwrap_or_else(|| panic!("no Redraw in {found}"));
    let (x, y) = (
        (b[0].as_i64().unwrap() + b[2].as_i64().unwrap() / 2).to_string(),
        (b[1].as_i64().unwrap() + b[3].as_i64().unwrap() / 2).to_string(),
    );
    let at = ["click", "--x", &x, "--y", &y, "--double"];
    doubles_then_read(env, &at, 20, &mut want, "point");
    for round in 0..25 {
        let r = env.ok(&click);
        assert_eq!(r["route"], "a11y", "{r}");
        want += 1;
        assert_eq!(
            generation(env),
            want,
            "a11y round {round}: the read missed the click"
        );
    }
}

/// `rounds` double clicks by synthesized input (`click`), each followed at once by a read
/// that must show both clicks' redraws.
fn doubles_then_read(env: &Env, click: &[&str], rounds: u32, want: &mut u64, how: &str) {
    for round in 0..rounds {
        let r = env.ok(click);
        assert_eq!(r["route"], "input", "{r}");
        *want += 2;
        assert_eq!(
            generation(env),
            *want,
            "{how} round {round}: the read missed the click"
        );
    }
}

/// An element named by its text is looked for in the page as it is at that moment, by the
/// very next command after the page changed: each redraw replaces the tiles, and a `hover`
/// finds the new tile and never the one it replaced; a field named by its label takes the
/// value, as libatspi reads it back. (The keeper finds elements through its mirror of the
/// window: this is where a mirror that lagged would show.)
fn text_targets_follow(env: &Env) {
    let mut fields = env.desk().fields();
    let mut at = generation(env);
    for round in 0..20 {
        let redraw = env.ok(&["click", "--text", "Redraw", "--exact", "--window", WEB]);
        assert_eq!(redraw["element"]["t"], "Redraw", "{redraw}");
        // The tiles are replaced; the generation's text is rewritten in place.
        let replaced = (
            format!("Tile {at}-{}", round % 5),
            format!("Tile {}-{}", at + 1, round % 5),
        );
        let rewritten = (format!("Generation {at}"), format!("Generation {}", at + 1));
        at += 1;
        for (old, new) in [replaced, rewritten] {
            let r = env.ok(&["hover", "--text", &new, "--exact", "--window", WEB]);
            assert_eq!(r["element"]["t"], new.as_str(), "round {round}: {r}");
            let gone = env.cli(&["hover", "--text", &old, "--exact", "--window", WEB]);
            assert_eq!(
                gone.error_code(),
                "ELEMENT_NOT_FOUND",
                "round {round}: {old:?} is no more: {}",
                gone.stdout
            );
        }
        let word = format!("u{round}");
        let set = ["set-value", "--text", "Username", "--value", &word];
        let r = env.ok(&[&set[..], &["--window", WEB]].concat());
        assert_eq!(r["element"]["t"], "Username", "{r}");
        assert_eq!(
            fields.read(WEB)["Username"]["text"],
            word.as_str(),
            "round {round}"
        );
    }
    assert_eq!(generation(env), at, "every redraw was one click");
}

/// `type` without an id goes where the focus is, says which element that was, and reads
/// the text back there; on every toolkit.
fn type_where_focused(env: &Env) {
    let mut fields = env.desk().fields();
    for window in [GTK, QT, WEB] {
        let [email]: [String; 1] = ids(env, window, &[("input", "Email")]).try_into().unwrap();
        env.ok(&[
            "set-value",
            "--id",
            &email,
            "--value",
            "",
            "--window",
            window,
        ]);
        let f = env.ok(&["focus", "--id", &email, "--window", window]);
        assert_eq!(f["effect"], "confirmed", "{f}");
        let r = env.ok(&["type", "here@there", "--window", window]);
        assert_eq!(r["element"]["t"], "Email", "{window}: {r}");
        assert_eq!(r["effect"], "confirmed", "{window}: {r}");
        assert_eq!(fields.text(window, "Email"), "here@there", "{window}");
    }
}

fn dialog_gtk(env: &Env) {
    dialog(env, GTK);
}

fn dialog_qt(env: &Env) {
    dialog(env, QT);
}

/// Opens the form's dialog, types into its entry and presses OK at once: the form shows
/// exactly the typed text, every round.
fn dialog(env: &Env, window: &str) {
    let mut fields = env.desk().fields();
    for round in 0..10 {
        env.ok(&["click", "--text", "Ask", "--window", window, "--exact"]);
        env.ok(&[
            "wait",
            "--window",
            "Question",
            "--for-text",
            "Reply",
            "--timeout",
            "5s",
        ]);
        let [reply, ok]: [String; 2] = ids(env, "Question", &[("input", "Reply"), ("btn", "OK")])
            .try_into()
            .unwrap();
        let text = format!("round {round} héllo wörld");
        let typed = env.ok(&["type", "--id", &reply, &text, "--window", "Question"]);
        assert_eq!(typed["post_state"]["v"], text.as_str(), "{typed}");
        env.ok(&["click", "--id", &ok, "--window", "Question"]);
        let want = format!("Answer: {text}");
        let f = fields.read(window);
        assert!(
            f.get(&want).is_some(),
            "round {round}: the form shows no {want:?}: {f}"
        );
    }
}
