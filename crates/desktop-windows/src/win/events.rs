//! Change notices from UI Automation: one thread per watched window registers handlers for
//! structure changes, property changes (name, value, states) and a few events (menus,
//! live regions, text) on the window's subtree, and each event becomes a [`Change`] of the
//! window. `observe` then reads on notices instead of on its interval; where UI Automation
//! is absent (Wine) or refuses, it reads on the interval.
#![allow(unsafe_code)]

use super::automation::Uia;
use desktop_core::backend::{Change, Changes};
use desktop_core::Handle;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{channel, Receiver, Sender};
use windows::core::{implement, Ref};
use windows::Win32::System::Com::SAFEARRAY;
use windows::Win32::System::Variant::VARIANT;
use windows::Win32::UI::Accessibility::*;

/// Notices waiting to be taken. Every notice says the same ("the watched window changed"),
/// and any one waiting prompts a read that sees what the others would have: when this many
/// wait, a new one is dropped, so a chatty app (a progress bar, a clock) costs at most this
/// much memory however long `observe` takes to read.
const WAITING: usize = 32;

/// The properties whose changes are notices: what a read would show differently. Only
/// numbers and booleans: the windows crate (0.62) hands a handler the new value as a
/// `VARIANT` that frees itself on drop, which for a string (a name, a value) would free
/// UI Automation's copy a second time — and a value change would bring a password field's
/// text into this process. Text changes come as `Text_TextChanged` events, names with the
/// structure changes that usually go with them.
const PROPERTIES: [UIA_PROPERTY_ID; 6] = [
    UIA_RangeValueValuePropertyId,
    UIA_ToggleToggleStatePropertyId,
    UIA_ExpandCollapseExpandCollapseStatePropertyId,
    UIA_SelectionItemIsSelectedPropertyId,
    UIA_IsEnabledPropertyId,
    UIA_IsOffscreenPropertyId,
];

/// Events that are notices.
const EVENTS: [UIA_EVENT_ID; 4] = [
    UIA_MenuOpenedEventId,
    UIA_MenuClosedEventId,
    UIA_LiveRegionChangedEventId,
    UIA_Text_TextChangedEventId,
];

/// The notices of one window, until dropped.
pub struct WinChanges {
    rx: Receiver<Change>,
    stop: Arc<AtomicBool>,
}

impl Drop for WinChanges {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Changes for WinChanges {
    async fn next(&mut self) -> Option<Change> {
        self.rx.recv().await
    }
    fn try_next(&mut self) -> Option<Change> {
        self.rx.try_recv().ok()
    }
}

/// The handler UI Automation calls (on threads of its own) for every event registered.
#[implement(
    IUIAutomationStructureChangedEventHandler,
    IUIAutomationPropertyChangedEventHandler,
    IUIAutomationEventHandler
)]
struct Sink {
    tx: Sender<Change>,
    window: Handle,
}

impl Sink {
    fn notice(&self) {
        // Never blocks UI Automation's thread: full means a read is due anyway (see
        // WAITING), closed means nobody watches any more (the thread unregisters soon).
        let _ = self.tx.try_send(Change {
            handle: self.window.clone(),
            children: true,
        });
    }
}

impl IUIAutomationStructureChangedEventHandler_Impl for Sink_Impl {
    fn HandleStructureChangedEvent(
        &self,
        _sender: Ref<IUIAutomationElement>,
        _change: StructureChangeType,
        _runtime_id: *const SAFEARRAY,
    ) -> windows::core::Result<()> {
        self.notice();
        Ok(())
    }
}

impl IUIAutomationPropertyChangedEventHandler_Impl for Sink_Impl {
    fn HandlePropertyChangedEvent(
        &self,
        _sender: Ref<IUIAutomationElement>,
        _property: UIA_PROPERTY_ID,
        _value: &VARIANT,
    ) -> windows::core::Result<()> {
        self.notice();
        Ok(())
    }
}

impl IUIAutomationEventHandler_Impl for Sink_Impl {
    fn HandleAutomationEvent(
        &self,
        _sender: Ref<IUIAutomationElement>,
        _event: UIA_EVENT_ID,
    ) -> windows::core::Result<()> {
        self.notice();
        Ok(())
    }
}

/// Registers every handler on the window's subtree; whether any took.
fn register(uia: &Uia, hwnd: u64, sink: &windows::core::ComObject<Sink>) -> bool {
    let auto = uia.client();
    // SAFETY: registrations of this thread's client on the window's element, each with the
    // same handler object (kept alive by the registration until it is removed).
    unsafe {
        let Ok(root) = auto.ElementFromHandle(super::windows::hwnd(hwnd)) else {
            return false;
        };
        let structure: IUIAutomationStructureChangedEventHandler = sink.to_interface();
        let property: IUIAutomationPropertyChangedEventHandler = sink.to_interface();
        let event: IUIAutomationEventHandler = sink.to_interface();
        let mut any = auto
            .AddStructureChangedEventHandler(&root, TreeScope_Subtree, None, &structure)
            .is_ok();
        any |= auto
            .AddPropertyChangedEventHandlerNativeArray(
                &root,
                TreeScope_Subtree,
                None,
                &property,
                &PROPERTIES,
            )
            .is_ok();
        for id in EVENTS {
            any |= auto
                .AddAutomationEventHandler(id, &root, TreeScope_Subtree, None, &event)
                .is_ok();
        }
        any
    }
}

/// Starts watching the window `hwnd` (named `window` in the notices); `None` when UI
/// Automation is absent or takes no handler within `wait` (then `observe` reads on its
/// interval).
pub fn watch(hwnd: u64, window: Handle, wait: Duration) -> Option<WinChanges> {
    let (tx, rx) = channel(WAITING);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let halt = stop.clone();
    std::thread::Builder::new()
        .name(format!("uia-events-{hwnd:#x}"))
        .spawn(move || {
            super::com_init();
            let Ok(uia) = Uia::new() else {
                let _ = ready_tx.send(false);
                return;
            };
            let closed = tx.clone();
            let sink: windows::core::ComObject<Sink> = Sink { tx, window }.into();
            let any = register(&uia, hwnd, &sink);
            let _ = ready_tx.send(any);
            if !any {
                return;
            }
            // Handlers run on UI Automation's threads; this one only keeps them registered.
            while !halt.load(Ordering::Relaxed) && !closed.is_closed() {
                std::thread::sleep(Duration::from_millis(250));
            }
            // SAFETY: removing this client's registrations (it may wait for a handler
            // running now, on this thread of ours alone).
            let _ = unsafe { uia.client().RemoveAllEventHandlers() };
        })
        .ok()?;
    match ready_rx.recv_timeout(wait) {
        Ok(true) => Some(WinChanges { rx, stop }),
        _ => {
            stop.store(true, Ordering::Relaxed);
            None
        }
    }
}
