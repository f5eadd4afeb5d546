//! Settling: an action answers only after the app has taken it in, and says what it did.
//!
//! Three steps, each bounded: (1) for synthesized input, an X ping round trip through the
//! app proves it has read the events; (2) where the action has an observable goal (text in
//! a field, a value, a check state, the focus) the element is read back until it shows it;
//! (3) for toolkits that update their accessibility tree asynchronously (Chromium: the
//! page runs in another process), the app's change events are awaited until they go quiet,
//! so a `read` right after the action sees its result.

use super::taken::{Closed, Taken};
use super::Live;
use crate::bus::Addr;
use crate::bus::{CallError, ACCESSIBLE, TEXT, VALUE};
use crate::{app_error, convert, LinuxDesktop};
use desktop_core::action::{Effect, ElementState, Route};
use desktop_core::{Error, ErrorCode, Rect, Result, States};
use futures_util::{FutureExt, StreamExt};
use std::time::{Duration, Instant};
use zbus::zvariant::OwnedValue;
use zbus::{MatchRule, MessageStream};

/// How long an expected change may take to show (typing adds per character).
const EXPECT_WAIT: Duration = Duration::from_millis(1500);
/// Chromium: how long to wait for the first change event after an input before deciding
/// the page did not react (its tree updates reach AT-SPI 10-30 ms after an input here).
pub(crate) const ASYNC_FIRST_EVENT: Duration = Duration::from_millis(120);
/// Other toolkits update their tree while handling the input; a short look suffices.
const SYNC_FIRST_EVENT: Duration = Duration::from_millis(15);
/// Events have stopped when none came for this long. A toolkit sends the events of one
/// reaction together: GTK and Qt while handling the input, Chromium once its browser process
/// has applied the page's update to its tree, whole (so the first event means the tree
/// already shows it). Measured here, a click's burst on a Chromium page spans at most 0.4 ms
/// and comes 3–19 ms after the click (the page's next frame); this gap only collects the
/// rest of the burst (five times its measured span). The mirrors need no more: before a
/// read uses what they keep, the app is pinged over the bus its signals travel on, so
/// signals it sent before answering are in.
const QUIET: Duration = Duration::from_millis(2);
/// Bound on waiting for quiet (an animated page never goes quiet).
const QUIET_MAX: Duration = Duration::from_millis(1000);
/// Pause between two reads of an element while waiting for a change.
const POLL: Duration = Duration::from_millis(2);

/// The app's change events (children, properties, states), counted while an action runs.
/// Toolkits send these when some client registered for them (the keeper does, for good).
pub(crate) struct Watch {
    stream: Option<MessageStream>,
    last_event: Option<Instant>,
    /// Events have stopped when none came for this long (`QUIET`, longer after keys).
    gap: Duration,
    /// The least time given the first event to come (longer after keys).
    first: Duration,
}

impl Watch {
    /// Subscribes to `live`'s app; without a subscription the watch never sees an event.
    pub(crate) async fn start(live: &Live) -> Watch {
        let rule = MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .sender(live.node.handle.owner())
            .and_then(|b| b.interface("org.a11y.atspi.Event.Object"))
            .map(|b| b.build());
        let stream = match rule {
            Ok(rule) => tokio::time::timeout(
                live.bus.timeout,
                MessageStream::for_match_rule(rule, &live.bus.conn, Some(1024)),
            )
            .await
            .ok()
            .and_then(|r| r.ok()),
            Err(_) => None,
        };
        Watch {
            stream,
            last_event: None,
            gap: QUIET,
            first: Duration::ZERO,
        }
    }

    /// For `keys` keys sent at once to a page (Chromium): the page handles them in its own
    /// process, and Chromium sends tree updates in batches, measured here up to 160 ms
    /// apart while a page reacts to a run of keys, the first one up to as late after the
    /// previous action's. So a sequence waits longer for the first update (300 ms) and
    /// counts as quiet only after 200 ms without one. A single key keeps the usual waits.
    pub(crate) fn after_keys(mut self, keys: usize) -> Watch {
        if keys > 1 {
            self.gap = Duration::from_millis(200);
            self.first = Duration::from_millis(300);
        }
        self
    }

