//! `agent --replay DIR`: runs a transcript's executed actions again, without a model.
//! Element ids of the old run mean nothing now, so each element is found again by the role
//! and name recorded with it; points are replayed in screen pixels. Stops at the first step
//! that cannot be found or fails.

use super::exec;
use super::safety::{self, Place, Verdict};
use super::screen::{self, Screen};
use super::secrets::Secrets;
use super::tools::{self, Act, Space, Spot};
use super::transcript::{self, has_redacted};
use crate::notice;
use crate::Confirm;
use desktop_core::Desktop;
use desktop_core::{Result, Target};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

pub struct Options {
    pub confirm: Confirm,
    pub allow_apps: Vec<String>,
    pub dry_run: bool,
    pub call_timeout: Duration,
    /// For steps that typed a `{{secret:NAME}}`: the run's `--secret` options again.
    pub secrets: Secrets,
    pub clipboard: std::sync::Arc<dyn desktop_core::system::Clipboard + Send + Sync>,
}

/// The element of this screen with the recorded role and name.
fn find(screen: &Screen, r: &Value) -> Option<u32> {
    let (role, name) = (r["r"].as_str()?, r["n"].as_str()?);
    let mut hit = None;
    for n in &screen.data.as_ref()?.elements {
        n.walk(&mut |e| {
            if hit.is_none() && e.role.short() == role && e.name == name {
                hit = Some(e.id);
            }
        });
    }
    hit
}

/// The recorded step with its targets found again on this screen.
fn rebind(
    act: Act,
    refs: &Value,
    points: &Value,
    screen: &Screen,
) -> std::result::Result<Act, String> {
    let spot = |key: &str, old: Spot| -> std::result::Result<Spot, String> {
        if let Some(p) = points[key].as_array() {
            let (x, y) = (
                p.first().and_then(Value::as_f64),
                p.get(1).and_then(Value::as_f64),
            );
            if let (Some(x), Some(y)) = (x, y) {
                return Ok(Spot::Point {
                    x,
                    y,
                    space: Space::Screen,
                });
            }
        }
        if refs[key].is_object() {
            return find(screen, &refs[key]).map(Spot::Element).ok_or_else(|| {
                format!(
                    "no {} named {} on the screen now",
                    refs[key]["r"], refs[key]["n"]
                )
            });
        }
        Ok(old)
    };
    let id = |old: u32| -> std::result::Result<u32, String> {
        match spot("at", Spot::Element(old))? {
            Spot::Element(i) => Ok(i),
            Spot::Point { .. } => Err("a point where an element was expected".into()),
        }
    };
    Ok(match act {
        Act::Click {
            at,
            button,
            double,
            modifiers,
        } => Act::Click {
            at: spot("at", at)?,
            button,
            double,
            modifiers,
        },
        Act::Scroll {
            direction,
            amount,
            at: Some(at),
        } => Act::Scroll {
            direction,
            amount,
            at: Some(spot("at", at)?),
        },
        Act::Drag { from, to } => Act::Drag {
            from: spot("from", from)?,
            to: spot("to", to)?,
        },
        Act::TypeText { text, id: Some(i) } => Act::TypeText {
            text,
            id: Some(id(i)?),
        },
        Act::Focus { id: i } => Act::Focus { id: id(i)? },
        Act::SetValue { id: i, value } => Act::SetValue { id: id(i)?, value },
        Act::Toggle { id: i } => Act::Toggle { id: id(i)? },
        other => other,
    })
}

pub async fn run<D: Desktop>(d: &D, dir: &Path, o: Options) -> Result<crate::Report> {
    let events = transcript::actions(dir)?;
    let mut steps = Vec::new();
    let mut failure = None;
    let look = screen::Options {
        tree_tokens: 100_000,
        bounds: false,
        screenshot: false,
        grid: false,
        pointer: false,
        // The whole window: a recorded step may have acted on the browser's own controls.
        page: false,
    };
    for (i, ev) in events.iter().enumerate() {
        let n = i + 1;
        let call = super::model::Call {
            id: format!("r{n}"),
            name: ev["tool"].as_str().unwrap_or("").to_string(),
            args: ev["args"].clone(),
        };
        let step = match tools::parse(&call) {
            Ok(_) if has_redacted(&ev["args"]) => Err(format!(
                "step {n} ({}) typed a secret the transcript does not keep",
                call.name
            )),
            Ok(s) => Ok(s),
            Err(e) => Err(format!("step {n}: {e}")),
        };
        let step = match step {
            Ok(s) => s,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        // The recorded window: by app and title, else by app alone.
        let app = ev["window"]["app"].as_str().map(str::to_string);
        let title = ev["window"]["title"].as_str().map(str::to_string);
        let mut window = Target {
            app: app.clone(),
            window: title,
            ..Target::default()
        };
        if d.resolve(&window).await.is_err() {
            window.window = None;
        }
        if let Ok(w) = d.resolve(&window).await {
            window = Target {
                window_id: w.id,
                ..Target::default()
            };
        }
        let screen = screen::observe(d, &window, &look, &o.secrets, None).await;
        let act = match rebind(step.act.clone(), &ev["refs"], &ev["points"], &screen) {
            Ok(a) => a,
            Err(e) => {
                failure = Some(format!("step {n}: {e}"));
                break;
            }
        };
        let what = o.secrets.hide(&exec::describe(&screen, &act));
        notice(&format!(
            "replay {n}/{}: {what}{}",
            events.len(),
            if o.dry_run { " [dry run]" } else { "" }
        ));
        let step = tools::Step { act, why: step.why };
        let risk = safety::risk(
            &step,
            &Place {
                app: screen.app(),
                role: None,
            },
            &o.allow_apps,
        );
        let mut record = json!({"step": n, "tool": call.name, "action": what});
        if o.dry_run {
            record["executed"] = json!(false);
            steps.push(record);
            continue;
        }
        if let Verdict::Refused(r) =
            safety::decide(o.confirm, risk.as_deref(), &what, &mut safety::ask)
        {
            record["executed"] = json!(false);
            record["error"] = json!(r);
            steps.push(record);
            failure = Some(r);
            break;
        }
        let act = match o.secrets.fill(&step.act, &screen) {
            Ok(filled) => filled.unwrap_or_else(|| step.act.clone()),
            Err(why) => {
                record["executed"] = json!(false);
                record["error"] = json!(why);
                steps.push(record);
                failure = Some(format!(
                    "step {n}: {why} (a replay takes the run's --secret options again)"
                ));
                break;
            }
        };
        record["executed"] = json!(true);
        match exec::run(d, &window, &screen, &act, o.call_timeout, &o.clipboard).await {
            Ok(done) => {
                record["ok"] = json!(true);
                record["result"] = serde_json::from_str(&o.secrets.hide(&done.result.to_string()))
                    .unwrap_or(Value::Null);
                steps.push(record);
            }
            Err(e) => {
                let message = o.secrets.hide(&e.message);
                record["ok"] = json!(false);
                record["error"] = json!({"code": e.code.as_str(), "message": message});
                steps.push(record);
                failure = Some(format!("step {n} failed: {message}"));
                break;
            }
        }
    }
    let ok = failure.is_none();
    Ok(crate::Report {
        success: ok,
        stop: if ok { "replayed" } else { "failed" }.into(),
        message: failure.unwrap_or_else(|| format!("replayed {} steps", steps.len())),
        steps,
        iterations: None,
        tokens: None,
        usage: None,
        time_ms: None,
        transcript: None,
        replayed_from: Some(dir.display().to_string()),
    })
}
