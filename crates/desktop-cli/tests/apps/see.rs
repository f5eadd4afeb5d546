//! Screenshots, clipboard, wait and observe against the real apps.

use crate::activity::McpSession;
use crate::read::{flatten, read};
use crate::{Env, Test};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const TESTS: &[(&str, Test)] = &[
    ("see::screenshot_pixels_match_the_page", screenshot_pixels),
    ("see::screenshot_scale_region_and_errors", screenshot_sizes),
    (
        "see::warm_screenshots_show_each_change_at_any_size",
        warm_screenshots,
    ),
    ("see::annotated_boxes_sit_on_their_elements", annotated),
    ("see::clipboard_round_trip_with_xclip", clipboard),
    ("see::wait_for_text_and_gone", wait),
    ("see::observe_chromium_scripted_changes", observe_chromium),
    ("see::observe_gtk_toggle_and_quiet_ui", observe_gtk),
    (
        "see::observe_keeps_its_baseline_across_a_hung_app",
        observe_hung,
    ),
];

fn decode(b64: &str) -> image::RgbImage {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64");
    image::load_from_memory(&bytes).expect("an image").to_rgb8()
}

/// Screen position of the page's content area.
fn page_origin(env: &Env) -> (i64, i64) {
    let data = read(env, &["--app", "chromium", "--roles", "web"]);
    let web = &flatten(&data["elements"])[0];
    (web["b"][0].as_i64().unwrap(), web["b"][1].as_i64().unwrap())
}

fn screenshot_pixels(env: &Env) {
    env.desk.cli(&["focus", "--app", "chromium"]).data();
    let (ox, oy) = page_origin(env);
    // The fixture draws a 120x80 block of rgb(255,0,128) at (900,20) in the page.
    let region = format!("{},{},100,60", ox + 910, oy + 30);
    let data = env
        .desk
        .cli(&["screenshot", "--region", &region, "--scale", "1"])
        .data();
    assert_eq!(data["format"], "png");
    let img = decode(data["base64"].as_str().unwrap());
    assert_eq!(img.dimensions(), (100, 60));
    for (x, y) in [(0, 0), (50, 30), (99, 59)] {
        let p = img.get_pixel(x, y).0;
        assert!(
            p[0] > 245 && p[1] < 10 && (118..=138).contains(&p[2]),
            "pixel {x},{y} is {p:?}"
        );
    }
    // Just outside the block the page is white.
    let edge = format!("{},{},20,20", ox + 1030, oy + 30);
    let img = decode(
        env.desk
            .cli(&["screenshot", "--region", &edge, "--scale", "1"])
            .data()["base64"]
            .as_str()
            .unwrap(),
    );
    assert_eq!(img.get_pixel(10, 10).0, [255, 255, 255]);
}

/// A screenshot from the MCP server, decoded (PNG, so pixels compare exactly).
fn mcp_shot(mcp: &mut McpSession, args: Value) -> image::RgbImage {
    let r = mcp.call("screenshot", args);
    let content = &r["result"]["content"][0];
    assert_eq!(content["mimeType"], "image/png", "{r}");
    decode(content["data"].as_str().unwrap())
}

