//! An element found again from its handle through the layer that read it (UI Automation
//! for `uia:` handles, MSAA for `hwnd:` ones), and what can be done to it through that
//! layer. Runs on the worker thread of one command (COM objects stay on their thread).

use super::automation::{self, Uia};
use super::{msaa, windows as sys};
use crate::{props, uia};
use desktop_core::{Handle, Node};
use std::cell::RefCell;
use windows::Win32::UI::Accessibility::IUIAutomationElement;

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
        let Some((found, rec)) = uia.find(sys::hwnd(hwnd), &rid).map_err(|e| e.to_string())? else {
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

impl Live {
    /// A plain click through the element's own action: Invoke, Toggle, Select or
    /// Expand/Collapse (UIA), the default action or `BM_CLICK` (MSAA). `false` when it has
    /// none, so the click goes as input.
    pub fn press(&self) -> bool {
        match &self.el {
            El::Msaa(acc) => msaa::do_default(acc).is_ok() || msaa::click_button(acc),
            El::Uia(e, r) => {
                (r.is_invoke_pattern_available && automation::act::invoke(e).is_ok())
                    || (r.is_toggle_pattern_available && automation::act::toggle(e).is_ok())
                    || (r.is_selection_item_pattern_available && automation::act::select(e).is_ok())
                    || (r.is_expand_collapse_pattern_available
                        && automation::act::expand(
                            e,
                            r.expand_collapse_expand_collapse_state == Some(0),
                        )
                        .is_ok())
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
    /// button through SelectionItem; `false` where the layer has neither (the toggle is then
    /// a click).
    pub fn toggle(&self) -> bool {
        match &self.el {
            El::Uia(e, r) => {
                (r.is_toggle_pattern_available && automation::act::toggle(e).is_ok())
                    || (r.control_type == 50013
                        && r.is_selection_item_pattern_available
                        && automation::act::select(e).is_ok())
            }
            El::Msaa(_) => false,
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
    pub fn run_action(&self, name: &str) -> Result<(), String> {
        let r = match (&self.el, name.to_ascii_lowercase().as_str()) {
            (El::Msaa(acc), _) => msaa::do_default(acc),
            (El::Uia(e, _), "invoke") => automation::act::invoke(e),
            (El::Uia(e, _), "toggle") => automation::act::toggle(e),
            (El::Uia(e, _), "select") => automation::act::select(e),
            (El::Uia(e, _), "expand") => automation::act::expand(e, true),
            (El::Uia(e, _), "collapse") => automation::act::expand(e, false),
            (El::Uia(e, _), "scroll-into-view") => automation::act::scroll_into_view(e),
            (El::Uia(..), other) => return Err(format!("no action {other:?}")),
        };
        r.map_err(|e| e.to_string())
    }
}
