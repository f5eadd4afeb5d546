//! Fetching what the cache lacks (bounds, values, action names) for the elements that
//! survived the structural filters only, every call in flight at once.

use crate::bus::Addr;
use crate::bus::{Bus, CallError, ACCESSIBLE, ACTION, DOCUMENT, VALUE};
use crate::convert::format_number;
use desktop_core::{filter, Caps, Node, Rect, Role, States};
use futures_util::future::join_all;
use std::collections::HashMap;
use zbus::zvariant::OwnedValue;

/// Longest value returned for a text field; the rest is replaced by a marker.
pub const MAX_VALUE_CHARS: usize = 2000;

/// What to fetch.
#[derive(Clone, Copy, Debug)]
pub struct Want {
    pub bounds: bool,
    pub values: bool,
    pub actions: bool,
    /// Skip elements the output will drop anyway (unnamed pass-through containers).
    pub skip_pass_through: bool,
}

#[derive(Default)]
struct Fetched {
    bounds: Option<Rect>,
    value: Option<String>,
    actions: Vec<String>,
}

/// Fills `bounds`, `value` and `actions` of every node in `nodes` (recursively).
pub async fn hydrate(bus: &Bus, nodes: &mut [Node], want: Want) -> Result<(), CallError> {
    hydrate_sparing(bus, nodes, want, |_| false).await
}

/// [`hydrate`], leaving out the boxes of the nodes `spared` names (`observe`'s reads that
/// compare no boxes: an element seen before comes without one).
pub async fn hydrate_sparing(
    bus: &Bus,
    nodes: &mut [Node],
    want: Want,
    spared: impl Fn(&Node) -> bool,
) -> Result<(), CallError> {
    let mut targets: Vec<&Node> = Vec::new();
    for n in nodes.iter() {
        n.walk(&mut |x| targets.push(x));
    }
    let skip = |n: &Node| want.skip_pass_through && filter::is_pass_through(n) && !has_value(n);
    let results = join_all(targets.iter().map(|n| {
        let want = Want {
            bounds: want.bounds && !spared(n),
            ..want
        };
        async move {
            if skip(n) {
                Ok(Fetched::default())
            } else {
                fetch(bus, n, want).await
            }
        }
    }))
    .await;
    let mut fetched = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok(f) => fetched.push(f),
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(_) => fetched.push(Fetched::default()),
        }
    }
    let mut it = fetched.into_iter();
    for n in nodes.iter_mut() {
        n.walk_mut(&mut |x| {
            if let Some(f) = it.next() {
                if f.bounds.is_some() {
                    x.bounds = f.bounds;
                }
                if f.value.is_some() {
                    x.value = f.value;
                }
                if !f.actions.is_empty() {
                    x.actions = f.actions;
                }
            }
        });
    }
    Ok(())
}

/// Whether a number is what an element of this role is about (a slider's position, a
/// spin button's count). Buttons, check boxes, separators and groups that offer a Value
/// (LibreOffice's toolbar buttons, Java's check boxes) only repeat their state as `0`/`1`.
fn counts(role: &Role) -> bool {
    !matches!(
        role,
        Role::Button
            | Role::Toggle
            | Role::CheckBox
            | Role::Radio
            | Role::Switch
            | Role::Link
            | Role::Menu
            | Role::MenuItem
            | Role::Tab
            | Role::TabList
            | Role::Separator
            | Role::Group
            | Role::Toolbar
            | Role::Image
            | Role::Text
            | Role::Heading
            | Role::Window
            | Role::Dialog
    )
}

/// Whether a node's value is worth a call: controls with a Value, editable text.
/// Never for secure elements: a password's text is not even fetched.
pub fn has_value(n: &Node) -> bool {
    if n.is_secure() {
        return false;
    }
    if is_page(n) {
        return true;
    }
    (n.caps.contains(Caps::VALUE) && counts(&n.role))
        || n.role == desktop_core::Role::Combo
        || (n.caps.contains(Caps::TEXT)
            && (n.states.contains(States::EDITABLE)
                || n.role.is_editable()
                || n.caps.contains(Caps::EDITABLE_TEXT)))
}

/// An element's box and value as the app gives them now, asked as a read asks them.
pub(crate) async fn look(bus: &Bus, n: &Node) -> Result<(Option<Rect>, Option<String>), CallError> {
    let asked = Node {
        bounds: None,
        children: Vec::new(),
        ..n.clone()
    };
    let want = Want {
        bounds: true,
        values: true,
        actions: false,
        skip_pass_through: false,
    };
    let f = fetch(bus, &asked, want).await?;
    Ok((f.bounds, f.value))
}

