//! Ending a process for `close-app --force`: a grace to end by itself, then
//! `TerminateProcess`; never this process, one it runs under, or the shell.
#![allow(unsafe_code)]

use super::windows as sys;
use desktop_core::{Error, ErrorCode, Result};
use std::time::{Duration, Instant};
use windows::Win32::Foundation::{CloseHandle, ERROR_INVALID_PARAMETER, HANDLE, WAIT_OBJECT_0};
use windows::Win32::System::Threading::{
    OpenProcess, TerminateProcess, WaitForSingleObject, PROCESS_SYNCHRONIZE, PROCESS_TERMINATE,
};

const POLL: Duration = Duration::from_millis(10);

/// A process handle, closed when dropped (kept as a number: the wait's future must be
/// `Send`).
struct Process(isize);

impl Drop for Process {
    fn drop(&mut self) {
        // SAFETY: the handle opened by `end_process`, closed once.
        let _ = unsafe { CloseHandle(self.handle()) };
    }
}

impl Process {
    fn handle(&self) -> HANDLE {
        HANDLE(self.0 as *mut core::ffi::c_void)
    }

    fn ended(&self) -> bool {
        // SAFETY: a zero wait on a live process handle opened with SYNCHRONIZE.
        let r = unsafe { WaitForSingleObject(self.handle(), 0) };
        r == WAIT_OBJECT_0
    }

    /// Polls until the process ends or `wait` runs out; whether it ended.
    async fn wait(&self, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        while !self.ended() {
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(POLL).await;
        }
        true
    }
}

/// Waits `grace` for the process to end by itself (the caller asked its windows to close),
/// then `TerminateProcess`, Windows' only sure end; whether it ended. The process is held
/// by a handle from the start, so a pid reused meanwhile is never touched. Never this
/// process, one it runs under (the terminal or editor waiting on us), or the shell
/// (Explorer: File Explorer's windows are its own, and ending it takes the taskbar along).
pub async fn end_process(pid: u32, grace: Duration) -> Result<bool> {
    if pid == 0 {
        return Err(Error::invalid_args("process 0 is the system's"));
    }
    let why = if pid == std::process::id() || sys::ancestors().contains(&pid) {
        Some("runs desktop-cli itself (it or one it runs under)")
    } else if pid == sys::shell_pid() {
        Some("is the Windows shell (Explorer: the taskbar and the desktop)")
    } else {
        None
    };
    if let Some(why) = why {
        return Err(Error::new(
            ErrorCode::PermDenied,
            format!("process {pid} {why}: not ended"),
        )
        .suggest("Close that app yourself"));
    }
    // SAFETY: a handle with the rights to wait on and end the process, closed by `Process`.
    let p = match unsafe { OpenProcess(PROCESS_SYNCHRONIZE | PROCESS_TERMINATE, false, pid) } {
        Ok(p) => Process(p.0 as isize),
        // No such process: it is gone already.
        Err(e) if e.code() == ERROR_INVALID_PARAMETER.to_hresult() => return Ok(true),
        Err(e) => {
            return Err(Error::new(
                ErrorCode::PermDenied,
                format!("the system refused to end process {pid}: {}", e.message()),
            )
            .suggest("It runs as another user or as administrator: end it there"))
        }
    };
    if p.wait(grace).await {
        return Ok(true);
    }
    // SAFETY: a live process handle opened with PROCESS_TERMINATE.
    if let Err(e) = unsafe { TerminateProcess(p.handle(), 1) } {
        if !p.ended() {
            return Err(Error::new(
                ErrorCode::PermDenied,
                format!("the system refused to end process {pid}: {}", e.message()),
            )
            .suggest("It is protected or runs as administrator: end it there"));
        }
    }
    Ok(p.wait(Duration::from_secs(2)).await)
}
