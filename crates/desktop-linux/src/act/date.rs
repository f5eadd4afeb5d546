//! Date and time editors (a web page's `<input type="date|time|datetime-local|month|week">`):
//! one spin button per segment ("Month", "Day", "Year", "Hours", "Minutes", "AM/PM"), in
//! the order the locale shows them. `set-value` takes the ISO value, types each segment's
//! digits into it as a person would, and reads every segment back.

use super::Live;
use crate::bus::Addr;
use crate::bus::{Bus, CallError, VALUE};
use crate::{app_error, LinuxDesktop};
use desktop_core::action::{ActionResult, Effect, ElementState, Route};
use desktop_core::keys::Combo;
use desktop_core::{Caps, Error, ErrorCode, Handle, Node, Result, Role};
use zbus::zvariant::OwnedValue;

/// Whether `n` is a date or time editor made of segments.
pub(crate) fn is_date_editor(n: &Node) -> bool {
    matches!(&n.role, Role::Other(r) if r == "dateeditor")
}

/// Whether `n` is a date (or any text that is no number) in a spin button's one text field
/// (Qt's date edit): typed digits replace a part only where that part is selected, a
/// selection of the whole takes no key, and text set through EditableText is shown even
/// where the app refuses it (so it proves nothing).
pub(crate) fn one_text_date(n: &Node) -> bool {
    n.role == Role::Spin
        && n.caps.contains(Caps::EDITABLE_TEXT)
        && n.value
            .as_deref()
            .is_some_and(|v| v.trim().parse::<f64>().is_err())
}

/// The parts of `value` when it is written in the form `shown` has (the same separators
/// in the same order, no part empty); else why not.
pub(crate) fn parts_like<'a>(
    shown: &str,
    value: &'a str,
) -> std::result::Result<Vec<&'a str>, String> {
    let seps = |t: &str| -> Vec<char> { t.chars().filter(|c| !c.is_alphanumeric()).collect() };
    let (shown, value) = (shown.trim(), value.trim());
    let parts: Vec<&str> = value.split(|c: char| !c.is_alphanumeric()).collect();
    if shown.is_empty() || seps(shown) != seps(value) || parts.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "it shows its value as {shown:?}: give one in that form"
        ));
    }
    Ok(parts)
}

/// Where part `i` of `text` starts and how long it is, in characters.
pub(crate) fn part_span(text: &str, i: usize) -> Option<(usize, usize)> {
    let mut start = 0;
    for (k, part) in text.split(|c: char| !c.is_alphanumeric()).enumerate() {
        let len = part.chars().count();
        if k == i {
            return Some((start, len));
        }
        start += len + 1;
    }
    None
}

/// The parts of an ISO date, time or both (`2014-09-25`, `18:04`, `2014-09-25T18:04`,
/// `2014-09`, `2014-W39`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Parts {
    pub year: Option<u32>,
    pub month: Option<u32>,
    pub day: Option<u32>,
    pub week: Option<u32>,
    pub hour: Option<u32>,
    pub minute: Option<u32>,
    pub second: Option<u32>,
}

fn num(s: &str, max: u32) -> Option<u32> {
    let n: u32 = s.parse().ok()?;
    (s.chars().all(|c| c.is_ascii_digit()) && n <= max).then_some(n)
}

/// Parses an ISO value; `None` when it is not one.
pub(crate) fn parse(value: &str) -> Option<Parts> {
    let v = value.trim();
    let (date, time) = match v.split_once(['T', ' ']) {
        Some((d, t)) => (Some(d), Some(t)),
        None if v.contains(':') => (None, Some(v)),
        None => (Some(v), None),
    };
    let mut p = Parts::default();
    if let Some(d) = date {
        let mut it = d.split('-');
        p.year = Some(num(it.next()?, 9999)?);
        match it.next() {
            Some(w) if w.starts_with('W') => p.week = Some(num(&w[1..], 53)?),
            Some(m) => {
                p.month = Some(num(m, 12)?).filter(|m| *m >= 1);
                p.month?;
                if let Some(day) = it.next() {
                    p.day = Some(num(day, 31)?).filter(|d| *d >= 1);
                    p.day?;
                }
            }
            None => return None,
        }
        if it.next().is_some() {
            return None;
        }
        // A day the month does not have (a page takes the digits and keeps no date).
        if let (Some(y), Some(m), Some(d)) = (p.year, p.month, p.day) {
            if d > days_in(y, m) {
                return None;
            }
        }
    }
    if let Some(t) = time {
        let mut it = t.split(':');
        p.hour = Some(num(it.next()?, 23)?);
        p.minute = Some(num(it.next()?, 59)?);
        if let Some(s) = it.next() {
            p.second = Some(num(s.split('.').next()?, 59)?);
        }
    }
    Some(p)
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// What one segment gets: the keys typed into it and the value it shows afterwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fill {
    pub keys: String,
    pub shows: u32,
}

