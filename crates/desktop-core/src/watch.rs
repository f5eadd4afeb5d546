//! What `wait`, `observe` and `screenshot` are asked for: the option types every face
//! builds (CLI flags, MCP arguments, agent steps) and the checks they all get.

use crate::backend::Desktop;
use crate::diff::Ignore;
use crate::error::{Error, ErrorCode, Result};
use crate::filter::{matches_text, Filters};
use crate::model::Target;
use crate::node::{Node, Rect};
use crate::overlay::{Inset, Overlays};
use crate::render::Compact;
use crate::request::Element;
use crate::role::Role;
use crate::shot::Encoding;
use serde_json::{json, Value};
use std::future::Future;
use std::time::{Duration, Instant};

/// `wait`: until an element appears (or, with `gone`, is gone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitRequest {
    pub target: Target,
    /// An element whose name, value or description contains this (case-insensitive).
    pub text: Option<String>,
    /// An element of this role (with `text`: both must hold).
    pub role: Option<Role>,
    /// The element with this id in the last read.
    pub id: Option<u32>,
    pub gone: bool,
    pub timeout: Duration,
    /// Time between looks.
    pub interval: Duration,
}

impl WaitRequest {
    pub fn validate(&self) -> Result<()> {
        if self.text.is_none() && self.role.is_none() && self.id.is_none() {
            return Err(
                Error::invalid_args("wait for what? give a text, a role or an id")
                    .suggest("Example: wait for the text \"Saved\" in app chromium"),
            );
        }
        if self.id.is_some() && (self.text.is_some() || self.role.is_some()) {
            return Err(Error::invalid_args(
                "wait for an id, or for a text and role, not both",
            ));
        }
        if self.text.as_deref() == Some("") {
            return Err(Error::invalid_args("the text to wait for is empty"));
        }
        let ms = |d: Duration| d.as_millis();
        if !(10..=60_000).contains(&ms(self.interval)) || ms(self.timeout) > 600_000 {
            return Err(Error::invalid_args(
                "the interval must be 10 ms to 60 s and the timeout at most 600 s",
            ));
        }
        Ok(())
    }
}

/// What one look at the window found.
enum Look {
    /// The matching elements (without their children), with their ids.
    Found(Vec<Node>),
    /// Why nothing matched.
    Absent(String),
}

fn window_missing(e: &Error) -> bool {
    matches!(
        e.code,
        ErrorCode::AppNotFound | ErrorCode::WindowNotFound | ErrorCode::StaleRef
    )
}

/// One look: the element by id, or a read of the window for the text and role.
async fn look<D: Desktop>(d: &D, a: &WaitRequest) -> Result<Look> {
    let scope = &a.target;
    if let Some(id) = a.id {
        return match d.find(scope, &Element::Id(id)).await {
            Ok(found) => Ok(Look::Found(vec![Node {
                id,
                role: found.role,
                name: found.name,
                ..Node::default()
            }])),
            Err(e) if e.code == ErrorCode::StaleRef || e.code == ErrorCode::AmbiguousTarget => {
                Ok(Look::Absent(e.message))
            }
            Err(e) => Err(e),
        };
    }
    let window = match d.resolve(scope).await {
        Ok(w) => w,
        Err(e) if window_missing(&e) => return Ok(Look::Absent(e.message)),
        Err(e) => return Err(e),
    };
    let filters = Filters {
        visible_only: true,
        ..Filters::default()
    };
    let data = d.read_window(window, &filters, None).await?;
    let needle = a.text.as_deref().map(str::to_lowercase);
    let mut found: Vec<&Node> = Vec::new();
    for n in &data.elements {
        n.walk(&mut |x| {
            let text_ok = needle.as_deref().is_none_or(|t| matches_text(x, t));
            if text_ok && a.role.as_ref().is_none_or(|r| &x.role == r) {
                found.push(x);
            }
        });
    }
    if found.is_empty() {
        return Ok(Look::Absent(format!(
            "{} elements in {} \"{}\", none matching",
            data.total, data.window.app, data.window.title
        )));
    }
    let els = found
        .iter()
        .take(20)
        .map(|n| Node {
            children: Vec::new(),
            ..(*n).clone()
        })
        .collect();
    Ok(Look::Found(els))
}

