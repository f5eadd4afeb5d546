//! `desktop-cli mcp`: every capability as MCP tools over stdio (default) or streamable HTTP.
//! stdout carries the protocol only; every diagnostic goes to stderr.

mod handler;
mod http;
mod params;
mod requests;
mod tools;

use desktop_core::{Error, ErrorCode, Result};
use rmcp::ServiceExt;
use std::time::Duration;

pub use handler::Server;

/// How to serve.
#[derive(Debug, Clone)]
pub struct Options {
    pub http: Option<String>,
    pub allow_remote: bool,
    pub token: Option<String>,
    pub call_timeout: Duration,
}

pub async fn run(o: Options) -> Result<()> {
    let server = Server::new(o.call_timeout);
    match &o.http {
        None => {
            let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| {
                Error::new(ErrorCode::Internal, format!("MCP handshake failed: {e}"))
            })?;
            running
                .waiting()
                .await
                .map_err(|e| Error::internal(e.to_string()))?;
            Ok(())
        }
        Some(addr) => http::serve(server, addr, o.allow_remote, o.token.clone()).await,
    }
}
