//! Everyday controls at agent tempo, on a jQuery UI page in Chromium
//! (tests/fixtures/widgets.html) and on GTK3 and Qt5 windows (widgets_gtk.py,
//! widgets_qt.py): icon-only buttons found by hint, ctrl-click multi-selection, a keyboard
//! slider moved 40 steps with one `press`, a select's value read and set, an item 30 rows
//! down found and clicked, a sortable item dragged, autocomplete, a modal dialog, a date
//! picker and an accordion; date, time, number and spin fields, and text that starts with
//! a dash (fields.rs). Commands run back to back; every effect is read back by
//! libatspi from the app's own status text.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod fields;
mod native;
mod web;

use desktop_testkit::{wait_until, Desk, Fields};
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");
const WEB: &str = "Widgets Page";
const GTK: &str = "GTK Widgets";
const QT: &str = "Qt Widgets";
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

    /// Waits until the app's status text says `want` after `prefix` (libatspi reads it).
    fn expect(&self, window: &str, prefix: &str, want: &str) {
        self.expect_that(window, prefix, want, |v| v == want);
    }

    /// Waits until the value after `prefix` in the app's status text passes `check`
    /// (`what` names it in a failure); returns that value.
    fn expect_that(
        &self,
        window: &str,
        prefix: &str,
        what: &str,
        check: impl Fn(&str) -> bool,
    ) -> String {
        let mut last = String::new();
        let seen = std::cell::RefCell::new(&mut last);
        wait_until(
            Duration::from_secs(5),
            &format!("{prefix} {what} in {window}"),
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
                    .find(|l| l.contains(prefix))
                    .map(str::to_string)
                    .unwrap_or_default();
                let v = status_part(&line, prefix);
                **seen.borrow_mut() = v.clone();
                check(&v).then_some(v)
            },
        )
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

use desktop_testkit::all;

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

/// A plain click, then ctrl-clicks on the rest: three items of a multi-selection list,
/// two different sets in turn, each read back from the app's `colors:` status.
fn ctrl_select(env: &Env, window: &str) {
    let sets = [["Red", "Yellow", "Blue"], ["Orange", "Green", "Violet"]];
    for round in 0..ROUNDS {
        let set = sets[round % 2];
        let data = env.ok(&["read", "--window", window, "--roles", "item"]);
        let ids: Vec<String> = set.iter().map(|c| id_of(&data, "item", c)).collect();
        plain_click(env, window, &data, set[0]);
        for id in &ids[1..] {
            let r = env.ok(&[
                "click",
                "--window",
                window,
                "--id",
                id,
                "--modifiers",
                "ctrl",
            ]);
            assert_eq!(r["modifiers"], serde_json::json!(["ctrl"]), "{r}");
        }
        env.expect(window, "colors:", &set.join(","));
    }
}

/// A combo's value read and set by option text (exact or any case), each choice read back
/// from the app's `fruit:` status; an option that does not exist is ELEMENT_NOT_FOUND. The
/// combo is found by its label, or (`None`) as the first combo of a read.
fn combo_set(env: &Env, window: &str, label: Option<&str>) {
    let fruits = ["Cherry", "damson plum", "Apple", "BANANA"];
    let target = |env: &Env| match label {
        Some(l) => vec!["--text".to_string(), l.to_string()],
        None => {
            let data = env.ok(&["read", "--window", window, "--roles", "combo"]);
            vec!["--id".to_string(), all(&data)[0]["i"].to_string()]
        }
    };
    for round in 0..ROUNDS {
        let want = fruits[round % 4];
        let target = target(env);
        let mut args = vec!["set-value", "--window", window];
        args.extend(target.iter().map(String::as_str));
        args.extend_from_slice(&["--value", want]);
        let r = env.ok(&args);
        let shown = r["post_state"]["v"].as_str().unwrap().to_string();
        assert_eq!(shown.to_lowercase(), want.to_lowercase(), "{r}");
        env.expect(window, "fruit:", &shown);
        // The value, or the name when they are the same (GTK3 and Qt5 name a combo after
        // its option; the value is then left out).
        let data = env.ok(&["read", "--window", window, "--roles", "combo"]);
        let combo = &all(&data)[0];
        let value = combo.get("v").unwrap_or(&combo["t"]);
        assert_eq!(value, shown.as_str(), "{data}");
    }
    let target = target(env);
    let mut args = vec!["set-value", "--window", window];
    args.extend(target.iter().map(String::as_str));
    args.extend_from_slice(&["--value", "Kiwi"]);
    assert_eq!(env.cli(&args).error_code(), "ELEMENT_NOT_FOUND");
}