async fn fetch(bus: &Bus, n: &Node, want: Want) -> Result<Fetched, CallError> {
    let (o, p) = (n.handle.owner(), n.handle.path());
    let bounds = async {
        // Bounds asked for earlier in this read (to tell what is showing) are current.
        if want.bounds && n.caps.contains(Caps::COMPONENT) && n.bounds.is_none() {
            let (x, y, w, h) = bus.extents_of(o, p).await?;
            Ok(Some(Rect::new(x, y, w, h)))
        } else {
            Ok::<_, CallError>(None)
        }
    };
    let value = async {
        if !want.values || !has_value(n) {
            return Ok(None);
        }
        if is_page(n) {
            return page_address(bus, o, p).await;
        }
        if crate::act::is_choice(n) {
            return crate::act::shown_option(bus, o, p, Some(&n.name)).await;
        }
        if n.role == Role::Spin && n.caps.contains(Caps::VALUE) {
            return spin_shows(bus, n).await;
        }
        let ranged = matches!(n.role, Role::Slider | Role::ScrollBar | Role::Progress);
        if n.caps.contains(Caps::VALUE) && (ranged || !n.caps.contains(Caps::TEXT)) {
            let v: OwnedValue = bus.property(o, p, VALUE, "CurrentValue").await?;
            return Ok(f64::try_from(v).ok().map(format_number));
        }
        let text = bus.text(o, p).await?;
        Ok::<_, CallError>(Some(clip(without_placeholders(text))).filter(|t| !t.is_empty()))
    };
    let actions = async {
        if want.actions && n.caps.contains(Caps::ACTION) && n.is_interactive() {
            action_names(bus, o, p).await
        } else {
            Ok::<_, CallError>(Vec::new())
        }
    };
    let (bounds, value, actions) = tokio::join!(bounds, value, actions);
    // One failing part (an object without Text after all) must not lose the others.
    let keep = |e: &CallError| matches!(e, CallError::Timeout);
    if let Some(e) = [
        bounds.as_ref().err(),
        value.as_ref().err(),
        actions.as_ref().err(),
    ]
    .into_iter()
    .flatten()
    .find(|e| keep(e))
    {
        return Err(e.clone());
    }
    Ok(Fetched {
        bounds: bounds.unwrap_or(None),
        value: value.unwrap_or(None),
        actions: actions.unwrap_or_default(),
    })
}

/// A web page (a document of a browser or a web view): its value is its address. An
/// editable document (design mode) keeps its text as its value.
fn is_page(n: &Node) -> bool {
    n.role == Role::Web && n.caps.contains(Caps::DOCUMENT) && !n.states.contains(States::EDITABLE)
}

/// Longest address shown; past it, the rest (query strings, mostly) is cut with a marker.
const MAX_ADDRESS_CHARS: usize = 200;

/// A page's address: `DocURL` (Firefox, WebKit) or the `URI` attribute (Chromium).
async fn page_address(bus: &Bus, o: &str, p: &str) -> Result<Option<String>, CallError> {
    let url = match bus
        .call::<_, String>(o, p, DOCUMENT, "GetAttributeValue", &("DocURL",))
        .await
    {
        Ok(u) if !u.is_empty() => u,
        Err(CallError::Timeout) => return Err(CallError::Timeout),
        _ => {
            let mut attrs: HashMap<String, String> =
                bus.call(o, p, DOCUMENT, "GetAttributes", &()).await?;
            attrs.remove("URI").unwrap_or_default()
        }
    };
    let url = url.trim();
    if url.is_empty() || url == "about:blank" {
        return Ok(None);
    }
    Ok(Some(match url.char_indices().nth(MAX_ADDRESS_CHARS) {
        Some((at, _)) => format!("{}…", &url[..at]),
        None => url.to_string(),
    }))
}

/// The names of an element's actions. `GetActions` gives localized names, which Chromium
/// leaves empty: those are asked one by one with `GetName`.
pub async fn action_names(bus: &Bus, o: &str, p: &str) -> Result<Vec<String>, CallError> {
    let list: Vec<(String, String, String)> = bus.call(o, p, ACTION, "GetActions", &()).await?;
    let names = join_all(list.iter().enumerate().map(|(i, (name, _, _))| async move {
        if name.is_empty() {
            bus.call::<_, String>(o, p, ACTION, "GetName", &(i as i32,))
                .await
                .unwrap_or_default()
        } else {
            name.clone()
        }
    }))
    .await;
    Ok(names)
}

/// Text without object replacement characters (U+FFFC), which stand for embedded objects
/// (a link, an image) that are elements of their own.
/// What a spin button shows. Its text and its Value can each lag behind the other: a web
/// number field's text keeps the last value set from outside while the Value follows the
/// keys, a web spinner's ARIA value follows its text late or never. Chromium's
/// `valuetext` attribute follows both and wins; else the text (a date edit's Value says
/// nothing), else the Value. An empty segment of a date field shows nothing.
pub(crate) async fn spin_shows(bus: &Bus, n: &Node) -> Result<Option<String>, CallError> {
    let (o, p) = (n.handle.owner(), n.handle.path());
    let attrs = bus.call::<_, HashMap<String, String>>(o, p, ACCESSIBLE, "GetAttributes", &());
    let text = async {
        if n.caps.contains(Caps::TEXT) {
            bus.text(o, p).await.map(Some)
        } else {
            Ok(None)
        }
    };
    let (attrs, text) = tokio::join!(attrs, text);
    let attrs = attrs.unwrap_or_default();
    let text = text?;
    let valuetext = attrs
        .get("valuetext")
        .map(|v| v.trim())
        .filter(|v| !v.is_empty());
    // Chromium's empty segment says "0" (a filled one says "00", "03", "PM").
    if text.as_deref().is_some_and(|t| t.trim().is_empty())
        && attrs.contains_key("placeholder")
        && valuetext.is_none_or(|v| v == "0")
    {
        return Ok(None);
    }
    if let Some(v) = valuetext {
        return Ok(Some(clip(v.to_string())));
    }
    if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
        return Ok(Some(t.trim().to_string()));
    }
    let v: OwnedValue = bus.property(o, p, VALUE, "CurrentValue").await?;
    Ok(f64::try_from(v).ok().map(format_number))
}

fn without_placeholders(text: String) -> String {
    if text.contains('\u{fffc}') {
        text.replace('\u{fffc}', "").trim().to_string()
    } else {
        text
    }
}

/// Caps long text so one editor buffer cannot flood an agent's context.
fn clip(text: String) -> String {
    match text.char_indices().nth(MAX_VALUE_CHARS) {
        None => text,
        Some((cut, _)) => {
            let rest = text[cut..].chars().count();
            format!("{}… ({rest} more characters)", &text[..cut])
        }
    }
}
