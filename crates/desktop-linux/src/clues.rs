//! Clues for elements without a name in words: toolkit attributes (a web element's tag, id,
//! class and labels) and action names, asked only of wordless elements that may be controls
//! (an icon `<span>`, a bare image, a focusable handle), every call in flight at once. They
//! become the element's hint and, where the toolkit says the element takes clicks, make it
//! count as interactive.

use crate::bus::Addr;
use crate::bus::{Bus, CallError, ACCESSIBLE};
use crate::hydrate::action_names;
use desktop_core::node::wordless;
use desktop_core::{hint, Caps, Node, Role, States};
use futures_util::future::join_all;
use std::collections::HashMap;

/// Action names that mean "this element itself reacts to a click" (Chromium's `click` is
/// a click listener on the element; `clickAncestor` is one further up).
const CLICKS: &[&str] = &["click", "press", "activate", "jump", "open", "toggle"];

/// Fills `hint` and `clickable` of the wordless candidates under `nodes`, taking those
/// `known` gives (an earlier read's, `observe`) instead of asking.
pub async fn gather(
    bus: &Bus,
    nodes: &mut [Node],
    visible_only: bool,
    known: impl Fn(&Node) -> Option<(String, bool)>,
) -> Result<(), CallError> {
    let mut wanted: Vec<&Node> = Vec::new();
    let mut found: HashMap<String, (String, bool)> = HashMap::new();
    for n in nodes.iter() {
        n.walk(&mut |x| {
            if is_candidate(x, visible_only) {
                match known(x) {
                    Some(clue) => {
                        found.insert(x.handle.path().to_string(), clue);
                    }
                    None => wanted.push(x),
                }
            }
        });
    }
    if wanted.is_empty() && found.is_empty() {
        return Ok(());
    }
    let answers = join_all(wanted.iter().map(|n| ask(bus, n))).await;
    for (n, answer) in wanted.iter().zip(answers) {
        let (attrs, actions) = match answer {
            Ok(a) => a,
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(_) => continue, // gone meanwhile, or no attributes: no clue
        };
        let hint = hint::from_clues(&attrs, None).unwrap_or_default();
        let own_click = actions.iter().any(|a| CLICKS.contains(&a.as_str()));
        // A click listener on an ancestor (event delegation, as React and jQuery do it)
        // makes an icon clickable when the page named it (class or id words).
        let delegated =
            actions.iter().any(|a| a == "clickAncestor") && !hint.is_empty() && icon_like(n);
        let clickable = !n.role.is_interactive() && (own_click || delegated);
        found.insert(n.handle.path().to_string(), (hint, clickable));
    }
    for n in nodes.iter_mut() {
        n.walk_mut(&mut |x| {
            if let Some((hint, clickable)) = found.remove(x.handle.path()) {
                x.hint = hint;
                x.clickable = clickable;
            }
        });
    }
    Ok(())
}

/// A wordless element that may be a control: it takes actions, is not a password, and
/// holds nothing but icon glyphs.
pub(crate) fn is_candidate(n: &Node, visible_only: bool) -> bool {
    n.caps.contains(Caps::ACTION)
        && !n.is_secure()
        && wordless(&n.name)
        && (!visible_only || n.states.contains(States::SHOWING))
        && !matches!(
            n.role,
            Role::Text
                | Role::Web
                | Role::Window
                | Role::App
                | Role::Dialog
                | Role::Separator
                | Role::ScrollBar
                | Role::Progress
                | Role::Menu
                | Role::List
                | Role::Table
                | Role::Tree
        )
        && n.children
            .iter()
            .all(|c| c.role.is_text() && c.children.is_empty() && wordless(&c.name))
}

/// Drawn like an icon: a glyph, a picture, or a focusable spot (a slider's handle).
fn icon_like(n: &Node) -> bool {
    !n.children.is_empty() || n.role == Role::Image || n.states.contains(States::FOCUSABLE)
}

/// The element's attributes and, where they can make it count as clickable (it is no
/// control already), its action names.
async fn ask(bus: &Bus, n: &Node) -> Result<(HashMap<String, String>, Vec<String>), CallError> {
    let (o, p) = (n.handle.owner(), n.handle.path());
    let actions = async {
        if n.role.is_interactive() {
            Ok(Vec::new())
        } else {
            action_names(bus, o, p).await
        }
    };
    let (attrs, actions) = tokio::join!(
        bus.call::<_, HashMap<String, String>>(o, p, ACCESSIBLE, "GetAttributes", &()),
        actions
    );
    if let Err(CallError::Timeout) = &actions {
        return Err(CallError::Timeout);
    }
    Ok((attrs?, actions.unwrap_or_default()))
}