/// Messages far from the view of a scrolled list: counted, found by text, clicked, each
/// read back from the app's `clicked:` status. The last one first (the list scrolls down to
/// it), then rows far above the view (it scrolls back up).
fn far_item(env: &Env, window: &str, list: Option<&str>) {
    let data = env.ok(&["read", "--window", window, "-i"]);
    let more = all(&data)
        .into_iter()
        .filter(|e| list.is_none_or(|l| e["t"] == l))
        .find_map(|e| e["more"].as_u64());
    assert!(more.is_some_and(|m| m >= 30), "{data}");
    env.ok(&[
        "click",
        "--window",
        window,
        "--text",
        "Message 50",
        "--exact",
    ]);
    env.expect(window, "clicked:", "Message 50");
    for round in 0..ROUNDS {
        let name = format!("Message {}", 30 + round);
        let found = env.ok(&["read", "--window", window, "--text", &name]);
        let el = all(&found).into_iter().find(|e| e["t"] == name.as_str());
        let el = el.unwrap_or_else(|| panic!("{name} not found: {found}"));
        let r = env.ok(&["click", "--window", window, "--text", &name, "--exact"]);
        // Out of view: scrolled into it first, unless the app's own action (which needs
        // no view) did the click on a row the screen shows part of.
        if el["out"] == true && r["scrolled_into_view"] != true {
            assert_eq!(r["route"], "a11y", "{r}");
            let b = el["b"].as_array().unwrap();
            assert!(b[1].as_i64().unwrap() >= 0, "{el} {r}");
        }
        env.expect(window, "clicked:", &name);
    }
}

type Test = fn(&Env);

const TESTS: &[(&str, Test)] = &[
    ("web::icon_buttons_found_by_hint_and_clicked", web::icons),
    ("web::three_items_ctrl_selected", |e| ctrl_select(e, WEB)),
    ("web::slider_moved_40_steps_by_one_press", web::slider),
    ("web::select_value_read_and_set", |e| {
        combo_set(e, WEB, Some("Fruit"))
    }),
    ("web::item_30_rows_down_found_and_clicked", |e| {
        far_item(e, WEB, Some("Inbox"))
    }),
    ("web::sortable_item_dragged_into_place", web::sortable),
    ("web::autocomplete_suggestion_chosen", web::autocomplete),
    ("web::modal_dialog_answered", web::dialog),
    ("web::date_picked", web::date),
    ("web::accordion_section_opened", web::accordion),
    ("gtk::icon_buttons_found_by_hint_and_clicked", |e| {
        native::icons(e, GTK)
    }),
    ("gtk::three_items_ctrl_selected", |e| ctrl_select(e, GTK)),
    ("gtk::combo_value_read_and_set", |e| combo_set(e, GTK, None)),
    ("gtk::item_30_rows_down_found_and_clicked", |e| {
        far_item(e, GTK, None)
    }),
    ("qt::icon_buttons_found_by_hint_and_clicked", |e| {
        native::icons(e, QT)
    }),
    ("qt::three_items_ctrl_selected", |e| ctrl_select(e, QT)),
    ("qt::combo_value_read_and_set", |e| combo_set(e, QT, None)),
    ("qt::closed_combo_options_chosen_not_clicked", |e| {
        native::closed_options(e, QT)
    }),
    ("qt::item_30_rows_down_found_and_clicked", |e| {
        far_item(e, QT, Some("Inbox"))
    }),
    (
        "web::date_time_and_number_fields_set_and_typed",
        fields::web,
    ),
    ("gtk::spin_button_set_and_typed", fields::gtk),
    ("qt::spin_box_and_date_edit_set_and_typed", fields::qt),
];

fn main() {
    let mut desk = Desk::start(BIN);
    desk.chromium_page("widgets.html", "Widgets Page");
    desk.python_app("widgets_gtk.py");
    desk.python_app("widgets_qt.py");
    desk.chromium_page("inputs.html", fields::INPUTS);
    desk.python_app("fields_gtk.py");
    desk.python_app("fields_qt.py");
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
