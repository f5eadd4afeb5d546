//! Actions against real apps, each effect checked by reading the app back with pyatspi
//! (libatspi, not our code) or with a fresh `read`, never by trusting the command's `ok`.

use crate::read::{flatten, read};
use crate::{Env, Test};
use desktop_testkit::wait_until;
use serde_json::Value;

pub const TESTS: &[(&str, Test)] = &[
    (
        "act::click_check_box_by_id_changes_its_state",
        click_check_box,
    ),
    ("act::toggle_flips_and_refuses_buttons", toggle),
    ("act::hidden_elements_are_refused", hidden_refused),
    ("act::a_dialog_is_its_own_window", dialog_window),
    ("act::click_chromium_button_counts", chromium_counter),
    ("act::click_by_text_exact_and_ambiguous", click_by_text),
    ("act::type_unicode_into_gtk_entry", type_unicode_gtk),
    (
        "act::type_into_chromium_input_and_replace_with_ctrl_a",
        type_chromium,
    ),
    ("act::set_value_text_slider_spin", set_value),
    ("act::scroll_moves_content_and_into_view", scroll),
    ("act::drag_moves_a_slider", drag_slider),
    ("act::action_by_name", action_by_name),
    ("act::focus_window_and_element", focus),
    ("act::press_keys_and_bad_combos_type_nothing", press_keys),
    ("act::stale_ref_when_the_target_is_removed", stale_removed),
    ("act::same_element_after_inserts_above", same_after_insert),
    (
        "act::rematched_by_fingerprint_after_rerender",
        rematch_after_rerender,
    ),
    ("act::bad_targets_have_their_own_codes", bad_targets),
    ("act::launch_waits_for_the_window", launch),
];

/// An element put away (a check box in a closed popover menu, a button behind a closed
/// menu) is not acted on blindly: NOT_INTERACTABLE, the app unchanged, the focus where it was.
fn hidden_refused(env: &Env) {
    let app = "gtk3-widget-factory";
    let all = els(env, &["--app", app, "-i", "--visible-only=false"]);
    let find = |role: &str, name: &str| {
        all.iter()
            .find(|e| e["r"] == role && e["t"] == name)
            .unwrap_or_else(|| panic!("no {role} {name:?}"))
            .clone()
    };
    let (beer, dessert) = (find("chk", "Beer"), find("btn", "Dessert"));
    assert!(beer.get("b").is_none(), "Beer is put away: {beer}");
    // What holds the keyboard focus, by libatspi.
    let focused = || -> Vec<Value> {
        env.desk
            .atspi_dump(app, "")
            .into_iter()
            .filter(|e| {
                e["states"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|s| s == "focused")
            })
            .map(|e| e["name"].clone())
            .collect()
    };
    let focused_before = focused();
    for (e, args) in [
        (&beer, vec!["click"]),
        (&beer, vec!["toggle"]),
        (&dessert, vec!["click"]),
    ] {
        let id = e["i"].to_string();
        let mut all_args = args.clone();
        all_args.extend(["--id", &id, "--app", app]);
        let run = env.desk.cli(&all_args);
        assert_eq!(
            run.error_code(),
            "NOT_INTERACTABLE",
            "{all_args:?}: {}",
            run.stdout
        );
        assert!(run.stdout.contains("hidden"), "{}", run.stdout);
    }
    // libatspi, hidden elements included: Beer is as it was.
    let script = r#"
import sys, gi
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi
def walk(a, d=0):
    if d > 40: return None
    if a.get_name() == "Beer": return a
    for i in range(a.get_child_count()):
        c = a.get_child_at_index(i)
        f = c and walk(c, d + 1)
        if f: return f
desk = Atspi.get_desktop(0)
for i in range(desk.get_child_count()):
    app = desk.get_child_at_index(i)
    if app and app.get_name() == sys.argv[1]:
        b = walk(app)
        print(b.get_state_set().contains(Atspi.StateType.CHECKED) if b else "missing")
"#;
    let out = std::process::Command::new("/usr/bin/python3")
        .args(["-c", script, app])
        .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    let beer_checked = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let was = if beer["k"] == true { "True" } else { "False" };
    assert_eq!(beer_checked, was, "Beer changed behind the menu");
    let focused_after = focused();
    assert_eq!(
        focused_before, focused_after,
        "the focus moved to a hidden element"
    );
}

