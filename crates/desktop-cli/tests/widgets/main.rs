//! Everyday controls at agent tempo: icon-only buttons found by hint, ctrl-click multi-
//! selection, a keyboard slider moved 40 steps with one `press`, a select's value read and
//! set, an item 30 rows down found and clicked, on a jQuery UI page in Chromium
//! (tests/fixtures/widgets.html). Commands run back to back; every effect is read back by
//! libatspi from the page's own status text.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use desktop_testkit::{wait_until, Desk, Fields};
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");
const WEB: &str = "Widgets Page";
const ROUNDS: usize = 10;

struct Env {
    desk: Mutex<Desk>,
    fields: Mutex<Fields>,
}

impl Env {
    fn cli(&self, args: &[&str]) -> desktop_testkit::Run {
        self.desk
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .cli(args)
    }

    fn ok(&self, args: &[&str]) -> Value {
        self.cli(args).data()
    }

    /// The app's status line starting with `prefix`, once it says `want` (libatspi reads it).
    fn expect(&self, window: &str, prefix: &str, want: &str) {
        wait_until(
            Duration::from_secs(5),
            &format!("{prefix} {want} in {window}"),
            || {
                let f = self
                    .fields
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .read(window);
                let line = f
                    .as_object()?
                    .keys()
                    .flat_map(|k| k.lines())
                    .find(|l| l.starts_with(prefix))
                    .map(str::to_string)
                    .unwrap_or_default();
                (status_part(&line, prefix) == want).then_some(())
            },
        );
    }
}

/// `prefix`'s value in a status text: up to the next `;` or the end of the line.
fn status_part(text: &str, prefix: &str) -> String {
    let at = match text.find(prefix) {
        Some(i) => i + prefix.len(),
        None => return String::new(),
    };
    text[at..]
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Every element of a read, depth first.
fn all(data: &Value) -> Vec<Value> {
    fn walk(es: &Value, out: &mut Vec<Value>) {
        for e in es.as_array().into_iter().flatten() {
            out.push(e.clone());
            walk(&e["c"], out);
        }
    }
    let mut out = Vec::new();
    walk(&data["elements"], &mut out);
    out
}

/// Ids of the elements of `read -i` whose hint is `hint`, in reading order.
fn by_hint(env: &Env, window: &str, hint: &str) -> Vec<String> {
    let data = env.ok(&["read", "--window", window, "-i"]);
    all(&data)
        .iter()
        .filter(|e| e["h"] == hint)
        .map(|e| e["i"].to_string())
        .collect()
}

fn find(data: &Value, role: &str, name: &str) -> Value {
    all(data)
        .into_iter()
        .find(|e| e["r"] == role && e["t"] == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in {data}"))
}

fn id_of(data: &Value, role: &str, name: &str) -> String {
    find(data, role, name)["i"].to_string()
}

/// A plain click at the center of an element (pointer input: it replaces a selection).
fn plain_click(env: &Env, window: &str, data: &Value, name: &str) {
    let b = &find(data, "item", name)["b"];
    let x = (b[0].as_i64().unwrap() + b[2].as_i64().unwrap() / 2).to_string();
    let y = (b[1].as_i64().unwrap() + b[3].as_i64().unwrap() / 2).to_string();
    env.ok(&["click", "--window", window, "--x", &x, "--y", &y]);
}

type Test = fn(&Env);

const TESTS: &[(&str, Test)] = &[
    ("web::icon_buttons_found_by_hint_and_clicked", web_icons),
    ("web::three_items_ctrl_selected", web_ctrl_select),
    ("web::slider_moved_40_steps_by_one_press", web_slider),
    ("web::select_value_read_and_set", web_select),
    ("web::item_30_rows_down_found_and_clicked", web_far_item),
];

/// The feed's like and retweet icons (unnamed `<span>`s) by hint, post after post.
fn web_icons(env: &Env) {
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

/// A plain click, then ctrl-clicks: three colors of a multi-select list.
fn web_ctrl_select(env: &Env) {
    let sets = [["Red", "Yellow", "Blue"], ["Orange", "Green", "Violet"]];
    for round in 0..ROUNDS {
        let set = sets[round % 2];
        let data = env.ok(&["read", "--window", WEB, "--roles", "item"]);
        let ids: Vec<String> = set.iter().map(|c| id_of(&data, "item", c)).collect();
        plain_click(env, WEB, &data, set[0]);
        for id in &ids[1..] {
            let r = env.ok(&["click", "--window", WEB, "--id", id, "--modifiers", "ctrl"]);
            assert_eq!(r["modifiers"], serde_json::json!(["ctrl"]), "{r}");
        }
        env.expect(WEB, "colors:", &set.join(","));
    }
}

/// jQuery UI's slider handle (an unnamed, focusable `<span>`): home, then 40 right arrows
/// in one command.
fn web_slider(env: &Env) {
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

/// The select shows its option as its value, and set-value chooses by option text.
fn web_select(env: &Env) {
    let fruits = ["Cherry", "damson plum", "Apple", "BANANA"];
    for round in 0..ROUNDS {
        let want = fruits[round % 4];
        let r = env.ok(&[
            "set-value",
            "--window",
            WEB,
            "--text",
            "Fruit",
            "--value",
            want,
        ]);
        let shown = r["post_state"]["v"].as_str().unwrap().to_string();
        assert_eq!(shown.to_lowercase(), want.to_lowercase(), "{r}");
        env.expect(WEB, "fruit:", &shown);
        let data = env.ok(&["read", "--window", WEB, "--roles", "combo"]);
        assert_eq!(all(&data)[0]["v"], shown.as_str(), "{data}");
    }
    let r = env.cli(&[
        "set-value",
        "--window",
        WEB,
        "--text",
        "Fruit",
        "--value",
        "Kiwi",
    ]);
    assert_eq!(r.error_code(), "ELEMENT_NOT_FOUND");
}

/// Messages far below the fold of a scrolled list: counted, found by text, clicked.
fn web_far_item(env: &Env) {
    let data = env.ok(&["read", "--window", WEB, "-i"]);
    let inbox = all(&data).into_iter().find(|e| e["t"] == "Inbox").unwrap();
    assert!(inbox["more"].as_u64().unwrap() >= 30, "{inbox}");
    for round in 0..ROUNDS {
        let name = format!("Message {}", 30 + round);
        let found = env.ok(&["read", "--window", WEB, "--text", &name]);
        let el = all(&found).into_iter().find(|e| e["t"] == name.as_str());
        let el = el.unwrap_or_else(|| panic!("{name} not found: {found}"));
        let r = env.ok(&["click", "--window", WEB, "--text", &name, "--exact"]);
        if el["out"] == true {
            assert_eq!(r["scrolled_into_view"], true, "{r}");
        }
        env.expect(WEB, "clicked:", &name);
    }
}

fn main() {
    let mut desk = Desk::start(BIN);
    desk.chromium_page("widgets.html", "Widgets Page");
    let fields = desk.fields();
    let env = Env {
        desk: Mutex::new(desk),
        fields: Mutex::new(fields),
    };
    desktop_testkit::run_tests(env, TESTS.to_vec(), |env, name| {
        env.desk
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .screenshot(name)
    })
}
