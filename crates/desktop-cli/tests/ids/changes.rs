//! Ids while the window changes: an element replaced by another at its place (its id
//! refused, the new one numbered anew), one re-made as it was (found again and said so, or
//! refused), and a page navigated away (every earlier id refused or naming the same
//! element).

use crate::{all, check_ids, flipped, Env, Test, KITS};
use serde_json::Value;

pub const TESTS: &[(&str, Test)] = &[
    ("ids::gtk3_replaced_and_remade_elements", |e| {
        replaced(e, KITS[0])
    }),
    ("ids::gtk4_replaced_and_remade_elements", |e| {
        replaced(e, KITS[1])
    }),
    ("ids::qt5_replaced_and_remade_elements", |e| {
        replaced(e, KITS[2])
    }),
    ("ids::qt6_replaced_and_remade_elements", |e| {
        replaced(e, KITS[3])
    }),
    ("ids::chromium_replaced_and_remade_elements", |e| {
        replaced(e, KITS[4])
    }),
    ("ids::a_navigated_page_refuses_or_keeps_every_id", navigated),
];

fn id_of(ids: &[(u64, String)], name: &str) -> Option<u64> {
    ids.iter().find(|(_, n)| n == name).map(|(i, _)| *i)
}

/// Refused with a code that says the id is stale or unknown, and nothing changed.
fn refused(env: &Env, window: &str, args: &[&str]) -> Value {
    let before = env.checks(window);
    let out = env.cli(args);
    let after = env.checks(window);
    assert_ne!(
        out.code, 0,
        "{window}: {args:?} must be refused: {}",
        out.stdout
    );
    let code = out.error_code();
    assert!(
        ["STALE_REF", "ELEMENT_NOT_FOUND", "AMBIGUOUS_TARGET"].contains(&code.as_str()),
        "{window}: {args:?}: {}",
        out.stdout
    );
    assert!(
        flipped(&before, &after).is_empty(),
        "{window}: {args:?} changed something"
    );
    out.json()
}

/// Presses one of the fixture's buttons and waits until its status counts the change.
fn press(env: &Env, window: &str, button: &str) {
    let status = || -> u64 {
        let data = env.ok(&["read", "--window", window, "--text", "changes:"]);
        all(&data)
            .iter()
            .find_map(|e| e["t"].as_str()?.strip_prefix("changes: ")?.parse().ok())
            .expect("the status line")
    };
    let before = status();
    env.ok(&[
        "click", "--window", window, "--text", button, "--role", "btn", "--exact",
    ]);
    let want = format!("changes: {}", before + 1);
    env.ok(&[
        "wait",
        "--window",
        window,
        "--for-text",
        &want,
        "--timeout",
        "5000",
    ]);
}

fn replaced(env: &Env, window: &str) {
    let first = check_ids(&env.ok(&["read", "--window", window]));
    let amber = id_of(&first, "Opt Amber").expect("Opt Amber shown");
    let bravo = id_of(&first, "Opt Bravo").expect("Opt Bravo shown");
    let cobalt = id_of(&first, "Opt Cobalt").expect("Opt Cobalt shown");
    let highest = first.iter().map(|(i, _)| *i).max().unwrap();
    press(env, window, "Replace");
    // Amber is gone; Zircon took its place: Amber's id names Amber, so it is refused.
    let answer = refused(env, window, &["toggle", "--id", &amber.to_string()]);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Opt Amber"),
        "the refusal says what the id was: {answer}"
    );
    let after = check_ids(&env.ok(&["read", "--window", window, "-i"]));
    let zircon = id_of(&after, "Opt Zircon").expect("Opt Zircon shown");
    assert!(
        zircon > highest,
        "a new element takes a new id: {zircon} <= {highest}"
    );
    assert_eq!(
        id_of(&after, "Opt Cobalt"),
        Some(cobalt),
        "Cobalt keeps its id"
    );
    let before = env.checks(window);
    env.ok(&["toggle", "--id", &zircon.to_string()]);
    assert_eq!(flipped(&before, &env.checks(window)), ["Opt Zircon"]);
    // Bravo re-made as it was: found again (and the answer says so), or refused.
    press(env, window, "Recreate");
    let before = env.checks(window);
    let out = env.cli(&["toggle", "--id", &bravo.to_string()]);
    let after = env.checks(window);
    if out.code == 0 {
        assert_eq!(out.data()["rematched"], true, "{window}: {}", out.stdout);
        assert_eq!(flipped(&before, &after), ["Opt Bravo"], "{}", out.stdout);
    } else {
        assert!(flipped(&before, &after).is_empty());
        assert_eq!(out.error_code(), "STALE_REF", "{}", out.stdout);
    }
    // Nothing else was disturbed: Cobalt's id still toggles Cobalt.
    let before = env.checks(window);
    env.ok(&["click", "--id", &cobalt.to_string()]);
    assert_eq!(flipped(&before, &env.checks(window)), ["Opt Cobalt"]);
}

fn navigated(env: &Env) {
    let window = KITS[4];
    let data = env.ok(&["read", "--window", window]);
    let heading = all(&data)
        .into_iter()
        .find(|e| e["r"] == "h" && e["t"] == "Ids")
        .expect("the heading");
    let old = check_ids(&data);
    env.ok(&[
        "click",
        "--window",
        window,
        "--text",
        "Next page",
        "--role",
        "lnk",
    ]);
    let next = "Ids Next";
    env.ok(&[
        "wait",
        "--window",
        next,
        "--for-text",
        "Opt Other",
        "--timeout",
        "10000",
    ]);
    // Every id of the page before: refused, or the element of that name (none changes
    // another).
    for (id, name) in &old {
        let before = env.checks(next);
        let out = env.cli(&["toggle", "--id", &id.to_string()]);
        let after = env.checks(next);
        if out.code == 0 {
            assert_eq!(
                flipped(&before, &after),
                std::slice::from_ref(name),
                "{}",
                out.stdout
            );
        } else {
            assert!(flipped(&before, &after).is_empty(), "{}", out.stdout);
        }
    }
    let now = env.ok(&["read", "--window", next]);
    for e in all(&now) {
        if e["i"] == heading["i"] {
            assert_eq!((&e["r"], &e["t"]), (&heading["r"], &heading["t"]), "{e}");
        }
    }
    // Back to the page the other tests read.
    env.ok(&["press", "alt+Left", "--window", next]);
    env.ok(&[
        "wait",
        "--window",
        window,
        "--for-text",
        "Opt Lagoon",
        "--timeout",
        "10000",
    ]);
}
