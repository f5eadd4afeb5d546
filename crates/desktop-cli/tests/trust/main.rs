//! The action contract against real apps at agent tempo: commands back to back with no
//! pauses, every effect read back with libatspi (not our code). GTK3 and Qt5 forms
//! (tests/fixtures/form_*.py) and Chromium on a sign-up and a login form (forms.html), one
//! sandbox for the whole binary.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod fuzz;
mod hung;
mod safety;
mod settle;
mod stop;
mod tempo;

use desktop_testkit::{Desk, Run};
use serde_json::Value;
use std::sync::Mutex;

pub const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");

/// The form windows, by title.
pub const GTK: &str = "GTK Form";
pub const QT: &str = "Qt Form";
pub const WEB: &str = "Forms Page";

pub struct Env {
    pub desk: Mutex<Desk>,
    /// A GTK3 app the hung-app test stops and continues.
    pub victim_pid: u32,
    /// The Chromium showing forms.html (tests that need a fresh one restart it).
    pub chromium_pid: Mutex<u32>,
}

impl Env {
    /// The desktop (a test that failed while holding it does not poison it for the rest).
    pub fn desk(&self) -> std::sync::MutexGuard<'_, Desk> {
        self.desk.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `desktop-cli ARGS` in the sandbox.
    pub fn cli(&self, args: &[&str]) -> Run {
        self.desk().cli(args)
    }

    /// `data` of a command that must succeed.
    pub fn ok(&self, args: &[&str]) -> Value {
        self.cli(args).data()
    }

    /// A fresh Chromium on forms.html in place of the one running.
    pub fn fresh_chromium(&self) -> u32 {
        let mut desk = self.desk();
        let mut pid = self.chromium_pid.lock().unwrap_or_else(|e| e.into_inner());
        desk.stop_app(*pid);
        *pid = desk.chromium_page("forms.html", "Forms Page");
        *pid
    }
}

/// Every element of a read, depth first: (role, name, id).
pub fn elements(data: &Value) -> Vec<(String, String, String)> {
    fn walk(es: &Value, out: &mut Vec<(String, String, String)>) {
        for e in es.as_array().into_iter().flatten() {
            out.push((
                e["r"].as_str().unwrap_or("").to_string(),
                e["t"].as_str().unwrap_or("").to_string(),
                e["i"].to_string(),
            ));
            walk(&e["c"], out);
        }
    }
    let mut out = Vec::new();
    walk(&data["elements"], &mut out);
    out
}

/// The id of the element with this role and name in a fresh `read` of `window` (with
/// `extra` filters).
pub fn id(env: &Env, window: &str, role: &str, name: &str, extra: &[&str]) -> String {
    let mut args = vec!["read", "--window", window];
    args.extend_from_slice(extra);
    let data = env.ok(&args);
    elements(&data)
        .into_iter()
        .find(|(r, t, _)| r == role && t == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in {window}: {data}"))
        .2
}

/// Ids of several elements of one `read -i` of `window`, by (role, name).
pub fn ids(env: &Env, window: &str, wanted: &[(&str, &str)]) -> Vec<String> {
    let data = env.ok(&["read", "--window", window, "-i"]);
    let all = elements(&data);
    wanted
        .iter()
        .map(|(role, name)| {
            all.iter()
                .find(|(r, t, _)| r == role && t == name)
                .unwrap_or_else(|| panic!("no {role} {name:?} in {window}: {data}"))
                .2
                .clone()
        })
        .collect()
}

type Test = fn(&Env);

fn main() {
    let mut desk = Desk::start(BIN);
    desk.python_app("form_gtk.py");
    desk.python_app("form_qt.py");
    let chromium_pid = desk.chromium_page("forms.html", "Forms Page");
    let victim_pid = desk.launch(&["gtk3-demo"], "gtk3-demo");
    let env = Env {
        desk: Mutex::new(desk),
        victim_pid,
        chromium_pid: Mutex::new(chromium_pid),
    };
    let mut tests: Vec<(&'static str, Test)> = Vec::new();
    tests.extend(tempo::TESTS);
    tests.extend(settle::TESTS);
    tests.extend(safety::TESTS);
    tests.extend(hung::TESTS);
    tests.extend(fuzz::TESTS);
    tests.extend(stop::TESTS);
    desktop_testkit::run_tests(env, tests, |env, name| env.desk().screenshot(name))
}
