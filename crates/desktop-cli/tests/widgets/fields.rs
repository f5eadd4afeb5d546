//! Fields that take numbers, dates and odd text (tests/fixtures/inputs.html in Chromium,
//! fields_gtk.py, fields_qt.py): date, time and number fields set and typed into round
//! after round, text that starts with a dash, and refusals; every answer's verdict is held
//! against the app's own status text, read by libatspi.

use crate::{all, id_of, Env, ROUNDS};

pub const INPUTS: &str = "Inputs Page";
pub const GTK_FIELDS: &str = "GTK Fields";
pub const QT_FIELDS: &str = "Qt Fields";

/// `args` run in `window`; the answer must be ok and, where `shows` is given, its
/// post_state must show it (what was read back, not what was asked).
fn act(env: &Env, window: &str, args: &[&str], shows: Option<&str>) -> serde_json::Value {
    let mut full = vec![args[0], "--window", window];
    full.extend_from_slice(&args[1..]);
    let r = env.ok(&full);
    if let Some(want) = shows {
        assert_eq!(r["post_state"]["v"], want, "{args:?}: {r}");
    }
    r
}

/// [`act`], then the app's status says `want` after `prefix`: the answer and the app agree.
fn shown(env: &Env, window: &str, args: &[&str], prefix: &str, want: &str) {
    act(env, window, args, Some(want));
    env.expect(window, prefix, want);
}

/// The error code of `args` run in `window`.
fn refused(env: &Env, window: &str, args: &[&str]) -> String {
    let mut full = vec![args[0], "--window", window];
    full.extend_from_slice(&args[1..]);
    env.cli(&full).error_code().to_string()
}

/// A date, a time and two numbers for `round`, different every round (negative at first).
fn values(round: usize) -> (String, String, i64) {
    let date = format!(
        "{}-{:02}-{:02}",
        1999 + round * 3,
        round % 12 + 1,
        round * 3 % 28 + 1
    );
    let time = format!("{:02}:{:02}", (round * 5 + 1) % 24, round * 7 % 60);
    (date, time, round as i64 * 7 - 30)
}

/// Text that starts with a dash, typed and set into the field named `note`.
fn dashes(env: &Env, window: &str, note: &str) {
    let id = id_of(&env.ok(&["read", "--window", window, "-i"]), "input", note);
    shown(
        env,
        window,
        &["type", "--id", &id, "--replace", "-8"],
        "note:",
        "-8",
    );
    shown(
        env,
        window,
        &["type", "--id", &id, "--replace", "--", "--verbose"],
        "note:",
        "--verbose",
    );
    shown(
        env,
        window,
        &["set-value", "--id", &id, "--value", "-3"],
        "note:",
        "-3",
    );
    shown(
        env,
        window,
        &["type", "--id", &id, "- item"],
        "note:",
        "-3- item",
    );
}

