//! Streamable HTTP for `desktop-cli mcp --http ADDR:PORT`: loopback only unless remote
//! hosts are allowed, a bearer token on every bind and `Origin` checked as the MCP transport
//! specification requires (`crate::guard`), DNS-rebinding protection (Host checked against
//! the allowed names) from rmcp.

use super::Server;
use crate::guard::{self, notice_token, origin_allowed, refuse, same, RemoveOnDrop, TokenSource};
use desktop_core::Result;
use hyper::body::Incoming;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::convert::Infallible;
use std::sync::Arc;

pub async fn serve(server: Server, addr: &str, o: &super::Options) -> Result<()> {
    let allow_remote = o.allow_remote;
    let allowed_origins: Arc<Vec<String>> = Arc::new(o.allow_origin.clone());
    let addr = guard::listen_addr(addr, "--http", "127.0.0.1:8931", allow_remote)?;
    let loopback = addr.ip().is_loopback();
    let source = guard::token_source(
        &guard::TokenOptions {
            token: o.token.as_deref(),
            token_file: o.token_file.as_deref(),
            no_token: o.no_token,
        },
        loopback,
    )?;
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
    let listener = guard::bind(addr).await?;
    let bound = listener.local_addr().map_or(addr, |a| a);
    let mut token_file = RemoveOnDrop(None);
    let token = match source {
        TokenSource::Given(t) => Some(t),
        TokenSource::Off => None,
        TokenSource::Generated => {
            let t = guard::generate()?;
            let path = guard::write_token("mcp", bound.port(), &t)?;
            notice_token(&path);
            token_file.0 = Some(path);
            Some(t)
        }
    };
    crate::output::notice(&format!("MCP server on http://{bound}/mcp"));
    let token: Option<Arc<Vec<u8>>> = token.map(|t| Arc::new(format!("Bearer {t}").into_bytes()));
    tokio::select! {
        () = accept(listener, service, token, allowed_origins, loopback) => {}
        () = guard::stopped() => {}
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
        // A response goes out in several writes (head, event, end): with Nagle's algorithm
        // each waits for the client's delayed ACK, 40 ms a call (measured: 22.7 calls/s).
        let _ = stream.set_nodelay(true);
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
