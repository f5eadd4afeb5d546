//! `file-dialog --path P`: fills the open or save chooser that is showing (GTK's, Qt's, the
//! desktop portal's, the systems' own) through the same reads and actions on every backend —
//! the path into its file-name or location field, Enter, and the chooser seen to close.
//! A chooser that asks a question instead (replace the file?) has that question reported,
//! never answered. A chooser with no tree (GTK inside Chromium) is filled by keyboard.

mod chooser;
mod find;

pub use chooser::{absolute, blind, classify, Chooser, Mode};

use crate::action::{ActionResult, Effect, Route};
use crate::backend::Desktop;
use crate::error::{Error, ErrorCode, Result};
use crate::keys::Combo;
use crate::model::{ReadData, Target, WindowInfo};
use crate::request::{Action, ActionRequest, Aim, Element};
use crate::windows::of_process as same_process;
use chooser::{saying, value_of};
use find::{find, read, Found};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// How long a chooser gets to close after Enter (it may check the file first).
const CLOSE_WAIT: Duration = Duration::from_secs(4);
/// After this long still open with nothing asked, Enter once more: GTK's chooser showing
/// recent files first only goes to the folder on the first Enter.
const SECOND_ENTER: Duration = Duration::from_millis(1200);
/// Between the path set and Enter: GTK's chooser loads the path's folder first and drops
/// an Enter that comes sooner (measured: lost within 100 ms, taken from 200 ms).
const TAKE_IN: Duration = Duration::from_millis(250);
/// How long a location field opened with Ctrl+L gets to show.
const FIELD_WAIT: Duration = Duration::from_secs(2);
const POLL: Duration = Duration::from_millis(40);
/// How long a chooser without a tree is left to come up before keys go to it.
const BLIND_SETTLE: Duration = Duration::from_millis(250);

/// Fills the chooser showing in `target` (any window when empty) with `path` and confirms.
///
/// `data`: `{"action":"file-dialog","route":"a11y","effect":"confirmed","path":"/tmp/a.txt",
/// "mode":"save","dialog":"Save File"}`, `"written":true` when a saved file showed up, and
/// `"keyboard":true` (route `input`) when the chooser had no tree and was filled by keys.
pub async fn fill<D: Desktop, F: std::future::Future<Output = ()>>(
    d: &D,
    target: &Target,
    path: &str,
    want: Option<Mode>,
    sleep: impl Fn(Duration) -> F,
) -> Result<ActionResult> {
    let t0 = Instant::now();
    let found = find(d, target, &sleep).await?;
    let (window, seen) = match &found {
        Found::Tree(w, _, c) => (w.clone(), c.mode),
        Found::Blind(w, m) => (w.clone(), Some(*m)),
    };
    let found_in = t0.elapsed();
    if let (Some(w), Some(m)) = (want, seen) {
        if w != m {
            return Err(Error::invalid_args(format!(
                "the chooser \"{}\" is a {} dialog, not {}",
                window.title,
                m.as_str(),
                w.as_str()
            ))
            .suggest("Drop --action, or open the other dialog first"));
        }
    }
    let mode = seen.or(want);
    let file = absolute(path, mode)?;
    let others = same_process(d, &window).await;
    if let Some(q) = others
        .iter()
        .find(|w| w.id != window.id && w.modal && w.focused)
    {
        let says = says(d, q).await;
        return Err(Error::new(
            ErrorCode::ActionFailed,
            format!(
                "a dialog \"{}\"{says} is in front of the chooser \"{}\" (nothing was answered)",
                q.title, window.title
            ),
        )
        .suggest("Read that dialog and answer it first"));
    }
    let others: Vec<Option<u64>> = others.iter().map(|w| w.id).collect();
    let text = file.to_string_lossy().into_owned();
    let scope = Target {
        window_id: window.id,
        pid: window.id.is_none().then_some(window.pid),
        ..Target::default()
    };
    // Enter confirms a chooser read through its tree; one filled blind is confirmed by its
    // button's mnemonic: Chromium takes an Enter in GTK's location field as a close with no
    // file chosen (measured on an <input type=file>), and its _Open / _Save as chosen.
    let mut key = "enter";
    let (field, route) = match found {
        Found::Tree(w, data, c) => {
            let field = into_field(d, &w, &scope, (*data, c), &text, &sleep).await?;
            (Some(field), Route::A11y)
        }
        Found::Blind(..) => {
            // A chooser just shown takes keys only once GTK has given its own widgets the
            // focus (measured in Chromium: keys within a few ms of its window coming up
            // went astray, from 100 ms on they landed); no tree tells when, so a pause.
            sleep(BLIND_SETTLE).await;
            // Ctrl+L: GTK's location field (the name field when saving), all of it
            // selected, replaced by the path.
            press(d, &scope, "ctrl+l").await?;
            press(d, &scope, "ctrl+a").await?;
            let typed = Action::Type {
                text: text.clone(),
                replace: false,
                delay: Duration::ZERO,
            };
            d.act(&ActionRequest::new(scope.clone(), Aim::Window, typed))
                .await?;
            key = if mode == Some(Mode::Save) {
                "alt+s"
            } else {
                "alt+o"
            };
            (None, Route::Input)
        }
    };
    sleep(TAKE_IN).await;
    let filled = t0.elapsed();
    let started = SystemTime::now();
    let entered = confirm(d, (&window, &scope, &others), key, field, &text, &sleep).await?;
    let closed = t0.elapsed();
    let mut r = ActionResult::new("file-dialog", route);
    r.effect = Effect::Confirmed;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    r.timing = vec![
        ("find", ms(found_in)),
        ("fill", ms(filled - found_in)),
        ("enter", ms(entered)),
        ("close", ms(closed - filled - entered)),
    ];
    r = r.with("path", text).with("dialog", window.title.clone());
    if let Some(m) = mode {
        r = r.with("mode", m.as_str());
    }
    if route == Route::Input {
        r = r.with("keyboard", true);
    }
    if mode == Some(Mode::Save) {
        r = r.with("written", written(&file, started, &sleep).await);
    }
    Ok(r)
}

