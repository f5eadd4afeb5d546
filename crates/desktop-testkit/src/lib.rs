//! Test harness: starts a private sandbox through the real `desktop-cli` binary, launches
//! real apps into it, runs CLI commands as processes, and reads apps back independently
//! with pyatspi. Everything it started is stopped when the `Desk` is dropped.

#![allow(clippy::print_stderr, clippy::unwrap_used)]

pub mod bed;

pub use bed::Bed;
use rustix::process::{kill_process, Pid, Signal};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A named test of a binary's shared desktop `E`.
pub type NamedTest<E> = (&'static str, fn(&E));

/// Runs `tests` one at a time (one desktop, one pointer, one keyboard focus) with the
/// arguments `cargo test` passed, each failure reported with a screenshot of the display
/// (`shot`), then drops `env` (stopping what it started) and exits with the run's status.
pub fn run_tests<E: Send + Sync + 'static>(
    env: E,
    tests: Vec<NamedTest<E>>,
    shot: fn(&E, &str) -> String,
) -> ! {
    use libtest_mimic::{Arguments, Trial};
    let mut args = Arguments::from_args();
    args.test_threads = Some(1);
    let env = std::sync::Arc::new(env);
    let trials = tests
        .into_iter()
        .map(|(name, f)| {
            let env = std::sync::Arc::clone(&env);
            Trial::test(name, move || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&env))).map_err(|e| {
                    let msg = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    let shot = shot(&env, name);
                    format!("{msg}\n(screenshot of the display: {shot})").into()
                })
            })
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    drop(env);
    conclusion.exit()
}

/// Every element of a read's `data` (its `elements`, then each one's `c`), depth first.
pub fn all(data: &Value) -> Vec<Value> {
    fn walk(es: &Value, out: &mut Vec<Value>) {
        for e in es.as_array().into_iter().flatten() {
            out.push(e.clone());
            walk(&e["c"], out);
        }
    }
    let mut out = Vec::new();
    walk(&data["elements"], &mut out);
    out
}

/// Polls `check` every 20 ms until it returns `Some`, failing the test with `what` after
/// `timeout`.
pub fn wait_until<T>(timeout: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The result of one CLI run.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The envelope on stdout, parsed.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not one JSON document ({e}): {}\nstderr: {}",
                self.stdout, self.stderr
            )
        })
    }

    /// `data` of a successful envelope; panics with the error otherwise.
    pub fn data(&self) -> Value {
        let j = self.json();
        assert_eq!(
            j["ok"], true,
            "command failed: {j}\nstderr: {}",
            self.stderr
        );
        assert_eq!(self.code, 0);
        j["data"].clone()
    }

    /// The error code of a failed envelope.
    pub fn error_code(&self) -> String {
        let j = self.json();
        assert_eq!(j["ok"], false, "expected a failure: {j}");
        j["error"]["code"].as_str().unwrap_or_default().to_string()
    }
}

/// A private sandbox with the apps a test binary needs.
pub struct Desk {
    bin: PathBuf,
    pub display: String,
    env: Vec<(String, String)>,
    leader: i32,
    apps: Vec<Child>,
    temp: Vec<PathBuf>,
    /// The working directory of every command run: a file a command writes by a relative
    /// path lands here, never in the checkout.
    work: PathBuf,
    /// The Debian 13 bed every program runs in, when `DESKTOP_CLI_TEST_ROOT` names one.
    bed: Option<Arc<Bed>>,
}

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desk")
            .field("display", &self.display)
            .finish()
    }
}

/// The repository root (for fixtures and support scripts).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

impl Desk {
    /// Starts a fresh sandbox with `bin` (the `desktop-cli` under test).
    pub fn start(bin: &str) -> Desk {
        Desk::start_with(bin, &[])
    }