/// The keys and shown value of each segment (named by its first word), in their order;
/// an error names a segment the value gives nothing for.
pub(crate) fn fills(segments: &[String], p: &Parts) -> std::result::Result<Vec<Fill>, String> {
    let twelve = segments.iter().any(|s| s == "AM/PM");
    segments
        .iter()
        .map(|s| {
            let need = |v: Option<u32>| v.ok_or_else(|| format!("the field has a {s} part"));
            Ok(match s.as_str() {
                "Year" => {
                    let y = need(p.year)?;
                    Fill {
                        keys: format!("{y:04}"),
                        shows: y,
                    }
                }
                "Month" => two(need(p.month)?),
                "Day" => two(need(p.day)?),
                "Week" => two(need(p.week)?),
                "Minutes" => two(need(p.minute)?),
                "Seconds" => two(p.second.unwrap_or(0)),
                "Hours" => {
                    let h = need(p.hour)?;
                    if twelve {
                        two(match h % 12 {
                            0 => 12,
                            h12 => h12,
                        })
                    } else {
                        two(h)
                    }
                }
                "AM/PM" => {
                    let pm = need(p.hour)? >= 12;
                    Fill {
                        keys: if pm { "P" } else { "A" }.into(),
                        shows: if pm { 2 } else { 1 },
                    }
                }
                other => return Err(format!("its {other:?} part is not known")),
            })
        })
        .collect()
}

fn two(n: u32) -> Fill {
    Fill {
        keys: format!("{n:02}"),
        shows: n,
    }
}

/// The spin buttons of a date editor, in reading order: its children or theirs (Chromium
/// wraps them in an unnamed group), each probed for its name; a few levels, a few dozen
/// objects at most.
async fn segments(
    bus: &Bus,
    editor: &Handle,
) -> std::result::Result<Vec<(String, Node)>, CallError> {
    let mut out = Vec::new();
    let mut level = vec![editor.clone()];
    for _ in 0..3 {
        let mut next = Vec::new();
        for h in &level {
            let kids = crate::children::bounded(bus, h.owner(), h.path(), 32).await?;
            for k in &kids {
                let (ko, kp) = crate::bus::owned(h.owner(), k);
                let node = super::resolve::probe(bus, &crate::bus::handle(ko, kp)).await?;
                if node.role == Role::Spin {
                    let word = node
                        .name
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_string();
                    out.push((word, node));
                } else if node.child_count > 0 {
                    next.push(node.handle.clone());
                }
            }
        }
        if !out.is_empty() || next.is_empty() {
            break;
        }
        level = next;
    }
    Ok(out)
}

/// The number a segment shows now.
async fn shows(bus: &Bus, segment: &Node) -> std::result::Result<u32, CallError> {
    let (o, p) = (segment.handle.owner(), segment.handle.path());
    let v: OwnedValue = bus.property(o, p, VALUE, "CurrentValue").await?;
    Ok(f64::try_from(v).ok().map_or(0, |v| v.round() as u32))
}