/// One MCP server's screenshots, the whole screen first and then smaller regions in its
/// kept memory: each shows the screen as it is at that moment and where it was asked.
fn warm_screenshots(env: &Env) {
    env.desk.cli(&["focus", "--app", "chromium"]).data();
    let (ox, oy) = page_origin(env);
    let check = flatten(&read(env, &["--app", "chromium"])["elements"])
        .into_iter()
        .find(|e| e["r"] == "chk" && e["t"] == "I agree")
        .expect("the I agree check box")
        .clone();
    let b: Vec<i64> = (0..4).map(|k| check["b"][k].as_i64().unwrap()).collect();
    let around = format!("{},{},{},{}", b[0] - 2, b[1] - 2, b[2] + 4, b[3] + 4);
    let mut mcp = McpSession::start(env);
    let whole = mcp_shot(
        &mut mcp,
        serde_json::json!({"format": "png", "scale": 1, "max_edge": 4000}),
    );
    assert!(whole.width() >= 1200, "{:?}", whole.dimensions());
    let region = |r: &str| serde_json::json!({"region": r, "format": "png", "scale": 1});
    let before = mcp_shot(&mut mcp, region(&around));
    assert_eq!(before.dimensions(), (b[2] as u32 + 4, b[3] as u32 + 4));
    // The magenta block, a different size at another place of the same memory.
    let block = mcp_shot(
        &mut mcp,
        region(&format!("{},{},100,60", ox + 910, oy + 30)),
    );
    assert_eq!(block.dimensions(), (100, 60));
    for (x, y) in [(0, 0), (50, 30), (99, 59)] {
        let p = block.get_pixel(x, y).0;
        assert!(p[0] > 245 && p[1] < 10, "block pixel {x},{y} is {p:?}");
    }
    // What a fresh process sees there at the same moment.
    let fresh = || {
        decode(
            env.desk
                .cli(&["screenshot", "--region", &around, "--scale", "1"])
                .data()["base64"]
                .as_str()
                .unwrap(),
        )
    };
    assert!(
        before == fresh(),
        "the server's first look differs from a fresh one"
    );
    // The click answers once the page's tree shows it; Chromium may paint the box over more
    // than one frame after that, so the server's shot and a fresh one taken a moment later
    // may differ while it does. Once the box holds still they must be equal.
    let still = |mcp: &mut McpSession| {
        (0..50).any(|_| {
            let (mine, theirs) = (mcp_shot(mcp, region(&around)), fresh());
            mine == theirs || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                false
            }
        })
    };
    let toggle = ["click", "--app", "chromium", "--text", "I agree"];
    env.desk.cli(&toggle).data();
    let ticked = mcp_shot(&mut mcp, region(&around));
    assert!(ticked != before, "the ticked box looks as it did unticked");
    assert!(still(&mut mcp), "the server shows the box as it was before");
    let ticked = mcp_shot(&mut mcp, region(&around));
    env.desk.cli(&toggle).data();
    let unticked = mcp_shot(&mut mcp, region(&around));
    assert!(unticked != ticked, "the box still looks ticked");
    assert!(still(&mut mcp), "the server shows the box as it was before");
}