    /// Takes every event already delivered, without waiting.
    fn drain(&mut self) {
        let Some(s) = self.stream.as_mut() else {
            return;
        };
        while let Some(Some(_)) = s.next().now_or_never() {
            self.last_event = Some(Instant::now());
        }
    }

    /// Waits for the reaction to an input (its first event, then quiet: as
    /// [`Self::quiet`] with `ASYNC_FIRST_EVENT`); the next wait then looks for the reaction
    /// to what comes after, not at this one's events.
    pub(crate) async fn reaction(&mut self) {
        self.quiet(ASYNC_FIRST_EVENT).await;
        self.last_event = None;
    }

    /// Waits until no event came for the gap (`QUIET`), giving the first event `first` to arrive
    /// (counted from now), never longer than `QUIET_MAX`. False when it never went quiet.
    pub(crate) async fn quiet(&mut self, first: Duration) -> bool {
        let first = if first.is_zero() {
            first
        } else {
            first.max(self.first)
        };
        self.drain();
        let start = Instant::now();
        let cap = start + QUIET_MAX;
        loop {
            let gap = self.gap;
            let until = match self.last_event {
                Some(t) if t >= start || first.is_zero() => t + gap,
                Some(t) => (t + gap).max(start + gap.min(first)),
                None => start + first,
            };
            let until = until.min(cap);
            let now = Instant::now();
            if now >= until {
                return until < cap;
            }
            let Some(s) = self.stream.as_mut() else {
                tokio::time::sleep(until - now).await;
                return true;
            };
            match tokio::time::timeout(until - now, s.next()).await {
                Ok(Some(_)) => self.last_event = Some(Instant::now()),
                Ok(None) => self.stream = None,
                Err(_) => {}
            }
        }
    }
}

/// What an action is meant to change, to be read back.
#[derive(Clone, Debug)]
pub(crate) enum Expect {
    /// Nothing observable on the element.
    Nothing,
    /// The check state becomes this.
    Checked(bool),
    /// The expanded state becomes this; toolkits do not all report it, so not seeing it
    /// leaves the effect unverifiable rather than failed.
    Expanded(bool),
    /// A tab becomes the selected one (its page shown); soft like `Expanded`.
    Selected,
    /// The element holds the keyboard focus.
    Focused,
    /// The field's text (or, for a secure field, its length).
    Text(TextWant),
    /// A numeric value, within `tolerance` (apps round to their step).
    Value { value: f64, tolerance: f64 },
    /// The element's box intersects `screen`.
    InView(Rect),
    /// A spreadsheet cell holds `content` (as typed, or as the sheet shows it), having
    /// shown `before`.
    Cell { before: String, content: String },
    /// A spin button that takes digits (a date segment, a number field) shows the number
    /// typed, or at least another number than `from` (the digits moved on to the next
    /// segment of a date).
    Number { from: Option<f64>, typed: String },
}

/// The text a field should show after typing.
#[derive(Clone, Debug, Default)]
pub(crate) struct TextWant {
    /// The field's text may be read (never a secure field's).
    pub readable: bool,
    /// The whole text, when known.
    pub whole: Option<String>,
    /// Text that must appear in it, even where the app reformats the whole...
    pub typed: String,
    /// ...more often than it did before the keys (typing "abc" into a field that holds
    /// "abc" must not be taken as done before its keys land).
    pub already: usize,
    /// The whole text's length, for fields whose text is not read.
    pub count: Option<i32>,
}

impl TextWant {
    fn met(&self, text: Option<&str>, count: Option<i32>) -> bool {
        if !self.readable {
            return self.count.is_some() && count == self.count;
        }
        let Some(t) = text else {
            return false;
        };
        self.whole.as_deref() == Some(t)
            || (!self.typed.is_empty() && t.matches(self.typed.as_str()).count() > self.already)
    }
}

/// What the element shows now, as far as an expectation needs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Seen {
    states: States,
    text: Option<String>,
    count: Option<i32>,
    value: Option<f64>,
    bounds: Option<Rect>,
    cell: Option<super::sheet::CellSeen>,
    /// What a spin button shows (see [`crate::hydrate::spin_shows`]).
    spin: Option<String>,
}

