//! The JSON step contract for models without tool calling (DeskPilot's): the reply is one
//! object `{"steps": [{"tool", "args", "human_readable_justification"}], "done": null |
//! "summary"}` with 0-4 steps. Parsed whole or refused whole: a half-valid reply executes
//! nothing.

use super::model::Call;
use super::tools::{self, Step};
use serde_json::{json, Value};

/// How the contract is explained to the model (appended to the system prompt).
pub fn instructions() -> String {
    let tools: Vec<String> = tools::catalogue()
        .iter()
        .filter(|t| t.name != "done")
        .map(|t| {
            let args: Vec<String> = t.schema["properties"]
                .as_object()
                .map(|p| p.keys().filter(|k| *k != "why").cloned().collect())
                .unwrap_or_default();
            format!("- {}({}): {}", t.name, args.join(", "), t.description)
        })
        .collect();
    format!(
        "Answer with ONLY one JSON object, no markdown fences, no other text:\n\
         {{\"steps\": [{{\"tool\": \"click\", \"args\": {{\"id\": 12}}, \"human_readable_justification\": \"Open the File menu\"}}], \"done\": null}}\n\
         - 0 to 4 steps per reply; they run in order, and the rest are skipped if one fails.\n\
         - When the goal is reached: \"steps\": [] and \"done\": \"what was done\".\n\
         - If it cannot be reached: \"steps\": [] and \"done\": \"FAILED: why\".\n\
         - Every step has all three keys; args is an object (use {{}} when none).\n\
         Tools (args by name; leave out what you do not need):\n{}",
        tools.join("\n")
    )
}

/// The JSON object in a reply: the whole text, or inside a ``` fence, or from the first `{`
/// to the last `}`.
fn extract(text: &str) -> Option<Value> {
    let t = text.trim();
    if let Ok(v) = serde_json::from_str(t) {
        return Some(v);
    }
    if let Some(start) = t.find("```") {
        let body = &t[start + 3..];
        let body = body.strip_prefix("json").unwrap_or(body);
        if let Some(end) = body.find("```") {
            if let Ok(v) = serde_json::from_str(body[..end].trim()) {
                return Some(v);
            }
        }
    }
    let (a, b) = (t.find('{')?, t.rfind('}')?);
    (a < b)
        .then(|| serde_json::from_str(&t[a..=b]).ok())
        .flatten()
}

/// Parses a contract reply into calls (ids `j1`..) and their steps, or says what is wrong.
pub fn parse(text: &str, turn: u32) -> Result<Vec<(Call, Step)>, String> {
    let v = extract(text).ok_or("the reply is not a JSON object")?;
    let obj = v.as_object().ok_or("the reply must be a JSON object")?;
    if let Some(k) = obj.keys().find(|k| *k != "steps" && *k != "done") {
        return Err(format!("unexpected key {k:?}: only \"steps\" and \"done\""));
    }
    let steps = match obj.get("steps") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => return Err("\"steps\" must be an array".into()),
    };
    if steps.len() > 4 {
        return Err(format!("{} steps; at most 4 per reply", steps.len()));
    }
    let mut out = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let n = i + 1;
        let tool = s["tool"]
            .as_str()
            .filter(|t| !t.is_empty())
            .ok_or(format!("step {n}: \"tool\" is missing"))?;
        if tool == "done" {
            return Err(format!("step {n}: finish with \"done\", not a done step"));
        }
        let args = match &s["args"] {
            Value::Object(m) => Value::Object(m.clone()),
            Value::Null => json!({}),
            _ => return Err(format!("step {n}: \"args\" must be an object")),
        };
        let why = s["human_readable_justification"]
            .as_str()
            .or(s["why"].as_str())
            .filter(|w| !w.trim().is_empty())
            .ok_or(format!(
                "step {n}: \"human_readable_justification\" is missing"
            ))?;
        let mut args = args;
        args["why"] = json!(why);
        let call = Call {
            id: format!("j{turn}.{n}"),
            name: tool.to_string(),
            args,
        };
        let step = tools::parse(&call).map_err(|e| format!("step {n}: {e}"))?;
        out.push((call, step));
    }
    match obj.get("done") {
        None | Some(Value::Null) => {}
        Some(Value::String(summary)) => {
            if !out.is_empty() {
                return Err("\"done\" with steps: finish in a reply whose steps are []".into());
            }
            let failed = summary.trim_start().to_uppercase().starts_with("FAILED");
            let args = json!({"success": !failed, "summary": summary});
            let call = Call {
                id: format!("j{turn}.done"),
                name: "done".into(),
                args,
            };
            let step = tools::parse(&call)?;
            out.push((call, step));
        }
        Some(_) => return Err("\"done\" must be null or a string".into()),
    }
    if out.is_empty() {
        return Err("no steps and no \"done\": say what to do next, or finish".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Act;

    #[test]
    fn contract_replies() {
        let ok = parse("```json\n{\"steps\":[{\"tool\":\"toggle\",\"args\":{\"id\":3},\"human_readable_justification\":\"tick\"}],\"done\":null}\n```", 1).unwrap();
        assert_eq!(ok[0].1.act, Act::Toggle { id: 3 });
        assert_eq!(ok[0].1.why, "tick");
        let done = parse("{\"steps\":[],\"done\":\"all set\"}", 2).unwrap();
        assert_eq!(
            done[0].1.act,
            Act::Done {
                success: true,
                summary: "all set".into()
            }
        );
        // Half-valid replies run nothing.
        let half = "{\"steps\":[{\"tool\":\"toggle\",\"args\":{\"id\":3},\"human_readable_justification\":\"a\"},{\"tool\":\"click\",\"args\":{},\"human_readable_justification\":\"b\"}],\"done\":null}";
        assert!(parse(half, 3).unwrap_err().starts_with("step 2"));
        assert!(parse("I will click the button", 4).is_err());
        assert!(parse(
            "{\"steps\":[{\"tool\":\"toggle\",\"args\":{\"id\":3}}],\"done\":null}",
            5
        )
        .is_err());
    }
}
