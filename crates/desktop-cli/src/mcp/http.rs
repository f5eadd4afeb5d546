//! Streamable HTTP for `desktop-cli mcp --http ADDR:PORT`: loopback only unless remote
//! hosts are allowed, a bearer token on every bind (given, read from a file, or generated
//! into a file only this user can read: any local user can reach a loopback port), DNS-
//! rebinding protection (Host checked against the allowed names) from rmcp, and `Origin`
//! checked as the MCP transport specification requires: a web page the user visits must not
//! drive the desktop.

use super::Server;
use bytes::Bytes;
use desktop_core::{Error, ErrorCode, Result};
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn refuse(status: StatusCode, msg: &str) -> Response<BoxBody<Bytes, Infallible>> {
    let mut r = Response::new(Full::new(Bytes::from(msg.to_string())).boxed());
    *r.status_mut() = status;
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut()
            .insert("www-authenticate", http::HeaderValue::from_static("Bearer"));
    }
    r
}

/// Constant-time comparison, so the token cannot be guessed byte by byte from timings.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether a request's `Origin` may reach the server: none (not a browser), one on the
/// allow-list, or, on a loopback bind, a loopback origin (`http://localhost:3000`).
fn origin_allowed(origin: Option<&[u8]>, loopback_bind: bool, allowed: &[String]) -> bool {
    let Some(origin) = origin else {
        return true;
    };
    let Ok(origin) = std::str::from_utf8(origin) else {
        return false;
    };
    let origin = origin.trim().trim_end_matches('/');
    if allowed
        .iter()
        .any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(origin))
    {
        return true;
    }
    if !loopback_bind {
        return false;
    }
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "http" | "https") {
        return false;
    }
    // Host without the port; an IPv6 literal is in brackets.
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => rest.split(':').next().unwrap_or(""),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Where the token clients must send comes from.
enum TokenSource {
    Given(String),
    Generated,
    Off,
}

/// The token as the options give it: `--token`, `--token-file`, none (`--no-token`, loopback
/// only) or one to generate.
fn token_source(o: &super::Options, loopback: bool) -> Result<TokenSource> {
    if o.no_token {
        if !loopback {
            return Err(Error::invalid_args("--no-token is for loopback binds only")
                .suggest("Serve on 127.0.0.1, or drop --no-token: clients then send the token"));
        }
        return Ok(TokenSource::Off);
    }
    if let Some(path) = &o.token_file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::invalid_args(format!("cannot read --token-file {}: {e}", path.display()))
                .suggest("Give a file holding the token on one line")
        })?;
        let t = text.trim();
        if t.is_empty() || t.chars().any(char::is_whitespace) {
            return Err(Error::invalid_args(format!(
                "--token-file {} holds no token (one word on one line)",
                path.display()
            ))
            .suggest("Write a token of at least 16 characters into the file"));
        }
        return checked(t);
    }
    match o.token.as_deref().map(str::trim) {
        Some("") | None => Ok(TokenSource::Generated),
        Some(t) => checked(t),
    }
}

/// A token a client can send in a header, long enough not to be guessed.
fn checked(t: &str) -> Result<TokenSource> {
    if t.len() < 16 || !t.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Error::invalid_args(
            "the bearer token must be at least 16 printable characters without spaces",
        )
        .suggest("Generate one: openssl rand -hex 32"));
    }
    Ok(TokenSource::Given(t.to_string()))
}

/// 256 random bits as hex.
fn generate() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::internal(format!("no randomness for a token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes a generated token where only this user can read it: `mcp-PORT.token` in the
/// runtime directory.
fn write_token(port: u16, token: &str) -> Result<PathBuf> {
    let path =
        desktop_core::System::state_dir(&crate::platform::SYSTEM).join(format!("mcp-{port}.token"));
    desktop_core::private::write(&path, format!("{token}\n").as_bytes())?;
    Ok(path)
}

/// Resolves when the process is asked to stop (Ctrl+C, SIGTERM), so the token file goes too.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

struct RemoveOnDrop(Option<PathBuf>);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn notice_token(path: &Path) {
    crate::output::notice(&format!(
        "bearer token in {} (clients send Authorization: Bearer <its content>)",
        path.display()
    ));
}

pub async fn serve(server: Server, addr: &str, o: &super::Options) -> Result<()> {
    let allow_remote = o.allow_remote;
    let allowed_origins: Arc<Vec<String>> = Arc::new(o.allow_origin.clone());
    let addr: SocketAddr = addr.parse().map_err(|_| {
        Error::invalid_args(format!("--http `{addr}` is not ADDR:PORT"))
            .suggest("Example: --http 127.0.0.1:8931")
    })?;
    let loopback = addr.ip().is_loopback();
    if !loopback && !allow_remote {
        return Err(
            Error::invalid_args(format!("{addr} is not a loopback address"))
                .suggest("Serve on 127.0.0.1, or pass --allow-remote to accept other hosts"),
        );
    }
    let source = token_source(o, loopback)?;
    let mut config = StreamableHttpServerConfig::default();
    if !loopback {
        // The Host header must name this server: the bind address, or any name when bound
        // to all interfaces (the token guards those).
        config.allowed_hosts = if addr.ip().is_unspecified() {
            Vec::new()
        } else {
            vec![addr.ip().to_string(), addr.to_string()]
        };
    }
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        LocalSessionManager::default().into(),
        config,
    );
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        Error::new(
            ErrorCode::PermDenied,
            format!("cannot listen on {addr}: {e}"),
        )
        .suggest("Pick a free port")
    })?;
    let bound = listener.local_addr().map_or(addr, |a| a);
    let mut token_file = RemoveOnDrop(None);
    let token = match source {
        TokenSource::Given(t) => Some(t),
        TokenSource::Off => None,
        TokenSource::Generated => {
            let t = generate()?;
            let path = write_token(bound.port(), &t)?;
            notice_token(&path);
            token_file.0 = Some(path);
            Some(t)
        }
    };
    crate::output::notice(&format!("MCP server on http://{bound}/mcp"));
    let token: Option<Arc<Vec<u8>>> = token.map(|t| Arc::new(format!("Bearer {t}").into_bytes()));
    tokio::select! {
        () = accept(listener, service, token, allowed_origins, loopback) => {}
        () = stopped() => {}
    }
    drop(token_file);
    Ok(())
}