/// `wait`: looks every `interval` until the element is there (or, with `gone`, is not),
/// or the timeout passes (`TIMEOUT`, saying what was last seen). A hung app is one more
/// look, not an end. `sleep` is the runtime's timer.
pub async fn wait<D: Desktop, F: Future<Output = ()>>(
    d: &D,
    a: &WaitRequest,
    sleep: impl Fn(Duration) -> F,
) -> Result<Waited> {
    a.validate()?;
    let start = Instant::now();
    let deadline = start + a.timeout;
    let mut last;
    loop {
        let elapsed = || start.elapsed().as_millis() as u64;
        match look(d, a).await {
            Ok(Look::Found(elements)) if !a.gone => {
                return Ok(Waited::Seen {
                    elements,
                    elapsed_ms: elapsed(),
                });
            }
            Ok(Look::Absent(_)) if a.gone => {
                return Ok(Waited::Gone {
                    elapsed_ms: elapsed(),
                })
            }
            Ok(Look::Found(els)) => {
                let list: Vec<String> = els
                    .iter()
                    .take(5)
                    .map(|e| format!("{} {:?}", e.role.short(), e.name))
                    .collect();
                last = format!("still there: {}", list.join(", "));
            }
            Ok(Look::Absent(why)) => last = why,
            Err(e) if e.code == ErrorCode::AppUnresponsive => last = e.message,
            Err(e) => return Err(e),
        }
        if Instant::now() >= deadline {
            return Err(Error::new(
                ErrorCode::Timeout,
                format!(
                    "not {} within {} ms; last seen: {last}",
                    if a.gone { "gone" } else { "seen" },
                    a.timeout.as_millis()
                ),
            )
            .suggest("Wait longer, or read the target to see what is there"));
        }
        sleep(
            a.interval
                .min(deadline.saturating_duration_since(Instant::now())),
        )
        .await;
    }
}

/// What `wait` saw.
#[derive(Clone, Debug, PartialEq)]
pub enum Waited {
    /// Elements matching (the first 20, without their children), after `elapsed_ms`.
    Seen {
        elements: Vec<Node>,
        elapsed_ms: u64,
    },
    /// Nothing matches any more.
    Gone { elapsed_ms: u64 },
}

impl serde::Serialize for Waited {
    /// `{"matched":true,"elapsed_ms","count","elements":[compact]}` or
    /// `{"gone":true,"elapsed_ms"}`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let v: Value = match self {
            Waited::Seen {
                elements,
                elapsed_ms,
            } => {
                let els: Vec<Compact> = elements.iter().map(Compact::flat).collect();
                json!({"matched": true, "elapsed_ms": elapsed_ms, "count": els.len(), "elements": els})
            }
            Waited::Gone { elapsed_ms } => json!({"gone": true, "elapsed_ms": elapsed_ms}),
        };
        v.serialize(s)
    }
}

/// `observe`: a window's changes as events.
#[derive(Clone, Debug)]
pub struct ObserveRequest {
    pub target: Target,
    pub filters: Filters,
    /// Time between reads where the app sends no change events.
    pub interval: Duration,
    /// Stop after this long (`None`: until stopped).
    pub duration: Option<Duration>,
    pub ignore: Ignore,
}

impl ObserveRequest {
    pub fn validate(&self) -> Result<()> {
        if self.target.is_empty() {
            return Err(
                Error::invalid_args("observe needs a window: app, title, id or pid")
                    .suggest("Example: observe the app chromium for 10 s"),
            );
        }
        if !(50..=600_000).contains(&self.interval.as_millis()) {
            return Err(Error::invalid_args("the interval must be 50 ms to 600 s"));
        }
        self.filters.validate()
    }
}

