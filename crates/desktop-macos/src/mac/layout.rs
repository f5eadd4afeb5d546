//! The current keyboard layout's character → key table, read once per command through Text
//! Input Sources (`TISCopyCurrentKeyboardLayoutInputSource`, its `uchr` data) and
//! `UCKeyTranslate` over every character key at each modifier level, so a combo's letter
//! goes to the key that types it here (on AZERTY `cmd+a` is the key marked A, not Q).
#![allow(unsafe_code)]

use crate::keys::{Layout, Level, CHARACTER_KEYS};
use objc2::MainThreadMarker;
use objc2_core_foundation::{CFData, CFRetained, CFString, CFType};
use std::ffi::c_void;
use std::ptr::NonNull;

#[link(name = "Carbon", kind = "framework")]
extern "C" {
    /// HIToolbox: the keyboard layout in use (+1, a `TISInputSourceRef`, which is a CFType),
    /// or null.
    fn TISCopyCurrentKeyboardLayoutInputSource() -> *mut c_void;
    /// HIToolbox: a property of an input source, not retained (the Get rule); null if none.
    fn TISGetInputSourceProperty(source: *mut c_void, key: *const CFString) -> *mut c_void;
    /// The property holding the layout's `UCKeyboardLayout` (`uchr`) data as a CFData.
    static kTISPropertyUnicodeKeyLayoutData: *const CFString;
    /// The physical keyboard's type, which `UCKeyTranslate` picks its tables by.
    fn LMGetKbdType() -> u8;
    /// CarbonCore: the characters a key types with the given modifiers.
    fn UCKeyTranslate(
        layout: *const c_void,
        virtual_key_code: u16,
        key_action: u16,
        modifier_key_state: u32,
        keyboard_type: u32,
        key_translate_options: u32,
        dead_key_state: *mut u32,
        max_string_length: usize,
        actual_string_length: *mut usize,
        unicode_string: *mut u16,
    ) -> i32;
}

/// `kUCKeyActionDown`.
const KEY_DOWN: u16 = 0;
/// `kUCKeyTranslateNoDeadKeysMask`: a dead key gives its accent instead of waiting for the
/// next key, so an accent's key is found like any other.
const NO_DEAD_KEYS: u32 = 1;

/// `UCKeyTranslate`'s modifier state: Carbon's modifier bits shifted right by 8
/// (`cmdKey` 0x100 → 1, `shiftKey` 0x200 → 2).
fn modifier_state(level: Level) -> u32 {
    match level {
        Level::Plain => 0,
        Level::Command => 1,
        Level::Shift => 2,
        Level::CommandShift => 3,
    }
}

/// The current layout, or an empty one (combos then take the ANSI table) where none can be
/// read: an input method without `uchr` data, or a caller off the main thread. Text Input
/// Sources assert that they run on the main thread (and kill the process otherwise) on
/// recent macOS; the CLI and the MCP server act on their main thread, while test threads
/// and other hosts get the ANSI table rather than a crash.
pub fn current() -> Layout {
    let mut layout = Layout::default();
    if MainThreadMarker::new().is_none() {
        return layout;
    }
    // SAFETY: no arguments; returns a +1 input source or null.
    let Some(source) = NonNull::new(unsafe { TISCopyCurrentKeyboardLayoutInputSource() }) else {
        return layout;
    };
    // SAFETY: a +1 CFType from a Copy function: adopted, released when dropped (after every
    // use of the data it owns below).
    let source: CFRetained<CFType> = unsafe { CFRetained::from_raw(source.cast()) };
    let raw = CFRetained::as_ptr(&source).as_ptr().cast::<c_void>();
    // SAFETY: a live input source and the framework's own property key; the result is not
    // retained and lives as long as `source`.
    let data = unsafe { TISGetInputSourceProperty(raw, kTISPropertyUnicodeKeyLayoutData) };
    let Some(data) = NonNull::new(data.cast::<CFType>()) else {
        return layout;
    };
    // SAFETY: a valid CFType borrowed from `source`, which outlives this function's uses.
    let data: &CFType = unsafe { data.as_ref() };
    let Some(data) = data.downcast_ref::<CFData>() else {
        return layout;
    };
    let uchr = data.byte_ptr();
    if uchr.is_null() || data.is_empty() {
        return layout;
    }
    // SAFETY: no arguments.
    let keyboard = u32::from(unsafe { LMGetKbdType() });
    for level in Level::ALL {
        for code in CHARACTER_KEYS {
            let (mut dead, mut len, mut units) = (0u32, 0usize, [0u16; 4]);
            // SAFETY: `uchr` is the layout's `UCKeyboardLayout`, alive with `source`; the
            // buffer holds `units.len()` UTF-16 units and `len` receives how many were set.
            let err = unsafe {
                UCKeyTranslate(
                    uchr.cast(),
                    code,
                    KEY_DOWN,
                    modifier_state(level),
                    keyboard,
                    NO_DEAD_KEYS,
                    &mut dead,
                    units.len(),
                    &mut len,
                    units.as_mut_ptr(),
                )
            };
            if err != 0 {
                continue;
            }
            // A key that types one character names it; several (or none) name none.
            let mut chars = char::decode_utf16(units[..len.min(units.len())].iter().copied());
            if let (Some(Ok(c)), None) = (chars.next(), chars.next()) {
                layout.insert(level, code, c);
            }
        }
    }
    drop(source);
    layout
}