/// The path set into the chooser's field (shown first with Ctrl+L where it is not yet),
/// which holds the keyboard focus then; answers the field's id.
async fn into_field<D: Desktop, F: std::future::Future<Output = ()>>(
    d: &D,
    window: &WindowInfo,
    scope: &Target,
    (_read, mut chooser): (ReadData, Chooser),
    text: &str,
    sleep: &impl Fn(Duration) -> F,
) -> Result<u32> {
    if chooser.field.is_none() {
        // GTK's open chooser shows its location field on Ctrl+L.
        press(d, scope, "ctrl+l").await?;
        let deadline = Instant::now() + FIELD_WAIT;
        while chooser.field.is_none() && Instant::now() < deadline {
            sleep(POLL).await;
            let data = read(d, window).await?;
            chooser = classify(&data.elements).unwrap_or(chooser);
        }
    }
    let field = chooser.field.ok_or_else(|| {
        Error::new(
            ErrorCode::ActionNotSupported,
            format!(
                "the chooser \"{}\" shows no field for a file name",
                window.title
            ),
        )
        .suggest(
            "Read the dialog and pick the file in its list, then press its Open or Save button",
        )
    })?;
    let on = |action| ActionRequest::new(scope.clone(), Aim::Element(Element::Id(field)), action);
    d.act(&on(Action::Focus)).await?;
    let set = d
        .act(&on(Action::SetValue {
            value: text.to_string(),
        }))
        .await;
    if let Err(e) = set {
        if !matches!(e.code, ErrorCode::ActionNotSupported | ErrorCode::ReadOnly) {
            return Err(e);
        }
        let typed = Action::Type {
            text: text.to_string(),
            replace: true,
            delay: Duration::ZERO,
        };
        d.act(&on(typed)).await?;
    }
    Ok(field)
}

/// `key` (Enter), then the chooser seen to close; a new window of its process is its
/// question, reported. Answers how long the key took to be taken. `others`: the ids of
/// the process's windows before.
async fn confirm<D: Desktop, F: std::future::Future<Output = ()>>(
    d: &D,
    (window, scope, others): (&WindowInfo, &Target, &[Option<u64>]),
    key: &str,
    field: Option<u32>,
    text: &str,
    sleep: &impl Fn(Duration) -> F,
) -> Result<Duration> {
    let t = Instant::now();
    press(d, scope, key).await?;
    let took = t.elapsed();
    let entered = Instant::now();
    let mut entered_again = false;
    loop {
        sleep(POLL).await;
        let now = same_process(d, window).await;
        if !now.iter().any(|w| w.id == window.id) {
            return Ok(took);
        }
        if let Some(q) = now
            .iter()
            .find(|w| w.id != window.id && !others.contains(&w.id))
        {
            let says = says(d, q).await;
            return Err(Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "the chooser \"{}\" asks before taking {text}: a dialog \"{}\"{says} is showing (nothing was answered)",
                    window.title, q.title
                ),
            )
            .suggest("Read that dialog and answer it (to replace a file, or not), or name another file"));
        }
        let waited = entered.elapsed();
        if !entered_again && waited >= SECOND_ENTER {
            entered_again = true;
            // Only into the chooser still in front with nothing new beside it: an Enter
            // after it closed would land in the app's own window.
            if now.iter().any(|w| w.id == window.id && w.focused) {
                press(d, scope, key).await?;
            }
        } else if waited >= CLOSE_WAIT {
            let shown = match field {
                Some(id) => read(d, window)
                    .await
                    .ok()
                    .and_then(|r| value_of(&r.elements, id))
                    .map(|v| format!(" (its field shows {v:?})"))
                    .unwrap_or_default(),
                None => String::new(),
            };
            return Err(Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "the chooser \"{}\" is still open after Enter{shown}",
                    window.title
                ),
            )
            .suggest("Read the dialog (or take a screenshot of it): it may show why (no such file, no permission)"));
        }
    }
}

/// Whether the file saved shows up written since `since` within a moment (apps write after
/// their chooser closed; some ask more first, such as which format).
async fn written<F: std::future::Future<Output = ()>>(
    file: &Path,
    since: SystemTime,
    sleep: &impl Fn(Duration) -> F,
) -> bool {
    let deadline = Instant::now() + Duration::from_millis(1500);
    loop {
        let fresh = std::fs::metadata(file)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t + Duration::from_secs(1) >= since);
        if fresh || Instant::now() >= deadline {
            return fresh;
        }
        sleep(POLL).await;
    }
}

/// ` saying "…"`: what the dialog `q` says, or nothing when it shows no text.
async fn says<D: Desktop>(d: &D, q: &WindowInfo) -> String {
    let says = read(d, q)
        .await
        .map(|r| saying(&r.elements))
        .unwrap_or_default();
    if says.is_empty() {
        String::new()
    } else {
        format!(" saying {says:?}")
    }
}

async fn press<D: Desktop>(d: &D, scope: &Target, key: &str) -> Result<()> {
    let combos = vec![Combo::parse(key)?];
    let req = ActionRequest::new(scope.clone(), Aim::Window, Action::Press { combos });
    d.act(&req).await.map(|_| ())
}
