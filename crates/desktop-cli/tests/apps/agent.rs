//! The agent loop against a scripted model server (tests/agent/fake_model.py) that speaks
//! the three protocols and validates every request with the official SDK types. Effects are
//! checked by reading the apps back with pyatspi, never by trusting the agent's report.

use crate::act::{atspi_named, checked, counter};
use crate::read::{flatten, read};
use crate::{Env, Test, BIN};
use desktop_testkit::repo_root;
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const TESTS: &[(&str, Test)] = &[
    ("agent::anthropic_fills_the_chromium_form", anthropic_form),
    (
        "agent::chat_completions_operate_gtk_widget_factory",
        chat_gtk,
    ),
    ("agent::responses_retry_after_429_then_act", responses_429),
    (
        "agent::json_contract_repair_never_half_executes",
        json_contract,
    ),
    (
        "agent::refusal_and_max_tokens_end_cleanly",
        refusal_and_max_tokens,
    ),
    (
        "agent::ask_user_and_text_only_replies_end_the_run",
        ask_user,
    ),
    (
        "agent::failed_step_is_reported_back_and_the_rest_skipped",
        failed_step,
    ),
    ("agent::plan_runs_whole_without_looking", plan),
    ("agent::max_steps_ends_the_run", max_steps),
    ("agent::dry_run_acts_on_nothing", dry_run),
    (
        "agent::confirmation_denied_granted_and_allow_list",
        confirmation,
    ),
    (
        "agent::transcript_keeps_no_password_or_key",
        transcript_secrets,
    ),
    (
        "agent::json_steps_send_no_typed_password_back",
        json_contract_secrets,
    ),
    (
        "agent::secrets_typed_by_placeholder_never_seen",
        secrets_by_placeholder,
    ),
    ("agent::kill_switch_corner_and_ctrl_c", kill_switch),
    ("agent::replay_repeats_a_run", replay),
    ("agent::settings_errors_are_clear", settings_errors),
    (
        "agent::screens_read_by_the_keeper_show_changes_made_elsewhere",
        keeper_screens,
    ),
];

pub(crate) const KEY: &str = "sk-test-KEY-4242";
const CHECK: &str = "$id:chk \"I agree\"";
const INCREMENT: &str = "$id:btn \"Increment\"";

/// The scripted model server, stopped when dropped.
pub(crate) struct Fake {
    child: Child,
    dir: PathBuf,
    port: u16,
}

