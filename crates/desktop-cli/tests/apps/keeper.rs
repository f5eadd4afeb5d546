//! The keeper answers the command line's reads warm: the answers equal a read the process
//! makes by itself, other builds and other call timeouts read by themselves, and a keeper
//! whose program was replaced on disk hands over to the new program's.

use crate::{Env, Runtime, Test, BIN};
use desktop_testkit::{wait_until, Desk};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

pub const TESTS: &[(&str, Test)] = &[
    (
        "keeper::an_action_whose_keeper_dies_is_never_run_twice",
        never_twice,
    ),
    (
        "keeper::reads_answered_warm_equal_the_process_own",
        warm_equals_direct,
    ),
    (
        "keeper::other_builds_read_by_themselves_and_hand_over",
        builds,
    ),
    (
        "keeper::window_lists_follow_changes_made_outside_at_once",
        outside_changes,
    ),
];

fn elements(stdout: &str) -> Value {
    let v: Value = serde_json::from_str(stdout).unwrap();
    assert_eq!(v["ok"], true, "{stdout}");
    v["data"]["elements"].clone()
}

fn warm_equals_direct(env: &Env) {
    for app in ["chromium", "gtk3-widget-factory", "featherpad"] {
        let args = ["read", "--app", app, "--timing"];
        // The first fills the keeper's mirror; the second is answered from it.
        env.desk.cli(&args);
        let kept = env.desk.cli(&args);
        assert!(
            kept.stderr.contains("timing: keeper"),
            "{app}: the keeper answered: {}",
            kept.stderr
        );
        let direct = env.desk.cli_with(&args, &[("DESKTOP_CLI_DIRECT", "1")]);
        assert!(
            !direct.stderr.contains("timing: keeper"),
            "{}",
            direct.stderr
        );
        assert_eq!(
            elements(&kept.stdout),
            elements(&direct.stdout),
            "{app}: the keeper's read is the process's own"
        );
    }
    // Another call timeout: the process reads with its own.
    let run = env.desk.cli(&[
        "read",
        "--app",
        "chromium",
        "--timing",
        "--call-timeout",
        "2500",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(!run.stderr.contains("timing: keeper"), "{}", run.stderr);
    // Errors come back as the process would print them, status included.
    let run = env.desk.cli(&["read", "--app", "no-such-app-here"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.error_code(), "APP_NOT_FOUND", "{}", run.stdout);
    let run = env
        .desk
        .cli(&["read", "--app", "no-such-app-here", "--format", "text"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.contains("error APP_NOT_FOUND"), "{}", run.stderr);
}

/// `bin ARGS` in the private runtime folder `rt`, on its sandbox.
fn run(bin: &Path, rt: &Runtime, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .env("XDG_RUNTIME_DIR", &rt.0)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("AT_SPI_BUS_ADDRESS")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("DESKTOP_CLI_SANDBOX")
        .env_remove("DESKTOP_CLI_DIRECT")
        .output()
        .unwrap()
}

/// Both outputs, for messages.
fn stderr(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    )
}

/// A copy of this build at `to` (a new file: another build, as far as the keeper can tell).
fn copy_of_this_build(to: &Path) {
    let tmp = to.with_extension("new");
    std::fs::copy(BIN, &tmp).unwrap();
    std::fs::rename(&tmp, to).unwrap();
}

fn builds(_env: &Env) {
    let rt = Runtime::new("keeper");
    // Beside the runtime's own state folder (`desktop-cli`), not in its place.
    std::fs::create_dir(rt.0.join("bin")).unwrap();
    let bin = rt.0.join("bin/desktop-cli");
    copy_of_this_build(&bin);
    let up = run(&bin, &rt, &["sandbox", "up"]);
    assert!(up.status.success(), "{}", stderr(&up));
    let launched = run(&bin, &rt, &["launch", "gtk3-widget-factory"]);
    assert!(launched.status.success(), "{}", stderr(&launched));
    let read = ["read", "--app", "gtk3-widget-factory", "--timing"];
    // The launch started the copy's keeper; it answers the copy.
    let first = run(&bin, &rt, &read);
    assert!(first.status.success());
    let kept = run(&bin, &rt, &read);
    assert!(
        stderr(&kept).contains("timing: keeper"),
        "{}",
        stderr(&kept)
    );
    // The test's own build is another program: it reads by itself, and the keeper stays.
    let other = run(Path::new(BIN), &rt, &read);
    assert!(other.status.success(), "{}", stderr(&other));
    assert!(
        stderr(&other).contains("another build of desktop-cli"),
        "{}",
        stderr(&other)
    );
    assert_eq!(
        elements(&String::from_utf8_lossy(&other.stdout)),
        elements(&String::from_utf8_lossy(&kept.stdout))
    );
    let again = run(&bin, &rt, &read);
    assert!(
        stderr(&again).contains("timing: keeper"),
        "{}",
        stderr(&again)
    );
    // An upgrade: a new file where the keeper's program was. The keeper declines the new
    // program's read, which the process makes itself, and ends; a later command starts
    // the new program's keeper, which answers.
    copy_of_this_build(&bin);
    let upgraded = run(&bin, &rt, &read);
    assert!(upgraded.status.success(), "{}", stderr(&upgraded));
    assert!(
        stderr(&upgraded).contains("another build of desktop-cli"),
        "{}",
        stderr(&upgraded)
    );
    wait_until(Duration::from_secs(5), "the new program's keeper", || {
        stderr(&run(&bin, &rt, &read))
            .contains("timing: keeper")
            .then_some(())
    });
}

/// The pid of the keeper serving the sandbox whose X authority file is `xauth`.
fn keeper_of(xauth: &str) -> Option<u32> {
    let want = format!("XAUTHORITY={xauth}");
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
        let args: Vec<&[u8]> = cmd.split(|b| *b == 0).collect();
        let keeper = args.len() >= 2 && args[1] == b"keeper";
        let environ = std::fs::read(e.path().join("environ")).ok()?;
        let ours = environ.split(|b| *b == 0).any(|v| v == want.as_bytes());
        (keeper && ours).then_some(pid)
    })
}

fn never_twice(env: &Env) {
    let xauth = env
        .desk
        .env()
        .iter()
        .find(|(k, _)| k == "XAUTHORITY")
        .map(|(_, v)| v.clone())
        .unwrap();
    // The widget factory's plain entry, through the keeper.
    let data = env
        .desk
        .cli(&["read", "--app", "gtk3-widget-factory", "--roles", "input"])
        .data();
    let mut entries = Vec::new();
    crate::read::flatten(&data["elements"])
        .into_iter()
        .filter(|e| e.get("e").is_none() && e["b"][2].as_i64() == Some(320))
        .for_each(|e| entries.push(e));
    let entry = entries.last().cloned().unwrap_or_else(|| panic!("{data}"));
    let id = entry["i"].to_string();
    let set = env
        .desk
        .cli(&["set-value", "--id", &id, "--value", "", "--timing"]);
    assert_eq!(set.code, 0, "{}", set.stdout);
    let keeper = keeper_of(&xauth).expect("the keeper runs");
    // Forty characters, 40 ms apart: the keeper is killed while typing them.
    let text = "abcdefghij".repeat(4);
    let typing = Command::new(BIN)
        .args(["type", "--id", &id, &text, "--delay", "40"])
        .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env_remove("AT_SPI_BUS_ADDRESS")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(600));
    let _ = Command::new("kill")
        .args(["-9", &keeper.to_string()])
        .status();
    let out = typing.wait_with_output().unwrap();
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["ok"], false, "{answer}");
    assert_eq!(answer["error"]["code"], "INTERNAL", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("may have been done"),
        "{answer}"
    );
    // What was typed is a start of the text, typed once, and nothing comes after.
    let value = |env: &Env| {
        let run = env.desk.cli_with(
            &["read", "--app", "gtk3-widget-factory", "--roles", "input"],
            &[("DESKTOP_CLI_DIRECT", "1")],
        );
        let b = &entry["b"];
        crate::read::flatten(&run.data()["elements"])
            .into_iter()
            .find(|e| &e["b"] == b)
            .map(|e| e["v"].as_str().unwrap_or("").to_string())
            .unwrap_or_default()
    };
    let first = value(env);
    assert!(
        !first.is_empty() && first.len() < text.len() && text.starts_with(&first),
        "typed once, in part: {first:?}"
    );
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(value(env), first, "nothing typed after the answer");
    // The next command starts a keeper again.
    env.desk
        .cli(&["set-value", "--id", &id, "--value", "entry"]);
}

