//! The conformance suite: scenarios every backend must pass, written once against the
//! contract. A backend's test sets up a [`Stage`] (a window with a text field and a check
//! box, and a way to make the app insert and remove a second check box above the first and
//! set the field's text itself) and runs [`run_all`]; the in-memory desktop runs it in
//! core's tests, the Linux backend on a GTK window in CI, and a macOS or Windows backend on
//! its own machine.
//!
//! What is checked: an action by id lands on its element and a read right after shows it;
//! an id keeps naming its element after the app inserts another before it (or refuses),
//! never a neighbour; reads with other filters show each element under the id it has, and
//! an earlier read's id still acts on its element; an id of an element that is gone refuses; `wait` finds what is there
//! and times out on what is not; a capture has the pixels its display's scale says;
//! `observe` (the change notices, the read they prompt and the diff) sees the insert as one
//! added element, its removal as that element removed and the app's new text in the field
//! as a change of the field's id; the window is listed and resolved by its title, and a
//! title no window has is `WINDOW_NOT_FOUND`.

mod observe;

use crate::backend::Desktop;
use crate::error::{ErrorCode, Result};
use crate::filter::Filters;
use crate::model::WindowInfo;
use crate::node::{Node, Rect, States};
use crate::request::{Action, ActionRequest, Aim, Element};
use crate::role::Role;
use crate::watch::{self, WaitRequest};
use crate::Target;
use std::time::Duration;

/// What a backend's test provides for the scenarios.
#[allow(async_fn_in_trait)]
pub trait Stage {
    type Desktop: Desktop;
    fn desktop(&self) -> &Self::Desktop;
    /// The window the scenarios work in.
    fn target(&self) -> Target;
    /// The name of a text field that takes any text.
    fn field(&self) -> &str;
    /// The name of a check box.
    fn check(&self) -> &str;
    /// Makes the app insert a check box named [`INSERTED`], unchecked, before the check
    /// box (above it in reading order), and returns once it shows.
    async fn insert(&self) -> Result<()>;
    /// Makes the app remove the check box named [`INSERTED`], and returns once it is gone.
    async fn remove(&self) -> Result<()>;
    /// Makes the app itself (not an action through the desktop) set the text field's text
    /// to [`FILLED`], and returns once it shows.
    async fn fill(&self) -> Result<()>;
    /// Waits (the runtime's timer).
    async fn sleep(&self, time: Duration);
}

/// The name of the check box a [`Stage`] inserts and removes.
pub const INSERTED: &str = "Inserted";

/// The text a [`Stage`]'s app puts in its field.
pub const FILLED: &str = "Filled by the app";

/// A title no window has.
const NOWHERE: &str = "no window is titled this 7f3a";

/// A scenario that failed: its name and what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub scenario: &'static str,
    pub what: String,
}

type Outcome = std::result::Result<(), String>;

/// Runs every scenario in turn; the failures, none when the backend conforms.
pub async fn run_all<S: Stage>(stage: &S) -> Vec<Failure> {
    let mut failures = Vec::new();
    let mut note = |scenario: &'static str, outcome: Outcome| {
        if let Err(what) = outcome {
            failures.push(Failure { scenario, what });
        }
    };
    note(
        "act_by_id_then_read_back",
        act_by_id_then_read_back(stage).await,
    );
    note("ids_survive_an_insert", ids_survive_an_insert(stage).await);
    note(
        "ids_hold_across_reads_with_other_filters",
        ids_hold_across_reads(stage).await,
    );
    note("gone_elements_refuse", gone_elements_refuse(stage).await);
    note(
        "wait_finds_and_times_out",
        wait_finds_and_times_out(stage).await,
    );
    note(
        "captures_follow_displays",
        captures_follow_displays(stage).await,
    );
    note(
        "observe_sees_inserts_removals_and_text",
        observe::observe_sees_changes(stage).await,
    );
    note(
        "windows_are_found_by_title",
        windows_are_found_by_title(stage).await,
    );
    failures
}

