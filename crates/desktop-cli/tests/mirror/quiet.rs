//! A quiet window's last answer is given again (`desktop-linux`'s `quiet`): here a page moves
//! a button and scrolls without a word to accessibility (Chromium sends no signal for
//! either), then ticks and unticks a check box (signalled: the answer takes the box's new
//! state in), and the very next reads by the keeper and by the MCP server must show each
//! change as a fresh read does. That the keeper gives answers again, and takes a tick in,
//! at all is checked by its `--timing`: otherwise this would prove nothing.

use crate::{elements, first_difference, Env};
use desktop_testkit::wait_until;
use serde_json::Value;
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

/// The keeper's read and whether it gave its last answer again.
fn kept_again(env: &Env) -> (Value, bool) {
    let (data, stderr) = env.kept_with_timing(TITLE);
    (data, stderr.contains(" again="))
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
    let (mut answered_again, mut taken_in) = (0, 0);
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
        let (again, was_again) = kept_again(env);
        assert_eq!(
            elements(&again),
            elements(&fresh),
            "move {}, given again",
            n + 1
        );
        answered_again += usize::from(was_again);
    }
    assert!(
        answered_again > 0,
        "the keeper never gave an answer again once the page held still"
    );
    assert!(
        taken_in > 0,
        "the keeper never took a tick into its last answer: every read after one was full"
    );
}
