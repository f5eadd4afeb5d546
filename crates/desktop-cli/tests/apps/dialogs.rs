//! `file-dialog` on the choosers apps really show: GTK 3's (the menus fixture reads the file
//! it is given and writes the one it saves to), Qt 5's (FeatherPad) and the one GTK shows
//! inside Chromium for a web form's file input (no tree: filled by keyboard), back to back
//! with no pauses, and a desktop portal's (xdg-desktop-portal-gtk), witnessed by the files
//! on disk, by libatspi and by the page — and the questions a chooser
//! asks (replace the file?) reported, never answered.

use crate::agent::{call, done, finish, spawn_agent_on, Fake};
use crate::{Env, Test, BIN};
use desktop_testkit::{repo_root, wait_until, Desk};
use serde_json::Value;
use std::time::Duration;

pub const TESTS: &[(&str, Test)] = &[(
    "dialogs::file_dialog_opens_and_saves_in_gtk3_qt5_and_chromium",
    file_dialogs,
)];

/// A session bus that starts no services: no desktop portal on it.
const BUS_WITHOUT_SERVICES: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#;

fn ok(desk: &Desk, args: &[&str]) -> Value {
    let run = desk.cli(args);
    assert_eq!(run.code, 0, "{args:?}: {}", run.json());
    run.data()
}

/// The titles of the windows `app` shows.
fn titles(desk: &Desk, app: &str) -> Vec<String> {
    titles_of(desk, &["--app", app])
}

