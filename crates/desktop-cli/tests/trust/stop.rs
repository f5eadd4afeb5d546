//! A command asked to stop with SIGTERM in the middle of slow typing, whether it acts by
//! itself (`DESKTOP_CLI_DIRECT=1`) or the desktop's keeper acts for it: the typing stops
//! between keys, the command answers with an envelope, and no key is left held down (a held
//! key repeats; a held Shift would capitalize what comes next). While the keeper types
//! slowly, it answers other commands.

use crate::{ids, Env, Test, GTK, QT};
use desktop_testkit::wait_until;
use rustix::process::{kill_process, Pid, Signal};
use std::time::{Duration, Instant};

pub const TESTS: &[(&str, Test)] = &[
    (
        "stop::sigterm_ends_direct_typing_between_keys_nothing_left_held",
        direct,
    ),
    (
        "stop::sigterm_ends_the_keepers_typing_which_answers_others_meanwhile",
        keeper,
    ),
];

/// Shift goes down and up for every other key.
const TEXT: &str = "AbCdEfGhIjKlMnOpQrStUvWxYz";

fn direct(env: &Env) {
    stopped(env, &[("DESKTOP_CLI_DIRECT", "1")]);
}

fn keeper(env: &Env) {
    stopped(env, &[]);
}

/// Slow typing into the GTK form's name field, stopped by SIGTERM; `vars` for the command.
fn stopped(env: &Env, vars: &[(&str, &str)]) {
    let [name, email]: [String; 2] = ids(env, GTK, &[("input", "Full name"), ("input", "Email")])
        .try_into()
        .unwrap();
    for id in [&name, &email] {
        env.ok(&["set-value", "--id", id, "--value", "", "--window", GTK]);
    }
    let mut fields = env.desk().fields();
    // 26 keys 80 ms apart: about 2 s of typing.
    let child = env.desk().spawn_cli_with(
        &[
            "type", "--id", &name, "--delay", "80", TEXT, "--window", GTK,
        ],
        vars,
    );
    wait_until(Duration::from_secs(10), "the typing to begin", || {
        (fields.text(GTK, "Full name").chars().count() >= 3).then_some(())
    });
    let mut child = child;
    if vars.is_empty() {
        // The keeper types between its waits: another app's read is answered meanwhile.
        env.ok(&["read", "--window", QT, "-i"]);
        assert!(
            child.try_wait().unwrap().is_none(),
            "the read waited for the whole typing"
        );
    }
    let pid = Pid::from_raw(child.id() as i32).unwrap();
    let asked = Instant::now();
    kill_process(pid, Signal::TERM).unwrap();
    let out = child.wait_with_output().unwrap();
    let took = asked.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let j: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "an envelope, not {stdout:?} ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(j["ok"], false, "{j}");
    assert_eq!(j["error"]["code"], "ACTION_FAILED", "{j}");
    assert!(
        j["error"]["message"]
            .as_str()
            .unwrap()
            .contains("interrupted"),
        "{j}"
    );
    assert!(
        took < Duration::from_millis(800),
        "it stopped at the next key, not at the end of the text: {took:?}"
    );
    // What went out is a start of the text, and stays so: no key repeats.
    let typed = fields.text(GTK, "Full name");
    assert!(
        TEXT.starts_with(&typed) && typed.len() < TEXT.len(),
        "{typed:?}"
    );
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(fields.text(GTK, "Full name"), typed, "a key was left held");
    // The next command's keys are what it types: no modifier was left held.
    env.ok(&["type", "--id", &email, "xy", "--window", GTK]);
    assert_eq!(fields.text(GTK, "Email"), "xy");
}