/// A modal dialog over its main window is listed as itself: its own X id, title and box, so
/// `--window-id` reads the dialog, and `--app` alone means the dialog (its frame once took the main window's X id and the main
/// window the dialog's).
fn dialog_window(env: &Env) {
    let app = "gtk3-widget-factory";
    // Back on the first page with the dialog closed, whatever happens.
    struct Restore<'a>(&'a Env);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            let app = "gtk3-widget-factory";
            let _ = self.0.desk.cli(&[
                "click",
                "--text",
                "Cancel",
                "--role",
                "btn",
                "--app",
                app,
                "--window",
                "Information",
            ]);
            let _ = self
                .0
                .desk
                .cli(&["click", "--text", "Page 1", "--role", "radio", "--app", app]);
        }
    }
    let _restore = Restore(env);
    ok(
        env,
        &["click", "--text", "Page 2", "--role", "radio", "--app", app],
    );
    // The factory's pages slide in (a GtkStack transition, frame by frame): its second
    // page's buttons exist once the slide is done, which on a loaded machine is after the
    // click has settled. An agent waits for what it expects to appear.
    ok(
        env,
        &[
            "wait",
            "--for-text",
            "Inform",
            "--app",
            app,
            "--timeout",
            "5000",
        ],
    );
    ok(
        env,
        &["click", "--text", "Inform", "--role", "btn", "--app", app],
    );
    ok(
        env,
        &[
            "wait",
            "--for-text",
            "Do It",
            "--app",
            app,
            "--timeout",
            "5000",
        ],
    );
    let windows = ok(env, &["list", "--app", app])["windows"].clone();
    let find = |title: &str| {
        windows
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["title"] == title)
            .unwrap_or_else(|| panic!("no window {title:?}: {windows}"))
            .clone()
    };
    let (dialog, main) = (find("Information"), find(app));
    assert_ne!(dialog["id"], main["id"]);
    // Modal: commands naming only the app act there (the wait above found its button
    // whether or not the window system gave the dialog the focus).
    assert_eq!(dialog["modal"], true, "{dialog}");
    assert!(main.get("modal").is_none(), "{main}");
    let w = |v: &Value| v["bounds"][2].as_i64().unwrap();
    assert!(
        w(&dialog) < w(&main),
        "the dialog has its own box: {dialog} {main}"
    );
    let id = dialog["id"].to_string();
    let names: Vec<String> = els(env, &["--window-id", &id, "-i"])
        .iter()
        .filter_map(|e| e["t"].as_str().map(str::to_string))
        .collect();
    assert!(names.contains(&"Do It".to_string()), "{names:?}");
    assert!(
        !names.contains(&"Inform".to_string()),
        "the main window was read: {names:?}"
    );
}

fn els(env: &Env, args: &[&str]) -> Vec<Value> {
    flatten(&read(env, args)["elements"])
}

fn ok(env: &Env, args: &[&str]) -> Value {
    env.desk.cli(args).data()
}

/// The id of the first element with this role and name in a fresh read.
fn id_of(env: &Env, app: &str, role: &str, name: &str, extra: &[&str]) -> (String, Value) {
    let mut args = vec!["--app", app];
    args.extend_from_slice(extra);
    let e = els(env, &args)
        .into_iter()
        .find(|e| e["r"] == role && e["t"] == name)
        .unwrap_or_else(|| {
            // Whether a read of the process's own (not the keeper's) sees it tells which failed.
            let mut direct = vec!["read"];
            direct.extend_from_slice(&args);
            let run = env.desk.cli_with(&direct, &[("DESKTOP_CLI_DIRECT", "1")]);
            let seen = run.stdout.contains(&format!("\"t\":\"{name}\""));
            panic!(
                "no {role} {name:?} in {app}; a direct read {} it: {}",
                if seen { "sees" } else { "does not see" },
                run.stdout
            )
        });
    (e["i"].to_string(), e)
}

/// pyatspi's view of the element with these bounds.
fn atspi_at(env: &Env, app: &str, b: &Value) -> Value {
    env.desk
        .atspi_dump(app, "")
        .into_iter()
        .find(|e| &e["b"] == b && e["depth"].as_u64() > Some(0))
        .unwrap_or_else(|| panic!("pyatspi sees nothing at {b} in {app}"))
}

pub(crate) fn atspi_named(env: &Env, app: &str, role: &str, name: &str) -> Vec<Value> {
    env.desk
        .atspi_dump(app, "")
        .into_iter()
        .filter(|e| e["role"] == role && e["name"] == name)
        .collect()
}

