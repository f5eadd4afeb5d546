//! An element found again from its handle through the layer that read it (UI Automation
//! for `uia:` handles, MSAA for `hwnd:` ones), and what can be done to it through that
//! layer. Runs on the worker threads of commands, all in COM's multithreaded apartment: the
//! UI Automation elements found are kept between them (`crate::found`), and a pattern call
//! runs on a thread of its own, bounded (`crate::pending`).

use super::automation::{self, Shared, Uia};
use super::{msaa, windows as sys};
use crate::found::{Found, CAPACITY};
use crate::pending::{self, Outcome};
use crate::{props, uia};
use desktop_core::{Handle, Node};
use std::cell::RefCell;
use std::sync::{Mutex, MutexGuard};
use windows::Win32::UI::Accessibility::IUIAutomationElement;

/// The UI Automation elements found by runtime id, for every worker thread: the search for
/// one walks the window's whole subtree (long on a large page), and an action probes the
/// same element several times (resolved, checked, acted on, read back). Never held during
/// a call into an app; what it puts out is dropped after it is unlocked.
static FOUND: Mutex<Found<Shared>> = Mutex::new(Found::new(CAPACITY));

fn found() -> MutexGuard<'static, Found<Shared>> {
    // A thread that panicked holding it left a cache still whole: use it.
    FOUND
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Forgets the elements kept for a window, read again (its elements numbered afresh): so
/// none is kept long past the read that named it.
pub fn forget_window(hwnd: u64) {
    let gone = found().forget_window(hwnd);
    drop(gone);
}

/// The element of `hwnd` with runtime id `rid`: the one kept if it still answers as that
/// element (one call that reads its properties again), else searched for and kept.
fn find(
    uia: &Uia,
    hwnd: u64,
    rid: &[i32],
) -> windows::core::Result<Option<(IUIAutomationElement, uia::Element)>> {
    let kept = found().get(hwnd, rid);
    if let Some(kept) = kept {
        if let Some(live) = uia.refresh(kept.element(), rid)? {
            return Ok(Some(live));
        }
        // Gone, or another element now: searched for again below.
        let stale = found().remove(hwnd, rid);
        drop(stale);
    }
    let live = uia.find(sys::hwnd(hwnd), rid)?;
    if let Some((e, _)) = &live {
        let out = found().put(hwnd, rid, Shared::new(e));
        drop(out);
    }
    Ok(live)
}

thread_local! {
    /// This thread's UI Automation client, made once (or `None` where there is none).
    static CLIENT: RefCell<Option<Option<std::rc::Rc<Uia>>>> = const { RefCell::new(None) };
}

/// The UI Automation client of this thread, if the system has UI Automation.
pub fn client() -> Option<std::rc::Rc<Uia>> {
    CLIENT.with(|c| {
        c.borrow_mut()
            .get_or_insert_with(|| Uia::new().ok().map(std::rc::Rc::new))
            .clone()
    })
}

/// The element in the layer that read it.
pub enum El {
    Msaa(msaa::Acc),
    Uia(IUIAutomationElement, Box<uia::Element>),
}

/// An element as it is now.
pub struct Live {
    pub el: El,
    pub node: Node,
}

/// Lets this thread's UI Automation client go before the thread ends (not in the thread's
/// exit, where COM objects must not be released).
pub fn release() {
    CLIENT.with(|c| c.borrow_mut().take());
}

/// The element a handle names, read now; `Ok(None)` when it is gone, an error (why) when
/// the app did not answer.
pub fn probe(h: &Handle) -> Result<Option<Live>, String> {
    if let Some((hwnd, rid)) = uia::parse_handle(h) {
        let Some(uia) = client() else {
            return Ok(None);
        };
        let Some((found, rec)) = find(&uia, hwnd, &rid).map_err(|e| e.to_string())? else {
            return Ok(None);
        };
        let node = uia::node(&rec, h.clone());
        return Ok(Some(Live {
            el: El::Uia(found, Box::new(rec)),
            node,
        }));
    }
    let Some((hwnd, path)) = props::parse_handle(h) else {
        return Ok(None);
    };
    Ok(msaa::follow(sys::hwnd(hwnd), &path).map(|acc| {
        let node = props::node(&msaa::props(&acc), h.clone());
        Live {
            el: El::Msaa(acc),
            node,
        }
    }))
}

