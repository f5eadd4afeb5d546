//! The conversation in protocol-neutral terms, and the `Provider` that sends it over the
//! `Wire` of its protocol (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses).
//! Retries with backoff on 429, 5xx and timeouts; an optional fallback model after that.

use desktop_core::{Error, ErrorCode, Result};
use serde_json::Value;
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

pub(super) fn provider_error(msg: impl Into<String>) -> Error {
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
        let wire = super::wire::of(self.protocol);
        let path = wire.path();
        let body = wire.request(model, self.max_tokens, system, messages, tools);
        // Base URLs are written both with and without the /v1 the paths carry.
        let base = self.base_url.trim_end_matches('/');
        let url = format!("{}{path}", base.strip_suffix("/v1").unwrap_or(base));
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(self.timeout))
            .http_status_as_error(false);
        // macOS and Windows: the system's TLS and certificate store (ureq picks rustls
        // unless told).
        #[cfg(not(target_os = "linux"))]
        let config = config.tls_config(
            ureq::tls::TlsConfig::builder()
                .provider(ureq::tls::TlsProvider::NativeTls)
                .build(),
        );
        let agent: ureq::Agent = config.build().into();
        let mut delay = Duration::from_millis(500);
        let mut last = String::new();
        for attempt in 0..=self.retries {
            let start = Instant::now();
            let mut req = agent.post(&url).header("content-type", "application/json");
            for (name, value) in wire.headers(self.api_key.as_deref()) {
                req = req.header(name, &value);
            }
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
                        let mut reply = wire.reply(&v)?;
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
