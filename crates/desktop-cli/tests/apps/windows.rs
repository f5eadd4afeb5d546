//! Desktop operations: `window`, `displays`, `close-app`, on sandboxes of the tests' own —
//! one with a window manager (openbox) and two displays, one bare — witnessed by the X
//! server's own tools (xwininfo, xprop) and by libatspi, never by our answers alone.

use crate::agent::{call, done, finish, spawn_agent_on, Fake};
use crate::{Env, Test, BIN};
use desktop_testkit::{wait_until, Desk};
use serde_json::Value;
use std::time::Duration;

pub const TESTS: &[(&str, Test)] = &[
    (
        "windows::operations_under_a_window_manager_on_two_displays",
        with_wm,
    ),
    ("windows::closing_asks_the_app_and_loses_nothing", closing),
    ("windows::bare_x_moves_and_closes_but_names_the_wm", bare),
    ("windows::menu_paths_on_gtk3_qt5_and_chromium", menus),
];

const FORM: &str = "form_gtk.py";

/// The X window id `list` gives the app's window.
fn window_id(desk: &Desk, app: &str) -> u64 {
    let data = desk.cli(&["list", "--app", app]).data();
    data["windows"][0]["id"]
        .as_u64()
        .unwrap_or_else(|| panic!("no window of {app}: {data}"))
}

/// What `xwininfo -id` says: absolute upper-left corner, size, map state.
fn xwininfo(desk: &Desk, id: u64) -> (i64, i64, i64, i64, String) {
    let out = desk.run_with_env("xwininfo", &["-id", &id.to_string()], None, false);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let field = |name: &str| -> String {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .unwrap_or_else(|| panic!("xwininfo lacks {name}: {text}"))
            .trim()
            .to_string()
    };
    let num = |name: &str| field(name).parse::<i64>().unwrap();
    (
        num("Absolute upper-left X:"),
        num("Absolute upper-left Y:"),
        num("Width:"),
        num("Height:"),
        field("Map State:"),
    )
}

