//! Where the agent's goal comes from: typed at a prompt on the terminal (a pseudo-terminal
//! here, through Python's `pty`), a file, or standard input; none without a terminal is
//! INVALID_ARGS. The goal is checked in the request the scripted model received.

use crate::agent::{all_text, done, Fake, KEY};
use crate::{Env, Test, BIN};
use serde_json::Value;
use std::process::{Command, Stdio};

pub const TESTS: &[(&str, Test)] = &[
    ("agent_goal::typed_at_the_prompt", typed_at_the_prompt),
    ("agent_goal::from_a_file_or_stdin", from_file_or_stdin),
];

/// The agent's arguments for a run against `fake` that ends at once.
fn args(fake: &Fake) -> Vec<String> {
    [
        "--provider",
        "openai",
        "--base-url",
        &fake.url(),
        "--model",
        "fake-model",
        "--app",
        "gtk3-widget-factory",
        "--transcript",
        fake.transcript().to_str().unwrap(),
    ]
    .map(str::to_string)
    .to_vec()
}

/// The text of the first request's messages (the goal is in its first user message).
fn first_request(fake: &Fake) -> String {
    let requests = fake.requests();
    assert!(!requests.is_empty(), "no request reached the model");
    all_text(&requests[0])
}

/// Runs the agent on a pseudo-terminal, answers its prompt with `typed`, and returns all it
/// printed on the terminal.
const PTY: &str = r#"
import os, pty, select, subprocess, sys, time
argv, typed = sys.argv[1:-1], sys.argv[-1]
master, slave = pty.openpty()
p = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
os.close(slave)
out, sent, deadline = b"", False, time.time() + 90
while time.time() < deadline:
    ready, _, _ = select.select([master], [], [], 0.2)
    if ready:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    if not sent and b"what should the agent do?" in out:
        os.write(master, typed.encode() + b"\n")
        sent = True
    if p.poll() is not None and not ready:
        break
p.wait(timeout=30)
sys.stdout.write(out.decode(errors="replace"))
sys.stdout.write("\nEXIT %d SENT %s\n" % (p.returncode, sent))
"#;

fn typed_at_the_prompt(env: &Env) {
    let fake = Fake::start("goal-pty", serde_json::json!([done(true, "ok")]));
    let mut argv = vec![BIN.to_string(), "agent".into()];
    argv.extend(args(&fake));
    let goal = "Look at the widget factory and say done";
    let out = Command::new("python3")
        .arg("-c")
        .arg(PTY)
        .args(&argv)
        .arg(goal)
        .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("OPENAI_API_KEY", KEY)
        .env("XDG_CONFIG_HOME", fake.transcript())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("SENT True"),
        "no prompt on the terminal:\n{text}"
    );
    assert!(text.contains("EXIT 0"), "{text}");
    assert!(text.contains("\"success\":true"), "{text}");
    assert!(
        first_request(&fake).contains(goal),
        "{}",
        first_request(&fake)
    );
}

fn run(env: &Env, fake: &Fake, extra: &[&str], stdin: Option<&str>) -> (i32, Value) {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .arg("agent")
        .args(extra)
        .args(args(fake))
        .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("OPENAI_API_KEY", KEY)
        .env("XDG_CONFIG_HOME", fake.transcript())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap_or(-1), v)
}

fn from_file_or_stdin(env: &Env) {
    // From a file.
    let fake = Fake::start("goal-file", serde_json::json!([done(true, "ok")]));
    let file = std::env::temp_dir().join(format!("desktop-cli-goal-{}", std::process::id()));
    std::fs::write(&file, "Check the spin button, then finish\n").unwrap();
    let (code, v) = run(env, &fake, &["--goal-file", file.to_str().unwrap()], None);
    let _ = std::fs::remove_file(&file);
    assert_eq!((code, &v["ok"]), (0, &Value::Bool(true)), "{v}");
    assert!(first_request(&fake).contains("Check the spin button, then finish"));
    drop(fake);
    // From standard input.
    let fake = Fake::start("goal-stdin", serde_json::json!([done(true, "ok")]));
    let (code, v) = run(env, &fake, &["-"], Some("Read the title from stdin\n"));
    assert_eq!((code, &v["ok"]), (0, &Value::Bool(true)), "{v}");
    assert!(first_request(&fake).contains("Read the title from stdin"));
    drop(fake);
    // None, and no terminal to ask on.
    let fake = Fake::start("goal-none", serde_json::json!([done(true, "ok")]));
    let (code, v) = run(env, &fake, &[], None);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (2, Some("INVALID_ARGS")),
        "{v}"
    );
    assert!(
        v["error"]["message"].as_str().unwrap().contains("no goal"),
        "{v}"
    );
    assert!(fake.requests().is_empty(), "asked the model without a goal");
    // A missing file.
    let (code, v) = run(env, &fake, &["--goal-file", "/nonexistent/goal.txt"], None);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (2, Some("INVALID_ARGS")),
        "{v}"
    );
}
