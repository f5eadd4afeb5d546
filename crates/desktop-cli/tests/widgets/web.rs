//! The jQuery UI page's tasks (tests/fixtures/widgets.html), each read back from the
//! page's status text.

use crate::{all, by_hint, find, Env, ROUNDS, WEB};
use desktop_testkit::wait_until;
use std::time::Duration;

/// The feed's like and retweet icons (unnamed `<span>`s) by hint, post after post.
pub fn icons(env: &Env) {
    // The page builds its feed with a script after the heading shows.
    let (likes, reposts) = wait_until(Duration::from_secs(10), "the feed's icons", || {
        let likes = by_hint(env, WEB, "like");
        (likes.len() == 5).then(|| (likes, by_hint(env, WEB, "retweet")))
    });
    assert_eq!(
        (likes.len(), reposts.len()),
        (5, 5),
        "{likes:?} {reposts:?}"
    );
    let mut liked: Vec<String> = Vec::new();
    for round in 0..ROUNDS {
        let post = format!("post{}", round % 5 + 1);
        let r = env.ok(&["click", "--window", WEB, "--id", &likes[round % 5]]);
        assert_eq!(r["element"]["r"], "group", "{r}");
        match liked.iter().position(|p| *p == post) {
            Some(i) => {
                liked.remove(i);
            }
            None => liked.push(post),
        }
        env.expect(WEB, "liked:", &liked.join(","));
    }
    // By hint text too: the first retweet (ambiguous by text alone, so by id of a hint read).
    env.ok(&["click", "--window", WEB, "--id", &reposts[0]]);
    env.expect(WEB, "reposted:", "post1");
    let r = env
        .desk
        .lock()
        .unwrap()
        .cli(&["click", "--window", WEB, "--text", "retweet"]);
    assert_eq!(r.error_code(), "AMBIGUOUS_TARGET");
    assert!(r.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("hint \"retweet\""));
    // A hint is found by --text and --exact like a name: the folder of the file tree.
    env.ok(&["click", "--window", WEB, "--text", "src folder", "--exact"]);
    env.expect(WEB, "opened:", "src");
    env.ok(&["click", "--window", WEB, "--text", "readme file"]);
    env.expect(WEB, "opened:", "readme");
}

/// jQuery UI's slider handle (an unnamed, focusable `<span>`): home, then 40 right arrows
/// in one command.
pub fn slider(env: &Env) {
    for round in 0..ROUNDS {
        let handle = by_hint(env, WEB, "ui-slider-handle");
        assert_eq!(handle.len(), 1, "{handle:?}");
        let steps = 40 - (round % 3) * 5;
        env.ok(&["press", "--window", WEB, "--id", &handle[0], "home"]);
        let n = steps.to_string();
        env.ok(&[
            "press", "--window", WEB, "--id", &handle[0], "right", "--repeat", &n,
        ]);
        env.expect(WEB, "volume:", &n);
    }
}

/// Sortable items dragged onto others take their place: the last onto the first, then the
/// first onto the third, round after round, each order read back from the page.
pub fn sortable(env: &Env) {
    for round in 0..ROUNDS {
        let data = env.ok(&["read", "--window", WEB, "-i"]);
        let items: Vec<String> = ["Alpha", "Bravo", "Charlie", "Delta"]
            .iter()
            .map(|n| find(&data, "item", n))
            .map(|e| {
                let y = e["b"][1].as_i64().unwrap();
                (y, e["t"].as_str().unwrap().to_string())
            })
            .collect::<std::collections::BTreeMap<_, _>>()
            .into_values()
            .collect();
        let id = |n: &str| find(&data, "item", n)["i"].to_string();
        let (from, to) = if round % 2 == 0 { (3, 0) } else { (0, 2) };
        env.ok(&[
            "drag",
            "--window",
            WEB,
            "--from-id",
            &id(&items[from]),
            "--to-id",
            &id(&items[to]),
        ]);
        let mut want = items.clone();
        let moved = want.remove(from);
        want.insert(to, moved);
        env.expect(WEB, "order:", &want.join(","));
    }
}

