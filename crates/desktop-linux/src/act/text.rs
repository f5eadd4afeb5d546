//! Keyboard input that lands where it says: typing into an element waits until that
//! element holds the focus (or refuses), puts the caret at the end (or selects everything
//! for `replace`), types, and reads the field back until the text is there. The same
//! meaning on every toolkit: GTK selects a field's text on focus, Qt and Chromium do not.

use super::settle::{Expect, Seen, TextWant, Watch};
use super::taken::{with_closed, Closed, Taken};
use super::{resolve::takes_text, Live};
use crate::bus::Addr;
use crate::bus::{CallError, COMPONENT, PROPERTIES, TEXT, VALUE};
use crate::seat::Keyboard;
use crate::{app_error, LinuxDesktop};
use desktop_core::action::{ActionResult, ElementState, Route};
use desktop_core::keys::Combo;
use desktop_core::Button;
use desktop_core::{Caps, Error, ErrorCode, Result, Role, States, Target, WindowInfo};
use std::time::Duration;
use zbus::zvariant::{OwnedValue, Value};

const EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
/// How long a toolkit may take to move the focus (Chromium does it in the page's process).
const FOCUS_WAIT: Duration = Duration::from_millis(1500);
/// Base time for typed text to show, plus a little per character.
const TEXT_WAIT: Duration = Duration::from_millis(1500);
const TEXT_WAIT_PER_CHAR: Duration = Duration::from_millis(10);

/// How `type` writes into a field.
#[derive(Clone, Copy, Debug, Default)]
pub struct TypeOptions {
    /// Replace the field's whole text instead of adding at its end.
    pub replace: bool,
    /// Pause between keystrokes.
    pub delay: Duration,
}

/// A field's text as it was before typing: the text itself (never of a secure field) and
/// its length.
struct Before {
    text: Option<String>,
    count: i32,
}

/// The part of `typed` that stays in a field: a single-line field ends at a line break or
/// tab (Enter submits, Tab moves on), and carriage returns are dropped.
fn kept(typed: &str, multiline: bool) -> String {
    let t: String = typed.chars().filter(|c| *c != '\r').collect();
    if multiline {
        return t;
    }
    t.split(['\n', '\t']).next().unwrap_or("").to_string()
}

impl LinuxDesktop {
    /// Gives the element the keyboard focus and waits until it holds it: its window raised
    /// and focused, then `GrabFocus`, then (for a field that did not take it) a click into
    /// it. `NOT_INTERACTABLE` when it never holds the focus.
    pub(crate) async fn deliver_focus(&self, live: &Live) -> Result<Route> {
        if let (Some(w), Ok(x)) = (live.window_id, self.x()) {
            x.raise_and_focus(w)?;
        } else if let Some(wl) = &self.wl {
            // No window ids without sway's IPC: the compositor's toplevel list focuses the
            // window by its title, or keys would go to whichever window has the focus.
            wl.activate(&live.window_title, &live.app, live.pid)?;
        }
        let (o, p) = live.h();
        let grabbed = match live
            .bus
            .call::<_, bool>(o, p, COMPONENT, "GrabFocus", &())
            .await
        {
            Ok(g) => g,
            Err(CallError::Timeout) => {
                return Err(app_error(CallError::Timeout, &live.app, self.timeout))
            }
            Err(_) => false,
        };
        let mut last = Seen::default();
        if grabbed {
            let (ok, seen) = self.wait_for(live, &Expect::Focused, FOCUS_WAIT).await?;
            if ok {
                return Ok(Route::A11y);
            }
            last = seen;
        }
        // A field the app would not focus on request: a click into it, as a person would.
        // Never for other elements: a click would press a button or follow a link.
        if takes_text(&live.node) {
            Self::check_enabled(live)?;
            let (x, y) = self.input_point(live)?;
            self.x()?.click(x, y, Button::Left, 1)?;
            self.consumed(live.window_id, &live.app)?;
            let (ok, seen) = self.wait_for(live, &Expect::Focused, FOCUS_WAIT).await?;
            if ok {
                return Ok(Route::Input);
            }
            last = seen;
        }
        Err(Expect::Focused.failure(live, &last))
    }

