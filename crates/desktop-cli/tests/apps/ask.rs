//! `ask` against the scripted model server: each kind of question answered from one
//! observation of a real window (the tree and at most one screenshot in the request), ids the
//! tree lacks refused, points mapped to the screen, a "no" as exit status 1 — and the window
//! left as it was (read back before and after).

use crate::agent::{Fake, KEY};
use crate::read::{flatten, read};
use crate::{Env, Test, BIN};
use serde_json::{json, Value};
use std::process::Command;

pub const TESTS: &[(&str, Test)] = &[(
    "ask::every_question_answers_and_nothing_acts",
    every_question,
)];

/// A reply calling the answer tool with these arguments.
fn answer(args: Value) -> Value {
    json!({"calls": [{"name": "answer", "args": args}]})
}

/// Runs `ask` against `fake`: exit status and envelope.
fn ask(env: &Env, fake: &Fake, provider: &str, question: &[&str]) -> (i32, Value) {
    let out = Command::new(BIN)
        .arg("ask")
        .args(question)
        .args(["--app", "gtk3-widget-factory", "--provider", provider])
        .args(["--base-url", &fake.url(), "--model", "fake-model"])
        .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("ANTHROPIC_API_KEY", KEY)
        .env("OPENAI_API_KEY", KEY)
        .env("XDG_CONFIG_HOME", fake.transcript())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

/// What the window shows, element by element: role, name, value, checked.
fn state(env: &Env) -> Vec<(Value, Value, Value, Value)> {
    flatten(&read(env, &["--app", "gtk3-widget-factory"])["elements"])
        .into_iter()
        .map(|e| {
            (
                e["r"].clone(),
                e["t"].clone(),
                e["v"].clone(),
                e["k"].clone(),
            )
        })
        .collect()
}

/// The images in a recorded request.
fn images(request: &Value) -> usize {
    let text = request["body"].to_string();
    text.matches("base64,").count() + text.matches("\"type\":\"base64\"").count()
}

fn every_question(env: &Env) {
    let before = state(env);
    // The part of the window a screenshot shows (a window may reach past the screen).
    let shown = env
        .desk
        .cli(&[
            "screenshot",
            "--app",
            "gtk3-widget-factory",
            "--max-edge",
            "4000",
        ])
        .data()["region"]
        .clone();
    let script = json!([
        answer(json!({"text": "A widget gallery with buttons and check boxes."})),
        answer(json!({"found": true, "id": "$id:chk \"checkbutton\"", "x": null, "y": null, "space": null, "note": "labelled checkbutton"})),
        answer(json!({"found": true, "id": 99999, "x": null, "y": null, "space": null, "note": null})),
        answer(json!({"found": true, "id": null, "x": 500, "y": 500, "space": "normalized", "note": "the middle"})),
        answer(json!({"found": false, "id": null, "x": null, "y": null, "space": null, "note": "no such button"})),
        answer(json!({"result": true, "reason": "the check box shows checked"})),
        answer(json!({"result": false, "reason": "no dialog is open"})),
        {"text": "The title is gtk3-widget-factory."},
        answer(json!({"found": true, "text": "gtk3-widget-factory"})),
    ]);
    let fake = Fake::start("ask", script);
    // describe
    let (code, v) = ask(env, &fake, "openai", &["--describe"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["question"], "describe");
    assert_eq!(
        v["data"]["text"],
        "A widget gallery with buttons and check boxes."
    );
    // locate by the tree: the element the id names.
    let (code, v) = ask(env, &fake, "anthropic", &["--locate", "the check box"]);
    assert_eq!(code, 0, "{v}");
    let e = &v["data"]["element"];
    assert_eq!(
        (e["role"].as_str(), e["name"].as_str()),
        (Some("chk"), Some("checkbutton")),
        "{v}"
    );
    assert!(
        e["id"].as_u64().unwrap() > 0 && e["bounds"].is_array(),
        "{v}"
    );
    // An id the tree does not have is refused, not passed on.
    let (code, v) = ask(env, &fake, "anthropic", &["--locate", "a ghost"]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (1, Some("ELEMENT_NOT_FOUND")),
        "{v}"
    );
    // A point: mapped through the screenshot to the middle of the window, and marked a point.
    let (code, v) = ask(env, &fake, "openai", &["--locate", "the middle"]);
    assert_eq!(code, 0, "{v}");
    let p = &v["data"]["point"];
    assert!(v["data"]["element"].is_null(), "{v}");
    let b: Vec<i64> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect();
    let (x, y) = (p["x"].as_i64().unwrap(), p["y"].as_i64().unwrap());
    assert!(
        (x - (b[0] + b[2] / 2)).abs() <= 2 && (y - (b[1] + b[3] / 2)).abs() <= 2,
        "{p} in {shown}"
    );
    // Not found: a "no".
    let (code, v) = ask(env, &fake, "openai", &["--locate", "a purple elephant"]);
    assert_eq!((code, &v["data"]["found"]), (1, &json!(false)), "{v}");
    // check: the exit status is the answer.
    let (code, v) = ask(
        env,
        &fake,
        "openai-responses",
        &["--check", "checkbutton is checked"],
    );
    assert_eq!((code, &v["data"]["result"]), (0, &json!(true)), "{v}");
    let (code, v) = ask(env, &fake, "anthropic", &["--check", "a dialog is open"]);
    assert_eq!((code, &v["data"]["result"]), (1, &json!(false)), "{v}");
    // extract: after one reply in words, a reminder, then the answer.
    let (code, v) = ask(env, &fake, "openai", &["--extract", "the window title"]);
    assert_eq!(
        (code, v["data"]["text"].as_str()),
        (0, Some("gtk3-widget-factory")),
        "{v}"
    );
    // Every request carried the tree and at most one screenshot, and the tool to answer with.
    let requests = fake.requests();
    assert_eq!(requests.len(), 9);
    for r in &requests {
        assert!(images(r) <= 1, "{} images", images(r));
        let body = r["body"].to_string();
        assert!(
            body.contains("checkbutton") && body.contains("answer"),
            "{body:.300}"
        );
    }
    assert!(requests.iter().any(|r| images(r) == 1));
    // Asking acted on nothing.
    assert_eq!(state(env), before);
    // Bad questions are refused before any model is asked.
    let (code, v) = ask(env, &fake, "openai", &["--check", "  "]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (2, Some("INVALID_ARGS")),
        "{v}"
    );
    let (code, v) = ask(env, &fake, "openai", &["--check", "x", "--describe"]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (2, Some("INVALID_ARGS")),
        "{v}"
    );
    assert_eq!(fake.requests().len(), 9);
}
