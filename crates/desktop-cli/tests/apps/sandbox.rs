//! Sandboxes side by side: each on its own display, each stopping exactly what it started;
//! one recorded elsewhere (another runtime directory) is said to be, and left alone.

use crate::{Env, Test};

pub const TESTS: &[(&str, Test)] = &[(
    "sandbox::second_sandbox_runs_beside_and_stops_cleanly",
    second_sandbox,
)];

fn alive(pid: i64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        let state = s
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .next()
            .unwrap_or("");
        state != "Z"
    })
}

fn second_sandbox(env: &Env) {
    let up = env.desk.cli(&["sandbox", "up", "--size", "800x600"]).data();
    let display = up["display"].as_str().unwrap().to_string();
    assert_ne!(
        display, env.desk.display,
        "a second sandbox takes another display"
    );
    let pids: Vec<i64> = up["pids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pid"].as_i64().unwrap())
        .collect();
    assert_eq!(pids.len(), 3);
    assert!(pids.iter().all(|p| alive(*p)));
    let n = display.trim_start_matches(':').to_string();
    // Stops the second sandbox even when an assertion below fails.
    struct Down<'a>(&'a Env, String);
    impl Drop for Down<'_> {
        fn drop(&mut self) {
            let _ = self.0.desk.cli(&["sandbox", "down", "--display", &self.1]);
        }
    }
    let guard = Down(env, n.clone());
    let status = env.desk.cli(&["sandbox", "status"]).data();
    let listed: Vec<&str> = status["sandboxes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["display"].as_str().unwrap())
        .collect();
    assert!(
        listed.contains(&display.as_str()) && listed.contains(&env.desk.display.as_str()),
        "{status}"
    );
    // Commands can target it: an empty desktop lists no windows.
    let mut cmd = std::process::Command::new(crate::BIN);
    cmd.args(["list"])
        .env_remove("DISPLAY")
        .env("DESKTOP_CLI_SANDBOX", &n);
    let out = cmd.output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["data"]["windows"].as_array().map(Vec::len),
        Some(0),
        "{v}"
    );
    // With two running and none named, a command refuses to guess which desktop to act on.
    let out = std::process::Command::new(crate::BIN)
        .args(["list"])
        .env_remove("DISPLAY")
        .env_remove("DESKTOP_CLI_SANDBOX")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "AMBIGUOUS_TARGET", "{v}");
    assert!(v["error"]["suggestion"]
        .as_str()
        .unwrap()
        .contains("DESKTOP_CLI_SANDBOX"));
    // A shell that took the sandbox's environment in but runs with another runtime
    // directory (where sandboxes are recorded) finds no record of it: told so and where it
    // looked, and nothing is stopped.
    let elsewhere =
        std::env::temp_dir().join(format!("desktop-cli-elsewhere-{}", std::process::id()));
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::set_permissions(
        &elsewhere,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let out = std::process::Command::new(crate::BIN)
        .args(["sandbox", "down"])
        .env("XDG_RUNTIME_DIR", &elsewhere)
        .env("DESKTOP_CLI_SANDBOX", &n)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&elsewhere);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "SANDBOX_FAILED", "{v}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("no sandbox {display} ")) && message.contains("elsewhere"),
        "{v}"
    );
    assert!(
        v["error"]["suggestion"]
            .as_str()
            .unwrap_or_default()
            .contains("XDG_RUNTIME_DIR"),
        "{v}"
    );
    assert!(pids.iter().all(|p| alive(*p)), "nothing stopped: {v}");
    let down = env.desk.cli(&["sandbox", "down", "--display", &n]).data();
    drop(guard);
    assert_eq!(down["stopped"][0].as_u64().unwrap().to_string(), n);
    assert!(
        pids.iter().all(|p| !alive(*p)),
        "every process of the second sandbox stopped"
    );
    // The first one is untouched.
    assert_eq!(env.desk.cli(&["doctor"]).data()["healthy"], true);
}
