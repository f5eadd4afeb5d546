//! The pure part of window operations on macOS: when a watched window counts as changed,
//! closed or held up by its app's question; the frame a window gets back from maximized
//! (remembered across commands, since macOS keeps none for frames set through AX); and
//! which processes are this one's own, never to be ended. The system calls are in
//! `mac/winops.rs`.

use desktop_core::model::{WindowInfo, WindowState};
use desktop_core::winops::{Reach, WindowOp};
use desktop_core::Rect;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// How long an app gets to carry out a move, resize or state change (full screen's
/// animation takes most of a second).
pub const CHANGE_WAIT: Duration = Duration::from_secs(2);
/// How long an app gets to close a window or ask its question first.
pub const CLOSE_WAIT: Duration = Duration::from_secs(5);
/// How long geometry and state must hold still to count as where the window ended up.
pub const STILL: Duration = Duration::from_millis(60);
/// How long another window of the app must show before a window that did not close counts
/// as held up by it (a sheet slides in; a window flashing by is not a question).
pub const ASKING: Duration = Duration::from_millis(200);
pub const POLL: Duration = Duration::from_millis(10);

/// What to do after one look at the watched window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Look again.
    Wait,
    /// Answer the window as seen now.
    Answer,
    /// It is gone: answer that it closed.
    Closed,
}

/// The watch over one window after an operation was asked of it.
#[derive(Clone, Debug)]
pub struct Watch {
    op: WindowOp,
    deadline: Instant,
    last: (Option<Rect>, WindowState),
    still_since: Instant,
    asked_since: Option<Instant>,
}

impl Watch {
    /// A watch from `start`, over a window that was `before` (as seen just before asking).
    pub fn new(op: WindowOp, before: &WindowInfo, start: Instant) -> Watch {
        let wait = if op == WindowOp::Close {
            CLOSE_WAIT
        } else {
            CHANGE_WAIT
        };
        Watch {
            op,
            deadline: start + wait,
            last: (before.bounds, before.state),
            still_since: start,
            asked_since: None,
        }
    }

    /// One look at a window asked to close: `gone` (no longer on the window server, or off
    /// screen without being put away), or `asking` (another window of its app came up
    /// instead: "save changes?"), which answers once it has stayed [`ASKING`].
    pub fn closing(&mut self, now: Instant, gone: bool, asking: bool) -> Step {
        if gone {
            return Step::Closed;
        }
        match (asking, self.asked_since) {
            (true, None) => self.asked_since = Some(now),
            (true, Some(t)) if now.saturating_duration_since(t) >= ASKING => return Step::Answer,
            (false, _) => self.asked_since = None,
            _ => {}
        }
        if now >= self.deadline {
            Step::Answer
        } else {
            Step::Wait
        }
    }

    /// One look at a window asked to change: answered once the change shows and holds (a
    /// state reached may still have its frame follow, a full-screen window sliding into its
    /// Space), or at the deadline with whatever shows.
    pub fn changing(&mut self, now: Instant, before: &WindowInfo, seen: &WindowInfo) -> Step {
        if (seen.bounds, seen.state) != self.last {
            self.still_since = now;
        }
        self.last = (seen.bounds, seen.state);
        let held = now.saturating_duration_since(self.still_since) >= STILL;
        match self.op.reached(before, seen) {
            Reach::Done if held || self.op.target_state().is_none() => Step::Answer,
            Reach::Adjusted if held => Step::Answer,
            _ if now >= self.deadline => Step::Answer,
            _ => Step::Wait,
        }
    }
}

/// Where a window maximized by other means than `window maximize` (nothing remembered)
/// goes back to: three quarters of the visible frame each way, centered.
pub fn unmaximized(visible: Rect) -> Rect {
    let (w, h) = (visible.w / 4 * 3, visible.h / 4 * 3);
    Rect::new(
        visible.x + (visible.w - w) / 2,
        visible.y + (visible.h - h) / 2,
        w,
        h,
    )
}

/// How many windows' frames are remembered: the newest, enough for any desktop's windows
/// maximized at once.
const REMEMBERED: usize = 32;

