//! Combos whose options exist only while their popup is open (GTK 4's drop-down): the
//! option shown is the label inside the combo's button, and choosing opens the popup,
//! finds the option in the list that appeared, and walks to it with the keyboard, as a
//! person would.

use super::settle::Watch;
use super::Live;
use crate::bus::Addr;
use crate::bus::{Bus, CallError, ACCESSIBLE};
use crate::{app_error, tree, LinuxDesktop};
use desktop_core::action::{ActionResult, Effect, ElementState, Route};
use desktop_core::filter::{self, Filters};
use desktop_core::keys::Combo;
use desktop_core::node::wordless;
use desktop_core::{Button, Error, ErrorCode, Handle, Node, Result, Role};
use futures_util::future::join_all;
use std::time::{Duration, Instant};

/// How long a popup may take to open, and the choice to show once taken.
const POPUP_WAIT: Duration = Duration::from_millis(1000);

/// The combo's subtree a few levels down, its labels lifted into the elements they name.
async fn subtree(bus: &Bus, combo: &Handle) -> Result<Vec<Node>, CallError> {
    let limits = tree::Limits {
        max_depth: 12,
        skip_hidden: false,
        ..tree::Limits::default()
    };
    let (root, _) = tree::read_subtree(bus, combo, limits, None).await?;
    let f = Filters {
        visible_only: false,
        ..Filters::default()
    };
    Ok(filter::structural(root.children, &f))
}

/// The text a combo's button shows: what the app finds at a few points along the middle
/// of the combo (its own hit test knows which of the labels it holds is drawn: GTK 4's
/// drop-down keeps a hidden "(None)" beside the option), else the first words found
/// inside it. A few calls, no read of the whole app: this runs for every wordless combo
/// a read shows.
pub(crate) async fn shown_label(bus: &Bus, combo: &Handle) -> Result<Option<String>, CallError> {
    let (o, p) = (combo.owner(), combo.path());
    let ext = bus.extents_of(o, p).await;
    if let Ok((x, y, w, h)) = ext {
        for f in [4, 2, 6] {
            let hit = bus.at_point(o, p, x + w * f / 10, y + h / 2).await;
            let (ho, hp) = match hit {
                Ok(r) if r.1.as_str() != crate::children::NULL_PATH && r.1.as_str() != p => {
                    crate::bus::owned(o, &r)
                }
                Err(CallError::Timeout) => return Err(CallError::Timeout),
                _ => continue,
            };
            // The element there, else the words of what it holds (a label beside the point).
            let mut candidates = vec![(ho.clone(), hp.clone())];
            for r in crate::children::bounded(bus, &ho, &hp, 8)
                .await
                .unwrap_or_default()
            {
                candidates.push(crate::bus::owned(&ho, &r));
            }
            for (co, cp) in candidates {
                let name = bus.string_property(&co, &cp, ACCESSIBLE, "Name").await;
                let name = name.ok().map(|n| crate::convert::name(&n));
                if let Some(n) = name.filter(|n| !wordless(n)) {
                    return Ok(Some(n));
                }
            }
        }
    }
    first_words(bus, combo).await
}

/// The first words found a few levels inside a combo, its popup (lists, menus) left out.
async fn first_words(bus: &Bus, combo: &Handle) -> Result<Option<String>, CallError> {
    let mut level = vec![(combo.owner().to_string(), combo.path().to_string())];
    for _ in 0..5 {
        let mut next = Vec::new();
        for (o, p) in &level {
            for r in crate::children::bounded(bus, o, p, 8).await? {
                next.push(crate::bus::owned(o, &r));
            }
        }
        let named = join_all(next.iter().map(|(o, p)| async move {
            let (name, role) = tokio::join!(
                bus.string_property(o, p, ACCESSIBLE, "Name"),
                bus.call::<_, u32>(o, p, ACCESSIBLE, "GetRole", &()),
            );
            (name.map(|n| crate::convert::name(&n)), role)
        }))
        .await;
        let mut keep = Vec::new();
        for (at, (name, role)) in next.into_iter().zip(named) {
            if let Err(CallError::Timeout) = name {
                return Err(CallError::Timeout);
            }
            let role = role
                .map(|r| crate::convert::role(crate::convert::role_number(r), Default::default()));
            if matches!(role, Ok(Role::List | Role::Menu)) {
                continue;
            }
            if let Some(n) = name.ok().filter(|n| !wordless(n)) {
                return Ok(Some(n));
            }
            keep.push(at);
        }
        level = keep;
    }
    Ok(None)
}

