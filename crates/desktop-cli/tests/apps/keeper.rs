//! The keeper answers the command line's reads warm: the answers equal a read the process
//! makes by itself, other builds and other call timeouts read by themselves, and a keeper
//! whose program was replaced on disk hands over to the new program's.

use crate::{Env, Runtime, Test, BIN};
use desktop_testkit::wait_until;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

pub const TESTS: &[(&str, Test)] = &[
    (
        "keeper::reads_answered_warm_equal_the_process_own",
        warm_equals_direct,
    ),
    (
        "keeper::other_builds_read_by_themselves_and_hand_over",
        builds,
    ),
];

fn elements(stdout: &str) -> Value {
    let v: Value = serde_json::from_str(stdout).unwrap();
    assert_eq!(v["ok"], true, "{stdout}");
    v["data"]["elements"].clone()
}

fn warm_equals_direct(env: &Env) {
    for app in ["chromium", "gtk3-widget-factory", "featherpad"] {
        let args = ["read", "--app", app, "--timing"];
        // The first fills the keeper's mirror; the second is answered from it.
        env.desk.cli(&args);
        let kept = env.desk.cli(&args);
        assert!(
            kept.stderr.contains("timing: keeper"),
            "{app}: the keeper answered: {}",
            kept.stderr
        );
        let direct = env.desk.cli_with(&args, &[("DESKTOP_CLI_DIRECT", "1")]);
        assert!(
            !direct.stderr.contains("timing: keeper"),
            "{}",
            direct.stderr
        );
        assert_eq!(
            elements(&kept.stdout),
            elements(&direct.stdout),
            "{app}: the keeper's read is the process's own"
        );
    }
    // Another call timeout: the process reads with its own.
    let run = env.desk.cli(&[
        "read",
        "--app",
        "chromium",
        "--timing",
        "--call-timeout",
        "2500",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(!run.stderr.contains("timing: keeper"), "{}", run.stderr);
    // Errors come back as the process would print them, status included.
    let run = env.desk.cli(&["read", "--app", "no-such-app-here"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.error_code(), "APP_NOT_FOUND", "{}", run.stdout);
    let run = env
        .desk
        .cli(&["read", "--app", "no-such-app-here", "--format", "text"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.contains("error APP_NOT_FOUND"), "{}", run.stderr);
}

/// `bin ARGS` in the private runtime folder `rt`, on its sandbox.
fn run(bin: &Path, rt: &Runtime, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .env("XDG_RUNTIME_DIR", &rt.0)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("AT_SPI_BUS_ADDRESS")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("DESKTOP_CLI_SANDBOX")
        .env_remove("DESKTOP_CLI_DIRECT")
        .output()
        .unwrap()
}

/// Both outputs, for messages.
fn stderr(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    )
}

/// A copy of this build at `to` (a new file: another build, as far as the keeper can tell).
fn copy_of_this_build(to: &Path) {
    let tmp = to.with_extension("new");
    std::fs::copy(BIN, &tmp).unwrap();
    std::fs::rename(&tmp, to).unwrap();
}

fn builds(_env: &Env) {
    let rt = Runtime::new("keeper");
    // Beside the runtime's own state folder (`desktop-cli`), not in its place.
    std::fs::create_dir(rt.0.join("bin")).unwrap();
    let bin = rt.0.join("bin/desktop-cli");
    copy_of_this_build(&bin);
    let up = run(&bin, &rt, &["sandbox", "up"]);
    assert!(up.status.success(), "{}", stderr(&up));
    let launched = run(&bin, &rt, &["launch", "gtk3-widget-factory"]);
    assert!(launched.status.success(), "{}", stderr(&launched));
    let read = ["read", "--app", "gtk3-widget-factory", "--timing"];
    // The launch started the copy's keeper; it answers the copy.
    let first = run(&bin, &rt, &read);
    assert!(first.status.success());
    let kept = run(&bin, &rt, &read);
    assert!(
        stderr(&kept).contains("timing: keeper"),
        "{}",
        stderr(&kept)
    );
    // The test's own build is another program: it reads by itself, and the keeper stays.
    let other = run(Path::new(BIN), &rt, &read);
    assert!(other.status.success(), "{}", stderr(&other));
    assert!(
        stderr(&other).contains("another build of desktop-cli"),
        "{}",
        stderr(&other)
    );
    assert_eq!(
        elements(&String::from_utf8_lossy(&other.stdout)),
        elements(&String::from_utf8_lossy(&kept.stdout))
    );
    let again = run(&bin, &rt, &read);
    assert!(
        stderr(&again).contains("timing: keeper"),
        "{}",
        stderr(&again)
    );
    // An upgrade: a new file where the keeper's program was. The keeper declines the new
    // program's read, which the process makes itself, and ends; a later command starts
    // the new program's keeper, which answers.
    copy_of_this_build(&bin);
    let upgraded = run(&bin, &rt, &read);
    assert!(upgraded.status.success(), "{}", stderr(&upgraded));
    assert!(
        stderr(&upgraded).contains("another build of desktop-cli"),
        "{}",
        stderr(&upgraded)
    );
    wait_until(Duration::from_secs(5), "the new program's keeper", || {
        stderr(&run(&bin, &rt, &read))
            .contains("timing: keeper")
            .then_some(())
    });
}
