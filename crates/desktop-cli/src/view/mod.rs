//! `view`: a local web page that shows the desktop live (JPEG frames made only when the
//! screen changed), every action any face performs as it happens (the activity log,
//! followed), and a Stop button that ends every agent run on this desktop before its next
//! action. Read-only otherwise: nothing here sends input to the desktop. Guarded as
//! `mcp --http` is (`crate::guard`): loopback unless allowed, a token on every request,
//! Host checked on every request and Origin on the one that changes something.
//!
//! Endpoints: `GET /` the page, `GET /frame.jpg` the latest frame, `GET /events` Server-Sent
//! Events (`data:` one activity-log line per action; `event: frame` when a new frame is
//! ready; `event: runs` when what the agent runs are doing changed), `POST /stop`.

mod frames;

use crate::guard::{self, refuse, same, TokenSource};
use bytes::Bytes;
use desktop_core::{activity, Desktop, Result};
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::{Frame as BodyFrame, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, RwLock};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;

const PAGE: &str = include_str!("page.html");
/// Events a slow viewer may fall behind by before it misses some.
const BACKLOG: usize = 256;

/// What the connections share: the latest frame and the viewers' event streams.
pub struct Shared {
    frame: RwLock<Option<frames::Frame>>,
    viewers: Mutex<Vec<mpsc::Sender<Bytes>>>,
    stop_path: PathBuf,
    /// The desktop's refs, beside which agent runs keep their status.
    refs: PathBuf,
    /// The latest `runs` event's data, for viewers that come later.
    runs: Mutex<String>,
}

impl Shared {
    /// Sends one event to every viewer; a viewer gone is forgotten, one too far behind
    /// misses it.
    fn send(&self, event: &str) {
        let bytes = Bytes::from(event.to_string());
        let mut viewers = self.viewers.lock().unwrap_or_else(|e| e.into_inner());
        viewers.retain(|v| {
            !matches!(
                v.try_send(bytes.clone()),
                Err(mpsc::error::TrySendError::Closed(_))
            )
        });
    }
}

pub async fn command(
    g: &crate::cli::Global,
    out: crate::output::Out,
    a: crate::cli::ViewArgs,
) -> i32 {
    match serve(g, &out, a).await {
        Ok(()) => 0,
        Err(e) => out.err("view", &e),
    }
}

async fn serve(
    g: &crate::cli::Global,
    out: &crate::output::Out,
    a: crate::cli::ViewArgs,
) -> Result<()> {
    let addr = guard::listen_addr(&a.listen, "--listen", "127.0.0.1:8080", a.allow_remote)?;
    let loopback = addr.ip().is_loopback();
    let token = match guard::token_source(
        &guard::TokenOptions {
            token: a.token.as_deref(),
            token_file: a.token_file.as_deref(),
            no_token: a.no_token,
        },
        loopback,
    )? {
        TokenSource::Given(t) => Some(t),
        TokenSource::Generated => Some(guard::generate()?),
        TokenSource::Off => None,
    };
    let d = crate::commands::connect(g).await?;
    let listener = guard::bind(addr).await?;
    let bound = listener.local_addr().unwrap_or(addr);
    let shared = Arc::new(Shared {
        frame: RwLock::new(None),
        viewers: Mutex::new(Vec::new()),
        stop_path: desktop_core::runs::stop_path(&d.refs_path()),
        refs: d.refs_path(),
        runs: Mutex::new(String::new()),
    });
    let host = if bound.ip().is_unspecified() {
        SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), bound.port())
    } else {
        bound
    };
    let url = match &token {
        Some(t) => format!("http://{host}/?token={t}"),
        None => format!("http://{host}/"),
    };
    frames::first(&d, &shared, a.width).await?;
    // The address first, on stdout (an envelope a script can read) and stderr (a person).
    out.ok(
        "view",
        serde_json::json!({ "url": url, "listen": bound.to_string() }),
    );
    crate::output::notice(&format!("the desktop, live: {url}"));
    let guards = Arc::new(Guards {
        token: token.map(|t| t.into_bytes()),
        bound,
    });
    tokio::select! {
        r = frames::run(&d, &shared, a.width) => r?,
        () = follow(&shared) => {}
        () = accept(listener, Arc::clone(&shared), guards) => {}
        () = guard::stopped() => {}
    }
    Ok(())
}

/// Hands every action logged from now on to the viewers, and the agent runs' status when it
/// changes (`event: runs`: what each run on the desktop is doing, `[]` when none runs).
async fn follow(shared: &Shared) {
    let mut tail = activity::dir().map(|d| activity::Tail::from_end(&d));
    let mut runs = String::new();
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        for e in tail.as_mut().map(activity::Tail::poll).unwrap_or_default() {
            if let Ok(line) = serde_json::to_string(&e) {
                shared.send(&format!("data: {line}\n\n"));
            }
        }
        let now =
            serde_json::to_string(&desktop_core::runs::statuses(&shared.refs)).unwrap_or_default();
        if now != runs {
            shared.send(&format!("event: runs\ndata: {now}\n\n"));
            *shared.runs.lock().unwrap_or_else(|e| e.into_inner()) = now.clone();
            runs = now;
        }
    }
}

struct Guards {
    /// The token as sent, without "Bearer ".
    token: Option<Vec<u8>>,
    bound: SocketAddr,
}