/// `screenshot`: what to capture and how to encode it.
#[derive(Clone, Debug, PartialEq)]
pub struct ShotRequest {
    /// The window to capture (raised first); empty: the whole screen.
    pub target: Target,
    /// One element of the last read instead.
    pub id: Option<u32>,
    /// A screen rectangle instead.
    pub region: Option<Rect>,
    pub encoding: Encoding,
    /// The share of the captured pixels kept, 0.1-1.0 (a Retina capture holds 2 a unit).
    pub scale: f64,
    /// Shrink further so the longer side is at most this many pixels.
    pub max_edge: Option<u32>,
    /// Draw each interactive element's box and id.
    pub annotate: bool,
    /// Draw a labelled coordinate grid.
    pub grid: bool,
    /// Screen rectangles painted over before anything is drawn (fields showing a secret).
    pub hide: Vec<Rect>,
    /// The pointer's crosshair and inset, the dimension banner (`Overlays::default()`: none
    /// but the banner that marks and a grid bring).
    pub overlays: Overlays,
}

impl ShotRequest {
    pub fn validate(&self) -> Result<()> {
        if !(0.1..=1.0).contains(&self.scale) || self.scale.is_nan() {
            return Err(Error::invalid_args(format!(
                "the scale {} is outside 0.1-1.0",
                self.scale
            ))
            .suggest("Example: 0.5"));
        }
        if let Encoding::Jpeg { quality } = self.encoding {
            if !(1..=100).contains(&quality) {
                return Err(
                    Error::invalid_args("the JPEG quality must be 1-100").suggest("Example: 80")
                );
            }
        }
        if self.max_edge.is_some_and(|e| e < 16) {
            return Err(Error::invalid_args(
                "the longest side must be at least 16 pixels",
            ));
        }
        if let Some(i) = self.overlays.inset {
            let (sizes, zooms) = (Inset::SIZES, Inset::ZOOMS);
            if !sizes.contains(&i.size) {
                return Err(Error::invalid_args(format!(
                    "the inset size {} is outside {}-{} pixels",
                    i.size,
                    sizes.start(),
                    sizes.end()
                ))
                .suggest("Example: 200"));
            }
            if !zooms.contains(&i.zoom) {
                return Err(Error::invalid_args(format!(
                    "the inset zoom {} is outside {}-{}",
                    i.zoom,
                    zooms.start(),
                    zooms.end()
                ))
                .suggest("Example: 4"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait() -> WaitRequest {
        WaitRequest {
            target: Target::default(),
            text: Some("Saved".into()),
            role: None,
            id: None,
            gone: false,
            timeout: Duration::from_secs(5),
            interval: Duration::from_millis(250),
        }
    }

    #[test]
    fn requests_check_their_options() {
        assert_eq!(wait().validate(), Ok(()));
        for bad in [
            WaitRequest {
                text: None,
                ..wait()
            },
            WaitRequest {
                text: Some(String::new()),
                ..wait()
            },
            WaitRequest {
                id: Some(3),
                ..wait()
            },
            WaitRequest {
                interval: Duration::from_millis(1),
                ..wait()
            },
            WaitRequest {
                timeout: Duration::from_secs(601),
                ..wait()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        let shot = ShotRequest {
            target: Target::default(),
            id: None,
            region: None,
            encoding: Encoding::Jpeg { quality: 0 },
            scale: 0.5,
            max_edge: None,
            annotate: false,
            grid: false,
            hide: Vec::new(),
            overlays: Overlays::default(),
        };
        assert!(shot.validate().is_err());
        assert!(ShotRequest {
            encoding: Encoding::Png,
            ..shot.clone()
        }
        .validate()
        .is_ok());
        assert!(ShotRequest {
            encoding: Encoding::Png,
            scale: f64::NAN,
            ..shot.clone()
        }
        .validate()
        .is_err());
        let inset = |size, zoom| ShotRequest {
            encoding: Encoding::Png,
            overlays: Overlays {
                inset: Some(Inset { size, zoom }),
                ..Overlays::default()
            },
            ..shot.clone()
        };
        assert!(inset(200, 4).validate().is_ok());
        for (size, zoom) in [(63, 4), (801, 4), (200, 1), (200, 17)] {
            assert!(inset(size, zoom).validate().is_err(), "{size} {zoom}");
        }
    }
}
