//! The scale-out recipe (deploy/): the container's entrypoint and health check run here as
//! they run in a container, without one: a sandbox of their own (a private runtime folder),
//! the MCP server over HTTP with the token from a file; healthy, then unhealthy once the
//! desktop is gone, and everything stopped on SIGTERM. The Kubernetes manifest is checked
//! for what the README promises of it.

use crate::{Env, Runtime, Test, BIN};
use desktop_testkit::repo_root;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const TESTS: &[(&str, Test)] = &[
    (
        "deploy::entrypoint_serves_and_health_follows_the_desktop",
        entrypoint,
    ),
    ("deploy::kubernetes_manifest_is_complete", manifest),
];

/// A deploy script with the settings a container would give it.
fn script(name: &str, runtime: &Path, port: u16, token_file: &Path) -> Command {
    let mut c = Command::new(repo_root().join("deploy").join(name));
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap())
        .env("HOME", std::env::var("HOME").unwrap_or_default())
        .env("XDG_RUNTIME_DIR", runtime)
        .env("DESKTOP_CLI", BIN)
        .env("DESKTOP_CLI_BIND", "127.0.0.1")
        .env("DESKTOP_CLI_PORT", port.to_string())
        .env("DESKTOP_CLI_TOKEN_FILE", token_file);
    c
}

fn healthy(runtime: &Path, port: u16, token_file: &Path) -> bool {
    script("healthcheck.sh", runtime, port, token_file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

/// Stops the entrypoint if the test ends early.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn entrypoint(_env: &Env) {
    let rt = Runtime::new("deploy");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let token_file = rt.0.join("token");
    // Without a token the entrypoint refuses to serve.
    let out = script("entrypoint.sh", &rt.0, port, &token_file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no token"));
    let token = "deploy-test-token-0123456789";
    std::fs::write(&token_file, format!("{token}\n")).unwrap();
    let mut server = Running(
        script("entrypoint.sh", &rt.0, port, &token_file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let start = Instant::now();
    while !healthy(&rt.0, port, &token_file) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "not healthy within 20 s"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    // The server wants the token from the file: a client without it is turned away.
    let code = Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST"])
        .arg(format!("http://127.0.0.1:{port}/mcp"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&code.stdout), "401");
    // Without its desktop the container is unhealthy (an orchestrator restarts it).
    let down = Command::new(BIN)
        .args(["sandbox", "down", "--all"])
        .env("XDG_RUNTIME_DIR", &rt.0)
        .output()
        .unwrap();
    assert!(down.status.success());
    assert!(
        !healthy(&rt.0, port, &token_file),
        "healthy without a desktop"
    );
    // SIGTERM (a container stop) ends it cleanly, server included.
    let pid = server.0.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = server.0.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "still running");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the MCP server outlived the entrypoint"
    );
}

fn manifest(_env: &Env) {
    let script = r#"
import json, sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
print(json.dumps(docs))
"#;
    let out = Command::new("/usr/bin/python3")
        .args(["-c", script])
        .arg(repo_root().join("deploy/kubernetes.yaml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let deploy = docs
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "Deployment")
        .expect("a Deployment");
    assert!(deploy["spec"]["replicas"].as_u64().unwrap() > 1);
    let pod = &deploy["spec"]["template"]["spec"];
    let c = &pod["containers"][0];
    for probe in ["readinessProbe", "livenessProbe"] {
        assert_eq!(c[probe]["exec"]["command"][0], "healthcheck.sh", "{probe}");
    }
    assert!(c["resources"]["limits"]["cpu"].is_string());
    assert!(c["resources"]["limits"]["memory"].is_string());
    let token_env = c["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "DESKTOP_CLI_TOKEN_FILE")
        .expect("the token file's path");
    let mount = c["volumeMounts"][0]["mountPath"].as_str().unwrap();
    assert!(token_env["value"].as_str().unwrap().starts_with(mount));
    assert!(pod["volumes"][0]["secret"]["secretName"].is_string());
    // The Containerfile starts the same entrypoint and health check.
    let containerfile = std::fs::read_to_string(repo_root().join("deploy/Containerfile")).unwrap();
    assert!(containerfile.contains("entrypoint.sh") && containerfile.contains("HEALTHCHECK"));
    assert!(containerfile.contains("cargo install --locked --path crates/desktop-cli"));
}