impl LinuxDesktop {
    /// Replaces a one-text date (see [`one_text_date`]) as a person does: each part
    /// selected in turn (found in the text as it is then) and its digits typed over it.
    /// The app checks every key, so the text read back is what it took.
    pub(crate) async fn retype_date(
        &self,
        live: &Live,
        value: &str,
        action: &'static str,
    ) -> Result<ActionResult> {
        let n = &live.node;
        let (o, p) = live.h();
        let err = |e| app_error(e, &live.app, self.timeout);
        let shown = n.value.clone().unwrap_or_default();
        let parts = parts_like(&shown, value).map_err(|why| {
            Error::invalid_args(format!(
                "{} \"{}\" does not take {value:?}: {why}",
                n.role.short(),
                n.name
            ))
            .suggest(format!("Example: {}", shown.trim()))
        })?;
        let before = ElementState::of(n);
        let mut watch = super::settle::Watch::start(live).await;
        self.deliver_focus(live).await?;
        let (home, right, select) = (
            Combo::parse("Home")?,
            Combo::parse("Right")?,
            Combo::parse("shift+Right")?,
        );
        for (i, part) in parts.iter().enumerate() {
            let text = live.bus.text(o, p).await.map_err(err)?;
            let Some((start, len)) = part_span(&text, i) else {
                break; // the text lost a separator: the read back below says so
            };
            // A part that already shows its digits takes no keys: typed again, the wait
            // below would see it shown before the app took them, and the next part's
            // place would be read while they still changed the text (the month's
            // digits then landed in the year).
            if text.chars().skip(start).take(len).eq(part.chars()) {
                continue;
            }
            let mut kb = crate::seat::Keyboard::new(self.x()?)?;
            kb.press(&home)?;
            for _ in 0..start {
                kb.press(&right)?;
            }
            for _ in 0..len {
                kb.press(&select)?;
            }
            kb.type_text(part, std::time::Duration::ZERO)?;
            drop(kb);
            // The next part is found in the text this one leaves. Keys for it sent before
            // this part shows would reach the app while it still takes this one (a busy
            // machine: the year's digits landed in the month): a part not shown in time
            // ends the typing, and the read back below reports what the field shows.
            let deadline = std::time::Instant::now() + std::time::Duration::from_millis(1500);
            let shown = loop {
                let now = live.bus.text(o, p).await.map_err(err)?;
                let here = part_span(&now, i)
                    .map(|(s, l)| now.chars().skip(s).take(l).collect::<String>());
                if here.as_deref() == Some(*part) {
                    break true;
                }
                if std::time::Instant::now() >= deadline {
                    break false;
                }
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            };
            if !shown {
                break;
            }
        }
        let want = super::settle::TextWant {
            readable: true,
            whole: Some(value.trim().to_string()),
            typed: String::new(),
            already: 0,
            count: None,
        };
        let settled = self
            .settle_with(
                live,
                Route::Input,
                super::settle::Expect::Text(want),
                &mut watch,
                &before,
                std::time::Duration::from_millis(1500),
            )
            .await?;
        Ok(settled.into_result(live.result(action, Route::Input)))
    }