/// The web page: date, time and date-time editors set by ISO value, a date typed into
/// its month segment, a number field and a jQuery UI spinner set and typed into.
pub fn web(env: &Env) {
    let w = INPUTS;
    for round in 0..ROUNDS {
        let data = env.ok(&["read", "--window", w, "-i"]);
        let id = |role: &str, name: &str| id_of(&data, role, name);
        let (date, time, n) = values(round);
        shown(
            env,
            w,
            &[
                "set-value",
                "--id",
                &id("dateeditor", "Day"),
                "--value",
                &date,
            ],
            "day:",
            &date,
        );
        shown(
            env,
            w,
            &[
                "set-value",
                "--id",
                &id("dateeditor", "Clock"),
                "--value",
                &time,
            ],
            "clock:",
            &time,
        );
        let both = format!("{date}T{time}");
        act(
            env,
            w,
            &[
                "set-value",
                "--id",
                &id("dateeditor", "Meeting"),
                "--value",
                &both,
            ],
            None,
        );
        env.expect(w, "meeting:", &both);
        let (count, spin) = (id("spin", "Count"), id("spin", "Spin"));
        shown(
            env,
            w,
            &["set-value", "--id", &count, "--value", &n.to_string()],
            "count:",
            &n.to_string(),
        );
        act(
            env,
            w,
            &["set-value", "--id", &spin, "--value", &(-n).to_string()],
            Some(&(-n).to_string()),
        );
        env.expect(w, "spin:", &(-n).to_string());
        let typed = (n + 1).to_string();
        shown(
            env,
            w,
            &["type", "--id", &count, "--replace", &typed],
            "count:",
            &typed,
        );
        let typed = (-n - 1).to_string();
        shown(
            env,
            w,
            &["type", "--id", &spin, "--replace", &typed],
            "spin:",
            &typed,
        );
        // Digits typed into the month move on through the day and the year, as a person's do.
        let next = format!("{}-{:02}-{:02}", 2001 + round, round % 9 + 3, round + 10);
        let digits = format!("{}{}{}", &next[5..7], &next[8..10], &next[0..4]);
        act(
            env,
            w,
            &["type", "--id", &id("spin", "Month Day"), &digits],
            None,
        );
        env.expect(w, "day:", &next);
        let shown = env.ok(&["read", "--window", w, "-i"]);
        let segments: Vec<String> = all(&shown)
            .iter()
            .filter(|e| e["r"] == "spin" && e["t"].as_str().is_some_and(|t| t.ends_with(" Day")))
            .map(|e| e["v"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(
            segments,
            [&next[5..7], &next[8..10], &next[0..4]],
            "{shown}"
        );
        let date_now = next;
        // A day February lacks, text in a number field: refused before a key is sent.
        let day = id_of(&shown, "dateeditor", "Day");
        assert_eq!(
            refused(
                env,
                w,
                &["set-value", "--id", &day, "--value", "2015-02-29"]
            ),
            "INVALID_ARGS"
        );
        let count = id_of(&shown, "spin", "Count");
        assert_eq!(
            refused(env, w, &["set-value", "--id", &count, "--value", "many"]),
            "INVALID_ARGS"
        );
        env.expect(w, "day:", &date_now);
    }
    dashes(env, w, "Note");
}

/// GTK3: a spin button set and typed into (GTK takes typed digits on Enter), and dashes.
pub fn gtk(env: &Env) {
    let w = GTK_FIELDS;
    for round in 0..ROUNDS {
        let (_, _, n) = values(round);
        let count = id_of(&env.ok(&["read", "--window", w, "-i"]), "spin", "Count");
        shown(
            env,
            w,
            &["set-value", "--id", &count, "--value", &n.to_string()],
            "count:",
            &n.to_string(),
        );
        let typed = (-n - 1).to_string();
        act(
            env,
            w,
            &["type", "--id", &count, "--replace", &typed],
            Some(&typed),
        );
        env.ok(&["press", "--window", w, "Return"]);
        env.expect(w, "count:", &typed);
    }
    let count = id_of(&env.ok(&["read", "--window", w, "-i"]), "spin", "Count");
    assert_eq!(
        refused(env, w, &["set-value", "--id", &count, "--value", "500"]),
        "INVALID_ARGS"
    );
    dashes(env, w, "Note");
}

/// Qt 5: a QSpinBox and a QDateEdit set and typed into, and dashes.
pub fn qt(env: &Env) {
    let w = QT_FIELDS;
    for round in 0..ROUNDS {
        let (date, _, n) = values(round);
        let data = env.ok(&["read", "--window", w, "-i"]);
        let (count, day) = (id_of(&data, "spin", "Count"), id_of(&data, "spin", "Day"));
        shown(
            env,
            w,
            &["set-value", "--id", &count, "--value", &n.to_string()],
            "count:",
            &n.to_string(),
        );
        let typed = (-n - 1).to_string();
        shown(
            env,
            w,
            &["type", "--id", &count, "--replace", &typed],
            "count:",
            &typed,
        );
        shown(
            env,
            w,
            &["set-value", "--id", &day, "--value", &date],
            "day:",
            &date,
        );
        let next = format!("{}-{:02}-{:02}", 2001 + round, round % 9 + 3, round + 10);
        shown(
            env,
            w,
            &["type", "--id", &day, "--replace", &next],
            "day:",
            &next,
        );
        // Not a date in the field's form: refused, the date kept.
        assert_eq!(
            refused(env, w, &["set-value", "--id", &day, "--value", "-3"]),
            "INVALID_ARGS"
        );
        env.expect(w, "day:", &next);
    }
    dashes(env, w, "Note");
}
