//! Private state on disk: directories only this user can enter (checked on every use, never
//! assumed from a create call that accepts what already exists) and files only this user
//! can read, written whole or not at all. A ref map decides what `click --id` touches, a
//! transcript holds screenshots of everything on screen: another local user who could
//! plant or read them could aim an agent's clicks or watch its work.

use crate::error::{Error, ErrorCode, Result};
use std::io::Write;
use std::path::Path;

/// Creates `path` (and missing parents) as a private directory, or checks the one that is
/// there: a real directory (not a symbolic link), owned by this user, closed to group and
/// others. Parents that already exist are left as they are; `path` itself must pass.
pub fn dir(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        if let Some(parent) = path.parent() {
            if !parent.as_os_str().is_empty() && !parent.exists() {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(parent)
                    .map_err(|e| io_error("cannot create", parent, &e))?;
            }
        }
        match std::fs::DirBuilder::new().mode(0o700).create(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io_error("cannot create", path, &e)),
        }
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(path).map_err(|e| io_error("cannot create", path, &e))?;
    check_dir(path)
}

/// Creates `path` and missing parents mode 700, accepting one that exists (a directory the
/// user named: theirs to choose).
pub fn make_dir(path: &Path) -> Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(path)
        .map_err(|e| io_error("cannot create", path, &e))
}

/// Checks that `path` is a private directory of this user (see [`dir`]); nothing is
/// created. A missing directory passes (there is nothing in it to trust); one of this
/// user's that others can only read is closed (mode 700).
pub fn check_dir(path: &Path) -> Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error("cannot inspect", path, &e)),
    };
    if meta.file_type().is_symlink() {
        return Err(unsafe_dir(path, "is a symbolic link"));
    }
    if !meta.is_dir() {
        return Err(unsafe_dir(path, "is not a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let me = rustix::process::geteuid().as_raw();
        if meta.uid() != me {
            return Err(unsafe_dir(
                path,
                &format!("belongs to user id {}, not to you ({me})", meta.uid()),
            ));
        }
        if meta.mode() & 0o022 != 0 {
            // Others could have put anything in it: nothing there can be trusted.
            return Err(unsafe_dir(
                path,
                &format!(
                    "is writable by other users (mode {:o}); check what is in it, then run: chmod 700 {}",
                    meta.mode() & 0o777,
                    path.display()
                ),
            ));
        }
        if meta.mode() & 0o077 != 0 {
            // Ours and closed to writers, only readable (made by an older version under
            // a 022 umask): close it.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| io_error("cannot make private", path, &e))?;
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` readable by this user alone, atomically: a new temporary file
/// (never one that exists, never through a link) renamed over the old one, in a directory
/// that [`dir`] makes or checks first.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(p) = parent {
        dir(p)?;
    }
    write_owner_only(path, bytes)
}

/// [`write`] for state that lives no longer than the desktop session (the ref map, a run's
/// status): the same atomic replace, without waiting for the disk. Nothing of it is worth
/// anything after a crash, and the wait is a third of a millisecond on every read here.
pub fn write_scratch(path: &Path, bytes: &[u8]) -> Result<()> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(p) = parent {
        dir(p)?;
    }
    replace(path, bytes, false)
}

/// [`write`] without making or checking the directory (one the user chose).
pub fn write_owner_only(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, true)
}

/// [`write_owner_only`] without waiting for the disk: what an agent run records as it goes
/// (each turn's screenshot), like its transcript's lines, which are not synced either. The
/// wait was 0.3–1.5 ms a turn here.
pub fn write_record(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, false)
}

/// Writes a new owner-only temporary file beside `path` (synced to disk when `durable`) and
/// renames it over `path`.
fn replace(path: &Path, bytes: &[u8], durable: bool) -> Result<()> {
    let name = path
        .file_name()
        .map_or_else(|| "state".into(), |n| n.to_string_lossy().into_owned());
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = path.with_file_name(format!(".{name}.{}.{stamp:x}.tmp", std::process::id()));
    let written = new_owner_only(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        if durable {
            f.sync_data()?;
        }
        Ok(())
    });
    let done = written.and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = done {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_error("cannot write", path, &e));
    }
    Ok(())
}

/// Creates the file at `path` afresh (an old one is removed first, a link is never
/// followed), readable by this user alone: a transcript.
pub fn create(path: &Path) -> Result<std::fs::File> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error("cannot replace", path, &e)),
    }
    new_owner_only(path).map_err(|e| io_error("cannot create", path, &e))
}

/// A file that did not exist (never one reached through a link), mode 600.
fn new_owner_only(path: &Path) -> std::io::Result<std::fs::File> {
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.mode(0o600);
    }
    open.open(path)
}

fn unsafe_dir(path: &Path, why: &str) -> Error {
    Error::new(
        ErrorCode::UnsafeState,
        format!("refusing to use {}: it {why}", path.display()),
    )
    .suggest(
        "Remove it (or give it to your user with mode 700), or set XDG_RUNTIME_DIR to a \
         directory only you can enter",
    )
}

fn io_error(what: &str, path: &Path, e: &std::io::Error) -> Error {
    Error::new(
        ErrorCode::UnsafeState,
        format!("{what} {}: {e}", path.display()),
    )
    .suggest("Check that the directory is yours and writable, or set XDG_RUNTIME_DIR")
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn temp(name: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!(
            "desktop-core-private-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        let _ = std::fs::remove_file(&p);
        p
    }

    #[test]
    fn creates_0700_and_writes_0600() {
        let d = temp("ok");
        dir(&d.join("a")).unwrap();
        let mode = std::fs::metadata(d.join("a")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        write(&d.join("a/refs.json"), b"{}").unwrap();
        let mode = std::fs::metadata(d.join("a/refs.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read(d.join("a/refs.json")).unwrap(), b"{}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn refuses_open_dirs_and_links() {
        let d = temp("open");
        std::fs::create_dir(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = dir(&d).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnsafeState);
        assert!(
            e.message.contains("writable by other users"),
            "{}",
            e.message
        );
        // Nothing is written into it.
        assert!(write(&d.join("refs.json"), b"{}").is_err());
        assert!(!d.join("refs.json").exists());
        // Only readable by others: closed, and used.
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        dir(&d).unwrap();
        let mode = std::fs::metadata(&d).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let link = temp("link");
        std::os::unix::fs::symlink(&d, &link).unwrap();
        let e = check_dir(&link).unwrap_err();
        assert!(e.message.contains("symbolic link"), "{}", e.message);
        std::fs::remove_file(&link).unwrap();
        std::fs::remove_dir_all(&d).unwrap();
    }
}
