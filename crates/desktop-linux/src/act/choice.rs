//! Combo boxes: the option a closed combo shows (its value) and choosing one by its text.
//! Toolkits keep the choice in different places: GTK3 in the combo's selection, Chromium
//! in the selection of the combo's popup menu (the combo's own text is an object
//! placeholder), Qt5 in the combo's name; choosing goes through the selection where the
//! toolkit offers one, the option's own action, or the keyboard (Home, then Down).

use super::Live;
use crate::bus::{owned, Bus, CallError, ObjectRef, ACCESSIBLE, ACTION};
use crate::{app_error, LinuxDesktop};
use desktop_core::action::{ActionResult, ElementState, Route};
use desktop_core::keys::Combo;
use desktop_core::node::wordless;
use desktop_core::{Error, ErrorCode, Node, Result, Role, States};
use std::time::{Duration, Instant};

const SELECTION: &str = "org.a11y.atspi.Selection";

type Ref = ObjectRef;

/// Whether an element is a closed choice list whose value is the option it shows.
pub fn is_choice(n: &Node) -> bool {
    n.role == Role::Combo && !n.states.contains(States::EDITABLE)
}

/// At most this many options of a combo are looked through (a font list has hundreds).
const OPTIONS_CAP: usize = 1000;

/// The text of the option a combo shows; `name`: the combo's name when just read (else it
/// is asked: Qt5 names a combo after its current option).
pub async fn shown_option(
    bus: &Bus,
    o: &str,
    p: &str,
    name: Option<&str>,
) -> Result<Option<String>, CallError> {
    let kids: Vec<Ref> = crate::children::bounded(bus, o, p, OPTIONS_CAP)
        .await
        .unwrap_or_default();
    // The combo's own selection first: GTK3's popup menu has a selection of its own (the
    // item under the pointer), which is not the choice.
    let mut holders = vec![(o.to_string(), p.to_string())];
    holders.extend(kids.iter().take(1).map(|r| owned(o, r)));
    for (ho, hp) in &holders {
        let chosen: Result<Ref, CallError> = bus
            .call(ho, hp, SELECTION, "GetSelectedChild", &(0i32,))
            .await;
        match chosen {
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Ok((co, cp)) if cp.as_str() != "/org/a11y/atspi/null" => {
                let (co, cp) = owned(ho, &(co, cp));
                let text: String = bus
                    .string_property(&co, cp.as_str(), ACCESSIBLE, "Name")
                    .await
                    .unwrap_or_default();
                if !text.trim().is_empty() {
                    return Ok(Some(text.trim().to_string()));
                }
            }
            _ => {}
        }
    }
    let name = match name {
        Some(n) => n.to_string(),
        None => crate::convert::name(&bus.string_property(o, p, ACCESSIBLE, "Name").await?),
    };
    if !wordless(&name) {
        return Ok(Some(name.trim().to_string()));
    }
    // GTK 4's drop-down: the label inside its button.
    let handle = crate::bus::handle(o, p);
    super::popup::shown_label(bus, &handle).await
}

/// The combo's options: (owner, path, text) of each, and the element holding them.
async fn options(
    bus: &Bus,
    o: &str,
    p: &str,
) -> Result<(String, String, Vec<(String, String, String)>), CallError> {
    let kids: Vec<Ref> = crate::children::bounded(bus, o, p, OPTIONS_CAP).await?;
    // The options sit in a popup menu or list under the combo (Chromium, GTK3, Qt5).
    let (ho, hp) = match kids.first() {
        Some(r) => owned(o, r),
        None => return Ok((o.to_string(), p.to_string(), Vec::new())),
    };
    let items: Vec<Ref> = crate::children::bounded(bus, &ho, &hp, OPTIONS_CAP).await?;
    let mut out = Vec::new();
    for (io, ip) in items {
        let (io, ip) = owned(&ho, &(io, ip));
        let text: String = bus
            .string_property(&io, ip.as_str(), ACCESSIBLE, "Name")
            .await
            .unwrap_or_default();
        out.push((io, ip, text.trim().to_string()));
    }
    Ok((ho, hp, out))
}

impl LinuxDesktop {
    /// A click on an option of a closed combo box (its popup list not showing): the
    /// option chosen through the combo as `set-value` does, and confirmed by what the
    /// combo shows. `None` for anything else.
    pub(crate) async fn choose_closed_option(&self, live: &Live) -> Result<Option<ActionResult>> {
        let n = &live.node;
        if n.states.contains(States::SHOWING) || !matches!(n.role, Role::Item | Role::MenuItem) {
            return Ok(None);
        }
        let Some(list) = live.bus.parent(&n.handle).await else {
            return Ok(None);
        };
        let Some(combo) = live.bus.parent(&list).await else {
            return Ok(None);
        };
        let node = match live.probe_again(&combo).await {
            Ok(c) if c.role == Role::Combo => c,
            Ok(_) | Err(_) => return Ok(None),
        };
        let combo = Live {
            node,
            id: None,
            rematched: false,
            ..live.clone()
        };
        let mut r = self.choose(&combo, n.name.trim()).await?;
        r.action = "click";
        r.id = live.id;
        r.element = live.result("click", Route::A11y).element;
        Ok(Some(r))
    }

