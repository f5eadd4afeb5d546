//! A run's report: `report.html` built from a transcript folder — the goal and settings,
//! then each turn: the screenshot the model saw with the acted element's box and the click
//! point drawn over it, the model's text, each tool call with its arguments and its effect
//! or error, time and tokens; then how the run ended. One self-contained page: no network,
//! no script, images relative to the folder. It holds only what the transcript holds, whose
//! secrets were blanked as they were logged.

use desktop_core::{Error, ErrorCode, Result};
use serde_json::Value;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Text made safe inside HTML.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A JSON value as short text (a string without its quotes).
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Where a screen point falls in a screenshot, in percent of its size (so the marks stay
/// in place however the page scales the image).
fn place(frame: &Value, x: f64, y: f64) -> Option<(f64, f64)> {
    let ox = frame["origin"][0].as_f64()?;
    let oy = frame["origin"][1].as_f64()?;
    let s = frame["scale"].as_f64()?;
    let (w, h) = (frame["width"].as_f64()?, frame["height"].as_f64()?);
    if w <= 0.0 || h <= 0.0 {
        return None;
    }
    Some(((x - ox) * s / w * 100.0, (y - oy) * s / h * 100.0))
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}\
h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-top:1px solid #ddd;padding-top:12px}\
.shot{position:relative;display:inline-block;max-width:100%}.shot img{max-width:100%;display:block;border:1px solid #ccc}\
.box{position:absolute;border:2px solid #e6194b;box-sizing:border-box}\
.pt{position:absolute;width:14px;height:14px;margin:-7px 0 0 -7px;border:2px solid #e6194b;border-radius:50%;background:rgba(230,25,75,.3)}\
.call{background:#f6f6f6;padding:8px;margin:6px 0;border-left:3px solid #888}.ok{border-left-color:#3c9a28}.err{border-left-color:#e6194b}\
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0}.dim{color:#666}.bad{color:#c00;font-weight:bold}";

/// The page for the transcript events `events` (one JSON value each, in order).
pub fn html(events: &[Value]) -> String {
    let mut p = String::new();
    let _ = write!(
        p,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>desktop-cli agent run</title><style>{STYLE}</style></head><body>"
    );
    let mut frame = Value::Null;
    let mut open_turn = None;
    for ev in events {
        match ev["ev"].as_str().unwrap_or("") {
            "start" => {
                let _ = write!(
                    p,
                    "<h1>{}</h1><p class=\"dim\">model {} ({}), at most {} steps, confirm {}{}{}</p>",
                    esc(&text(&ev["goal"])),
                    esc(&text(&ev["model"])),
                    esc(&text(&ev["protocol"])),
                    esc(&text(&ev["max_steps"])),
                    esc(&text(&ev["confirm"])),
                    if ev["dry_run"] == true { ", dry run" } else { "" },
                    if ev["plan"] == true { ", planned" } else { "" },
                );
            }
            "observe" => {
                let turn = ev["turn"].as_u64().unwrap_or(0);
                if open_turn != Some(turn) {
                    let _ = write!(p, "<h2>Turn {turn}</h2>");
                    open_turn = Some(turn);
                }
                frame = ev["frame"].clone();
                if let Some(file) = ev["screenshot"].as_str() {
                    // A file name the run gave (`turn-007.jpg`), never a path from elsewhere.
                    if !file.contains(['/', '\\']) {
                        let _ = write!(
                            p,
                            "<div class=\"shot\" id=\"shot-{turn}\"><img src=\"{}\" alt=\"screen of turn {turn}\">",
                            esc(file)
                        );
                        p.push_str("<!--marks-->");
                        p.push_str("</div>");
                    }
                }
            }
            "reply" => {
                let t = text(&ev["text"]);
                if !t.trim().is_empty() {
                    let _ = write!(p, "<pre>{}</pre>", esc(t.trim()));
                }
                let _ = write!(
                    p,
                    "<p class=\"dim\">{} input + {} output tokens, {} ms</p>",
                    esc(&text(&ev["input_tokens"])),
                    esc(&text(&ev["output_tokens"])),
                    esc(&text(&ev["latency_ms"]))
                );
            }
            "action" => {
                let ok = ev["ok"] == true;
                let executed = ev["executed"] == true;
                let r = &ev["result"];
                let outcome = if !executed {
                    format!("not executed: {}", text(r))
                } else if ok {
                    let effect = text(&r["effect"]);
                    let on = &r["element"];
                    let el = if on.is_object() {
                        format!(" on {} \"{}\"", text(&on["r"]), text(&on["t"]))
                    } else {
                        String::new()
                    };
                    format!(
                        "{}{el}",
                        if effect.is_empty() {
                            "done".into()
                        } else {
                            effect
                        }
                    )
                } else {
                    let sug = text(&r["suggestion"]);
                    format!(
                        "failed {}: {}{}",
                        text(&r["code"]),
                        text(&r["message"]),
                        if sug.is_empty() {
                            String::new()
                        } else {
                            format!(" — {sug}")
                        }
                    )
                };
                let _ = write!(
                    p,
                    "<div class=\"call {}\"><b>{} {}</b> <code>{}</code><br>{}</div>",
                    if ok && executed { "ok" } else { "err" },
                    esc(&text(&ev["step"])),
                    esc(&text(&ev["tool"])),
                    esc(&ev["args"].to_string()),
                    esc(&outcome)
                );
                // The marks of this action, drawn on the latest screenshot.
                let mut marks = String::new();
                if let Some(b) = r["element"]["b"].as_array().filter(|b| b.len() == 4) {
                    let v: Vec<f64> = b.iter().filter_map(Value::as_f64).collect();
                    if let (Some((x0, y0)), Some((x1, y1))) = (
                        place(&frame, v[0], v[1]),
                        place(&frame, v[0] + v[2], v[1] + v[3]),
                    ) {
                        let _ = write!(
                            marks,
                            "<div class=\"box\" style=\"left:{x0:.2}%;top:{y0:.2}%;width:{:.2}%;height:{:.2}%\"></div>",
                            x1 - x0,
                            y1 - y0
                        );
                    }
                }
                if let Some(points) = ev["points"].as_object() {
                    for pt in points.values() {
                        if let (Some(x), Some(y)) = (pt[0].as_f64(), pt[1].as_f64()) {
                            if let Some((px, py)) = place(&frame, x, y) {
                                let _ = write!(
                                    marks,
                                    "<div class=\"pt\" style=\"left:{px:.2}%;top:{py:.2}%\"></div>"
                                );
                            }
                        }
                    }
                }
                if let Some(at) = p.rfind("<!--marks-->") {
                    p.insert_str(at, &marks);
                }
            }
            "error" => {
                let _ = write!(
                    p,
                    "<p class=\"bad\">{}: {}</p>",
                    esc(&text(&ev["code"])),
                    esc(&text(&ev["message"]))
                );
            }
            "end" => {
                let tokens = &ev["tokens"];
                let _ = write!(
                    p,
                    "<h2>End</h2><p class=\"{}\">{} ({}): {}</p><p class=\"dim\">{} steps, {} turns, {} input + {} output tokens, {} ms</p>",
                    if ev["success"] == true { "" } else { "bad" },
                    if ev["success"] == true { "succeeded" } else { "did not succeed" },
                    esc(&text(&ev["stop"])),
                    esc(&text(&ev["message"])),
                    ev["steps"].as_array().map_or(0, Vec::len),
                    esc(&text(&ev["iterations"])),
                    esc(&text(&tokens["input"])),
                    esc(&text(&tokens["output"])),
                    esc(&text(&ev["time_ms"]))
                );
            }
            _ => {}
        }
    }
    p.push_str("</body></html>");
    p.replace("<!--marks-->", "")
}

/// Writes the report of the run in `dir` to `output` (default `dir/report.html`) and its
/// animation (`dir/run.gif`), readable by this user alone; the page's path.
pub fn write(dir: &Path, output: Option<&Path>) -> Result<PathBuf> {
    let path = dir.join("transcript.jsonl");
    let raw = std::fs::read_to_string(&path).map_err(|e| {
        Error::new(
            ErrorCode::InvalidArgs,
            format!("cannot read {}: {e}", path.display()),
        )
        .suggest("Give the folder of an agent run (it holds transcript.jsonl)")
    })?;
    // Tolerant: a line cut off by a crash is skipped.
    let events: Vec<Value> = raw
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let out = output.map_or_else(|| dir.join("report.html"), Path::to_path_buf);
    desktop_core::private::write_owner_only(&out, html(&events).as_bytes())?;
    crate::reel::write(dir, &events)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_run_reads_turn_by_turn_with_its_marks() {
        let events = vec![
            json!({"ev": "start", "goal": "sign in as <ada>", "model": "m", "protocol": "Anthropic", "max_steps": 5, "confirm": "Risky"}),
            json!({"ev": "observe", "turn": 1, "screenshot": "turn-001.jpg",
                   "frame": {"origin": [100, 50], "scale": 0.5, "width": 640, "height": 400}}),
            json!({"ev": "reply", "turn": 1, "text": "I will type the password", "input_tokens": 900, "output_tokens": 40, "latency_ms": 700}),
            json!({"ev": "action", "step": 1, "tool": "type_text", "args": {"id": 4, "text": "[redacted]"},
                   "executed": true, "ok": true, "points": {},
                   "result": {"effect": "unverifiable", "element": {"r": "pwd", "t": "Password", "b": [420, 250, 200, 40]}}}),
            json!({"ev": "action", "step": 2, "tool": "click", "args": {"x": 500, "y": 300},
                   "executed": true, "ok": false, "points": {"at": [740, 450]},
                   "result": {"code": "NOT_INTERACTABLE", "message": "covered", "suggestion": "close the dialog"}}),
            json!({"ev": "end", "success": false, "stop": "max_steps", "message": "gave up", "steps": [{}, {}], "iterations": 1,
                   "tokens": {"input": 900, "output": 40}, "time_ms": 2100}),
        ];
        let page = html(&events);
        assert!(page.contains("sign in as &lt;ada&gt;"), "{page}");
        assert!(page.contains("<img src=\"turn-001.jpg\""));
        // The password box at screen (420,250) 200x40: in the 640x400 image at scale 0.5
        // from (100,50): (160,100) 100x20, in percent of the image.
        assert!(
            page.contains("left:25.00%;top:25.00%;width:15.62%;height:5.00%")
                || page.contains("left:25.00%;top:25.00%;width:15.63%;height:5.00%"),
            "{page}"
        );
        // The click point (740,450) → (320,200): the middle of the image.
        assert!(page.contains("left:50.00%;top:50.00%"), "{page}");
        assert!(page.contains("failed NOT_INTERACTABLE: covered — close the dialog"));
        assert!(page.contains("did not succeed (max_steps): gave up"));
        assert!(page.contains("[redacted]") && !page.contains("<!--marks-->"));
    }
}