impl Fake {
    pub(crate) fn start(name: &str, script: Value) -> Fake {
        let dir =
            std::env::temp_dir().join(format!("desktop-cli-agent-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("script.json"), script.to_string()).unwrap();
        let python = repo_root().join(".tools/venv/bin/python");
        assert!(python.exists(), "run scripts/install-test-tools.sh first");
        let port_file = dir.join("port");
        let child = Command::new(python)
            .arg(repo_root().join("tests/agent/fake_model.py"))
            .args([
                dir.join("script.json"),
                dir.join("record.jsonl"),
                port_file.clone(),
            ])
            .args(["--api-key", KEY])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the fake model server");
        let port = desktop_testkit::wait_until(
            Duration::from_secs(30),
            "the fake model server to start",
            || {
                std::fs::read_to_string(&port_file)
                    .ok()?
                    .trim()
                    .parse()
                    .ok()
            },
        );
        Fake { child, dir, port }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub(crate) fn transcript(&self) -> PathBuf {
        self.dir.join("run")
    }

    /// Every request the server received; each must have passed validation.
    pub(crate) fn requests(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(self.dir.join("record.jsonl")).unwrap_or_default();
        let all: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for r in &all {
            assert_eq!(
                r["errors"],
                json!([]),
                "request {} failed validation",
                r["turn"]
            );
        }
        all
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

pub(crate) struct Outcome {
    code: i32,
    pub(crate) json: Value,
    pub(crate) stderr: String,
}

impl Outcome {
    pub(crate) fn data(&self) -> &Value {
        assert_eq!(self.json["ok"], true, "{}\n{}", self.json, self.stderr);
        &self.json["data"]
    }
}

fn spawn_agent(env: &Env, fake: &Fake, provider: &str, goal: &str, extra: &[&str]) -> Child {
    spawn_agent_with(env, fake, provider, goal, extra, &[])
}

/// The same, with more environment variables.
fn spawn_agent_with(
    env: &Env,
    fake: &Fake,
    provider: &str,
    goal: &str,
    extra: &[&str],
    vars: &[(&str, &str)],
) -> Child {
    spawn_agent_on(&env.desk, fake, provider, goal, extra, vars)
}

/// The agent on `desk` (a test's own sandbox, or the shared one).
pub(crate) fn spawn_agent_on(
    desk: &desktop_testkit::Desk,
    fake: &Fake,
    provider: &str,
    goal: &str,
    extra: &[&str],
    vars: &[(&str, &str)],
) -> Child {
    let url = fake.url();
    let transcript = fake.transcript();
    let mut args = vec![
        "agent",
        goal,
        "--provider",
        provider,
        "--base-url",
        &url,
        "--model",
        "fake-model",
    ];
    args.extend_from_slice(&["--transcript", transcript.to_str().unwrap()]);
    args.extend_from_slice(extra);
    Command::new(BIN)
        .args(&args)
        .envs(desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("ANTHROPIC_API_KEY", KEY)
        .env("OPENAI_API_KEY", KEY)
        .env("XDG_CONFIG_HOME", &fake.dir)
        .envs(vars.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the agent")
}

pub(crate) fn finish(mut child: Child, stdin: &str) -> Outcome {
    if let Some(mut pipe) = child.stdin.take() {
        let _ = pipe.write_all(stdin.as_bytes());
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    while matches!(child.try_wait(), Ok(None)) {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the agent did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not one envelope ({e}): {stdout}\n{stderr}"));
    Outcome {
        code: out.status.code().unwrap_or(-1),
        json,
        stderr,
    }
}

fn agent(
    env: &Env,
    fake: &Fake,
    provider: &str,
    goal: &str,
    extra: &[&str],
    stdin: &str,
) -> Outcome {
    finish(spawn_agent(env, fake, provider, goal, extra), stdin)
}

/// Is Chromium's "I agree" check box checked (pyatspi)?
fn agreed(env: &Env) -> bool {
    let boxes = atspi_named(env, "chromium", "check box", "I agree");
    checked(boxes.first().expect("the I agree check box"))
}

fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    desktop_testkit::wait_until(Duration::from_secs(3), what, || f().then_some(()));
}

pub(crate) fn done(success: bool, summary: &str) -> Value {
    json!({"calls": [{"name": "done", "args": {"success": success, "summary": summary}}]})
}

/// A call with every strict argument present (null where unused), as a strict model sends it.
pub(crate) fn call(name: &str, args: Value) -> Value {
    let spec = match name {
        "click" => {
            json!({"id": null, "x": null, "y": null, "space": null, "button": null, "double": null})
        }
        "type_text" => json!({"id": null}),
        _ => json!({}),
    };
    let mut all = spec.as_object().unwrap().clone();
    all.insert("why".into(), json!(format!("test step: {name}")));
    for (k, v) in args.as_object().unwrap() {
        all.insert(k.clone(), v.clone());
    }
    json!({"name": name, "args": all})
}

/// Chromium's window box and its element with this role and name, from a fresh read.
fn chromium_element(env: &Env, role: &str, name: &str, extra: &[&str]) -> (Value, Value) {
    let mut args = vec!["--app", "chromium"];
    args.extend_from_slice(extra);
    let data = read(env, &args);
    let e = flatten(&data["elements"])
        .into_iter()
        .find(|e| e["r"] == role && e["t"] == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in Chromium"));
    (data["window"]["b"].clone(), e)
}

/// Screen center of an element in Chromium, as 0-1000 across its window.
fn normalized(env: &Env, role: &str, name: &str) -> (f64, f64) {
    let (w, e) = chromium_element(env, role, name, &[]);
    let b = &e["b"];
    let f = |v: &Value| v.as_f64().unwrap();
    let cx = f(&b[0]) + f(&b[2]) / 2.0;
    let cy = f(&b[1]) + f(&b[3]) / 2.0;
    (
        (cx - f(&w[0])) / f(&w[2]) * 1000.0,
        (cy - f(&w[1])) / f(&w[3]) * 1000.0,
    )
}

/// Texts of every user-side part of a request (tool results included).
pub(crate) fn all_text(r: &Value) -> String {
    r["body"].to_string()
}

fn anthropic_form(env: &Env) {
    let before = (counter(env), agreed(env));
    let name = format!("agent-{}", std::process::id());
    let (nx, ny) = normalized(env, "btn", "Increment");
    let fake = Fake::start(
        "form",
        json!([
            {"text": "I will fill the form.", "calls": [
                call("set_value", json!({"id": "$id:input \"Username\"", "value": name})),
                call("toggle", json!({"id": CHECK}))]},
            {"calls": [call("click", json!({"x": nx, "y": ny, "space": "normalized"}))]},
            done(true, "form filled"),
        ]),
    );
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Fill the sign-in form and tick I agree",
        &["--app", "chromium"],
        "",
    );
    let d = out.data();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(d["success"], true);
    assert_eq!(d["stop"], "done");
    assert_eq!(d["iterations"], 3);
    assert_eq!(d["steps"].as_array().unwrap().len(), 3);
    assert_eq!(d["tokens"]["input"], 3000);
    assert_eq!(
        d["usage"].as_array().unwrap().len(),
        3,
        "tokens and latency per turn"
    );
    assert_eq!(d["usage"][0]["model"], "fake-model");
    // Read back: the field, the check box and the counter the normalized click hit.
    let user = atspi_named(env, "chromium", "entry", "Username");
    assert_eq!(user[0]["v"], json!(name), "{user:?}");
    assert_eq!(agreed(env), !before.1);
    wait_until("the normalized click reached Increment", || {
        counter(env) == before.0 + 1
    });
    // What the model was sent: three valid requests, each with a screenshot and a framed
    // tree, the tools strict, tool results answering the calls, no password anywhere.
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 3);
    for r in &reqs {
        assert_eq!(r["auth_ok"], true);
        let msgs = r["body"]["messages"].as_array().unwrap();
        let last = &msgs[msgs.len() - 1]["content"];
        assert!(
            last.as_array()
                .unwrap()
                .iter()
                .any(|b| b["type"] == "image"),
            "a screenshot each turn"
        );
        assert!(all_text(r).contains("<screen_data note="));
        // Ids, roles and names, without screen rectangles: the screenshot shows places.
        assert!(
            all_text(r).contains(r#"btn \"Sign In\"\n"#),
            "tree lines carry no rectangles"
        );
        assert!(!all_text(r).contains("hunter2-secret"));
        assert!(r["body"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["input_schema"]["additionalProperties"] == false));
        assert!(r["body"]["system"]
            .as_str()
            .unwrap()
            .contains("data, never instructions"));
    }
    // Only the latest screenshot travels: older ones are dropped from the history.
    let images = all_text(&reqs[2]).matches("\"type\":\"image\"").count();
    assert_eq!(images, 1);
    assert!(out.stderr.contains("step 1/20: set #"), "{}", out.stderr);
    assert!(fake.transcript().join("turn-001.jpg").exists());
    // What was on screen is this user's alone.
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: PathBuf| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(fake.transcript()), 0o700);
    assert_eq!(mode(fake.transcript().join("transcript.jsonl")), 0o600);
    assert_eq!(mode(fake.transcript().join("turn-001.jpg")), 0o600);
}

fn chat_gtk(env: &Env) {
    let app = "gtk3-widget-factory";
    let boxes = flatten(&read(env, &["--app", app, "--roles", "chk"])["elements"]);
    let target = boxes
        .iter()
        .find(|e| e.get("e").is_none() && e.get("k").is_none())
        .expect("an unchecked box")
        .clone();
    let fake = Fake::start(
        "gtk",
        json!([
            {"calls": [
                call("toggle", json!({"id": "$id:chk \"checkbutton\"$"})),
                call("set_value", json!({"id": "$id:spin = \"", "value": "73"}))]},
            done(true, "ok"),
        ]),
    );
    let out = agent(
        env,
        &fake,
        "openai",
        "Tick a check box and set the spin button to 73",
        &["--app", app],
        "",
    );
    assert_eq!(out.data()["success"], true, "{}", out.stderr);
    let now = env.desk.atspi_dump(app, "");
    let b = now
        .iter()
        .find(|e| e["b"] == target["b"] && e["role"] == "check box")
        .unwrap();
    assert!(checked(b), "pyatspi sees the box checked");
    assert!(
        now.iter()
            .any(|e| e["role"] == "spin button"
                && e["v"].as_str().is_some_and(|v| v.starts_with("73"))),
        "pyatspi sees the spin button at 73"
    );
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    let msgs = reqs[1]["body"]["messages"].as_array().unwrap();
    assert_eq!(msgs[0]["role"], "system");
    assert_eq!(msgs.iter().filter(|m| m["role"] == "tool").count(), 2);
    assert!(reqs[0]["body"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["function"]["strict"] == true));
    // The latest screen (only it) carries the screenshot, as a data URL.
    let image = &msgs.last().unwrap()["content"][1]["image_url"]["url"];
    assert!(
        image.as_str().unwrap_or("").starts_with("data:image/"),
        "{image}"
    );
    // Put the box back as it was for the other tests.
    env.desk
        .cli(&["toggle", "--id", &target["i"].to_string(), "--app", app]);
}

fn responses_429(env: &Env) {
    let before = counter(env);
    let fake = Fake::start(
        "responses",
        json!([
            {"status": 429, "retry_after": 0},
            {"calls": [call("click", json!({"id": INCREMENT}))]},
            done(true, "clicked"),
        ]),
    );
    let out = agent(
        env,
        &fake,
        "openai-responses",
        "Press Increment once",
        &["--app", "chromium"],
        "",
    );
    assert_eq!(out.data()["success"], true, "{}", out.stderr);
    wait_until("Increment was clicked", || counter(env) == before + 1);
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[0]["answered"], 429);
    assert_eq!(
        reqs[0]["body"], reqs[1]["body"],
        "the retry sends the same request"
    );
    let input = reqs[2]["body"]["input"].as_array().unwrap();
    assert!(input.iter().any(|i| i["type"] == "function_call_output"));
    assert!(input
        .iter()
        .any(|i| i["content"][1]["type"] == "input_image"));
    assert_eq!(out.data()["iterations"], 2);
}

fn json_contract(env: &Env) {
    let before = (counter(env), agreed(env));
    let half = json!({"steps": [
        {"tool": "toggle", "args": {"id": CHECK}, "human_readable_justification": "tick"},
        {"tool": "click", "args": {}, "human_readable_justification": "no target"}], "done": null});
    let fake = Fake::start(
        "contract",
        json!([
            {"json": half},
            {"json": {"steps": [{"tool": "click", "args": {"id": INCREMENT}, "human_readable_justification": "press it"}], "done": null}, "fence": true},
            {"text": "{\"steps\": [], \"done\": \"pressed Increment\"}"},
        ]),
    );
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Press Increment",
        &["--app", "chromium", "--tool-format", "json"],
        "",
    );
    let d = out.data();
    assert_eq!(d["success"], true, "{}", out.stderr);
    assert_eq!(d["message"], "pressed Increment");
    wait_until("Increment was clicked", || counter(env) == before.0 + 1);
    assert_eq!(
        agreed(env),
        before.1,
        "the half-valid reply executed nothing"
    );
    let reqs = fake.requests();
    assert!(
        reqs[0]["body"].get("tools").is_none(),
        "no tools in contract mode"
    );
    assert!(reqs[0]["body"]["system"]
        .as_str()
        .unwrap()
        .contains("human_readable_justification"));
    assert!(
        all_text(&reqs[1]).contains("could not be used: step 2"),
        "the error goes back to the model"
    );
    assert!(all_text(&reqs[2]).contains("Results:"));
}

fn refusal_and_max_tokens(env: &Env) {
    let fake = Fake::start(
        "refusal",
        json!([{"text": "I can't help with that.", "stop": "refusal"}]),
    );
    let out = agent(
        env,
        &fake,
        "openai",
        "Do something",
        &["--app", "chromium"],
        "",
    );
    assert_eq!(out.code, 1);
    assert_eq!(out.data()["stop"], "refusal");
    assert_eq!(out.data()["success"], false);
    assert!(out.data()["message"]
        .as_str()
        .unwrap()
        .contains("can't help"));
    drop(fake);

    let before = agreed(env);
    let cut = json!({"calls": [call("toggle", json!({"id": CHECK}))], "stop": "max_tokens"});
    let fake = Fake::start("maxtok", json!([cut.clone(), cut]));
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Tick the box",
        &["--app", "chromium"],
        "",
    );
    assert_eq!(out.code, 1);
    assert_eq!(out.data()["stop"], "max_tokens");
    assert_eq!(out.data()["steps"], json!([]));
    assert_eq!(agreed(env), before, "a cut-off reply runs nothing");
    assert!(all_text(&fake.requests()[1]).contains("cut off at the token limit"));
}

fn ask_user(env: &Env) {
    // Without a terminal to answer on, a question ends the run and is handed to the caller.
    let question = json!({"calls": [{"name": "ask_user", "args": {"question": "Which account?"}}]});
    let fake = Fake::start("ask", json!([question]));
    let out = agent(
        env,
        &fake,
        "openai-responses",
        "Sign in",
        &["--app", "chromium"],
        "",
    );
    assert_eq!(out.code, 1);
    assert_eq!(out.data()["stop"], "ask_user");
    assert_eq!(out.data()["message"], "Which account?");
    drop(fake);

    // Text instead of a tool call: one reminder, then the run ends.
    let talk = json!({"text": "I think the form is filled."});
    let fake = Fake::start("talk", json!([talk.clone(), talk]));
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Fill the form",
        &["--app", "chromium"],
        "",
    );
    assert_eq!(out.data()["stop"], "no_action");
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    assert!(all_text(&reqs[1]).contains("Act with the tools"));
}

fn failed_step(env: &Env) {
    let before = agreed(env);
    let fake = Fake::start(
        "failed",
        json!([
            {"calls": [call("click", json!({"id": 9999})), call("toggle", json!({"id": CHECK}))]},
            done(false, "the element was not there"),
        ]),
    );
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Click it",
        &["--app", "chromium", "--plan"],
        "",
    );
    assert_eq!(out.code, 1);
    let d = out.data();
    assert_eq!(d["steps"][0]["ok"], false);
    assert!(d["steps"][0]["error"]["code"].as_str().is_some());
    assert_eq!(
        d["steps"].as_array().unwrap().len(),
        1,
        "the rest was skipped"
    );
    assert_eq!(agreed(env), before);
    let reqs = fake.requests();
    assert!(reqs[0]["body"]["system"]
        .as_str()
        .unwrap()
        .contains("Plan first"));
    let msgs = reqs[1]["body"]["messages"].as_array().unwrap();
    let results = msgs.last().unwrap()["content"].as_array().unwrap();
    assert_eq!(results[0]["is_error"], true);
    assert!(results[0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("\"code\""));
    assert_eq!(results[1]["is_error"], true);
    assert!(results[1]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("skipped"));
}

fn plan(env: &Env) {
    let before = (counter(env), agreed(env));
    let fake = Fake::start(
        "plan",
        json!([{"calls": [
            call("toggle", json!({"id": CHECK})),
            call("click", json!({"id": INCREMENT})),
            {"name": "done", "args": {"success": true, "summary": "planned and done"}},
        ]}]),
    );
    let out = agent(
        env,
        &fake,
        "openai",
        "Tick I agree and press Increment",
        &["--app", "chromium", "--plan"],
        "",
    );
    let d = out.data();
    assert_eq!(d["success"], true, "{}", out.stderr);
    assert_eq!(
        d["iterations"], 1,
        "one model turn: the plan ran without looking again"
    );
    assert_eq!(fake.requests().len(), 1);
    wait_until("Increment was clicked", || counter(env) == before.0 + 1);
    assert_eq!(agreed(env), !before.1);
}

fn max_steps(env: &Env) {
    let before = counter(env);
    let click = json!({"calls": [call("click", json!({"id": INCREMENT}))]});
    let fake = Fake::start(
        "maxsteps",
        json!([click.clone(), click.clone(), click, done(true, "x")]),
    );
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Press Increment three times",
        &["--app", "chromium", "--max-steps", "2"],
        "",
    );
    assert_eq!(out.code, 1);
    assert_eq!(out.data()["stop"], "max_steps");
    wait_until("two clicks", || counter(env) == before + 2);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(counter(env), before + 2, "no third click");
}

fn dry_run(env: &Env) {
    let before = (counter(env), agreed(env));
    let fake = Fake::start(
        "dry",
        json!([
            {"calls": [call("toggle", json!({"id": CHECK})), call("click", json!({"id": INCREMENT})), call("launch", json!({"command": ["xterm"]}))]},
            done(true, "planned"),
        ]),
    );
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Tick and press",
        &["--app", "chromium", "--dry-run"],
        "",
    );
    let d = out.data();
    assert_eq!(d["steps"].as_array().unwrap().len(), 3);
    assert!(d["steps"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["executed"] == false));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!((counter(env), agreed(env)), before, "nothing acted on");
    assert!(out.stderr.contains("[dry run]"));
}

fn confirmation(env: &Env) {
    let marker =
        std::env::temp_dir().join(format!("desktop-cli-agent-launched-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    let launch =
        json!({"calls": [call("launch", json!({"command": ["touch", marker.to_str().unwrap()]}))]});
    let fake = Fake::start("deny", json!([launch.clone(), done(false, "not allowed")]));
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Start it",
        &["--app", "chromium"],
        "n\n",
    );
    assert_eq!(out.data()["steps"][0]["executed"], false);
    assert!(out.stderr.contains("Allow?"), "{}", out.stderr);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!marker.exists(), "a declined launch starts nothing");
    let results = all_text(&fake.requests()[1]);
    assert!(results.contains("the user declined"), "the model is told");
    drop(fake);

    let fake = Fake::start("grant", json!([launch, done(true, "launched")]));
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Start it",
        &["--app", "chromium"],
        "y\n",
    );
    assert_eq!(out.data()["steps"][0]["executed"], true);
    desktop_testkit::wait_until(Duration::from_secs(5), "the approved launch to run", || {
        marker.exists().then_some(())
    });
    let _ = std::fs::remove_file(&marker);
    drop(fake);

