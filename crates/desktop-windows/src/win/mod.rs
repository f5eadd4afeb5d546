//! The system calls of the Windows backend, compiled on Windows alone: `msaa` (reading),
//! `windows` (top-level windows), `monitors`, `input` (`SendInput`), `clipboard`, `capture`
//! (GDI), `winops` (moving, resizing, states, closing) with `fullscreen`, `ending`
//! (processes for `close-app --force`), and `desktop` (the contract) with `system`
//! (connecting, the doctor).

pub mod act;
pub mod automation;
pub mod capture;
pub mod checks;
pub mod clipboard;
pub mod desktop;
pub mod element;
pub mod ending;
pub mod events;
pub mod fullscreen;
pub mod input;
pub mod monitors;
pub mod msaa;
pub mod system;
pub mod windows;
pub mod winops;

/// Joins this thread to COM's multithreaded apartment (once is enough; again is harmless).
#[allow(unsafe_code)]
pub fn com_init() {
    use ::windows::Win32::System::Com::{CoInitializeEx, COINIT_MULTITHREADED};
    // SAFETY: initializing COM for the calling thread; S_FALSE (already joined) is fine.
    let _ = unsafe { CoInitializeEx(None, COINIT_MULTITHREADED) };
}
