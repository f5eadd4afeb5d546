//! A quiet window's last answer is given again (`desktop-linux`'s `quiet`): here a page moves
//! a button and scrolls without a word to accessibility (Chromium sends no signal for
//! either), then ticks and unticks a check box (signalled: the answer takes the box's new
//! state in), and the very next reads by the keeper and by the MCP server must show each
//! change as a fresh read does. Two indicators pulse at the page's corners all along, so
//! each frame is drawn as one rectangle across the page that only its pixels explain
//! (`pixels`): a move missed there is a stale answer. That the keeper gives answers again,
//! by the pixels among them, and takes a tick in, at all is checked by its `--timing`:
//! otherwise this would prove nothing.

use crate::{elements, first_difference, Env};
use desktop_testkit::wait_until;
use serde_json::Value;
use std::io::Write;
use std::time::Duration;

const TITLE: &str = "Silent Page";

/// The Mover button's box in a read, if it shows.
fn mover(data: &Value) -> Option<Value> {
    fn find(es: &Value) -> Option<Value> {
        es.as_array()?.iter().find_map(|e| {
            if e["t"] == "Mover" {
                Some(e["b"].clone())
            } else {
                find(&e["c"])
            }
        })
    }
    find(&data["elements"])
}

/// The keeper's read, whether it gave its last answer again, and whether the window's
/// pixels had to explain drawing for that.
fn kept_again(env: &Env) -> (Value, bool, bool) {
    let (data, stderr) = env.kept_with_timing(TITLE);
    (data, stderr.contains(" again="), by_pixels(&stderr))
}

/// Whether a keeper's `--timing` says it gave its answer again where the pixels explained
/// some drawing.
fn by_pixels(stderr: &str) -> bool {
    stderr.contains(" again=") && !stderr.contains(" pixels=0.0")
}

pub fn silent_changes(env: &Env) {
    // In front: drawing under another window is not seen, so a covered one is read in full.
    let run = env.desk.lock().unwrap().cli(&["focus", "--window", TITLE]);
    assert_eq!(run.code, 0, "focus the page: {}", run.stdout);
    wait_until(
        Duration::from_secs(5),
        "the keeper to answer the quiet page again",
        || {
            kept_again(env);
            kept_again(env).1.then_some(())
        },
    );
    // (left margin, scroll, ticked): silent moves and scrolls, then ticks alone.
    let moves = [
        (120, 0, 0),
        (0, 0, 0),
        (200, 0, 0),
        (40, 400, 0),
        (40, 0, 0),
        (160, 0, 0),
        (160, 0, 1),
        (160, 0, 0),
        (160, 0, 1),
        (160, 0, 0),
    ];
    let (mut answered_again, mut taken_in, mut pixels) = (0, 0, 0);
    let seen = |d: &Value| (mover(d), d["elements"].to_string().contains("\"k\":true"));
    for (n, (left, top, ticked)) in moves.into_iter().enumerate() {
        let was = seen(&env.fresh(TITLE));
        env.silent
            .set_step(&format!("{} {left} {top} {ticked}", n + 1));
        // A fresh read sees the change first: it is in the app's tree now.
        let mut before = wait_until(Duration::from_secs(5), "the page to change", || {
            let d = env.fresh(TITLE);
            (seen(&d) != was).then_some(d)
        });
        // Then, with nothing waited for, the keeper and the MCP server, compared once a
        // fresh read after them agrees with the one before: Chromium marks what a scroll
        // hid a little after it moves the boxes, and a look between is no one's fault.
        let mut tries = 0;
        let fresh = loop {
            let (kept, timing) = env.kept_with_timing(TITLE);
            taken_in += usize::from(timing.contains(" patched=1"));
            let mcp = env.mirrored(TITLE);
            let after = env.fresh(TITLE);
            if elements(&after) != elements(&before) {
                tries += 1;
                assert!(tries < 20, "change {}: the page never held still", n + 1);
                before = after;
                continue;
            }
            for (face, read) in [("keeper", &kept), ("MCP", &mcp)] {
                assert!(
                    elements(read) == elements(&before),
                    "change {} ({left}, {top}, {ticked}), {face} (keeper's {}): {}",
                    n + 1,
                    timing.trim(),
                    first_difference(&elements(read), &elements(&before))
                );
            }
            break before;
        };
        // Quiet again: the same answer, given again.
        let (again, was_again, by_pixels) = kept_again(env);
        assert_eq!(
            elements(&again),
            elements(&fresh),
            "move {}, given again",
            n + 1
        );
        answered_again += usize::from(was_again);
        pixels += usize::from(by_pixels);
    }
    assert!(
        answered_again > 0,
        "the keeper never gave an answer again once the page held still"
    );
    assert!(
        pixels > 0,
        "the keeper never gave an answer again by the pixels, which the page's pulsing needs"
    );
    assert!(
        taken_in > 0,
        "the keeper never took a tick into its last answer: every read after one was full"
    );
}