impl Guards {
    /// The refusal a request earns, if any.
    fn check(&self, req: &Request<Incoming>, peer: SocketAddr) -> Option<Response<Body>> {
        let headers = req.headers();
        if !guard::host_allowed(
            headers.get(http::header::HOST).map(|v| v.as_bytes()),
            self.bound,
        ) {
            return Some(refuse(
                StatusCode::FORBIDDEN,
                "this Host is not the viewer's",
            ));
        }
        match &self.token {
            Some(expected) => {
                let bearer = headers
                    .get(http::header::AUTHORIZATION)
                    .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "));
                let query = req.uri().query().and_then(|q| {
                    q.split('&')
                        .find_map(|kv| kv.strip_prefix("token="))
                        .map(str::as_bytes)
                });
                if !bearer.or(query).is_some_and(|t| same(t, expected)) {
                    return Some(refuse(StatusCode::UNAUTHORIZED, "missing or wrong token"));
                }
            }
            None if !peer.ip().is_loopback() => {
                return Some(refuse(
                    StatusCode::FORBIDDEN,
                    "only loopback viewers are served",
                ));
            }
            None => {}
        }
        // What changes something must come from the page itself, or from no page at all.
        if req.method() == Method::POST {
            let origin = headers.get(http::header::ORIGIN).map(|v| v.as_bytes());
            let own = headers
                .get(http::header::HOST)
                .and_then(|h| h.to_str().ok())
                .map(|h| format!("http://{h}"));
            let allowed = match (origin, own) {
                (None, _) => true,
                (Some(o), Some(own)) => o.eq_ignore_ascii_case(own.as_bytes()),
                (Some(_), None) => false,
            };
            if !allowed {
                return Some(refuse(
                    StatusCode::FORBIDDEN,
                    "this Origin may not stop runs",
                ));
            }
        }
        None
    }
}

type Body = BoxBody<Bytes, Infallible>;

async fn accept(listener: tokio::net::TcpListener, shared: Arc<Shared>, guards: Arc<Guards>) {
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            continue;
        };
        let shared = Arc::clone(&shared);
        let guards = Arc::clone(&guards);
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |req: Request<Incoming>| {
                let shared = Arc::clone(&shared);
                let guards = Arc::clone(&guards);
                async move {
                    if let Some(no) = guards.check(&req, peer) {
                        return Ok::<_, Infallible>(no);
                    }
                    Ok(route(&req, &shared))
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

fn route(req: &Request<Incoming>, shared: &Shared) -> Response<Body> {
    match (req.method(), req.uri().path()) {
        (&Method::GET, "/") => respond(
            "text/html; charset=utf-8",
            Bytes::from_static(PAGE.as_bytes()),
        ),
        (&Method::GET, "/frame.jpg") => {
            let frame = shared.frame.read().unwrap_or_else(|e| e.into_inner());
            match frame.as_ref() {
                Some(f) => respond("image/jpeg", f.jpeg.clone()),
                None => refuse(StatusCode::SERVICE_UNAVAILABLE, "no frame yet"),
            }
        }
        (&Method::GET, "/events") => events(shared),
        (&Method::POST, "/stop") => match desktop_core::runs::request_stop(&shared.stop_path) {
            Ok(()) => respond(
                "application/json",
                Bytes::from_static(b"{\"stopped\":true}"),
            ),
            Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.message),
        },
        (_, "/" | "/frame.jpg" | "/events" | "/stop") => {
            refuse(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
        }
        _ => refuse(StatusCode::NOT_FOUND, "not found"),
    }
}

fn respond(kind: &'static str, body: Bytes) -> Response<Body> {
    let mut r = Response::new(Full::new(body).boxed());
    let h = r.headers_mut();
    h.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(kind),
    );
    h.insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-store"),
    );
    // The page loads nothing from elsewhere and may not be framed by other sites.
    h.insert(
        http::header::CONTENT_SECURITY_POLICY,
        http::HeaderValue::from_static("default-src 'self'; img-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-ancestors 'none'"),
    );
    h.insert(
        "referrer-policy",
        http::HeaderValue::from_static("no-referrer"),
    );
    r
}

/// A viewer's event stream: the latest frame's announcement first, then what comes.
fn events(shared: &Shared) -> Response<Body> {
    let (tx, rx) = mpsc::channel(BACKLOG);
    let first = shared
        .frame
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|f| format!("retry: 1000\nevent: frame\ndata: {}\n\n", f.announce()))
        .unwrap_or_else(|| "retry: 1000\n\n".into());
    let runs = shared
        .runs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let first = if runs.is_empty() {
        first
    } else {
        format!("{first}event: runs\ndata: {runs}\n\n")
    };
    let _ = tx.try_send(Bytes::from(first));
    shared
        .viewers
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(tx);
    let mut r = Response::new(BodyExt::boxed(Stream(rx)));
    let h = r.headers_mut();
    h.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    h.insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-store"),
    );
    r
}

/// A response body fed by a channel, for as long as the viewer stays.
struct Stream(mpsc::Receiver<Bytes>);

impl hyper::body::Body for Stream {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<std::result::Result<BodyFrame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|b| b.map(|b| Ok(BodyFrame::data(b))))
    }
}