/// The top-level window a handle belongs to.
pub fn top_of(h: &Handle) -> u64 {
    uia::parse_handle(h)
        .map(|(w, _)| w)
        .or_else(|| props::parse_handle(h).map(|(w, _)| w))
        .unwrap_or(0)
}

/// What an element's own action (a pattern, MSAA's default action) came to.
#[derive(Debug)]
pub enum Did {
    Done,
    /// Still running after a short wait while the app answers other questions: the action's
    /// handler runs a modal dialog (`crate::pending`). Taken as done; the element is not
    /// asked again meanwhile (its provider is busy with the action).
    UnderWay,
    /// The element has no such action or refused it (why): a click may go as input.
    Not(String),
    /// Neither the action nor a question after it was answered within the call timeout.
    Unanswered,
}

/// How long the app gets to answer the question asked while a pattern call has not answered
/// (an empty message to its window, served by a modal dialog's loop as by its own).
const QUESTION_MS: u32 = 500;

/// Runs a pattern call on a thread of its own, bounded as `crate::pending` says: a call
/// that waits on a modal dialog is left to its thread (which ends once the dialog closes, or
/// at UI Automation's own timeout) and blocks neither this worker nor later calls.
fn run_pattern(e: &IUIAutomationElement, top: u64, p: automation::act::Pattern) -> Did {
    let (tx, rx) = std::sync::mpsc::channel();
    let e = Shared::new(e);
    let spawned = std::thread::Builder::new()
        .name("uia-pattern".into())
        .spawn(move || {
            super::com_init();
            let _ = tx.send(automation::act::run(e.element(), p));
        });
    if let Err(why) = spawned {
        return Did::Not(format!("no thread to run it on: {why}"));
    }
    let budget = automation::call_timeout();
    match pending::wait(&rx, pending::SHORT, budget, || {
        sys::input_idle(top, QUESTION_MS)
    }) {
        Outcome::Answered(Ok(())) => Did::Done,
        Outcome::Answered(Err(err)) if automation::timed_out(&err) => Did::Unanswered,
        Outcome::Answered(Err(err)) => Did::Not(err.to_string()),
        Outcome::UnderWay => Did::UnderWay,
        Outcome::Unanswered => Did::Unanswered,
    }
}

impl Live {
    /// The first of `patterns` the element has (`true`) that it takes (done, under way or
    /// unanswered), else why none did.
    fn first(
        &self,
        e: &IUIAutomationElement,
        patterns: &[(bool, automation::act::Pattern)],
    ) -> Did {
        let top = top_of(&self.node.handle);
        let mut did = Did::Not("it has no pattern for that".into());
        for (_, p) in patterns.iter().filter(|(has, _)| *has) {
            did = run_pattern(e, top, *p);
            if !matches!(did, Did::Not(_)) {
                break;
            }
        }
        did
    }

    /// A plain click through the element's own action: Invoke, Toggle, Select or
    /// Expand/Collapse (UIA), the default action or `BM_CLICK` (MSAA). `Did::Not` when it
    /// has none, so the click goes as input.
    pub fn press(&self) -> Did {
        use automation::act::Pattern;
        match &self.el {
            El::Msaa(acc) => {
                if msaa::do_default(acc).is_ok() || msaa::click_button(acc) {
                    Did::Done
                } else {
                    Did::Not("it has no default action".into())
                }
            }
            El::Uia(e, r) => {
                let expand = if r.expand_collapse_expand_collapse_state == Some(0) {
                    Pattern::Expand
                } else {
                    Pattern::Collapse
                };
                self.first(
                    e,
                    &[
                        (r.is_invoke_pattern_available, Pattern::Invoke),
                        (r.is_toggle_pattern_available, Pattern::Toggle),
                        (r.is_selection_item_pattern_available, Pattern::Select),
                        (r.is_expand_collapse_pattern_available, expand),
                    ],
                )
            }
        }
    }