    /// `set-value` on a date or time editor: each segment focused and typed into, in the
    /// page's order, then every segment's value read back.
    pub(crate) async fn fill_date(&self, live: &Live, value: &str) -> Result<ActionResult> {
        let n = &live.node;
        let err = |e| app_error(e, &live.app, self.timeout);
        let parts = parse(value).ok_or_else(|| {
            Error::invalid_args(format!(
                "{value:?} is not an ISO date or time, or names a day its month lacks"
            ))
            .suggest("Examples: 2014-09-25, 18:04, 2014-09-25T18:04, 2014-09, 2014-W39")
        })?;
        let segments = segments(&live.bus, &n.handle).await.map_err(err)?;
        if segments.is_empty() {
            return Err(Error::new(
                ErrorCode::ActionNotSupported,
                format!("{} \"{}\" shows no parts to fill", n.role.short(), n.name),
            )
            .suggest("Click the field and type the date as the page shows it"));
        }
        let names: Vec<String> = segments.iter().map(|(w, _)| w.clone()).collect();
        let plan = fills(&names, &parts).map_err(|why| {
            Error::invalid_args(format!(
                "{value:?} does not fill {} \"{}\": {why}",
                n.role.short(),
                n.name
            ))
            .suggest(format!("Its parts, in order: {}", names.join(", ")))
        })?;
        let before = ElementState::of(n);
        let mut route = Route::A11y;
        for ((_, node), fill) in segments.iter().zip(&plan) {
            let seg = Live {
                node: node.clone(),
                id: None,
                rematched: false,
                ..live.clone()
            };
            if self.deliver_focus(&seg).await? == Route::Input {
                route = Route::Input;
            }
            let mut kb = crate::seat::Keyboard::new(self.x()?)?;
            kb.type_text(&fill.keys, std::time::Duration::ZERO)?;
            drop(kb);
            self.consumed(live.window_id, &live.app)?;
            // The segment is seen to show its part before the next is focused: keys reach
            // the page on another channel than focus requests, and a request that overtakes
            // them would send this segment's last digits (or the next one's first) astray.
            let deadline = std::time::Instant::now() + std::time::Duration::from_millis(1000);
            while shows(&live.bus, node).await.map_err(err)? != fill.shows
                && std::time::Instant::now() < deadline
            {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        }
        // Every segment read back, until all show their part (the page takes each in turn).
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(1500);
        let shown = loop {
            let mut shown = Vec::new();
            for (_, node) in &segments {
                shown.push(shows(&live.bus, node).await.map_err(err)?);
            }
            let done = shown.iter().zip(&plan).all(|(s, f)| *s == f.shows);
            if done || std::time::Instant::now() >= deadline {
                break shown;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        };
        let wrong: Vec<String> = names
            .iter()
            .zip(shown.iter().zip(&plan))
            .filter(|(_, (s, f))| **s != f.shows)
            .map(|(name, (s, f))| format!("{name} shows {s}, not {}", f.shows))
            .collect();
        if !wrong.is_empty() {
            return Err(Error::new(
                ErrorCode::ActionFailed,
                format!(
                    "{} \"{}\" after typing {value:?}: {}",
                    n.role.short(),
                    n.name,
                    wrong.join("; ")
                ),
            )
            .suggest("The page refused a part (a min or max, a step): read the field's parts"));
        }
        let mut r = live.result("set-value", route);
        r.effect = Effect::Confirmed;
        let mut st = before;
        st.value = Some(value.trim().to_string());
        r.post_state = Some(st);
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &[&str]) -> Vec<String> {
        s.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn iso_values_parse_into_their_parts() {
        let d = parse("2014-09-25").unwrap();
        assert_eq!(
            (d.year, d.month, d.day, d.hour),
            (Some(2014), Some(9), Some(25), None)
        );
        let t = parse("18:04").unwrap();
        assert_eq!((t.hour, t.minute, t.year), (Some(18), Some(4), None));
        let both = parse("2014-09-25T18:04:30").unwrap();
        assert_eq!((both.day, both.second), (Some(25), Some(30)));
        assert_eq!(parse("2014-W39").unwrap().week, Some(39));
        assert!(parse("2016-02-29").is_some());
        for bad in [
            "",
            "25/09/2014",
            "2014-13-01",
            "2014-09-31",
            "2015-02-29",
            "24:00",
            "18",
            "x",
        ] {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_one_text_date_takes_values_of_its_own_form() {
        assert_eq!(
            parts_like("2020-01-01", "2014-09-25"),
            Ok(vec!["2014", "09", "25"])
        );
        assert_eq!(
            parts_like("25.09.2014", "1.2.2015"),
            Ok(vec!["1", "2", "2015"])
        );
        for bad in ["-8", "2014/09/25", "2014-09", "abc", "2014--25"] {
            assert!(parts_like("2020-01-01", bad).is_err(), "{bad}");
        }
        assert_eq!(part_span("2014-1-05", 0), Some((0, 4)));
        assert_eq!(part_span("2014-1-05", 1), Some((5, 1)));
        assert_eq!(part_span("2014-1-05", 2), Some((7, 2)));
        assert_eq!(part_span("2014-1-05", 3), None);
    }

    #[test]
    fn segments_get_their_digits_in_the_pages_order() {
        let us = fills(
            &names(&["Month", "Day", "Year"]),
            &parse("2014-09-25").unwrap(),
        )
        .unwrap();
        let keys: Vec<&str> = us.iter().map(|f| f.keys.as_str()).collect();
        assert_eq!(keys, ["09", "25", "2014"]);
        let clock = fills(
            &names(&["Hours", "Minutes", "AM/PM"]),
            &parse("18:04").unwrap(),
        )
        .unwrap();
        assert_eq!(clock.iter().map(|f| f.shows).collect::<Vec<_>>(), [6, 4, 2]);
        let midnight = fills(
            &names(&["Hours", "Minutes", "AM/PM"]),
            &parse("00:30").unwrap(),
        )
        .unwrap();
        assert_eq!(midnight[0].keys, "12");
        assert_eq!(midnight[2].keys, "A");
        let h24 = fills(&names(&["Hours", "Minutes"]), &parse("18:04").unwrap()).unwrap();
        assert_eq!(h24[0].keys, "18");
        assert!(fills(&names(&["Month", "Day", "Year"]), &parse("18:04").unwrap()).is_err());
    }
}