/// The windows of a `list`, answered by the keeper (checked) or by the process itself.
fn windows(desk: &Desk, direct: bool) -> Value {
    let run = if direct {
        desk.cli_with(&["list", "--timing"], &[("DESKTOP_CLI_DIRECT", "1")])
    } else {
        desk.cli(&["list", "--timing"])
    };
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        run.stderr.contains("timing: keeper"),
        !direct,
        "answered by the keeper: {}",
        run.stderr
    );
    // (Which window has the focus is asked anew by every list, and may move meanwhile.)
    let mut list = run.data()["windows"].clone();
    for w in list.as_array_mut().into_iter().flatten() {
        w.as_object_mut().map(|w| w.remove("focused"));
    }
    list
}

/// The keeper keeps its list of top-level windows while the X server tells of no change:
/// a window moved, hidden, shown or opened by another program (xdotool, a new app)
/// shows in the very next list, back to back, as a process listing by itself sees it, and so
/// does the focus moved; with and without a window manager (which puts each window in a
/// frame of its own).
fn outside_changes(_: &Env) {
    for options in [&[][..], &["--wm"][..]] {
        let mut desk = Desk::start_with(BIN, options);
        desk.python_app("form_gtk.py");
        let all = windows(&desk, false);
        let id = titled(&all, "GTK Form").unwrap_or_else(|| panic!("{options:?}: {all}"));
        let ids = id.to_string();
        let form = |list: &Value| -> Option<Value> {
            list.as_array()?
                .iter()
                .find(|w| w["id"].as_u64() == Some(id))
                .cloned()
        };
        let xdotool = |desk: &Desk, args: &[&str]| {
            let out = desk.run_with_env("xdotool", args, None, false);
            assert!(out.status.success(), "xdotool {args:?}: {out:?}");
        };
        // Twice unchanged: the second from the kept list.
        assert_eq!(windows(&desk, false), windows(&desk, false));
        xdotool(&desk, &["windowmove", "--sync", &ids, "123", "77"]);
        let kept = windows(&desk, false);
        let direct = windows(&desk, true);
        assert_eq!(kept, direct, "{options:?}: moved");
        let before = form(&all).map(|w| w["bounds"].clone());
        assert_ne!(
            form(&kept).map(|w| w["bounds"].clone()),
            before,
            "{options:?}: moved: {kept}"
        );
        // Moved back while nothing lists: the keeper's drain takes the event in (once a
        // second), and the list it kept must still go.
        let there = form(&direct).map(|w| w["bounds"].clone());
        xdotool(&desk, &["windowmove", "--sync", &ids, "0", "0"]);
        std::thread::sleep(Duration::from_millis(1500));
        let kept = windows(&desk, false);
        assert_ne!(
            form(&kept).map(|w| w["bounds"].clone()),
            there,
            "{options:?}: moved back: {kept}"
        );
        assert_eq!(kept, windows(&desk, true), "{options:?}: moved back");
        xdotool(&desk, &["windowunmap", "--sync", &ids]);
        let kept = windows(&desk, false);
        assert_eq!(form(&kept), None, "{options:?}: hidden: {kept}");
        assert_eq!(kept, windows(&desk, true), "{options:?}: hidden");
        xdotool(&desk, &["windowmap", "--sync", &ids]);
        let kept = windows(&desk, false);
        assert!(form(&kept).is_some(), "{options:?}: shown: {kept}");
        assert_eq!(kept, windows(&desk, true), "{options:?}: shown");
        // A new app's window: in the list as soon as it shows.
        desk.python_app("form_qt.py");
        let kept = windows(&desk, false);
        assert_eq!(kept, windows(&desk, true), "{options:?}: opened");
        assert!(
            kept.as_array().unwrap().len() > all.as_array().unwrap().len(),
            "{options:?}: opened: {kept}"
        );
        // The focus moved by another program, back and forth: the keeper's list and a read
        // of the focused window follow at once.
        let qt = titled(&kept, "Qt Form").unwrap_or_else(|| panic!("{options:?}: {kept}"));
        let focus = if options.is_empty() {
            "windowfocus"
        } else {
            "windowactivate"
        };
        for (to, title) in [(qt, "Qt Form"), (id, "GTK Form"), (qt, "Qt Form")] {
            xdotool(&desk, &[focus, "--sync", &to.to_string()]);
            assert_eq!(focused(&desk, false), Some(to), "{options:?}: to {title}");
            assert_eq!(focused(&desk, true), Some(to), "{options:?}: to {title}");
            let read = desk.cli(&["read", "--timing"]);
            assert!(read.stderr.contains("timing: keeper"), "{}", read.stderr);
            assert_eq!(read.data()["window"]["title"], title, "{options:?}");
        }
    }
}

/// The id of the window of a list titled `title`.
fn titled(list: &Value, title: &str) -> Option<u64> {
    list.as_array()?.iter().find(|w| w["title"] == title)?["id"].as_u64()
}

/// The id of the window listed as focused.
fn focused(desk: &Desk, direct: bool) -> Option<u64> {
    let run = if direct {
        desk.cli_with(&["list"], &[("DESKTOP_CLI_DIRECT", "1")])
    } else {
        desk.cli(&["list"])
    };
    assert_eq!(run.code, 0, "{}", run.stdout);
    let list = run.data()["windows"].clone();
    let all = list.as_array()?;
    let mut focused = all.iter().filter(|w| w["focused"] == true);
    let one = focused.next()?["id"].as_u64();
    assert!(focused.next().is_none(), "two focused: {list}");
    one
}
