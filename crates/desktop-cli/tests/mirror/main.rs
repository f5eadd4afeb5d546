//! The long-lived faces read through mirrors of the apps' trees kept by the apps' own change
//! signals. Here one MCP server (over stdio) reads windows that change themselves at random
//! (insert, remove, rename, toggle, enable, hide or show, move: tests/fixtures/churn*) in
//! GTK 3, GTK 4, Qt 5 and Chromium, and every mirror read is compared with fresh reads by
//! new processes around it (`DESKTOP_CLI_DIRECT`: read by the process itself): while the
//! app holds still they must be identical. So must the keeper's answer to a command line's
//! `read`, with nothing having waited for the keeper to see the change.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod aging;
mod mcp;
mod quiet;
mod server;

use desktop_testkit::{repo_root, wait_until, Desk};
use serde_json::Value;
use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");

/// Rounds per app; each makes up to five random changes.
const ROUNDS: u32 = 120;

pub struct Env {
    desk: Mutex<Desk>,
    mcp: Mutex<mcp::Client>,
    fifos: Vec<(&'static str, std::path::PathBuf)>,
    page: server::Server,
    silent: server::Server,
}

/// How a test tells its app to change: (step, seed, count).
enum Driver<'a> {
    Fifo(&'a std::path::Path),
    Page(&'a server::Server),
}

impl Driver<'_> {
    fn send(&self, step: u32, seed: u32, count: u32) {
        self.line(&format!("{step} {seed} {count}"));
    }

    /// One line of the fixture's commands.
    fn line(&self, line: &str) {
        match self {
            Driver::Fifo(path) => {
                let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
                f.write_all(format!("{line}\n").as_bytes()).unwrap();
            }
            Driver::Page(server) => server.set_step(line),
        }
    }
}

/// The elements of a read, as compared: the whole answer but the window's own line.
fn elements(data: &Value) -> Value {
    data["elements"].clone()
}

/// Every element on a line of its own (children left out), depth first.
fn lines(elements: &Value) -> Vec<String> {
    fn walk(es: &Value, depth: usize, out: &mut Vec<String>) {
        for e in es.as_array().into_iter().flatten() {
            let mut own = e.clone();
            if let Some(o) = own.as_object_mut() {
                o.remove("c");
            }
            out.push(format!("{}{own}", "  ".repeat(depth)));
            walk(&e["c"], depth + 1, out);
        }
    }
    let mut out = Vec::new();
    walk(elements, 0, &mut out);
    out
}

/// Where two reads part, with a few elements of context.
fn first_difference(mirror: &Value, fresh: &Value) -> String {
    let (m, f) = (lines(mirror), lines(fresh));
    let at = m.iter().zip(&f).take_while(|(a, b)| a == b).count();
    let show = |v: &[String]| {
        v.iter()
            .skip(at.saturating_sub(1))
            .take(4)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n      ")
    };
    format!(
        "element {at} of {} (mirror) / {} (fresh)\n  mirror {}\n  fresh  {}",
        m.len(),
        f.len(),
        show(&m),
        show(&f)
    )
}

fn shows(data: &Value, text: &str) -> bool {
    data["elements"]
        .to_string()
        .contains(&format!("\"{text}\""))
}

/// A command line's read on `desk`, answered by the keeper, with what `--timing` said.
fn kept_on(desk: &Desk, window: &str, more: &[&str]) -> (Value, String) {
    let mut args = vec![
        "read",
        "--window",
        window,
        "--max-elements",
        "500",
        "--timing",
    ];
    args.extend(more);
    let run = desk.cli_with(&args, &[]);
    assert_eq!(run.code, 0, "keeper's read of {window}: {}", run.stdout);
    assert!(
        run.stderr.contains("timing: keeper"),
        "the keeper answered the read of {window}: {}",
        run.stderr
    );
    let stderr = run.stderr.clone();
    (run.data(), stderr)
}

impl Env {
    /// A read by a process of its own, from scratch.
    fn fresh(&self, window: &str) -> Value {
        self.fresh_with(window, &[])
    }

