//! `--format csv`: read and list as RFC 4180 tables, parsed back with Python's `csv` module
//! and compared with the JSON of the same window.

use super::read::{flatten, read};
use super::{Env, Test};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

pub const TESTS: &[(&str, Test)] = &[
    (
        "tables::read_csv_has_the_ids_and_names_of_the_json",
        read_csv_matches_json,
    ),
    ("tables::list_csv_has_every_window", list_csv),
    ("tables::csv_is_only_for_tables", csv_only_for_tables),
];

/// The rows of a CSV text as Python's csv module reads them (dicts by header).
fn parse(csv: &str) -> Vec<Value> {
    let mut py = Command::new("python3")
        .args([
            "-c",
            "import csv, json, sys\nprint(json.dumps(list(csv.DictReader(sys.stdin, strict=True))))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    py.stdin.take().unwrap().write_all(csv.as_bytes()).unwrap();
    let out = py.wait_with_output().unwrap();
    assert!(out.status.success(), "csv module refused:\n{csv}");
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn read_csv_matches_json(env: &Env) {
    // The page has a password field with a value: the table says `(hidden)` instead.
    for target in [
        vec!["--app", "gtk3-widget-factory"],
        vec!["--app", "chromium", "-i"],
    ] {
        let mut cmd = vec!["read"];
        cmd.extend(&target);
        cmd.extend(["--format", "csv"]);
        let run = env.desk.cli(&cmd);
        assert_eq!(run.code, 0, "{}", run.stdout);
        assert!(run.stdout.contains("\r\n"), "RFC 4180 lines end in CRLF");
        assert!(!run.stdout.contains("hunter2-secret"), "{}", run.stdout);
        let rows = parse(&run.stdout);
        let json = read(env, &target);
        let elements = flatten(&json["elements"]);
        // The window first, then one row per element, with the JSON's ids and names.
        assert_eq!(rows[0]["role"], "window", "{:?}", rows[0]);
        assert_eq!(rows[0]["id"], "0");
        assert_eq!(rows[0]["name"], json["window"]["title"], "{:?}", rows[0]);
        let rows = &rows[1..];
        assert_eq!(rows.len(), elements.len(), "{}", run.stdout);
        let mut parent_of = std::collections::HashMap::new();
        fn parents(list: &Value, parent: u64, out: &mut std::collections::HashMap<u64, u64>) {
            for e in list.as_array().into_iter().flatten() {
                let id = e["i"].as_u64().unwrap();
                out.insert(id, parent);
                parents(&e["c"], id, out);
            }
        }
        parents(&json["elements"], 0, &mut parent_of);
        for (row, e) in rows.iter().zip(&elements) {
            assert_eq!(row["id"], e["i"].to_string(), "{row:?} vs {e}");
            assert_eq!(row["role"], e["r"], "{row:?} vs {e}");
            assert_eq!(row["name"], e["t"].as_str().unwrap_or(""), "{row:?} vs {e}");
            let value = e["v"].as_str().unwrap_or("");
            if e["r"] == "pwd" {
                assert_eq!(row["value"], "(hidden)", "{row:?}");
            } else {
                assert_eq!(row["value"], value, "{row:?} vs {e}");
            }
            let parent = parent_of[&e["i"].as_u64().unwrap()];
            let want = if parent == 0 {
                String::new()
            } else {
                parent.to_string()
            };
            assert_eq!(row["parent"], want, "{row:?}");
            if let Some(b) = e["b"].as_array() {
                let got: Vec<String> = ["x", "y", "w", "h"]
                    .iter()
                    .map(|k| row[*k].as_str().unwrap().to_string())
                    .collect();
                let want: Vec<String> = b.iter().map(|v| v.to_string()).collect();
                assert_eq!(got, want, "{row:?}");
            }
            if e["k"] == true {
                assert!(
                    row["states"].as_str().unwrap().contains("checked"),
                    "{row:?}"
                );
            }
        }
    }
    // A cut read says so in its last row.
    let run = env.desk.cli(&[
        "read",
        "--app",
        "gtk3-widget-factory",
        "--max-elements",
        "5",
        "--format",
        "csv",
    ]);
    let rows = parse(&run.stdout);
    assert_eq!(rows.len(), 1 + 5 + 1, "{}", run.stdout);
    let last = rows.last().unwrap();
    assert_eq!(last["role"], "truncated", "{last:?}");
    assert!(
        last["name"]
            .as_str()
            .unwrap()
            .contains("more elements not shown"),
        "{last:?}"
    );
}

fn list_csv(env: &Env) {
    let run = env.desk.cli(&["list", "--format", "csv"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let rows = parse(&run.stdout);
    let json = env.desk.cli(&["list"]).data();
    for w in json["windows"].as_array().unwrap() {
        let row = rows
            .iter()
            .find(|r| w["id"].as_u64().map(|i| i.to_string()).as_deref() == r["id"].as_str())
            .unwrap_or_else(|| panic!("{w} not in\n{}", run.stdout));
        assert_eq!(row["title"], w["title"], "{row:?}");
        assert_eq!(row["app"], w["app"], "{row:?}");
        assert_eq!(row["pid"], w["pid"].to_string(), "{row:?}");
    }
    let apps = parse(&env.desk.cli(&["list", "--apps", "--format", "csv"]).stdout);
    assert!(
        apps.iter().any(|a| a["name"] == "gtk3-widget-factory"
            && a["windows"].as_str().unwrap().parse::<u32>().unwrap() >= 1),
        "{apps:?}"
    );
}

fn csv_only_for_tables(env: &Env) {
    for args in [
        vec!["click", "--id", "1", "--format", "csv"],
        vec!["doctor", "--format", "csv"],
    ] {
        let run = env.desk.cli(&args);
        assert_eq!(run.error_code(), "INVALID_ARGS", "{args:?}: {}", run.stdout);
    }
}