/// Windows' frames from before `window maximize`, by window server id, the newest last; kept
/// as JSON in the state directory between commands.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Frames(Vec<(u64, [i32; 4])>);

impl Frames {
    /// The frames in a file's bytes; none from a missing or broken file.
    pub fn parse(bytes: &[u8]) -> Frames {
        serde_json::from_slice(bytes).unwrap_or_default()
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Remembers a window's frame, replacing what was remembered of it and forgetting the
    /// oldest beyond [`REMEMBERED`].
    pub fn remember(&mut self, id: u64, r: Rect) {
        self.0.retain(|(i, _)| *i != id);
        self.0.push((id, [r.x, r.y, r.w, r.h]));
        let extra = self.0.len().saturating_sub(REMEMBERED);
        self.0.drain(..extra);
    }

    /// The frame remembered for a window.
    pub fn get(&self, id: u64) -> Option<Rect> {
        self.0
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, r)| Rect::new(r[0], r[1], r[2], r[3]))
    }
}

/// The frame a maximized window is restored to: the one remembered from before it was
/// maximized, unless that is (still) the visible frame; else [`unmaximized`].
pub fn restored(remembered: Option<Rect>, visible: Rect) -> Rect {
    remembered
        .filter(|r| r.w > 0 && r.h > 0 && !crate::windows::fills(*r, visible))
        .unwrap_or_else(|| unmaximized(visible))
}