/// Whether a keeper's `--timing` says it gave its answer again knowing where the window
/// draws without end what no element holds (`restless=` above 0).
fn restless(stderr: &str) -> bool {
    by_pixels(stderr) && stderr.contains(" restless=") && !stderr.contains(" restless=0.0")
}

/// GTK 3 this time (tests/fixtures/silent_gtk.py): a spinner and a progress bar animate
/// without end at opposite corners, so every look finds one rectangle drawn around both
/// that only the window's pixels can explain; between them two lists scroll, one with a
/// scroll bar and one without. Each read by the keeper, from the very moment the scroll is
/// asked for, must show the window as it was or as it is after the scroll, never a mix
/// (GTK 3 moves the boxes at once and draws them a frame later);
/// and once it holds still, the keeper's and the MCP server's reads must equal a fresh one.
/// That answers were given again by the pixels at all is checked by the keeper's
/// `--timing` (`pixels=` above 0): otherwise this would prove nothing.
pub fn silent_scrolls_gtk3(env: &Env) {
    silent_scrolls(env, "Silent GTK3", "gtk3-silent", by_pixels);
}

/// The same window in GTK 4, whose spinner has no name: reads leave it out, so nothing in
/// an answer holds what it draws, and the keeper must have learned where it turns
/// (`restless=` above 0 in its `--timing`) to answer the window again at all.
pub fn silent_scrolls_gtk4(env: &Env) {
    silent_scrolls(env, "Silent GTK4", "gtk4-silent", restless);
}

/// Scrolls the window `title` through the FIFO of `app` (see above) once the keeper's
/// timing says `warm`.
fn silent_scrolls(env: &Env, title: &str, app: &str, warm: fn(&str) -> bool) {
    let run = env.desk.lock().unwrap().cli(&["focus", "--window", title]);
    assert_eq!(run.code, 0, "focus the window: {}", run.stdout);
    wait_until(
        Duration::from_secs(20),
        "the keeper to answer the animated window again by its pixels",
        || warm(&env.kept_with_timing(title).1).then_some(()),
    );
    let fifo = env.fifo(app);
    let mut pixel_answers = 0;
    let scrolls = [
        (120, 0),
        (120, 200),
        (0, 200),
        (0, 0),
        (300, 40),
        (300, 41),
        (520, 41),
        (260, 600),
    ];
    for (n, to) in scrolls.into_iter().enumerate() {
        let was = elements(&env.fresh(title));
        let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
        writeln!(f, "{} {} {}", n + 1, to.0, to.1).unwrap();
        drop(f);
        // From the moment it is asked for: each of the keeper's reads shows the window as
        // it was or a state a fresh read then finds, never the rows of one and the bar of
        // the other.
        let mut seen = Vec::new();
        let now = wait_until(Duration::from_secs(5), "the list to scroll", || {
            let (kept, timing) = env.kept_with_timing(title);
            let kept = elements(&kept);
            pixel_answers += usize::from(warm(&timing));
            let fresh = elements(&env.fresh(title));
            let moved = kept != was;
            seen.push((kept, timing, fresh.clone()));
            (moved && fresh != was).then_some(fresh)
        });
        for (i, (kept, timing, fresh_after)) in seen.iter().enumerate() {
            assert!(
                *kept == was || kept == fresh_after || *kept == now,
                "scroll {} to {to:?}, keeper's read {i} ({}) is neither the window before nor after: {}",
                n + 1,
                timing.trim(),
                first_difference(kept, &now)
            );
        }
        // Held still: the keeper and the MCP server answer as a fresh read does. The keeper
        // is asked again (up to five times) until it answers by the pixels: its first read
        // after the scroll may have had to be a full one.
        let (mut tries, mut still) = (0, 0);
        loop {
            let before = elements(&env.fresh(title));
            let (kept, timing) = env.kept_with_timing(title);
            let by_pixels = warm(&timing);
            pixel_answers += usize::from(by_pixels);
            let mcp = elements(&env.mirrored(title));
            let after = elements(&env.fresh(title));
            if after != before {
                tries += 1;
                assert!(tries < 20, "scroll {}: the window never held still", n + 1);
                continue;
            }
            for (face, read) in [("keeper", elements(&kept)), ("MCP", mcp)] {
                assert!(
                    read == before,
                    "scroll {} to {to:?}, {face} (keeper's {}): {}",
                    n + 1,
                    timing.trim(),
                    first_difference(&read, &before)
                );
            }
            still += 1;
            if by_pixels || still == 5 {
                break;
            }
        }
    }
    assert!(
        pixel_answers > 0,
        "no read during the scrolls was answered again by the pixels"
    );
}
