//! Whole agent runs on the in-memory desktop: a scripted model server (OpenAI chat wire,
//! on a local port) answers each turn, and the run's effects are read back from the fake.
//! The display is a Retina one, so a click the model gives in screenshot pixels must come
//! through the screenshot's scale to the right screen point.

use super::model::{Protocol, Provider};
use super::run::{run, Options};
use super::screen;
use super::secrets::Secrets;
use super::transcript::Transcript;
use crate::Confirm;
use desktop_core::backend::Display;
use desktop_core::fake::{el, refs_file, FakeDesktop};
use desktop_core::{Node, Rect, Role, States, Target};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A model server answering turn `n` with `script(n, request body)`; every request body
/// is kept.
struct Server {
    url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

fn serve(script: impl Fn(usize, &Value) -> Value + Send + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let kept = requests.clone();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let reply = script(n, &request).to_string();
            kept.lock().unwrap().push(request);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    Server { url, requests }
}

/// A chat completion calling `calls` (name, arguments) in order.
fn calls(calls: &[(&str, Value)]) -> Value {
    let tool_calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            json!({"id": format!("c{i}"), "type": "function",
                   "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": tool_calls},
                        "finish_reason": "tool_calls"}],
           "usage": {"prompt_tokens": 100, "completion_tokens": 10}})
}

fn form() -> Vec<Node> {
    let field = |role, name, y| {
        let mut n = el(role, name, (20, y, 200, 24), vec![]);
        n.states.insert(States::EDITABLE | States::FOCUSABLE);
        n
    };
    let mut agree = el(Role::CheckBox, "Agree", (20, 120, 100, 20), vec![]);
    agree.states.insert(States::CHECKABLE);
    vec![el(
        Role::Group,
        "Sign in",
        (0, 0, 800, 600),
        vec![
            field(Role::Input, "Email", 40),
            field(Role::Password, "Password", 80),
            agree,
            el(Role::Button, "Save", (300, 400, 100, 40), vec![]),
        ],
    )]
}

fn desktop(test: &str) -> FakeDesktop {
    let d = FakeDesktop::new("demo", "Sign in", form(), refs_file(test));
    d.set_displays(vec![Display::new(Rect::new(0, 0, 1440, 900), 2.0, true)]);
    d
}

fn options(goal: &str, max_steps: u32, secrets: Secrets) -> Options {
    Options {
        goal: goal.into(),
        max_steps,
        confirm: Confirm::Never,
        allow_apps: Vec::new(),
        dry_run: false,
        plan: false,
        json_contract: false,
        screen: screen::Options {
            tree_tokens: 2000,
            bounds: false,
            screenshot: true,
            grid: false,
            pointer: false,
            page: true,
        },
        call_timeout: Duration::from_secs(2),
        secrets,
        services: services(),
    }
}

fn provider(url: &str) -> Provider {
    Provider {
        protocol: Protocol::OpenAiChat,
        base_url: url.into(),
        api_key: Some("test".into()),
        model: "scripted".into(),
        fallback_model: None,
        max_tokens: 1000,
        timeout: Duration::from_secs(10),
        retries: 0,
    }
}

/// The id the tree text of the request's last message gives the element named `name` (a
/// line `N role "name"`).
fn id_in(request: &Value, name: &str) -> u64 {
    let text = request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(Value::to_string)
        .unwrap_or_default();
    let at = text
        .find(&format!("\\\"{name}\\\""))
        .unwrap_or_else(|| panic!("{name} not in the screen text: {text}"));
    let line = text[..at].rfind("\\n").map_or(0, |i| i + 2);
    let id = text[line..at].split_whitespace().next().unwrap_or("");
    id.parse()
        .unwrap_or_else(|_| panic!("no id before {name}: {:?}", &text[line..at]))
}

/// The screenshot's size in a request (the first image part).
fn image_size(request: &Value) -> (u32, u32) {
    let text = request.to_string();
    let start = text.find("base64,").unwrap() + "base64,".len();
    let b64: String = text[start..].chars().take_while(|c| *c != '"').collect();
    let bytes = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, b64).unwrap();
    let img = image::load_from_memory(&bytes).unwrap();
    (img.width(), img.height())
}