impl Seen {
    /// The number a spin button shows.
    fn shown_number(&self) -> Option<f64> {
        self.spin
            .as_deref()
            .and_then(|t| t.trim().parse().ok())
            .or(self.value)
    }
}

impl Expect {
    fn met(&self, s: &Seen) -> bool {
        match self {
            Expect::Nothing => true,
            Expect::Checked(c) => s.states.contains(States::CHECKED) == *c,
            Expect::Expanded(x) => s.states.contains(States::EXPANDED) == *x,
            Expect::Selected => s.states.contains(States::SELECTED),
            Expect::Focused => s.states.contains(States::FOCUSED),
            // A spin button's text can lag behind what it shows.
            Expect::Text(w) => {
                w.met(s.text.as_deref(), s.count)
                    || (w.readable && s.spin.is_some() && s.spin == w.whole)
            }
            Expect::Value { value, tolerance } => {
                let near = |v: f64| (v - value).abs() <= *tolerance;
                s.value.is_some_and(near) || s.shown_number().is_some_and(near)
            }
            Expect::InView(screen) => s
                .bounds
                .is_some_and(|b| b.is_valid() && screen.intersects(&b)),
            Expect::Cell { before, content } => s
                .cell
                .as_ref()
                .is_some_and(|c| super::sheet::holds(c, before, content)),
            Expect::Number { from, typed } => {
                let shown = s.shown_number();
                let want: Option<f64> = typed.trim().parse().ok();
                shown.is_some() && (shown == want || shown != *from)
            }
        }
    }

    /// Failing to show it is an error (else only the effect stays unverifiable).
    fn is_hard(&self) -> bool {
        !matches!(
            self,
            Expect::Nothing | Expect::Expanded(_) | Expect::Selected
        )
    }

    /// The error when a hard expectation was not met, naming what was seen instead.
    pub(crate) fn failure(&self, live: &Live, s: &Seen) -> Error {
        let n = &live.node;
        let what = format!("{} \"{}\"", n.role.short(), n.name);
        match self {
            Expect::Focused => Error::new(
                ErrorCode::NotInteractable,
                format!("{what} did not take the keyboard focus; nothing was typed"),
            )
            .suggest("It may not accept typing: click it first, or pick an editable element"),
            Expect::Checked(c) => Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "{what} is still {}",
                    if *c { "unchecked" } else { "checked" }
                ),
            )
            .suggest("The app ignored the action; read it again, or try a click at it"),
            Expect::Text(w) => {
                let shown = match (&s.text, s.count) {
                    (Some(t), _) if w.readable => format!("shows {t:?}"),
                    (_, Some(c)) => format!("has {c} characters"),
                    _ => "cannot be read".to_string(),
                };
                let want = match (&w.whole, w.count) {
                    (Some(whole), _) if w.readable => format!("{whole:?}"),
                    (_, Some(c)) => format!("{c} characters"),
                    _ => format!("to contain {:?}", w.typed),
                };
                Error::new(
                    ErrorCode::ActionFailed,
                    format!("{what} {shown} after typing, not {want}"),
                )
                .suggest("Characters were lost or the app changed them: read the field, then set its whole text")
            }
            Expect::Value { value, .. } => Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "{what} shows {} after setting it to {value}",
                    s.shown_number().map_or("no value".into(), convert::format_number)
                ),
            )
            .suggest("The app refused or adjusted the value; read its range and step"),
            Expect::InView(_) => Error::new(
                ErrorCode::ActionFailed,
                format!("{what} is still out of view"),
            )
            .suggest("Scroll its container with the wheel instead"),
            Expect::Number { typed, .. } => Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "{what} still shows {} after typing {typed:?}",
                    s.shown_number().map_or("nothing".into(), convert::format_number)
                ),
            )
            .suggest("It took none of the keys: read its range and step, or set-value it"),
            Expect::Cell { content, .. } => Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "{what} shows {:?} after typing, not {content:?}",
                    s.cell.as_ref().map_or("", |c| c.text.as_str())
                ),
            )
            .suggest("The sheet refused the entry (a protected cell, a validity rule) or an open dialog took the keys: read the window"),
            Expect::Nothing | Expect::Expanded(_) | Expect::Selected => {
                Error::internal("an unverifiable expectation cannot fail")
            }
        }
    }
}