    /// `set-value` on a combo: the option with this text (exact, then any case) chosen.
    pub(crate) async fn choose(&self, live: &Live, value: &str) -> Result<ActionResult> {
        let (o, p) = live.h();
        let err = |e| app_error(e, &live.app, self.timeout);
        let (ho, hp, opts) = options(&live.bus, o, p).await.map_err(err)?;
        let want = value.trim();
        let index = opts.iter().position(|(_, _, t)| t == want).or_else(|| {
            opts.iter()
                .position(|(_, _, t)| t.to_lowercase() == want.to_lowercase())
        });
        if index.is_none() {
            // Options that exist only while the popup is open (GTK 4).
            if let Some(r) = self.choose_in_popup(live, value).await? {
                return Ok(r);
            }
        }
        let index = index.ok_or_else(|| {
            let names: Vec<&str> = opts.iter().map(|(_, _, t)| t.as_str()).collect();
            Error::new(
                ErrorCode::ElementNotFound,
                format!(
                    "{} \"{}\" has no option {want:?}",
                    live.node.role.short(),
                    live.node.name
                ),
            )
            .suggest(format!("Its options: {}", names.join(", ")))
        })?;
        let target = opts[index].2.clone();
        let shown = |bus: Bus| {
            let (o, p) = (o.to_string(), p.to_string());
            async move { shown_option(&bus, &o, &p, None).await.ok().flatten() }
        };
        let settled = |bus: Bus, target: String| async move {
            let deadline = Instant::now() + Duration::from_millis(700);
            loop {
                if shown(bus.clone()).await.as_deref() == Some(target.as_str()) {
                    return true;
                }
                if Instant::now() > deadline {
                    return false;
                }
                tokio::time::sleep(Duration::from_millis(15)).await;
            }
        };
        let mut route = Route::A11y;
        // 1: the selection of the combo (GTK3: it sets the active option), or of the
        // options' holder.
        let mut done = false;
        for (so, sp) in [(o, p), (ho.as_str(), hp.as_str())] {
            let ok: Result<bool, CallError> = live
                .bus
                .call(so, sp, SELECTION, "SelectChild", &(index as i32,))
                .await;
            if ok.unwrap_or(false) && settled(live.bus.clone(), target.clone()).await {
                done = true;
                break;
            }
        }
        // 2: the option's own action (Chromium's `select`).
        if !done {
            let (io, ip, _) = &opts[index];
            let names = crate::hydrate::action_names(&live.bus, io, ip)
                .await
                .unwrap_or_default();
            if let Some(i) = names
                .iter()
                .position(|n| matches!(n.as_str(), "select" | "click" | "press"))
            {
                let ok: Result<bool, CallError> = live
                    .bus
                    .call(io, ip, ACTION, "DoAction", &(i as i32,))
                    .await;
                done = ok.unwrap_or(false) && settled(live.bus.clone(), target.clone()).await;
            }
        }
        // 3: the keyboard, as a person would (Qt5 offers neither).
        if !done {
            route = Route::Input;
            let mut keys = vec![Combo::parse("Home")?];
            keys.extend(
                (0..index)
                    .map(|_| Combo::parse("Down"))
                    .collect::<Result<Vec<_>>>()?,
            );
            if self.press_into(live, &keys).await.is_err() {
                // No keyboard focus by request (Qt5's combo): open its list with a click,
                // walk to the option, take it with Enter.
                let (x, y) = self.input_point(live)?;
                let xc = self.x()?;
                xc.click(x, y, desktop_core::Button::Left, 1)?;
                self.settle_at(x, y).await?;
                tokio::time::sleep(Duration::from_millis(120)).await;
                keys.push(Combo::parse("Return")?);
                let mut kb = crate::seat::Keyboard::new(xc)?;
                for k in &keys {
                    kb.press(k)?;
                }
            }
            done = settled(live.bus.clone(), target.clone()).await;
        }
        if !done {
            let now = shown(live.bus.clone()).await.unwrap_or_default();
            return Err(Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "{} \"{}\" still shows {now:?}, not {target:?}",
                    live.node.role.short(),
                    live.node.name
                ),
            )
            .suggest("Click the combo, then the option"));
        }
        // What the combo shows now, read back (not the option asked for).
        let now = shown(live.bus.clone()).await;
        let mut r = live.result("set-value", route);
        r.effect = desktop_core::action::Effect::Confirmed;
        if let Some(v) = &now {
            r.extra.insert("value".into(), v.clone().into());
        }
        if let Ok(state) = super::resolve::probe(&live.bus, &live.node.handle).await {
            let mut st = ElementState::of(&state);
            // Shown even where it equals the combo's name (GTK3 and Qt5 name a combo
            // after its option): the answer says what was chosen.
            st.value = now;
            r.post_state = Some(st);
        }
        Ok(r)
    }
}
