//! The same desktop seen without sway's IPC (`SWAYSOCK` and the sandbox's name removed from
//! the command's environment), as on a wlroots compositor other than sway: windows from
//! the compositor's foreign-toplevel list (sway 1.7 offers it) with titles and focus as
//! sway's tree has them and no positions or ids; reads whose boxes say they are the
//! window's; accessibility actions and typing that work (witness: libatspi) and input at
//! points that is refused with nothing done.

use crate::{elements, Env, BIN, GTK, WEB};
use desktop_testkit::Run;
use serde_json::Value;
use std::process::Command;

/// `desktop-cli ARGS` in the sandbox without sway's IPC. Without `DESKTOP_CLI_SANDBOX` the
/// command adopts no sandbox (which would set `SWAYSOCK` again): it finds the display and
/// buses by the variables alone. It reads by itself, never through the keeper (started by
/// the other tests, with the IPC).
pub fn bare(env: &Env, args: &[&str]) -> Run {
    let vars: Vec<(String, String)> = env
        .desk()
        .env()
        .iter()
        .filter(|(k, _)| k != "SWAYSOCK" && k != "DESKTOP_CLI_SANDBOX")
        .cloned()
        .collect();
    let out = Command::new(BIN)
        .args(args)
        .env_remove("SWAYSOCK")
        .env_remove("DESKTOP_CLI_SANDBOX")
        .env_remove("AT_SPI_BUS_ADDRESS")
        .envs(vars)
        .env("DESKTOP_CLI_DIRECT", "1")
        .env("DESKTOP_CLI_NO_KEEPER", "1")
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run desktop-cli");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn bare_ok(env: &Env, args: &[&str]) -> Value {
    let run = bare(env, args);
    assert_eq!(
        run.code, 0,
        "{args:?} failed: {}\n{}",
        run.stdout, run.stderr
    );
    run.data()
}

/// The error code of a command that must be refused.
fn refused(env: &Env, args: &[&str]) -> String {
    let run = bare(env, args);
    assert_ne!(run.code, 0, "{args:?} was not refused: {}", run.stdout);
    run.error_code()
}

fn swaymsg(env: &Env, cmd: &str) {
    let out = env.desk().run_with_env("swaymsg", &[cmd], None, false);
    assert!(out.status.success(), "swaymsg {cmd}: {out:?}");
}

/// sway's focused window's title.
fn sway_focused(env: &Env) -> String {
    let w = env.sway_windows();
    w.into_iter()
        .find(|(_, _, f)| *f)
        .map(|(t, _, _)| t)
        .unwrap_or_default()
}

/// `list` names both windows with sway's titles and sway's focus (following it as sway
/// moves the focus), without a box or an id; `doctor` says where the windows come from.
pub fn list(env: &Env) {
    for focus in [WEB, GTK] {
        swaymsg(env, &format!("[title=\"{focus}\"] focus"));
        let sway = env.sway_windows();
        let data = bare_ok(env, &["list"]);
        let windows = data["windows"].as_array().unwrap();
        for title in [GTK, WEB] {
            let ours = windows
                .iter()
                .find(|w| w["title"].as_str().unwrap().contains(title))
                .unwrap_or_else(|| panic!("{title} not listed: {data}"));
            let (theirs, _, focused) = sway
                .iter()
                .find(|(t, _, _)| t.contains(title))
                .unwrap_or_else(|| panic!("sway has no {title}: {sway:?}"));
            let name = ours["title"].as_str().unwrap();
            assert!(theirs.contains(name), "ours {ours}, sway's {theirs:?}");
            assert_eq!(ours["focused"] == true, *focused, "{ours} vs {sway:?}");
            assert!(
                ours.get("bounds").is_none() && ours.get("id").is_none(),
                "no place or id is guessed: {ours}"
            );
            assert!(ours.get("a11y").is_none(), "joined with its tree: {ours}");
        }
        let first = windows[0]["title"].as_str().unwrap();
        assert!(
            sway_focused(env).contains(first),
            "the focused window first: {data}"
        );
    }
    let doctor = bare_ok(env, &["doctor"]);
    let check = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "windows")
        .unwrap_or_else(|| panic!("no windows check: {doctor}"))
        .clone();
    let detail = check["detail"].as_str().unwrap();
    assert!(
        detail.contains("zwlr_foreign_toplevel_manager_v1") && detail.contains("no positions"),
        "{check}"
    );
    assert_eq!(check["ok"], false, "positions are missing: {check}");
}