/// The options of an open popup: the items of the first list or menu under the combo.
fn popup_items(nodes: &[Node]) -> Vec<Node> {
    let mut items = Vec::new();
    for n in nodes {
        n.walk(&mut |x| {
            if items.is_empty() && matches!(x.role, Role::List | Role::Menu) {
                items = x
                    .children
                    .iter()
                    .filter(|c| matches!(c.role, Role::Item | Role::MenuItem))
                    .cloned()
                    .map(named_by_words)
                    .collect();
            }
        });
    }
    items
}

/// An item named by the first words inside it when it has none (GTK 4 puts the label of
/// a list item a few levels down).
fn named_by_words(mut item: Node) -> Node {
    if wordless(&item.name) {
        let mut words = None;
        item.walk(&mut |x| {
            if words.is_none() && !wordless(&x.name) {
                words = Some(x.name.trim().to_string());
            }
        });
        if let Some(w) = words {
            item.name = w;
        }
    }
    item
}

impl LinuxDesktop {
    /// `set-value` on a combo whose options show only in its popup: opened by a click,
    /// the option clicked, then the combo read back until it shows the option.
    pub(crate) async fn choose_in_popup(
        &self,
        live: &Live,
        value: &str,
    ) -> Result<Option<ActionResult>> {
        let err = |e| app_error(e, &live.app, self.timeout);
        let before = ElementState::of(&live.node);
        let mut watch = Watch::start(live).await;
        let (x, y) = self.input_point(live)?;
        let xc = self.x()?;
        let deadline = Instant::now() + POPUP_WAIT;
        let mut items = Vec::new();
        let mut opened = false;
        while items.is_empty() {
            if !opened {
                xc.click(x, y, Button::Left, 1)?;
                self.settle_at(x, y).await?;
                opened = true;
            }
            items = popup_items(&subtree(&live.bus, &live.node.handle).await.map_err(err)?);
            if items.is_empty() {
                if Instant::now() >= deadline {
                    return Ok(None);
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        let want = value.trim();
        let pick = items.iter().find(|i| i.name.trim() == want).or_else(|| {
            items
                .iter()
                .find(|i| i.name.trim().eq_ignore_ascii_case(want))
        });
        let Some(item) = pick else {
            let names: Vec<&str> = items.iter().map(|i| i.name.as_str()).collect();
            // Close the popup again, leaving the combo as it was.
            crate::seat::Keyboard::new(xc)?.press(&Combo::parse("Escape")?)?;
            self.settle_at(x, y).await?;
            return Err(Error::new(
                ErrorCode::ElementNotFound,
                format!(
                    "{} \"{}\" has no option {want:?}",
                    live.node.role.short(),
                    live.node.name
                ),
            )
            .suggest(format!("Its options: {}", names.join(", "))));
        };
        let target = item.name.trim().to_string();
        // The keyboard from the list's first item: GTK 4.8 reports the boxes of a popup's
        // items off by the popup's own offset, so a click at them misses, and GTK 4.18 puts
        // the focus on the first item whatever the choice is (its states do not say so).
        let to = items
            .iter()
            .position(|i| i.handle == item.handle)
            .unwrap_or(0);
        let mut keys = vec![Combo::parse("Home")?];
        keys.extend(std::iter::repeat_n(Combo::parse("Down")?, to));
        keys.push(Combo::parse("Return")?);
        let mut kb = crate::seat::Keyboard::new(xc)?;
        for k in &keys {
            kb.press(k)?;
        }
        drop(kb);
        self.consumed(live.window_id, &live.app)?;
        let deadline = Instant::now() + POPUP_WAIT;
        let shown = loop {
            let shown = shown_label(&live.bus, &live.node.handle)
                .await
                .map_err(err)?;
            if shown.as_deref() == Some(target.as_str()) {
                break shown;
            }
            if Instant::now() >= deadline {
                return Err(Error::new(
                    ErrorCode::ActionFailed,
                    format!(
                        "{} \"{}\" still shows {:?}, not {target:?}",
                        live.node.role.short(),
                        live.node.name,
                        shown.unwrap_or_default()
                    ),
                )
                .suggest("Click the combo, then the option"));
            }
            tokio::time::sleep(Duration::from_millis(15)).await;
        };
        watch.quiet(Duration::ZERO).await;
        let mut r = live.result("set-value", Route::Input);
        r.effect = Effect::Confirmed;
        // The label read back just now.
        r.extra.insert("value".into(), shown.clone().into());
        let mut st = before;
        st.value = shown;
        r.post_state = Some(st);
        Ok(Some(r))
    }
}
