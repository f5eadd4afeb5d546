//! The envelope around every command's output (decision 1 of the brief).
//!
//! Success: `{"version":"1","ok":true,"command":"read","data":{..}}`.
//! Failure: `{"version":"1","ok":false,"command":"click","error":{"code":"STALE_REF",
//! "message":"..","suggestion":".."}}`.

use crate::error::Error;
use serde::Serialize;

pub const VERSION: &str = "1";

#[derive(Debug, Serialize)]
pub struct Envelope<'a, T: Serialize> {
    pub version: &'static str,
    pub ok: bool,
    pub command: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<T>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a Error>,
}

impl<'a, T: Serialize> Envelope<'a, T> {
    pub fn ok(command: &'a str, data: T) -> Self {
        Self {
            version: VERSION,
            ok: true,
            command,
            data: Some(data),
            error: None,
        }
    }
}

impl<'a> Envelope<'a, ()> {
    pub fn err(command: &'a str, error: &'a Error) -> Self {
        Self {
            version: VERSION,
            ok: false,
            command,
            data: None,
            error: Some(error),
        }
    }
}
