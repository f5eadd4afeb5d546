//! Qt 6 started through `sandbox run` and through `launch`, GTK 2's menus and tool bar, a
//! Swing form found by its window's title, keys that quit an app (the closing is the
//! effect), and a stopped app that answers `APP_UNRESPONSIVE`, never `ok`.

use crate::{all, find, id_of, Env, Test, GTK2, QT6, SWING};
use desktop_testkit::{repo_root, wait_until};
use rustix::process::{kill_process, Pid, Signal};
use std::time::{Duration, Instant};

pub const TESTS: &[(&str, Test)] = &[
    ("qt6::started_by_sandbox_run_and_by_launch", qt6),
    ("gtk2::menus_and_tool_buttons", gtk2),
    ("swing::found_by_title_and_operated", swing),
    ("quit::keys_that_quit_are_the_effect", quit),
    ("hung::a_stopped_app_is_unresponsive_never_ok", stopped),
];

/// The Qt 6 form signed in to, read back, then quit with Ctrl+Q.
fn sign_in(env: &Env, user: &str) {
    let data = env.ok(&["read", "--window", QT6, "-i"]);
    env.ok(&["type", "--id", &id_of(&data, "input", "User"), user]);
    let r = env.ok(&["type", "--id", &id_of(&data, "pwd", "Password"), "s3cret"]);
    assert!(r["post_state"].get("v").is_none(), "{r}");
    env.ok(&["toggle", "--id", &id_of(&data, "chk", "Remember me")]);
    env.ok(&["click", "--id", &id_of(&data, "btn", "Sign in")]);
    env.status(
        QT6,
        "signed in:",
        &format!("user: {user}; password length: 6; remember: True; signed in: 1"),
    );
    let r = env.ok(&["press", "--window", QT6, "ctrl+q"]);
    assert_eq!(r["effect"], "confirmed", "{r}");
    assert_eq!(r["closed"]["window"], QT6, "{r}");
    assert_eq!(r["closed"]["exited"], true, "{r}");
}

fn qt6(env: &Env) {
    let script = repo_root().join("tests/fixtures/form_qt6.py");
    let script = script.to_str().unwrap();
    let r = env.ok(&[
        "sandbox",
        "run",
        "--detach",
        "--",
        "/usr/bin/python3",
        script,
    ]);
    assert!(r["pid"].as_u64().is_some(), "{r}");
    wait_until(Duration::from_secs(20), "the Qt 6 form, readable", || {
        let run = env.cli(&["read", "--window", QT6, "-i"]);
        (run.code == 0 && run.json()["data"]["count"].as_u64() > Some(2)).then_some(())
    });
    sign_in(env, "alice");
    let r = env.ok(&["launch", "/usr/bin/python3", script]);
    assert_eq!(r["title"], QT6, "{r}");
    sign_in(env, "bob");
}

fn gtk2(env: &Env) {
    let data = env.ok(&["read", "--window", GTK2, "-i"]);
    for (role, name) in [
        ("menu", "File"),
        ("menu", "Edit"),
        ("btn", "Save"),
        ("btn", "Find"),
        ("toggle", "Bold"),
    ] {
        find(&data, role, name);
    }
    env.ok(&[
        "click", "--window", GTK2, "--text", "Edit", "--role", "menu",
    ]);
    let open = env.ok(&["read", "--window", GTK2, "-i"]);
    find(&open, "menuitem", "Copy");
    env.ok(&["click", "--id", &id_of(&open, "menuitem", "Paste")]);
    let closed = env.ok(&["read", "--window", GTK2, "-i"]);
    assert!(!all(&closed).iter().any(|e| e["t"] == "Copy"), "{closed}");
    env.ok(&["toggle", "--id", &id_of(&closed, "toggle", "Bold")]);
    env.ok(&["click", "--id", &id_of(&closed, "btn", "Find")]);
    let input = all(&closed)
        .into_iter()
        .find(|e| e["r"] == "input")
        .unwrap();
    env.ok(&["type", "--id", &input["i"].to_string(), "two words"]);
    env.status(
        GTK2,
        "pressed:",
        "pressed: Paste,Find; bold: True; text: two words",
    );
}

fn swing(env: &Env) {
    let dir = env.desk().temp_dir("swing");
    let source = repo_root().join("tests/fixtures/FormSwing.java");
    let javac = std::process::Command::new("javac")
        .args(["-d", dir.to_str().unwrap(), source.to_str().unwrap()])
        .status()
        .expect("run javac");
    assert!(javac.success());
    env.desk()
        .launch(&["java", "-cp", dir.to_str().unwrap(), "FormSwing"], SWING);
    // Every Swing app is "Java Application": it is found by its window's title.
    let data = env.ok(&["read", "--app", SWING, "-i"]);
    env.ok(&["type", "--id", &id_of(&data, "input", "Name"), "duke"]);
    env.ok(&["toggle", "--id", &id_of(&data, "chk", "Agree")]);
    env.ok(&["click", "--id", &id_of(&data, "btn", "OK")]);
    env.status(SWING, "clicked:", "clicked: 1; name: duke; agree: true");
    for e in all(&data) {
        assert!(
            e.get("v").is_none() || e["r"] == "input",
            "a placeholder value: {e}"
        );
    }
}

fn quit(env: &Env) {
    let r = env.ok(&["press", "--window", GTK2, "ctrl+q"]);
    assert_eq!(r["effect"], "confirmed", "{r}");
    assert_eq!(r["closed"]["window"], GTK2, "{r}");
    assert_eq!(r["closed"]["exited"], true, "{r}");
    let left = env.ok(&["list"]);
    assert!(
        !left["windows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["title"] == GTK2),
        "{left}"
    );
}

fn stopped(env: &Env) {
    let pid = env.desk().python_app("form_gtk.py");
    let window = "GTK Form";
    let data = env.ok(&["read", "--window", window, "-i"]);
    let button = id_of(&data, "btn", "Increment");
    let center = {
        let b = &find(&data, "btn", "Increment")["b"];
        (
            (b[0].as_i64().unwrap() + b[2].as_i64().unwrap() / 2).to_string(),
            (b[1].as_i64().unwrap() + b[3].as_i64().unwrap() / 2).to_string(),
        )
    };
    env.ok(&["focus", "--window", window]);
    let victim = Pid::from_raw(pid as i32).unwrap();
    kill_process(victim, Signal::STOP).unwrap();
    let result = std::panic::catch_unwind(|| {
        let timeout = Duration::from_millis(1500);
        let commands: [&[&str]; 5] = [
            &["press", "enter"],
            &["press", "enter", "--window", window],
            &["type", "abc"],
            &["click", "--id", &button],
            &["click", "--x", &center.0, "--y", &center.1],
        ];
        for c in commands {
            let mut args = c.to_vec();
            args.extend_from_slice(&["--call-timeout", "1500"]);
            let t = Instant::now();
            let run = env.cli(&args);
            let took = t.elapsed();
            assert_eq!(
                run.error_code(),
                "APP_UNRESPONSIVE",
                "{c:?}: {}",
                run.stdout
            );
            assert!(
                took <= timeout + Duration::from_secs(1),
                "{c:?} took {took:?}"
            );
        }
    });
    kill_process(victim, Signal::CONT).unwrap();
    env.desk().stop_app(pid);
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}
