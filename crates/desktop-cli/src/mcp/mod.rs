//! `desktop-cli mcp`: every capability as MCP tools over stdio (default) or streamable HTTP.
//! stdout carries the protocol only; every diagnostic goes to stderr.

mod handler;
mod http;
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
    /// A file holding the token.
    pub token_file: Option<std::path::PathBuf>,
    /// Serve without a token (loopback only).
    pub no_token: bool,
    /// Web origins allowed besides loopback ones (on a loopback bind).
    pub allow_origin: Vec<String>,
    pub call_timeout: Duration,
    /// Tools to serve (all when empty), tools to leave out, read-only tools only.
    pub tools: Vec<String>,
    pub exclude_tools: Vec<String>,
    pub read_only: bool,
    pub output_schemas: bool,
}

/// `desktop-cli mcp`: serves until the client leaves. Over stdio, stdout belongs to the
/// protocol, so a failure goes to stderr; over HTTP it is an envelope like any command's.
pub async fn command(
    g: &crate::cli::Global,
    out: crate::output::Out,
    a: crate::cli::McpArgs,
) -> i32 {
    let stdio = a.http.is_none();
    let o = Options {
        http: a.http,
        allow_remote: a.allow_remote,
        token: a.token,
        token_file: a.token_file,
        no_token: a.no_token,
        allow_origin: a.allow_origin,
        call_timeout: Duration::from_millis(g.call_timeout.max(1)),
        tools: a.tools,
        exclude_tools: a.exclude_tools,
        read_only: a.read_only,
        output_schemas: a.output_schemas,
    };
    match run(o).await {
        Ok(()) => 0,
        Err(e) if stdio => {
            crate::output::notice(&format!("{}: {}", e.code.as_str(), e.message));
            e.code.exit_code()
        }
        Err(e) => out.err("mcp", &e),
    }
}

pub async fn run(o: Options) -> Result<()> {
    let tools = tools::select(&o.tools, &o.exclude_tools, o.read_only, o.output_schemas)?;
    let server = Server::new(o.call_timeout, tools);
    let upkeep = tokio::spawn(server.clone().upkeep());
    let served = serve(server, &o).await;
    upkeep.abort();
    served
}

async fn serve(server: Server, o: &Options) -> Result<()> {
    match &o.http {
        None => {
            let running = server
                .serve(rmcp::transport::stdio_pipes())
                .await
                .map_err(|e| {
                    Error::new(ErrorCode::Internal, format!("MCP handshake failed: {e}"))
                })?;
            running
                .waiting()
                .await
                .map_err(|e| Error::internal(e.to_string()))?;
            Ok(())
        }
        Some(addr) => http::serve(server, addr, o).await,
    }
}