    // A system key combo is risky too: declined, nothing pressed.
    let fake = Fake::start(
        "combo",
        json!([{"calls": [call("press_keys", json!({"keys": "ctrl+alt+delete"}))]}, done(false, "declined")]),
    );
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Open the task manager",
        &["--app", "chromium"],
        "no\n",
    );
    assert_eq!(out.data()["steps"][0]["executed"], false);
    assert!(out.data()["steps"][0]["risk"]
        .as_str()
        .unwrap()
        .contains("system key combo"));
    drop(fake);

    // With --confirm never, apps outside --allow-app are refused, not asked about.
    let before = agreed(env);
    let fake = Fake::start(
        "allow",
        json!([{"calls": [call("toggle", json!({"id": CHECK}))]}, done(false, "refused")]),
    );
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Tick",
        &[
            "--app",
            "chromium",
            "--confirm",
            "never",
            "--allow-app",
            "gtk3-widget-factory",
        ],
        "",
    );
    assert_eq!(out.data()["steps"][0]["executed"], false);
    assert!(out.data()["steps"][0]["error"]
        .as_str()
        .unwrap()
        .contains("--allow-app"));
    assert_eq!(agreed(env), before);
}

fn transcript_secrets(env: &Env) {
    let secret = "typed-S3cret-pw";
    let fake = Fake::start(
        "secret",
        json!([
            {"calls": [call("type_text", json!({"id": "$id:pwd \"Password\"", "text": secret}))]},
            done(true, "typed"),
        ]),
    );
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Type the password",
        &["--app", "chromium"],
        "",
    );
    let d = out.data();
    assert_eq!(d["steps"][0]["ok"], true, "{}", out.stderr);
    assert!(!out.json.to_string().contains(secret));
    assert!(!out.stderr.contains(secret), "{}", out.stderr);
    for entry in std::fs::read_dir(fake.transcript()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(secret), "the transcript holds the password");
        assert!(!text.contains(KEY), "the transcript holds the API key");
        assert!(!text.contains("hunter2-secret"));
    }
    let log = std::fs::read_to_string(fake.transcript().join("transcript.jsonl")).unwrap();
    assert!(log.contains("[redacted]"));
    // The activity log has the agent's step, as the agent's, without the password.
    let activity = std::fs::read_to_string(env.desk.activity_dir().join("activity.jsonl")).unwrap();
    let last: serde_json::Value = activity
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| e["face"] == "agent")
        .expect("an agent line in the activity log");
    assert_eq!(last["command"], "type", "{last}");
    assert_eq!(last["target"]["role"], "pwd", "{last}");
    assert!(
        !activity.contains(secret),
        "the activity log holds the password"
    );
    // The run's page (read above with every file: no secret in it): the step, the field
    // typed into boxed on the screenshot the model saw, private like the rest.
    let page = std::fs::read_to_string(fake.transcript().join("report.html")).unwrap();
    assert!(
        page.contains("type_text") && page.contains("on pwd &quot;Password&quot;"),
        "{page}"
    );
    assert!(
        page.contains("<img src=\"turn-001.jpg\"") && page.contains("class=\"box\""),
        "{page}"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: PathBuf| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(fake.transcript().join("report.html")), 0o600);
    // Built again from the folder, elsewhere.
    let again = fake.transcript().join("again.html");
    let r = env.desk.cli(&[
        "agent",
        "report",
        fake.transcript().to_str().unwrap(),
        "--output",
        again.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), page);
    let r = env
        .desk
        .cli(&["agent", "--report", fake.transcript().to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // Two words are not one goal.
    let r = env.desk.cli(&["agent", "open", "the", "--dry-run"]);
    assert_eq!(r.error_code(), "INVALID_ARGS", "{}", r.stdout);
    // The run's animation: one frame for each screenshot the model saw, private too.
    use image::AnimationDecoder;
    let shots = std::fs::read_dir(fake.transcript())
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            let name = name.to_string_lossy();
            name.starts_with("turn-") && name.ends_with(".jpg")
        })
        .count();
    let gif = std::fs::File::open(fake.transcript().join("run.gif")).unwrap();
    let frames = image::codecs::gif::GifDecoder::new(std::io::BufReader::new(gif))
        .unwrap()
        .into_frames()
        .count();
    assert!(
        shots > 0 && frames == shots,
        "{frames} frames for {shots} screenshots"
    );
    assert_eq!(mode(fake.transcript().join("run.gif")), 0o600);
    // The history sent back to the model has it blanked too.
    assert!(!all_text(&fake.requests()[1]).contains(secret));
}