fn filters() -> Filters {
    Filters {
        visible_only: true,
        ..Filters::default()
    }
}

/// Reads the stage's window (the read records its ids).
async fn read<S: Stage>(stage: &S) -> std::result::Result<Vec<Node>, String> {
    let d = stage.desktop();
    let data = d
        .read(&stage.target(), &filters())
        .await
        .map_err(|e| format!("read: {}", e.message))?;
    let mut all = Vec::new();
    for n in &data.elements {
        n.walk(&mut |x| all.push(x.clone()));
    }
    Ok(all)
}

fn named<'a>(
    nodes: &'a [Node],
    role: Option<&Role>,
    name: &str,
) -> std::result::Result<&'a Node, String> {
    nodes
        .iter()
        .find(|n| n.name == name && role.is_none_or(|r| &n.role == r))
        .ok_or_else(|| format!("no element named {name:?} in the read"))
}

async fn act<S: Stage>(stage: &S, id: u32, action: Action) -> Result<crate::action::ActionResult> {
    let request = ActionRequest::new(stage.target(), Aim::Element(Element::Id(id)), action);
    stage.desktop().act(&request).await
}

fn checked(n: &Node) -> bool {
    n.states.contains(States::CHECKED)
}

/// A text set by id shows in the next read; a check box toggled by id reads flipped.
async fn act_by_id_then_read_back<S: Stage>(stage: &S) -> Outcome {
    let nodes = read(stage).await?;
    let field = named(&nodes, None, stage.field())?.id;
    let value = "conformance 42";
    act(
        stage,
        field,
        Action::SetValue {
            value: value.into(),
        },
    )
    .await
    .map_err(|e| format!("set-value by id: {}", e.message))?;
    let nodes = read(stage).await?;
    let shown = named(&nodes, None, stage.field())?.value.clone();
    if shown.as_deref() != Some(value) {
        return Err(format!(
            "the field shows {shown:?} after set-value {value:?}"
        ));
    }
    let check = named(&nodes, Some(&Role::CheckBox), stage.check())?;
    let was = checked(check);
    act(stage, check.id, Action::Toggle)
        .await
        .map_err(|e| format!("toggle by id: {}", e.message))?;
    let nodes = read(stage).await?;
    let now = checked(named(&nodes, Some(&Role::CheckBox), stage.check())?);
    if now == was {
        return Err(format!(
            "the check box still reads checked={now} after a toggle"
        ));
    }
    Ok(())
}

/// The app inserts a check box before the one an id names: the id still toggles its own
/// element (or refuses), never the newcomer.
async fn ids_survive_an_insert<S: Stage>(stage: &S) -> Outcome {
    let nodes = read(stage).await?;
    let check = named(&nodes, Some(&Role::CheckBox), stage.check())?;
    let (id, was) = (check.id, checked(check));
    stage
        .insert()
        .await
        .map_err(|e| format!("insert: {}", e.message))?;
    let outcome = act(stage, id, Action::Toggle).await;
    let nodes = read(stage).await?;
    let newcomer = named(&nodes, Some(&Role::CheckBox), INSERTED)?;
    if checked(newcomer) {
        return Err(format!(
            "id {id} toggled the check box inserted before its element"
        ));
    }
    let now = checked(named(&nodes, Some(&Role::CheckBox), stage.check())?);
    match outcome {
        Ok(_) if now != was => Ok(()),
        Ok(r) => Err(format!(
            "toggle by id {id} answered ok ({:?}) but nothing flipped",
            r.effect
        )),
        Err(e) if matches!(e.code, ErrorCode::StaleRef | ErrorCode::ElementNotFound) => Ok(()),
        Err(e) => Err(format!(
            "toggle by id {id} after an insert: {}",
            e.code.as_str()
        )),
    }
}