fn wait_atspi(env: &Env, app: &str, role: &str, name: &str) {
    wait_until(
        std::time::Duration::from_secs(3),
        &format!("{role} {name:?} in {app}"),
        || (!atspi_named(env, app, role, name).is_empty()).then_some(()),
    );
}

pub(crate) fn checked(e: &Value) -> bool {
    e["states"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s == "checked")
}

fn click_check_box(env: &Env) {
    let all = els(env, &["--app", "gtk3-widget-factory", "--roles", "chk"]);
    let target = all
        .iter()
        .find(|e| e.get("e").is_none() && e.get("k").is_none())
        .expect("an enabled, unchecked check box");
    let id = target["i"].to_string();
    assert!(!checked(&atspi_at(
        env,
        "gtk3-widget-factory",
        &target["b"]
    )));
    let r = ok(env, &["click", "--id", &id, "--app", "gtk3-widget-factory"]);
    assert_eq!(r["route"], "a11y", "{r}");
    assert_eq!(r["post_state"]["k"], true, "{r}");
    assert!(
        checked(&atspi_at(env, "gtk3-widget-factory", &target["b"])),
        "pyatspi sees it checked"
    );
    // A synthesized click (right button has no accessibility route) goes through XTest.
    ok(env, &["click", "--id", &id, "--app", "gtk3-widget-factory"]);
    assert!(
        !checked(&atspi_at(env, "gtk3-widget-factory", &target["b"])),
        "and unchecked again"
    );
    let r = ok(
        env,
        &[
            "click",
            "--id",
            &id,
            "--app",
            "gtk3-widget-factory",
            "--double",
        ],
    );
    assert_eq!(r["route"], "input", "{r}");
    assert!(
        !checked(&atspi_at(env, "gtk3-widget-factory", &target["b"])),
        "two clicks leave it as it was"
    );
}

fn toggle(env: &Env) {
    let all = els(env, &["--app", "gtk3-widget-factory"]);
    let t = all
        .iter()
        .find(|e| e["r"] == "toggle" && e["t"] == "togglebutton" && e.get("e").is_none())
        .unwrap();
    let before = checked(&atspi_at(env, "gtk3-widget-factory", &t["b"]));
    let r = ok(env, &["toggle", "--id", &t["i"].to_string()]);
    assert_eq!(r["post_state"]["k"], !before, "{r}");
    assert_eq!(
        checked(&atspi_at(env, "gtk3-widget-factory", &t["b"])),
        !before
    );
    ok(env, &["toggle", "--id", &t["i"].to_string()]);
    assert_eq!(
        checked(&atspi_at(env, "gtk3-widget-factory", &t["b"])),
        before
    );
    let btn = all
        .iter()
        .find(|e| e["r"] == "btn" && e["t"] == "Sans Regular")
        .unwrap();
    let run = env.desk.cli(&["toggle", "--id", &btn["i"].to_string()]);
    assert_eq!(run.error_code(), "NOT_CHECKABLE");
}

/// The page's counter as pyatspi reads it.
pub(crate) fn counter(env: &Env) -> u64 {
    let dump = env.desk.atspi_dump("chromium", "");
    let at = dump
        .iter()
        .position(|e| e["name"].as_str().unwrap_or("").trim() == "Counter:")
        .expect("counter label");
    dump[at + 1..]
        .iter()
        .find_map(|e| e["name"].as_str().and_then(|n| n.trim().parse().ok()))
        .expect("counter value")
}

fn chromium_counter(env: &Env) {
    let before = counter(env);
    let (id, _) = id_of(env, "chromium", "btn", "Increment", &[]);
    let r = ok(env, &["click", "--id", &id, "--app", "chromium"]);
    assert_eq!(r["route"], "a11y");
    // The click answered once the page had reacted: no waiting here.
    assert_eq!(counter(env), before + 1);
    // The same through synthesized input.
    ok(
        env,
        &[
            "click", "--id", &id, "--app", "chromium", "--button", "left", "--double",
        ],
    );
    assert_eq!(counter(env), before + 3, "a double click is two clicks");
}

