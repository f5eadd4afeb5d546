//! LibreOffice and a huge table: a sum typed into Calc and read back by cell address,
//! twenty reads that leave the spreadsheet answering and its memory flat, a paragraph
//! typed into Writer and a word made bold by its toolbar button, and a 10,000-row GTK3
//! table read by its rows in view.

use crate::{all, below, find, id_of, rss_kb, Env, Test, CALC, TABLE, WRITER};
use desktop_testkit::wait_until;
use std::time::Duration;

pub const TESTS: &[(&str, Test)] = &[
    ("calc::sum_typed_by_address_and_read_back", sum),
    ("calc::twenty_reads_leave_it_answering", reads_stay_cheap),
    (
        "calc::read_from_its_first_moment_it_keeps_running",
        read_while_starting,
    ),
    ("writer::paragraph_typed_and_a_word_made_bold", writer),
    ("table::ten_thousand_rows_read_by_rows_in_view", big_table),
];

/// Ids of cells by address, from a text search (which, unlike a plain read, keeps blank
/// cells).
fn cells(env: &Env, column: &str, names: &[&str]) -> Vec<String> {
    let data = env.ok(&[
        "read", "--window", CALC, "--roles", "cell", "--text", column,
    ]);
    names.iter().map(|n| id_of(&data, "cell", n)).collect()
}

fn sum(env: &Env) {
    let ids = cells(env, "A", &["A1", "A2", "A3", "A4"]);
    for (id, value) in ids.iter().zip(["5", "7", "3"]) {
        let r = env.ok(&["type", "--id", id, value]);
        assert_eq!(r["effect"], "confirmed", "{r}");
        assert_eq!(r["post_state"]["v"], value, "{r}");
    }
    let r = env.ok(&["set-value", "--id", &ids[3], "--value", "=SUM(A1:A3)"]);
    assert_eq!(r["post_state"]["v"], "15", "{r}");
    for (cell, want) in [("A1", "5"), ("A2", "7"), ("A3", "3"), ("A4", "15")] {
        assert_eq!(env.fields().cell(CALC, cell), want, "{cell} for libatspi");
    }
    // An agent asks for "the sum in A4" and gets it.
    let found = env.ok(&["read", "--window", CALC, "--text", "A4"]);
    assert_eq!(find(&found, "cell", "A4")["v"], "15", "{found}");
    // Adding to a cell's content, then a cell made active by its address and typed into
    // where the focus is, committed with Enter.
    let a1 = cells(env, "A", &["A1"]);
    let r = env.ok(&["type", "--id", &a1[0], "0"]);
    assert_eq!(r["post_state"]["v"], "50", "{r}");
    let r = env.ok(&["click", "--window", CALC, "--text", "B2", "--exact"]);
    assert_eq!(r["effect"], "confirmed", "{r}");
    let r = env.ok(&["type", "--window", CALC, "9\n"]);
    assert_eq!(r["element"]["t"], "B2", "{r}");
    assert_eq!(r["effect"], "confirmed", "{r}");
    assert_eq!(env.fields().cell(CALC, "B2"), "9");
    assert_eq!(env.fields().cell(CALC, "A4"), "60");
    // A plain read: the cells that hold something, the range in view, no blank cells.
    let data = env.ok(&["read", "--window", CALC, "-i"]);
    let table = all(&data)
        .into_iter()
        .find(|e| e["r"] == "table" && e["v"].as_str().is_some_and(|v| v.starts_with("A1:")))
        .unwrap_or_else(|| panic!("no sheet with its range in view: {data}"));
    assert!(table["more"].as_u64().unwrap() > 1_000_000, "{table}");
    let shown: Vec<String> = below(&table)
        .iter()
        .filter(|e| e["r"] == "cell")
        .map(|e| e["t"].as_str().unwrap().to_string())
        .collect();
    for cell in ["A1", "A2", "A3", "A4", "B2"] {
        assert!(shown.iter().any(|s| s == cell), "{cell} missing: {shown:?}");
    }
    assert!(shown.len() <= 8, "blank cells shown: {shown:?}");
}

fn reads_stay_cheap(env: &Env) {
    let pid = env.pid_of(CALC);
    let before = rss_kb(pid);
    for _ in 0..20 {
        let data = env.ok(&["read", "--window", CALC, "-i"]);
        assert!(data.get("incomplete").is_none(), "{data}");
    }
    // Finding the focused element walks the window too.
    env.ok(&["type", "--window", CALC, "1\n"]);
    let ms = env.fields().ping(CALC);
    assert!(ms < 1000.0, "Calc took {ms} ms to answer after the reads");
    let grew = rss_kb(pid).saturating_sub(before);
    assert!(grew < 50 * 1024, "Calc grew {grew} kB over 20 reads");
}

/// The process LibreOffice's launcher started (`soffice.bin`, its child), once it runs.
fn office_child(launcher: u32) -> Option<u32> {
    let parent = format!("PPid:\t{launcher}");
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let office = status.lines().next()?.contains("soffice");
        (office && status.lines().any(|l| l == parent)).then_some(pid)
    })
}