/// The titles of the windows `list` shows with these options.
fn titles_of(desk: &Desk, options: &[&str]) -> Vec<String> {
    let listed = desk
        .cli(&[&["list"], options].concat())
        .json()
        .get("data")
        .cloned()
        .unwrap_or_default();
    listed["windows"]
        .as_array()
        .map(|ws| {
            ws.iter()
                .map(|w| w["title"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn file_dialogs(_: &Env) {
    let mut desk = Desk::start_with(BIN, &["--size", "1024x700"]);
    let dir = desk.temp_dir("file-dialogs");
    desk.python_app("menus_gtk.py");
    desk.featherpad();
    let mut fields = desk.fields();
    let first = dir.join("first.txt");
    std::fs::write(&first, "the first line\nthe second\n").unwrap();
    let first = first.to_string_lossy().into_owned();

    // No chooser showing: refused, nothing typed anywhere.
    let run = desk.cli(&["file-dialog", "--path", &first, "--app", "menus_gtk"]);
    assert_eq!(run.error_code(), "WINDOW_NOT_FOUND", "{}", run.json());

    // GTK 3, open: the chooser shows no field until Ctrl+L; the app reads the file named.
    ok(
        &desk,
        &["menu", "--path", "File > Open", "--app", "menus_gtk"],
    );
    let r = ok(
        &desk,
        &["file-dialog", "--path", &first, "--app", "menus_gtk"],
    );
    assert_eq!(r["mode"], "open", "{r}");
    assert_eq!(r["effect"], "confirmed", "{r}");
    let opened = format!("Opened: {first}: the first line");
    assert!(
        fields.read("GTK Menus").get(&opened).is_some(),
        "{opened}: {}",
        fields.read("GTK Menus")
    );

    // GTK 3, save, right after: the file is written with the fixture's text.
    let saved = dir.join("saved.txt");
    let saved_s = saved.to_string_lossy().into_owned();
    ok(
        &desk,
        &["menu", "--path", "File > Save As", "--app", "menus_gtk"],
    );
    let r = ok(
        &desk,
        &[
            "file-dialog",
            "--path",
            &saved_s,
            "--action",
            "save",
            "--app",
            "menus_gtk",
        ],
    );
    assert_eq!(
        (r["mode"].as_str(), r["written"].as_bool()),
        (Some("save"), Some(true)),
        "{r}"
    );
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        "saved by the menus fixture\n"
    );
    assert!(fields
        .read("GTK Menus")
        .get(format!("Saved: {saved_s}"))
        .is_some());

    // The wrong kind of chooser is refused and left open; then, with recent files known,
    // GTK's open chooser starts on them (the first Enter only goes to the folder).
    ok(
        &desk,
        &["menu", "--path", "File > Open", "--app", "menus_gtk"],
    );
    let run = desk.cli(&["file-dialog", "--path", &saved_s, "--action", "save"]);
    assert_eq!(run.error_code(), "INVALID_ARGS", "{}", run.json());
    assert!(titles(&desk, "menus_gtk").contains(&"Open File".to_string()));
    let run = desk.cli(&["file-dialog", "--path", "/no/such/file.txt"]);
    assert_eq!(run.error_code(), "INVALID_ARGS", "{}", run.json());
    ok(
        &desk,
        &["file-dialog", "--path", &saved_s, "--action", "open"],
    );
    let opened = format!("Opened: {saved_s}: saved by the menus fixture");
    assert!(fields.read("GTK Menus").get(&opened).is_some(), "{opened}");

    // The agent's own tools: a menu path, then the chooser filled (a risky step, allowed
    // here by --confirm never); the fake model's requests pass the providers' validation.
    let second = dir.join("second.txt");
    std::fs::write(&second, "the agent's line\n").unwrap();
    let second_s = second.to_string_lossy().into_owned();
    let fake = Fake::start(
        "file-dialog",
        serde_json::json!([
            {"calls": [call("menu", serde_json::json!({"path": "File > Open"}))]},
            {"calls": [call("file_dialog", serde_json::json!({"path": second_s, "action": "open"}))]},
            done(true, "opened"),
        ]),
    );
    let child = spawn_agent_on(
        &desk,
        &fake,
        "anthropic",
        "Open second.txt",
        &["--app", "menus_gtk", "--confirm", "never"],
        &[],
    );
    let out = finish(child, "");
    assert_eq!(out.data()["success"], true, "{}", out.stderr);
    let opened = format!("Opened: {second_s}: the agent's line");
    assert!(
        fields.read("GTK Menus").get(&opened).is_some(),
        "{opened}: {}\n{}",
        out.json,
        out.stderr
    );
    assert_eq!(fake.requests().len(), 3);
    drop(fake);

    // Qt 5: FeatherPad saves its text through its own chooser ("File name:").
    ok(
        &desk,
        &["type", "words from featherpad", "--app", "featherpad"],
    );
    desk.wait_for_text("featherpad", "words from featherpad", 5);
    let qt = dir.join("qt.txt");
    let qt_s = qt.to_string_lossy().into_owned();
    ok(
        &desk,
        &["menu", "--path", "File > Save As", "--app", "featherpad"],
    );
    let r = ok(
        &desk,
        &["file-dialog", "--path", &qt_s, "--app", "featherpad"],
    );
    assert_eq!(r["mode"], "save", "{r}");
    wait_until(Duration::from_secs(5), "FeatherPad to write qt.txt", || {
        std::fs::read_to_string(&qt)
            .ok()
            .filter(|t| t.contains("words from featherpad"))
    });

    // Saving over it again: Qt asks to replace; that is reported, nothing answered, the
    // file untouched; answering No leaves the chooser, which then takes another name.
    ok(&desk, &["type", " and more", "--app", "featherpad"]);
    desk.wait_for_text("featherpad", "and more", 5);
    ok(
        &desk,
        &["menu", "--path", "File > Save As", "--app", "featherpad"],
    );
    let run = desk.cli(&["file-dialog", "--path", &qt_s, "--app", "featherpad"]);
    assert_eq!(run.error_code(), "ACTION_FAILED", "{}", run.json());
    let message = run.json()["error"]["message"].to_string();
    assert!(message.contains("already exists"), "{message}");
    assert!(!std::fs::read_to_string(&qt).unwrap().contains("and more"));
    let run = desk.cli(&["file-dialog", "--path", &qt_s, "--app", "featherpad"]);
    assert_eq!(run.error_code(), "ACTION_FAILED", "{}", run.json());
    assert!(
        run.json()["error"]["message"]
            .to_string()
            .contains("in front of the chooser"),
        "{}",
        run.json()
    );
    ok(&desk, &["click", "--text", "No", "--app", "featherpad"]);
    let other = dir.join("qt2.txt");
    let other_s = other.to_string_lossy().into_owned();
    ok(
        &desk,
        &["file-dialog", "--path", &other_s, "--app", "featherpad"],
    );
    wait_until(
        Duration::from_secs(5),
        "FeatherPad to write qt2.txt",
        || {
            std::fs::read_to_string(&other)
                .ok()
                .filter(|t| t.contains("and more"))
        },
    );
    assert!(!std::fs::read_to_string(&qt).unwrap().contains("and more"));
    assert!(
        titles(&desk, "featherpad")
            .iter()
            .all(|t| !t.contains("Save")),
        "no chooser or question left: {:?}",
        titles(&desk, "featherpad")
    );

    // Chromium: a web form's file input. Where no desktop portal serves file choosers
    // (here: Chromium on a session bus of its own) Chromium shows GTK's chooser itself,
    // which has no tree: it is listed as Chromium's, filled by keyboard, and the page gets
    // the file. (With the portal, the chooser is the portal's, read as above.)
    let bus_conf = dir.join("bus-without-services.conf");
    std::fs::write(&bus_conf, BUS_WITHOUT_SERVICES).unwrap();
    let bus_conf = format!("--config-file={}", bus_conf.display());
    desk.chromium_page_under(
        &["dbus-run-session", &bus_conf, "--"],
        "upload.html",
        "Upload Form",
    );
    for (k, name) in ["up1.txt", "up2.txt"].iter().enumerate() {
        let file = dir.join(name);
        std::fs::write(&file, format!("upload number {k}\n")).unwrap();
        let file_s = file.to_string_lossy().into_owned();
        ok(
            &desk,
            &[
                "click",
                "--text",
                "Attachment",
                "--role",
                "btn",
                "--app",
                "chromium",
            ],
        );
        let r = ok(
            &desk,
            &["file-dialog", "--path", &file_s, "--app", "chromium"],
        );
        assert_eq!(
            (r["keyboard"].as_bool(), r["route"].as_str()),
            (Some(true), Some("input")),
            "{r}"
        );
        desk.wait_for_text("chromium", &format!("Chosen: {name}: upload number {k}"), 5);
    }
    assert!(
        titles_of(&desk, &[]).iter().all(|t| t != "Open File"),
        "{:?}",
        titles(&desk, "chromium")
    );

    // A desktop portal's chooser: the fixture's GtkFileChooserNative (GTK_USE_PORTAL=1) is
    // shown by xdg-desktop-portal-gtk, a process of its own that the sandbox's session bus
    // starts (its GTK backend serves desktops named GNOME); the app writes the file saved.
    let out = desk.run_with_env(
        "dbus-update-activation-environment",
        &["XDG_CURRENT_DESKTOP=GNOME"],
        None,
        false,
    );
    assert!(out.status.success(), "{out:?}");
    let script = repo_root().join("tests/fixtures/menus_gtk.py");
    let script = script.to_string_lossy().into_owned();
    let portal_env = [
        "env",
        "MENUS_PORTAL=1",
        "GTK_USE_PORTAL=1",
        "/usr/bin/python3",
    ];
    let pid = desk.launch(&[&portal_env[..], &[script.as_str()]].concat(), "menus_gtk");
    let pid = pid.to_string();
    wait_until(
        Duration::from_secs(10),
        "the portal fixture's window",
        || (!titles_of(&desk, &["--pid", &pid]).is_empty()).then_some(()),
    );
    let via_portal = dir.join("portal.txt");
    let via_portal_s = via_portal.to_string_lossy().into_owned();
    ok(&desk, &["menu", "--path", "File > Save As", "--pid", &pid]);
    let r = ok(
        &desk,
        &["file-dialog", "--path", &via_portal_s, "--pid", &pid],
    );
    assert_eq!(r["mode"], "save", "{r}");
    wait_until(
        Duration::from_secs(5),
        "the fixture to write portal.txt",
        || {
            std::fs::read_to_string(&via_portal)
                .ok()
                .filter(|t| t == "saved by the menus fixture\n")
        },
    );
}