/// Whether `pid` is this process (`me`) or one it runs under (a terminal, an MCP host):
/// those are never ended. `parent` gives a process's parent; the walk stops at launchd.
pub fn runs_us(pid: u32, me: u32, parent: impl Fn(u32) -> Option<u32>) -> bool {
    let mut p = me;
    for _ in 0..64 {
        if p == pid {
            return true;
        }
        match parent(p) {
            Some(q) if q > 1 => p = q,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(b: Rect, state: WindowState) -> WindowInfo {
        WindowInfo {
            app: "TextEdit".into(),
            pid: 501,
            title: "Untitled".into(),
            id: Some(40),
            bounds: Some(b),
            focused: false,
            a11y: true,
            modal: false,
            state,
            display: None,
            handle: None,
        }
    }

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_move_is_answered_as_soon_as_it_shows() {
        let t = Instant::now();
        let before = win(Rect::new(0, 25, 600, 400), WindowState::Normal);
        let mut w = Watch::new(WindowOp::Move { x: 50, y: 60 }, &before, t);
        assert_eq!(w.changing(t + 10 * MS, &before, &before), Step::Wait);
        let there = win(Rect::new(50, 60, 600, 400), WindowState::Normal);
        assert_eq!(w.changing(t + 20 * MS, &before, &there), Step::Answer);
        // Kept below the menu bar: answered once it holds still there.
        let mut w = Watch::new(WindowOp::Move { x: 50, y: 0 }, &before, t);
        let kept = win(Rect::new(50, 25, 600, 400), WindowState::Normal);
        assert_eq!(w.changing(t + 10 * MS, &before, &kept), Step::Wait);
        assert_eq!(w.changing(t + 80 * MS, &before, &kept), Step::Answer);
    }

    #[test]
    fn a_state_is_answered_once_its_frame_holds() {
        let t = Instant::now();
        let before = win(Rect::new(100, 100, 600, 400), WindowState::Normal);
        let mut w = Watch::new(WindowOp::Fullscreen, &before, t);
        // Full screen already, the frame still growing into the Space.
        let growing = win(Rect::new(50, 50, 900, 700), WindowState::Fullscreen);
        assert_eq!(w.changing(t + 10 * MS, &before, &growing), Step::Wait);
        let whole = win(Rect::new(0, 0, 1512, 982), WindowState::Fullscreen);
        assert_eq!(w.changing(t + 20 * MS, &before, &whole), Step::Wait);
        assert_eq!(w.changing(t + 50 * MS, &before, &whole), Step::Wait);
        assert_eq!(w.changing(t + 90 * MS, &before, &whole), Step::Answer);
    }

    #[test]
    fn nothing_seen_is_answered_at_the_deadline() {
        let t = Instant::now();
        let before = win(Rect::new(100, 100, 600, 400), WindowState::Normal);
        let mut w = Watch::new(WindowOp::Minimize, &before, t);
        assert_eq!(
            w.changing(t + CHANGE_WAIT / 2, &before, &before),
            Step::Wait
        );
        assert_eq!(w.changing(t + CHANGE_WAIT, &before, &before), Step::Answer);
    }

    #[test]
    fn a_close_ends_gone_held_up_or_at_its_deadline() {
        let t = Instant::now();
        let before = win(Rect::new(100, 100, 600, 400), WindowState::Normal);
        let mut w = Watch::new(WindowOp::Close, &before, t);
        assert_eq!(w.closing(t + 10 * MS, false, false), Step::Wait);
        assert_eq!(w.closing(t + 20 * MS, true, false), Step::Closed);
        // A sheet comes up and stays: the window is answered, still open.
        let mut w = Watch::new(WindowOp::Close, &before, t);
        assert_eq!(w.closing(t + 10 * MS, false, true), Step::Wait);
        assert_eq!(w.closing(t + 150 * MS, false, true), Step::Wait);
        assert_eq!(w.closing(t + 210 * MS, false, true), Step::Answer);
        // A window flashing by restarts the count; the window closing after all wins.
        let mut w = Watch::new(WindowOp::Close, &before, t);
        assert_eq!(w.closing(t + 10 * MS, false, true), Step::Wait);
        assert_eq!(w.closing(t + 100 * MS, false, false), Step::Wait);
        assert_eq!(w.closing(t + 250 * MS, false, true), Step::Wait);
        assert_eq!(w.closing(t + 300 * MS, true, true), Step::Closed);
        // Neither: the app may be slow or refuse; answered at the deadline.
        let mut w = Watch::new(WindowOp::Close, &before, t);
        assert_eq!(w.closing(t + CHANGE_WAIT, false, false), Step::Wait);
        assert_eq!(w.closing(t + CLOSE_WAIT, false, false), Step::Answer);
    }

    #[test]
    fn a_maximized_window_goes_back_to_its_frame() {
        let visible = Rect::new(0, 37, 1512, 881);
        let mut f = Frames::default();
        f.remember(40, Rect::new(100, 100, 600, 400));
        f.remember(41, Rect::new(0, 37, 1512, 881));
        f.remember(40, Rect::new(120, 100, 600, 400));
        let f = Frames::parse(&f.to_json());
        assert_eq!(f.get(40), Some(Rect::new(120, 100, 600, 400)));
        assert_eq!(restored(f.get(40), visible), Rect::new(120, 100, 600, 400));
        // Remembered maximized, or nothing remembered: three quarters, centered.
        assert_eq!(restored(f.get(41), visible), Rect::new(189, 147, 1134, 660));
        assert_eq!(restored(f.get(42), visible), Rect::new(189, 147, 1134, 660));
        assert_eq!(Frames::parse(b"not json"), Frames::default());
    }

    #[test]
    fn only_the_newest_frames_are_kept() {
        let mut f = Frames::default();
        for id in 0..100 {
            f.remember(id, Rect::new(0, 0, 10, 10));
        }
        assert_eq!(f.0.len(), REMEMBERED);
        assert_eq!(f.get(67), None);
        assert!(f.get(68).is_some() && f.get(99).is_some());
    }

    #[test]
    fn this_process_and_those_it_runs_under_are_ours() {
        // launchd (1) → Terminal (300) → zsh (310) → desktop-cli (320); Safari (400).
        let parent = |p: u32| match p {
            320 => Some(310),
            310 => Some(300),
            300 => Some(1),
            400 => Some(1),
            _ => None,
        };
        assert!(runs_us(320, 320, parent));
        assert!(runs_us(300, 320, parent));
        assert!(!runs_us(400, 320, parent));
        assert!(!runs_us(1, 320, parent));
        // A loop in what `ps` said ends the walk.
        assert!(!runs_us(9, 5, |p| Some(if p == 5 { 6 } else { 5 })));
    }
}
