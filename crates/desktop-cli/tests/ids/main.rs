//! Ids across reads, at agent tempo, on GTK 3, GTK 4, Qt 5, Qt 6 and a Chromium page: reads
//! with different filters interleaved, then actions by ids taken from each of them in a
//! shuffled order — each must hit exactly the element its read named (libatspi sees that
//! one change and no other) or be refused — through the keeper, by processes of their own
//! and through MCP; elements replaced, re-made and navigated away; parts opened by id and
//! reads fitted to a token budget, counted by o200k itself.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod across;
mod budget;
mod changes;
#[path = "../mirror/mcp.rs"]
mod mcp;

use desktop_testkit::{repo_root, wait_until, Desk, Fields, Run};
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");

/// The windows under test: a title and how to start it.
pub const KITS: &[&str] = &["Ids GTK3", "Ids GTK4", "Ids Qt5", "Ids Qt6", "Ids Page"];
pub const TABLE: &str = "GTK Table";

pub struct Env {
    pub desk: Mutex<Desk>,
    pub fields: Mutex<Fields>,
}

type Test = fn(&Env);

impl Env {
    pub fn desk(&self) -> std::sync::MutexGuard<'_, Desk> {
        self.desk.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A command through the keeper (a process of the command line, answered warm).
    pub fn cli(&self, args: &[&str]) -> Run {
        self.desk().cli(args)
    }

    /// The same command run by a process by itself, without the keeper.
    pub fn direct(&self, args: &[&str]) -> Run {
        self.desk().cli_with(args, &[("DESKTOP_CLI_DIRECT", "1")])
    }

    /// `data` of a command that must succeed.
    pub fn ok(&self, args: &[&str]) -> Value {
        let run = self.cli(args);
        assert_eq!(run.code, 0, "{args:?}: {}{}", run.stdout, run.stderr);
        run.data()
    }

    /// Check boxes named `Opt ...` and whether libatspi sees them checked.
    pub fn checks(&self, window: &str) -> Vec<(String, bool)> {
        let f = self
            .fields
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .read(window);
        let mut out: Vec<(String, bool)> = f
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, v)| k.starts_with("Opt ") && v["role"] == "check box")
            .map(|(k, v)| (k.clone(), v["checked"] == true))
            .collect();
        out.sort();
        out
    }
}

pub use desktop_testkit::all;

/// `(id, name)` of every check box a read shows.
pub fn check_ids(data: &Value) -> Vec<(u64, String)> {
    all(data)
        .iter()
        .filter(|e| e["r"] == "chk")
        .map(|e| {
            (
                e["i"].as_u64().unwrap(),
                e["t"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The names whose checked state differs between two looks.
pub fn flipped(before: &[(String, bool)], after: &[(String, bool)]) -> Vec<String> {
    after
        .iter()
        .filter(|(name, on)| before.iter().any(|(n, b)| n == name && b != on))
        .map(|(name, _)| name.clone())
        .collect()
}

/// A fixed shuffle (the same order every run): a linear congruential generator.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    for i in (1..items.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = ((state >> 33) % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

fn main() {
    let mut desk = Desk::start(BIN);
    let fixture = |name: &str| {
        repo_root()
            .join("tests/fixtures")
            .join(name)
            .to_string_lossy()
            .into_owned()
    };
    let (gtk, qt, table) = (
        fixture("ids_gtk.py"),
        fixture("ids_qt.py"),
        fixture("table_gtk.py"),
    );
    desk.launch(&["/usr/bin/python3", &gtk, "3"], "Ids GTK3");
    desk.launch(&["/usr/bin/python3", &gtk, "4"], "Ids GTK4");
    desk.launch(&["/usr/bin/python3", &qt, "5"], "Ids Qt5");
    desk.launch(&["/usr/bin/python3", &qt, "6"], "Ids Qt6");
    desk.launch(&["/usr/bin/python3", &table], TABLE);
    desk.chromium_page("ids.html", "Opt Lagoon");
    // The biggest page of the suite (jQuery UI widgets, a feed, a long inbox), for budgets.
    desk.chromium_page("widgets.html", "Widgets Page");
    // Every window can be read before the first test: its check boxes are there.
    for kit in KITS {
        wait_until(
            Duration::from_secs(20),
            &format!("{kit}'s check boxes"),
            || {
                let run = desk.cli(&["read", "--window", kit, "--text", "Opt Lagoon"]);
                (run.code == 0 && run.json()["data"]["count"].as_u64().unwrap_or(0) > 0)
                    .then_some(())
            },
        );
    }
    let fields = desk.fields();
    let env = Env {
        desk: Mutex::new(desk),
        fields: Mutex::new(fields),
    };
    let mut tests: Vec<(&'static str, Test)> = Vec::new();
    tests.extend(across::TESTS);
    tests.extend(changes::TESTS);
    tests.extend(budget::TESTS);
    desktop_testkit::run_tests(env, tests, |env, name| env.desk().screenshot(name))
}