fn screenshot_sizes(env: &Env) {
    let full = env.desk.cli(&["screenshot"]).data();
    assert_eq!(
        (
            full["width"].as_u64(),
            full["height"].as_u64(),
            full["scale"].as_f64()
        ),
        (Some(640), Some(400), Some(0.5)),
        "default scale 0.5"
    );
    assert_eq!(full["region"], serde_json::json!([0, 0, 1280, 800]));
    let jpg = env
        .desk
        .cli(&[
            "screenshot",
            "--format",
            "jpg",
            "--quality",
            "60",
            "--scale",
            "0.25",
        ])
        .data();
    let img = decode(jpg["base64"].as_str().unwrap());
    assert_eq!(img.dimensions(), (320, 200));
    let win = env
        .desk
        .cli(&["screenshot", "--app", "chromium", "--scale", "1"])
        .data();
    assert_eq!(win["region"], serde_json::json!([0, 0, 1200, 780]));
    // Clipped to the screen: a region hanging off the edge shrinks.
    let clipped = env
        .desk
        .cli(&["screenshot", "--region", "1200,700,200,200", "--scale", "1"])
        .data();
    assert_eq!(
        (clipped["width"].as_u64(), clipped["height"].as_u64()),
        (Some(80), Some(100))
    );
    // To a file, atomically; a bad path or option fails before anything is written.
    let dir = std::env::temp_dir().join(format!("desktop-cli-shot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("out.png");
    let saved = env
        .desk
        .cli(&["screenshot", "--output", path.to_str().unwrap()])
        .data();
    assert_eq!(saved["path"], path.to_str().unwrap());
    assert!(saved.get("base64").is_none());
    assert_eq!(image::open(&path).unwrap().width(), 640);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        env.desk
            .cli(&["screenshot", "--region", "5000,5000,10,10"])
            .error_code(),
        "OFF_SCREEN"
    );
    assert_eq!(
        env.desk.cli(&["screenshot", "--scale", "2"]).error_code(),
        "INVALID_ARGS"
    );
    assert_eq!(
        env.desk
            .cli(&["screenshot", "--scale", "0.05"])
            .error_code(),
        "INVALID_ARGS"
    );
    assert_eq!(
        env.desk
            .cli(&["screenshot", "--output", "/nonexistent-dir/x.png"])
            .error_code(),
        "INVALID_ARGS"
    );
    assert_eq!(
        env.desk
            .cli(&["screenshot", "--format", "text"])
            .error_code(),
        "INVALID_ARGS"
    );
}

fn annotated(env: &Env) {
    let shot = env
        .desk
        .cli(&[
            "screenshot",
            "--app",
            "gtk3-widget-factory",
            "--annotate",
            "--scale",
            "1",
        ])
        .data();
    let marks = shot["marks"].as_u64().unwrap();
    assert!(marks > 20, "{shot}");
    let img = decode(shot["base64"].as_str().unwrap());
    // The ids the marks carry are the ids of `read -i` (recorded for actions).
    let els = flatten(&read(env, &["--app", "gtk3-widget-factory", "-i"])["elements"]);
    let origin = (
        shot["origin"][0].as_i64().unwrap(),
        shot["origin"][1].as_i64().unwrap(),
    );
    let first = els
        .iter()
        .find(|e| e["b"][0].as_i64().unwrap() < 1270)
        .unwrap();
    let (x, y) = (
        first["b"][0].as_i64().unwrap() - origin.0,
        first["b"][1].as_i64().unwrap() - origin.1,
    );
    // The first mark is drawn in the palette's first colour on the element's top-left corner.
    assert_eq!(
        img.get_pixel(x as u32, y as u32 + 1).0,
        [230, 25, 75],
        "box corner of {first}"
    );
    let (w, h) = (
        first["b"][2].as_i64().unwrap(),
        first["b"][3].as_i64().unwrap(),
    );
    assert_eq!(
        img.get_pixel((x + w - 1) as u32, (y + h - 1) as u32).0,
        [230, 25, 75],
        "bottom-right corner"
    );
}

fn xclip(env: &Env, args: &[&str], stdin: Option<&str>) -> String {
    let out = env
        .desk
        .run_with_env("xclip", args, stdin, args.contains(&"-i"));
    assert!(
        out.status.success(),
        "xclip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn clipboard(env: &Env) {
    let text = "clip ✓ 中文 line\nsecond";
    env.desk.cli(&["clipboard", "set", text]).data();
    // desktop-cli has exited; another program still gets the text.
    assert_eq!(xclip(env, &["-selection", "clipboard", "-o"], None), text);
    assert_eq!(
        xclip(env, &["-selection", "clipboard", "-o"], None),
        text,
        "a read loses nothing"
    );
    let got = env.desk.cli(&["clipboard", "get"]).data();
    assert_eq!(got["text"], text);
    // The other direction: xclip owns it, we read it.
    xclip(env, &["-selection", "clipboard", "-i"], Some("from xclip"));
    // xclip takes the clipboard in a process of its own, a moment after it returns.
    desktop_testkit::wait_until(Duration::from_secs(3), "xclip's text", || {
        (env.desk.cli(&["clipboard", "get"]).data()["text"] == "from xclip").then_some(())
    });
    env.desk.cli(&["clipboard", "clear"]).data();
    assert_eq!(env.desk.cli(&["clipboard", "get"]).data()["empty"], true);
    // Piped in.
    let out = env
        .desk
        .run_with_env(crate::BIN, &["clipboard", "set"], Some("piped"), false);
    assert!(out.status.success());
    assert_eq!(
        xclip(env, &["-selection", "clipboard", "-o"], None),
        "piped"
    );
}

fn wait(env: &Env) {
    let r = env
        .desk
        .cli(&[
            "wait",
            "--app",
            "chromium",
            "--for-text",
            "Open Dialog",
            "--timeout",
            "3000",
        ])
        .data();
    assert_eq!(r["matched"], true);
    let id = r["elements"][0]["i"].to_string();
    // The ids wait returns work with actions.
    env.desk
        .cli(&["click", "--id", &id, "--app", "chromium"])
        .data();
    let r = env
        .desk
        .cli(&[
            "wait",
            "--app",
            "chromium",
            "--for-text",
            "Are you sure",
            "--timeout",
            "3000",
        ])
        .data();
    assert_eq!(r["elements"][0]["t"], "Are you sure?");
    env.desk
        .cli(&["click", "--text", "Close Dialog", "--app", "chromium"])
        .data();
    let r = env
        .desk
        .cli(&[
            "wait",
            "--app",
            "chromium",
            "--for-text",
            "Are you sure",
            "--gone",
            "--timeout",
            "3000",
        ])
        .data();
    assert_eq!(r["gone"], true);
    let t = Instant::now();
    let run = env.desk.cli(&[
        "wait",
        "--app",
        "chromium",
        "--for-text",
        "never there",
        "--timeout",
        "700",
    ]);
    assert_eq!(run.error_code(), "TIMEOUT");
    assert!(t.elapsed() < Duration::from_secs(3));
    assert!(
        run.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("elements in Chromium"),
        "says what it saw: {}",
        run.stdout
    );
    assert_eq!(
        env.desk.cli(&["wait", "--app", "chromium"]).error_code(),
        "INVALID_ARGS"
    );
}

/// An observe process and the events it prints.
struct Watch {
    child: std::process::Child,
    lines: mpsc::Receiver<Value>,
}

impl Watch {
    fn start(env: &Env, args: &[&str]) -> Watch {
        let mut all = vec!["observe"];
        all.extend_from_slice(args);
        let mut child = env.desk.spawn_cli(&all);
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let w = Watch { child, lines: rx };
        let first = w
            .lines
            .recv_timeout(Duration::from_secs(10))
            .expect("a snapshot");
        assert_eq!(first["type"], "snapshot", "{first}");
        assert!(first["count"].as_u64().unwrap() > 0);
        w
    }

    /// Events until none has come for `quiet`.
    fn settle(&self, quiet: Duration) -> Vec<Value> {
        let mut out = Vec::new();
        while let Ok(v) = self.lines.recv_timeout(quiet) {
            out.push(v);
        }
        out
    }

    /// Ctrl+C: the last line is `done`.
    fn stop(mut self) -> Value {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).unwrap();
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::INT);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "observe exits 0 on Ctrl+C");
        // Up to the reader's end of the output (it may still be passing on the last line
        // when the process has exited), bounded.
        let mut rest = Vec::new();
        while let Ok(v) = self.lines.recv_timeout(Duration::from_secs(5)) {
            rest.push(v);
        }
        rest.last().cloned().unwrap_or(Value::Null)
    }
}