fn transcript(test: &str) -> Transcript {
    let dir = std::env::temp_dir().join(format!("dc-agent-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Transcript::create(Some(dir)).unwrap()
}

fn block<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// A model that signs in: an email, the password by placeholder and the check box by id,
/// then Save by a point of the screenshot (its centre, in image pixels), then done.
fn sign_in_model() -> Server {
    serve(|n, req| match n {
        0 => calls(&[
            (
                "type_text",
                json!({"id": id_in(req, "Email"), "text": "ada@example.org"}),
            ),
            (
                "type_text",
                json!({"id": id_in(req, "Password"), "text": "{{secret:pw}}"}),
            ),
            ("toggle", json!({"id": id_in(req, "Agree")})),
        ]),
        1 => {
            let (w, _) = image_size(req);
            let per_unit = f64::from(w) / 800.0;
            let (x, y) = ((350.0 * per_unit).round(), (420.0 * per_unit).round());
            calls(&[("click", json!({"x": x, "y": y}))])
        }
        _ => calls(&[("done", json!({"success": true, "summary": "signed in"}))]),
    })
}

/// The element named `name` as the desktop holds it now.
fn element(d: &FakeDesktop, name: &str) -> Node {
    let mut v = None;
    d.mutate(|t| {
        t[0].walk(&mut |x| {
            if x.name == name {
                v = Some(x.clone())
            }
        })
    });
    v.unwrap_or_else(|| panic!("no element {name}"))
}

#[test]
fn a_whole_run_lands_every_step_and_keeps_the_secret() {
    std::env::set_var("DC_AGENT_RUN_PW", "s3cret-Pass!");
    let secrets = Secrets::parse(&["pw=env:DC_AGENT_RUN_PW".into()], &[]).unwrap();
    let server = sign_in_model();
    let d = desktop("agent-run");
    let target = Target {
        app: Some("demo".into()),
        ..Target::default()
    };
    let o = options("Sign in", 10, secrets);
    let data = block(run(&d, provider(&server.url), o, target, transcript("run"))).unwrap();
    let _ = std::fs::remove_dir_all(data.transcript.clone().unwrap_or_default());
    assert!(data.success, "{data:?}");
    assert_eq!(data.stop, "done", "{data:?}");
    // Each step landed where the model aimed: read back from the desktop.
    let value = |name: &str| element(&d, name);
    assert_eq!(value("Email").value.as_deref(), Some("ada@example.org"));
    assert!(value("Agree").states.contains(States::CHECKED));
    let inputs = d.inputs();
    assert!(
        inputs.iter().any(|i| i.contains("s3cret-Pass!")),
        "{inputs:?}"
    );
    // The click at the screenshot's point reached the screen point of Save's centre.
    assert!(inputs.iter().any(|i| i == "click 350,420"), "{inputs:?}");
    // The secret never went to the model, in any request.
    let requests = server.requests.lock().unwrap();
    assert_eq!(requests.len(), 3);
    for r in requests.iter() {
        assert!(
            !r.to_string().contains("s3cret-Pass!"),
            "the password reached the model"
        );
    }
}

#[test]
fn a_replay_finds_the_steps_again_after_the_ids_moved() {
    std::env::set_var("DC_AGENT_REPLAY_PW", "r3play-Pass!");
    let secrets = || Secrets::parse(&["pw=env:DC_AGENT_REPLAY_PW".into()], &[]).unwrap();
    let server = sign_in_model();
    let first = desktop("agent-replay-first");
    let o = options("Sign in", 10, secrets());
    let data = block(run(
        &first,
        provider(&server.url),
        o,
        Target::default(),
        transcript("replay"),
    ))
    .unwrap();
    let dir = std::path::PathBuf::from(data.transcript.clone().unwrap());
    assert!(data.success, "{data:?}");
    // The same form with a link above it: every id the model used now names another element.
    let d = desktop("agent-replay-again");
    d.mutate(|t| {
        let link = el(Role::Link, "Help", (20, 10, 60, 20), vec![]);
        t[0].children.insert(0, link);
    });
    let o = super::replay::Options {
        confirm: Confirm::Never,
        allow_apps: Vec::new(),
        dry_run: false,
        call_timeout: Duration::from_secs(2),
        secrets: secrets(),
        clipboard: services().clipboard,
    };
    let replayed = block(super::replay::run(&d, &dir, o)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(replayed.success, "{replayed:?}");
    assert_eq!(replayed.steps.len(), 4, "{replayed:?}");
    assert_eq!(
        element(&d, "Email").value.as_deref(),
        Some("ada@example.org")
    );
    assert!(element(&d, "Agree").states.contains(States::CHECKED));
    let inputs = d.inputs();
    assert!(
        inputs.iter().any(|i| i.contains("r3play-Pass!")),
        "{inputs:?}"
    );
    assert!(inputs.iter().any(|i| i == "click 350,420"), "{inputs:?}");
    assert!(
        !format!("{replayed:?}").contains("r3play-Pass!"),
        "the secret is in the replay's answer"
    );
}

#[test]
fn max_steps_ends_a_run_that_never_finishes() {
    let server = serve(|_, req| calls(&[("toggle", json!({"id": id_in(req, "Agree")}))]));
    let d = desktop("agent-max-steps");
    let o = options("Toggle forever", 3, Secrets::default());
    let data = block(run(
        &d,
        provider(&server.url),
        o,
        Target::default(),
        transcript("max"),
    ))
    .unwrap();
    let _ = std::fs::remove_dir_all(data.transcript.clone().unwrap_or_default());
    assert!(!data.success, "{data:?}");
    assert_eq!(data.stop, "max_steps", "{data:?}");
    assert_eq!(d.inputs().len(), 3, "{:?}", d.inputs());
}

/// `ask` on the fake desktop: a point the model gives in the Retina screenshot's pixels
/// comes out as the screen point under it; an id the tree lacks is refused; nothing acts.
#[test]
fn ask_maps_a_point_and_refuses_a_ghost_id() {
    let server = serve(|n, req| {
        let args = match n {
            0 => {
                let (w, _) = image_size(req);
                let per_unit = f64::from(w) / 800.0;
                json!({"found": true, "id": null, "x": 350.0 * per_unit, "y": 420.0 * per_unit, "space": "image", "note": "Save"})
            }
            _ => {
                json!({"found": true, "id": 999, "x": null, "y": null, "space": null, "note": null})
            }
        };
        calls(&[("answer", args)])
    });
    let d = desktop("agent-ask");
    let config = std::env::temp_dir().join(format!("dc-ask-{}.toml", std::process::id()));
    std::fs::write(&config, "").unwrap();
    let request = || crate::AskRequest {
        question: crate::Question::Locate("the Save button".into()),
        start: Target::default(),
        choices: crate::Choices {
            provider: Some("openai".into()),
            base_url: Some(server.url.clone()),
            config: Some(config.clone()),
            ..crate::Choices::default()
        },
        look: crate::Look {
            no_screenshot: false,
            tree_bounds: false,
            tree_tokens: 2000,
            grid: false,
            browser_controls: false,
        },
        transcript: None,
        secrets: Vec::new(),
        secret_fields: Vec::new(),
        call_timeout: Duration::from_secs(2),
    };
    let ask = || {
        let settings = crate::config::resolve(&request().choices).unwrap();
        let started = std::time::Instant::now();
        block(crate::ask::ask_on(
            &d,
            request(),
            settings,
            services(),
            started,
        ))
    };
    let answer = ask().unwrap();
    let p = answer.point.clone().expect("a point");
    // Retina pixels, shrunk to the vision models' size: more than one pixel a unit still.
    assert_eq!((p.x, p.y), (350, 420), "{answer:?}");
    assert!(p.scale > 1.0 && p.scale < 2.0, "{answer:?}");
    assert!(answer.element.is_none() && answer.found == Some(true));
    let e = ask().unwrap_err();
    assert_eq!(e.code, desktop_core::ErrorCode::ElementNotFound, "{e:?}");
    let _ = std::fs::remove_file(&config);
    assert!(d.inputs().is_empty(), "{:?}", d.inputs());
}

/// The clipboard of a test: text held in memory.
#[derive(Default)]
pub(crate) struct MemClipboard(std::sync::Mutex<Option<String>>);

impl desktop_core::system::Clipboard for MemClipboard {
    fn get(&self, _: Duration) -> desktop_core::Result<Option<String>> {
        Ok(self.0.lock().unwrap().clone())
    }
    fn set(&self, text: &str, _: Duration) -> desktop_core::Result<()> {
        *self.0.lock().unwrap() = Some(text.to_string());
        Ok(())
    }
    fn clear(&self) -> desktop_core::Result<()> {
        *self.0.lock().unwrap() = None;
        Ok(())
    }
}

pub(crate) fn services() -> crate::Services {
    crate::Services {
        clipboard: std::sync::Arc::new(MemClipboard::default()),
        platform: "test",
    }
}
