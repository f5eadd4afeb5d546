//! The wire formats: the conversation as an Anthropic Messages, OpenAI Chat Completions or
//! OpenAI Responses request body, and each protocol's reply back as a `Reply`.

use super::model::{provider_error, Call, Message, Part, Protocol, Reply, Stop, ToolSpec};
use desktop_core::Result;
use serde_json::{json, Value};

/// One protocol: where its requests go, how they authenticate, and the body both ways.
pub(super) trait Wire: Sync {
    fn path(&self) -> &'static str;
    fn headers(&self, api_key: Option<&str>) -> Vec<(&'static str, String)>;
    fn request(
        &self,
        model: &str,
        max_tokens: u32,
        system: &str,
        messages: &[Message],
        tools: &[ToolSpec],
    ) -> Value;
    fn reply(&self, v: &Value) -> Result<Reply>;
}

struct Anthropic;
struct Chat;
struct Responses;

/// The wire of a protocol.
pub(super) fn of(p: Protocol) -> &'static dyn Wire {
    match p {
        Protocol::Anthropic => &Anthropic,
        Protocol::OpenAiChat => &Chat,
        Protocol::OpenAiResponses => &Responses,
    }
}

fn bearer(api_key: Option<&str>) -> Vec<(&'static str, String)> {
    api_key
        .map(|k| vec![("authorization", format!("Bearer {k}"))])
        .unwrap_or_default()
}

impl Wire for Anthropic {
    fn path(&self) -> &'static str {
        "/v1/messages"
    }
    fn headers(&self, api_key: Option<&str>) -> Vec<(&'static str, String)> {
        let mut h = vec![("anthropic-version", "2023-06-01".to_string())];
        if let Some(k) = api_key {
            h.push(("x-api-key", k.to_string()));
        }
        h
    }
    fn request(
        &self,
        model: &str,
        max_tokens: u32,
        system: &str,
        messages: &[Message],
        tools: &[ToolSpec],
    ) -> Value {
        anthropic_request(model, max_tokens, system, messages, tools)
    }
    fn reply(&self, v: &Value) -> Result<Reply> {
        anthropic_reply(v)
    }
}

impl Wire for Chat {
    fn path(&self) -> &'static str {
        "/v1/chat/completions"
    }
    fn headers(&self, api_key: Option<&str>) -> Vec<(&'static str, String)> {
        bearer(api_key)
    }
    fn request(
        &self,
        model: &str,
        max_tokens: u32,
        system: &str,
        messages: &[Message],
        tools: &[ToolSpec],
    ) -> Value {
        chat_request(model, max_tokens, system, messages, tools)
    }
    fn reply(&self, v: &Value) -> Result<Reply> {
        chat_reply(v)
    }
}

impl Wire for Responses {
    fn path(&self) -> &'static str {
        "/v1/responses"
    }
    fn headers(&self, api_key: Option<&str>) -> Vec<(&'static str, String)> {
        bearer(api_key)
    }
    fn request(
        &self,
        model: &str,
        max_tokens: u32,
        system: &str,
        messages: &[Message],
        tools: &[ToolSpec],
    ) -> Value {
        responses_request(model, max_tokens, system, messages, tools)
    }
    fn reply(&self, v: &Value) -> Result<Reply> {
        responses_reply(v)
    }
}

fn data_url(mime: &str, b64: &str) -> String {
    format!("data:{mime};base64,{b64}")
}

fn anthropic_parts(parts: &[Part]) -> Vec<Value> {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => json!({"type": "text", "text": t}),
            Part::Image { mime, base64 } => {
                json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": base64}})
            }
        })
        .collect()
}

fn anthropic_request(
    model: &str,
    max_tokens: u32,
    system: &str,
    messages: &[Message],
    tools: &[ToolSpec],
) -> Value {
    let msgs: Vec<Value> = messages
        .iter()
        .map(|m| match m {
            Message::User(parts) => json!({"role": "user", "content": anthropic_parts(parts)}),
            Message::Assistant { text, calls } => {
                let mut content = Vec::new();
                if let Some(t) = text.as_deref().filter(|t| !t.is_empty()) {
                    content.push(json!({"type": "text", "text": t}));
                }
                for c in calls {
                    content.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.args}));
                }
                json!({"role": "assistant", "content": content})
            }
            Message::Results { outcomes, then } => {
                let mut content: Vec<Value> = outcomes
                    .iter()
                    .map(|o| {
                        json!({"type": "tool_result", "tool_use_id": o.id, "content": [{"type": "text", "text": o.text}], "is_error": o.is_error})
                    })
                    .collect();
                content.extend(anthropic_parts(then));
                json!({"role": "user", "content": content})
            }
        })
        .collect();
    let mut body =
        json!({"model": model, "max_tokens": max_tokens, "system": system, "messages": msgs});
    if !tools.is_empty() {
        body["tools"] = tools.iter().map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.schema, "strict": true})).collect();
    }
    body
}