/// A read says its boxes are the window's; each is the box the IPC read gives less the
/// window's corner where sway placed it (GTK's frame is its window: no shadow margin).
pub fn read(env: &Env) {
    let placed = env.ok(&["read", "--window", GTK, "-i"]);
    let data = bare_ok(env, &["read", "--window", GTK, "-i"]);
    assert_eq!(data["boxes"], "window", "{data}");
    assert!(placed.get("boxes").is_none(), "{placed}");
    assert!(
        data["window"].get("b").is_none() && data["window"].get("id").is_none(),
        "{data}"
    );
    let corner = env
        .sway_windows()
        .into_iter()
        .find(|(t, _, _)| t.contains(GTK))
        .map(|(_, b, _)| (b[0], b[1]))
        .unwrap();
    let theirs = elements(&placed);
    let ours = elements(&data);
    assert_eq!(ours.len(), theirs.len(), "{data}\n{placed}");
    for ((r, t, _, b), (_, _, _, s)) in ours.iter().zip(&theirs) {
        if b.is_empty() {
            continue;
        }
        assert_eq!(
            (s[0] - b[0], s[1] - b[1], s[2], s[3]),
            (corner.0, corner.1, b[2], b[3]),
            "{r} {t:?}: window's {b:?}, screen's {s:?}, window at {corner:?}"
        );
    }
    let text = bare(env, &["read", "--window", GTK, "-i", "--format", "text"]);
    assert!(
        text.stdout
            .lines()
            .next()
            .unwrap_or("")
            .contains("relative to the window"),
        "{}",
        text.stdout
    );
}

/// The id of an element of a read done without the IPC (its ids are that read's).
fn bare_id(env: &Env, role: &str, name: &str) -> String {
    let data = bare_ok(env, &["read", "--window", GTK, "-i"]);
    elements(&data)
        .into_iter()
        .find(|(r, t, _, _)| r == role && t == name)
        .map(|(_, _, i, _)| i.to_string())
        .unwrap_or_else(|| panic!("no {role} {name:?}: {data}"))
}

/// A plain click runs the check box's own action; input at points (the check box's centre
/// on screen, a double click, hover, the wheel, a drag) and screenshot marks are refused
/// with nothing done; a window id is refused; typing into a field, or into a window named
/// by its title, that does not have the focus lands there (the compositor's toplevel list
/// focuses its window).
pub fn act(env: &Env) {
    let checked = || env.desk().fields().read(GTK)["Accept terms"]["checked"] == true;
    let chk = bare_id(env, "chk", "Accept terms");
    let before = checked();
    let r = bare_ok(env, &["click", "--id", &chk]);
    assert_eq!(r["route"], "a11y", "{r}");
    assert_ne!(checked(), before, "the click toggled it: {r}");

    // Where the check box is on screen, from the read with the IPC.
    let placed = env.ok(&["read", "--window", GTK, "-i"]);
    let b = elements(&placed)
        .into_iter()
        .find(|(r, t, _, _)| r == "chk" && t == "Accept terms")
        .map(|(_, _, _, b)| b)
        .unwrap();
    let (x, y) = ((b[0] + b[2] / 2).to_string(), (b[1] + b[3] / 2).to_string());
    let now = checked();
    for args in [
        vec!["click", "--x", &x, "--y", &y],
        vec!["click", "--id", &chk, "--double"],
        vec!["hover", "--id", &chk],
        vec!["hover", "--x", &x, "--y", &y],
        vec!["scroll", "--x", &x, "--y", &y],
        vec!["scroll", "--id", &chk],
        vec![
            "drag", "--from-x", &x, "--from-y", &y, "--to-x", "5", "--to-y", "5",
        ],
        vec!["drag", "--from-id", &chk, "--to-x", "5", "--to-y", "5"],
        vec!["screenshot", "--annotate", "--window", GTK],
        vec!["screenshot", "--window", GTK],
        vec!["read", "--window-id", "1"],
    ] {
        assert_eq!(refused(env, &args), "PLATFORM_NOT_SUPPORTED", "{args:?}");
    }
    assert_eq!(checked(), now, "nothing was clicked");
    // The whole screen is still there to see.
    let path = std::env::temp_dir().join(format!("unplaced-{}.png", std::process::id()));
    let shot = bare_ok(env, &["screenshot", "--output", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        shot["region"],
        serde_json::json!([0, 0, 1280, 800]),
        "{shot}"
    );

    swaymsg(env, &format!("[title=\"{WEB}\"] focus"));
    let name = bare_id(env, "input", "Full name");
    let r = bare_ok(
        env,
        &["type", "--id", &name, "--replace", "Typed without IPC"],
    );
    assert_eq!(r["effect"], "confirmed", "{r}");
    let f = env.desk().fields().read(GTK);
    assert_eq!(f["Full name"]["text"], "Typed without IPC", "{f}");
    assert!(sway_focused(env).contains(GTK), "GTK's window was focused");
    // Keys for a window named by its title alone go there, not to the focused one.
    swaymsg(env, &format!("[title=\"{WEB}\"] focus"));
    bare_ok(env, &["type", "--window", GTK, " again"]);
    let f = env.desk().fields().read(GTK);
    assert_eq!(f["Full name"]["text"], "Typed without IPC again", "{f}");
    assert!(sway_focused(env).contains(GTK), "GTK's window was focused");
}