/// The window's `_NET_WM_STATE` atoms as xprop prints them.
fn net_state(desk: &Desk, id: u64) -> String {
    let out = desk.run_with_env(
        "xprop",
        &["-id", &id.to_string(), "_NET_WM_STATE"],
        None,
        false,
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn ok(desk: &Desk, args: &[&str]) -> Value {
    let run = desk.cli(args);
    assert_eq!(run.code, 0, "{args:?}: {}", run.json());
    run.data()
}

fn with_wm(_: &Env) {
    let mut desk = Desk::start_with(BIN, &["--wm", "--outputs", "2", "--size", "800x600"]);
    let pid = desk.python_app(FORM);
    let id = window_id(&desk, FORM);
    let ids = id.to_string();
    let w = ["--window-id", ids.as_str()];

    // Two displays side by side, named, the first primary.
    let displays = ok(&desk, &["displays"])["displays"].clone();
    let summary: Vec<(String, Value, bool)> = displays
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_string(),
                d["bounds"].clone(),
                d["primary"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "VIRTUAL-1".into(),
                serde_json::json!([0, 0, 800, 600]),
                true
            ),
            (
                "VIRTUAL-2".into(),
                serde_json::json!([800, 0, 800, 600]),
                false
            ),
        ]
    );

    // Move and resize, back to back: the X server puts the window where we said.
    let moved = ok(&desk, &[&["window", "move", "60", "40"][..], &w].concat());
    assert_eq!(moved["effect"], "confirmed", "{moved}");
    assert_eq!(moved["window"]["bounds"][0], 60, "{moved}");
    let (x, y, _, _, _) = xwininfo(&desk, id);
    assert_eq!((x, y), (60, 40));
    ok(
        &desk,
        &[&["window", "resize", "500", "420"][..], &w].concat(),
    );
    let (x, y, width, height, _) = xwininfo(&desk, id);
    assert_eq!((x, y, width, height), (60, 40, 500, 420));

    // Minimize: the window manager hides it; list still shows it, minimized; restore.
    ok(&desk, &[&["window", "minimize"][..], &w].concat());
    assert!(net_state(&desk, id).contains("_NET_WM_STATE_HIDDEN"));
    assert_eq!(xwininfo(&desk, id).4, "IsUnMapped");
    let listed = ok(&desk, &["list", "--app", FORM]);
    assert_eq!(listed["windows"][0]["state"], "minimized", "{listed}");
    // Already minimized: nothing asked, and said so.
    let again = ok(&desk, &[&["window", "minimize"][..], &w].concat());
    assert_eq!(again["unchanged"], true, "{again}");
    ok(&desk, &[&["window", "restore"][..], &w].concat());
    assert!(!net_state(&desk, id).contains("HIDDEN"));
    assert_eq!(xwininfo(&desk, id).4, "IsViewable");

    // Maximize fills the display it is on; full screen; restore gives the old box back.
    let max = ok(&desk, &[&["window", "maximize"][..], &w].concat());
    assert_eq!(max["window"]["state"], "maximized", "{max}");
    let state = net_state(&desk, id);
    assert!(
        state.contains("MAXIMIZED_VERT") && state.contains("MAXIMIZED_HORZ"),
        "{state}"
    );
    let (mx, _, mw, _, _) = xwininfo(&desk, id);
    assert!(
        mx >= 0 && mx + mw <= 800 && mw > 700,
        "maximized on the first display: {mx} {mw}"
    );
    ok(&desk, &[&["window", "fullscreen"][..], &w].concat());
    assert!(net_state(&desk, id).contains("_NET_WM_STATE_FULLSCREEN"));
    let (fx, fy, fw, fh, _) = xwininfo(&desk, id);
    assert_eq!(
        (fx, fy, fw, fh),
        (0, 0, 800, 600),
        "full screen on the first display"
    );
    ok(&desk, &[&["window", "restore"][..], &w].concat());
    // Openbox puts a restored window back near, not always at, where it was (its own
    // bookkeeping of the frame): the size is exact.
    let (x, y, width, height, _) = xwininfo(&desk, id);
    assert_eq!((width, height), (500, 420), "restored");
    assert!(
        (x - 60).abs() <= 30 && (y - 40).abs() <= 30,
        "restored near 60,40: {x},{y}"
    );

    // Onto the second display: list says so, and clicks land there, by id and by point.
    ok(&desk, &[&["window", "move", "900", "100"][..], &w].concat());
    let listed = ok(&desk, &["list", "--app", FORM]);
    assert_eq!(listed["windows"][0]["display"], "VIRTUAL-2", "{listed}");
    let read = ok(&desk, &[&["read", "--text", "Increment"][..], &w].concat());
    let button = read["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["t"] == "Increment")
        .unwrap_or_else(|| panic!("no Increment: {read}"))
        .clone();
    let b: Vec<i64> = button["b"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert!(b[0] >= 900, "the button is on the second display: {b:?}");
    let bid = button["i"].as_u64().unwrap().to_string();
    ok(&desk, &[&["click", "--id", bid.as_str()][..], &w].concat());
    let (cx, cy) = ((b[0] + b[2] / 2).to_string(), (b[1] + b[3] / 2).to_string());
    let click = ok(&desk, &["click", "--x", &cx, "--y", &cy]);
    assert_eq!(click["route"], "input", "{click}");
    let mut fields = desk.fields();
    let seen = fields.read("GTK Form");
    assert!(
        seen.get("Count 2").is_some(),
        "both clicks counted (libatspi): {seen}"
    );
    drop(fields);

    // A screenshot of the second display shows the window's pixels there.
    let shot = ok(
        &desk,
        &["screenshot", "--region", "800,0,800,600", "--scale", "1"],
    );
    assert_eq!(shot["width"], 800, "{shot}");

    // The agent's window tool: a risky step, declined at the prompt (nothing happens),
    // then allowed by --confirm never (maximized, seen by xprop); the scripted model's
    // requests pass the providers' validation.
    let window_call = |op: &str| {
        call(
            "window",
            serde_json::json!({"op": op, "x": null, "y": null, "width": null, "height": null}),
        )
    };
    let fake = Fake::start(
        "window-declined",
        serde_json::json!([{"calls": [window_call("minimize")]}, done(true, "asked")]),
    );
    let child = spawn_agent_on(
        &desk,
        &fake,
        "openai",
        "Minimize the form",
        &["--app", FORM],
        &[],
    );
    let out = finish(child, "n\n");
    assert!(out.json.to_string().contains("declined"), "{}", out.json);
    assert!(!net_state(&desk, id).contains("_NET_WM_STATE_HIDDEN"));
    drop(fake);
    let fake = Fake::start(
        "window-allowed",
        serde_json::json!([{"calls": [window_call("maximize")]}, done(true, "maximized")]),
    );
    let child = spawn_agent_on(
        &desk,
        &fake,
        "anthropic",
        "Maximize the form",
        &["--app", FORM, "--confirm", "never"],
        &[],
    );
    let out = finish(child, "");
    assert_eq!(out.data()["success"], true, "{}", out.stderr);
    let state = net_state(&desk, id);
    assert!(state.contains("_NET_WM_STATE_MAXIMIZED_VERT"), "{state}");
    drop(fake);

    // close-app: asked, closed, and the process ends by itself.
    let closed = ok(&desk, &["close-app", FORM]);
    assert_eq!(
        closed["closed"],
        serde_json::json!(["GTK Form"]),
        "{closed}"
    );
    wait_until(Duration::from_secs(5), "the form to exit", || {
        (!desk.alive(pid)).then_some(())
    });
}

fn closing(_: &Env) {
    let mut desk = Desk::start_with(BIN, &["--wm", "--size", "1024x700"]);
    let pid = desk.featherpad();
    ok(&desk, &["type", "unsaved words", "--app", "featherpad"]);
    desk.wait_for_text("featherpad", "unsaved words", 5);

    // Closing the edited window: FeatherPad asks, and the question is reported, unanswered.
    let run = desk.cli(&["window", "close", "--app", "featherpad"]);
    assert_eq!(run.error_code(), "ACTION_FAILED", "{}", run.json());
    let message = run.json()["error"]["message"].to_string();
    assert!(message.contains("asks before closing"), "{message}");
    let listed = ok(&desk, &["list", "--app", "featherpad"]);
    let windows = listed["windows"].as_array().unwrap();
    assert_eq!(windows.len(), 2, "the editor and its question: {listed}");
    let dialog = windows
        .iter()
        .find(|w| w["modal"] == true)
        .unwrap_or_else(|| panic!("no modal dialog: {listed}"));
    let dialog_id = dialog["id"].as_u64().unwrap().to_string();
    let question = ok(&desk, &["read", "--window-id", &dialog_id]).to_string();
    assert!(question.contains("Discard changes"), "{question}");
    let mut fields = desk.fields();
    // The edited text is still in the editor.
    let editor = fields.read("Untitled").to_string();
    assert!(editor.contains("unsaved words"), "{editor}");
    drop(fields);

    // close-app sees the dialog and closes nothing; --force ends the process.
    let run = desk.cli(&["close-app", "featherpad"]);
    assert_eq!(run.error_code(), "ACTION_FAILED", "{}", run.json());
    assert!(run.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("shows a dialog"));
    assert!(desk.alive(pid));
    let forced = ok(
        &desk,
        &["close-app", "featherpad", "--force", "--grace", "1"],
    );
    assert_eq!(forced["ended"], serde_json::json!([pid]), "{forced}");
    wait_until(Duration::from_secs(5), "featherpad to end", || {
        (!desk.alive(pid)).then_some(())
    });

    // Names that tie to no app, or to several, touch nothing.
    let run = desk.cli(&["close-app", "no-such-app"]);
    assert_eq!(run.error_code(), "APP_NOT_FOUND", "{}", run.json());
}

fn bare(_: &Env) {
    let mut desk = Desk::start_with(BIN, &["--size", "1024x700"]);
    let pid = desk.python_app(FORM);
    let id = window_id(&desk, FORM);
    let ids = id.to_string();
    let w = ["--window-id", ids.as_str()];
    // No window manager: the window itself is moved and resized.
    ok(&desk, &[&["window", "move", "30", "20"][..], &w].concat());
    ok(
        &desk,
        &[&["window", "resize", "480", "400"][..], &w].concat(),
    );
    let (x, y, width, height, _) = xwininfo(&desk, id);
    assert_eq!((x, y, width, height), (30, 20, 480, 400));
    // The states need one, and the error says so; the window is as it was.
    for op in ["minimize", "maximize", "fullscreen"] {
        let run = desk.cli(&[&["window", op][..], &w].concat());
        assert_eq!(run.error_code(), "PLATFORM_NOT_SUPPORTED", "{}", run.json());
        let message = run.json()["error"]["message"].to_string();
        assert!(message.contains("window manager"), "{message}");
    }
    assert_eq!(xwininfo(&desk, id).4, "IsViewable");
    // Out-of-range geometry is refused before anything is asked.
    let run = desk.cli(&[&["window", "resize", "0", "10"][..], &w].concat());
    assert_eq!(run.error_code(), "INVALID_ARGS", "{}", run.json());
    // Close through ICCCM's WM_DELETE_WINDOW: GTK closes the window and the app quits.
    let closed = ok(&desk, &[&["window", "close"][..], &w].concat());
    assert_eq!(closed["closed"], true, "{closed}");
    wait_until(Duration::from_secs(5), "the form to exit", || {
        (!desk.alive(pid)).then_some(())
    });
}

fn menus(env: &Env) {
    let mut desk = Desk::start_with(BIN, &["--size", "1024x700"]);
    desk.python_app("menus_gtk.py");
    desk.featherpad();
    let mut fields = desk.fields();

    // GTK3: three levels, then one item after another with no pause; libatspi sees each.
    let r = ok(
        &desk,
        &[
            "menu",
            "--path",
            "File > Recent > Notes.txt",
            "--app",
            "menus_gtk",
        ],
    );
    assert_eq!(
        r["path"],
        serde_json::json!(["File", "Recent", "Notes.txt"]),
        "{r}"
    );
    assert!(fields.read("GTK Menus").get("Chosen: Notes.txt").is_some());
    ok(
        &desk,
        &["menu", "--path", "edit > preferences", "--app", "menus_gtk"],
    );
    assert!(fields
        .read("GTK Menus")
        .get("Chosen: Preferences…")
        .is_some());
    // A missing level lists what the level has, and the menus opened are closed again.
    let run = desk.cli(&[
        "menu",
        "--path",
        "File > Recent > Missing",
        "--app",
        "menus_gtk",
    ]);
    assert_eq!(run.error_code(), "ELEMENT_NOT_FOUND", "{}", run.json());
    let message = run.json()["error"]["message"].to_string();
    assert!(
        message.contains("Report.txt") && message.contains("Notes.txt"),
        "{message}"
    );
    let shown = desk.cli(&["read", "--app", "menus_gtk"]).data().to_string();
    assert!(
        !shown.contains("Report.txt"),
        "the menus were closed: {shown}"
    );
    // A disabled leaf is refused.
    let run = desk.cli(&["menu", "--path", "Edit > Paste", "--app", "menus_gtk"]);
    assert_eq!(run.error_code(), "NOT_INTERACTABLE", "{}", run.json());

    // Qt 5: a leaf that opens a modal dialog inside its action answers at once.
    let t = std::time::Instant::now();
    let r = ok(
        &desk,
        &["menu", "--path", "File > Save As", "--app", "featherpad"],
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(r["element"]["t"], "Save As", "{r}");
    let listed = ok(&desk, &["list", "--app", "featherpad"]);
    assert!(
        listed["windows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["modal"] == true),
        "the Save As dialog: {listed}"
    );
    drop(fields);

    // Chromium's app menu (a popup window of its own) on the shared desktop: a missing
    // level lists the app menu's items, which closes again.
    let run = env.desk.cli(&[
        "menu",
        "--path",
        "Chromium > No such item",
        "--app",
        "chromium",
    ]);
    assert_eq!(run.error_code(), "ELEMENT_NOT_FOUND", "{}", run.json());
    let message = run.json()["error"]["message"].to_string();
    assert!(
        message.contains("History") && message.contains("Settings"),
        "{message}"
    );
    wait_until(Duration::from_secs(3), "the app menu to close", || {
        let listed = env.desk.cli(&["list", "--app", "chromium"]).data();
        let popups = listed["windows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["title"] == "")
            .count();
        (popups == 0).then_some(())
    });
}
