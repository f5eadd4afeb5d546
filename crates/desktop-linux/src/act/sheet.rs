//! Spreadsheet cells (LibreOffice Calc): a cell takes text through its own editor, and the
//! text becomes the cell's content only when it is committed (Enter). So typing into a
//! cell by id commits what it typed, `set-value` replaces the content, and the verdict is
//! the cell's content read back: the text typed, the formula typed, or what the sheet
//! made of it (a number or date in its own format).

use super::settle::{Expect, Watch};
use super::text::TypeOptions;
use super::Live;
use crate::bus::{CallError, ACCESSIBLE};
use crate::seat::Keyboard;
use crate::{app_error, LinuxDesktop};
use desktop_core::action::{ActionResult, ElementState, Route};
use desktop_core::keys::Combo;
use desktop_core::{is_cell_address, Caps, Node, Result, Role, States};
use std::collections::HashMap;
use std::time::Duration;

/// How long a committed cell may take to show its new content (a formula recalculates).
const CELL_WAIT: Duration = Duration::from_millis(2000);

/// Whether `n` is a spreadsheet cell: an editable cell named by its address, taking text
/// through the sheet's editor rather than as editable text of its own.
pub(crate) fn is_sheet_cell(n: &Node) -> bool {
    n.role == Role::Cell
        && n.states.contains(States::EDITABLE)
        && !n.caps.contains(Caps::EDITABLE_TEXT)
        && is_cell_address(&n.name)
}

/// What a cell should hold after `typed` went into it: the text up to the first line break
/// or tab (Enter and Tab commit and move on), `None` when nothing was committed.
pub(crate) fn committed(typed: &str) -> Option<String> {
    let end = typed.find(['\n', '\t', '\r'])?;
    Some(typed[..end].to_string())
}

/// What the sheet shows of a cell: its text and formula.
#[derive(Clone, Debug, Default)]
pub(crate) struct CellSeen {
    pub text: String,
    pub formula: String,
}

/// Whether a cell showing `seen` (and `before` earlier) holds `content` as typed: the same
/// text, the same number, the formula typed, or, for an entry the sheet formats its own
/// way (a date, a percentage, an amount: digits and signs, not a plain number), a new
/// non-empty text.
pub(crate) fn holds(seen: &CellSeen, before: &str, content: &str) -> bool {
    let number: Option<f64> = content.trim().parse().ok();
    let same_number = || number.is_some() && seen.text.trim().parse().ok() == number;
    let formatted = || {
        number.is_none()
            && content.chars().any(|c| c.is_ascii_digit())
            && content
                .chars()
                .all(|c| c.is_ascii_digit() || " .,:/-+%$€£¥()".contains(c))
            && !seen.text.is_empty()
            && seen.text != before
    };
    let formula = || {
        // LibreOffice drops the `=` and escapes `:` (and may cut the value at it).
        let typed = content.strip_prefix('=').unwrap_or("").replace(':', "\\:");
        !seen.formula.is_empty() && typed.starts_with(&seen.formula)
    };
    seen.text == content || same_number() || (content.starts_with('=') && formula()) || formatted()
}

impl LinuxDesktop {
    /// Reads a cell's text and formula.
    pub(crate) async fn cell_seen(&self, live: &Live) -> std::result::Result<CellSeen, CallError> {
        let (o, p) = live.h();
        let (text, attrs) = tokio::join!(
            live.bus.text(o, p),
            live.bus
                .call::<_, HashMap<String, String>>(o, p, ACCESSIBLE, "GetAttributes", &()),
        );
        let attrs = match attrs {
            Ok(a) => a,
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(_) => HashMap::new(),
        };
        Ok(CellSeen {
            text: text?,
            formula: attrs.get("Formula").cloned().unwrap_or_default(),
        })
    }

    /// `type --id` into a spreadsheet cell (and `set-value`, which replaces): the cell is
    /// selected, its editor opened at the end of its content (F2) unless replacing, the
    /// text typed and committed with Enter (unless it ends with a line break or tab
    /// already), then the cell read back until it holds the content.
    pub(crate) async fn type_into_cell(
        &self,
        live: &Live,
        text: &str,
        opts: TypeOptions,
        action: &'static str,
    ) -> Result<ActionResult> {
        Self::check_enabled(live)?;
        let before_state = ElementState::of(&live.node);
        let mut watch = Watch::start(live).await;
        let before = self
            .cell_seen(live)
            .await
            .map_err(|e| app_error(e, &live.app, self.timeout))?;
        self.deliver_focus(live).await?;
        let mut kb = Keyboard::new(self.x()?)?;
        let first = committed(text).unwrap_or_else(|| text.to_string());
        let content = if opts.replace || before.text.is_empty() {
            if first.is_empty() {
                kb.press(&Combo::parse("Delete")?)?;
            }
            first
        } else {
            // The sheet's editor opens on F2 with the caret after the content; typing
            // before it has opened would replace the content instead.
            kb.press(&Combo::parse("F2")?)?;
            self.consumed(live.window_id, &live.app)?;
            format!("{}{first}", before.text)
        };
        kb.type_paced(text, opts.delay).await?;
        if committed(text).is_none() && !text.is_empty() {
            kb.press(&Combo::parse("Return")?)?;
        }
        drop(kb);
        let expect = Expect::Cell {
            before: before.text,
            content,
        };
        let settled = self
            .settle_with(
                live,
                Route::Input,
                expect,
                &mut watch,
                &before_state,
                CELL_WAIT,
            )
            .await?;
        let r = settled.into_result(live.result(action, Route::Input));
        Ok(if action == "type" {
            r.with("chars", text.chars().count())
        } else {
            r
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(text: &str, formula: &str) -> CellSeen {
        CellSeen {
            text: text.into(),
            formula: formula.into(),
        }
    }

    #[test]
    fn a_cell_holds_what_was_typed_as_the_sheet_shows_it() {
        assert!(holds(&seen("5", ""), "", "5"));
        assert!(holds(&seen("1.5", ""), "", "1.50"));
        assert!(holds(&seen("15", "SUM(A1\\"), "", "=SUM(A1:A3)"));
        assert!(holds(&seen("09/25/14", ""), "", "2014-09-25"));
        assert!(holds(&seen("", ""), "old", ""));
        assert!(!holds(&seen("old", ""), "old", "new"));
        assert!(!holds(&seen("", ""), "", "7"));
        assert!(!holds(&seen("3", "MAX(A1\\"), "3", "=SUM(A1:A3)"));
        // An append that replaced the content instead is not what was typed.
        assert!(!holds(&seen("0", ""), "5", "50"));
        assert!(!holds(&seen("word", ""), "old", "other"));
    }

    #[test]
    fn only_text_before_a_line_break_or_tab_is_committed() {
        assert_eq!(committed("5\n"), Some("5".into()));
        assert_eq!(committed("a\tb"), Some("a".into()));
        assert_eq!(committed("=SUM(A1:A3)"), None);
    }
}
