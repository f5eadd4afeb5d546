//! Acting on Wayland, back to back with no pauses, every effect read back with libatspi:
//! the virtual pointer landing on a read box, both forms filled, any script typed, a
//! stopped app beside the one acted on.

use crate::{elements, id, Env, GTK, WEB};
use rustix::process::{kill_process, Pid, Signal};
use std::time::{Duration, Instant};

/// A click at the center of the box `read` gave lands on that element: the boxes are in
/// screen coordinates (the check box of each form toggles, seen by libatspi).
pub fn click_at_box(env: &Env) {
    for window in [GTK, WEB] {
        let data = env.ok(&["read", "--window", window, "-i"]);
        let (_, _, _, b) = elements(&data)
            .into_iter()
            .find(|(r, t, _, _)| r == "chk" && t == "Accept terms")
            .unwrap_or_else(|| panic!("no check box in {window}: {data}"));
        let before = env.desk().fields().read(window)["Accept terms"]["checked"] == true;
        let (x, y) = ((b[0] + b[2] / 2).to_string(), (b[1] + b[3] / 2).to_string());
        let r = env.ok(&["click", "--x", &x, "--y", &y]);
        assert_eq!(r["route"], "input", "{r}");
        let after = env.desk().fields().read(window)["Accept terms"]["checked"] == true;
        assert_ne!(
            before, after,
            "{window}: a click at {x},{y} did not toggle it"
        );
    }
}

/// The GTK form filled the way an agent does it: fields, the check box, the counter.
pub fn gtk_form(env: &Env) {
    let name = id(env, GTK, "input", "Full name");
    let email = id(env, GTK, "input", "Email");
    let pw = id(env, GTK, "pwd", "Password");
    let count = |f: &serde_json::Value| {
        f.as_object()
            .unwrap()
            .keys()
            .find(|k| k.starts_with("Count "))
            .cloned()
            .unwrap_or_else(|| panic!("no counter: {f}"))
    };
    let before = count(&env.desk().fields().read(GTK));
    let r = env.ok(&["type", "--id", &name, "--replace", "Ada Lovelace"]);
    assert_eq!(r["effect"], "confirmed", "{r}");
    env.ok(&["type", "--id", &email, "--replace", "ada@example.org"]);
    let r = env.ok(&["type", "--id", &pw, "--replace", "hunter2!"]);
    assert!(
        !r.to_string().contains("hunter2"),
        "a password never shows: {r}"
    );
    if env.desk().fields().read(GTK)["Accept terms"]["checked"] != true {
        env.ok(&["toggle", "--text", "Accept terms", "--window", GTK]);
    }
    env.ok(&["click", "--text", "Increment", "--window", GTK, "--exact"]);
    env.ok(&["press", "ctrl+a", "--id", &name]);
    let f = env.desk().fields().read(GTK);
    assert_eq!(f["Full name"]["text"], "Ada Lovelace", "{f}");
    assert_eq!(f["Email"]["text"], "ada@example.org", "{f}");
    assert_eq!(f["Password"]["count"], 8, "{f}");
    assert_eq!(f["Accept terms"]["checked"], true, "{f}");
    assert_ne!(count(&f), before, "the counter moved: {f}");
}

