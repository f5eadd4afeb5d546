//! Streamable HTTP for `desktop-cli mcp --http ADDR:PORT`: loopback only unless remote
//! hosts are allowed, a bearer token required for them, DNS-rebinding protection (Host
//! checked against the allowed names) from rmcp, and `Origin` checked as the MCP transport
//! specification requires: a web page the user visits must not drive the desktop.

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

pub async fn serve(server: Server, addr: &str, o: &super::Options) -> Result<()> {
    let (allow_remote, token) = (o.allow_remote, o.token.clone());
    let allowed_origins: Arc<Vec<String>> = Arc::new(o.allow_origin.clone());
    let addr: SocketAddr = addr.parse().map_err(|_| {
        Error::invalid_args(format!("--http `{addr}` is not ADDR:PORT"))
            .suggest("Example: --http 127.0.0.1:8931")
    })?;
    let loopback = addr.ip().is_loopback();
    if !loopback && !allow_remote {
        return Err(
            Error::invalid_args(format!("{addr} is not a loopback address")).suggest(
                "Serve on 127.0.0.1, or pass --allow-remote with --token to accept other hosts",
            ),
        );
    }
    if !loopback && token.as_deref().is_none_or(str::is_empty) {
        return Err(Error::invalid_args("serving beyond loopback needs a bearer token")
            .suggest("Pass --token TOKEN (or set DESKTOP_CLI_MCP_TOKEN); clients send Authorization: Bearer TOKEN"));
    }
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
    crate::output::notice(&format!(
        "MCP server on http://{}/mcp",
        listener.local_addr().map_or(addr, |a| a)
    ));
    let token: Option<Arc<Vec<u8>>> = token
        .filter(|t| !t.is_empty())
        .map(|t| Arc::new(format!("Bearer {t}").into_bytes()));
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
                    // Off loopback the token is required; when one is set it is checked for all.
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
    use super::origin_allowed;

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
