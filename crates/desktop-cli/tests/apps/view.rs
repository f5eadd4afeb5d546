//! `view` on the shared desktop: every endpoint refuses a missing or wrong token (401), a
//! foreign Host (403) and a foreign Origin on `POST /stop` (403); the page loads nothing from
//! elsewhere; an action done meanwhile (a click on Chromium's Increment, read back by
//! libatspi) reaches `/events` as its activity line with the element's box, and the change it
//! draws reaches a new frame that differs from the one before. The Stop button's effect on an
//! agent run is tested with the agent (`agent::kill_switch_corner_and_ctrl_c`). And the page
//! itself, opened in Chromium on the same desktop and read back with `read`: the frame is
//! there, and a CLI `type` and an MCP `click` done meanwhile appear as its rows.

use crate::act::counter;
use crate::{Env, Test, BIN};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const TESTS: &[(&str, Test)] = &[
    ("view::guarded_live_frames_and_actions", guarded_live),
    (
        "view::page_in_chromium_shows_cli_and_mcp_actions",
        in_chromium,
    ),
];

/// A running `view`, stopped on drop.
pub struct View {
    child: Child,
    /// `127.0.0.1:PORT`
    pub addr: String,
    pub token: String,
}

impl View {
    pub fn start(env: &Env) -> View {
        let mut child = Command::new(BIN)
            .arg("view")
            .envs(env.desk.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env_remove("AT_SPI_BUS_ADDRESS")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let v: Value = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}: {first}"));
        let url = v["data"]["url"].as_str().unwrap_or_else(|| panic!("{v}"));
        let rest = url.strip_prefix("http://").unwrap();
        let (addr, query) = rest.split_once("/?token=").unwrap();
        assert!(addr.starts_with("127.0.0.1:"), "{url}");
        View {
            child,
            addr: addr.to_string(),
            token: query.to_string(),
        }
    }

    /// One request; the status and the body.
    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)]) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut req =
            format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: 0\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: {}\r\n", self.addr));
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let mut body = raw[split + 4..].to_vec();
        if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            body = unchunk(&body);
        }
        (status, body)
    }

    pub fn stop(&self) -> u16 {
        let bearer = format!("Bearer {}", self.token);
        self.request("POST", "/stop", &[("Authorization", &bearer)])
            .0
    }

    /// The event stream: each event (its lines joined) as it comes.
    pub fn events(&self) -> mpsc::Receiver<String> {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        write!(
            s,
            "GET /events?token={} HTTP/1.1\r\nHost: {}\r\n\r\n",
            self.token, self.addr
        )
        .unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut event = String::new();
            for line in BufReader::new(s).lines() {
                let Ok(line) = line else { return };
                // Chunk sizes of the chunked body are lines of hex digits alone.
                if line.starts_with("data:") || line.starts_with("event:") {
                    event.push_str(&line);
                    event.push('\n');
                } else if line.is_empty()
                    && !event.is_empty()
                    && tx.send(std::mem::take(&mut event)).is_err()
                {
                    return;
                }
            }
        });
        rx
    }
}

impl Drop for View {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = b.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(std::str::from_utf8(&b[..end]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&b[end + 2..end + 2 + size]);
        b = &b[end + 2 + size + 2..];
    }
    out
}

/// The next event that passes `want`, within `limit`.
pub fn next(rx: &mpsc::Receiver<String>, limit: Duration, want: impl Fn(&str) -> bool) -> String {
    let end = Instant::now() + limit;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(e) if want(&e) => return e,
            Ok(_) => {}
            Err(_) => panic!("no such event within {limit:?}"),
        }
    }
}

