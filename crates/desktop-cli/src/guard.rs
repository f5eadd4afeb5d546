//! What every HTTP face of desktop-cli (`mcp --http`, `view`) checks before it serves a
//! request: a bearer token (given, read from a file, or generated into a file only this
//! user can read: any local user can reach a loopback port), the `Origin` (a web page the
//! user visits must not reach the desktop) and the `Host` (DNS rebinding).

use bytes::Bytes;
use desktop_core::{Error, Result};
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::{Response, StatusCode};
use std::convert::Infallible;
use std::path::{Path, PathBuf};

/// How a face's options name its token.
pub struct TokenOptions<'a> {
    pub token: Option<&'a str>,
    pub token_file: Option<&'a Path>,
    pub no_token: bool,
}

pub fn refuse(status: StatusCode, msg: &str) -> Response<BoxBody<Bytes, Infallible>> {
    let mut r = Response::new(Full::new(Bytes::from(msg.to_string())).boxed());
    *r.status_mut() = status;
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut()
            .insert("www-authenticate", http::HeaderValue::from_static("Bearer"));
    }
    r
}

/// Constant-time comparison, so the token cannot be guessed byte by byte from timings.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether a request's `Origin` may reach the server: none (not a browser), one on the
/// allow-list, or, on a loopback bind, a loopback origin (`http://localhost:3000`).
pub fn origin_allowed(origin: Option<&[u8]>, loopback_bind: bool, allowed: &[String]) -> bool {
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
pub enum TokenSource {
    Given(String),
    Generated,
    Off,
}

/// The token as the options give it: `--token`, `--token-file`, none (`--no-token`, loopback
/// only) or one to generate.
pub fn token_source(o: &TokenOptions, loopback: bool) -> Result<TokenSource> {
    if o.no_token {
        if !loopback {
            return Err(Error::invalid_args("--no-token is for loopback binds only")
                .suggest("Serve on 127.0.0.1, or drop --no-token: clients then send the token"));
        }
        return Ok(TokenSource::Off);
    }
    if let Some(path) = o.token_file {
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
    match o.token.map(str::trim) {
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
pub fn generate() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::internal(format!("no randomness for a token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes a generated token where only this user can read it: `FACE-PORT.token` in the
/// runtime directory.
pub fn write_token(face: &str, port: u16, token: &str) -> Result<PathBuf> {
    let path = desktop_core::System::state_dir(&crate::platform::SYSTEM)
        .join(format!("{face}-{port}.token"));
    desktop_core::private::write(&path, format!("{token}\n").as_bytes())?;
    Ok(path)
}

/// Resolves when the process is asked to stop (Ctrl+C, SIGTERM), so the token file goes too.
pub async fn stopped() {
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

pub struct RemoveOnDrop(pub Option<PathBuf>);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

pub fn notice_token(path: &Path) {
    crate::output::notice(&format!(
        "bearer token in {} (clients send Authorization: Bearer <its content>)",
        path.display()
    ));
}

/// The address a face serves on, from its option (`flag`, shown with `example` when it does
/// not parse): loopback only unless remote hosts are allowed.
pub fn listen_addr(
    text: &str,
    flag: &str,
    example: &str,
    allow_remote: bool,
) -> Result<std::net::SocketAddr> {
    let addr: std::net::SocketAddr = text.parse().map_err(|_| {
        Error::invalid_args(format!("{flag} `{text}` is not ADDR:PORT"))
            .suggest(format!("Example: {flag} {example}"))
    })?;
    if !addr.ip().is_loopback() && !allow_remote {
        return Err(
            Error::invalid_args(format!("{addr} is not a loopback address"))
                .suggest("Serve on 127.0.0.1, or pass --allow-remote to accept other hosts"),
        );
    }
    Ok(addr)
}

/// Listens on `addr`.
pub async fn bind(addr: std::net::SocketAddr) -> Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        Error::new(
            desktop_core::ErrorCode::PermDenied,
            format!("cannot listen on {addr}: {e}"),
        )
        .suggest("Pick a free port")
    })
}

/// Whether a request's `Host` names this server: on a loopback bind, a loopback name with
/// any port; otherwise the bind address itself, or any name when bound to all interfaces
/// (the token guards those). A page on a foreign name that resolves here is refused.
pub fn host_allowed(host: Option<&[u8]>, bound: std::net::SocketAddr) -> bool {
    let Some(host) = host.and_then(|h| std::str::from_utf8(h).ok()) else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.split(':').next().unwrap_or(""),
    };
    if bound.ip().is_loopback() {
        return name.eq_ignore_ascii_case("localhost")
            || name
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
    }
    bound.ip().is_unspecified()
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip == bound.ip())
}

#[cfg(test)]
mod tests {
    use super::{host_allowed, origin_allowed, token_source, TokenOptions, TokenSource};

    fn options(token: Option<&str>, no_token: bool) -> TokenOptions<'_> {
        TokenOptions {
            token,
            token_file: None,
            no_token,
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

    #[test]
    fn hosts() {
        let lo: std::net::SocketAddr = "127.0.0.1:8080".parse().unwrap();
        assert!(host_allowed(Some(b"127.0.0.1:8080"), lo));
        assert!(host_allowed(Some(b"localhost:8080"), lo));
        assert!(host_allowed(Some(b"[::1]:8080"), lo));
        assert!(!host_allowed(Some(b"evil.example:8080"), lo));
        assert!(!host_allowed(Some(b"localhost.evil.example"), lo));
        assert!(!host_allowed(None, lo));
        let lan: std::net::SocketAddr = "192.168.1.5:80".parse().unwrap();
        assert!(host_allowed(Some(b"192.168.1.5"), lan));
        assert!(!host_allowed(Some(b"evil.example"), lan));
        let any: std::net::SocketAddr = "0.0.0.0:80".parse().unwrap();
        assert!(host_allowed(Some(b"anything.example"), any));
    }
}
