//! The `observe` scenario: the stage's window followed the way `observe` follows a window
//! (a baseline read, the app's change notices marking what to ask about again, a read after
//! each burst of them, the identity diff), while the app inserts a check box, removes it and
//! puts new text in its field.

use super::{act, filters, named, read, Outcome, Stage, FILLED, INSERTED};
use crate::backend::{Changes, Desktop, ReadMemo};
use crate::diff::{Ignore, Observer};
use crate::model::WindowInfo;
use crate::node::Node;
use crate::request::Action;
use crate::role::Role;
use serde_json::Value;
use std::time::{Duration, Instant};

/// How long a change may take to be told and seen.
const PATIENCE: Duration = Duration::from_secs(5);
/// Time between looks for a first notice, or between reads without notices.
const POLL: Duration = Duration::from_millis(20);
/// Notices closer together than this are one burst, read once (`observe` waits 15 ms; a
/// scenario has no hurry and a loaded machine delivers bursts more slowly).
const QUIET: Duration = Duration::from_millis(60);
/// The field's text before the app fills it.
const BEFORE: &str = "before the app fills it";
/// Moves that inserting shifts, and the focus a click on the app's buttons takes, are not
/// what the scenario is about.
const IGNORE: Ignore = Ignore {
    bounds: true,
    focus: true,
};

/// One window under observation.
struct Watch<'d, D: Desktop> {
    d: &'d D,
    window: WindowInfo,
    observer: Observer,
    memo: D::Memo,
    stream: Option<D::Changes>,
}

impl<'d, D: Desktop> Watch<'d, D> {
    /// The baseline read (its elements carry the observer's ids), then the subscription,
    /// in `observe`'s order.
    async fn start(d: &'d D, window: WindowInfo) -> Result<(Self, Vec<Node>), String> {
        let mut memo = D::Memo::default();
        let data = d
            .read_window(window.clone(), &filters(), Some(&mut memo))
            .await
            .map_err(|e| format!("baseline read: {}", e.message))?;
        let mut observer = Observer::default();
        observer.baseline(&data.elements);
        let stream = d.changes(&window).await;
        let mut all = Vec::new();
        for n in &data.elements {
            n.walk(&mut |x| all.push(x.clone()));
        }
        let watch = Watch {
            d,
            window,
            observer,
            memo,
            stream,
        };
        Ok((watch, all))
    }

    /// Takes the notices delivered so far into the memo; how many there were.
    fn take(&mut self) -> usize {
        let mut n = 0;
        if let Some(s) = self.stream.as_mut() {
            while let Some(c) = s.try_next() {
                self.memo.touched(&c.handle, c.children);
                n += 1;
            }
        }
        n
    }

    /// What `observe` reports after the app's change (`what`): a read after each burst of
    /// notices (where the backend sends them; else after each pause, asking about
    /// everything, as `observe`'s timed reads do), until a change `wanted` is among the
    /// reports. A backend with notices must send one for the change, and the read they
    /// prompt must show it.
    async fn until<S: Stage>(
        &mut self,
        stage: &S,
        what: &str,
        wanted: impl Fn(&Value) -> bool,
    ) -> Result<Vec<Value>, String> {
        let deadline = Instant::now() + PATIENCE;
        let mut seen: Vec<Value> = Vec::new();
        loop {
            if self.stream.is_some() {
                while self.take() == 0 {
                    if Instant::now() >= deadline {
                        return Err(format!(
                            "no change notice within {PATIENCE:?} after {what} (observe saw {seen:?})"
                        ));
                    }
                    stage.sleep(POLL).await;
                }
                loop {
                    stage.sleep(QUIET).await;
                    if self.take() == 0 || Instant::now() >= deadline {
                        break;
                    }
                }
            } else {
                if Instant::now() >= deadline {
                    return Err(format!(
                        "observe (without notices) saw {seen:?} within {PATIENCE:?} after {what}"
                    ));
                }
                self.memo.clear();
                stage.sleep(POLL).await;
            }
            let data = self
                .d
                .read_window(self.window.clone(), &filters(), Some(&mut self.memo))
                .await
                .map_err(|e| format!("read after {what}: {}", e.message))?;
            seen.extend(self.observer.diff(&data.elements, IGNORE));
            if seen.iter().any(&wanted) {
                return Ok(seen);
            }
        }
    }
}