fn guarded_live(env: &Env) {
    let view = View::start(env);
    let t = format!("?token={}", view.token);
    // Every endpoint: no token, a wrong one, a foreign Host.
    for path in ["/", "/frame.jpg", "/events"] {
        assert_eq!(view.request("GET", path, &[]).0, 401, "{path}");
        let wrong = format!("{path}?token=0123456789abcdef0123456789abcdef");
        assert_eq!(view.request("GET", &wrong, &[]).0, 401, "{path}");
        let with = format!("{path}{t}");
        let host = [("Host", "evil.example:80")];
        assert_eq!(view.request("GET", &with, &host).0, 403, "{path}");
    }
    assert_eq!(view.request("POST", "/stop", &[]).0, 401);
    let bearer = format!("Bearer {}", view.token);
    let foreign = [
        ("Authorization", bearer.as_str()),
        ("Origin", "http://evil.example"),
    ];
    assert_eq!(view.request("POST", &format!("/stop{t}"), &foreign).0, 403);
    assert_eq!(view.request("GET", &format!("/nothing{t}"), &[]).0, 404);

    // The page: served with the token, loading nothing from elsewhere.
    let (status, page) = view.request("GET", &format!("/{t}"), &[("Authorization", &bearer)]);
    assert_eq!(status, 200);
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains("Stop agents"), "{page}");
    for remote in ["src=\"http", "href=\"http", "url(http", "import "] {
        assert!(!page.contains(remote), "the page loads {remote}…");
    }

    // An action: its line and a new frame showing it. The page's window on top first, and
    // the frames its raising made gone by.
    let r = env.desk.cli(&["focus", "--app", "chromium"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let quiet = view.events();
    while quiet.recv_timeout(Duration::from_millis(500)).is_ok() {}
    let (status, before) = view.request("GET", &format!("/frame.jpg{t}"), &[]);
    assert_eq!(status, 200);
    assert_eq!(&before[..2], &[0xff, 0xd8], "a JPEG");
    let events = view.events();
    // The stream starts with the latest frame's announcement.
    let first = next(&events, Duration::from_secs(5), |e| {
        e.starts_with("event: frame")
    });
    let announced: Value = serde_json::from_str(
        first
            .lines()
            .nth(1)
            .unwrap()
            .strip_prefix("data: ")
            .unwrap(),
    )
    .unwrap();
    assert!(announced["w"].as_u64().unwrap() <= 1280, "{announced}");
    let count = counter(env);
    let r = env.desk.cli(&[
        "click",
        "--text",
        "Increment",
        "--app",
        "chromium",
        "--exact",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    desktop_testkit::wait_until(Duration::from_secs(5), "the click", || {
        (counter(env) == count + 1).then_some(())
    });
    // The click's line and a new frame, in either order (the frame can come first: the
    // log is followed every 100 ms).
    let (mut line, mut seq) = (None, None);
    let end = Instant::now() + Duration::from_secs(5);
    while line.is_none() || seq.is_none() {
        let left = end.saturating_duration_since(Instant::now());
        let e = events
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("within 5 s: the line {line:?}, a frame {seq:?}"));
        if let Some(data) = e.strip_prefix("data: ").filter(|d| d.contains("\"click\"")) {
            line = Some(serde_json::from_str::<Value>(data.trim()).unwrap());
        } else if let Some(rest) = e.strip_prefix("event: frame\ndata: ") {
            let v: Value = serde_json::from_str(rest.trim()).unwrap();
            if v["seq"].as_u64() > announced["seq"].as_u64() {
                seq = Some(v);
            }
        }
    }
    let entry = line.unwrap();
    assert_eq!(entry["face"], "cli", "{entry}");
    assert_eq!(entry["target"]["name"], "Increment", "{entry}");
    assert_eq!(
        entry["target"]["b"].as_array().map(Vec::len),
        Some(4),
        "{entry}"
    );
    let (status, after) = view.request("GET", &format!("/frame.jpg{t}"), &[]);
    assert_eq!(status, 200);
    assert!(
        after != before,
        "the frame after the click is the one before"
    );
    // Made of the last frame's bands and the changed ones encoded again: still one whole
    // JPEG of the announced size.
    let img = image::load_from_memory(&after).expect("the frame decodes");
    let w = seq.unwrap()["w"].as_u64().unwrap();
    assert_eq!(u64::from(img.width()), w);
}

/// The rows of the view page's activity list and whether its frame image shows, as `read`
/// finds them.
fn page(env: &Env) -> (bool, Vec<String>) {
    let r = env
        .desk
        .cli(&["read", "--window", "desktop-cli view", "--page"]);
    if r.code != 0 {
        return (false, Vec::new());
    }
    let all = crate::read::flatten(&r.data()["elements"]);
    let frame = all
        .iter()
        .any(|e| e["r"] == "img" && e["t"] == "the desktop" && e["b"][2].as_i64() > Some(100));
    let rows = all
        .iter()
        .filter(|e| e["r"] == "item")
        .map(|e| {
            let mut text = e["t"].as_str().unwrap_or("").to_string();
            for c in crate::read::flatten(&e["c"]) {
                text.push(' ');
                text.push_str(c["t"].as_str().unwrap_or(""));
            }
            text
        })
        .collect();
    (frame, rows)
}

fn in_chromium(env: &Env) {
    let view = View::start(env);
    let url = format!("http://{}/?token={}", view.addr, view.token);
    let profile =
        std::env::temp_dir().join(format!("desktop-cli-view-test-{}", std::process::id()));
    let profile_arg = format!("--user-data-dir={}", profile.display());
    let r = env.desk.cli(&[
        "launch",
        "--",
        "chromium",
        "--test-type",
        "--disable-gpu",
        "--no-first-run",
        "--window-position=0,0",
        "--window-size=1100,700",
        &profile_arg,
        &url,
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let pid = r.data()["pid"].as_u64().unwrap();
    let shown = std::panic::catch_unwind(|| {
        // A second Chromium with a fresh profile, started cold: once (a clean clone's CI
        // run, a busy machine) its page showed no frame within 20 s.
        desktop_testkit::wait_until(Duration::from_secs(40), "the view page's frame", || {
            page(env).0.then_some(())
        });
        // A CLI type and an MCP click on the fixture page, from other processes.
        // (Its value typed again as it was: other tests read these fields.)
        let found = env
            .desk
            .cli(&["read", "--window", "Fixture", "--text", "Field 33", "-i"]);
        let id = crate::read::flatten(&found.data()["elements"])
            .into_iter()
            .find(|e| e["r"] == "input" && e["t"] == "Field 33")
            .unwrap_or_else(|| panic!("no Field 33: {}", found.stdout))["i"]
            .to_string();
        let r = env.desk.cli(&[
            "type",
            "--window",
            "Fixture",
            "--id",
            &id,
            "--replace",
            "value 33",
        ]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        let r = crate::activity::mcp_call(
            env,
            "click",
            serde_json::json!({"window": "Fixture", "text": "Increment", "exact": true}),
        );
        assert!(r["result"]["isError"] != true, "{r}");
        let t = Instant::now();
        let rows = desktop_testkit::wait_until(Duration::from_secs(10), "both rows", || {
            let (_, rows) = page(env);
            let typed = rows.iter().any(|r| r.contains("type") && r.contains("cli"));
            let clicked = rows
                .iter()
                .any(|r| r.contains("click") && r.contains("mcp") && r.contains("Increment"));
            (typed && clicked).then_some(rows)
        });
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "rows after {:?}: {rows:?}",
            t.elapsed()
        );
        assert!(
            rows.iter().all(|r| !r.contains("value 33")),
            "typed text shown: {rows:?}"
        );
    });
    let _ = Command::new("kill").arg(pid.to_string()).status();
    let _ = std::fs::remove_dir_all(&profile);
    if let Err(e) = shown {
        std::panic::resume_unwind(e);
    }
}