/// Chromium's sign-up and login forms, password fields included, at full speed; the page
/// says what was submitted and Chromium is alive after.
pub fn chromium_forms(env: &Env) {
    let steps: [(&str, &str, &str); 5] = [
        ("input", "Full name", "Grace Hopper"),
        ("input", "Email", "grace@example.org"),
        ("pwd", "Password", "s3cret-Pass"),
        ("pwd", "Verify password", "s3cret-Pass"),
        ("input", "Username", "grace"),
    ];
    let ids: Vec<String> = steps.iter().map(|(r, n, _)| id(env, WEB, r, n)).collect();
    for ((_, name, text), i) in steps.iter().zip(&ids) {
        let r = env.cli(&["type", "--id", i, "--replace", text]);
        assert_eq!(r.code, 0, "{name}: {}", r.stdout);
        assert!(
            !r.stdout.contains("s3cret"),
            "a password never shows: {}",
            r.stdout
        );
    }
    let secret = id(env, WEB, "pwd", "Secret");
    env.ok(&["type", "--id", &secret, "--replace", "pa55"]);
    env.ok(&["press", "enter", "--id", &secret]);
    let f = env.desk().fields().read(WEB);
    assert_eq!(f["Full name"]["text"], "Grace Hopper", "{f}");
    assert_eq!(f["Email"]["text"], "grace@example.org", "{f}");
    assert_eq!(f["Password"]["count"], 11, "{f}");
    assert_eq!(f["Verify password"]["count"], 11, "{f}");
    assert_eq!(f["Secret"]["count"], 4, "{f}");
    assert!(
        f.as_object()
            .unwrap()
            .keys()
            .any(|k| k.contains("Signed in grace")),
        "the login form was submitted: {f}"
    );
    assert!(env.desk().alive(env.chromium_pid), "Chromium is alive");
}

/// Accents, Greek, CJK, symbols (and in GTK an emoji) arrive in both apps as typed —
/// shifted characters too; an emoji for Chromium, which keeps one UTF-16 unit of a key's
/// character on Wayland, is refused before anything is typed.
pub fn any_script(env: &Env) {
    let bmp = "Zoë Ωμέγα 中文 ✓ Ünïcödé @#&";
    for (window, field, text) in [
        (GTK, "Email", format!("{bmp} 😀")),
        (WEB, "Email", bmp.to_string()),
    ] {
        let i = id(env, window, "input", field);
        let r = env.ok(&["type", "--id", &i, "--replace", &text]);
        assert_eq!(r["effect"], "confirmed", "{r}");
        let f = env.desk().fields().read(window);
        assert_eq!(f[field]["text"], text.as_str(), "{window}: {f}");
    }
    let i = id(env, WEB, "input", "Email");
    let run = env.cli(&["type", "--id", &i, "--replace", "smile 😀"]);
    assert_eq!(run.error_code(), "ACTION_NOT_SUPPORTED", "{}", run.stdout);
    let f = env.desk().fields().read(WEB);
    assert_eq!(f["Email"]["text"], bmp, "nothing typed: {f}");
}

/// A stopped GTK app beside Chromium: Chromium is acted on at its usual speed, the
/// stopped app answers APP_UNRESPONSIVE quickly, nothing is typed into it.
pub fn hung_beside(env: &Env) {
    let name = id(env, WEB, "input", "Full name");
    let t = Instant::now();
    env.ok(&["type", "--id", &name, "--replace", "before"]);
    let usual = t.elapsed();
    let pid = Pid::from_raw(env.gtk_pid as i32).unwrap();
    kill_process(pid, Signal::STOP).unwrap();
    let result = std::panic::catch_unwind(|| {
        let t = Instant::now();
        let r = env.cli(&["type", "--id", &name, "--replace", "while stopped"]);
        let took = t.elapsed();
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert!(
            took <= usual * 2 + Duration::from_millis(300),
            "{took:?} with an app stopped, {usual:?} before"
        );
        let t = Instant::now();
        let run = env.cli(&["read", "--window", GTK, "--call-timeout", "2s"]);
        assert_eq!(run.error_code(), "APP_UNRESPONSIVE", "{}", run.stdout);
        assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    });
    kill_process(pid, Signal::CONT).unwrap();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
    let f = env.desk().fields().read(WEB);
    assert_eq!(f["Full name"]["text"], "while stopped", "{f}");
    let g = env.desk().fields().read(GTK);
    assert!(
        !g.to_string().contains("while stopped"),
        "nothing typed into the stopped app: {g}"
    );
}