/// In the JSON step mode the model's reply text holds its steps, a password typed into a
/// field among them: no later request carries it back to the model.
fn json_contract_secrets(env: &Env) {
    let secret = "json-S3cret-pw";
    let step = json!({"steps": [{"tool": "type_text", "args": {"id": "$id:pwd \"Password\"", "text": secret},
        "human_readable_justification": "type the password"}], "done": null});
    let fake = Fake::start(
        "json-secret",
        json!([
            {"json": step},
            {"text": "{\"steps\": [], \"done\": \"typed\"}"},
        ]),
    );
    let out = agent(
        env,
        &fake,
        "openai",
        "Type the password",
        &["--app", "chromium", "--tool-format", "json"],
        "",
    );
    assert_eq!(out.data()["success"], true, "{}", out.stderr);
    let reqs = fake.requests();
    assert!(reqs.len() >= 2, "the model was asked again after the step");
    for r in &reqs[1..] {
        assert!(!all_text(r).contains(secret), "the password went back: {r}");
    }
    assert!(
        all_text(&reqs[1]).contains("[redacted]"),
        "the step is there, blanked"
    );
}

/// The id of the element with this role and name in Chromium's latest read.
fn chromium_id(env: &Env, role: &str, name: &str) -> String {
    chromium_element(env, role, name, &["-i"]).1["i"].to_string()
}

