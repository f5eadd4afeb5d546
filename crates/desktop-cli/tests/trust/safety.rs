//! Typing at full speed onto every kind of element, 20 rounds each: the app keeps running
//! with its windows open, and each command either delivered the keys to that element (read
//! back: a password field's length) or refused with a code, typing nothing.

use crate::{id, ids, Env, Test, GTK, QT, WEB};
use serde_json::Value;

pub const TESTS: &[(&str, Test)] = &[
    ("safety::chromium_type_onto_every_kind_of_element", web),
    ("safety::gtk3_type_onto_every_kind_of_element", gtk),
    ("safety::qt5_type_onto_every_kind_of_element", qt),
];

const ROUNDS: usize = 20;

/// Types "abc" onto the element `ROUNDS` times, no pause; returns how many were delivered.
fn hammer(env: &Env, window: &str, id: &str, takes_text: bool) -> usize {
    let mut delivered = 0;
    for round in 0..ROUNDS {
        let run = env.cli(&["type", "--id", id, "abc", "--window", window]);
        let j = run.json();
        if takes_text {
            assert_eq!(j["ok"], true, "round {round}: {j}");
            assert_eq!(j["data"]["effect"], "confirmed", "{j}");
            delivered += 1;
        } else {
            assert_eq!(
                j["ok"], false,
                "round {round}: typing onto it must be refused: {j}"
            );
            assert_eq!(j["error"]["code"], "ACTION_NOT_SUPPORTED", "{j}");
        }
    }
    delivered
}

fn count(f: &Value, name: &str) -> u64 {
    f[name]["count"]
        .as_u64()
        .unwrap_or_else(|| panic!("no length for {name:?}: {}", f[name]))
}

/// A fresh browser; both forms' password fields, a plain input, the submit button, a link,
/// static text and a check box.
fn web(env: &Env) {
    let pid = env.fresh_chromium();
    let fields = [
        ("pwd", "Password"),
        ("pwd", "Verify password"),
        ("pwd", "Secret"),
        ("input", "Full name"),
        ("input", "Username"),
    ];
    let others = [
        ("btn", "Create account"),
        ("lnk", "Need help?"),
        ("chk", "Accept terms"),
    ];
    for (role, name) in fields {
        let [i]: [String; 1] = ids(env, WEB, &[(role, name)]).try_into().unwrap();
        assert_eq!(hammer(env, WEB, &i, true), ROUNDS);
        assert!(
            env.desk().alive(pid),
            "Chromium exited after typing into {name}"
        );
    }
    for (role, name) in others {
        let [i]: [String; 1] = ids(env, WEB, &[(role, name)]).try_into().unwrap();
        hammer(env, WEB, &i, false);
        assert!(
            env.desk().alive(pid),
            "Chromium exited after typing onto {name}"
        );
    }
    let words = id(
        env,
        WEB,
        "txt",
        "Plain words nobody can type into.",
        &["--text", "Plain words"],
    );
    hammer(env, WEB, &words, false);
    assert!(
        env.desk().alive(pid),
        "Chromium exited after typing onto static text"
    );
    let f = env.desk().fields().read(WEB);
    for (_, name) in fields {
        assert_eq!(count(&f, name), 3 * ROUNDS as u64, "{name}: {}", f[name]);
    }
    assert_eq!(f["Full name"]["text"], "abc".repeat(ROUNDS));
    assert_eq!(
        f["Accept terms"]["checked"], false,
        "keys reached the check box"
    );
    // The windows are still there for a read.
    env.ok(&["read", "--window", WEB, "-i"]);
}

fn gtk(env: &Env) {
    native(env, GTK);
}

fn qt(env: &Env) {
    native(env, QT);
}

fn native(env: &Env, window: &str) {
    env.ok(&[
        "set-value",
        "--id",
        &ids(env, window, &[("pwd", "Password")])[0],
        "--value",
        "",
        "--window",
        window,
    ]);
    env.ok(&[
        "set-value",
        "--id",
        &ids(env, window, &[("input", "Email")])[0],
        "--value",
        "",
        "--window",
        window,
    ]);
    for (role, name) in [("pwd", "Password"), ("input", "Email")] {
        let [i]: [String; 1] = ids(env, window, &[(role, name)]).try_into().unwrap();
        assert_eq!(hammer(env, window, &i, true), ROUNDS);
    }
    for (role, name) in [("btn", "Ask"), ("chk", "Accept terms")] {
        let [i]: [String; 1] = ids(env, window, &[(role, name)]).try_into().unwrap();
        hammer(env, window, &i, false);
    }
    let words = id(
        env,
        window,
        "txt",
        "Static words",
        &["--text", "Static words"],
    );
    hammer(env, window, &words, false);
    let f = env.desk().fields().read(window);
    assert_eq!(count(&f, "Password"), 3 * ROUNDS as u64);
    assert_eq!(f["Email"]["text"], "abc".repeat(ROUNDS));
}
