//! The Windows backend against real apps — Notepad, Calculator, Microsoft Edge on a local
//! page, a PowerShell window whose UI thread sleeps, one whose button opens a modal dialog —
//! driven through the core contract
//! (`WinSystem.connect`, `read`, `act` with `ActionRequest`s, the clipboard) the way an agent
//! drives it: commands back to back without sleeps, ids from a read recorded as the faces
//! record them, and every effect read back from the app rather than taken from our answer.
//! The contract's conformance suite runs on an Edge page (Notepad has no way to insert and
//! remove elements of its own, which the suite needs).
//!
//! Runs only on Windows, in an interactive desktop session, one test at a time (they share
//! the keyboard focus): `cargo test -p desktop-windows --features real-app-tests --test
//! real_apps -- --test-threads=1`; .github/workflows/windows.yml runs it on a hosted
//! runner. Linux CI only type-checks it (scripts/test.sh: `cargo clippy --target
//! x86_64-pc-windows-gnu --features real-app-tests --tests`). It is not run under Wine:
//! Wine has no UI Automation, Edge or PowerShell, and its `tasklist` lists nothing.
//!
//! Everything a test writes goes into temporary directories: the files Notepad opens, the
//! pages Edge shows and Edge's profile, and desktop-cli's own state — `LOCALAPPDATA` (of
//! this process and the programs it starts) points into a temporary directory before the
//! first connection, so the ids of reads are kept there, not in the user's state. Every
//! test ends the processes it started, by their ids, on success and on failure; the one
//! that uses the clipboard puts back the text it found there.

#![cfg(all(windows, feature = "real-app-tests"))]
#![allow(clippy::unwrap_used)]

use desktop_core::action::{ActionResult, Effect, Route};
use desktop_core::conformance::Stage;
use desktop_core::keys::Combo;
use desktop_core::render::read_text;
use desktop_core::request::{Action, ActionRequest, Aim, Button, Element};
use desktop_core::system::{Clipboard, System};
use desktop_core::{Desktop, ErrorCode, Filters, Node, ReadData, Rect, Role, States, Target};
use desktop_windows::{WinDesktop, WinSystem};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn run<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// desktop-cli's state (the ids of reads) in a temporary directory of this test process,
/// set once before the first connection.
fn private_state() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let dir =
            std::env::temp_dir().join(format!("desktop-cli-real-apps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Windows' environment is guarded by the process's own lock: safe beside the
        // test harness's threads.
        std::env::set_var("LOCALAPPDATA", &dir);
    });
}

async fn desk_with(timeout: Duration) -> WinDesktop {
    private_state();
    WinSystem.prepare().unwrap();
    let d = WinSystem.connect(timeout, false).await.unwrap();
    assert!(
        d.refs_path().starts_with(std::env::temp_dir()),
        "the ids of reads are kept in a temporary directory: {}",
        d.refs_path().display()
    );
    d
}

async fn desk() -> WinDesktop {
    desk_with(Duration::from_secs(3)).await
}

/// Something worth knowing that is not a failure (which Notepad or Calculator the machine
/// has), on the test's output.
#[allow(clippy::print_stderr)]
fn note(what: &str) {
    eprintln!("note: {what}");
}

// ---------------------------------------------------------------------------------------
// Processes and scratch directories, cleaned up whatever happens.

/// Image name and id of every running process (`tasklist`).
fn running() -> Vec<(String, u32)> {
    let out = Command::new("tasklist")
        .args(["/FO", "CSV", "/NH"])
        .stderr(Stdio::null())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.trim().trim_matches('"').split("\",\"");
            let image = fields.next()?.to_string();
            let pid = fields.next()?.parse().ok()?;
            Some((image, pid))
        })
        .collect()
}

fn pids_of(images: &[&str]) -> Vec<u32> {
    running()
        .into_iter()
        .filter(|(image, _)| images.iter().any(|i| i.eq_ignore_ascii_case(image)))
        .map(|(_, pid)| pid)
        .collect()
}

/// What a test started and wrote: ended and removed when the test ends, passed or failed.
#[derive(Default)]
struct Cleanup {
    /// Processes by id, with the image each had (an id whose process has exited may name
    /// another program by the end: only ids still running that image are ended).
    pids: Vec<(u32, String)>,
    /// The processes spawned here, waited for once ended.
    children: Vec<std::process::Child>,
    dirs: Vec<PathBuf>,
    /// The clipboard's text before the test, put back at its end.
    clipboard: Option<Option<String>>,
}