/// Reads with other filters show each element under the id it already has, and an id from
/// the first read still acts on its element after them.
async fn ids_hold_across_reads<S: Stage>(stage: &S) -> Outcome {
    let d = stage.desktop();
    let nodes = read(stage).await?;
    let check = named(&nodes, Some(&Role::CheckBox), stage.check())?;
    let field = named(&nodes, None, stage.field())?;
    let (check_id, was, field_id) = (check.id, checked(check), field.id);
    let only_checks = Filters {
        roles: Some(vec![Role::CheckBox]),
        ..filters()
    };
    let interactive = Filters {
        interactive: true,
        ..filters()
    };
    for f in [only_checks, interactive] {
        let data = d
            .read(&stage.target(), &f)
            .await
            .map_err(|e| format!("read: {}", e.message))?;
        let mut shown = Vec::new();
        for n in &data.elements {
            n.walk(&mut |x| shown.push((x.id, x.name.clone(), x.role.clone())));
        }
        match shown
            .iter()
            .find(|(_, name, role)| name == stage.check() && role == &Role::CheckBox)
        {
            Some((id, _, _)) if *id == check_id => {}
            Some((id, _, _)) => {
                return Err(format!(
                    "the check box was {check_id} in a whole read and {id} in a filtered one"
                ))
            }
            None => return Err("a filtered read lost the check box".into()),
        }
        if let Some((id, name, _)) = shown
            .iter()
            .find(|(id, name, _)| *id == field_id && name != stage.field())
        {
            return Err(format!("id {id} now names {name:?}, not the field"));
        }
    }
    // The first read's id still acts on its element, after reads that showed fewer.
    act(stage, check_id, Action::Toggle)
        .await
        .map_err(|e| format!("toggle by the first read's id: {}", e.message))?;
    let nodes = read(stage).await?;
    if checked(named(&nodes, Some(&Role::CheckBox), stage.check())?) == was {
        return Err("the first read's id did not toggle its check box".into());
    }
    Ok(())
}

/// An id whose element the app removed refuses with STALE_REF or ELEMENT_NOT_FOUND.
async fn gone_elements_refuse<S: Stage>(stage: &S) -> Outcome {
    let nodes = read(stage).await?;
    let id = match named(&nodes, Some(&Role::CheckBox), INSERTED) {
        Ok(n) => n.id,
        Err(_) => {
            stage
                .insert()
                .await
                .map_err(|e| format!("insert: {}", e.message))?;
            let nodes = read(stage).await?;
            named(&nodes, Some(&Role::CheckBox), INSERTED)?.id
        }
    };
    stage
        .remove()
        .await
        .map_err(|e| format!("remove: {}", e.message))?;
    match act(stage, id, Action::Toggle).await {
        Ok(r) => Err(format!(
            "toggle on the removed element answered ok: {:?}",
            r.element
        )),
        Err(e) if matches!(e.code, ErrorCode::StaleRef | ErrorCode::ElementNotFound) => Ok(()),
        Err(e) => Err(format!(
            "toggle on a removed element: {} ({})",
            e.code.as_str(),
            e.message
        )),
    }
}

/// `wait` finds an element that is there and times out, saying so, on one that is not.
async fn wait_finds_and_times_out<S: Stage>(stage: &S) -> Outcome {
    let d = stage.desktop();
    let request = |text: &str, timeout_ms: u64| WaitRequest {
        target: stage.target(),
        text: Some(text.into()),
        role: None,
        id: None,
        gone: false,
        timeout: Duration::from_millis(timeout_ms),
        interval: Duration::from_millis(50),
    };
    let sleep = |t: Duration| stage.sleep(t);
    watch::wait(d, &request(stage.check(), 3000), sleep)
        .await
        .map_err(|e| format!("wait for the check box: {}", e.message))?;
    match watch::wait(d, &request("no element is named this 7f3a", 300), sleep).await {
        Ok(v) => Err(format!("wait for nothing found {v:?}")),
        Err(e) if e.code == ErrorCode::Timeout => Ok(()),
        Err(e) => Err(format!(
            "wait for nothing: {} instead of TIMEOUT",
            e.code.as_str()
        )),
    }
}

