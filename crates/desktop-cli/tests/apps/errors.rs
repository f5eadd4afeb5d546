//! Bad input and broken environments: each gets its code, a suggestion, the right exit status.

use crate::{Env, Test, BIN};
use serde_json::json;
use std::process::Command;
use std::time::{Duration, Instant};

pub const TESTS: &[(&str, Test)] = &[
    ("errors::unknown_app_lists_what_is_there", unknown_app),
    ("errors::unknown_window", unknown_window),
    (
        "errors::malformed_options_are_usage_errors",
        malformed_options,
    ),
    ("errors::no_display", no_display),
    ("errors::no_accessibility_bus", no_a11y_bus),
    ("errors::hung_app_costs_a_timeout_not_a_hang", hung_app),
    ("errors::broken_pipe_exits_zero", broken_pipe),
    ("errors::doctor_and_schema", doctor_and_schema),
    ("errors::state_not_private_is_refused", state_not_private),
    ("errors::ref_maps_are_private", ref_maps_are_private),
];

fn suggestion(run: &desktop_testkit::Run) -> String {
    run.json()["error"]["suggestion"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn unknown_app(env: &Env) {
    let run = env.desk.cli(&["read", "--app", "no-such-app"]);
    assert_eq!(run.error_code(), "APP_NOT_FOUND");
    assert_eq!(run.code, 1);
    assert!(
        suggestion(&run).contains("Chromium"),
        "lists running apps: {}",
        run.stdout
    );
    let run = env.desk.cli(&["read", "--pid", "999999"]);
    assert_eq!(run.error_code(), "APP_NOT_FOUND");
    let list = env.desk.cli(&["list", "--pid", "999999"]).data();
    assert_eq!(
        list["windows"].as_array().unwrap().len(),
        0,
        "list with no match is an empty list"
    );
}

fn unknown_window(env: &Env) {
    let run = env
        .desk
        .cli(&["read", "--app", "chromium", "--window", "no such title"]);
    assert_eq!(run.error_code(), "WINDOW_NOT_FOUND");
    assert!(
        run.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Fixture Page"),
        "lists windows: {}",
        run.stdout
    );
    let run = env.desk.cli(&["read", "--window-id", "12345"]);
    assert!(
        ["WINDOW_NOT_FOUND", "APP_NOT_FOUND"].contains(&run.error_code().as_str()),
        "{}",
        run.stdout
    );
}

fn malformed_options(env: &Env) {
    for args in [
        vec!["read", "--bbox", "1,2,3"],
        vec!["read", "--bbox", "a,b,c,d"],
        vec!["read", "--bbox", "0,0,0,10"],
        vec!["read", "--roles", "btn,notarole"],
        vec!["read", "--roles", ""],
        vec!["read", "--depth", "-1"],
        vec!["read", "--max-elements", "0"],
        vec!["read", "--window-id", "zz"],
        vec!["read", "--no-such-flag"],
        vec!["frobnicate"],
        vec!["sandbox", "up", "--size", "huge"],
    ] {
        let run = env.desk.cli(&args);
        assert_eq!(run.code, 2, "{args:?}: {} {}", run.stdout, run.stderr);
        assert_eq!(run.error_code(), "INVALID_ARGS", "{args:?}");
        assert!(!suggestion(&run).is_empty(), "{args:?} has a suggestion");
    }
    let run = env.desk.cli(&["read", "--roles", "btn,notarole"]);
    assert!(
        suggestion(&run).contains("btn,toggle,lnk"),
        "lists the roles: {}",
        run.stdout
    );
}

/// Runs the binary with a clean environment plus `vars`.
fn bare(args: &[&str], vars: &[(&str, &str)]) -> desktop_testkit::Run {
    let empty = std::env::temp_dir().join(format!("desktop-cli-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(BIN)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("XDG_RUNTIME_DIR", &empty)
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    desktop_testkit::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn no_display(_env: &Env) {
    let run = bare(&["list"], &[]);
    assert_eq!(run.error_code(), "NO_DISPLAY", "{}", run.stdout);
    assert!(suggestion(&run).contains("sandbox up"));
    let run = bare(&["read"], &[("DISPLAY", ":987")]);
    assert_eq!(run.error_code(), "NO_DISPLAY", "{}", run.stdout);
}

fn no_a11y_bus(env: &Env) {
    let mut vars: Vec<(&str, &str)> = env
        .desk
        .env()
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    vars.retain(|(k, _)| *k != "DBUS_SESSION_BUS_ADDRESS" && *k != "DESKTOP_CLI_SANDBOX");
    vars.push(("AT_SPI_BUS_ADDRESS", "unix:path=/nonexistent/bus"));
    vars.push(("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/session"));
    let run = bare(&["read"], &vars);
    assert_eq!(run.error_code(), "A11Y_UNAVAILABLE", "{}", run.stdout);
    assert!(!suggestion(&run).is_empty());
}

fn hung_app(env: &Env) {
    let pid = rustix::process::Pid::from_raw(env.victim_pid as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::STOP).unwrap();
    let result = std::panic::catch_unwind(|| {
        let t = Instant::now();
        let run = env
            .desk
            .cli(&["read", "--app", "gtk3-demo", "--call-timeout", "500"]);
        assert_eq!(run.error_code(), "APP_UNRESPONSIVE", "{}", run.stdout);
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "took {:?}",
            t.elapsed()
        );
        let t = Instant::now();
        let list = env.desk.cli(&["list", "--call-timeout", "500"]).data();
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "took {:?}",
            t.elapsed()
        );
        let ws = list["windows"].as_array().unwrap();
        assert!(
            ws.iter().any(|w| w["app"] == "Chromium"),
            "the other apps are still listed: {list}"
        );
        let hung = list["unresponsive"].as_array().unwrap();
        assert!(
            hung.iter()
                .any(|u| u["pid"] == env.victim_pid && u["code"] == "APP_UNRESPONSIVE"),
            "{list}"
        );
    });
    rustix::process::kill_process(pid, rustix::process::Signal::CONT).unwrap();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

fn broken_pipe(env: &Env) {
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(format!("'{BIN}' read --app chromium --visible-only=false --full | head -c 10 >/dev/null; echo ${{PIPESTATUS[0]}}"));
    for (k, v) in env.desk.env() {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "0",
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

fn doctor_and_schema(env: &Env) {
    let d = env.desk.cli(&["doctor"]).data();
    assert_eq!(d["healthy"], true, "{d}");
    let names: Vec<&str> = d["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "state",
            "session",
            "display",
            "xtest",
            "session_bus",
            "a11y_bus",
            "registry",
            "qt6_apps",
            "a11y_enabled"
        ]
    );
    let bad = bare(&["doctor"], &[]).data();
    assert_eq!(bad["healthy"], false);
    assert_eq!(
        bad["checks"][0]["ok"], true,
        "the state folders are private"
    );
    assert!(bad["checks"][2]["fix"]
        .as_str()
        .unwrap()
        .contains("sandbox up"));
    let s = env.desk.cli(&["schema", "read"]).data();
    assert!(s["$defs"]["element"]["properties"]["i"].is_object(), "{s}");
    let all = env.desk.cli(&["schema"]).data();
    for k in ["list", "read", "action", "sandbox", "doctor", "error"] {
        assert!(all[k].is_object(), "{k}");
    }
    assert_eq!(
        env.desk.cli(&["schema", "nope"]).error_code(),
        "INVALID_ARGS"
    );
}

/// A runtime directory another user could have made or can write into is refused before
/// anything in it is trusted (a planted ref map would aim `click --id`).
fn state_not_private(_env: &Env) {
    use std::os::unix::fs::PermissionsExt;
    let rt = std::env::temp_dir().join(format!("desktop-cli-unsafe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&rt);
    let root = rt.join("desktop-cli");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
    let rt_s = rt.to_string_lossy().into_owned();
    for args in [&["list"][..], &["sandbox", "env"], &["click", "--id", "5"]] {
        let run = bare(args, &[("XDG_RUNTIME_DIR", &rt_s), ("DISPLAY", ":987")]);
        assert_eq!(run.error_code(), "UNSAFE_STATE", "{args:?}: {}", run.stdout);
        let msg = run.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(msg.contains(&root.to_string_lossy().into_owned()), "{msg}");
        assert!(suggestion(&run).contains("700"), "{}", run.stdout);
    }
    // doctor still runs, and names what is wrong as its first failed check.
    let run = bare(
        &["doctor"],
        &[("XDG_RUNTIME_DIR", &rt_s), ("DISPLAY", ":987")],
    );
    let data = &run.json()["data"];
    assert_eq!(data["healthy"], false, "{}", run.stdout);
    let state = &data["checks"][0];
    assert_eq!(
        (&state["name"], &state["ok"]),
        (&json!("state"), &json!(false))
    );
    assert!(
        state["detail"]
            .as_str()
            .unwrap()
            .contains(&*root.to_string_lossy()),
        "{state}"
    );
    assert!(state["fix"].as_str().unwrap().contains("700"), "{state}");
    // Private again, but its ref maps' folder is a link to somewhere else.
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink(std::env::temp_dir(), root.join("refs")).unwrap();
    let run = bare(
        &["list"],
        &[("XDG_RUNTIME_DIR", &rt_s), ("DISPLAY", ":987")],
    );
    assert_eq!(run.error_code(), "UNSAFE_STATE", "{}", run.stdout);
    assert!(run.stdout.contains("symbolic link"), "{}", run.stdout);
    std::fs::remove_dir_all(&rt).unwrap();
}

/// The ref maps and sandbox state of a read are mode 600 in mode-700 directories.
fn ref_maps_are_private(env: &Env) {
    use std::os::unix::fs::PermissionsExt;
    env.desk
        .cli(&["read", "--app", "gtk3-widget-factory", "-i"])
        .data();
    let root = match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(d) => std::path::PathBuf::from(d).join("desktop-cli"),
        None => std::env::temp_dir().join(format!(
            "desktop-cli-{}",
            rustix::process::getuid().as_raw()
        )),
    };
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&root), 0o700);
    let mut files = 0;
    for sb in std::fs::read_dir(root.join("sandbox")).unwrap().flatten() {
        assert_eq!(mode(&sb.path()), 0o700, "{}", sb.path().display());
        for name in ["refs.json", "state.json"] {
            let f = sb.path().join(name);
            if f.exists() {
                assert_eq!(mode(&f), 0o600, "{}", f.display());
                files += 1;
            }
        }
    }
    assert!(
        files >= 2,
        "no ref map or sandbox state under {}",
        root.display()
    );
}