impl Cleanup {
    /// A new empty directory under the system's temporary directory.
    fn dir(&mut self, tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("desktop-cli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        self.dirs.push(dir.clone());
        dir
    }

    /// Starts `cmd` (running `image`) with no streams of ours, and tracks it.
    fn spawn(&mut self, cmd: &mut Command, image: &str) -> u32 {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {image}: {e}"));
        let pid = child.id();
        self.children.push(child);
        self.track(pid, image);
        pid
    }

    fn track(&mut self, pid: u32, image: &str) {
        if !self.pids.iter().any(|(p, _)| *p == pid) {
            self.pids.push((pid, image.to_string()));
        }
    }

    /// Processes of `images` that were not running `before`: what a launch started beside
    /// (or instead of) the process it spawned.
    fn track_new(&mut self, before: &[u32], images: &[&str]) {
        for (image, pid) in running() {
            if images.iter().any(|i| i.eq_ignore_ascii_case(&image)) && !before.contains(&pid) {
                self.track(pid, &image);
            }
        }
    }

    /// Keeps the clipboard's text to put it back at the end.
    fn save_clipboard(&mut self) {
        let text = WinSystem.clipboard().get(Duration::from_secs(2)).unwrap();
        self.clipboard = Some(text);
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let now = running();
        for (pid, image) in &self.pids {
            if now
                .iter()
                .any(|(i, p)| p == pid && i.eq_ignore_ascii_case(image))
            {
                let _ = Command::new("taskkill")
                    .args(["/PID", &pid.to_string(), "/T", "/F"])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
            }
        }
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(saved) = self.clipboard.take() {
            let c = WinSystem.clipboard();
            let _ = match saved {
                Some(text) => c.set(&text, Duration::from_secs(2)),
                None => c.clear(),
            };
        }
        // A process just ended may hold its files for a moment.
        for dir in &self.dirs {
            for _ in 0..50 {
                if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Reading and acting, as the faces do.

fn plain() -> Filters {
    Filters {
        visible_only: true,
        ..Filters::default()
    }
}

fn interactive() -> Filters {
    Filters {
        interactive: true,
        ..plain()
    }
}

fn page() -> Filters {
    Filters {
        page: true,
        ..plain()
    }
}

fn flat(data: &ReadData) -> Vec<Node> {
    let mut out = Vec::new();
    for n in &data.elements {
        n.walk(&mut |x| out.push(x.clone()));
    }
    out
}

/// A read whose ids are recorded where actions by id look them up, as every face records
/// its reads.
async fn read(d: &WinDesktop, t: &Target, f: &Filters) -> ReadData {
    let data = d
        .read(t, f)
        .await
        .unwrap_or_else(|e| panic!("read of {t:?}: {e}"));
    data
}

async fn act(d: &WinDesktop, scope: &Target, aim: Aim, action: Action) -> ActionResult {
    let req = ActionRequest::new(scope.clone(), aim, action);
    d.act(&req)
        .await
        .unwrap_or_else(|e| panic!("{} at {:?}: {e}", req.action.name(), req.aim))
}

fn by_id(id: u32) -> Aim {
    assert_ne!(id, 0, "the element was numbered by its read");
    Aim::Element(Element::Id(id))
}

fn by_text(text: &str, role: Role) -> Aim {
    Aim::Element(Element::Text {
        text: text.into(),
        role: Some(role),
        exact: true,
    })
}

fn typing(text: &str, replace: bool) -> Action {
    Action::Type {
        text: text.into(),
        replace,
        delay: Duration::ZERO,
    }
}

fn click() -> Action {
    Action::Click {
        button: Button::Left,
        count: 1,
        modifiers: Vec::new(),
    }
}

fn press(combos: &[&str]) -> Action {
    Action::Press {
        combos: combos.iter().map(|c| Combo::parse(c).unwrap()).collect(),
    }
}

/// Waits (while an app starts) until `t` names a window.
async fn shown(d: &WinDesktop, t: &Target, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while d.resolve(t).await.is_err() {
        if Instant::now() > deadline {
            let titles: Vec<String> = d
                .windows(&Target::default())
                .await
                .map(|l| {
                    l.windows
                        .into_iter()
                        .map(|w| format!("{} {:?}", w.app, w.title))
                        .collect()
                })
                .unwrap_or_default();
            panic!("{what} showed no window for {t:?}; windows: {titles:?}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

// ---------------------------------------------------------------------------------------
// Notepad.

/// Starts Notepad through the desktop's `launch` on an empty file of its own (a name no
/// other window has) and returns the target naming its window.
async fn notepad(d: &WinDesktop, c: &mut Cleanup, tag: &str) -> Target {
    let dir = c.dir(tag);
    let name = format!("dcli-{tag}-{}.txt", std::process::id());
    let file = dir.join(&name);
    std::fs::write(&file, "").unwrap();
    let target = Target {
        app: Some("notepad".into()),
        window: Some(name.clone()),
        ..Target::default()
    };
    let before = pids_of(&["notepad.exe"]);
    let cmd = ["notepad.exe".to_string(), file.display().to_string()];
    let launched = match d.launch(&cmd, Duration::from_secs(30)).await {
        Ok(r) => {
            assert_eq!(r.effect, Effect::Confirmed, "{r:?}");
            let pid = r.extra.get("pid").and_then(serde_json::Value::as_u64);
            c.track(u32::try_from(pid.unwrap()).unwrap(), "notepad.exe");
            // Its first window (titled before the file is loaded, maybe).
            r.extra["window"]["id"].as_u64()
        }
        Err(e) => {
            // Windows 11's Notepad hands the file to its packaged process and exits: launch
            // watches only the process it started.
            note(&format!(
                "launch of notepad answered {e}; looking for its window by title"
            ));
            None
        }
    };
    c.track_new(&before, &["notepad.exe"]);
    shown(d, &target, "Notepad").await;
    if let Some(id) = launched {
        let w = d.resolve(&target).await.unwrap();
        assert_eq!(w.id, Some(id), "launch answered Notepad's window: {w:?}");
    }
    target
}

/// Notepad's editor in a read (the classic one is an edit control named "Text Editor",
/// Windows 11's a document named "Text editor").
fn editor(data: &ReadData) -> Node {
    let all = flat(data);
    let editable = |n: &&Node| n.role == Role::Input && n.states.contains(States::EDITABLE);
    all.iter()
        .filter(editable)
        .find(|n| n.name.to_lowercase().contains("text editor"))
        .or_else(|| all.iter().find(editable))
        .cloned()
        .unwrap_or_else(|| panic!("no editor in\n{}", read_text(data, false)))
}

#[test]
fn notepad_takes_typed_lines_a_replace_a_value_and_opens_a_menu() {
    run(async {
        let d = desk().await;
        let mut c = Cleanup::default();
        let t = notepad(&d, &mut c, "notepad").await;

        // Several lines, typed into the editor by its id, read back exactly.
        let data = read(&d, &t, &plain()).await;
        let typed = "first line: Grüße ✓\nsecond line 👋 — done\n\tthird line, indented";
        let r = act(&d, &t, by_id(editor(&data).id), typing(typed, false)).await;
        assert_eq!(r.effect, Effect::Confirmed, "{r:?}");
        let data = read(&d, &t, &plain()).await;
        assert_eq!(editor(&data).value.as_deref(), Some(typed));
        let quoted = serde_json::to_string(typed).unwrap();
        assert!(
            read_text(&data, false).contains(&quoted),
            "the text read shows the editor's lines: {}",
            read_text(&data, false)
        );

        // Its whole text replaced.
        let replaced = "replaced\nby a second type";
        let r = act(&d, &t, by_id(editor(&data).id), typing(replaced, true)).await;
        assert_eq!(r.effect, Effect::Confirmed, "{r:?}");
        let data = read(&d, &t, &plain()).await;
        assert_eq!(editor(&data).value.as_deref(), Some(replaced));

        // Its value set through UI Automation's Value pattern.
        let value = "set through the Value pattern";
        let r = act(
            &d,
            &t,
            by_id(editor(&data).id),
            Action::SetValue {
                value: value.into(),
            },
        )
        .await;
        assert_eq!(r.effect, Effect::Confirmed, "{r:?}");
        let data = read(&d, &t, &plain()).await;
        assert_eq!(editor(&data).value.as_deref(), Some(value));

        // The File menu opened through its ExpandCollapse pattern (the action `expand`), and
        // closed again (`collapse`), each read back.
        let file = || by_text("File", Role::MenuItem);
        act(
            &d,
            &t,
            file(),
            Action::Named {
                name: "expand".into(),
            },
        )
        .await;
        let data = read(&d, &t, &plain()).await;
        let all = flat(&data);
        let expanded = all.iter().any(|n| {
            n.role == Role::MenuItem && n.name == "File" && n.states.contains(States::EXPANDED)
        });
        let items = all
            .iter()
            .any(|n| n.role == Role::MenuItem && n.name.to_lowercase().starts_with("save"));
        assert!(
            expanded || items,
            "File reads expanded, or its items show:\n{}",
            read_text(&data, false)
        );
        act(
            &d,
            &t,
            file(),
            Action::Named {
                name: "collapse".into(),
            },
        )
        .await;
        let data = read(&d, &t, &plain()).await;
        let file = flat(&data)
            .into_iter()
            .find(|n| n.role == Role::MenuItem && n.name == "File")
            .unwrap_or_else(|| panic!("File is gone:\n{}", read_text(&data, false)));
        assert!(!file.states.contains(States::EXPANDED), "{file:?}");
    });
}

#[test]
fn the_clipboard_pastes_into_notepad_and_copies_out_of_it() {
    run(async {
        let d = desk().await;
        let mut c = Cleanup::default();
        c.save_clipboard();
        let clip = WinSystem.clipboard();
        let pasted = "pasted ✓ from desktop-cli";
        clip.set(pasted, Duration::from_secs(2)).unwrap();
        assert_eq!(
            clip.get(Duration::from_secs(2)).unwrap().as_deref(),
            Some(pasted)
        );

        let t = notepad(&d, &mut c, "clipboard").await;
        let data = read(&d, &t, &plain()).await;
        act(&d, &t, by_id(editor(&data).id), typing("typed, ", false)).await;
        // The editor has the focus from typing: keys go to it.
        act(&d, &t, Aim::Window, press(&["ctrl+v"])).await;
        let data = read(&d, &t, &plain()).await;
        let whole = format!("typed, {pasted}");
        assert_eq!(editor(&data).value.as_deref(), Some(whole.as_str()));

        act(&d, &t, Aim::Window, press(&["ctrl+a", "ctrl+c"])).await;
        assert_eq!(
            clip.get(Duration::from_secs(2)).unwrap().as_deref(),
            Some(whole.as_str()),
            "the editor's text, copied with ctrl+c"
        );
        clip.clear().unwrap();
        assert_eq!(clip.get(Duration::from_secs(2)).unwrap(), None);
    });
}

#[test]
fn displays_windows_and_apps_are_listed_and_a_window_captured() {
    run(async {
        let d = desk().await;
        let displays = d.displays();
        assert!(!displays.is_empty() && displays[0].primary, "{displays:?}");
        assert!(displays.iter().all(|x| x.scale >= 1.0));
        let screen = d.screen().unwrap();

        let mut c = Cleanup::default();
        let t = notepad(&d, &mut c, "listed").await;
        let w = d.resolve(&t).await.unwrap();
        assert!(
            w.id.is_some() && w.bounds.is_some() && w.a11y && w.pid != 0,
            "{w:?}"
        );
        let all = d.windows(&Target::default()).await.unwrap();
        assert!(
            all.windows.iter().any(|x| x.id == w.id),
            "{:?}",
            all.windows
        );
        let by_id = Target {
            window_id: w.id,
            ..Target::default()
        };
        assert_eq!(d.resolve(&by_id).await.unwrap().title, w.title);
        let apps = d.apps().await.unwrap();
        assert!(
            apps.apps.iter().any(|a| a.pid == w.pid
                && a.name.eq_ignore_ascii_case("notepad")
                && a.windows >= 1),
            "{:?}",
            apps.apps
        );

        // The part of the window on screen, captured: its size, and more than one colour.
        let b = w.bounds.unwrap();
        let (x0, y0) = (b.x.max(screen.x), b.y.max(screen.y));
        let x1 = (b.x + b.w).min(screen.x + screen.w);
        let y1 = (b.y + b.h).min(screen.y + screen.h);
        let area = Rect::new(x0, y0, x1 - x0, y1 - y0);
        d.raise(w.id.unwrap()).unwrap();
        let shot = d.capture(area).await.unwrap();
        assert_eq!(shot.origin, (area.x, area.y));
        assert_eq!(
            (shot.image.width(), shot.image.height()),
            (area.w as u32, area.h as u32)
        );
        let first = *shot.image.get_pixel(0, 0);
        assert!(
            shot.image.pixels().any(|p| *p != first),
            "the capture of Notepad is one flat colour"
        );
        // The window's own pixels (PrintWindow), the size of its bounds.
        let own = d
            .capture_window(&w)
            .await
            .unwrap()
            .expect("Notepad draws itself for a capture");
        assert_eq!(own.origin, (b.x, b.y));
        assert_eq!(
            (own.image.width(), own.image.height()),
            (b.w as u32, b.h as u32)
        );
    });
}

/// The window as a window operation answered it: its bounds and state.
fn placed(r: &ActionResult) -> (Rect, String) {
    let w = &r.extra["window"];
    let b: Vec<i32> = w["bounds"]
        .as_array()
        .unwrap_or_else(|| panic!("no bounds in {r:?}"))
        .iter()
        .map(|v| i32::try_from(v.as_i64().unwrap()).unwrap())
        .collect();
    let state = w["state"].as_str().unwrap_or("normal").to_string();
    (Rect::new(b[0], b[1], b[2], b[3]), state)
}

#[test]
fn notepad_is_moved_resized_minimized_maximized_made_full_screen_and_closed() {
    use desktop_core::model::WindowState;
    use desktop_core::winops::{self, WindowOp};
    run(async {
        let d = desk().await;
        let mut c = Cleanup::default();
        let t = notepad(&d, &mut c, "winops").await;
        let op = |o: WindowOp| {
            let (d, t) = (&d, &t);
            async move {
                winops::run(d, t, o)
                    .await
                    .unwrap_or_else(|e| panic!("window {}: {e:?}", o.name()))
            }
        };
        let primary = d.displays()[0].bounds;

        // Placed by its visible frame (list's bounds), exactly.
        let (x, y) = (primary.x + 100, primary.y + 80);
        let (b, _) = placed(&op(WindowOp::Move { x, y }).await);
        assert_eq!((b.x, b.y), (x, y));
        let (normal, _) = placed(&op(WindowOp::Resize { w: 640, h: 480 }).await);
        assert_eq!(normal, Rect::new(x, y, 640, 480));

        // Minimized, it is still listed (to be restored), and comes back where it was.
        let (_, state) = placed(&op(WindowOp::Minimize).await);
        assert_eq!(state, "minimized");
        let listed = d.resolve(&t).await.unwrap();
        assert_eq!(listed.state, WindowState::Minimized, "{listed:?}");
        let (b, state) = placed(&op(WindowOp::Restore).await);
        assert_eq!((b, state.as_str()), (normal, "normal"));
        let (_, state) = placed(&op(WindowOp::Maximize).await);
        assert_eq!(state, "maximized");
        let (b, state) = placed(&op(WindowOp::Restore).await);
        assert_eq!((b, state.as_str()), (normal, "normal"));

        // Full screen covers its monitor without a title bar; restore gives both back.
        let (b, state) = placed(&op(WindowOp::Fullscreen).await);
        assert_eq!(state, "fullscreen");
        let displays = d.displays();
        let monitor = desktop_core::backend::display_of(&displays, &normal).unwrap();
        assert_eq!(b, monitor.bounds);
        let (b, state) = placed(&op(WindowOp::Restore).await);
        assert_eq!((b, state.as_str()), (normal, "normal"));

        // Closed with unsaved text: it closes (Windows 11's Notepad keeps the text for its
        // next start), or its question is reported and left unanswered.
        let w = d.resolve(&t).await.unwrap();
        act(&d, &t, Aim::Window, typing("unsaved", false)).await;
        match winops::run(&d, &t, WindowOp::Close).await {
            Ok(r) => assert_eq!(r.extra["closed"], true, "{r:?}"),
            Err(e) => {
                assert_eq!(e.code, ErrorCode::ActionFailed, "{e:?}");
                // Ended by force, only when the process is one this test started.
                if c.pids.iter().any(|(p, _)| *p == w.pid) {
                    assert!(d.end_process(w.pid, Duration::from_secs(1)).await.unwrap());
                    assert!(d.resolve(&t).await.is_err(), "the window went with it");
                }
            }
        }

        // Never this process, nor the one running the tests.
        let e = d
            .end_process(std::process::id(), Duration::ZERO)
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::PermDenied, "{e:?}");
    });
}

// ---------------------------------------------------------------------------------------
// Calculator.

#[test]
fn calculator_adds_by_clicking_its_buttons() {
    run(async {
        let d = desk().await;
        let mut c = Cleanup::default();
        let images = ["CalculatorApp.exe", "Calculator.exe", "win32calc.exe"];
        let before = pids_of(&images);
        c.spawn(&mut Command::new("calc.exe"), "calc.exe");
        let t = Target {
            window: Some("Calculator".into()),
            ..Target::default()
        };
        shown(&d, &t, "Calculator").await;
        c.track_new(&before, &images);

        // Its buttons show once its window does; the modern Calculator names its digits
        // in words, the classic one (Windows Server's win32calc) in figures.
        let deadline = Instant::now() + Duration::from_secs(30);
        let modern = loop {
            // A starting UWP app may refuse a read or two.
            let names: Vec<String> = match d.read(&t, &interactive()).await {
                Ok(data) => flat(&data)
                    .into_iter()
                    .filter(|n| n.role == Role::Button)
                    .map(|n| n.name)
                    .collect(),
                Err(e) => vec![e.to_string()],
            };
            if names.iter().any(|n| n == "One") {
                break true;
            }
            if names.iter().any(|n| n == "1") {
                break false;
            }
            assert!(Instant::now() < deadline, "no digit buttons: {names:?}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let keys = if modern {
            ["One", "Plus", "Two", "Equals"]
        } else {
            note("the classic Calculator: buttons 1, Add, 2, Equals");
            ["1", "Add", "2", "Equals"]
        };
        for key in keys {
            act(&d, &t, by_text(key, Role::Button), click()).await;
        }
        let data = read(&d, &t, &plain()).await;
        // The modern display is named for a screen reader; the classic one is a text
        // showing the figure (beside a button "3", which is not what is looked for).
        let shown = flat(&data).into_iter().any(|n| {
            if modern {
                n.name == "Display is 3"
            } else {
                n.role == Role::Text && n.name.trim() == "3"
            }
        });
        assert!(shown, "1 + 2 shows 3:\n{}", read_text(&data, false));
        // The modern Calculator may have run before the test (Windows prelaunches it), so
        // its window is closed too, not only the processes the test started.
        let _ = d
            .act(&ActionRequest::new(
                t.clone(),
                Aim::Window,
                press(&["alt+f4"]),
            ))
            .await;
    });
}

// ---------------------------------------------------------------------------------------
// Edge, on pages written into a temporary directory.

fn edge_exe() -> PathBuf {
    for var in ["ProgramFiles(x86)", "ProgramFiles"] {
        if let Some(root) = std::env::var_os(var) {
            let exe = Path::new(&root).join(r"Microsoft\Edge\Application\msedge.exe");
            if exe.exists() {
                return exe;
            }
        }
    }
    PathBuf::from("msedge.exe")
}

fn file_url(path: &Path) -> String {
    let p = path
        .display()
        .to_string()
        .replace('\\', "/")
        .replace(' ', "%20");
    format!("file:///{p}")
}

/// Starts Edge on `html` (written into a scratch directory), with a profile of its own in
/// that directory and its renderers' accessibility on, and waits until `ready` sees the
/// page in a read of the window `t`.
async fn edge(
    d: &WinDesktop,
    c: &mut Cleanup,
    tag: &str,
    html: &str,
    t: &Target,
    ready: impl Fn(&[Node]) -> bool,
) {
    let dir = c.dir(tag);
    let file = dir.join("page.html");
    std::fs::write(&file, html).unwrap();
    let profile = dir.join("profile");
    let mut cmd = Command::new(edge_exe());
    cmd.arg(format!("--user-data-dir={}", profile.display()))
        .args([
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-sync",
            "--force-renderer-accessibility",
            "--new-window",
        ])
        .arg(file_url(&file));
    c.spawn(&mut cmd, "msedge.exe");
    shown(d, t, "Edge").await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(data) = d.read(t, &page()).await {
            if ready(&flat(&data)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the page never showed:\n{}",
                read_text(&data, false)
            );
        }
        assert!(Instant::now() < deadline, "Edge's window never read");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

const SECRET: &str = "Tr0ub4dor&3-real-app";

/// No read of the window, in any form or with any filter, holds the password.
async fn no_secret(d: &WinDesktop, t: &Target) {
    let with_actions = Filters {
        actions: true,
        ..plain()
    };
    for f in [
        plain(),
        interactive(),
        page(),
        Filters::default(),
        with_actions,
    ] {
        let data = read(d, t, &f).await;
        let json = serde_json::to_string(&data).unwrap();
        let text = read_text(&data, true);
        assert!(
            !json.contains(SECRET) && !text.contains(SECRET),
            "the password shows in a read with {f:?}"
        );
    }
}

#[test]
fn edge_signs_in_on_a_page_without_showing_the_password() {
    run(async {
        let d = desk().await;
        let mut c = Cleanup::default();
        let title = format!("dcli sign-in {}", std::process::id());
        let html = format!(
            r#"<!doctype html><meta charset="utf-8"><title>{title}</title>
<h1 id="h">Please log in</h1>
<p><label>Email address <input id="e" type="email"></label></p>
<p><label>Password <input id="p" type="password"></label></p>
<p><label><input id="k" type="checkbox"> Keep me logged in</label></p>
<p><button type="button" onclick="document.getElementById('h').textContent = 'Welcome back'">Log in</button></p>"#
        );
        let t = Target {
            window: Some(title.clone()),
            ..Target::default()
        };
        edge(&d, &mut c, "edge-sign-in", &html, &t, |all| {
            all.iter().any(|n| n.role == Role::Password)
        })
        .await;

        // The page alone, with its address.
        let data = read(&d, &t, &page()).await;
        assert!(data.page, "a read of the page alone");
        let address = data.elements[0].value.as_deref().unwrap_or("");
        assert!(address.starts_with("file:///"), "{address:?}");

        let email = "ada@example.com";
        let r = act(
            &d,
            &t,
            by_text("Email address", Role::Input),
            typing(email, true),
        )
        .await;
        assert_eq!(r.effect, Effect::Confirmed, "{r:?}");
        let r = act(
            &d,
            &t,
            by_text("Password", Role::Password),
            typing(SECRET, true),
        )
        .await;
        assert!(
            !serde_json::to_string(&r).unwrap().contains(SECRET),
            "the answer to typing a password holds it: {r:?}"
        );
        let r = act(
            &d,
            &t,
            by_text("Keep me logged in", Role::CheckBox),
            Action::Toggle,
        )
        .await;
        assert_eq!(r.effect, Effect::Confirmed, "{r:?}");

        let data = read(&d, &t, &page()).await;
        let all = flat(&data);
        assert!(
            all.iter()
                .any(|n| n.role == Role::Input && n.value.as_deref() == Some(email)),
            "the email reads back:\n{}",
            read_text(&data, false)
        );
        let password = all.iter().find(|n| n.role == Role::Password).unwrap();
        assert!(
            password.is_secure() && password.value.is_none(),
            "{password:?}"
        );
        assert!(
            all.iter().any(|n| n.role == Role::CheckBox
                && n.name == "Keep me logged in"
                && n.states.contains(States::CHECKED)),
            "the check box reads checked:\n{}",
            read_text(&data, false)
        );
        no_secret(&d, &t).await;

        act(&d, &t, by_text("Log in", Role::Button), click()).await;
        let data = read(&d, &t, &page()).await;
        let names: Vec<String> = flat(&data).into_iter().map(|n| n.name).collect();
        assert!(
            names.iter().any(|n| n == "Welcome back")
                && !names.iter().any(|n| n == "Please log in"),
            "the page's heading changed after the click:\n{}",
            read_text(&data, false)
        );
        no_secret(&d, &t).await;
    });
}

/// The contract's conformance suite on an Edge page whose buttons insert, remove and fill.
struct EdgeStage {
    d: WinDesktop,
    title: String,
}

fn any(nodes: &[Node], f: impl Fn(&Node) -> bool) -> bool {
    let mut hit = false;
    for n in nodes {
        n.walk(&mut |x| hit |= f(x));
    }
    hit
}

impl EdgeStage {
    async fn press_until(
        &self,
        button: &str,
        done: impl Fn(&[Node]) -> bool,
    ) -> desktop_core::Result<()> {
        let req = ActionRequest::new(self.target(), by_text(button, Role::Button), click());
        self.d.act(&req).await?;
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let data = self.d.read(&self.target(), &plain()).await?;
            if done(&data.elements) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(desktop_core::Error::new(
                    ErrorCode::Timeout,
                    format!("{button} had no effect"),
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Stage for EdgeStage {
    type Desktop = WinDesktop;
    fn desktop(&self) -> &WinDesktop {
        &self.d
    }
    fn target(&self) -> Target {
        Target {
            window: Some(self.title.clone()),
            ..Target::default()
        }
    }
    fn field(&self) -> &str {
        "Field"
    }
    fn check(&self) -> &str {
        "Agree"
    }
    async fn insert(&self) -> desktop_core::Result<()> {
        self.press_until("Insert", |els| {
            any(els, |x| x.name == desktop_core::conformance::INSERTED)
        })
        .await
    }
    async fn remove(&self) -> desktop_core::Result<()> {
        self.press_until("Remove", |els| {
            !any(els, |x| x.name == desktop_core::conformance::INSERTED)
        })
        .await
    }
    async fn fill(&self) -> desktop_core::Result<()> {
        self.press_until("Fill", |els| {
            any(els, |x| {
                x.name == "Field" && x.value.as_deref() == Some(desktop_core::conformance::FILLED)
            })
        })
        .await
    }
    async fn sleep(&self, time: Duration) {
        tokio::time::sleep(time).await;
    }
}

#[test]
fn the_windows_backend_conforms() {
    run(async {
        let d = desk().await;
        let mut c = Cleanup::default();
        let title = format!("Conformance {}", std::process::id());
        let html = format!(
            r#"<!doctype html><meta charset="utf-8"><title>{title}</title>
<label>Field <input id="f"></label>
<div id="box"><label id="agree"><input type="checkbox"> Agree</label></div>
<button onclick="const l = document.createElement('label'); l.id = 'ins'; l.innerHTML = '<input type=checkbox> {inserted}'; document.getElementById('box').prepend(l)">Insert</button>
<button onclick="document.getElementById('ins').remove()">Remove</button>
<button onclick="document.getElementById('f').value = '{filled}'">Fill</button>"#,
            inserted = desktop_core::conformance::INSERTED,
            filled = desktop_core::conformance::FILLED,
        );
        let t = Target {
            window: Some(title.clone()),
            ..Target::default()
        };
        edge(&d, &mut c, "conformance", &html, &t, |all| {
            all.iter()
                .any(|n| n.role == Role::CheckBox && n.name == "Agree")
        })
        .await;
        let failures = desktop_core::conformance::run_all(&EdgeStage { d, title }).await;
        assert!(failures.is_empty(), "{failures:#?}");
    });
}

// ---------------------------------------------------------------------------------------
// A hung app beside a working one.

#[test]
fn a_hung_window_costs_a_bounded_wait_and_notepad_beside_it_still_answers() {
    run(async {
        let timeout = Duration::from_secs(2);
        let d = desk_with(timeout).await;
        let mut c = Cleanup::default();
        let dir = c.dir("hung");
        let marker = dir.join("hung.txt");
        let title = format!("dcli hung {}", std::process::id());
        // A WinForms window whose UI thread sleeps once it has shown (after saying so in
        // the marker file): it takes no message for ten minutes.
        let script = format!(
            r#"Add-Type -AssemblyName System.Windows.Forms
$f = New-Object System.Windows.Forms.Form
$f.Text = '{title}'
$b = New-Object System.Windows.Forms.Button
$b.Text = 'Hung button'
$f.Controls.Add($b)
$f.Add_Shown({{ $f.Refresh(); Set-Content -LiteralPath '{marker}' -Value 'hung'; Start-Sleep -Seconds 600 }})
[void][System.Windows.Forms.Application]::Run($f)
"#,
            marker = marker.display()
        );
        let ps1 = dir.join("hung.ps1");
        std::fs::write(&ps1, script).unwrap();
        let mut cmd = Command::new("powershell.exe");
        cmd.args([
            "-NoProfile",
            "-NonInteractive",
            "-ExecutionPolicy",
            "Bypass",
            "-File",
        ])
        .arg(&ps1);
        let pid = c.spawn(&mut cmd, "powershell.exe");
        // Its process, not the "(Not Responding)" ghost Windows may put over it.
        let hung = Target {
            window: Some(title.clone()),
            pid: Some(pid),
            ..Target::default()
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !marker.exists() {
            assert!(Instant::now() < deadline, "the hung window never showed");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        shown(&d, &hung, "the hung window").await;

        // Listing asks the window system, not the app: at once.
        let t0 = Instant::now();
        let list = d.windows(&Target::default()).await.unwrap();
        assert!(
            t0.elapsed() < Duration::from_secs(3),
            "list took {:?}",
            t0.elapsed()
        );
        assert!(list.windows.iter().any(|w| w.title == title));

        // Reading it costs the read's bound (4 call timeouts, at least 5 s), not a hang.
        let t0 = Instant::now();
        let r = d.read(&hung, &plain()).await;
        let took = t0.elapsed();
        assert!(took < Duration::from_secs(15), "the read took {took:?}");
        match &r {
            Ok(data) => note(&format!(
                "the hung window read in {took:?} (the frame, answered for it by Windows):\n{}",
                read_text(data, false)
            )),
            Err(e) => assert!(
                matches!(
                    e.code,
                    ErrorCode::AppUnresponsive | ErrorCode::NotInteractable
                ),
                "{e}"
            ),
        }
        // Capturing it (the window draws itself for PrintWindow): bounded too.
        let w = d.resolve(&hung).await.unwrap();
        let t0 = Instant::now();
        let shot = d.capture_window(&w).await;
        let took = t0.elapsed();
        assert!(took < Duration::from_secs(10), "the capture took {took:?}");
        if let Err(e) = &shot {
            assert_eq!(e.code, ErrorCode::AppUnresponsive, "{e}");
        }
        // Clicking in it: an answer in bounded time, never a confirmed effect.
        let t0 = Instant::now();
        let req = ActionRequest::new(hung.clone(), by_text("Hung button", Role::Button), click());
        let r = d.act(&req).await;
        let took = t0.elapsed();
        assert!(took < Duration::from_secs(30), "the click took {took:?}");
        if let Ok(r) = &r {
            assert_ne!(r.effect, Effect::Confirmed, "{r:?}");
        }

        // Notepad beside it reads and takes text as ever.
        let t = notepad(&d, &mut c, "beside-hung").await;
        let t0 = Instant::now();
        let data = read(&d, &t, &plain()).await;
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "read took {:?}",
            t0.elapsed()
        );
        let r = act(
            &d,
            &t,
            by_id(editor(&data).id),
            typing("still answering", false),
        )
        .await;
        assert_eq!(r.effect, Effect::Confirmed, "{r:?}");
        let data = read(&d, &t, &plain()).await;
        assert_eq!(editor(&data).value.as_deref(), Some("still answering"));
    });
}

// ---------------------------------------------------------------------------------------
// A button whose handler opens a modal dialog.

#[test]
fn a_click_that_opens_a_modal_dialog_answers_at_once_and_the_dialog_reads_and_closes() {
    run(async {
        let timeout = Duration::from_secs(5);
        let d = desk_with(timeout).await;
        let mut c = Cleanup::default();
        let dir = c.dir("modal");
        let ready = dir.join("ready.txt");
        let closed = dir.join("closed.txt");
        let title = format!("dcli modal owner {}", std::process::id());
        let dialog = format!("dcli modal dialog {}", std::process::id());
        // A WinForms window whose button shows a modal dialog from its Click handler. The
        // handler runs inside UI Automation's Invoke, which answers only once the dialog is
        // closed; then the handler writes the second marker.
        let script = format!(
            r#"Add-Type -AssemblyName System.Windows.Forms
$f = New-Object System.Windows.Forms.Form
$f.Text = '{title}'
$b = New-Object System.Windows.Forms.Button
$b.Text = 'Open dialog'
$b.Width = 160
$b.Add_Click({{
    $d = New-Object System.Windows.Forms.Form
    $d.Text = '{dialog}'
    $ok = New-Object System.Windows.Forms.Button
    $ok.Text = 'Close dialog'
    $ok.Width = 160
    $ok.DialogResult = [System.Windows.Forms.DialogResult]::OK
    $d.Controls.Add($ok)
    [void]$d.ShowDialog($f)
    Set-Content -LiteralPath '{closed}' -Value 'closed'
}})
$f.Controls.Add($b)
$f.Add_Shown({{ Set-Content -LiteralPath '{ready}' -Value 'shown' }})
[void][System.Windows.Forms.Application]::Run($f)
"#,
            ready = ready.display(),
            closed = closed.display()
        );
        let ps1 = dir.join("modal.ps1");
        std::fs::write(&ps1, script).unwrap();
        let mut cmd = Command::new("powershell.exe");
        cmd.args([
            "-NoProfile",
            "-NonInteractive",
            "-ExecutionPolicy",
            "Bypass",
            "-File",
        ])
        .arg(&ps1);
        let pid = c.spawn(&mut cmd, "powershell.exe");
        let owner = Target {
            window: Some(title.clone()),
            pid: Some(pid),
            ..Target::default()
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !ready.exists() {
            assert!(
                Instant::now() < deadline,
                "the WinForms window never showed"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        shown(&d, &owner, "the WinForms window").await;

        // The click (through Invoke) answers within the call timeout, taken as done: the app
        // still answers, its dialog is up. Not APP_UNRESPONSIVE after waiting on a dialog
        // nobody closes.
        let t0 = Instant::now();
        let r = act(&d, &owner, by_text("Open dialog", Role::Button), click()).await;
        let took = t0.elapsed();
        assert_eq!(r.route, Route::A11y, "{r:?}");
        assert!(took < timeout, "the click took {took:?}");

        // The dialog is listed and reads while the click's handler waits on it.
        let modal = Target {
            window: Some(dialog.clone()),
            pid: Some(pid),
            ..Target::default()
        };
        shown(&d, &modal, "the modal dialog").await;
        let data = read(&d, &modal, &plain()).await;
        assert!(
            any(&data.elements, |n| n.role == Role::Button
                && n.name == "Close dialog"),
            "the dialog's button reads:\n{}",
            read_text(&data, false)
        );
        assert!(!closed.exists(), "the dialog closed by itself");

        // Closed through its own button: the first click's handler goes on, and the window
        // beneath answers again.
        act(&d, &modal, by_text("Close dialog", Role::Button), click()).await;
        let deadline = Instant::now() + Duration::from_secs(10);
        while !closed.exists() {
            assert!(
                Instant::now() < deadline,
                "the first click's handler never went on"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let data = read(&d, &owner, &plain()).await;
        assert!(
            any(&data.elements, |n| n.role == Role::Button
                && n.name == "Open dialog"),
            "the window reads again:\n{}",
            read_text(&data, false)
        );
    });
}
