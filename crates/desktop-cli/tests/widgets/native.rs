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