    async fn text_before(&self, live: &Live) -> Result<Option<Before>> {
        let (o, p) = live.h();
        if !live.node.caps.contains(Caps::TEXT) {
            return Ok(None);
        }
        let count: Result<OwnedValue, _> = live.bus.property(o, p, TEXT, "CharacterCount").await;
        let count = match count {
            Ok(c) => i32::try_from(c).unwrap_or(0),
            Err(CallError::Timeout) => {
                return Err(app_error(CallError::Timeout, &live.app, self.timeout))
            }
            Err(_) => return Ok(None),
        };
        let text = if live.node.is_secure() {
            None
        } else {
            live.bus.text(o, p).await.ok()
        };
        Ok(Some(Before { text, count }))
    }

    /// Puts the caret after the field's last character, deselecting whatever focusing
    /// selected: `SetCaretOffset`, confirmed by reading the caret back; the End key (in
    /// order with the typing that follows) where the app does not do it.
    async fn caret_to_end(&self, live: &Live, count: i32, kb: &mut Keyboard<'_>) -> Result<()> {
        let (o, p) = live.h();
        let set = live
            .bus
            .call::<_, bool>(o, p, TEXT, "SetCaretOffset", &(count,))
            .await
            .unwrap_or(false);
        if set {
            let deadline = std::time::Instant::now() + Duration::from_millis(500);
            loop {
                let caret: Result<OwnedValue, _> =
                    live.bus.property(o, p, TEXT, "CaretOffset").await;
                if caret.ok().and_then(|c| i32::try_from(c).ok()) == Some(count) {
                    return Ok(());
                }
                if std::time::Instant::now() >= deadline {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
        let end = if live.node.states.contains(States::MULTILINE) {
            "ctrl+End"
        } else {
            "End"
        };
        kb.press(&Combo::parse(end)?)
    }

    /// `type`: into `live` (focused first, text added at the end, or replacing it), or
    /// where the focus is in `window` (the focused window when `None`), which the result
    /// names. Answers once the field shows the text.
    pub async fn type_text(
        &self,
        live: Option<&Live>,
        window: Option<&WindowInfo>,
        text: &str,
        opts: TypeOptions,
    ) -> Result<ActionResult> {
        let x = self.x()?;
        let by_id = live.is_some();
        let target = match live {
            Some(l) => {
                Self::check_enabled(l)?;
                if !takes_text(&l.node) {
                    let n = &l.node;
                    return Err(Error::new(
                        ErrorCode::ActionNotSupported,
                        format!("{} \"{}\" does not take text; nothing was typed", n.role.short(), n.name),
                    )
                    .suggest("Type into a text field; to send keys to this element, focus it and press the keys"));
                }
                if super::sheet::is_sheet_cell(&l.node) {
                    return self.type_into_cell(l, text, opts, "type").await;
                }
                // A date in one text field takes keys per part, never over a selection
                // of the whole.
                if opts.replace && super::date::one_text_date(&l.node) {
                    return self.retype_date(l, text, "type").await;
                }
                Some(l.clone())
            }
            None => {
                let w = match window {
                    Some(w) => w.clone(),
                    None => self.resolve_window(&Target::default()).await?,
                };
                match w.id.and_then(|i| u32::try_from(i).ok()) {
                    Some(id) => x.raise_and_focus(id)?,
                    None => self.activate_unnumbered(&w)?,
                }
                match self.focused_element(&w).await? {
                    Some(f) => Some(f),
                    None => return self.type_blind(&w, text, opts).await,
                }
            }
        };
        let Some(t) = target else {
            return Err(Error::internal("no target to type into"));
        };
        if self.wl.is_some() && t.async_tree() {
            if let Some(c) = text.chars().find(|c| u32::from(*c) > 0xffff) {
                // Chromium on Wayland keeps one UTF-16 unit of a key's character: U+1F600
                // would arrive as U+F600. Refused before anything is typed.
                return Err(Error::new(
                    ErrorCode::ActionNotSupported,
                    format!("{} on Wayland takes no character beyond U+FFFF from a key ({c:?}); nothing was typed", t.app),
                )
                .suggest("Set the field's whole text with set-value, or type the text without that character"));
            }
        }
        let before_state = ElementState::of(&t.node);
        let mut watch = Watch::start(&t).await;
        let before = self.text_before(&t).await?;
        if by_id {
            if let Err(why) = self.deliver_focus(&t).await {
                return self.type_unfocused(&t, text, opts, why).await;
            }
        }
        let mut kb = Keyboard::new(x)?;
        let typed = kept(text, t.node.states.contains(States::MULTILINE));
        let sheet_cell = super::sheet::is_sheet_cell(&t.node);
        let expect = match (&before, takes_text(&t.node)) {
            // A cell of a sheet holds what was typed once Enter or Tab commits it.
            (Some(b), _) if sheet_cell => match super::sheet::committed(text) {
                Some(content) => Expect::Cell {
                    before: b.text.clone().unwrap_or_default(),
                    content,
                },
                None => Expect::Nothing,
            },
            // Digits into a spin button that is no text field: its number read back.
            _ if super::resolve::keyed_spin(&t.node) => Expect::Number {
                from: t.node.value.as_deref().and_then(|v| v.trim().parse().ok()),
                typed: typed.clone(),
            },
            (Some(b), true) if by_id || !opts.replace => {
                if opts.replace {
                    kb.press(&Combo::parse("ctrl+a")?)?;
                    if text.is_empty() {
                        kb.press(&Combo::parse("BackSpace")?)?;
                    }
                } else if by_id && b.count > 0 {
                    self.caret_to_end(&t, b.count, &mut kb).await?;
                }
                let count = typed.chars().count() as i32;
                let readable = b.text.is_some();
                let already = b
                    .text
                    .as_deref()
                    .map_or(0, |t| t.matches(typed.as_str()).count());
                match (by_id, opts.replace) {
                    (_, true) => Expect::Text(TextWant {
                        readable,
                        whole: Some(typed.clone()),
                        typed: typed.clone(),
                        already,
                        count: Some(count),
                    }),
                    (true, false) => Expect::Text(TextWant {
                        readable,
                        whole: b.text.as_ref().map(|old| format!("{old}{typed}")),
                        typed: typed.clone(),
                        already,
                        count: Some(b.count + count),
                    }),
                    // Where the caret was put by someone else: the typed text must appear.
                    (false, false) if readable && !typed.is_empty() => Expect::Text(TextWant {
                        readable,
                        whole: None,
                        typed: typed.clone(),
                        already,
                        count: None,
                    }),
                    (false, false) => Expect::Nothing,
                }
            }
            _ => Expect::Nothing,
        };
        kb.type_paced(text, opts.delay).await?;
        drop(kb);
        let wait = TEXT_WAIT + TEXT_WAIT_PER_CHAR * text.chars().count() as u32;
        let settled = self
            .settle_with(&t, Route::Input, expect, &mut watch, &before_state, wait)
            .await?;
        Ok(settled
            .into_result(t.result("type", Route::Input))
            .with("chars", text.chars().count()))
    }

    /// Focuses a window that has no id, where the compositor's toplevel list can (Wayland
    /// without sway's IPC): keys go to the focused window, which may be another.
    fn activate_unnumbered(&self, w: &WindowInfo) -> Result<()> {
        if let Some(wl) = &self.wl {
            wl.activate(&w.title, &w.app, (w.pid != 0).then_some(w.pid))?;
        }
        Ok(())
    }

    /// Types into a window whose focused element the app does not tell.
    async fn type_blind(
        &self,
        w: &WindowInfo,
        text: &str,
        opts: TypeOptions,
    ) -> Result<ActionResult> {
        let x = self.x()?;
        Keyboard::new(x)?.type_paced(text, opts.delay).await?;
        let r = ActionResult::new("type", Route::Input).with("chars", text.chars().count());
        let wid = w.id.and_then(|i| u32::try_from(i).ok());
        let closed = (self.consumed(wid, &w.app)? == Taken::Closed)
            .then(|| Closed::now(&w.title, &w.app, (w.pid != 0).then_some(w.pid)));
        Ok(with_closed(r, closed))
    }

    /// The window keys go to when none is named: the focused one as read, else (its app
    /// too hung to be read) the one X says has the focus, named by its process.
    async fn key_window(&self) -> Option<WindowInfo> {
        if let Ok(w) = self.resolve_window(&Target::default()).await {
            return Some(w);
        }
        let x = self.x().ok()?;
        let tops = x.windows().ok()?;
        let id = x.focused(&tops)?;
        let top = tops.iter().find(|t| t.id == id)?;
        let app = top
            .pid
            .and_then(crate::identity::program_name)
            .unwrap_or_else(|| top.class.clone());
        Some(WindowInfo {
            app,
            pid: top.pid.unwrap_or(0),
            title: top.title.clone(),
            id: Some(u64::from(id)),
            bounds: Some(top.bounds),
            focused: true,
            a11y: false,
            modal: false,
            state: Default::default(),
            display: None,
            handle: None,
        })
    }

    /// `press COMBO...`: each combo in turn where the focus is (in `window` when given,
    /// raised and focused first); answers once the app has taken the keys.
    pub async fn press(
        &self,
        window: Option<&WindowInfo>,
        combos: &[Combo],
    ) -> Result<ActionResult> {
        let x = self.x()?;
        let w = match window {
            Some(w) => Some(w.clone()),
            None => self.key_window().await,
        };
        let wid = w
            .as_ref()
            .and_then(|w| w.id)
            .and_then(|i| u32::try_from(i).ok());
        match (wid, window) {
            (Some(id), Some(_)) => x.raise_and_focus(id)?,
            (None, Some(w)) => self.activate_unnumbered(w)?,
            _ => {}
        }
        if let Some(w) = w.as_ref().filter(|w| crate::identity::is_stopped(w.pid)) {
            return Err(crate::stopped_error(&w.app, w.pid));
        }
        let mut kb = Keyboard::new(x)?;
        for c in combos {
            kb.press(c)?;
        }
        drop(kb);
        let r = ActionResult::new("press", Route::Input);
        // The window that had the keys has read them, or closed: never an unchecked ok.
        if let Some(w) = &w {
            if self.consumed(wid, &w.app)? == Taken::Closed {
                let pid = (w.pid != 0).then_some(w.pid);
                return Ok(with_closed(r, Some(Closed::now(&w.title, &w.app, pid))));
            }
            if let Some(h) = &w.handle {
                let (watch, async_tree) = self.app_watch(h.owner()).await;
                let mut watch = if async_tree {
                    watch.after_keys(combos.len())
                } else {
                    watch
                };
                watch
                    .quiet(if async_tree {
                        Duration::from_millis(120)
                    } else {
                        Duration::ZERO
                    })
                    .await;
            }
        }
        Ok(r)
    }

    /// `press --id N COMBO...`: the element holds the focus first (as for typing), then the
    /// keys go to it; answers once the app has taken them.
    pub async fn press_into(&self, live: &Live, combos: &[Combo]) -> Result<ActionResult> {
        Self::check_enabled(live)?;
        let before = ElementState::of(&live.node);
        let mut watch = Watch::start(live).await;
        if live.async_tree() {
            watch = watch.after_keys(combos.len());
        }
        self.deliver_focus(live).await?;
        let mut kb = Keyboard::new(self.x()?)?;
        for c in combos {
            kb.press(c)?;
        }
        drop(kb);
        self.finish(live, "press", Route::Input, Expect::Nothing, watch, &before)
            .await
    }

    /// `type --id` into a field that could not be given the keyboard focus (GTK 4 takes no
    /// focus request, and where the compositor tells no window positions — labwc, mutter,
    /// KWin — no click can give it): the text goes in through the field's EditableText,
    /// added at its end or replacing it, and is read back. Only plain text: a line break or
    /// tab that would be a key (Enter submits, Tab moves on) is refused with `why`, as is a
    /// field without EditableText, a sheet's cell and a spin button.
    async fn type_unfocused(
        &self,
        live: &Live,
        text: &str,
        opts: TypeOptions,
        why: Error,
    ) -> Result<ActionResult> {
        let n = &live.node;
        let plain = kept(text, n.states.contains(States::MULTILINE)) == text;
        let fits = matches!(
            why.code,
            ErrorCode::NotInteractable | ErrorCode::PlatformNotSupported
        ) && n.caps.contains(Caps::EDITABLE_TEXT)
            && takes_text(n)
            && !super::sheet::is_sheet_cell(n)
            && !super::resolve::keyed_spin(n)
            && opts.delay.is_zero()
            && plain;
        if !fits {
            return Err(why);
        }
        let done = if opts.replace {
            self.set_text(live, text, "type").await?
        } else {
            self.insert_at_end(live, text).await?
        };
        Ok(done
            .with("chars", text.chars().count())
            .with("keyboard", false))
    }

    /// Adds `text` at the end of the field through EditableText, confirmed by reading the
    /// field back.
    async fn insert_at_end(&self, live: &Live, text: &str) -> Result<ActionResult> {
        let n = &live.node;
        let (o, p) = live.h();
        let before_state = ElementState::of(n);
        let watch = Watch::start(live).await;
        let Some(before) = self.text_before(live).await? else {
            return Err(Error::new(
                ErrorCode::ActionNotSupported,
                format!("{} \"{}\" has no text to add to", n.role.short(), n.name),
            )
            .suggest("Set its whole text with set-value"));
        };
        let count = text.chars().count() as i32;
        let ok: bool = live
            .bus
            .call(
                o,
                p,
                EDITABLE_TEXT,
                "InsertText",
                &(before.count, text, count),
            )
            .await
            .map_err(|e| app_error(e, &live.app, self.timeout))?;
        if !ok {
            return Err(
                Error::new(ErrorCode::ActionFailed, "the app refused the text")
                    .suggest("Set the field's whole text with set-value"),
            );
        }
        let want = TextWant {
            readable: before.text.is_some(),
            whole: before.text.as_ref().map(|old| format!("{old}{text}")),
            typed: text.to_string(),
            already: before
                .text
                .as_deref()
                .map_or(0, |t| t.matches(text).count()),
            count: Some(before.count + count),
        };
        self.finish(
            live,
            "type",
            Route::A11y,
            Expect::Text(want),
            watch,
            &before_state,
        )
        .await
    }

    /// Replaces the element's whole text through EditableText, confirmed by reading it back.
    async fn set_text(
        &self,
        live: &Live,
        value: &str,
        action: &'static str,
    ) -> Result<ActionResult> {
        let n = &live.node;
        let (o, p) = live.h();
        let before = ElementState::of(n);
        let watch = Watch::start(live).await;
        let ok: bool = live
            .bus
            .call(o, p, EDITABLE_TEXT, "SetTextContents", &(value,))
            .await
            .map_err(|e| app_error(e, &live.app, self.timeout))?;
        if !ok {
            return Err(
                Error::new(ErrorCode::ActionFailed, "the app refused the new text")
                    .suggest("Type it instead, replacing the field's text"),
            );
        }
        let want = TextWant {
            readable: !n.is_secure(),
            whole: Some(value.to_string()),
            typed: String::new(),
            already: 0,
            count: Some(value.chars().count() as i32),
        };
        self.finish(
            live,
            action,
            Route::A11y,
            Expect::Text(want),
            watch,
            &before,
        )
        .await
    }

    /// `set-value`: Value for ranges, EditableText for text; text fields without
    /// EditableText (Chromium) get their text replaced by typing. Answers once the element
    /// shows the new value.
    pub async fn set_value(&self, live: &Live, value: &str) -> Result<ActionResult> {
        let n = &live.node;
        let (o, p) = live.h();
        let read_only = || {
            Error::new(ErrorCode::ReadOnly, format!("{} \"{}\" is read-only", n.role.short(), n.name))
                .suggest("Pick an editable element (inputs, sliders, spin buttons); a read marks read-only ones with \"ro\"")
        };
        if n.states.contains(States::READ_ONLY) || n.role == Role::Progress {
            return Err(read_only());
        }
        Self::check_enabled(live)?;
        if super::choice::is_choice(n) {
            return self.choose(live, value).await;
        }
        if super::date::is_date_editor(n) {
            return self.fill_date(live, value).await;
        }
        if super::sheet::is_sheet_cell(n) {
            let opts = TypeOptions {
                replace: true,
                delay: Duration::ZERO,
            };
            return self.type_into_cell(live, value, opts, "set-value").await;
        }
        if super::date::one_text_date(n) {
            return self.retype_date(live, value, "set-value").await;
        }
        let before = ElementState::of(n);
        if n.caps.contains(Caps::VALUE) && !matches!(n.role, Role::Input | Role::Password) {
            let v: f64 = value.trim().parse().map_err(|_| {
                Error::invalid_args(format!(
                    "{} \"{}\" takes a number, not {value:?}",
                    n.role.short(),
                    n.name
                ))
                .suggest("Example: 42")
            })?;
            let prop = |name: &'static str| async move {
                let raw: Result<OwnedValue, _> = live.bus.property(o, p, VALUE, name).await;
                raw.ok().and_then(|v| f64::try_from(v).ok())
            };
            let (min, max, step) = tokio::join!(
                prop("MinimumValue"),
                prop("MaximumValue"),
                prop("MinimumIncrement")
            );
            if let (Some(min), Some(max)) = (min, max) {
                if min < max && (v < min || v > max) {
                    return Err(
                        Error::invalid_args(format!("{v} is outside {}..{}", min, max))
                            .suggest(format!("Give a value from {min} to {max}")),
                    );
                }
            }
            let watch = Watch::start(live).await;
            live.bus
                .call::<_, ()>(
                    o,
                    p,
                    PROPERTIES,
                    "Set",
                    &(VALUE, "CurrentValue", Value::from(v)),
                )
                .await
                .map_err(|e| app_error(e, &live.app, self.timeout))?;
            let tolerance = step
                .filter(|s| *s > 0.0)
                .unwrap_or(0.0)
                .max(1e-9 * v.abs().max(1.0));
            return self
                .finish(
                    live,
                    "set-value",
                    Route::A11y,
                    Expect::Value {
                        value: v,
                        tolerance,
                    },
                    watch,
                    &before,
                )
                .await;
        }
        if n.caps.contains(Caps::EDITABLE_TEXT) {
            if !n.states.contains(States::EDITABLE) {
                return Err(read_only());
            }
            return self.set_text(live, value, "set-value").await;
        }
        if takes_text(n) {
            let opts = TypeOptions {
                replace: true,
                delay: Duration::ZERO,
            };
            let mut r = self.type_text(Some(live), None, value, opts).await?;
            r.action = "set-value";
            r.extra.remove("chars");
            return Ok(r);
        }
        Err(Error::new(ErrorCode::ActionNotSupported, format!("{} \"{}\" has no value to set", n.role.short(), n.name))
            .suggest("set-value works on text fields, sliders and spin buttons; click or toggle the others (a list's option: click the list, then the option)"))
    }

    /// A watch on `owner`'s events, and whether its tree updates asynchronously.
    pub(crate) async fn app_watch(&self, owner: &str) -> (Watch, bool) {
        let toolkit = self.toolkit_of(owner).await;
        let probe_live = Live {
            node: desktop_core::Node {
                handle: crate::bus::handle(owner, String::new()),
                ..Default::default()
            },
            window_id: None,
            id: None,
            rematched: false,
            bus: self.bus.clone(),
            app: String::new(),
            toolkit,
            window_title: String::new(),
            pid: None,
            placed: true,
            offset: (0, 0),
        };
        let async_tree = probe_live.async_tree();
        (Watch::start(&probe_live).await, async_tree)
    }
}

#[cfg(test)]
mod tests {
    use super::kept;

    #[test]
    fn single_line_fields_keep_text_up_to_enter_or_tab() {
        assert_eq!(kept("abc\ndef", false), "abc");
        assert_eq!(kept("a\tb", false), "a");
        assert_eq!(kept("a\r\nb", true), "a\nb");
        assert_eq!(kept("héllo 中文", false), "héllo 中文");
    }
}
