//! The agent skill (skills/desktop-cli/SKILL.md) says what each command it shows does: every
//! command of its `sh` blocks runs, in order, in one shell, on a desktop of its own (a
//! private runtime folder, so only the skill's sandbox is seen), and each answer is checked
//! against what the skill claims. A command added to the skill without a check fails here.

use crate::{Env, Runtime, Test, BIN};
use desktop_testkit::repo_root;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

pub const TESTS: &[(&str, Test)] = &[("skill::every_command_does_what_it_says", skill)];

/// The skill's text.
fn skill_text() -> String {
    std::fs::read_to_string(repo_root().join("skills/desktop-cli/SKILL.md")).unwrap()
}

/// The lines of its fenced blocks of one language, block by block.
fn blocks(text: &str, lang: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, l) if l == format!("```{lang}") => current = Some(Vec::new()),
            (Some(_), "```") => out.push(current.take().unwrap()),
            (Some(b), l) if !l.is_empty() => b.push(line.to_string()),
            _ => {}
        }
    }
    out
}

/// One command's outcome.
struct Ran {
    command: String,
    code: i32,
    stdout: String,
}

impl Ran {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {}", self.command, self.stdout))
    }

    fn data(&self) -> Value {
        let j = self.json();
        assert_eq!(j["ok"], true, "{}: {j}", self.command);
        assert_eq!(self.code, 0, "{}", self.command);
        j["data"].clone()
    }
}

/// Runs the commands in one bash (so `eval` carries over), each answer fenced by markers.
fn run_all(commands: &[String], runtime: &Path) -> Vec<Ran> {
    let mut script = String::from("set -u\n");
    for (i, c) in commands.iter().enumerate() {
        script.push_str(&format!("echo '@@@ {i}'\n{c}\necho \"@@@ rc $?\"\n"));
    }
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    let out = Command::new("bash")
        .args(["--norc", "-c", &script])
        .env_clear()
        .env("PATH", path)
        .env("HOME", std::env::var("HOME").unwrap_or_default())
        .env("XDG_RUNTIME_DIR", runtime)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut ran = Vec::new();
    for (i, c) in commands.iter().enumerate() {
        let start = format!("@@@ {i}\n");
        let body = text
            .split(&start)
            .nth(1)
            .unwrap_or_else(|| panic!("no output for {c}: {text}"));
        let (stdout, rest) = body.split_once("@@@ rc ").unwrap();
        let code = rest.lines().next().unwrap().trim().parse().unwrap();
        ran.push(Ran {
            command: c.clone(),
            code,
            stdout: stdout.to_string(),
        });
    }
    ran
}

/// Whether an output line is the one the skill shows, where `[...]` stands for any text.
fn shows(line: &str, shown: &str) -> bool {
    match shown.split_once("[...]") {
        Some((head, tail)) => {
            line.len() >= head.len() + tail.len() && line.starts_with(head) && line.ends_with(tail)
        }
        None => line == shown,
    }
}

fn skill(_env: &Env) {
    let text = skill_text();
    let front = text.split("---").nth(1).expect("front matter");
    assert!(front.contains("name: desktop-cli") && front.contains("description: "));
    let commands: Vec<String> = blocks(&text, "sh").into_iter().flatten().collect();
    assert!(commands.len() >= 15, "{commands:?}");
    let runtime = Runtime::new("skill");
    let ran = run_all(&commands, &runtime.0);
    // The excerpt the skill shows of the read (its first line names this run's window id
    // and pid, so it is left out).
    let excerpt: Vec<String> = blocks(&text, "text")
        .remove(0)
        .into_iter()
        .skip(1)
        .collect();
    let mut checked = 0;
    for r in &ran {
        let c = r.command.as_str();
        let post = |key: &str| r.data()["post_state"][key].clone();
        let app = "gtk3-widget-factory";
        match c {
            _ if c.starts_with("desktop-cli sandbox up") => {
                assert!(r.data()["display"].as_str().is_some())
            }
            _ if c.starts_with("eval ") => assert_eq!(r.code, 0),
            _ if c.starts_with("desktop-cli launch") => assert_eq!(r.data()["app"], app),
            "desktop-cli list" => assert!(
                r.data()["windows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|w| w["app"] == app && w["id"].is_u64() && w["bounds"].is_array()),
                "{}",
                r.stdout
            ),
            _ if c.starts_with("desktop-cli read -i --format text") => {
                for line in &excerpt {
                    assert!(
                        r.stdout.lines().any(|l| shows(l, line)),
                        "the read shows no line {line:?}:\n{}",
                        r.stdout
                    );
                }
            }
            _ if c.starts_with("desktop-cli click --id 29") => {
                assert_eq!(r.data()["effect"], "confirmed");
                assert_eq!(post("k"), true);
            }
            _ if c.starts_with("desktop-cli toggle --id 29") => assert_eq!(post("k"), false),
            _ if c.starts_with("desktop-cli type --id 10 \"hello\"") => {
                assert_eq!(post("v"), "hello")
            }
            _ if c.starts_with("desktop-cli type --id 10 --replace") => {
                assert_eq!(post("v"), "héllo 中文")
            }
            _ if c.starts_with("desktop-cli set-value --id 17") => assert_eq!(post("v"), "75"),
            _ if c.starts_with("desktop-cli set-value --id 14") => assert_eq!(post("v"), "Right"),
            _ if c.starts_with("desktop-cli press ctrl+a")
                || c.starts_with("desktop-cli scroll") =>
            {
                assert_eq!(r.data()["effect"], "unverifiable")
            }
            _ if c.starts_with("desktop-cli click --text \"Page 2\"") => {
                assert_eq!(post("k"), true)
            }
            _ if c.starts_with("desktop-cli click --text") => {
                assert_eq!(r.json()["ok"], true, "{c}: {}", r.stdout)
            }
            _ if c.starts_with("desktop-cli wait") && c.contains("--gone") => {
                assert_eq!(r.data()["gone"], true)
            }
            _ if c.starts_with("desktop-cli wait") => {
                let d = r.data();
                assert_eq!(d["matched"], true);
                assert_eq!(d["elements"][0]["t"], "Do It", "{d}");
            }
            _ if c.starts_with("desktop-cli screenshot") => {
                let d = r.data();
                assert_eq!(d["format"], "png");
                assert!(d["marks"].as_u64().unwrap() > 0);
                let path = d["path"].as_str().unwrap().to_string();
                assert!(image::open(&path).is_ok(), "{path}");
                let _ = std::fs::remove_file(path);
            }
            _ if c.starts_with("desktop-cli click --id 999") => {
                assert_eq!(r.code, 1);
                assert_eq!(r.json()["error"]["code"], "ELEMENT_NOT_FOUND");
            }
            "desktop-cli sandbox down" => assert!(r.data()["stopped"].is_array()),
            _ => panic!("the skill shows {c:?} and this test does not check it"),
        }
        checked += 1;
    }
    assert_eq!(checked, commands.len());
    // Every error code the tool has is explained.
    let codes = Command::new(BIN)
        .args(["schema", "error"])
        .output()
        .unwrap();
    let schema: Value = serde_json::from_slice(&codes.stdout).unwrap();
    for c in schema["data"]["properties"]["code"]["oneOf"]
        .as_array()
        .unwrap()
    {
        let code = c["const"].as_str().unwrap();
        assert!(
            text.contains(&format!("| `{code}` |")),
            "the skill skips {code}"
        );
    }
}
