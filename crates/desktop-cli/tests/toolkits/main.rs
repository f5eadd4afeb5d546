//! Apps nobody here wrote, at agent tempo: LibreOffice Calc and Writer, a 10,000-row GTK3
//! table, GTK 4 (gtk4-widget-factory and a form of its own), Qt 6, GTK 2 and Swing, an app
//! quit by a key and a stopped app. Commands run back to back; every effect is read back
//! by libatspi (tests/support/atspi_fields.py), never taken from our own answer.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod gtk4;
mod office;
mod others;

use desktop_testkit::{wait_until, Desk, Fields, Run};
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");
pub const CALC: &str = "LibreOffice Calc";
pub const WRITER: &str = "LibreOffice Writer";
pub const TABLE: &str = "GTK Table";
pub const FACTORY: &str = "GTK Widget Factory";
pub const GTK4: &str = "GTK4 Form";
pub const QT6: &str = "Qt6 Form";
pub const GTK2: &str = "GTK2 Editor";
pub const SWING: &str = "Swing Form";

pub struct Env {
    pub desk: Mutex<Desk>,
    pub fields: Mutex<Fields>,
    /// Where LibreOffice keeps its profile for this run.
    pub office_profile: String,
}

impl Env {
    pub fn desk(&self) -> std::sync::MutexGuard<'_, Desk> {
        self.desk.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn fields(&self) -> std::sync::MutexGuard<'_, Fields> {
        self.fields.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn cli(&self, args: &[&str]) -> Run {
        self.desk().cli(args)
    }

    /// `data` of a command that must succeed.
    pub fn ok(&self, args: &[&str]) -> Value {
        self.cli(args).data()
    }

    /// Waits until the window's status text (a label libatspi reads) contains `want`.
    pub fn status(&self, window: &str, prefix: &str, want: &str) {
        let mut last = String::new();
        let seen = std::cell::RefCell::new(&mut last);
        wait_until(
            Duration::from_secs(5),
            &format!("{want:?} in the status of {window}"),
            || {
                let f = self.fields().read(window);
                let line = f
                    .as_object()?
                    .keys()
                    .find(|k| k.contains(prefix))
                    .cloned()
                    .unwrap_or_default();
                **seen.borrow_mut() = line.clone();
                line.contains(want).then_some(())
            },
        );
    }

    /// The process behind a window, as `list` says.
    pub fn pid_of(&self, window: &str) -> u32 {
        let data = self.ok(&["list", "--app", window]);
        data["windows"][0]["pid"].as_u64().unwrap() as u32
    }
}

pub use desktop_testkit::all;

/// Every element below `e` (its children, theirs, ...).
pub fn below(e: &Value) -> Vec<Value> {
    all(&serde_json::json!({ "elements": e["c"].clone() }))
}

/// The first element with this role and name.
pub fn find(data: &Value, role: &str, name: &str) -> Value {
    all(data)
        .into_iter()
        .find(|e| e["r"] == role && e["t"] == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in {data}"))
}

pub fn id_of(data: &Value, role: &str, name: &str) -> String {
    find(data, role, name)["i"].to_string()
}

/// Ids of the elements with this role, in reading order.
pub fn ids_of_role(data: &Value, role: &str) -> Vec<String> {
    all(data)
        .iter()
        .filter(|e| e["r"] == role)
        .map(|e| e["i"].to_string())
        .collect()
}

/// Resident memory of a process, in kilobytes.
pub fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap()
}

pub type Test = fn(&Env);

fn main() {
    let mut desk = Desk::start(BIN);
    let profile = desk.temp_dir("office");
    let office_profile = format!("-env:UserInstallation=file://{}", profile.display());
    desk.launch(
        &[
            "soffice",
            "--norestore",
            "--nologo",
            "--calc",
            &office_profile,
        ],
        CALC,
    );
    desk.python_app("table_gtk.py");
    // A GTK 4 application names itself after its program (python3): found by its title.
    let gtk4_form = desktop_testkit::repo_root().join("tests/fixtures/form_gtk4.py");
    desk.launch(&["/usr/bin/python3", gtk4_form.to_str().unwrap()], GTK4);
    desk.launch(&["gtk4-widget-factory"], FACTORY);
    desk.python_app("form_gtk2.py");
    let fields = desk.fields();
    let env = Env {
        desk: Mutex::new(desk),
        fields: Mutex::new(fields),
        office_profile,
    };
    let tests: Vec<(&'static str, Test)> = office::TESTS
        .iter()
        .chain(gtk4::TESTS)
        .chain(others::TESTS)
        .copied()
        .collect();
    desktop_testkit::run_tests(env, tests, |env, name| env.desk().screenshot(name))
}