fn anthropic_reply(v: &Value) -> Result<Reply> {
    let content = v["content"]
        .as_array()
        .ok_or_else(|| provider_error("reply without content"))?;
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in content {
        match block["type"].as_str() {
            Some("text") => text.push_str(block["text"].as_str().unwrap_or("")),
            Some("tool_use") => calls.push(Call {
                id: block["id"].as_str().unwrap_or("").to_string(),
                name: block["name"].as_str().unwrap_or("").to_string(),
                args: block["input"].clone(),
            }),
            _ => {}
        }
    }
    let stop = match v["stop_reason"].as_str() {
        Some("end_turn") | Some("stop_sequence") => Stop::EndTurn,
        Some("tool_use") => Stop::ToolUse,
        Some("max_tokens") | Some("model_context_window_exceeded") => Stop::MaxTokens,
        Some("refusal") => Stop::Refusal,
        _ => Stop::Other,
    };
    Ok(Reply {
        text: (!text.is_empty()).then_some(text),
        calls,
        stop,
        input_tokens: v["usage"]["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: v["usage"]["output_tokens"].as_u64().unwrap_or(0),
        latency_ms: 0,
        model: String::new(),
    })
}

fn chat_request(
    model: &str,
    max_tokens: u32,
    system: &str,
    messages: &[Message],
    tools: &[ToolSpec],
) -> Value {
    let user_parts = |parts: &[Part]| -> Vec<Value> {
        parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => json!({"type": "text", "text": t}),
                Part::Image { mime, base64 } => {
                    json!({"type": "image_url", "image_url": {"url": data_url(mime, base64)}})
                }
            })
            .collect()
    };
    let mut msgs = vec![json!({"role": "system", "content": system})];
    for m in messages {
        match m {
            Message::User(parts) => {
                msgs.push(json!({"role": "user", "content": user_parts(parts)}))
            }
            Message::Assistant { text, calls } => {
                let mut a = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    a["tool_calls"] = calls
                        .iter()
                        .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.args.to_string()}}))
                        .collect();
                }
                msgs.push(a);
            }
            Message::Results { outcomes, then } => {
                for o in outcomes {
                    msgs.push(json!({"role": "tool", "tool_call_id": o.id, "content": o.text}));
                }
                if !then.is_empty() {
                    msgs.push(json!({"role": "user", "content": user_parts(then)}));
                }
            }
        }
    }
    let mut body = json!({"model": model, "max_completion_tokens": max_tokens, "messages": msgs});
    if !tools.is_empty() {
        body["tools"] = tools
            .iter()
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.schema, "strict": true}}))
            .collect();
    }
    body
}

fn parse_args(raw: &Value) -> Value {
    match raw {
        Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| json!({"__unparsed": s})),
        other => other.clone(),
    }
}

fn chat_reply(v: &Value) -> Result<Reply> {
    let choice = &v["choices"][0];
    let msg = &choice["message"];
    if msg.is_null() {
        return Err(provider_error("reply without choices"));
    }
    let calls = msg["tool_calls"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| Call {
                    id: c["id"].as_str().unwrap_or("").to_string(),
                    name: c["function"]["name"].as_str().unwrap_or("").to_string(),
                    args: parse_args(&c["function"]["arguments"]),
                })
                .collect()
        })
        .unwrap_or_default();
    let refused = msg["refusal"].as_str().is_some_and(|r| !r.is_empty());
    let stop = match (refused, choice["finish_reason"].as_str()) {
        (true, _) => Stop::Refusal,
        (_, Some("stop")) => Stop::EndTurn,
        (_, Some("tool_calls")) => Stop::ToolUse,
        (_, Some("length")) => Stop::MaxTokens,
        (_, Some("content_filter")) => Stop::Refusal,
        _ => Stop::Other,
    };
    let text = msg["content"]
        .as_str()
        .map(str::to_string)
        .or_else(|| msg["refusal"].as_str().map(str::to_string));
    Ok(Reply {
        text,
        calls,
        stop,
        input_tokens: v["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
        output_tokens: v["usage"]["completion_tokens"].as_u64().unwrap_or(0),
        latency_ms: 0,
        model: String::new(),
    })
}

