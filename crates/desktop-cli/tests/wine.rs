//! The Windows build of desktop-cli, run for real under Wine in the project's X sandbox:
//! Wine's notepad and its Open dialog, driven the way an agent does, each effect witnessed
//! from outside the program (the X clipboard, ImageMagick's capture of the X screen, a
//! second process). Needs the `.exe` (`DESKTOP_CLI_EXE`), so it is ignored by a plain
//! `cargo test` and run by `scripts/wine-tests.sh`, which builds it.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use desktop_testkit::{repo_root, wait_until, Desk, Run};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");

/// A Wine prefix of its own inside the sandbox, with the `.exe` beside the ProcessPrng shim
/// Wine 8 lacks (Rust's standard library imports it from bcryptprimitives.dll).
struct Wine<'a> {
    desk: &'a Desk,
    dir: PathBuf,
    env: Vec<(String, String)>,
    /// Programs started in the background, reaped when the prefix is stopped.
    apps: std::cell::RefCell<Vec<std::process::Child>>,
}

impl<'a> Wine<'a> {
    fn start(desk: &'a Desk, exe: &Path) -> Wine<'a> {
        let dir = std::env::temp_dir().join(format!("desktop-cli-wine-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::copy(exe, dir.join("bin/desktop-cli.exe")).unwrap();
        let shim = repo_root().join("crates/desktop-windows/wine/bcryptprimitives.c");
        let built = Command::new("x86_64-w64-mingw32-gcc")
            .args(["-shared", "-O2", "-s", "-o"])
            .arg(dir.join("bin/bcryptprimitives.dll"))
            .arg(&shim)
            .args(["-ladvapi32", "-Wl,--kill-at"])
            .status()
            .expect("MinGW's gcc (gcc-mingw-w64-x86-64)");
        assert!(built.success(), "building the ProcessPrng shim");
        let mut env: Vec<(String, String)> = desk.env().to_vec();
        env.push((
            "WINEPREFIX".into(),
            dir.join("prefix").display().to_string(),
        ));
        env.push(("WINEDEBUG".into(), "-all".into()));
        // No Mono or Gecko installers: nothing here needs .NET or an HTML engine.
        env.push(("WINEDLLOVERRIDES".into(), "mscoree,mshtml=".into()));
        env.push(("WINEARCH".into(), "win64".into()));
        let w = Wine {
            desk,
            dir,
            env,
            apps: Default::default(),
        };
        w.run("wineboot", &["-i"], 120);
        // One virtual desktop the size of the X screen: Wine draws the title bars, and
        // Windows coordinates are X coordinates. Read when the next wine process starts.
        for (key, name, value) in [
            (r"HKCU\Software\Wine\Explorer", "Desktop", "Default"),
            (
                r"HKCU\Software\Wine\Explorer\Desktops",
                "Default",
                "1280x800",
            ),
        ] {
            w.run(
                "wine",
                &["reg", "add", key, "/v", name, "/d", value, "/f"],
                60,
            );
        }
        w.run("wineserver", &["-k"], 30);
        w.run("wineserver", &["-w"], 30);
        w
    }

    fn command(&self, program: &str, args: &[&str]) -> Command {
        let mut c = Command::new(program);
        c.args(args)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(&self.dir)
            .stdin(Stdio::null());
        c
    }

    /// Runs a program to its end, bounded. Its output goes through files, not pipes: the
    /// first wine process starts `wineserver`, which keeps the descriptors it inherited and
    /// would hold a pipe open after the program ended.
    fn run(&self, program: &str, args: &[&str], secs: u64) -> Output {
        let (out, err) = (self.dir.join("stdout"), self.dir.join("stderr"));
        let mut all = vec![secs.to_string(), program.to_string()];
        all.extend(args.iter().map(|s| s.to_string()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let status = self
            .command("timeout", &all)
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .status()
            .unwrap();
        Output {
            status,
            stdout: std::fs::read(&out).unwrap_or_default(),
            stderr: std::fs::read(&err).unwrap_or_default(),
        }
    }

    /// `desktop-cli.exe ARGS` under Wine.
    fn cli(&self, args: &[&str]) -> Run {
        let exe = self.dir.join("bin/desktop-cli.exe").display().to_string();
        let mut all = vec![exe.as_str()];
        all.extend_from_slice(args);
        let out = self.run("wine", &all, 60);
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).to_string(),
        }
    }

    fn ok(&self, args: &[&str]) -> Value {
        let r = self.cli(args);
        assert_eq!(
            r.code, 0,
            "desktop-cli.exe {args:?}: {} {}",
            r.stdout, r.stderr
        );
        r.data()
    }

    fn spawn(&self, program: &str, args: &[&str]) {
        let child = self
            .command(program, args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.apps.borrow_mut().push(child);
    }

    /// A program of the sandbox's (xclip, ImageMagick) that sees the X side.
    fn outside(&self, program: &str, args: &[&str]) -> String {
        let out = self.desk.run_with_env(program, args, None, false);
        String::from_utf8_lossy(&out.stdout).to_string()
    }
}

impl Drop for Wine<'_> {
    fn drop(&mut self) {
        // Stopping the prefix's server ends every program of the prefix.
        self.run("wineserver", &["-k"], 30);
        self.run("wineserver", &["-w"], 30);
        for mut app in self.apps.borrow_mut().drain(..) {
            let _ = app.kill();
            let _ = app.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn titles(list: &Value) -> Vec<String> {
    list["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["title"].as_str().unwrap_or("").to_string())
        .collect()
}

fn flat(read: &Value) -> Vec<Value> {
    fn walk(es: &Value, out: &mut Vec<Value>) {
        for e in es.as_array().into_iter().flatten() {
            out.push(e.clone());
            walk(&e["c"], out);
        }
    }
    let mut out = Vec::new();
    walk(&read["elements"], &mut out);
    out
}

#[test]
#[ignore = "needs the Windows .exe: run scripts/wine-tests.sh"]
fn the_windows_exe_under_wine() {
    let exe =
        std::env::var("DESKTOP_CLI_EXE").expect("DESKTOP_CLI_EXE: the path of desktop-cli.exe");
    let desk = Desk::start(BIN);
    let wine = Wine::start(&desk, Path::new(&exe));
    wine.spawn("wine", &["notepad"]);
    let list = wait_until(Duration::from_secs(30), "notepad's window", || {
        let r = wine.cli(&["list"]);
        (r.code == 0 && titles(&r.data()).iter().any(|t| t == "Untitled - Notepad"))
            .then(|| r.data())
    });
    let notepad = list["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["title"] == "Untitled - Notepad")
        .unwrap()
        .clone();
    assert_eq!(notepad["app"], "notepad", "{notepad}");

    // The edit control and the status bar, by MSAA.
    let read = wine.ok(&["read", "--app", "notepad", "-i"]);
    let edit = flat(&read)
        .into_iter()
        .find(|e| e["r"] == "input")
        .expect("the edit control");
    let id = edit["i"].as_u64().unwrap().to_string();

    // Typing by id, back to back: Unicode and a newline, then a replace. Witnessed outside
    // the program: select all, copy, and X's clipboard holds what the edit holds.
    let typed = wine.ok(&[
        "type",
        "--id",
        &id,
        "--app",
        "notepad",
        "Grüße ✓ 日本\nline two",
    ]);
    assert_eq!(typed["effect"], "confirmed", "{typed}");
    wine.ok(&["press", "--app", "notepad", "ctrl+a", "ctrl+c"]);
    // The press answers once notepad has taken the keys in: the copy is there right away.
    assert_eq!(
        wine.ok(&["clipboard", "get"])["text"]
            .as_str()
            .unwrap()
            .replace("\r\n", "\n"),
        "Grüße ✓ 日本\nline two"
    );
    let copied = wait_until(
        Duration::from_secs(5),
        "the copied text on X's clipboard",
        || {
            let t = wine.outside("xclip", &["-o", "-selection", "clipboard"]);
            t.contains("line two").then_some(t)
        },
    );
    assert_eq!(copied.replace("\r\n", "\n"), "Grüße ✓ 日本\nline two");
    let replaced = wine.ok(&[
        "type",
        "--id",
        &id,
        "--app",
        "notepad",
        "--replace",
        "replaced",
    ]);
    assert_eq!(replaced["effect"], "confirmed", "{replaced}");
    let read = wine.ok(&["read", "--app", "notepad"]);
    let value = flat(&read).into_iter().find(|e| e["r"] == "input").unwrap()["v"].clone();
    assert_eq!(value, "replaced");

    // A standard dialog is its own window; its Cancel button, clicked by id, closes it.
    wine.ok(&["press", "--app", "notepad", "ctrl+o"]);
    wait_until(Duration::from_secs(10), "the Open dialog", || {
        titles(&wine.ok(&["list"]))
            .iter()
            .any(|t| t == "Open")
            .then_some(())
    });
    let dialog = wine.ok(&["read", "--window", "Open", "-i"]);
    let cancel = flat(&dialog)
        .into_iter()
        .find(|e| e["r"] == "btn" && e["t"] == "Cancel")
        .expect("Cancel");
    assert!(
        flat(&dialog)
            .iter()
            .any(|e| e["r"] == "btn" && e["t"] == "Open"),
        "{dialog}"
    );
    wine.ok(&[
        "click",
        "--id",
        &cancel["i"].to_string(),
        "--window",
        "Open",
    ]);
    wait_until(Duration::from_secs(10), "the dialog gone", || {
        (!titles(&wine.ok(&["list"])).iter().any(|t| t == "Open")).then_some(())
    });

    // The doctor's Windows checks answer from the system itself.
    let doctor = wine.ok(&["doctor"]);
    let check = |name: &str| {
        doctor["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no check {name} in {doctor}"))
    };
    // Wine 8 registers no UI Automation class: reads go through MSAA, and the doctor says so.
    let uia = check("ui-automation");
    assert!(
        uia["ok"] == true || uia["detail"].as_str().unwrap().contains("MSAA"),
        "{uia}"
    );
    // Notepad is in front; the .exe declares per-monitor awareness as it starts.
    for name in ["integrity", "foreground", "dpi"] {
        assert_eq!(check(name)["ok"], true, "{}", check(name));
    }

    // The clipboard: set by one process that exits, read by X and by another process.
    wine.ok(&["clipboard", "set", "from the exe ✓"]);
    assert_eq!(
        wine.outside("xclip", &["-o", "-selection", "clipboard"]),
        "from the exe ✓"
    );
    assert_eq!(wine.ok(&["clipboard", "get"])["text"], "from the exe ✓");

    // A screenshot of the window has the pixels X shows there.
    let shot = wine.dir.join("shot.png");
    let shot_win = format!("Z:{}", shot.display()).replace('/', "\\");
    let info = wine.ok(&[
        "screenshot",
        "--app",
        "notepad",
        "--scale",
        "1",
        "--format",
        "png",
        "--output",
        &shot_win,
    ]);
    let (x, y, w, h) = (
        info["region"][0].as_i64().unwrap(),
        info["region"][1].as_i64().unwrap(),
        info["region"][2].as_i64().unwrap(),
        info["region"][3].as_i64().unwrap(),
    );
    let ours = image::open(&shot).unwrap().to_rgb8();
    let x11 = wine.dir.join("x11.png");
    let crop = format!("{w}x{h}+{x}+{y}");
    desk.run_with_env(
        "import",
        &["-window", "root", "-crop", &crop, x11.to_str().unwrap()],
        None,
        false,
    );
    let theirs = image::open(&x11).unwrap().to_rgb8();
    assert_eq!(ours.dimensions(), theirs.dimensions());
    let differ = ours
        .pixels()
        .zip(theirs.pixels())
        .filter(|(a, b)| a != b)
        .count();
    let total = (w * h) as usize;
    // The caret blinks; everything else is the same picture.
    assert!(differ * 100 < total, "{differ} of {total} pixels differ");
    let distinct: std::collections::HashSet<_> = ours.pixels().map(|p| p.0).collect();
    assert!(
        distinct.len() > 3,
        "a picture, not a blank: {} colors",
        distinct.len()
    );
}