/// A few letters typed into the City field, the suggestion waited for and clicked.
pub fn autocomplete(env: &Env) {
    let picks = [
        ("Ber", "Bern"),
        ("Lo", "London"),
        ("Ber", "Bergen"),
        ("Li", "Lisbon"),
        ("Am", "Amsterdam"),
    ];
    for round in 0..ROUNDS {
        let (typed, pick) = picks[round % picks.len()];
        let data = env.ok(&["read", "--window", WEB, "--roles", "input"]);
        let city = find(&data, "input", "City")["i"].to_string();
        env.ok(&["type", "--window", WEB, "--id", &city, "--replace", typed]);
        env.ok(&[
            "wait",
            "--window",
            WEB,
            "--for-text",
            pick,
            "--timeout",
            "5000",
        ]);
        env.ok(&["click", "--window", WEB, "--text", pick, "--exact"]);
        env.expect(WEB, "city:", pick);
    }
}

/// The modal dialog opened by its button and answered, Delete and Cancel in turn.
pub fn dialog(env: &Env) {
    for round in 0..ROUNDS {
        let (answer, state) = [("Delete", "deleted"), ("Cancel", "kept")][round % 2];
        env.ok(&["click", "--window", WEB, "--text", "Open dialog", "--exact"]);
        env.ok(&[
            "wait",
            "--window",
            WEB,
            "--for-role",
            "dialog",
            "--timeout",
            "5000",
        ]);
        let r = env.ok(&["click", "--window", WEB, "--text", answer, "--exact"]);
        assert_eq!(r["element"]["r"], "btn", "{r}");
        env.expect(WEB, "dialog:", state);
        env.ok(&[
            "wait",
            "--window",
            WEB,
            "--for-role",
            "dialog",
            "--gone",
            "--timeout",
            "5000",
        ]);
    }
}

/// The date picker opened from its field and a day clicked in its calendar.
pub fn date(env: &Env) {
    // The picker opens on the page's focus event, which a page in a window behind others
    // never gets from a click through the accessibility action (run alone, this test finds
    // the other page's window in front).
    env.ok(&["focus", "--window", WEB]);
    for round in 0..ROUNDS {
        let day = 3 + round * 2;
        env.ok(&["click", "--window", WEB, "--text", "Date", "--exact"]);
        let day = day.to_string();
        env.ok(&[
            "wait",
            "--window",
            WEB,
            "--for-text",
            "Next",
            "--timeout",
            "5000",
        ]);
        let r = env.ok(&["click", "--window", WEB, "--text", &day, "--exact"]);
        assert_eq!(r["element"]["r"], "lnk", "{r}");
        let suffix = format!("-{:02}", 3 + round * 2);
        env.expect_that(WEB, "date:", &suffix, |v| {
            v.len() == 10 && v.ends_with(&suffix)
        });
        env.ok(&[
            "wait",
            "--window",
            WEB,
            "--for-text",
            "Next",
            "--gone",
            "--timeout",
            "5000",
        ]);
    }
}

/// The accordion's sections opened in turn; the opened one's text shows.
pub fn accordion(env: &Env) {
    for round in 0..ROUNDS {
        let (section, text) = [
            ("Returns", "Thirty days"),
            ("Shipping", "Ships in two days"),
        ][round % 2];
        env.ok(&["click", "--window", WEB, "--text", section, "--exact"]);
        env.expect(WEB, "section:", section);
        wait_until(Duration::from_secs(5), text, || {
            let data = env.ok(&["read", "--window", WEB, "--text", text]);
            all(&data)
                .iter()
                .any(|e| e["t"].as_str().is_some_and(|t| t.starts_with(text)))
                .then_some(())
        });
    }
}