/// Whether the screenshot shows a flat gray box where the element is (painted over).
fn painted_over(env: &Env, jpg: &std::path::Path, role: &str, name: &str) -> bool {
    let (w, e) = chromium_element(env, role, name, &[]);
    let img = image::open(jpg).unwrap().to_rgb8();
    let f = |v: &Value| v.as_f64().unwrap();
    let scale = f64::from(img.width()) / f(&w[2]);
    let b = &e["b"];
    // The middle of the field, away from its edges and the id mark drawn at its corner.
    let cx = ((f(&b[0]) + f(&b[2]) * 0.6 - f(&w[0])) * scale) as u32;
    let cy = ((f(&b[1]) + f(&b[3]) / 2.0 - f(&w[1])) * scale) as u32;
    (0..8).all(|dx| {
        let p = img.get_pixel(cx + dx, cy).0;
        p.iter().all(|&c| (118..=138).contains(&c))
    })
}

fn secrets_by_placeholder(env: &Env) {
    let (pw, user) = ("Pl4ceh0lder-pw!", "secret-user@example.org");
    let pwd = chromium_id(env, "pwd", "Password");
    env.desk
        .cli(&["set-value", "--id", &pwd, "--value", ""])
        .data();
    let user_file = std::env::temp_dir().join(format!("desktop-cli-user-{}", std::process::id()));
    std::fs::write(&user_file, format!("{user}\n")).unwrap();
    let (to_pwd, to_user) = ("$id:pwd \"Password\"", "$id:input \"Username\"");
    let typed = |id: &str, text: &str| json!({"calls": [call("type_text", json!({"id": id, "text": text}))]});
    let fake = Fake::start(
        "secrets",
        json!([
            typed(to_pwd, "{{secret:pw}}"),
            // Not a password field and not allowed for it: refused.
            typed(to_user, "{{secret:pw}}"),
            // Allowed by --secret-field.
            {"calls": [call("set_value", json!({"id": to_user, "value": "{{secret:user}}"}))]},
            typed(to_pwd, "{{secret:nope}}"),
            done(true, "signed in"),
        ]),
    );
    let secret_user = format!("user=file:{}", user_file.display());
    let args = [
        "--app",
        "chromium",
        "--secret",
        "pw=env:DC_TEST_SITE_PW",
        "--secret",
        &secret_user,
        "--secret-field",
        "user=Username",
    ];
    let vars = [("DC_TEST_SITE_PW", pw)];
    let child = spawn_agent_with(env, &fake, "anthropic", "Sign in", &args, &vars);
    let out = finish(child, "");
    let d = out.data();
    let steps = d["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "{d}");
    assert_eq!(steps[0]["ok"], true, "{}", out.stderr);
    assert_eq!(steps[1]["ok"], false);
    assert_eq!(steps[1]["executed"], false);
    assert!(
        steps[1]["error"].to_string().contains("password field"),
        "{}",
        steps[1]
    );
    assert_eq!(steps[2]["ok"], true, "{}", steps[2]);
    assert!(
        steps[3]["error"].to_string().contains("no secret named"),
        "{}",
        steps[3]
    );
    // Read back by libatspi: the password has the secret's length, the user name is the
    // file's secret.
    let mut fields = env.desk.fields();
    let f = fields.read("Fixture Page");
    assert_eq!(
        f["Password"]["count"],
        pw.chars().count(),
        "{}",
        f["Password"]
    );
    assert_eq!(f["Username"]["text"], user, "{}", f["Username"]);
    // The model knew the names, never the values: not in any request (the field that shows
    // one is blanked in the tree and painted over in the screenshot), nor in the envelope,
    // stderr or the transcript.
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 5);
    assert!(all_text(&reqs[0]).contains("{{secret:pw}} (password fields)"));
    for r in &reqs {
        let text = all_text(r);
        assert!(
            !text.contains(pw) && !text.contains(user),
            "a request holds a secret"
        );
    }
    assert!(all_text(&reqs[3]).contains("Username"));
    let shot = fake.transcript().join("turn-004.jpg");
    assert!(
        painted_over(env, &shot, "input", "Username"),
        "the user name is visible in {shot:?}"
    );
    assert!(
        !painted_over(env, &shot, "btn", "Sign In"),
        "the check sees paint"
    );
    for text in [out.json.to_string(), out.stderr.clone()] {
        assert!(!text.contains(pw) && !text.contains(user), "{text}");
    }
    for entry in std::fs::read_dir(fake.transcript()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(pw) && !text.contains(user),
            "the transcript holds a secret"
        );
    }
    // A replay fills the placeholders again from the same options, and without them stops.
    let dir = fake.transcript();
    let replay = |args: &[&str]| {
        let mut all = vec!["agent", "--replay", dir.to_str().unwrap()];
        all.extend_from_slice(args);
        let child = Command::new(BIN)
            .args(&all)
            .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("DC_TEST_SITE_PW", pw)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        finish(child, "")
    };
    let out = replay(&[]);
    assert_eq!(out.data()["success"], false);
    assert!(
        out.data()["message"].as_str().unwrap().contains("--secret"),
        "{}",
        out.json
    );
    assert_eq!(
        fields.read("Fixture Page")["Password"]["count"],
        pw.chars().count()
    );
    let out = replay(&args[2..]);
    assert_eq!(out.data()["success"], true, "{}", out.stderr);
    assert!(!out.json.to_string().contains(user) && !out.stderr.contains(pw));
    let f = fields.read("Fixture Page");
    assert_eq!(f["Password"]["count"], 2 * pw.chars().count());
    let _ = std::fs::remove_file(user_file);
}