    /// [`Env::fresh`], with more of `read`'s options.
    fn fresh_with(&self, window: &str, more: &[&str]) -> Value {
        let mut args = vec!["read", "--window", window, "--max-elements", "500"];
        args.extend(more);
        let run = self
            .desk
            .lock()
            .unwrap()
            .cli_with(&args, &[("DESKTOP_CLI_DIRECT", "1")]);
        assert_eq!(run.code, 0, "fresh read of {window}: {}", run.stdout);
        run.data()
    }

    /// A command line's read, answered by the keeper through its mirrors, with what
    /// `--timing` said.
    fn kept_with_timing(&self, window: &str) -> (Value, String) {
        self.kept_with(window, &[])
    }

    /// [`Env::kept_with_timing`], with more of `read`'s options.
    fn kept_with(&self, window: &str, more: &[&str]) -> (Value, String) {
        kept_on(&self.desk.lock().unwrap(), window, more)
    }

    fn mirrored(&self, window: &str) -> Value {
        self.mcp.lock().unwrap().call(
            "read",
            serde_json::json!({"window": window, "interactive": false, "max_elements": 500, "bounds": true, "page": false}),
        )
    }

    /// `ROUNDS` rounds of random changes; after each, the mirror must come to show the
    /// round's marker, and a mirror read taken between two identical fresh reads must be
    /// identical to them. The MCP server reads whole windows; the keeper reads only their
    /// controls (`-i`), so its answer from the round before may be given again, changes of
    /// what it does not show taken in (`absorbed` in its timing, counted: at least
    /// `absorbing` rounds must have been).
    fn churn(&self, window: &str, driver: Driver<'_>, absorbing: u32) {
        // The first read fills the mirror.
        let first = self.mirrored(window);
        assert!(
            shows(&first, "step 0"),
            "{window} starts at step 0: {first}"
        );
        let (mut compared, mut unsettled, mut absorbed, mut beside) = (0, 0, 0, 0);
        let mut differences = Vec::new();
        for step in 1..=ROUNDS {
            let seed = step * 7919 + window.len() as u32;
            // Zero to five changes: a round of none changes only the marker, which a read
            // of controls alone does not show.
            driver.send(step, seed, seed % 6);
            // Every other round, two of the keeper's reads racing the change: their walks
            // are out while the app signals it, and what one takes in must reach the mirror
            // the other hands back (their own answers may catch the change half made: not
            // compared). The other rounds leave the keeper's last answer as it was, for it
            // to take in changes outside it.
            if step % 2 == 1 {
                let desk = self.desk.lock().unwrap();
                let race = |more: &[&str]| {
                    let mut args = vec!["read", "--window", window, "--max-elements", "500"];
                    args.extend(more);
                    desk.cli_with(&args, &[]);
                };
                std::thread::scope(|s| {
                    s.spawn(|| race(&["-i"]));
                    race(&[]);
                });
            }
            let marker = format!("step {step}");
            wait_until(
                Duration::from_secs(3),
                &format!("the mirror of {window} to show {marker:?}"),
                || shows(&self.mirrored(window), &marker).then_some(()),
            );
            // The keeper is read right after a fresh read: nothing has waited for it to see
            // the change. (Read before that, it may catch GTK 3 still laying the window out,
            // as a fresh read then would.)
            let before = elements(&self.fresh(window));
            let controls = elements(&self.fresh_with(window, &["-i"]));
            // Two of the keeper's reads at once, of the controls and of the whole window:
            // they walk the window side by side (one through its mirror, the other afresh),
            // and what either takes in must reach the mirror kept after both.
            let ((kept, timing), (whole, whole_timing)) = {
                let desk = self.desk.lock().unwrap();
                std::thread::scope(|s| {
                    let controls = s.spawn(|| kept_on(&desk, window, &["-i"]));
                    let whole = kept_on(&desk, window, &[]);
                    (controls.join().unwrap(), whole)
                })
            };
            let (kept, whole) = (elements(&kept), elements(&whole));
            if timing.contains("beside=") || whole_timing.contains("beside=") {
                beside += 1;
            }
            let mirror = elements(&self.mirrored(window));
            let controls_after = elements(&self.fresh_with(window, &["-i"]));
            let after = elements(&self.fresh(window));
            if before != after || controls != controls_after {
                unsettled += 1;
                continue;
            }
            if !timing.contains("absorbed=0.0") && timing.contains("absorbed=") {
                absorbed += 1;
            }
            compared += 1;
            if mirror != before {
                differences.push(format!(
                    "step {step}, MCP: {}",
                    first_difference(&mirror, &before)
                ));
            }
            if kept != controls {
                differences.push(format!(
                    "step {step}, keeper (-i): {}",
                    first_difference(&kept, &controls)
                ));
            }
            if whole != before {
                differences.push(format!(
                    "step {step}, keeper (whole, beside -i): {}",
                    first_difference(&whole, &before)
                ));
            }
        }
        eprintln!("{window}: {compared} rounds compared, {unsettled} with the app still changing, {absorbed} answered by taking in changes outside the keeper's answer, {beside} with the keeper's two reads walking side by side");
        assert!(
            differences.is_empty(),
            "{} of {compared} mirror reads of {window} differ from fresh reads:\n{}",
            differences.len(),
            differences.join("\n")
        );
        assert!(
            compared >= ROUNDS * 2 / 3,
            "only {compared} of {ROUNDS} rounds of {window} held still long enough to compare"
        );
        // Two processes started at once reach the keeper within a millisecond or two, and a
        // walk takes longer: most rounds' reads overlap (`beside` in their timing).
        assert!(
            beside >= ROUNDS / 4,
            "the keeper's two reads walked side by side in only {beside} rounds of {window}"
        );
        assert!(
            absorbed >= absorbing,
            "the keeper took in changes outside its answer in {absorbed} rounds of {window}, fewer than {absorbing}"
        );
    }

