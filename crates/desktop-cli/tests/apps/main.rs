//! Integration tests against real apps (GTK3, Chromium, Qt5) in a private sandbox.
//! One sandbox per run: started before the first test, stopped after the last.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod act;
mod activity;
mod agent;
mod agent_goal;
mod ask;
mod deploy;
mod dialogs;
mod displays;
mod errors;
mod keeper;
mod mcp;
mod overlays;
mod read;
mod sandbox;
mod see;
mod skill;
mod tables;
mod view;
mod windows;

use desktop_testkit::Desk;

pub const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");

/// The shared desktop and what runs on it.
pub struct Env {
    pub desk: Desk,
    /// A GTK3 app the unresponsive-app test stops and continues.
    pub victim_pid: u32,
}

type Test = fn(&Env);

/// A desktop-cli state folder of a test's own (XDG_RUNTIME_DIR): commands run with it see
/// only the sandboxes started with it, which are stopped, and the folder removed, on drop.
pub struct Runtime(pub std::path::PathBuf);

impl Runtime {
    pub fn new(name: &str) -> Runtime {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("desktop-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        Runtime(dir)
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        let _ = std::process::Command::new(BIN)
            .args(["sandbox", "down", "--all"])
            .env("XDG_RUNTIME_DIR", &self.0)
            .output();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn main() {
    let mut desk = Desk::start(BIN);
    desk.gtk3_widget_factory();
    desk.chromium("page.html");
    desk.featherpad();
    let victim_pid = desk.launch(&["gtk3-demo"], "gtk3-demo");
    let mut tests: Vec<(&'static str, Test)> = Vec::new();
    tests.extend(read::TESTS);
    tests.extend(act::TESTS);
    tests.extend(see::TESTS);
    tests.extend(mcp::TESTS);
    tests.extend(agent::TESTS);
    tests.extend(agent_goal::TESTS);
    tests.extend(ask::TESTS);
    tests.extend(errors::TESTS);
    tests.extend(sandbox::TESTS);
    tests.extend(skill::TESTS);
    tests.extend(tables::TESTS);
    tests.extend(deploy::TESTS);
    tests.extend(displays::TESTS);
    tests.extend(overlays::TESTS);
    tests.extend(view::TESTS);
    tests.extend(activity::TESTS);
    tests.extend(windows::TESTS);
    tests.extend(dialogs::TESTS);
    tests.extend(keeper::TESTS);
    desktop_testkit::run_tests(Env { desk, victim_pid }, tests, |env, name| {
        env.desk.screenshot(name)
    })
}
