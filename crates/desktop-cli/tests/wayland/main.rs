//! The product on a Wayland desktop: a headless sway sandbox (`sandbox up --wayland`) with
//! a GTK 3 form (native Wayland) and Chromium (ozone Wayland) on the sign-up and login
//! forms, then a Qt 5 form and gtk3-widget-factory for a test each. Commands run back to
//! back with no pauses; effects are witnessed by readers that are not ours: libatspi for the apps' state, sway's own IPC (`swaymsg`) for where windows
//! are, `grim` for the screen's pixels, `wl-copy`/`wl-paste` for the clipboard. An X11
//! sandbox with the same form is the yardstick for what a read finds. The same desktop is
//! also driven without sway's IPC (`unplaced`), as other wlroots compositors are.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod act;
mod see;
mod unplaced;

use desktop_testkit::{wait_until, Desk, Run};
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");
pub const GTK: &str = "GTK Form";
pub const WEB: &str = "Forms Page";

pub struct Env {
    pub desk: Mutex<Desk>,
    pub gtk_pid: u32,
    pub chromium_pid: u32,
}

impl Env {
    pub fn desk(&self) -> std::sync::MutexGuard<'_, Desk> {
        self.desk.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn cli(&self, args: &[&str]) -> Run {
        self.desk().cli(args)
    }

    /// `data` of a command that must succeed.
    pub fn ok(&self, args: &[&str]) -> Value {
        let run = self.cli(args);
        assert_eq!(run.code, 0, "{args:?} failed: {}", run.stdout);
        run.data()
    }

    /// sway's own account of its windows: (title, [x, y, w, h], focused).
    pub fn sway_windows(&self) -> Vec<(String, [i64; 4], bool)> {
        let out = self
            .desk()
            .run_with_env("swaymsg", &["-t", "get_tree"], None, false);
        let tree: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut found = Vec::new();
        fn walk(n: &Value, out: &mut Vec<(String, [i64; 4], bool)>) {
            let kids = n["nodes"].as_array().into_iter().flatten();
            let floating = n["floating_nodes"].as_array().into_iter().flatten();
            if n["pid"].is_number() {
                let (r, c) = (&n["rect"], &n["window_rect"]);
                let v = |o: &Value, k: &str| o[k].as_i64().unwrap();
                out.push((
                    n["name"].as_str().unwrap_or("").to_string(),
                    [
                        v(r, "x") + v(c, "x"),
                        v(r, "y") + v(c, "y"),
                        v(c, "width"),
                        v(c, "height"),
                    ],
                    n["focused"] == true,
                ));
            }
            for k in kids.chain(floating) {
                walk(k, out);
            }
        }
        walk(&tree, &mut found);
        found
    }
}

/// Every element of a read, depth first: (role, name, id, box).
pub fn elements(data: &Value) -> Vec<(String, String, u64, Vec<i64>)> {
    fn walk(es: &Value, out: &mut Vec<(String, String, u64, Vec<i64>)>) {
        for e in es.as_array().into_iter().flatten() {
            out.push((
                e["r"].as_str().unwrap_or("").to_string(),
                e["t"].as_str().unwrap_or("").to_string(),
                e["i"].as_u64().unwrap_or(0),
                e["b"]
                    .as_array()
                    .map(|b| b.iter().map(|v| v.as_i64().unwrap()).collect())
                    .unwrap_or_default(),
            ));
            walk(&e["c"], out);
        }
    }
    let mut out = Vec::new();
    walk(&data["elements"], &mut out);
    out
}

/// The id of the element of `window` with this role and name (a fresh interactive read).
pub fn id(env: &Env, window: &str, role: &str, name: &str) -> String {
    let data = env.ok(&["read", "--window", window, "-i"]);
    elements(&data)
        .into_iter()
        .find(|(r, t, _, _)| r == role && t == name)
        .map(|(_, _, i, _)| i.to_string())
        .unwrap_or_else(|| panic!("no {role} {name:?} in {window}: {data}"))
}

fn main() {
    let mut desk = Desk::start_with(BIN, &["--wayland"]);
    assert!(
        desk.env().iter().any(|(k, _)| k == "WAYLAND_DISPLAY"),
        "a Wayland sandbox gives WAYLAND_DISPLAY"
    );
    let gtk_pid = desk.python_app("form_gtk.py");
    let chromium_pid = desk.chromium_page("forms.html", WEB);
    let env = Env {
        desk: Mutex::new(desk),
        gtk_pid,
        chromium_pid,
    };
    // Both windows mapped and placed before the first test looks.
    wait_until(Duration::from_secs(10), "sway to show both windows", || {
        let w = env.sway_windows();
        [GTK, WEB]
            .iter()
            .all(|t| w.iter().any(|(title, _, _)| title.contains(t)))
            .then_some(())
    });
    let tests: Vec<desktop_testkit::NamedTest<Env>> = vec![
        (
            "list_places_windows_where_sway_has_them",
            see::list_geometry,
        ),
        ("read_finds_what_x11_finds", see::read_like_x11),
        ("screenshot_pixels_match_grim", see::screenshot_like_grim),
        ("clipboard_round_trip", see::clipboard),
        ("observe_reports_an_insert", see::observe_insert),
        ("doctor_names_the_session", see::doctor),
        ("click_at_a_read_box_lands_on_it", act::click_at_box),
        ("gtk_form_back_to_back", act::gtk_form),
        ("chromium_forms_back_to_back", act::chromium_forms),
        ("any_script_typed", act::any_script),
        ("hung_app_beside", act::hung_beside),
        ("without_ipc_list_from_toplevels", unplaced::list),
        ("without_ipc_read_boxes_are_the_windows", unplaced::read),
        (
            "without_ipc_accessibility_acts_points_refused",
            unplaced::act,
        ),
        ("window_operations_through_sway", act::window_ops),
        ("qt_form_back_to_back", act::qt_form),
        ("an_app_wider_than_its_tile", see::wider_than_its_tile),
    ];
    desktop_testkit::run_tests(env, tests, |env, name| env.desk().screenshot(name))
}
