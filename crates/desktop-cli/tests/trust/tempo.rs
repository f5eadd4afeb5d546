//! Agent tempo: the same sequence of commands, back to back, on GTK3, Qt5 and Chromium,
//! with the same resulting text on all three, checked with libatspi after every round.

use crate::{ids, Env, Test, GTK, QT, WEB};
use serde_json::Value;

pub const TESTS: &[(&str, Test)] = &[
    ("tempo::gtk3_30_rounds_nothing_misdirected_or_lost", gtk),
    ("tempo::qt5_30_rounds_nothing_misdirected_or_lost", qt),
    ("tempo::chromium_30_rounds_nothing_misdirected_or_lost", web),
];

const ROUNDS: usize = 30;

fn gtk(env: &Env) {
    rounds(env, GTK, "Increment");
}

fn qt(env: &Env) {
    rounds(env, QT, "Increment");
}

fn web(env: &Env) {
    rounds(env, WEB, "Redraw");
}

/// Asserts an action answered `ok` with `effect` and, where given, `post_state.v`.
fn acted(v: &Value, effect: &str, value: Option<&str>) {
    assert_eq!(v["effect"], effect, "{v}");
    if let Some(want) = value {
        assert_eq!(
            v["post_state"]["v"], want,
            "post_state is the settled value: {v}"
        );
    }
}

/// Per round: set-value and type into the name field, the same into the email field, type
/// into the password field, toggle the check box, click a button — then libatspi reads
/// every field: nothing typed may be missing or land in another field.
fn rounds(env: &Env, window: &str, button: &str) {
    let [name, email, pwd, terms, btn]: [String; 5] = ids(
        env,
        window,
        &[
            ("input", "Full name"),
            ("input", "Email"),
            ("pwd", "Password"),
            ("chk", "Accept terms"),
            ("btn", button),
        ],
    )
    .try_into()
    .unwrap();
    let w = ["--window", window];
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(&w);
        let v = env.ok(&all);
        assert!(
            matches!(v["effect"].as_str(), Some("confirmed" | "unverifiable")),
            "every action says its effect: {v}"
        );
        v
    };
    // Start from known contents.
    run(&["set-value", "--id", &pwd, "--value", ""]);
    let mut checked = {
        let mut f = env.desk().fields();
        f.read(window)["Accept terms"]["checked"] == true
    };
    let mut fields = env.desk().fields();
    for r in 0..ROUNDS {
        let (n0, a) = (format!("r{r}"), format!("n{r}-abcdefgh"));
        let (e0, b) = (format!("e{r}@x.org"), format!("m{r}-ijklmnop"));
        acted(
            &run(&["set-value", "--id", &name, "--value", &n0]),
            "confirmed",
            Some(&n0),
        );
        let name_now = format!("{n0}{a}");
        acted(
            &run(&["type", "--id", &name, &a]),
            "confirmed",
            Some(&name_now),
        );
        acted(
            &run(&["set-value", "--id", &email, "--value", &e0]),
            "confirmed",
            Some(&e0),
        );
        let email_now = format!("{e0}{b}");
        acted(
            &run(&["type", "--id", &email, &b]),
            "confirmed",
            Some(&email_now),
        );
        let typed = run(&["type", "--id", &pwd, "zyQa"]);
        acted(&typed, "confirmed", None);
        assert!(
            typed["post_state"].get("v").is_none(),
            "a password never shows: {typed}"
        );
        let t = run(&["toggle", "--id", &terms]);
        checked = !checked;
        acted(&t, "confirmed", None);
        assert_eq!(t["post_state"]["k"], checked, "{t}");
        run(&["click", "--id", &btn]);
        let f = fields.read(window);
        assert_eq!(f["Full name"]["text"], name_now.as_str(), "round {r}: {f}");
        assert_eq!(f["Email"]["text"], email_now.as_str(), "round {r}: {f}");
        assert_eq!(
            f["Password"]["count"],
            4 * (r + 1),
            "round {r}: {}",
            f["Password"]
        );
        assert!(f["Password"].get("text").is_none());
        assert_eq!(f["Accept terms"]["checked"], checked, "round {r}");
    }
}