/// A capture of part of each display has the pixels its scale says, at the place asked.
async fn captures_follow_displays<S: Stage>(stage: &S) -> Outcome {
    let d = stage.desktop();
    let displays = d.displays();
    if displays.is_empty() {
        return Err("the desktop lists no display".into());
    }
    if !displays.iter().any(|x| x.primary) {
        return Err("no display is the primary one".into());
    }
    for x in &displays {
        let area = Rect::new(x.bounds.x + 10, x.bounds.y + 10, 100, 50);
        let c = d
            .capture(area)
            .await
            .map_err(|e| format!("capture of {area:?}: {}", e.message))?;
        let want = (
            (100.0 * x.scale).round() as u32,
            (50.0 * x.scale).round() as u32,
        );
        if c.image.dimensions() != want || c.origin != (area.x, area.y) || c.scale != x.scale {
            return Err(format!(
                "capture of {area:?} on a display of scale {}: {:?} pixels at {:?}, scale {}",
                x.scale,
                c.image.dimensions(),
                c.origin,
                c.scale
            ));
        }
    }
    Ok(())
}

/// The stage's window is listed (among all windows, and among those its title names) and
/// resolved by its title and by its window id, its app is listed, and a title no window has
/// lists nothing and resolves to WINDOW_NOT_FOUND.
async fn windows_are_found_by_title<S: Stage>(stage: &S) -> Outcome {
    let d = stage.desktop();
    let w = d
        .resolve(&stage.target())
        .await
        .map_err(|e| format!("resolve the stage's target: {}", e.message))?;
    let same = |x: &WindowInfo| x.title == w.title && x.id == w.id && x.app == w.app;
    let by_title = Target {
        window: Some(w.title.clone()),
        ..Target::default()
    };
    for t in [Target::default(), by_title.clone()] {
        let list = d
            .windows(&t)
            .await
            .map_err(|e| format!("windows of {t:?}: {}", e.message))?;
        if !list.windows.iter().any(same) {
            let titles: Vec<&str> = list.windows.iter().map(|x| x.title.as_str()).collect();
            return Err(format!("windows of {t:?} lack {:?}: {titles:?}", w.title));
        }
    }
    let mut by = vec![by_title];
    if let Some(id) = w.id {
        by.push(Target {
            window_id: Some(id),
            ..Target::default()
        });
    }
    for t in by {
        match d.resolve(&t).await {
            Ok(x) if same(&x) => {}
            Ok(x) => return Err(format!("{t:?} resolved to {:?} ({:?})", x.title, x.id)),
            Err(e) => return Err(format!("resolve {t:?}: {}", e.message)),
        }
    }
    let apps = d.apps().await.map_err(|e| format!("apps: {}", e.message))?;
    if !apps.apps.iter().any(|a| a.name == w.app && a.windows > 0) {
        return Err(format!("the apps lack {:?} with a window", w.app));
    }
    let nowhere = Target {
        window: Some(NOWHERE.into()),
        ..Target::default()
    };
    let list = d
        .windows(&nowhere)
        .await
        .map_err(|e| format!("windows titled {NOWHERE:?}: {}", e.message))?;
    if !list.windows.is_empty() {
        return Err(format!(
            "{} windows are titled {NOWHERE:?}",
            list.windows.len()
        ));
    }
    match d.resolve(&nowhere).await {
        Ok(x) => Err(format!("a title no window has resolved to {:?}", x.title)),
        Err(e) if e.code == ErrorCode::WindowNotFound => Ok(()),
        Err(e) => Err(format!(
            "a title no window has: {} instead of WINDOW_NOT_FOUND",
            e.code.as_str()
        )),
    }
}