    /// Gives the element the keyboard focus through accessibility.
    pub fn focus(&self) {
        let _ = match &self.el {
            El::Msaa(acc) => msaa::take_focus(acc),
            El::Uia(e, _) => automation::act::focus(e),
        };
    }

    /// Flips a check box or toggle button through its Toggle pattern, selects a radio
    /// button through SelectionItem; `Did::Not` where the layer has neither (the toggle is
    /// then a click).
    pub fn toggle(&self) -> Did {
        use automation::act::Pattern;
        match &self.el {
            El::Uia(e, r) => self.first(
                e,
                &[
                    (r.is_toggle_pattern_available, Pattern::Toggle),
                    (
                        r.control_type == 50013 && r.is_selection_item_pattern_available,
                        Pattern::Select,
                    ),
                ],
            ),
            El::Msaa(_) => Did::Not("MSAA has no toggle".into()),
        }
    }

    /// Whether the element's text can be read back (a Value pattern in UIA; MSAA's value):
    /// an editor with a Text pattern alone (a contentEditable page, Word) cannot be.
    pub fn reads_value(&self) -> bool {
        match &self.el {
            El::Uia(_, r) => r.is_value_pattern_available,
            El::Msaa(_) => true,
        }
    }

    /// Sets the value: a number through RangeValue, text through Value (`accValue` in MSAA).
    pub fn set_value(&self, value: &str) -> Result<(), String> {
        match &self.el {
            El::Msaa(acc) => msaa::set_value(acc, value).map_err(|e| e.to_string()),
            El::Uia(e, r) if r.is_range_value_pattern_available => {
                let n: f64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("it takes a number, not {value:?}"))?;
                automation::act::set_number(e, n).map_err(|e| e.to_string())
            }
            El::Uia(e, r) if r.is_value_pattern_available => {
                automation::act::set_text(e, value).map_err(|e| e.to_string())
            }
            El::Uia(..) => Err("it has no Value or RangeValue pattern".into()),
        }
    }

    /// Scrolls the element into view through its ScrollItem pattern.
    pub fn scroll_into_view(&self) -> Result<(), String> {
        match &self.el {
            El::Uia(e, r) if r.is_scroll_item_pattern_available => {
                automation::act::scroll_into_view(e).map_err(|e| e.to_string())
            }
            _ => Err("it has no ScrollItem pattern".into()),
        }
    }

    /// The element's own actions by name (its patterns in UIA, its default action in MSAA).
    pub fn action_names(&self) -> Vec<String> {
        match &self.el {
            El::Uia(_, r) => uia::actions(r),
            El::Msaa(acc) => {
                let d = msaa::default_action(acc);
                if d.is_empty() {
                    Vec::new()
                } else {
                    vec![d]
                }
            }
        }
    }

    /// Runs one of [`Live::action_names`].
    pub fn run_action(&self, name: &str) -> Did {
        use automation::act::Pattern;
        let done = |r: windows::core::Result<()>| {
            r.map_or_else(|e| Did::Not(e.to_string()), |()| Did::Done)
        };
        let e = match &self.el {
            El::Msaa(acc) => return done(msaa::do_default(acc)),
            El::Uia(e, _) => e,
        };
        let p = match name.to_ascii_lowercase().as_str() {
            // Scrolling runs no handler of the app's: not bounded.
            "scroll-into-view" => return done(automation::act::scroll_into_view(e)),
            "invoke" => Pattern::Invoke,
            "toggle" => Pattern::Toggle,
            "select" => Pattern::Select,
            "expand" => Pattern::Expand,
            "collapse" => Pattern::Collapse,
            other => return Did::Not(format!("no action {other:?}")),
        };
        self.first(e, &[(true, p)])
    }
}
