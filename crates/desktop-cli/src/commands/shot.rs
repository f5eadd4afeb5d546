//! `screenshot`: capture, optionally mark elements and draw a grid, encode, and either
//! write the file atomically or return base64 in the envelope.

use crate::output::notice;
use base64::Engine;
use desktop_core::screenshot::{self, ShotInfo};
use desktop_core::watch::ShotRequest;
use desktop_core::{Desktop, Error, ErrorCode, Result};
use serde::Serialize;
use std::path::Path;

/// A file that could not be written: `PERM_DENIED` when the system refused, else `ACTION_FAILED`.
fn io_err(what: &str, path: &Path, e: std::io::Error) -> Error {
    let code = if e.kind() == std::io::ErrorKind::PermissionDenied {
        ErrorCode::PermDenied
    } else {
        ErrorCode::ActionFailed
    };
    Error::new(code, format!("{what} {}: {e}", path.display()))
        .suggest("Choose a path in a directory you can write to")
}

/// Fails before anything is captured when the image could not be written there.
fn check_writable(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(Error::invalid_args(format!(
            "{} does not exist (the directory of --output {})",
            dir.display(),
            path.display()
        ))
        .suggest("Create the directory first, or write the image somewhere that exists"));
    }
    if path.is_dir() {
        return Err(
            Error::invalid_args(format!("{} is a directory", path.display()))
                .suggest("Give a file name, e.g. shot.png"),
        );
    }
    let probe = dir.join(format!(".desktop-cli-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| io_err("cannot write to", path, e))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes via a temporary file in the same directory, renamed into place: never half an image.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_file_name(format!(
        ".{}.tmp-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("shot"),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).map_err(|e| io_err("cannot write", &tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err("cannot move the image to", path, e)
    })
}

/// What `screenshot` answers: the image's description, and where the image went.
#[derive(Debug, Serialize)]
pub struct Written {
    #[serde(flatten)]
    pub info: ShotInfo,
    /// The file written (`--output`), as an absolute path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The image itself, without `--output`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
}

pub async fn run<D: Desktop>(d: &D, a: &ShotRequest, output: Option<&Path>) -> Result<Written> {
    if let Some(p) = output {
        check_writable(p)?;
    }
    let shot = screenshot::take(d, a, None).await?;
    if let Some(w) = &shot.warning {
        notice(w);
    }
    let mut written = Written {
        info: shot.info,
        path: None,
        base64: None,
    };
    match output {
        Some(p) => {
            write_atomic(p, &shot.bytes)?;
            // Absolute, whichever process wrote it (the keeper is given it so); a path need
            // not be UTF-8, and the envelope shows it readably.
            let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
            written.path = Some(p.to_string_lossy().into_owned());
        }
        None => {
            written.base64 = Some(base64::engine::general_purpose::STANDARD.encode(&shot.bytes))
        }
    }
    Ok(written)
}
