//! Integration tests against real apps (GTK3, Chromium, Qt5) in a private sandbox.
//! One sandbox per run: started before the first test, stopped after the last.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod act;
mod agent;
mod errors;
mod mcp;
mod read;
mod sandbox;
mod see;

use desktop_testkit::Desk;
use libtest_mimic::{Arguments, Trial};
use std::sync::Arc;

pub const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");

/// The shared desktop and what runs on it.
pub struct Env {
    pub desk: Desk,
    /// A GTK3 app the unresponsive-app test stops and continues.
    pub victim_pid: u32,
}

type Test = fn(&Env);

fn main() {
    let mut args = Arguments::from_args();
    // One desktop, one pointer, one keyboard focus: tests take turns.
    args.test_threads = Some(1);
    let mut desk = Desk::start(BIN);
    desk.gtk3_widget_factory();
    desk.chromium("page.html");
    desk.featherpad();
    let victim_pid = desk.launch(&["gtk3-demo"], "gtk3-demo");
    let env = Arc::new(Env { desk, victim_pid });

    let mut tests: Vec<(&'static str, Test)> = Vec::new();
    tests.extend(read::TESTS);
    tests.extend(act::TESTS);
    tests.extend(see::TESTS);
    tests.extend(mcp::TESTS);
    tests.extend(agent::TESTS);
    tests.extend(errors::TESTS);
    tests.extend(sandbox::TESTS);
    let trials = tests
        .into_iter()
        .map(|(name, f)| {
            let env = Arc::clone(&env);
            Trial::test(name, move || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&env))).map_err(|e| {
                    let shot = env.desk.screenshot(name);
                    let msg = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    format!("{msg}\n(screenshot of the display: {shot})").into()
                })
            })
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    drop(env);
    conclusion.exit();
}