fn kind(c: &Value) -> &str {
    c["type"].as_str().unwrap_or_default()
}

/// `observe` on the stage's window: the app inserting a check box is one `added` of it,
/// and nothing that was there is reported removed or added again (elements are followed
/// by identity, not position); its removal is a `removed` of the id it was added with; the
/// app's new text in the field is a `changed` of the field's id, from the old text to the
/// new.
pub(super) async fn observe_sees_changes<S: Stage>(stage: &S) -> Outcome {
    let d = stage.desktop();
    // A known text in the field, and no inserted check box, before the baseline.
    let nodes = read(stage).await?;
    let field = named(&nodes, None, stage.field())?.id;
    act(
        stage,
        field,
        Action::SetValue {
            value: BEFORE.into(),
        },
    )
    .await
    .map_err(|e| format!("set-value by id: {}", e.message))?;
    if named(&nodes, Some(&Role::CheckBox), INSERTED).is_ok() {
        stage
            .remove()
            .await
            .map_err(|e| format!("remove: {}", e.message))?;
    }
    let window = d
        .resolve(&stage.target())
        .await
        .map_err(|e| format!("resolve: {}", e.message))?;
    let (mut watch, baseline) = Watch::start(d, window).await?;
    let field = named(&baseline, None, stage.field())?.id;
    let existing = |c: &Value| {
        c["el"]["t"] == stage.field() || c["el"]["t"] == stage.check() || c["type"] == "removed"
    };

    stage
        .insert()
        .await
        .map_err(|e| format!("insert: {}", e.message))?;
    let is_insert = |c: &Value| kind(c) == "added" && c["el"]["t"] == INSERTED;
    let seen = watch.until(stage, "the insert", is_insert).await?;
    let lost: Vec<&Value> = seen.iter().filter(|c| existing(c)).collect();
    if !lost.is_empty() {
        return Err(format!(
            "the insert lost elements that stayed: {lost:?} (all: {seen:?})"
        ));
    }
    let added = seen
        .iter()
        .find(|c| is_insert(c))
        .and_then(|c| c["el"]["i"].as_u64())
        .ok_or_else(|| format!("the insert's `added` has no id: {seen:?}"))?;

    stage
        .remove()
        .await
        .map_err(|e| format!("remove: {}", e.message))?;
    let seen = watch
        .until(stage, "the removal", |c| {
            kind(c) == "removed" && c["id"] == added
        })
        .await?;
    let wrong: Vec<&Value> = seen
        .iter()
        .filter(|c| kind(c) == "added" || (kind(c) == "removed" && c["id"] != added))
        .collect();
    if !wrong.is_empty() {
        return Err(format!(
            "the removal of {added} also reported {wrong:?} (all: {seen:?})"
        ));
    }

    stage
        .fill()
        .await
        .map_err(|e| format!("fill: {}", e.message))?;
    let filled =
        |c: &Value| kind(c) == "changed" && c["id"] == field && c["changes"]["v"][1] == FILLED;
    let seen = watch.until(stage, "the app's new text", filled).await?;
    let wrong: Vec<&Value> = seen.iter().filter(|c| kind(c) != "changed").collect();
    if !wrong.is_empty() {
        return Err(format!(
            "the field's new text also reported {wrong:?} (all: {seen:?})"
        ));
    }
    // The change starts from the text the field had (GTK clears a field before it sets
    // it: the first report of the field is from the old text).
    let first = seen
        .iter()
        .find(|c| kind(c) == "changed" && c["id"] == field && c["changes"]["v"].is_array());
    match first {
        Some(c) if c["changes"]["v"][0] == BEFORE => Ok(()),
        other => Err(format!(
            "the field's first change is not from {BEFORE:?}: {other:?} (all: {seen:?})"
        )),
    }
}