fn click_by_text(env: &Env) {
    let r = ok(env, &["click", "--text", "Button 7", "--app", "chromium"]);
    assert_eq!(
        r["element"]["t"], "Button 7",
        "the whole name wins over Button 70..: {r}"
    );
    env.desk.wait_for_text("chromium", "Clicked 7", 3);
    assert_eq!(
        atspi_named(env, "chromium", "push button", "Clicked 7").len(),
        1
    );
    assert_eq!(
        atspi_named(env, "chromium", "push button", "Button 7").len(),
        0
    );
    let run = env.desk.cli(&[
        "click", "--text", "Button 1", "--app", "chromium", "--role", "lnk",
    ]);
    assert_eq!(run.error_code(), "ELEMENT_NOT_FOUND");
    let run = env
        .desk
        .cli(&["click", "--text", "Button", "--app", "chromium"]);
    assert_eq!(run.error_code(), "AMBIGUOUS_TARGET");
    assert!(
        run.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("btn \"Button 1"),
        "{}",
        run.stdout
    );
}

fn entry(env: &Env) -> (String, Value) {
    let all = els(env, &["--app", "gtk3-widget-factory", "--roles", "input"]);
    let e = all
        .iter()
        .filter(|e| e["v"] == "entry" || e.get("e").is_none())
        .find(|e| {
            e.get("e").is_none()
                && e["b"][2].as_i64() == Some(320)
                && e["b"][1].as_i64() > Some(200)
        })
        .cloned()
        .unwrap_or_else(|| panic!("the plain entry: {all:?}"));
    (e["i"].to_string(), e)
}

