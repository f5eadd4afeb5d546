//! Reads with different filters, then actions on ids from each of them in a shuffled order,
//! with an element inserted at the top half way: each action hits the element its read
//! named and no other (libatspi's check states before and after), whichever process, face
//! or filter gave the id.

use crate::{check_ids, flipped, mcp, shuffle, Env, Test, BIN, KITS};
use serde_json::{json, Value};

pub const TESTS: &[(&str, Test)] = &[
    ("ids::gtk3_ids_from_every_read_hit_their_element", |e| {
        mixed(e, KITS[0], 3)
    }),
    ("ids::gtk4_ids_from_every_read_hit_their_element", |e| {
        mixed(e, KITS[1], 4)
    }),
    ("ids::qt5_ids_from_every_read_hit_their_element", |e| {
        mixed(e, KITS[2], 5)
    }),
    ("ids::qt6_ids_from_every_read_hit_their_element", |e| {
        mixed(e, KITS[3], 6)
    }),
    ("ids::chromium_ids_from_every_read_hit_their_element", |e| {
        mixed(e, KITS[4], 7)
    }),
    ("ids::mcp_and_the_command_line_share_ids", mcp_and_cli),
];

/// The window's box as `list` gives it.
fn window_box(env: &Env, window: &str) -> [i64; 4] {
    let data = env.ok(&["list", "--app", window]);
    let b = &data["windows"][0]["bounds"];
    [0, 1, 2, 3].map(|i| b[i].as_i64().unwrap())
}

/// The reads an agent mixes: whole, interactive, by role, by text, the page, hidden
/// elements too, one part of the screen, compact, and fitted to a budget.
fn reads(env: &Env, window: &str) -> Vec<Vec<String>> {
    let [x, y, w, h] = window_box(env, window);
    let left = format!("{x},{y},{},{h}", w / 2);
    let own = |args: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["read", "--window", window].map(String::from).to_vec();
        v.extend(args.iter().map(|s| s.to_string()));
        v
    };
    vec![
        own(&[]),
        own(&["-i"]),
        own(&["--roles", "chk"]),
        own(&["--text", "Opt"]),
        own(&["--page"]),
        own(&["--visible-only=false"]),
        own(&["--bbox", &left]),
        own(&["-i", "--no-bounds", "--compact"]),
        own(&[
            "--roles",
            "chk,btn",
            "--page",
            "--max-tokens",
            "300",
            "--format",
            "json",
        ]),
    ]
}

/// Runs `args` through the keeper or by a process of its own, alternately.
fn run(env: &Env, args: &[&str], turn: usize) -> desktop_testkit::Run {
    if turn.is_multiple_of(2) {
        env.cli(args)
    } else {
        env.direct(args)
    }
}

fn mixed(env: &Env, window: &str, seed: u64) {
    // Every read, and which id each showed for every check box.
    let mut seen: Vec<(usize, u64, String)> = Vec::new();
    for (k, args) in reads(env, window).iter().enumerate() {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(env, &args, k);
        assert_eq!(out.code, 0, "{args:?}: {}{}", out.stdout, out.stderr);
        for (id, name) in check_ids(&out.data()) {
            seen.push((k, id, name));
        }
    }
    // The same element has the same id in every read that showed it, and no two
    // elements share one.
    for (_, id, name) in &seen {
        for (k, other, other_name) in &seen {
            assert_eq!(
                name == other_name,
                id == other,
                "{window}: {name:?} is {id}, read {k} showed {other_name:?} as {other}"
            );
        }
    }
    let reads_seen: std::collections::BTreeSet<usize> = seen.iter().map(|s| s.0).collect();
    assert!(
        reads_seen.len() >= 8,
        "{window}: check boxes in reads {reads_seen:?}"
    );
    let mut actions = seen.clone();
    shuffle(&mut actions, seed);
    actions.truncate(14);
    for (turn, (k, id, name)) in actions.iter().enumerate() {
        if turn == 6 {
            // The app inserts a check box above the others: earlier ids still hit theirs.
            let ins = env.cli(&[
                "click", "--window", window, "--text", "Insert", "--role", "btn",
            ]);
            assert_eq!(ins.code, 0, "{}", ins.stdout);
            let shown = env.cli(&[
                "wait",
                "--window",
                window,
                "--for-text",
                "Opt New",
                "--timeout",
                "5000",
            ]);
            assert_eq!(shown.code, 0, "{}", shown.stdout);
        }
        let id = id.to_string();
        let verb = if turn % 3 == 1 { "toggle" } else { "click" };
        let args: Vec<&str> = if turn % 3 == 2 {
            vec![verb, "--id", &id, "--window", window]
        } else {
            vec![verb, "--id", &id]
        };
        let before = env.checks(window);
        let out = run(env, &args, turn + 1);
        let after = env.checks(window);
        assert_eq!(
            out.code, 0,
            "{window}: {args:?} (id of {name:?} from read {k}): {}",
            out.stdout
        );
        assert_eq!(
            flipped(&before, &after),
            std::slice::from_ref(name),
            "{window}: {args:?} (id of {name:?} from read {k}) answered {}",
            out.stdout
        );
    }
}

/// MCP's reads and the command line's give the same ids, and each acts on the other's.
fn mcp_and_cli(env: &Env) {
    for window in [KITS[1], KITS[4]] {
        let mut client = mcp::Client::start(BIN, env.desk().env());
        let by_mcp = check_ids(&client.call("read", json!({"window": window})));
        let by_cli = check_ids(&env.ok(&["read", "--window", window, "--roles", "chk"]));
        let budgeted = check_ids(&client.call(
            "read",
            json!({"window": window, "roles": "chk", "max_tokens": 300}),
        ));
        assert!(!by_mcp.is_empty() && !budgeted.is_empty());
        for (id, name) in by_mcp.iter().chain(&budgeted) {
            assert!(
                by_cli.contains(&(*id, name.clone())),
                "{window}: MCP gave {name:?} id {id}; the command line: {by_cli:?}"
            );
        }
        // MCP acts on the command line's ids, the command line on MCP's.
        for (n, (id, name)) in by_cli
            .iter()
            .take(3)
            .chain(by_mcp.iter().skip(3).take(3))
            .enumerate()
        {
            let before = env.checks(window);
            let answer: Value = if n < 3 {
                client.call("toggle", json!({"window": window, "id": id}))
            } else {
                env.ok(&["toggle", "--id", &id.to_string()])
            };
            let after = env.checks(window);
            assert_eq!(
                flipped(&before, &after),
                std::slice::from_ref(name),
                "{window}: id {id} ({name:?}) answered {answer}"
            );
        }
        let unknown = client.try_call("toggle", json!({"window": window, "id": 99999}));
        assert_eq!(unknown.unwrap_err(), "ELEMENT_NOT_FOUND");
    }
}