    fn fifo(&self, app: &str) -> &std::path::Path {
        &self.fifos.iter().find(|(a, _)| *a == app).unwrap().1
    }
}

fn gtk3(env: &Env) {
    env.churn("Churn GTK3", Driver::Fifo(env.fifo("gtk3")), 0);
}

fn gtk4(env: &Env) {
    env.churn("Churn GTK4", Driver::Fifo(env.fifo("gtk4")), 0);
}

fn qt5(env: &Env) {
    env.churn("Churn Qt5", Driver::Fifo(env.fifo("qt5")), 0);
}

fn chromium(env: &Env) {
    env.churn("Churn Page", Driver::Page(&env.page), 1);
}

/// The server keeps the window list a target named while nothing about the windows changed:
/// a window that opens, a modal dialog in front and a window that closes are each seen by the
/// very next call, with no pause.
fn window_lists(env: &Env) {
    let read = |args: Value| env.mcp.lock().unwrap().try_call("read", args);
    let form = serde_json::json!({"window": "GTK Form", "interactive": true});
    assert!(read(form.clone()).is_err(), "no GTK Form is open yet");
    let pid = env.desk.lock().unwrap().python_app("form_gtk.py");
    let data = read(form.clone()).expect("the form, once open");
    assert_eq!(data["window"]["title"], "GTK Form");
    let ask = data["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["t"] == "Ask")
        .unwrap_or_else(|| panic!("an Ask button: {data}"))["i"]
        .clone();
    env.mcp.lock().unwrap().call(
        "click",
        serde_json::json!({"id": ask, "window": "GTK Form"}),
    );
    // The app's modal dialog is where its input goes: the app's read is the dialog's.
    let app = serde_json::json!({"app": "form_gtk.py"});
    wait_until(Duration::from_secs(5), "the dialog in front", || {
        let d = read(app.clone()).ok()?;
        (d["window"]["title"] == "Question").then_some(())
    });
    env.desk.lock().unwrap().stop_app(pid);
    let gone = read(form);
    assert!(gone.is_err(), "a closed window is not read: {gone:?}");
    assert!(read(app).is_err(), "nor is its app's");
}

/// Starts a Chromium of its own (its profile in `profile`) on `url`, in a window at `place`
/// ("x,y") of `size` ("w,h").
fn browser(desk: &mut Desk, profile: &std::path::Path, url: &str, place: &str, size: &str) {
    let profile_arg = format!("--user-data-dir={}", profile.display());
    let place_arg = format!("--window-position={place}");
    let size_arg = format!("--window-size={size}");
    desk.launch(
        &[
            "chromium",
            "--no-sandbox",
            "--force-renderer-accessibility",
            "--test-type",
            "--disable-gpu",
            "--no-first-run",
            "--disable-sync",
            "--disable-background-networking",
            "--disable-component-update",
            &place_arg,
            &size_arg,
            &profile_arg,
            url,
        ],
        "chromium",
    );
}

fn main() {
    let mut desk = Desk::start(BIN);
    let dir = desk.temp_dir("mirror");
    let fixtures = repo_root().join("tests/fixtures");
    let mut fifos = Vec::new();
    for (app, script, extra, title) in [
        ("gtk3", "churn_gtk.py", None, "Churn GTK3"),
        ("gtk4", "churn_gtk.py", Some("4"), "Churn GTK4"),
        ("qt5", "churn_qt.py", None, "Churn Qt5"),
        ("gtk3-silent", "silent_gtk.py", None, "Silent GTK3"),
        ("gtk4-silent", "silent_gtk.py", Some("4"), "Silent GTK4"),
    ] {
        let fifo = dir.join(app);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success(), "mkfifo {}", fifo.display());
        let script = fixtures.join(script);
        let mut cmd = vec![
            "/usr/bin/python3",
            script.to_str().unwrap(),
            fifo.to_str().unwrap(),
        ];
        cmd.extend(extra);
        desk.launch(&cmd, title);
        fifos.push((app, fifo));
    }
    let page = server::Server::start(&fixtures.join("churn.html"));
    // Side by side: a window covered by another one is never answered again (`quiet`), and
    // the keeper's answers to the churning page are to be given again.
    browser(
        &mut desk,
        &dir.join("chromium"),
        &page.url(),
        "0,0",
        "640,780",
    );
    desk.wait_for_text("chromium", "step 0", 20);
    // A second browser, for the page that changes silently (`quiet`).
    let silent = server::Server::start(&fixtures.join("silent.html"));
    browser(
        &mut desk,
        &dir.join("chromium-silent"),
        &silent.url(),
        "650,0",
        "630,600",
    );
    wait_until(Duration::from_secs(30), "the silent page", || {
        let run = desk.cli(&["read", "--window", "Silent Page", "--text", "Silent page"]);
        (run.code == 0 && run.json()["data"]["count"].as_u64().unwrap_or(0) > 0).then_some(())
    });
    let mcp = mcp::Client::start(BIN, desk.env());
    let env = Env {
        desk: Mutex::new(desk),
        mcp: Mutex::new(mcp),
        fifos,
        page,
        silent,
    };
    let tests: Vec<desktop_testkit::NamedTest<Env>> = vec![
        ("mirror_matches_fresh_reads_gtk3", gtk3),
        ("mirror_matches_fresh_reads_gtk4", gtk4),
        ("mirror_matches_fresh_reads_qt5", qt5),
        ("mirror_matches_fresh_reads_chromium", chromium),
        ("quiet_answers_follow_silent_changes", quiet::silent_changes),
        (
            "pixels_answer_animated_windows_and_see_silent_scrolls",
            quiet::silent_scrolls_gtk3,
        ),
        (
            "restless_drawing_is_learned_and_silent_scrolls_still_seen_gtk4",
            quiet::silent_scrolls_gtk4,
        ),
        ("window_lists_follow_windows_at_once", window_lists),
        (
            "mirror_in_use_is_walked_afresh_before_it_ages",
            aging::refilled_before_aging,
        ),
        (
            "quiet_answer_lasts_a_turn_and_sees_changes",
            aging::answer_lasts_a_turn,
        ),
        (
            "window_that_drew_once_is_answered_like_any_after",
            aging::drew_once,
        ),
    ];
    desktop_testkit::run_tests(env, tests, |env, name| {
        env.desk.lock().unwrap().screenshot(name)
    });
}
