//! A pattern call that may not answer until a dialog closes. Some UI Automation providers
//! (Win32 and WinForms buttons and menu items) run a button's handler inside `Invoke`, so a
//! handler that opens a modal dialog answers only once the dialog is closed. The app is not
//! hung: its modal loop answers other questions. So the call gets a short wait, then the app
//! is asked something cheap: an answer means the action is under way (its dialog can be read
//! meanwhile), no answer leaves the call the rest of the call timeout. Pure: the caller runs
//! the call on a thread of its own and gives the question (`win::element`).

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a pattern call may take before the app is asked whether it still answers
/// (the Linux backend waits as long for an action's reply).
pub const SHORT: Duration = Duration::from_millis(300);

/// What became of a call.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome<T> {
    /// It answered (within `budget`).
    Answered(T),
    /// It had not answered after the short wait, but the app answered another question:
    /// the action runs a modal loop, taken as done.
    UnderWay,
    /// Neither the call nor the question was answered within `budget`, or the call's
    /// thread ended without an answer.
    Unanswered,
}

/// Waits for the answer of a call running on another thread: `short`, then `answers` (the
/// cheap question, run on the caller's thread), then what is left of `budget` if the app did
/// not answer that either. The call itself is left to run: its thread sends its answer to a
/// receiver that may be gone.
pub fn wait<T>(
    answer: &Receiver<T>,
    short: Duration,
    budget: Duration,
    answers: impl FnOnce() -> bool,
) -> Outcome<T> {
    let start = Instant::now();
    match answer.recv_timeout(short.min(budget)) {
        Ok(t) => return Outcome::Answered(t),
        Err(RecvTimeoutError::Disconnected) => return Outcome::Unanswered,
        Err(RecvTimeoutError::Timeout) => {}
    }
    let alive = answers();
    // The call may have answered while the app was asked.
    if let Ok(t) = answer.try_recv() {
        return Outcome::Answered(t);
    }
    if alive {
        return Outcome::UnderWay;
    }
    // A busy app (not in a modal loop) may still finish within the call timeout.
    match answer.recv_timeout(budget.saturating_sub(start.elapsed())) {
        Ok(t) => Outcome::Answered(t),
        Err(_) => Outcome::Unanswered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{channel, Sender};

    const MS: Duration = Duration::from_millis(1);

    /// A call that answers `value` after `after` (never when `None`), on a thread of its own.
    fn call(after: Option<Duration>, value: u32) -> Receiver<u32> {
        let (tx, rx) = channel();
        std::thread::spawn(move || match after {
            Some(t) => {
                std::thread::sleep(t);
                let _ = tx.send(value);
            }
            // Blocked for good (as long as the test needs): the sender stays alive.
            None => {
                std::thread::sleep(Duration::from_secs(5));
                drop::<Sender<u32>>(tx);
            }
        });
        rx
    }

    #[test]
    fn a_quick_answer_is_taken_without_asking_the_app() {
        let rx = call(Some(MS), 7);
        let t0 = Instant::now();
        let r = wait(&rx, 300 * MS, 2000 * MS, || panic!("the app was asked"));
        assert_eq!(r, Outcome::Answered(7));
        assert!(t0.elapsed() < 300 * MS);
    }

    #[test]
    fn a_blocked_call_in_an_app_that_answers_is_under_way_after_the_short_wait() {
        let rx = call(None, 0);
        let t0 = Instant::now();
        let r = wait(&rx, 100 * MS, 3000 * MS, || true);
        let took = t0.elapsed();
        assert_eq!(r, Outcome::UnderWay);
        assert!(took >= 100 * MS && took < 1000 * MS, "{took:?}");
    }

    #[test]
    fn a_busy_app_that_answers_within_the_budget_is_waited_for() {
        let rx = call(Some(300 * MS), 9);
        let r = wait(&rx, 50 * MS, 3000 * MS, || false);
        assert_eq!(r, Outcome::Answered(9));
    }

    #[test]
    fn an_app_that_answers_nothing_costs_the_budget_then_is_unanswered() {
        let rx = call(None, 0);
        let t0 = Instant::now();
        let r = wait(&rx, 50 * MS, 400 * MS, || false);
        let took = t0.elapsed();
        assert_eq!(r, Outcome::Unanswered);
        assert!(took >= 400 * MS && took < 1500 * MS, "{took:?}");
    }

    #[test]
    fn an_answer_that_came_while_the_app_was_asked_is_the_answer() {
        let rx = call(Some(150 * MS), 3);
        let r = wait(&rx, 50 * MS, 3000 * MS, || {
            std::thread::sleep(300 * MS);
            true
        });
        assert_eq!(r, Outcome::Answered(3));
    }

    #[test]
    fn a_call_whose_thread_ended_without_an_answer_is_unanswered() {
        let (tx, rx) = channel::<u32>();
        drop(tx);
        let r = wait(&rx, 300 * MS, 2000 * MS, || panic!("the app was asked"));
        assert_eq!(r, Outcome::Unanswered);
    }

    #[test]
    fn the_short_wait_never_exceeds_the_budget() {
        let rx = call(None, 0);
        let t0 = Instant::now();
        let r = wait(&rx, 2000 * MS, 100 * MS, || false);
        assert_eq!(r, Outcome::Unanswered);
        assert!(t0.elapsed() < 1000 * MS);
    }
}