type Service = StreamableHttpService<Server, LocalSessionManager>;

/// Serves connections until the process stops.
async fn accept(
    listener: tokio::net::TcpListener,
    service: Service,
    token: Option<Arc<Vec<u8>>>,
    allowed_origins: Arc<Vec<String>>,
    loopback: bool,
) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(_) => continue,
        };
        let service = service.clone();
        let token = token.clone();
        let origins = Arc::clone(&allowed_origins);
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |req: Request<Incoming>| {
                let mut service = service.clone();
                let token = token.clone();
                let origins = Arc::clone(&origins);
                async move {
                    let origin = req
                        .headers()
                        .get(http::header::ORIGIN)
                        .map(|v| v.as_bytes());
                    if !origin_allowed(origin, loopback, &origins) {
                        return Ok::<_, Infallible>(refuse(
                            StatusCode::FORBIDDEN,
                            "this Origin may not use the server (see --allow-origin)",
                        ));
                    }
                    // A token is checked for every client; without one (--no-token, loopback
                    // binds only) only loopback clients are served.
                    if let Some(expected) = &token {
                        let given = req
                            .headers()
                            .get(http::header::AUTHORIZATION)
                            .map(|v| v.as_bytes())
                            .unwrap_or_default();
                        if !same(given, expected) {
                            return Ok::<_, Infallible>(refuse(
                                StatusCode::UNAUTHORIZED,
                                "missing or wrong bearer token",
                            ));
                        }
                    } else if !peer.ip().is_loopback() {
                        return Ok(refuse(
                            StatusCode::FORBIDDEN,
                            "only loopback clients are served",
                        ));
                    }
                    tower_service::Service::call(&mut service, req).await
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{origin_allowed, token_source, TokenSource};

    fn options(token: Option<&str>, no_token: bool) -> super::super::Options {
        super::super::Options {
            http: Some("127.0.0.1:0".into()),
            allow_remote: false,
            token: token.map(str::to_string),
            token_file: None,
            no_token,
            allow_origin: Vec::new(),
            call_timeout: std::time::Duration::from_secs(1),
            tools: Vec::new(),
            exclude_tools: Vec::new(),
            read_only: false,
            output_schemas: false,
        }
    }

    #[test]
    fn tokens() {
        let t = |o, loopback| token_source(&o, loopback);
        assert!(matches!(
            t(options(None, false), true),
            Ok(TokenSource::Generated)
        ));
        assert!(matches!(
            t(options(Some(" "), false), false),
            Ok(TokenSource::Generated)
        ));
        assert!(matches!(t(options(None, true), true), Ok(TokenSource::Off)));
        assert!(
            t(options(None, true), false).is_err(),
            "--no-token off loopback"
        );
        assert!(t(options(Some("short"), false), true).is_err());
        assert!(t(options(Some("has a space in it, sixteen+"), false), true).is_err());
        let long = "0123456789abcdef0123";
        assert!(
            matches!(t(options(Some(long), false), true), Ok(TokenSource::Given(g)) if g == long)
        );
        let a = super::generate().unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, super::generate().unwrap());
    }

    #[test]
    fn origins() {
        let none: &[String] = &[];
        assert!(origin_allowed(None, true, none));
        assert!(origin_allowed(Some(b"http://localhost:3000"), true, none));
        assert!(origin_allowed(Some(b"http://127.0.0.1"), true, none));
        assert!(origin_allowed(Some(b"http://[::1]:8080"), true, none));
        assert!(!origin_allowed(Some(b"http://evil.example"), true, none));
        assert!(!origin_allowed(
            Some(b"http://localhost.evil.example"),
            true,
            none
        ));
        assert!(!origin_allowed(Some(b"null"), true, none));
        assert!(!origin_allowed(Some(b"http://localhost"), false, none));
        let allowed = vec!["https://app.example".to_string()];
        assert!(origin_allowed(
            Some(b"https://app.example"),
            false,
            &allowed
        ));
        assert!(!origin_allowed(
            Some(b"https://app.example.evil"),
            false,
            &allowed
        ));
    }
}
