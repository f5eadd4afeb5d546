//! Model providers behind one trait: Anthropic Messages, OpenAI Chat Completions and OpenAI
//! Responses, each turning the same conversation into its own wire format. Retries with
//! backoff on 429, 5xx and timeouts; an optional fallback model after that.

use desktop_core::{Error, ErrorCode, Result};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// One part of a user message.
#[derive(Clone, Debug)]
pub enum Part {
    Text(String),
    Image { mime: &'static str, base64: String },
}

/// A tool call the model made.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub args: Value,
}

/// The outcome of a call, sent back to the model.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub id: String,
    pub text: String,
    pub is_error: bool,
}

#[derive(Clone, Debug)]
pub enum Message {
    User(Vec<Part>),
    Assistant {
        text: Option<String>,
        calls: Vec<Call>,
    },
    /// Results of the previous assistant message's calls, with what follows (an observation).
    Results {
        outcomes: Vec<Outcome>,
        then: Vec<Part>,
    },
}

/// A tool as the model sees it: name, description, strict JSON Schema of its arguments.
#[derive(Clone, Debug)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Value,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    EndTurn,
    ToolUse,
    MaxTokens,
    Refusal,
    Other,
}

/// What the model answered.
#[derive(Clone, Debug)]
pub struct Reply {
    pub text: Option<String>,
    pub calls: Vec<Call>,
    pub stop: Stop,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub latency_ms: u64,
    pub model: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Anthropic,
    OpenAiChat,
    OpenAiResponses,
}

impl Protocol {
    pub fn parse(s: &str) -> Option<Protocol> {
        Some(match s {
            "anthropic" => Protocol::Anthropic,
            "openai" | "openai-chat" | "chat" => Protocol::OpenAiChat,
            "openai-responses" | "responses" => Protocol::OpenAiResponses,
            _ => return None,
        })
    }
}

/// A configured endpoint.
#[derive(Clone, Debug)]
pub struct Provider {
    pub protocol: Protocol,
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub fallback_model: Option<String>,
    pub max_tokens: u32,
    pub timeout: Duration,
    pub retries: u32,
}

fn provider_error(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::ActionFailed, msg)
        .suggest("Check --provider, --base-url, --model and the API key")
}

impl Provider {
    /// One model turn: the request in this protocol's format, retried on transient failures,
    /// then once more with the fallback model.
    pub fn complete(
        &self,
        system: &str,
        messages: &[Message],
        tools: &[ToolSpec],
    ) -> Result<Reply> {
        match self.complete_with(&self.model, system, messages, tools) {
            Ok(r) => Ok(r),
            Err(e) => match &self.fallback_model {
                Some(fallback) if fallback != &self.model => {
                    self.complete_with(fallback, system, messages, tools)
                }
                _ => Err(e),
            },
        }
    }

    fn complete_with(
        &self,
        model: &str,
        system: &str,
        messages: &[Message],
        tools: &[ToolSpec],
    ) -> Result<Reply> {
        let (path, body) = match self.protocol {
            Protocol::Anthropic => (
                "/v1/messages",
                anthropic_request(model, self.max_tokens, system, messages, tools),
            ),
            Protocol::OpenAiChat => (
                "/v1/chat/completions",
                chat_request(model, self.max_tokens, system, messages, tools),
            ),
            Protocol::OpenAiResponses => (
                "/v1/responses",
                responses_request(model, self.max_tokens, system, messages, tools),
            ),
        };
        // Base URLs are written both with and without the /v1 the paths carry.
        let base = self.base_url.trim_end_matches('/');
        let url = format!("{}{path}", base.strip_suffix("/v1").unwrap_or(base));
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(self.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        let mut delay = Duration::from_millis(500);
        let mut last = String::new();
        for attempt in 0..=self.retries {
            let start = Instant::now();
            let mut req = agent.post(&url).header("content-type", "application/json");
            req = match self.protocol {
                Protocol::Anthropic => {
                    let r = req.header("anthropic-version", "2023-06-01");
                    match &self.api_key {
                        Some(k) => r.header("x-api-key", k),
                        None => r,
                    }
                }
                _ => match &self.api_key {
                    Some(k) => req.header("authorization", &format!("Bearer {k}")),
                    None => req,
                },
            };
            match req.send(body.to_string()) {
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = resp
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.parse::<u64>().ok());
                    let text = resp.body_mut().read_to_string().unwrap_or_default();
                    if status == 200 {
                        let v: Value = serde_json::from_str(&text).map_err(|e| {
                            provider_error(format!("the model server sent no JSON ({e})"))
                        })?;
                        let mut reply = match self.protocol {
                            Protocol::Anthropic => anthropic_reply(&v),
                            Protocol::OpenAiChat => chat_reply(&v),
                            Protocol::OpenAiResponses => responses_reply(&v),
                        }?;
                        reply.latency_ms = start.elapsed().as_millis() as u64;
                        reply.model = model.to_string();
                        return Ok(reply);
                    }
                    last = format!(
                        "HTTP {status}: {}",
                        text.chars().take(300).collect::<String>()
                    );
                    let transient = status == 429 || status >= 500;
                    if !transient || attempt == self.retries {
                        return Err(provider_error(format!(
                            "the model server refused the request: {last}"
                        )));
                    }
                    if let Some(secs) = retry_after {
                        delay = Duration::from_secs(secs.min(30));
                    }
                }
                Err(e) => {
                    last = e.to_string();
                    if attempt == self.retries {
                        break;
                    }
                }
            }
            std::thread::sleep(delay);
            delay = (delay * 2).min(Duration::from_secs(20));
        }
        Err(Error::new(
            ErrorCode::Timeout,
            format!(
                "no answer from the model server after {} attempts: {last}",
                self.retries + 1
            ),
        )
        .suggest("Check --base-url and the network, or raise --model-timeout"))
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
