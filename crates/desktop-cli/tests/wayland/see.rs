//! Seeing on Wayland: windows placed as sway places them, reads that find what X11 finds,
//! screenshots that match grim's, the clipboard, observe, doctor.

use crate::{elements, Env, BIN, GTK, WEB};
use desktop_testkit::{wait_until, Desk};
use std::io::{BufRead, BufReader};
use std::time::Duration;

/// `list` gives both windows sway's boxes, one of them focused, on the one output.
pub fn list_geometry(env: &Env) {
    let sway = env.sway_windows();
    let list = env.ok(&["list"]);
    let windows = list["windows"].as_array().unwrap();
    for title in [GTK, WEB] {
        let ours = windows
            .iter()
            .find(|w| w["title"].as_str().unwrap().contains(title))
            .unwrap_or_else(|| panic!("{title} not listed: {list}"));
        let theirs = sway
            .iter()
            .find(|(t, _, _)| t.contains(title))
            .unwrap_or_else(|| panic!("sway has no {title}: {sway:?}"));
        let b: Vec<i64> = ours["bounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert_eq!(
            b,
            theirs.1.to_vec(),
            "{title}: ours {ours}, sway's {theirs:?}"
        );
        assert_eq!(
            ours["focused"] == true,
            theirs.2,
            "{title}: focus as sway says"
        );
        assert_eq!(ours["display"], "HEADLESS-1", "{ours}");
        assert!(ours["id"].is_u64(), "the compositor's window id: {ours}");
    }
    let displays = env.ok(&["displays"]);
    assert_eq!(displays["displays"][0]["name"], "HEADLESS-1", "{displays}");
    assert_eq!(
        displays["displays"][0]["bounds"],
        serde_json::json!([0, 0, 1280, 800]),
        "{displays}"
    );
}

/// The same GTK form read in an X11 sandbox and here finds the same controls, and every
/// box lies inside its window as sway places it.
pub fn read_like_x11(env: &Env) {
    let names = |data: &serde_json::Value| {
        let mut v: Vec<(String, String)> = elements(data)
            .into_iter()
            .map(|(r, t, _, _)| (r, t))
            .collect();
        v.sort();
        v
    };
    let here = env.ok(&["read", "--window", GTK, "-i"]);
    let mut x11 = Desk::start(BIN);
    x11.python_app("form_gtk.py");
    let there = x11.cli(&["read", "--window", GTK, "-i"]).data();
    drop(x11);
    assert_eq!(names(&here), names(&there), "same controls on both");
    assert!(names(&here).len() >= 6, "{here}");
    let sway = env.sway_windows();
    for (window, data) in [(GTK, here), (WEB, env.ok(&["read", "--window", WEB, "-i"]))] {
        let w = sway.iter().find(|(t, _, _)| t.contains(window)).unwrap().1;
        for (r, t, _, b) in elements(&data) {
            if b.is_empty() || b[2] == 0 {
                continue;
            }
            assert!(
                b[0] >= w[0] && b[1] >= w[1] && b[0] + b[2] <= w[0] + w[2] + 1,
                "{r} {t:?} at {b:?} lies outside {window} at {w:?}"
            );
        }
    }
}

/// A screenshot of a region is the pixels grim (wlr-screencopy, another client) gets.
pub fn screenshot_like_grim(env: &Env) {
    let dir = env.desk().temp_dir("wl-shots");
    let ours = dir.join("ours.png");
    let theirs = dir.join("grim.png");
    let data = env.ok(&[
        "screenshot",
        "--region",
        "0,0,400,300",
        "--scale",
        "1",
        "--output",
        ours.to_str().unwrap(),
    ]);
    assert_eq!(
        (data["width"].as_u64(), data["height"].as_u64()),
        (Some(400), Some(300))
    );
    let out = env.desk().run_with_env(
        "grim",
        &["-g", "0,0 400x300", "-t", "png", theirs.to_str().unwrap()],
        None,
        false,
    );
    assert!(
        out.status.success(),
        "grim: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a = image::open(&ours).unwrap().to_rgb8();
    let b = image::open(&theirs).unwrap().to_rgb8();
    assert_eq!(a.dimensions(), b.dimensions());
    let differ = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > 2))
        .count();
    assert!(differ == 0, "{differ} pixels differ from grim's");
    // Not a blank frame: the window's text and controls differ from its background.
    let bg = *a.get_pixel(0, a.height() - 1);
    let drawn = a.pixels().filter(|p| **p != bg).count();
    assert!(
        drawn > 2_000,
        "only {drawn} pixels differ from the background"
    );
}

