//! Reads at an agent's tempo, seconds apart. A mirror is read afresh once it is 30 s old (a
//! safety net for changes no signal told of); the keeper walks the mirrors in use afresh
//! before that, in the background, so such a read never pays for the walk from scratch
//! itself. And a quiet window's last answer lasts past an agent's turn (`quiet`: 10 s where
//! the window draws only what its boxes explain) and is read again in the background before
//! that, yet a change then is seen at once. A window that drew once what its boxes do not
//! explain has its pixels kept with its answers (which then last 3 s) for a while only.

use super::{elements, first_difference, kept_on, shows, Driver, Env};
use desktop_testkit::wait_until;
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

/// A read of everything, shown or not: past what a kept answer gives again (`quiet`).
const ALL: &str = "--visible-only=false";

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
            ALL,
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
    kept_on(&env.desk.lock().unwrap(), WINDOW, &[ALL]);
    // Four seconds apart, with what scrolled out of view too (never answered again from the
    // last answer: every read walks the mirror). Over 40 s the mirror passes its age at least
    // once.
    let start = Instant::now();
    let mut reads = Vec::new();
    while start.elapsed() < Duration::from_secs(40) {
        std::thread::sleep(Duration::from_secs(4));
        let (_, stderr) = kept_on(&env.desk.lock().unwrap(), WINDOW, &[ALL]);
        reads.push((start.elapsed().as_secs_f64(), walked(&stderr)));
    }
    let slow: Vec<_> = reads.iter().filter(|(_, w)| *w > scratch / 2.0).collect();
    assert!(
        slow.is_empty(),
        "reads of {WINDOW} that walked from scratch (seconds in, elements; {scratch} a walk \
         from scratch): {slow:?} of {reads:?}"
    );
}

/// The window whose answer is to last: GTK 3's, which draws nothing unless it changes
/// (Chromium draws now and then what no box explains, and its answers then last 3 s).
const QUIET: &str = "Churn GTK3";

/// The keeper's read of the quiet window, and what its `--timing` said if it did not give
/// its last answer again.
fn kept_again(env: &Env) -> (serde_json::Value, Result<(), String>) {
    let (data, stderr) = kept_on(&env.desk.lock().unwrap(), QUIET, &[]);
    let again = if stderr.contains(" again=") {
        Ok(())
    } else {
        Err(stderr)
    };
    (data, again)
}

/// The keeper's read of the quiet window `after` the moment it was `answered` again last
/// must give its answer again, equal to a fresh read; `why` ends the failure's message.
fn given_again(env: &Env, answered: Instant, after: Duration, why: &str) {
    std::thread::sleep(after.saturating_sub(answered.elapsed()));
    let again = match kept_again(env) {
        (again, Ok(())) => again,
        (_, Err(timing)) => panic!(
            "the keeper read the quiet window in full {:.1} s after it last answered it \
             again{why}: {}",
            answered.elapsed().as_secs_f64(),
            timing.trim()
        ),
    };
    let fresh = env.fresh(QUIET);
    assert!(
        elements(&again) == elements(&fresh),
        "the answer given again {:.1} s later differs from a fresh read: {}",
        answered.elapsed().as_secs_f64(),
        first_difference(&elements(&again), &elements(&fresh))
    );
}

/// Brings the quiet window to the front and waits until the keeper answers it again. In
/// front: drawing under another window is not seen, so a covered one is read in full.
fn answered_in_front(env: &Env) {
    let run = env.desk.lock().unwrap().cli(&["focus", "--window", QUIET]);
    assert_eq!(run.code, 0, "focus the window: {}", run.stdout);
    wait_until(
        Duration::from_secs(5),
        "the keeper to answer the quiet window again",
        || kept_again(env).1.ok(),
    );
}

pub fn answer_lasts_a_turn(env: &Env) {
    // A model's turn after the window was last answered again, past the 3 s an answer
    // lasted before (and still lasts where a window animates), the window unchanged: given
    // again.
    answered_in_front(env);
    let answered = Instant::now();
    given_again(env, answered, Duration::from_millis(4500), "");
    // Past that answer's age (10 s): the keeper has read the quiet window again in full in
    // the background meanwhile, so this read too is answered again.
    given_again(
        env,
        answered,
        Duration::from_secs(14),
        ", past that answer's age (not read again in the background)",
    );
    // Then the window changes (a few elements, and its marker): the very next read of the
    // keeper, which waits for nothing, shows it as a fresh read does.
    let step = 1000;
    Driver::Fifo(env.fifo("gtk3")).send(step, 4242, 4);
    let marker = format!("step {step}");
    let mut before = wait_until(Duration::from_secs(5), "the window to change", || {
        let d = env.fresh(QUIET);
        shows(&d, &marker).then_some(d)
    });
    let mut tries = 0;
    loop {
        let (kept, _) = kept_again(env);
        let after = env.fresh(QUIET);
        if elements(&after) != elements(&before) {
            tries += 1;
            assert!(tries < 20, "the window never held still");
            before = after;
            continue;
        }
        assert!(
            elements(&kept) == elements(&before),
            "the keeper's read right after the change: {}",
            first_difference(&elements(&kept), &elements(&before))
        );
        break;
    }
}

/// The keeper's read of the quiet window, once it is a full one: whether it kept the
/// window's pixels (its `--timing` says `capture=`).
fn full_read(env: &Env) -> Option<bool> {
    match kept_again(env) {
        (_, Err(timing)) => Some(timing.contains(" capture=")),
        (_, Ok(())) => None,
    }
}

pub fn drew_once(env: &Env) {
    answered_in_front(env);
    // Painted all over, with no signal: drawing no box explains has the window read in
    // full, its pixels kept with the answer.
    Driver::Fifo(env.fifo("gtk3")).line("tint");
    let kept = wait_until(
        Duration::from_secs(5),
        "a full read after the window was painted",
        || full_read(env),
    );
    assert!(kept, "the read after the painting kept no pixels");
    let drew = Instant::now();
    // Quiet past the time its pixels are kept for (10 s): the next full read lets them go.
    std::thread::sleep(Duration::from_secs(11).saturating_sub(drew.elapsed()));
    let kept = wait_until(Duration::from_secs(5), "a full read", || full_read(env));
    assert!(
        !kept,
        "the window's pixels were still kept {:.1} s after it drew",
        drew.elapsed().as_secs_f64()
    );
    // So its answer lasts as any quiet window's does (10 s), not 3 s.
    given_again(
        env,
        Instant::now(),
        Duration::from_millis(4500),
        ", which last drew what its boxes do not explain 11 s before that",
    );
}
