//! The clipboard as `CF_UNICODETEXT`, retried while another process holds it open; what is
//! set stays after this process exits (the system owns the memory handed to it).
#![allow(unsafe_code)]

use desktop_core::{Error, ErrorCode, Result};
use std::time::{Duration, Instant};
use windows::Win32::Foundation::{HANDLE, HGLOBAL};
use windows::Win32::System::DataExchange::{
    CloseClipboard, EmptyClipboard, GetClipboardData, OpenClipboard, SetClipboardData,
};
use windows::Win32::System::Memory::{
    GlobalAlloc, GlobalLock, GlobalSize, GlobalUnlock, GMEM_MOVEABLE,
};
use windows::Win32::System::Ole::CF_UNICODETEXT;

/// The system clipboard's text.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clipboard;

fn open(timeout: Duration) -> Result<()> {
    let start = Instant::now();
    // SAFETY: opening for this thread, without an owner window.
    while unsafe { OpenClipboard(None) }.is_err() {
        if start.elapsed() > timeout {
            return Err(Error::new(
                ErrorCode::Timeout,
                "another program kept the clipboard open",
            )
            .suggest("Try again in a moment"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

impl desktop_core::system::Clipboard for Clipboard {
    fn get(&self, timeout: Duration) -> Result<Option<String>> {
        open(timeout)?;
        // SAFETY: the clipboard is open; the data handle is only read while locked, and
        // the clipboard is closed on every path.
        let text = unsafe {
            match GetClipboardData(CF_UNICODETEXT.0 as u32) {
                Ok(h) => {
                    let p = GlobalLock(HGLOBAL(h.0)) as *const u16;
                    if p.is_null() {
                        None
                    } else {
                        // Up to the terminator, never past the block (a writer may omit it).
                        let max = GlobalSize(HGLOBAL(h.0)) / 2;
                        let mut n = 0;
                        while n < max && *p.add(n) != 0 {
                            n += 1;
                        }
                        let t = String::from_utf16_lossy(std::slice::from_raw_parts(p, n));
                        let _ = GlobalUnlock(HGLOBAL(h.0));
                        Some(t)
                    }
                }
                Err(_) => None,
            }
        };
        // SAFETY: opened above.
        let _ = unsafe { CloseClipboard() };
        Ok(text)
    }

    fn set(&self, text: &str, timeout: Duration) -> Result<()> {
        open(timeout)?;
        let w: Vec<u16> = text.encode_utf16().chain(Some(0)).collect();
        // SAFETY: the clipboard is open; the global block is filled while locked and then
        // handed to the system, which owns it from then on.
        let r = unsafe {
            (|| -> windows::core::Result<()> {
                EmptyClipboard()?;
                let g = GlobalAlloc(GMEM_MOVEABLE, w.len() * 2)?;
                let p = GlobalLock(g) as *mut u16;
                std::ptr::copy_nonoverlapping(w.as_ptr(), p, w.len());
                let _ = GlobalUnlock(g);
                SetClipboardData(CF_UNICODETEXT.0 as u32, Some(HANDLE(g.0)))?;
                Ok(())
            })()
        };
        // SAFETY: opened above.
        let _ = unsafe { CloseClipboard() };
        r.map_err(|e| {
            Error::new(
                ErrorCode::ActionFailed,
                format!("the clipboard refused the text: {e}"),
            )
            .suggest("Try again")
        })
    }

    fn clear(&self) -> Result<()> {
        open(Duration::from_secs(2))?;
        // SAFETY: the clipboard is open.
        let _ = unsafe { EmptyClipboard() };
        // SAFETY: opened above.
        let _ = unsafe { CloseClipboard() };
        Ok(())
    }
}