/// Text set by us is pasted by wl-paste after our process ended; text wl-copy set is
/// read by us; clear empties it.
pub fn clipboard(env: &Env) {
    env.ok(&["clipboard", "set", "from desktop-cli ✓"]);
    let out = env
        .desk()
        .run_with_env("wl-paste", &["--no-newline"], None, false);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "from desktop-cli ✓");
    env.desk()
        .run_with_env("wl-copy", &["from wl-copy"], None, true);
    wait_until(
        Duration::from_secs(3),
        "wl-copy to take the clipboard",
        || (env.ok(&["clipboard", "get"])["text"] == "from wl-copy").then_some(()),
    );
    env.ok(&["clipboard", "clear"]);
    let got = env.ok(&["clipboard", "get"]);
    assert!(got["text"].is_null() || got["text"] == "", "{got}");
}

/// observe sees the tiles the page inserts when Redraw is clicked.
pub fn observe_insert(env: &Env) {
    let mut child = env.desk().spawn_cli(&[
        "observe",
        "--window",
        WEB,
        "--visible-only=false",
        "--ignore-bounds",
        "--ignore-focus",
    ]);
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("a snapshot");
    assert!(first.contains("\"snapshot\""), "{first}");
    env.ok(&["click", "--text", "Redraw", "--window", WEB]);
    let mut added = Vec::new();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(3)) {
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["type"] == "added" {
            added.push(v["el"]["t"].as_str().unwrap_or("").to_string());
        }
        if added.iter().any(|t| t.contains("Tile")) {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        added.iter().any(|t| t.contains("Tile")),
        "no inserted tile reported: {added:?}"
    );
}

/// doctor says it is a Wayland session on sway, with input, capture and clipboard paths.
pub fn doctor(env: &Env) {
    let data = env.ok(&["doctor"]);
    let checks = data["checks"].as_array().unwrap();
    let check = |name: &str| {
        checks
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no {name} check: {data}"))
            .clone()
    };
    let session = check("session");
    assert_eq!(session["ok"], true, "{session}");
    assert!(
        session["detail"]
            .as_str()
            .unwrap()
            .contains("Wayland (sway)"),
        "{session}"
    );
    // `qt`: the sandbox tells Qt to use Wayland, and its plugin is installed.
    for name in ["input", "capture", "clipboard", "qt"] {
        assert_eq!(check(name)["ok"], true, "{data}");
    }
    assert_eq!(data["healthy"], true, "{data}");
}

/// gtk3-widget-factory cannot shrink to its tile (1415 px at least) and leaves its frame
/// unnamed (a header bar): it is still listed with its tree, and its boxes are where sway
/// draws it (cut down from its corner, not centred): a pointer click at a check box's
/// read box toggles that check box. Last of the suite: its tile narrows the others'.
pub fn wider_than_its_tile(env: &Env) {
    let pid = env.desk().gtk3_widget_factory();
    let factory = "gtk3-widget-factory";
    let sway = env.sway_windows();
    let theirs = sway
        .iter()
        .find(|(t, _, _)| t == factory)
        .unwrap_or_else(|| panic!("sway has no {factory}: {sway:?}"));
    let list = env.ok(&["list", "--app", factory]);
    let ours = &list["windows"][0];
    assert_ne!(ours["a11y"], false, "listed without its tree: {list}");
    assert_eq!(ours["bounds"], serde_json::json!(theirs.1), "{list}");
    let boxes = |data: &serde_json::Value| -> Vec<(bool, Vec<i64>)> {
        fn walk(es: &serde_json::Value, out: &mut Vec<(bool, Vec<i64>)>) {
            for e in es.as_array().into_iter().flatten() {
                // Enabled, and not one of the factory's mixed ones (they stay mixed).
                let plain = e["e"] != false && e["k"] != "mixed";
                if e["r"] == "chk" && e["t"] == "checkbutton" && plain {
                    let b = e["b"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_i64().unwrap());
                    out.push((e["k"] == true, b.collect()));
                }
                walk(&e["c"], out);
            }
        }
        let mut out = Vec::new();
        walk(&data["elements"], &mut out);
        out
    };
    let read = env.ok(&["read", "--app", factory, "-i"]);
    let before = boxes(&read);
    let [x, _, w, _] = theirs.1;
    let (checked, b) = before
        .iter()
        .find(|(_, b)| b[0] >= x && b[0] + b[2] <= x + w)
        .unwrap_or_else(|| {
            panic!(
                "no check box inside the window's tile {:?}: {read}",
                theirs.1
            )
        })
        .clone();
    let (cx, cy) = ((b[0] + b[2] / 2).to_string(), (b[1] + b[3] / 2).to_string());
    let r = env.ok(&["click", "--x", &cx, "--y", &cy]);
    assert_eq!(r["route"], "input", "{r}");
    let after = boxes(&env.ok(&["read", "--app", factory, "-i"]));
    let now = after
        .iter()
        .find(|(_, a)| *a == b)
        .unwrap_or_else(|| panic!("the check box at {b:?} is gone: {after:?}"));
    assert_ne!(
        now.0, checked,
        "a click at {cx},{cy} (the center of a read box) did not toggle that check box"
    );
    env.desk().stop_app(pid);
}
