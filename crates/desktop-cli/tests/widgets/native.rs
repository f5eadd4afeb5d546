//! The GTK3 and Qt5 windows' own tasks (tests/fixtures/widgets_gtk.py, widgets_qt.py).

use crate::{Env, ROUNDS};

/// Icon-only tool buttons (an icon and a tooltip, no label) found by their hint through
/// `--text`, round after round, each press read back from the app's `pressed:` status.
pub fn icons(env: &Env, window: &str) {
    let data = env.ok(&["read", "--window", window, "-i"]);
    let hints: Vec<&str> = crate::all(&data)
        .iter()
        .filter_map(|e| e["h"].as_str())
        .filter_map(|h| ["Search", "Save", "Delete"].into_iter().find(|t| *t == h))
        .collect();
    assert_eq!(hints, ["Search", "Save", "Delete"], "{data}");
    let mut pressed = Vec::new();
    for round in 0..ROUNDS {
        let tip = hints[round % 3];
        let r = env.ok(&["click", "--window", window, "--text", tip, "--exact"]);
        assert_eq!(r["element"]["r"], "btn", "{r}");
        pressed.push(tip);
        env.expect(window, "pressed:", &pressed.join(","));
    }
}

/// The options of a closed combo box (Qt 5 says they show, at the boxes of the popup it
/// has not opened): `read -i` lists none of them, and a click on one by id or by text
/// chooses it through the combo (read back from the app's `fruit:` status) instead of
/// clicking where the popup would be (the app's presses, as it reports them, are all on
/// the combo).
pub fn closed_options(env: &Env, window: &str) {
    let fruits = ["Apple", "Banana", "Cherry", "Damson plum"];
    // The app tells how many mouse presses it got and where the last three were.
    let presses = |env: &Env| -> (usize, Vec<(i64, i64)>) {
        let at = env.expect_that(window, "mouse:", "any", |_| true);
        let mut words = at.split_whitespace();
        let count = words.next().and_then(|c| c.parse().ok()).unwrap_or(0);
        let at = words
            .filter_map(|p| p.split_once(','))
            .map(|(x, y)| (x.parse().unwrap(), y.parse().unwrap()))
            .collect();
        (count, at)
    };
    for round in 0..ROUNDS {
        let data = env.ok(&["read", "--window", window, "-i"]);
        for f in fruits {
            let listed = crate::all(&data)
                .iter()
                .any(|e| e["r"] == "item" && e["t"] == f);
            assert!(!listed, "closed option {f} listed: {data}");
        }
        let want = fruits[(round + 1) % 4];
        let found = env.ok(&["read", "--window", window, "--text", want]);
        let option = crate::all(&found)
            .into_iter()
            .find(|e| e["r"] == "item" && e["t"] == want)
            .unwrap_or_else(|| panic!("{want} not found: {found}"));
        assert_eq!(option["out"], true, "{option}");
        let before = presses(env).0;
        let r = if round % 2 == 0 {
            let id = option["i"].to_string();
            env.ok(&["click", "--window", window, "--id", &id])
        } else {
            env.ok(&[
                "click", "--window", window, "--text", want, "--exact", "--role", "item",
            ])
        };
        assert_eq!(r["effect"], "confirmed", "{r}");
        assert_eq!(r["post_state"]["v"], want, "{r}");
        env.expect(window, "fruit:", want);
        // Presses only on the combo (to open it, as Qt 5 takes no focus by request),
        // none where the closed popup's option would be nor anywhere else.
        let combos = env.ok(&["read", "--window", window, "--roles", "combo"]);
        let b: Vec<i64> = crate::all(&combos)[0]["b"]
            .as_array()
            .map(|b| b.iter().filter_map(|v| v.as_i64()).collect())
            .unwrap_or_default();
        assert_eq!(b.len(), 4, "{combos}");
        let on_combo = |(x, y): &(i64, i64)| {
            (b[0]..b[0] + b[2]).contains(x) && (b[1]..b[1] + b[3]).contains(y)
        };
        let (count, mut new) = presses(env);
        assert!(count - before <= 3, "{} presses", count - before);
        new = new.split_off(new.len() - (count - before));
        assert!(
            new.iter().all(on_combo),
            "presses at {new:?}, not all on the combo {b:?} (option {option})"
        );
    }
    let combos = env.ok(&["read", "--window", window, "--roles", "combo"]);
    let combo = crate::all(&combos)[0]["i"].to_string();
    env.ok(&[
        "set-value",
        "--window",
        window,
        "--id",
        &combo,
        "--value",
        "Apple",
    ]);
    env.expect(window, "fruit:", "Apple");
}
