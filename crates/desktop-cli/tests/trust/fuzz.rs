//! Argument fuzz: a corpus of bad values and bytes for every command and flag. Whatever
//! comes in, the binary answers with one envelope on stdout and exit status 0, 1 or 2 —
//! never a panic (101), never a known code's impostor.

use crate::{Env, Test};
use serde_json::Value;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

pub const TESTS: &[(&str, Test)] = &[("fuzz::bad_values_and_bytes_always_get_an_envelope", fuzz)];

/// Values that are wrong for most flags; where one happens to be valid the command must
/// still answer properly. None of them names a real program, file or element.
fn corpus() -> Vec<OsString> {
    let mut v: Vec<OsString> = [
        "",
        "-1",
        "0",
        "99999999999999999999",
        "1e309",
        "nan",
        "a,b,c",
        "1,2",
        "\u{202e}txt.exe",
        "ｘｙｚ",
        "%s%n",
        "ctrl++",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    v.push(OsString::from_vec(vec![0xff, 0xfe]));
    v.push(OsString::from_vec(b"ab\xc3".to_vec()));
    v
}

/// Bytes only: for flags whose valid values would act (text to type, a program to launch).
fn bytes() -> Vec<OsString> {
    vec![
        OsString::from_vec(vec![0xff, 0xfe]),
        OsString::from_vec(b"ab\xc3".to_vec()),
    ]
}

/// (arguments before the value, flag, arguments after it, whether valid values may act).
fn table() -> Vec<(Vec<&'static str>, &'static str, Vec<&'static str>, bool)> {
    let mut t = Vec::new();
    let plain = |cmd: &'static str, flags: &[&'static str]| {
        flags
            .iter()
            .map(move |f| (vec![cmd], *f, vec![], false))
            .collect::<Vec<_>>()
    };
    t.extend(plain("list", &["--app", "--pid"]));
    t.extend(plain(
        "read",
        &[
            "--app",
            "--window",
            "--window-id",
            "--pid",
            "--depth",
            "--roles",
            "--visible-only",
            "--bbox",
            "--text",
            "--max-elements",
        ],
    ));
    t.extend(plain("click", &["--id", "--text", "--button"]));
    t.push((vec!["click"], "--x", vec!["--y", "-5"], false));
    t.push((vec!["click", "--text", "zzz-none"], "--role", vec![], false));
    t.extend(plain("hover", &["--id"]));
    t.extend(plain("type", &["--id", "--key"]));
    t.push((
        vec!["type", "--text", "x"],
        "--delay",
        vec!["--id", "0"],
        false,
    ));
    t.push((vec!["type"], "--text", vec![], true));
    t.push((vec!["type"], "", vec![], true));
    t.push((vec!["press"], "", vec![], false));
    t.extend(plain("focus", &["--id", "--window-id"]));
    t.extend(plain("scroll", &["--direction", "--amount", "--id"]));
    t.extend(plain("drag", &["--from-id", "--to-id"]));
    t.push((vec!["drag", "--from-x", "1"], "--from-y", vec![], false));
    t.push((vec!["set-value", "--value", "1"], "--id", vec![], false));
    t.push((vec!["set-value", "--id", "0"], "--value", vec![], true));
    t.extend(plain("toggle", &["--id", "--text"]));
    t.push((vec!["action", "--name", "x"], "--id", vec![], false));
    t.push((vec!["action", "--id", "0"], "--name", vec![], false));
    t.push((
        vec!["wait", "--for-text", "zzz-none"],
        "--timeout",
        vec![],
        false,
    ));
    t.push((
        vec!["wait", "--for-text", "zzz-none", "--timeout", "1"],
        "--interval",
        vec![],
        false,
    ));
    t.push((vec!["wait", "--timeout", "1"], "--for-id", vec![], false));
    t.push((vec!["wait", "--timeout", "1"], "--for-role", vec![], false));
    t.extend(plain(
        "screenshot",
        &[
            "--id",
            "--region",
            "--quality",
            "--scale",
            "--max-edge",
            "--format",
            "--window-id",
        ],
    ));
    t.push((
        vec!["screenshot", "--region", "0,0,4,4"],
        "--output",
        vec![],
        true,
    ));
    t.push((
        vec!["observe", "--duration", "1"],
        "--interval",
        vec![],
        false,
    ));
    t.push((
        vec!["observe", "--interval", "100"],
        "--roles",
        vec!["--duration", "1"],
        false,
    ));
    t.push((vec!["launch", "--wait", "1"], "", vec![], true));
    t.push((vec!["launch"], "--wait", vec!["true"], false));
    t.push((vec!["clipboard", "set"], "", vec![], true));
    t.push((vec!["schema"], "", vec![], false));
    t.push((vec!["list", "--call-timeout"], "", vec![], false));
    t.push((vec!["list", "--format"], "", vec![], false));
    t.push((vec!["agent", "--dry-run"], "", vec![], true));
    t.push((
        vec!["agent", "goal", "--dry-run"],
        "--max-steps",
        vec![],
        false,
    ));
    t.push((
        vec!["agent", "goal", "--dry-run"],
        "--secret",
        vec![],
        false,
    ));
    t.push((
        vec!["agent", "goal", "--dry-run", "--secret", "pw=env:HOME"],
        "--secret-field",
        vec![],
        false,
    ));
    t.push((vec!["mcp"], "--http", vec![], false));
    t
}

fn fuzz(env: &Env) {
    let codes: Vec<String> = env.ok(&["schema", "error"])["properties"]["code"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["const"].as_str().unwrap().to_string())
        .collect();
    let mut runs = 0;
    for (before, flag, after, acts) in table() {
        let values = if acts { bytes() } else { corpus() };
        for value in values {
            let mut args: Vec<OsString> = before.iter().map(OsString::from).collect();
            if !flag.is_empty() {
                args.push(flag.into());
            }
            args.push(value);
            args.extend(after.iter().map(OsString::from));
            let run = env.desk().cli_os(&args);
            runs += 1;
            let what = format!("{args:?}");
            assert!(
                matches!(run.code, 0..=2),
                "{what}: exit {} {}",
                run.code,
                run.stderr
            );
            assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
            let j: Value = serde_json::from_str(run.stdout.trim_end()).unwrap_or_else(|e| {
                panic!("{what}: stdout is not one envelope ({e}): {:?}", run.stdout)
            });
            assert_eq!(j["version"], "1", "{what}: {j}");
            match j["ok"].as_bool() {
                Some(true) => assert_eq!(run.code, 0, "{what}"),
                Some(false) => {
                    let code = j["error"]["code"].as_str().unwrap_or("");
                    assert!(
                        codes.iter().any(|c| c == code),
                        "{what}: unknown code {code}"
                    );
                    assert!(
                        j["error"]["suggestion"]
                            .as_str()
                            .is_some_and(|s| !s.is_empty()),
                        "{what}: no suggestion: {j}"
                    );
                    let usage = code == "INVALID_ARGS" || code == "INVALID_KEY";
                    assert_eq!(run.code, if usage { 2 } else { 1 }, "{what}: {j}");
                }
                None => panic!("{what}: no ok field: {j}"),
            }
        }
    }
    assert!(runs > 500, "only {runs} runs");
}