    /// Starts a fresh sandbox with `sandbox up` options (`--wm`, `--outputs 2`, `--size`).
    pub fn start_with(bin: &str, options: &[&str]) -> Desk {
        let bed = Bed::from_env(Path::new(bin));
        let mut up = in_bed(bed.as_deref(), bin, Path::new("/"));
        if bed.is_some() {
            // Apps in the bed keep their settings and caches in the tests' own directory,
            // never in the cached bed.
            up.env("HOME", std::env::temp_dir());
        }
        let out = up
            .args(["sandbox", "up"])
            .args(options)
            .env_remove("DESKTOP_CLI_SANDBOX")
            .output()
            .expect("run desktop-cli sandbox up");
        let run = to_run(out);
        let data = run.data();
        let env: Vec<(String, String)> = data["env"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        let leader = data["pids"][0]["pid"].as_i64().unwrap() as i32;
        let display = data["display"].as_str().unwrap().to_string();
        let work = std::env::temp_dir().join(format!(
            "desktop-cli-test-work-{}-{}",
            std::process::id(),
            display.trim_start_matches(':')
        ));
        std::fs::create_dir_all(&work).expect("create the tests' working directory");
        // The activity log of every command the tests run lands in their working directory,
        // never in the user's own state.
        let mut env = env;
        env.push((
            "XDG_STATE_HOME".into(),
            work.join("state").display().to_string(),
        ));
        if bed.is_some() {
            let home = work.join("home");
            std::fs::create_dir_all(&home).expect("create the bed's home directory");
            env.push(("HOME".into(), home.display().to_string()));
        }
        Desk {
            bin: PathBuf::from(bin),
            display,
            env,
            leader,
            apps: Vec::new(),
            temp: vec![work.clone()],
            work,
            bed,
        }
    }

    /// The Debian 13 bed this desk runs in, if any.
    pub fn bed(&self) -> Option<&Bed> {
        self.bed.as_deref()
    }

    /// `program` as this desk runs it: inside the bed when there is one, in the tests'
    /// working directory, with the sandbox's environment.
    pub fn command(&self, program: &str) -> Command {
        let mut c = in_bed(self.bed.as_deref(), program, &self.work);
        c.envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env_remove("AT_SPI_BUS_ADDRESS")
            .current_dir(&self.work);
        c
    }

    /// The sandbox's environment, for programs a test starts itself.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// Where the commands run here keep their activity log.
    pub fn activity_dir(&self) -> PathBuf {
        self.work.join("state/desktop-cli")
    }

    /// Runs `desktop-cli ARGS` inside the sandbox.
    pub fn cli(&self, args: &[&str]) -> Run {
        let out = self
            .command(&self.bin.to_string_lossy())
            .args(args)
            .output()
            .expect("run desktop-cli");
        to_run(out)
    }

    /// Runs `desktop-cli ARGS` with `vars` added to its environment.
    pub fn cli_with(&self, args: &[&str], vars: &[(&str, &str)]) -> Run {
        let out = self
            .command(&self.bin.to_string_lossy())
            .args(args)
            .envs(vars.iter().copied())
            .output()
            .expect("run desktop-cli");
        to_run(out)
    }

    /// Runs `desktop-cli ARGS` with arguments that need not be UTF-8, stdin closed.
    pub fn cli_os(&self, args: &[std::ffi::OsString]) -> Run {
        let out = self
            .command(&self.bin.to_string_lossy())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run desktop-cli");
        to_run(out)
    }

    /// Starts `desktop-cli ARGS` in the background with its stdout piped (for `observe`).
    pub fn spawn_cli(&self, args: &[&str]) -> Child {
        self.spawn_cli_with(args, &[])
    }

    /// [`Desk::spawn_cli`] with extra environment variables.
    pub fn spawn_cli_with(&self, args: &[&str], vars: &[(&str, &str)]) -> Child {
        self.command(&self.bin.to_string_lossy())
            .args(args)
            .envs(vars.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn desktop-cli")
    }

    /// Runs another program with the sandbox's environment and returns its output. With
    /// `detaches` the output is not captured: a program that leaves a background process
    /// behind (xclip -i) would keep the pipes open forever.
    pub fn run_with_env(
        &self,
        program: &str,
        args: &[&str],
        stdin: Option<&str>,
        detaches: bool,
    ) -> Output {
        use std::io::Write;
        let out = || {
            if detaches {
                Stdio::null()
            } else {
                Stdio::piped()
            }
        };
        let mut child = self
            .command(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(out())
            .stderr(out())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
        if let Some(mut pipe) = child.stdin.take() {
            if let Some(text) = stdin {
                let _ = pipe.write_all(text.as_bytes());
            }
        }
        child.wait_with_output().expect("wait")
    }

    /// Starts a program in the sandbox (in its process group, so `sandbox down` would stop
    /// it too) and waits until `app` shows a window in `desktop-cli list`.
    pub fn launch(&mut self, cmd: &[&str], app: &str) -> u32 {
        let pid = self.start_app(cmd);
        wait_until(
            Duration::from_secs(30),
            &format!("a window of {app}"),
            || {
                let run = self.cli(&["list", "--app", app]);
                let ws = (run.code == 0).then(|| run.json()["data"]["windows"].clone())?;
                // A titled window whose accessibility tree is up: the X window can come
                // well before the app's accessibility bridge (Java's) registers it.
                ws.as_array()?
                    .iter()
                    .any(|w| w["title"] != "" && w["a11y"] != false)
                    .then_some(pid)
            },
        )
    }

    /// Starts a program in the sandbox as [`Desk::launch`] does, without waiting for its
    /// window (a test that reads it while it starts); stopped with the desk.
    pub fn start_app(&mut self, cmd: &[&str]) -> u32 {
        use std::os::unix::process::CommandExt;
        // As `sandbox run` does, apps find the bus through the sandbox's X root window
        // (`command` takes AT_SPI_BUS_ADDRESS away).
        let child = self
            .command(cmd[0])
            .args(&cmd[1..])
            .process_group(self.leader)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
        let pid = child.id();
        self.apps.push(child);
        pid
    }

    pub fn gtk3_widget_factory(&mut self) -> u32 {
        self.launch(&["gtk3-widget-factory"], "gtk3-widget-factory")
    }

    /// Chromium showing `tests/fixtures/<page>` (the fixture page's heading), with a
    /// throwaway profile.
    pub fn chromium(&mut self, page: &str) -> u32 {
        self.chromium_page(page, "Fixture Page")
    }

    /// Chromium showing `tests/fixtures/<page>` in a fresh profile of its own, once the
    /// page's `heading` can be read.
    pub fn chromium_page(&mut self, page: &str, heading: &str) -> u32 {
        self.chromium_page_under(&[], page, heading)
    }

    /// The same, started through `wrapper` (`dbus-run-session --`: a session bus of its
    /// own, without the sandbox's desktop portal); the pid is the wrapper's.
    pub fn chromium_page_under(&mut self, wrapper: &[&str], page: &str, heading: &str) -> u32 {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let profile = std::env::temp_dir().join(format!(
            "desktop-cli-test-chromium-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&profile);
        self.temp.push(profile.clone());
        let url = format!(
            "file://{}",
            repo_root().join("tests/fixtures").join(page).display()
        );
        let profile_arg = format!("--user-data-dir={}", profile.display());
        let cmd = [
            wrapper,
            &[
                "chromium",
                "--no-sandbox",
                "--force-renderer-accessibility",
                "--test-type",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-features=Translate",
                "--window-position=0,0",
                "--window-size=1200,780",
                &profile_arg,
                &url,
            ],
        ]
        .concat();
        let pid = self.launch(&cmd, "chromium");
        self.wait_for_text("chromium", heading, 20);
        pid
    }

    /// A Python fixture app (`tests/fixtures/<script>`, GTK3 or Qt5) once its window shows.
    pub fn python_app(&mut self, script: &str) -> u32 {
        let path = repo_root().join("tests/fixtures").join(script);
        let path = path.to_string_lossy().into_owned();
        self.launch(&["/usr/bin/python3", &path], script)
    }

    /// A fresh directory under the system's temporary folder, removed with the desk
    /// (an app's profile, a compiled fixture).
    pub fn temp_dir(&mut self, name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("desktop-cli-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temporary directory");
        self.temp.push(dir.clone());
        dir
    }

    /// Whether a process this test started is still running.
    pub fn alive(&mut self, pid: u32) -> bool {
        self.apps
            .iter_mut()
            .find(|c| c.id() == pid)
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// Stops a program this test started (TERM, then KILL after 3 s).
    pub fn stop_app(&mut self, pid: u32) {
        let Some(at) = self.apps.iter().position(|c| c.id() == pid) else {
            return;
        };
        let mut child = self.apps.remove(at);
        if let Some(p) = Pid::from_raw(pid as i32) {
            let _ = kill_process(p, Signal::TERM);
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// A reader of named elements with libatspi, for checking what actions did.
    pub fn fields(&self) -> Fields {
        let mut child = self
            .command("/usr/bin/python3")
            .arg(repo_root().join("tests/support/atspi_fields.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run atspi_fields.py");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Fields {
            child,
            stdin,
            stdout,
        }
    }

    pub fn featherpad(&mut self) -> u32 {
        self.launch(&["featherpad"], "featherpad")
    }

    /// Polls `read --app APP --text TEXT` until something matches.
    pub fn wait_for_text(&self, app: &str, text: &str, secs: u64) {
        wait_until(
            Duration::from_secs(secs),
            &format!("{text:?} in {app}"),
            || {
                let run = self.cli(&["read", "--app", app, "--text", text]);
                (run.code == 0 && run.json()["data"]["count"].as_u64().unwrap_or(0) > 0)
                    .then_some(())
            },
        );
    }

    /// Saves a PNG of the whole display under `target/test-screenshots/` (for a failed
    /// test); returns its path, or why there is none.
    pub fn screenshot(&self, name: &str) -> String {
        let dir = repo_root().join("target/test-screenshots");
        let _ = std::fs::create_dir_all(&dir);
        let file: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let path = dir.join(format!("{file}.png"));
        // A Wayland sandbox has no X display for `import`: grim asks the compositor.
        let wayland = self.env.iter().any(|(k, _)| k == "WAYLAND_DISPLAY");
        let mut cmd = if wayland {
            self.command("grim")
        } else {
            let mut c = self.command("import");
            c.args(["-window", "root"]);
            c
        };
        let out = cmd.arg(&path).output();
        match out {
            Ok(o) if o.status.success() => path.display().to_string(),
            Ok(o) => format!("none ({})", String::from_utf8_lossy(&o.stderr).trim()),
            Err(e) => format!("none ({e})"),
        }
    }

    /// Every showing element of APP's window as pyatspi (libatspi) sees it.
    pub fn atspi_dump(&self, app: &str, window: &str) -> Vec<Value> {
        let script = repo_root().join("tests/support/atspi_dump.py");
        let out = self
            .command("/usr/bin/python3")
            .arg(script)
            .args([app, window])
            .output()
            .expect("run atspi_dump.py");
        serde_json::from_slice::<Value>(&out.stdout)
            .unwrap_or_else(|e| panic!("atspi_dump: {e}: {}", String::from_utf8_lossy(&out.stderr)))
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

/// libatspi's view of a window's named elements (`tests/support/atspi_fields.py`): per
/// name, `role`, `text` (never a password's), `count`, `checked`, `focused`.
pub struct Fields {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl std::fmt::Debug for Fields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Fields")
    }
}

impl Fields {
    /// One request line, its one answer line (a window must have been found).
    fn ask(&mut self, request: &str, window: &str) -> Value {
        writeln!(self.stdin, "{request}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("atspi_fields.py answered {line:?}: {e}"));
        assert_eq!(v["found"], true, "no window {window:?} for libatspi");
        v
    }

    /// The named elements of the first window whose title contains `window`.
    pub fn read(&mut self, window: &str) -> Value {
        self.ask(window, window)["fields"].clone()
    }

    /// The text of a spreadsheet's cell (`A4`), asked of the sheet's Table interface.
    pub fn cell(&mut self, window: &str, address: &str) -> String {
        self.ask(&format!("cell:{address}:{window}"), window)["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The text attributes at `word` in the first text of the window holding it.
    pub fn attrs(&mut self, window: &str, word: &str) -> Value {
        self.ask(&format!("attrs:{word}:{window}"), window)["attrs"].clone()
    }

    /// Milliseconds the window took to answer two plain AT-SPI calls.
    pub fn ping(&mut self, window: &str) -> f64 {
        self.ask(&format!("ping:{window}"), window)["ms"]
            .as_f64()
            .unwrap_or(f64::MAX)
    }

    /// The text of the element named `name` (panics when it has none).
    pub fn text(&mut self, window: &str, name: &str) -> String {
        let f = self.read(window);
        f[name]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text for {name:?} in {window:?}: {}", f[name]))
            .to_string()
    }
}

impl Drop for Fields {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Desk {
    fn drop(&mut self) {
        for child in &mut self.apps {
            if let Some(pid) = Pid::from_raw(child.id() as i32) {
                let _ = kill_process(pid, Signal::TERM);
            }
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        for child in &mut self.apps {
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        let display = self.display.trim_start_matches(':').to_string();
        // A sandbox left running outlives the test run: say so, with why.
        match in_bed(
            self.bed.as_deref(),
            &self.bin.to_string_lossy(),
            Path::new("/"),
        )
        .args(["sandbox", "down", "--display", &display])
        .output()
        {
            Ok(out) if out.status.success() => {}
            Ok(out) => eprintln!(
                "desktop-testkit: sandbox :{display} was not stopped: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => eprintln!("desktop-testkit: sandbox :{display} was not stopped: {e}"),
        }
        for dir in &self.temp {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// `program`, inside `bed` when there is one, in `cwd`.
fn in_bed(bed: Option<&Bed>, program: &str, cwd: &Path) -> Command {
    match bed {
        Some(bed) => bed.command(program, cwd),
        None => {
            let mut c = Command::new(program);
            c.current_dir(cwd);
            c
        }
    }
}

fn to_run(out: Output) -> Run {
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
