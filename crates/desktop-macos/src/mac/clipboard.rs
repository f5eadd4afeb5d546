//! The clipboard through NSPasteboard: text only; what is set stays after the process
//! exits (the pasteboard server holds it).
#![allow(unsafe_code)]

use desktop_core::Result;
use objc2_app_kit::{NSPasteboard, NSPasteboardTypeString};
use objc2_foundation::NSString;
use std::time::Duration;

/// The general pasteboard's text.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clipboard;

impl desktop_core::system::Clipboard for Clipboard {
    fn get(&self, _timeout: Duration) -> Result<Option<String>> {
        let board = NSPasteboard::generalPasteboard();
        // SAFETY: reading the framework's constant type name.
        let text = board.stringForType(unsafe { NSPasteboardTypeString });
        Ok(text.map(|t| t.to_string()))
    }

    fn set(&self, text: &str, _timeout: Duration) -> Result<()> {
        let board = NSPasteboard::generalPasteboard();
        board.clearContents();
        // SAFETY: as above.
        let ok =
            board.setString_forType(&NSString::from_str(text), unsafe { NSPasteboardTypeString });
        if ok {
            Ok(())
        } else {
            Err(desktop_core::Error::new(
                desktop_core::ErrorCode::ActionFailed,
                "the pasteboard refused the text",
            )
            .suggest("Try again"))
        }
    }

    fn clear(&self) -> Result<()> {
        NSPasteboard::generalPasteboard().clearContents();
        Ok(())
    }
}