/// A spin button with a Value: what it shows is read as a whole.
fn spin(n: &desktop_core::Node) -> bool {
    n.role == desktop_core::Role::Spin && n.caps.contains(desktop_core::Caps::VALUE)
}

impl LinuxDesktop {
    /// Reads what `expect` needs of the element.
    async fn seen(&self, live: &Live, expect: &Expect) -> Result<Seen, CallError> {
        let (o, p) = live.h();
        let b = &live.bus;
        let mut s = Seen::default();
        match expect {
            Expect::Nothing => {}
            Expect::Checked(_) | Expect::Expanded(_) | Expect::Selected | Expect::Focused => {
                let words: Vec<u32> = b.call(o, p, ACCESSIBLE, "GetState", &()).await?;
                let st = convert::state_set(&words);
                s.states = convert::states(st, &live.node.role);
            }
            Expect::Text(w) => {
                let count: OwnedValue = b.property(o, p, TEXT, "CharacterCount").await?;
                s.count = i32::try_from(count).ok();
                if w.readable {
                    s.text = Some(b.text(o, p).await?);
                }
                if w.readable && spin(&live.node) {
                    s.spin = crate::hydrate::spin_shows(b, &live.node).await?;
                }
            }
            Expect::Value { .. } | Expect::Number { .. } => {
                let v: OwnedValue = b.property(o, p, VALUE, "CurrentValue").await?;
                s.value = f64::try_from(v).ok();
                if spin(&live.node) {
                    s.spin = crate::hydrate::spin_shows(b, &live.node).await?;
                }
            }
            Expect::InView(_) => {
                let (x, y, w, h) = b.extents_of(o, p).await?;
                s.bounds = Some(Rect::new(x, y, w, h));
            }
            Expect::Cell { .. } => s.cell = Some(self.cell_seen(live).await?),
        }
        Ok(s)
    }

