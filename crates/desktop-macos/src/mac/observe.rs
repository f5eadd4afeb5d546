//! Change notices from AX observers: one thread per watched app runs its own run loop with
//! an `AXObserver` on the app element, and each notification it delivers (a value, a title,
//! children created or destroyed, the focus, the layout) becomes a [`Change`] of the
//! watched window. `observe` then reads on notices instead of on its interval; an app that
//! sends none is still read on the interval.
#![allow(unsafe_code)]

use super::ax;
use desktop_core::backend::{Change, Changes};
use desktop_core::Handle;
use objc2_application_services::{AXError, AXObserver, AXUIElement};
use objc2_core_foundation::{kCFRunLoopDefaultMode, CFRetained, CFRunLoop, CFString};
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc::{channel, Receiver, Sender};

/// What is watched for: what changes a tree's content or its state.
const NOTICES: [&str; 10] = [
    "AXValueChanged",
    "AXTitleChanged",
    "AXUIElementDestroyed",
    "AXCreated",
    "AXFocusedUIElementChanged",
    "AXSelectedChildrenChanged",
    "AXSelectedRowsChanged",
    "AXRowCountChanged",
    "AXLayoutChanged",
    "AXMenuOpened",
];

/// Notices waiting to be taken. Every notice says the same ("the watched window changed":
/// one handle, children changed), and any one waiting prompts a read that sees everything
/// the others would have: so when this many wait, a new one is dropped, and a chatty app
/// (a progress bar, a ticking clock) costs at most this much memory however long `observe`
/// takes to read. More than one leaves room for the notices of a burst to land while
/// `observe` is reading.
const WAITING: usize = 32;

/// The notices of one window's app, until dropped.
pub struct MacChanges {
    rx: Receiver<Change>,
    stop: Arc<AtomicBool>,
}

impl Drop for MacChanges {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Changes for MacChanges {
    async fn next(&mut self) -> Option<Change> {
        self.rx.recv().await
    }
    fn try_next(&mut self) -> Option<Change> {
        self.rx.try_recv().ok()
    }
}

/// What the callback needs: where to send, and which window the notices stand for.
struct Sink {
    tx: Sender<Change>,
    window: Handle,
}

unsafe extern "C-unwind" fn on_notice(
    _observer: NonNull<AXObserver>,
    _element: NonNull<AXUIElement>,
    _notice: NonNull<CFString>,
    refcon: *mut c_void,
) {
    // SAFETY: `refcon` is the `Sink` the watching thread owns for as long as its run loop
    // (the only caller of this function) runs.
    let sink = unsafe { &*(refcon as *const Sink) };
    // Never blocks the app's notices: full means a read is due anyway (see WAITING), and
    // closed means nobody watches any more (the run loop stops on its next turn).
    let _ = sink.tx.try_send(Change {
        handle: sink.window.clone(),
        children: true,
    });
}

/// Starts watching the app `pid` for the window `window`; `None` when the app takes no
/// observer (then `observe` reads on its interval).
pub fn watch(pid: u32, window: Handle) -> Option<MacChanges> {
    let (tx, rx) = channel(WAITING);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let halt = stop.clone();
    std::thread::Builder::new()
        .name(format!("ax-observer-{pid}"))
        .spawn(move || {
            let sink = Box::new(Sink { tx, window });
            let refcon = &*sink as *const Sink as *mut c_void;
            let mut raw: *mut AXObserver = std::ptr::null_mut();
            // SAFETY: `raw` receives a +1 observer or stays null.
            let made =
                unsafe { AXObserver::create(pid as i32, Some(on_notice), NonNull::from(&mut raw)) };
            let Some(raw) = NonNull::new(raw).filter(|_| made == AXError::Success) else {
                let _ = ready_tx.send(false);
                return;
            };
            // SAFETY: created +1 above: we own it.
            let observer = unsafe { CFRetained::from_raw(raw) };
            let app = ax::app(pid as i32, 1.0);
            let mut any = false;
            for notice in NOTICES {
                // SAFETY: a live observer and element; `refcon` outlives the run loop below.
                let err = unsafe {
                    observer.add_notification(&app, &CFString::from_static_str(notice), refcon)
                };
                any |= err == AXError::Success;
            }
            let _ = ready_tx.send(any);
            if !any {
                return;
            }
            let Some(run_loop) = CFRunLoop::current() else {
                return;
            };
            // SAFETY: the observer's source, added to this thread's own run loop; reading the
            // framework's default mode.
            unsafe {
                run_loop.add_source(Some(&observer.run_loop_source()), kCFRunLoopDefaultMode);
            }
            while !halt.load(Ordering::Relaxed) && !sink.tx.is_closed() {
                // SAFETY: as above.
                CFRunLoop::run_in_mode(unsafe { kCFRunLoopDefaultMode }, 0.25, false);
            }
            drop(observer);
            drop(sink);
        })
        .ok()?;
    match ready_rx.recv_timeout(std::time::Duration::from_secs(2)) {
        Ok(true) => Some(MacChanges { rx, stop }),
        _ => {
            stop.store(true, Ordering::Relaxed);
            None
        }
    }
}