fn kinds(events: &[Value]) -> Vec<String> {
    let mut k: Vec<String> = events
        .iter()
        .map(|e| match e["type"].as_str().unwrap() {
            "added" => format!(
                "added {} {}",
                e["el"]["r"].as_str().unwrap(),
                e["el"]["t"].as_str().unwrap_or("")
            ),
            "removed" => format!(
                "removed {} {}",
                e["r"].as_str().unwrap(),
                e["t"].as_str().unwrap_or("")
            ),
            "changed" => format!(
                "changed {}",
                e["changes"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            other => other.to_string(),
        })
        .collect();
    k.sort();
    k
}

fn observe_chromium(env: &Env) {
    // Keep the pointer off the page: a hovered tab changes its name as the tooltip updates.
    env.desk.cli(&["hover", "--x", "1250", "--y", "790"]).data();
    let w = Watch::start(
        env,
        &[
            "--app",
            "chromium",
            "--visible-only=false",
            "--ignore-bounds",
            "--ignore-focus",
        ],
    );
    let quiet = Duration::from_millis(1200);
    assert!(w.settle(quiet).is_empty(), "a stable page says nothing");
    env.desk
        .cli(&["click", "--text", "Insert Above", "--app", "chromium"])
        .data();
    let ev = w.settle(quiet);
    assert_eq!(
        ev.len(),
        1,
        "one element inserted at the top is one event: {ev:?}"
    );
    assert_eq!(ev[0]["type"], "added");
    assert!(
        ev[0]["el"]["t"].as_str().unwrap().starts_with("Inserted"),
        "{ev:?}"
    );
    // A new element is asked for its box, though boxes are ignored and those of elements
    // seen before are not asked again: where it is, as a fresh read has it.
    let name = ev[0]["el"]["t"].as_str().unwrap();
    let fresh = read(
        env,
        &["--app", "chromium", "--text", name, "--visible-only=false"],
    );
    let at = flatten(&fresh["elements"])
        .into_iter()
        .find(|e| e["t"] == name)
        .map(|e| e["b"].clone());
    assert_eq!(Some(ev[0]["el"]["b"].clone()), at, "{ev:?}");
    env.desk
        .cli(&["click", "--text", "Remove Temp", "--app", "chromium"])
        .data();
    assert_eq!(kinds(&w.settle(quiet)), ["removed txt Temporary text"]);
    env.desk
        .cli(&["click", "--text", "Set Field 1", "--app", "chromium"])
        .data();
    let ev = w.settle(quiet);
    assert_eq!(kinds(&ev), ["changed v"], "{ev:?}");
    assert_eq!(
        ev[0]["changes"]["v"],
        serde_json::json!(["value 1", "set by page"])
    );
    env.desk
        .cli(&["click", "--text", "Open Dialog", "--app", "chromium"])
        .data();
    let ev = w.settle(quiet);
    assert_eq!(
        kinds(&ev),
        [
            "added btn Close Dialog",
            "added dialog ",
            "added txt Are you sure?"
        ],
        "{ev:?}"
    );
    env.desk
        .cli(&["click", "--text", "Close Dialog", "--app", "chromium"])
        .data();
    let ev = w.settle(quiet);
    assert_eq!(
        kinds(&ev),
        [
            "removed btn Close Dialog",
            "removed dialog ",
            "removed txt Are you sure?"
        ],
        "{ev:?}"
    );
    let done = w.stop();
    assert_eq!(done["type"], "done", "{done}");
    assert_eq!(done["events"], 9);
}

fn observe_gtk(env: &Env) {
    let all = flatten(&read(env, &["--app", "gtk3-widget-factory", "--roles", "chk"])["elements"]);
    let c = all
        .iter()
        .find(|e| e.get("e").is_none() && e.get("k").is_none())
        .unwrap()
        .clone();
    let w = Watch::start(
        env,
        &[
            "--app",
            "gtk3-widget-factory",
            "--ignore-focus",
            "--roles",
            "chk,radio,toggle",
        ],
    );
    assert!(
        w.settle(Duration::from_secs(3)).is_empty(),
        "several quiet seconds, no event"
    );
    env.desk
        .cli(&[
            "toggle",
            "--text",
            "checkbutton",
            "--exact",
            "--app",
            "gtk3-widget-factory",
        ])
        .error_code();
    let ev = w.settle(Duration::from_millis(1000));
    assert!(
        ev.is_empty(),
        "the refused toggle (several matches) changed nothing: {ev:?}"
    );
    env.desk
        .cli(&["read", "--app", "gtk3-widget-factory", "--roles", "chk"])
        .data();
    env.desk
        .cli(&[
            "toggle",
            "--id",
            &c["i"].to_string(),
            "--app",
            "gtk3-widget-factory",
        ])
        .data();
    let ev = w.settle(Duration::from_millis(1000));
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0]["changes"]["k"], serde_json::json!([false, true]));
    // observe has recorded its own ids for the window since: read again.
    env.desk
        .cli(&["read", "--app", "gtk3-widget-factory", "--roles", "chk"])
        .data();
    env.desk
        .cli(&[
            "toggle",
            "--id",
            &c["i"].to_string(),
            "--app",
            "gtk3-widget-factory",
        ])
        .data();
    assert_eq!(w.settle(Duration::from_millis(1000)).len(), 1);
    assert_eq!(w.stop()["events"], 2);
}

fn observe_hung(env: &Env) {
    let w = Watch::start(
        env,
        &[
            "--app",
            "gtk3-demo",
            "--interval",
            "200",
            "--call-timeout",
            "300",
        ],
    );
    let pid = rustix::process::Pid::from_raw(env.victim_pid as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::STOP).unwrap();
    let during = w.settle(Duration::from_millis(1500));
    rustix::process::kill_process(pid, rustix::process::Signal::CONT).unwrap();
    assert!(
        !during.is_empty(),
        "a read failed while the app was stopped"
    );
    assert!(
        during.iter().all(|e| e["type"] == "error"),
        "only errors, no invented changes: {during:?}"
    );
    assert_eq!(during[0]["code"], "APP_UNRESPONSIVE");
    let after = w.settle(Duration::from_millis(1500));
    assert!(
        after
            .iter()
            .all(|e| e["type"] != "removed" && e["type"] != "added"),
        "the baseline survived: {after:?}"
    );
    assert_eq!(w.stop()["type"], "done");
}
