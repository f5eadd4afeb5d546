//! desktop-cli's tool vocabulary, written once: each tool's parameters as typed structs
//! (serde reads a call, schemars writes the JSON Schema a host or model reads, field docs
//! being the descriptions), and their conversion into the core's requests. The MCP server
//! serves [`params`]; the agent offers [`agent`], the same kinds of parameters shaped for a
//! model that works in one window and points in screenshot pixels.

pub mod agent;
pub mod ask;
pub mod params;
mod requests;
pub mod schema;