fn atspi_value(env: &Env, app: &str, b: &Value) -> String {
    atspi_at(env, app, b)["v"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn type_unicode_gtk(env: &Env) {
    let (id, e) = entry(env);
    ok(env, &["set-value", "--id", &id, "--value", ""]);
    let text = "héllo Wörld 中文 😀 ñ-ü «ok»";
    let r = ok(env, &["type", "--id", &id, text]);
    assert_eq!(r["chars"], text.chars().count());
    assert_eq!(atspi_value(env, "gtk3-widget-factory", &e["b"]), text);
    // ctrl+a then typing replaces everything.
    ok(env, &["press", "ctrl+a"]);
    ok(env, &["type", "plain ascii 123"]);
    assert_eq!(
        atspi_value(env, "gtk3-widget-factory", &e["b"]),
        "plain ascii 123"
    );
    ok(env, &["set-value", "--id", &id, "--value", "entry"]);
}

fn type_chromium(env: &Env) {
    let (id, e) = id_of(env, "chromium", "input", "Field 2", &[]);
    ok(env, &["set-value", "--id", &id, "--value", ""]);
    let text = "Zoë 東京 🎉 ok";
    ok(env, &["type", "--id", &id, text]);
    assert_eq!(atspi_value(env, "chromium", &e["b"]), text);
    ok(env, &["type", "--key", "ctrl+a", "--app", "chromium"]);
    ok(env, &["type", "--app", "chromium", "replaced"]);
    assert_eq!(atspi_value(env, "chromium", &e["b"]), "replaced");
    ok(env, &["set-value", "--id", &id, "--value", "value 2"]);
    assert_eq!(atspi_value(env, "chromium", &e["b"]), "value 2");
}

fn set_value(env: &Env) {
    let (id, e) = entry(env);
    let r = ok(env, &["set-value", "--id", &id, "--value", "set by a11y"]);
    assert_eq!(r["route"], "a11y", "GTK entries have EditableText: {r}");
    assert_eq!(
        atspi_value(env, "gtk3-widget-factory", &e["b"]),
        "set by a11y"
    );
    ok(env, &["set-value", "--id", &id, "--value", "entry"]);
    let all = els(env, &["--app", "gtk3-widget-factory"]);
    let slider = all
        .iter()
        .find(|e| e["r"] == "slider" && e.get("e").is_none() && e["v"] == "50")
        .unwrap();
    let r = ok(
        env,
        &[
            "set-value",
            "--id",
            &slider["i"].to_string(),
            "--value",
            "75",
        ],
    );
    assert_eq!(r["post_state"]["v"], "75", "{r}");
    assert_eq!(
        atspi_value(env, "gtk3-widget-factory", &slider["b"])
            .parse::<f64>()
            .unwrap(),
        75.0
    );
    let run = env.desk.cli(&[
        "set-value",
        "--id",
        &slider["i"].to_string(),
        "--value",
        "1000",
    ]);
    assert_eq!(run.error_code(), "INVALID_ARGS", "out of range");
    let run = env.desk.cli(&[
        "set-value",
        "--id",
        &slider["i"].to_string(),
        "--value",
        "lots",
    ]);
    assert_eq!(run.error_code(), "INVALID_ARGS");
    ok(
        env,
        &[
            "set-value",
            "--id",
            &slider["i"].to_string(),
            "--value",
            "50",
        ],
    );
    let spin = all
        .iter()
        .find(|e| e["r"] == "spin" && e.get("e").is_none())
        .unwrap();
    ok(
        env,
        &["set-value", "--id", &spin["i"].to_string(), "--value", "10"],
    );
    assert_eq!(
        atspi_value(env, "gtk3-widget-factory", &spin["b"])
            .parse::<f64>()
            .unwrap(),
        10.0
    );
    ok(
        env,
        &["set-value", "--id", &spin["i"].to_string(), "--value", "50"],
    );
    let progress = all.iter().find(|e| e["r"] == "progress").unwrap();
    assert_eq!(
        env.desk
            .cli(&[
                "set-value",
                "--id",
                &progress["i"].to_string(),
                "--value",
                "1"
            ])
            .error_code(),
        "READ_ONLY"
    );
    let btn = all
        .iter()
        .find(|e| e["r"] == "btn" && e["t"] == "Sans Regular")
        .unwrap();
    assert_eq!(
        env.desk
            .cli(&["set-value", "--id", &btn["i"].to_string(), "--value", "x"])
            .error_code(),
        "ACTION_NOT_SUPPORTED"
    );
}

fn y_of(env: &Env, text: &str) -> i64 {
    let list = els(
        env,
        &["--app", "chromium", "--visible-only=false", "--text", text],
    );
    let e = list
        .iter()
        .find(|e| e["t"] == text)
        .unwrap_or_else(|| panic!("{text}: {list:?}"));
    e["b"][1].as_i64().unwrap()
}

fn scroll(env: &Env) {
    let before = y_of(env, "Item 20");
    let r = ok(
        env,
        &[
            "scroll",
            "--app",
            "chromium",
            "--direction",
            "down",
            "--amount",
            "5",
        ],
    );
    assert_eq!(r["route"], "input");
    // Chromium reports new bounds a moment after it scrolls, without an event for them.
    let after = wait_until(
        std::time::Duration::from_secs(2),
        "the content to move up",
        || Some(y_of(env, "Item 20")).filter(|y| *y < before),
    );
    assert!(after < before, "content moved up: {before} -> {after}");
    ok(
        env,
        &[
            "scroll",
            "--app",
            "chromium",
            "--direction",
            "up",
            "--amount",
            "30",
        ],
    );
    // Chromium updates the bounds it reports a moment after it scrolls.
    wait_until(
        std::time::Duration::from_secs(3),
        "Item 20 below the screen",
        || (y_of(env, "Item 20") > 800).then_some(()),
    );
    // Off screen, then brought into view by the app itself.
    let list = els(
        env,
        &[
            "--app",
            "chromium",
            "--visible-only=false",
            "--text",
            "Item 20",
        ],
    );
    let item = list.iter().find(|e| e["t"] == "Item 20").unwrap();
    assert!(
        item["b"][1].as_i64().unwrap() > 800,
        "below the fold: {item}"
    );
    let r = ok(
        env,
        &["scroll", "--id", &item["i"].to_string(), "--into-view"],
    );
    assert_eq!(r["route"], "a11y");
    let y = y_of(env, "Item 20");
    assert!((0..800).contains(&y), "now on screen: {y}");
    ok(
        env,
        &[
            "scroll",
            "--app",
            "chromium",
            "--direction",
            "up",
            "--amount",
            "30",
        ],
    );
}

fn drag_slider(env: &Env) {
    let all = els(env, &["--app", "gtk3-widget-factory"]);
    let s = all
        .iter()
        .find(|e| {
            e["r"] == "slider"
                && e.get("e").is_none()
                && e["v"] == "50"
                && e["b"][2].as_i64() > e["b"][3].as_i64()
        })
        .expect("a horizontal slider at 50");
    let b = s["b"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect::<Vec<_>>();
    let (cx, cy) = (b[0] + b[2] / 2, b[1] + b[3] / 2);
    let (tx, ty) = (b[0] + b[2] - 4, cy);
    let (cx, cy, tx, ty) = (
        cx.to_string(),
        cy.to_string(),
        tx.to_string(),
        ty.to_string(),
    );
    ok(
        env,
        &[
            "drag",
            "--app",
            "gtk3-widget-factory",
            "--from-x",
            &cx,
            "--from-y",
            &cy,
            "--to-x",
            &tx,
            "--to-y",
            &ty,
        ],
    );
    let v: f64 = atspi_value(env, "gtk3-widget-factory", &s["b"])
        .parse()
        .unwrap();
    assert!(v > 80.0, "the knob moved right: value {v}");
    ok(
        env,
        &["set-value", "--id", &s["i"].to_string(), "--value", "50"],
    );
}

fn action_by_name(env: &Env) {
    let all = els(
        env,
        &[
            "--app",
            "gtk3-widget-factory",
            "--roles",
            "chk",
            "--actions",
        ],
    );
    let c = all
        .iter()
        .find(|e| e.get("e").is_none() && e.get("k").is_none())
        .unwrap();
    assert!(
        c["a"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str().unwrap().eq_ignore_ascii_case("click")),
        "{c}"
    );
    let r = ok(
        env,
        &["action", "--id", &c["i"].to_string(), "--name", "click"],
    );
    assert_eq!(r["route"], "a11y");
    assert!(checked(&atspi_at(env, "gtk3-widget-factory", &c["b"])));
    ok(
        env,
        &["action", "--id", &c["i"].to_string(), "--name", "click"],
    );
    let run = env
        .desk
        .cli(&["action", "--id", &c["i"].to_string(), "--name", "explode"]);
    assert_eq!(run.error_code(), "ACTION_NOT_SUPPORTED");
    assert!(
        run.json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("click"),
        "lists what it has"
    );
}

fn focused_app(env: &Env) -> String {
    let d = ok(env, &["list"]);
    d["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["focused"] == true)
        .map(|w| w["app"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

fn focus(env: &Env) {
    ok(env, &["focus", "--app", "gtk3-widget-factory"]);
    assert_eq!(focused_app(env), "gtk3-widget-factory");
    ok(env, &["focus", "--app", "chromium"]);
    assert_eq!(focused_app(env), "Chromium");
    let (id, e) = entry(env);
    let r = ok(env, &["focus", "--id", &id, "--app", "gtk3-widget-factory"]);
    assert_eq!(r["route"], "a11y");
    let st = atspi_at(env, "gtk3-widget-factory", &e["b"]);
    assert!(
        st["states"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "focused"),
        "{st}"
    );
    assert_eq!(
        focused_app(env),
        "gtk3-widget-factory",
        "its window came to the front"
    );
}

fn press_keys(env: &Env) {
    let (id, e) = entry(env);
    ok(env, &["set-value", "--id", &id, "--value", "keep me"]);
    ok(env, &["focus", "--id", &id]);
    for bad in ["ctrl++", "hyper+q", "ctrl+", "f99", ""] {
        let run = env.desk.cli(&["press", bad]);
        assert_eq!(run.code, 2, "{bad}: {}", run.stdout);
        assert_eq!(run.error_code(), "INVALID_KEY", "{bad}");
        let run = env.desk.cli(&["type", "--key", bad]);
        assert_eq!(run.error_code(), "INVALID_KEY", "{bad}");
    }
    assert_eq!(
        atspi_value(env, "gtk3-widget-factory", &e["b"]),
        "keep me",
        "nothing was typed"
    );
    ok(env, &["press", "end"]);
    ok(env, &["press", "shift+home"]);
    ok(env, &["press", "BackSpace"]);
    assert_eq!(
        atspi_value(env, "gtk3-widget-factory", &e["b"]),
        "",
        "selected and deleted"
    );
    ok(env, &["set-value", "--id", &id, "--value", "entry"]);
}

fn stale_removed(env: &Env) {
    let (id, _) = id_of(env, "chromium", "btn", "Remove Me", &[]);
    // Something else removes it between the read and the click.
    ok(
        env,
        &[
            "click",
            "--text",
            "Remove Me",
            "--app",
            "chromium",
            "--exact",
        ],
    );
    // The click answered once the page had reacted: the button is gone already.
    assert!(atspi_named(env, "chromium", "push button", "Remove Me").is_empty());
    let run = env.desk.cli(&["click", "--id", &id, "--app", "chromium"]);
    assert_eq!(run.error_code(), "STALE_REF", "{}", run.stdout);
    assert!(run.json()["error"]["suggestion"]
        .as_str()
        .unwrap()
        .contains("read"));
}

fn same_after_insert(env: &Env) {
    let (id, before) = id_of(env, "chromium", "btn", "Button 3", &[]);
    for _ in 0..2 {
        ok(
            env,
            &["click", "--text", "Insert Above", "--app", "chromium"],
        );
    }
    // Wait with pyatspi: a `read` would hand out new ids.
    wait_atspi(env, "chromium", "push button", "Inserted 2");
    let r = ok(env, &["click", "--id", &id, "--app", "chromium"]);
    assert_eq!(r["element"]["t"], "Button 3", "{r}");
    assert!(
        r.get("rematched").is_none(),
        "the recorded handle still held: {r}"
    );
    env.desk.wait_for_text("chromium", "Clicked 3", 3);
    let now = els(env, &["--app", "chromium", "--text", "Clicked 3"]);
    let moved = now.iter().find(|e| e["t"] == "Clicked 3").unwrap();
    assert!(
        moved["b"][1].as_i64() > before["b"][1].as_i64(),
        "it had moved down and was still the one clicked"
    );
    assert_eq!(
        atspi_named(env, "chromium", "push button", "Clicked 4").len(),
        0,
        "no neighbour was clicked"
    );
}

fn rematch_after_rerender(env: &Env) {
    let (id, _) = id_of(env, "chromium", "btn", "Stable Target", &[]);
    ok(
        env,
        &[
            "click",
            "--text",
            "Re-render",
            "--app",
            "chromium",
            "--exact",
        ],
    );
    // The page has replaced the target's object once the button says so (asked of
    // libatspi: a read of ours would renumber the window's ids).
    let mut fields = env.desk.fields();
    desktop_testkit::wait_until(std::time::Duration::from_secs(3), "the re-render", || {
        fields.read("Fixture Page").get("Re-rendered").map(|_| ())
    });
    let r = ok(env, &["click", "--id", &id, "--app", "chromium"]);
    assert_eq!(
        r["rematched"], true,
        "a new object, found by its fingerprint: {r}"
    );
    env.desk.wait_for_text("chromium", "Stable Hit", 3);
}

fn bad_targets(env: &Env) {
    let _ = read(env, &["--app", "gtk3-widget-factory"]);
    assert_eq!(
        env.desk.cli(&["click", "--id", "99999"]).error_code(),
        "ELEMENT_NOT_FOUND"
    );
    assert_eq!(
        env.desk
            .cli(&["click", "--id", "1", "--app", "gtk3-demo"])
            .error_code(),
        "WINDOW_MISMATCH"
    );
    for (x, y) in [("5000", "10"), ("-5", "10"), ("10", "900")] {
        let run = env.desk.cli(&["click", "--x", x, "--y", y]);
        assert_eq!(run.error_code(), "OFF_SCREEN", "{x},{y}");
    }
    let all = els(env, &["--app", "gtk3-widget-factory", "--roles", "chk"]);
    let disabled = all.iter().find(|e| e["e"] == false).unwrap();
    let before = checked(&atspi_at(env, "gtk3-widget-factory", &disabled["b"]));
    let run = env.desk.cli(&["click", "--id", &disabled["i"].to_string()]);
    assert_eq!(run.error_code(), "NOT_INTERACTABLE");
    assert_eq!(
        checked(&atspi_at(env, "gtk3-widget-factory", &disabled["b"])),
        before,
        "a refused click changes nothing"
    );
    assert_eq!(env.desk.cli(&["click"]).error_code(), "INVALID_ARGS");
    assert_eq!(env.desk.cli(&["type"]).error_code(), "INVALID_ARGS");
}

fn launch(env: &Env) {
    let r = ok(env, &["launch", "--wait", "20", "gtk3-icon-browser"]);
    assert_eq!(r["action"], "launch");
    let pid = r["pid"].as_u64().unwrap();
    let listed = ok(env, &["list", "--pid", &pid.to_string()]);
    assert_eq!(listed["windows"].as_array().unwrap().len(), 1, "{listed}");
    let kill = rustix::process::Pid::from_raw(pid as i32).unwrap();
    let _ = rustix::process::kill_process(kill, rustix::process::Signal::TERM);
    assert_eq!(
        env.desk
            .cli(&["launch", "--wait", "5", "no-such-program-xyz"])
            .error_code(),
        "ACTION_FAILED"
    );
    assert_eq!(
        env.desk
            .cli(&["launch", "--wait", "5", "false"])
            .error_code(),
        "ACTION_FAILED"
    );
}