fn responses_request(
    model: &str,
    max_tokens: u32,
    system: &str,
    messages: &[Message],
    tools: &[ToolSpec],
) -> Value {
    let user_parts = |parts: &[Part]| -> Vec<Value> {
        parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => json!({"type": "input_text", "text": t}),
                Part::Image { mime, base64 } => json!({"type": "input_image", "image_url": data_url(mime, base64), "detail": "auto"}),
            })
            .collect()
    };
    let mut input = Vec::new();
    for m in messages {
        match m {
            Message::User(parts) => {
                input.push(json!({"role": "user", "content": user_parts(parts)}))
            }
            Message::Assistant { text, calls } => {
                if let Some(t) = text.as_deref().filter(|t| !t.is_empty()) {
                    input.push(json!({"role": "assistant", "content": t}));
                }
                for c in calls {
                    input.push(json!({"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.args.to_string()}));
                }
            }
            Message::Results { outcomes, then } => {
                for o in outcomes {
                    input.push(
                        json!({"type": "function_call_output", "call_id": o.id, "output": o.text}),
                    );
                }
                if !then.is_empty() {
                    input.push(json!({"role": "user", "content": user_parts(then)}));
                }
            }
        }
    }
    let mut body = json!({"model": model, "instructions": system, "input": input, "max_output_tokens": max_tokens});
    if !tools.is_empty() {
        body["tools"] = tools
            .iter()
            .map(|t| json!({"type": "function", "name": t.name, "description": t.description, "parameters": t.schema, "strict": true}))
            .collect();
    }
    body
}

fn responses_reply(v: &Value) -> Result<Reply> {
    let output = v["output"]
        .as_array()
        .ok_or_else(|| provider_error("reply without output"))?;
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut refused = false;
    for item in output {
        match item["type"].as_str() {
            Some("message") => {
                for c in item["content"].as_array().into_iter().flatten() {
                    match c["type"].as_str() {
                        Some("output_text") => text.push_str(c["text"].as_str().unwrap_or("")),
                        Some("refusal") => {
                            refused = true;
                            text.push_str(c["refusal"].as_str().unwrap_or(""));
                        }
                        _ => {}
                    }
                }
            }
            Some("function_call") => calls.push(Call {
                id: item["call_id"].as_str().unwrap_or("").to_string(),
                name: item["name"].as_str().unwrap_or("").to_string(),
                args: parse_args(&item["arguments"]),
            }),
            _ => {}
        }
    }
    let incomplete = v["status"].as_str() == Some("incomplete");
    let stop = if refused {
        Stop::Refusal
    } else if incomplete && v["incomplete_details"]["reason"].as_str() == Some("max_output_tokens")
    {
        Stop::MaxTokens
    } else if !calls.is_empty() {
        Stop::ToolUse
    } else if incomplete {
        Stop::Other
    } else {
        Stop::EndTurn
    };
    Ok(Reply {
        text: (!text.is_empty()).then_some(text),
        calls,
        stop,
        input_tokens: v["usage"]["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: v["usage"]["output_tokens"].as_u64().unwrap_or(0),
        latency_ms: 0,
        model: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Outcome;

    fn convo() -> Vec<Message> {
        vec![
            Message::User(vec![
                Part::Text("goal".into()),
                Part::Image {
                    mime: "image/png",
                    base64: "AAAA".into(),
                },
            ]),
            Message::Assistant {
                text: Some("ok".into()),
                calls: vec![Call {
                    id: "c1".into(),
                    name: "click".into(),
                    args: json!({"id": 3}),
                }],
            },
            Message::Results {
                outcomes: vec![Outcome {
                    id: "c1".into(),
                    text: "done".into(),
                    is_error: false,
                }],
                then: vec![Part::Text("next".into())],
            },
        ]
    }

    #[test]
    fn anthropic_shapes() {
        let b = anthropic_request("m", 100, "sys", &convo(), &[]);
        assert_eq!(
            b["messages"][0]["content"][1]["source"]["media_type"],
            "image/png"
        );
        assert_eq!(b["messages"][1]["content"][1]["type"], "tool_use");
        assert_eq!(b["messages"][2]["content"][0]["tool_use_id"], "c1");
        assert_eq!(b["messages"][2]["content"][1]["text"], "next");
    }

    #[test]
    fn chat_and_responses_shapes() {
        let b = chat_request("m", 100, "sys", &convo(), &[]);
        assert_eq!(b["messages"][0]["role"], "system");
        assert!(b["messages"][1]["content"][1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,"));
        assert_eq!(
            b["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{\"id\":3}"
        );
        assert_eq!(b["messages"][3]["role"], "tool");
        assert_eq!(b["messages"][4]["role"], "user");
        let r = responses_request("m", 100, "sys", &convo(), &[]);
        assert_eq!(r["input"][2]["type"], "function_call");
        assert_eq!(r["input"][3]["type"], "function_call_output");
    }

    #[test]
    fn replies_parse() {
        let a = anthropic_reply(&json!({"content": [{"type": "tool_use", "id": "t", "name": "done", "input": {"summary": "ok"}}], "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 2}})).unwrap();
        assert_eq!(
            (a.calls.len(), a.stop, a.input_tokens),
            (1, Stop::ToolUse, 5)
        );
        let c = chat_reply(&json!({"choices": [{"message": {"content": null, "refusal": "no"}, "finish_reason": "stop"}]})).unwrap();
        assert_eq!(c.stop, Stop::Refusal);
        let r = responses_reply(&json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": []})).unwrap();
        assert_eq!(r.stop, Stop::MaxTokens);
    }
}