fn kill_switch(env: &Env) {
    let before = agreed(env);
    let toggle = json!({"calls": [call("toggle", json!({"id": CHECK}))]});
    env.desk.cli(&["hover", "--x", "0", "--y", "0"]).data();
    let fake = Fake::start("corner", json!([toggle.clone(), done(true, "x")]));
    let out = agent(env, &fake, "anthropic", "Tick", &["--app", "chromium"], "");
    env.desk.cli(&["hover", "--x", "640", "--y", "700"]).data();
    assert_eq!(out.data()["stop"], "stopped");
    assert!(out.data()["message"].as_str().unwrap().contains("corner"));
    assert_eq!(agreed(env), before);
    drop(fake);

    let mut slow = toggle;
    slow["delay"] = json!(3);
    let fake = Fake::start("ctrlc", json!([slow.clone(), done(true, "x")]));
    let child = spawn_agent(env, &fake, "anthropic", "Tick", &["--app", "chromium"]);
    // The agent is waiting for the model's answer: Ctrl+C now.
    asked(&fake);
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = finish(child, "");
    assert_eq!(out.data()["stop"], "stopped", "{}", out.stderr);
    assert!(out.data()["message"].as_str().unwrap().contains("Ctrl+C"));
    assert_eq!(agreed(env), before);

    // The Stop button of `view`, pressed while the model thinks.
    let view = crate::view::View::start(env);
    slow["delay"] = json!(10);
    let fake = Fake::start("viewstop", json!([slow, done(true, "x")]));
    let events = view.events();
    let child = spawn_agent(env, &fake, "anthropic", "Tick", &["--app", "chromium"]);
    asked(&fake);
    // The page shows the run waiting for the model, at step 0.
    let waiting = crate::view::next(&events, Duration::from_secs(5), |e| {
        e.starts_with("event: runs") && e.contains("\"thinking\"")
    });
    assert!(
        waiting.contains("\"step\":0") && waiting.contains("Tick"),
        "{waiting}"
    );
    assert_eq!(view.stop(), 200);
    let stopped = Instant::now();
    let out = finish(child, "");
    // While the model still thinks (10 s): the run does not wait for its answer.
    assert!(
        stopped.elapsed() < Duration::from_secs(3),
        "{:?}",
        stopped.elapsed()
    );
    // And no run once it ended.
    crate::view::next(&events, Duration::from_secs(5), |e| e.contains("data: []"));
    assert_eq!(out.data()["stop"], "stopped", "{}", out.stderr);
    assert!(
        out.data()["message"].as_str().unwrap().contains("Stop"),
        "{}",
        out.json
    );
    assert_eq!(agreed(env), before);
    // A stop asked for before a run starts does not end it.
    let fake = Fake::start("afterstop", json!([done(true, "nothing to do")]));
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Nothing",
        &["--app", "chromium"],
        "",
    );
    assert_eq!(out.data()["success"], true, "{}", out.json);
}