    /// Reads the element until it shows `expect` or `wait` passes; returns what was seen
    /// last and whether it matched.
    pub(crate) async fn wait_for(
        &self,
        live: &Live,
        expect: &Expect,
        wait: Duration,
    ) -> Result<(bool, Seen)> {
        let deadline = Instant::now() + wait;
        loop {
            let seen = match self.seen(live, expect).await {
                Ok(s) => s,
                Err(CallError::Timeout) => {
                    return Err(app_error(CallError::Timeout, &live.app, self.timeout))
                }
                // Gone or without the interface: nothing more will show.
                Err(_) => return Ok((false, Seen::default())),
            };
            if expect.met(&seen) {
                return Ok((true, seen));
            }
            if Instant::now() >= deadline {
                return Ok((false, seen));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Qt runs a button's press action 100 ms later (`animateClick`), holding the button
    /// down meanwhile, and drops presses that come while it is down: waits until the button
    /// is up again, so the click has happened (and the next press counts). One state read
    /// where the button is not held.
    async fn wait_released(&self, live: &Live) -> Result<()> {
        let deadline = Instant::now() + Duration::from_millis(1000);
        let (o, p) = live.h();
        loop {
            let words: Vec<u32> = match live.bus.call(o, p, ACCESSIBLE, "GetState", &()).await {
                Ok(w) => w,
                Err(CallError::Timeout) => {
                    return Err(app_error(CallError::Timeout, &live.app, self.timeout))
                }
                Err(_) => return Ok(()), // gone with its dialog: the click happened
            };
            let st = convert::states(convert::state_set(&words), &live.node.role);
            if !st.contains(States::PRESSED) || Instant::now() >= deadline {
                return Ok(());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Settles after an action on `live` (see the module comment) and tells its effect and
    /// the element's state afterwards (`None` when unchanged from `before`).
    pub(crate) async fn settle(
        &self,
        live: &Live,
        route: Route,
        expect: Expect,
        mut watch: Watch,
        before: &ElementState,
    ) -> Result<Settled> {
        self.settle_with(live, route, expect, &mut watch, before, EXPECT_WAIT)
            .await
    }

    /// [`Self::settle`] with the time an expected change may take.
    pub(crate) async fn settle_with(
        &self,
        live: &Live,
        route: Route,
        expect: Expect,
        watch: &mut Watch,
        before: &ElementState,
        wait: Duration,
    ) -> Result<Settled> {
        let t = Instant::now();
        if route == Route::Input && self.consumed(live.window_id, &live.app)? == Taken::Closed {
            return Ok(Settled::closed(live, t));
        }
        if route == Route::Input && self.wl.is_some() && !live.async_tree() {
            // Wayland has no round trip through the app (X11's ping): the compositor has
            // passed the input on, and the app's events stopping says it has handled it
            // (otherwise a text that is already there reads as typed before the keys land).
            watch.quiet(SYNC_FIRST_EVENT).await;
        }
        if route == Route::A11y
            && matches!(expect, Expect::Nothing)
            && !live.node.states.contains(States::PRESSED)
        {
            self.wait_released(live).await?;
        }
        let (met, seen) = match expect {
            Expect::Nothing => (false, Seen::default()),
            ref e => self.wait_for(live, e, wait).await?,
        };
        // Let the tree catch up: events of the app's reaction, until quiet.
        if live.async_tree() {
            watch
                .quiet(if met { QUIET } else { ASYNC_FIRST_EVENT })
                .await;
        } else if route == Route::Input && !met {
            watch.quiet(SYNC_FIRST_EVENT).await;
        }
        if !met && expect.is_hard() {
            return Err(expect.failure(live, &seen));
        }
        let post = match super::resolve::probe(&live.bus, &live.node.handle).await {
            Ok(now) => Some(ElementState::of(&now)).filter(|after| after != before),
            Err(CallError::Timeout) => {
                return Err(app_error(CallError::Timeout, &live.app, self.timeout))
            }
            // The element is gone: with its window, the action closed it.
            Err(_) if self.window_gone(live.window_id) => return Ok(Settled::closed(live, t)),
            Err(_) => None,
        };
        let effect = if met && !matches!(expect, Expect::Nothing) {
            Effect::Confirmed
        } else {
            Effect::Unverifiable
        };
        Ok(Settled {
            effect,
            post,
            ms: t.elapsed().as_secs_f64() * 1000.0,
            closed: None,
        })
    }
}

/// The outcome of settling: the effect, the element's state when it changed, the time it took.
#[derive(Debug)]
pub(crate) struct Settled {
    pub effect: Effect,
    pub post: Option<ElementState>,
    pub ms: f64,
    /// The action closed the element's window (or ended its app).
    pub closed: Option<Closed>,
}

impl Settled {
    /// The action closed `live`'s window: that is its effect.
    fn closed(live: &Live, t: Instant) -> Settled {
        Settled {
            effect: Effect::Confirmed,
            post: None,
            ms: t.elapsed().as_secs_f64() * 1000.0,
            closed: Some(Closed::now(&live.window_title, &live.app, live.pid)),
        }
    }

    /// Puts the outcome into an action's result.
    pub(crate) fn into_result(
        self,
        mut r: desktop_core::action::ActionResult,
    ) -> desktop_core::action::ActionResult {
        r.effect = self.effect;
        r.post_state = self.post;
        r.timing.push(("settle", self.ms));
        match self.closed {
            Some(c) => r.with("closed", c.json()),
            None => r,
        }
    }
}

#[cfg(test)]
mod tests {
    //! When typed text counts as landed.

    use super::TextWant;

    fn want(whole: Option<&str>, typed: &str, before: &str) -> TextWant {
        TextWant {
            readable: true,
            whole: whole.map(str::to_string),
            typed: typed.to_string(),
            already: before.matches(typed).count(),
            count: None,
        }
    }

    #[test]
    fn text_already_holding_the_typed_words_waits_for_another_copy() {
        // "abc" typed after "abc": the field holds "abc" before the keys land.
        let w = want(Some("abcabc"), "abc", "abc");
        assert!(!w.met(Some("abc"), None), "nothing landed yet");
        assert!(!w.met(Some("abca"), None), "a key still on its way");
        assert!(w.met(Some("abcabc"), None));
        // An app that reformats the whole (a card number's spaces) still counts.
        let w = want(Some("1234 5678"), "5678", "1234 ");
        assert!(w.met(Some("1234 - 5678"), None));
        assert!(!w.met(Some("1234 "), None));
    }
}
