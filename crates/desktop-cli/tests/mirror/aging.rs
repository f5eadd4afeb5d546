//! A mirror is read afresh once it is 30 s old (a safety net for changes no signal told
//! of); the keeper walks the mirrors in use afresh before that, in the background, so a
//! read at an agent's tempo (seconds apart) never pays for the walk from scratch itself.

use super::{kept_on, Env};
use std::time::{Duration, Instant};

const WINDOW: &str = "Churn Page";

/// The elements a read asked about one by one (Chromium's cache holds only some: a walk
/// from scratch asks for the rest, a walk through the mirror for what changed), from what
/// `--timing` said.
fn walked(stderr: &str) -> f64 {
    let at = stderr
        .find(" walked=")
        .unwrap_or_else(|| panic!("no walked= in the timing: {stderr}"));
    let rest = &stderr[at + " walked=".len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(rest.len());
    rest[..end].parse().unwrap()
}

pub fn refilled_before_aging(env: &Env) {
    // What a walk from scratch takes: a process reading by itself.
    let scratch = {
        let desk = env.desk.lock().unwrap();
        let args = [
            "read",
            "--window",
            WINDOW,
            "--max-elements",
            "500",
            "--timing",
        ];
        let run = desk.cli_with(&args, &[("DESKTOP_CLI_DIRECT", "1")]);
        assert_eq!(run.code, 0, "fresh read of {WINDOW}: {}", run.stdout);
        walked(&run.stderr)
    };
    assert!(
        scratch >= 10.0,
        "a walk from scratch of {WINDOW}: {scratch}"
    );
    // The first read may walk from scratch (the app let go since it was last read).
    kept_on(&env.desk.lock().unwrap(), WINDOW, &[]);
    // Four seconds apart, past the answers' age (3 s): every read walks the mirror. Over
    // 40 s the mirror passes its age at least once.
    let start = Instant::now();
    let mut reads = Vec::new();
    while start.elapsed() < Duration::from_secs(40) {
        std::thread::sleep(Duration::from_secs(4));
        let (_, stderr) = kept_on(&env.desk.lock().unwrap(), WINDOW, &[]);
        reads.push((start.elapsed().as_secs_f64(), walked(&stderr)));
    }
    let slow: Vec<_> = reads.iter().filter(|(_, w)| *w > scratch / 2.0).collect();
    assert!(
        slow.is_empty(),
        "reads of {WINDOW} that walked from scratch (seconds in, elements; {scratch} a walk \
         from scratch): {slow:?} of {reads:?}"
    );
}