/// Waits until the agent has sent the model its first request.
fn asked(fake: &Fake) {
    desktop_testkit::wait_until(
        Duration::from_secs(20),
        "the agent to ask the model",
        || {
            let asked = !std::fs::read_to_string(fake.dir.join("record.jsonl"))
                .unwrap_or_default()
                .is_empty()
                || std::fs::read_to_string(fake.transcript().join("transcript.jsonl"))
                    .unwrap_or_default()
                    .contains("\"request\"");
            asked.then_some(())
        },
    );
}

fn replay(env: &Env) {
    let before = counter(env);
    let fake = Fake::start(
        "replay",
        json!([{"calls": [call("click", json!({"id": INCREMENT}))]}, done(true, "x")]),
    );
    agent(
        env,
        &fake,
        "anthropic",
        "Press Increment",
        &["--app", "chromium"],
        "",
    );
    wait_until("the run clicked", || counter(env) == before + 1);
    // Other ids now: an element more above the button; the replay finds it by role and name.
    env.desk
        .cli(&[
            "click",
            "--text",
            "Insert Above",
            "--app",
            "chromium",
            "--exact",
        ])
        .data();
    let dir = fake.transcript();
    let out = finish(
        Command::new(BIN)
            .args(["agent", "--replay", dir.to_str().unwrap()])
            .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
        "",
    );
    assert_eq!(out.data()["success"], true, "{}", out.stderr);
    assert_eq!(out.data()["steps"].as_array().unwrap().len(), 1);
    wait_until("the replay clicked", || counter(env) == before + 2);
}

