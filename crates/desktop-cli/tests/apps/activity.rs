//! The activity log, as the CLI and the MCP server write it while they act on the Chromium
//! page (a password typed by each): one line per action, private, no secret in it, read
//! back with `activity` and its filters, and followed as actions happen.

use crate::{Env, Test, BIN};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const TESTS: &[(&str, Test)] = &[(
    "activity::cli_and_mcp_actions_logged_without_secrets",
    logged,
)];

/// The Chromium fixture page's app.
const APP: &str = "chromium";

fn ok(env: &Env, args: &[&str]) -> Value {
    let r = env.desk.cli(args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stdout);
    r.data()
}

/// The id of the element with this role and name in a read.
fn id_of(read: &Value, role: &str, name: &str) -> String {
    crate::read::flatten(&read["elements"])
        .into_iter()
        .find(|e| e["r"] == role && e["t"] == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in {read}"))["i"]
        .to_string()
}

/// One tool call over stdio to a fresh `desktop-cli mcp`; its result.
pub(crate) fn mcp_call(env: &Env, tool: &str, args: Value) -> Value {
    McpSession::start(env).call(tool, args)
}

/// A `desktop-cli mcp` over stdio, initialized, kept for as many calls as a test makes
/// (a long-lived server keeps its connections and capture memory between them).
pub(crate) struct McpSession {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
    next: u64,
}

impl McpSession {
    pub(crate) fn start(env: &Env) -> McpSession {
        McpSession::start_with(env.desk.env())
    }

    /// A server on the desktop these variables name.
    pub(crate) fn start_with(vars: &[(String, String)]) -> McpSession {
        let mut child = Command::new(BIN)
            .arg("mcp")
            .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env_remove("AT_SPI_BUS_ADDRESS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut m = McpSession {
            child,
            stdin,
            lines,
            next: 1,
        };
        m.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "apps-test", "version": "1"}}}),
        );
        m.answer(0);
        m.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        m
    }

    /// One tool call; the whole JSON-RPC answer.
    pub(crate) fn call(&mut self, tool: &str, args: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}));
        self.answer(id)
    }

    fn send(&mut self, msg: Value) {
        writeln!(self.stdin, "{msg}").unwrap();
    }

    fn answer(&mut self, id: u64) -> Value {
        for line in self.lines.by_ref() {
            let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
            if v["id"] == id {
                return v;
            }
        }
        panic!("the MCP server ended before answering {id}");
    }
}

impl Drop for McpSession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn log(env: &Env, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["activity"];
    all.extend_from_slice(args);
    let r = env.desk.cli(&all);
    assert_eq!(r.code, 0, "{}", r.stdout);
    r.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn logged(env: &Env) {
    use std::os::unix::fs::PermissionsExt;
    let d = &env.desk;
    let secret = "activity-S3cret!";
    let t0 = log(env, &[]).len();
    // The CLI types a password and clicks; the MCP server types one too.
    let read = ok(env, &["read", "--app", APP, "-i"]);
    let pass = id_of(&read, "pwd", "Password");
    ok(
        env,
        &["type", "--app", APP, "--id", &pass, "--replace", secret],
    );
    ok(
        env,
        &["click", "--app", APP, "--text", "Increment", "--exact"],
    );
    let r = mcp_call(
        env,
        "type",
        json!({"app": APP, "id": pass.parse::<u32>().unwrap(), "text": secret, "replace": true}),
    );
    assert!(r["result"]["isError"] != true, "{r}");

    let all = log(env, &[]);
    let new = &all[t0..];
    let faces: Vec<(&str, &str)> = new
        .iter()
        .map(|e| (e["face"].as_str().unwrap(), e["command"].as_str().unwrap()))
        .collect();
    assert_eq!(
        faces,
        [("cli", "type"), ("cli", "click"), ("mcp", "type")],
        "{new:?}"
    );
    assert_eq!(new[0]["target"]["role"], "pwd", "{}", new[0]);
    assert_eq!(new[0]["app"], APP);
    assert!(new
        .iter()
        .all(|e| e["effect"].is_string() && e["ms"].is_u64()));
    assert_eq!(new[1]["target"]["name"], "Increment");

    // Private, and the password is in no line.
    let dir = d.activity_dir();
    let file = dir.join("activity.jsonl");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&dir), mode(&file)), (0o700, 0o600));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        !text.contains(secret) && !text.contains("hunter2"),
        "{text}"
    );

    // Filters and the text form.
    assert!(log(env, &["--app", "no such app"]).is_empty());
    assert_eq!(
        log(env, &["--app", "CHROM"]).len(),
        log(env, &["--app", APP]).len()
    );
    assert!(log(env, &["--since", "1h"]).len() >= 3);
    let lines = d.cli(&["activity", "--format", "text", "--since", "1h"]);
    assert!(
        lines
            .stdout
            .lines()
            .any(|l| l.contains("cli click in chromium") && l.contains("btn \"Increment\"")),
        "{}",
        lines.stdout
    );

    // Followed: an action by another process shows up while `activity --follow` runs.
    let mut follow = d.spawn_cli(&["activity", "--follow", "--since", "1s"]);
    let out = follow.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    ok(env, &["focus", "--app", APP, "--id", &pass]);
    let seen = loop {
        match rx.recv_timeout(Duration::from_secs(2)) {
            Ok(l) if l.contains("\"focus\"") => break Some(started.elapsed()),
            Ok(_) => continue,
            Err(_) => break None,
        }
    };
    let _ = follow.kill();
    let _ = follow.wait();
    assert!(seen.is_some_and(|t| t < Duration::from_secs(2)), "{seen:?}");
}