/// Window operations through sway: minimized into the scratchpad and back, full screen and
/// back, moved as a floating window; sway's own tree witnesses each. sway has no maximized
/// state, and says so.
pub fn window_ops(env: &Env) {
    let node = |title: &str| -> (serde_json::Value, bool) {
        let out = env
            .desk()
            .run_with_env("swaymsg", &["-t", "get_tree"], None, false);
        let tree: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        fn find(
            n: &serde_json::Value,
            title: &str,
            scratch: bool,
        ) -> Option<(serde_json::Value, bool)> {
            let scratch = scratch || n["name"] == "__i3_scratch";
            if n["pid"].is_number() && n["name"].as_str().unwrap_or("").contains(title) {
                return Some((n.clone(), scratch));
            }
            let kids = n["nodes"].as_array().into_iter().flatten();
            let floating = n["floating_nodes"].as_array().into_iter().flatten();
            kids.chain(floating).find_map(|k| find(k, title, scratch))
        }
        find(&tree, title, false).unwrap_or_else(|| panic!("sway has no {title}"))
    };
    let r = env.ok(&["window", "minimize", "--window", GTK]);
    assert_eq!(r["window"]["state"], "minimized", "{r}");
    assert!(node(GTK).1, "in sway's scratchpad");
    let r = env.ok(&["window", "restore", "--window", GTK]);
    assert!(
        r["window"]["state"].is_null() || r["window"]["state"] == "normal",
        "{r}"
    );
    assert!(!node(GTK).1, "out of the scratchpad");
    env.ok(&["window", "fullscreen", "--window", GTK]);
    assert_eq!(node(GTK).0["fullscreen_mode"], 1);
    env.ok(&["window", "restore", "--window", GTK]);
    assert_eq!(node(GTK).0["fullscreen_mode"], 0);
    let r = env.cli(&["window", "maximize", "--window", GTK]);
    assert_eq!(r.error_code(), "PLATFORM_NOT_SUPPORTED", "{}", r.stdout);
    env.ok(&["window", "move", "100", "60", "--window", GTK]);
    let (n, _) = node(GTK);
    assert_eq!(
        (n["rect"]["x"].as_i64(), n["rect"]["y"].as_i64()),
        (Some(100), Some(60)),
        "{n}"
    );
    assert_eq!(n["type"], "floating_con", "moved windows float: {n}");
}

/// The Qt 5 form on its Wayland platform plugin (qtwayland5), filled as an agent does, back
/// to back: its name typed, the box ticked, the counter clicked, each read back through
/// libatspi; a pointer click at a read box lands too. Qt is the third toolkit here, with
/// its own way of placing boxes (from its window's corner, as GTK's) and of taking input.
pub fn qt_form(env: &Env) {
    const QT: &str = "Qt Form";
    let pid = env.desk().python_app("form_qt.py");
    let name = id(env, QT, "input", "Full name");
    let r = env.ok(&["type", "--id", &name, "--replace", "Grace Hopper"]);
    assert_eq!(r["effect"], "confirmed", "{r}");
    let pw = id(env, QT, "pwd", "Password");
    let r = env.ok(&["type", "--id", &pw, "--replace", "hunter2!"]);
    assert!(
        !r.to_string().contains("hunter2"),
        "a password never shows: {r}"
    );
    let before = env.desk().fields().read(QT)["Accept terms"]["checked"] == true;
    let data = env.ok(&["read", "--window", QT, "-i"]);
    let (_, _, _, b) = elements(&data)
        .into_iter()
        .find(|(r, t, _, _)| r == "chk" && t == "Accept terms")
        .unwrap_or_else(|| panic!("no check box: {data}"));
    let (x, y) = ((b[0] + b[2] / 2).to_string(), (b[1] + b[3] / 2).to_string());
    let r = env.ok(&["click", "--x", &x, "--y", &y]);
    assert_eq!(r["route"], "input", "{r}");
    env.ok(&["click", "--text", "Increment", "--window", QT, "--exact"]);
    let f = env.desk().fields().read(QT);
    env.desk().stop_app(pid);
    assert_eq!(f["Full name"]["text"], "Grace Hopper", "{f}");
    assert_eq!(f["Password"]["count"], 8, "{f}");
    assert_ne!(
        f["Accept terms"]["checked"] == true,
        before,
        "a click at {x},{y} (the check box's read box) did not toggle it: {f}"
    );
    assert!(
        f.as_object().unwrap().keys().any(|k| k == "Count 1"),
        "the counter moved: {f}"
    );
}