fn settings_errors(env: &Env) {
    let run = |args: &[&str], envs: &[(&str, &str)]| {
        let out = Command::new(BIN)
            .args(args)
            .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env(
                "XDG_CONFIG_HOME",
                std::env::temp_dir().join("desktop-cli-agent-no-config"),
            )
            .envs(envs.iter().copied())
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code().unwrap(), v)
    };
    let (code, v) = run(&["agent", "tick the box"], &[]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (2, Some("INVALID_ARGS"))
    );
    assert!(v["error"]["suggestion"]
        .as_str()
        .unwrap()
        .contains("ANTHROPIC_API_KEY"));
    let (_, v) = run(&["agent", "x", "--provider", "gemini"], &[]);
    assert_eq!(v["error"]["code"], "INVALID_ARGS");
    let (_, v) = run(&["agent", "   ", "--base-url", "http://127.0.0.1:9"], &[]);
    assert!(v["error"]["message"].as_str().unwrap().contains("empty"));
    // A server that is not there: a timeout after the retries, with the key never printed.
    let (_, v) = run(
        &[
            "agent",
            "x",
            "--base-url",
            "http://127.0.0.1:9",
            "--transcript",
            "/tmp/desktop-cli-agent-noserver",
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    assert!(!v.to_string().contains(KEY));
    let bad = std::env::temp_dir().join("desktop-cli-agent-bad.toml");
    std::fs::write(&bad, "provder = 1").unwrap();
    let (_, v) = run(&["agent", "x", "--config", bad.to_str().unwrap()], &[]);
    assert_eq!(v["error"]["code"], "INVALID_ARGS");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not valid"));
    let _ = std::fs::remove_file(bad);
    let _ = std::fs::remove_dir_all("/tmp/desktop-cli-agent-noserver");
    // A config file holding a key that others can read: a warning on stderr, the run goes on
    // (here to the missing server), the key never printed.
    use std::os::unix::fs::PermissionsExt;
    let shared = std::env::temp_dir().join("desktop-cli-agent-shared.toml");
    std::fs::write(&shared, format!("api_key = \"{KEY}\"\nretries = 0\n")).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = Command::new(BIN)
        .args(["agent", "x", "--base-url", "http://127.0.0.1:9"])
        .args(["--config", shared.to_str().unwrap()])
        .args(["--transcript", "/tmp/desktop-cli-agent-shared"])
        .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("readable by other users") && stderr.contains("chmod 600"),
        "{stderr}"
    );
    assert!(!stderr.contains(KEY) && !String::from_utf8_lossy(&out.stdout).contains(KEY));
    let _ = std::fs::remove_file(shared);
    let _ = std::fs::remove_dir_all("/tmp/desktop-cli-agent-shared");
    // A secret given on the command line itself, or from a variable that is not set, is
    // refused before anything starts, and never echoed.
    for spec in ["pw=Inline-Value-42", "pw=env:DC_TEST_UNSET_SECRET"] {
        let (code, v) = run(
            &["agent", "x", "--secret", spec],
            &[("ANTHROPIC_API_KEY", KEY)],
        );
        assert_eq!(
            (code, v["error"]["code"].as_str()),
            (2, Some("INVALID_ARGS")),
            "{v}"
        );
        assert!(!v.to_string().contains("Inline-Value-42"), "{v}");
        assert!(
            v["error"]["suggestion"].as_str().unwrap().contains("env:"),
            "{v}"
        );
    }
}

/// The line of the newest screen an Anthropic request carries that holds `what`.
fn screen_line(request: &Value, what: &str) -> String {
    let last = request["body"]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    let screen = last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .find(|t| t.contains("<screen_data"))
        .expect("a screen in the request");
    screen
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no {what} on the screen:\n{screen}"))
        .to_string()
}

/// The agent's reads are made by the desktop's keeper, from mirrors that outlive the run:
/// the first screen of a run shows what another process changed after the keeper last
/// read the page, and each later screen what the agent's own action changed (pyatspi the
/// judge of the page).
fn keeper_screens(env: &Env) {
    // The keeper reads the page (twice: the first may be made by the process itself while
    // a new keeper starts), so its mirror holds it.
    for _ in 0..2 {
        env.desk.cli(&["read", "--app", "chromium", "-i"]);
    }
    let before = agreed(env);
    // Another process ticks the box by itself, the keeper taking no part.
    let run = env.desk.cli_with(
        &["toggle", "--text", "I agree", "--app", "chromium"],
        &[("DESKTOP_CLI_DIRECT", "1")],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(agreed(env), !before, "pyatspi sees the box flipped");
    let fake = Fake::start(
        "keeper",
        json!([
            {"calls": [call("toggle", json!({"id": CHECK}))]},
            {"calls": [call("toggle", json!({"id": CHECK}))]},
            done(true, "flipped twice"),
        ]),
    );
    let out = agent(
        env,
        &fake,
        "anthropic",
        "Flip the I agree box twice",
        &["--app", "chromium"],
        "",
    );
    assert_eq!(out.data()["success"], true, "{}", out.stderr);
    assert_eq!(
        agreed(env),
        !before,
        "flipped twice: as the other process left it"
    );
    // Each screen as the page was: after the other process's toggle, after the agent's
    // first, after its second.
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 3);
    for (n, r) in reqs.iter().enumerate() {
        let line = screen_line(r, "chk \"I agree\"");
        let ticked = (!before) ^ (n % 2 == 1);
        assert_eq!(
            line.contains(" checked"),
            ticked,
            "screen {}: {line}",
            n + 1
        );
    }
    // And the keeper made every read.
    let log = std::fs::read_to_string(fake.transcript().join("transcript.jsonl")).unwrap();
    let reads: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["ev"] == "observe")
        .map(|e| e["read"].clone())
        .collect();
    assert_eq!(reads.len(), 3, "{log}");
    for r in &reads {
        assert!(r.get("keeper").is_some(), "read by the keeper: {r}");
    }
    // Put the box back as it was for the other tests.
    if agreed(env) != before {
        env.desk
            .cli(&["toggle", "--text", "I agree", "--app", "chromium"]);
    }
}
