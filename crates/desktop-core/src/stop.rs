//! A request to stop, made by a signal to a process acting by itself: input that goes out
//! key by key (typing) ends at the next key, never between a key's press and its release,
//! and the caller then releases what is still held and answers. Set from a signal handler,
//! so it is one atomic flag and nothing else.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks the input under way to stop at its next key (async-signal-safe).
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// The error input returns when it stopped early: what went out stays typed.
pub fn interrupted() -> crate::Error {
    crate::Error::new(
        crate::ErrorCode::ActionFailed,
        "the action was interrupted (a signal asked this process to stop) and may have been done in part",
    )
    .suggest("Read the window to see what was done before trying again")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_request_is_seen_and_explained() {
        assert!(!super::requested());
        super::request();
        assert!(super::requested());
        let e = super::interrupted();
        assert_eq!(e.code, crate::ErrorCode::ActionFailed);
        assert!(e.message.contains("in part"));
    }
}