/// A Calc of its own read from the moment its process runs, again and again, until its
/// window has been read ten times: it is still running and answering (asking LibreOffice's
/// objects for every property at once — `Locale` among them — aborts 25.2 and 26.8 as
/// they start). A first start with a new profile restarts `soffice.bin` by design; the
/// launcher (`oosplash`) lives through it.
fn read_while_starting(env: &Env) {
    let profile = env.desk().temp_dir("calc-start");
    let profile = format!("-env:UserInstallation=file://{}", profile.display());
    let launcher =
        env.desk()
            .start_app(&["soffice", "--norestore", "--nologo", "--calc", &profile]);
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    let (mut tries, mut read, mut pid) = (0, 0, 0);
    while read < 10 {
        assert!(
            std::time::Instant::now() < deadline,
            "Calc's window was read {read} times in 90 s ({tries} reads)"
        );
        assert!(
            env.desk().alive(launcher),
            "LibreOffice ended while it was read (after {tries} reads)"
        );
        let Some(now) = office_child(launcher) else {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        };
        pid = now;
        let run = env.cli(&["read", "--pid", &pid.to_string(), "-i"]);
        tries += 1;
        if run.code == 0 && run.json()["data"]["count"].as_u64().unwrap_or(0) > 0 {
            read += 1;
        }
    }
    let title = env.ok(&["list", "--pid", &pid.to_string()])["windows"][0]["title"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(title.contains("Calc"), "{title}");
    let ms = env.fields().ping(&title);
    assert!(ms < 1000.0, "the new Calc took {ms} ms to answer");
    env.desk().stop_app(launcher);
}

fn writer(env: &Env) {
    env.desk().run_with_env(
        "soffice",
        &["--norestore", "--nologo", "--writer", &env.office_profile],
        None,
        true,
    );
    wait_until(Duration::from_secs(30), "a Writer window", || {
        let run = env.cli(&["read", "--window", WRITER, "-i"]);
        (run.code == 0).then_some(())
    });
    let data = env.ok(&["read", "--window", WRITER, "-i"]);
    // No placeholder values: LibreOffice gives its toolbar buttons the value "0".
    for e in all(&data) {
        let control = ["btn", "toggle", "sep", "chk"].contains(&e["r"].as_str().unwrap_or(""));
        assert!(
            !(control && e.get("v").is_some()),
            "a placeholder value: {e}"
        );
        let v = e["v"].as_str().unwrap_or("");
        assert!(!v.contains('\u{fffc}'), "an object placeholder: {e}");
    }
    let doc = all(&data)
        .into_iter()
        .find(|e| e["r"] == "txt" && e["f"] == true)
        .unwrap_or_else(|| panic!("no focused paragraph: {data}"));
    let text = "Agents write this paragraph";
    let r = env.ok(&["type", "--id", &doc["i"].to_string(), text]);
    assert_eq!(r["post_state"]["v"], text, "{r}");
    env.ok(&["press", "--window", WRITER, "ctrl+shift+Left"]);
    let r = env.ok(&[
        "click", "--window", WRITER, "--text", "Bold", "--role", "toggle",
    ]);
    assert_eq!(r["post_state"]["k"], true, "{r}");
    let mut fields = env.fields();
    let bold = fields.attrs(WRITER, "paragraph");
    assert!(
        bold["weight"].as_str().and_then(|w| w.parse::<u32>().ok()) >= Some(600),
        "{bold}"
    );
    let plain = fields.attrs(WRITER, "Agents");
    assert!(
        plain["weight"].is_null() || plain["weight"] == "400",
        "{plain}"
    );
}

fn big_table(env: &Env) {
    let pid = env.pid_of(TABLE);
    let before = rss_kb(pid);
    for _ in 0..20 {
        let data = env.ok(&["read", "--window", TABLE, "-i"]);
        let table = all(&data).into_iter().find(|e| e["r"] == "table").unwrap();
        assert!(table["more"].as_u64().unwrap() > 29_000, "{table}");
        let rows = below(&table).iter().filter(|e| e["r"] == "cell").count();
        assert!(
            (3..=150).contains(&rows),
            "{rows} cells of the rows in view: {table}"
        );
    }
    let data = env.ok(&["read", "--window", TABLE]);
    for name in ["Name", "Amount", "Kind", "Item 1", "Item 2"] {
        assert!(
            all(&data).iter().any(|e| e["t"] == name),
            "{name} not in view: {data}"
        );
    }
    assert!(!all(&data).iter().any(|e| e["t"] == "Item 900"), "{data}");
    let ms = env.fields().ping(TABLE);
    assert!(ms < 1000.0, "the table app took {ms} ms to answer");
    let grew = rss_kb(pid).saturating_sub(before);
    assert!(
        grew < 50 * 1024,
        "the table app grew {grew} kB over 20 reads"
    );
}
