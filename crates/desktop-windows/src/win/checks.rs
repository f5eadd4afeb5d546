//! What the doctor asks of Windows beyond the windows and the screen: whether UI Automation
//! is there, the integrity level this process runs at (input to a more elevated program is
//! dropped without an error), whether a window is in front (a locked or non-interactive
//! session has none), and whether coordinates are per-monitor pixels.
#![allow(unsafe_code)]

use desktop_core::backend::Check;

/// UI Automation, created on a thread of its own (as reads do).
fn automation() -> Result<String, String> {
    std::thread::spawn(|| {
        super::com_init();
        super::automation::Uia::new()
            .map(|_| "available: windows are read in one cached call".to_string())
            .map_err(|e| format!("not available ({e}): windows are read through MSAA"))
    })
    .join()
    .unwrap_or_else(|_| Err("the check failed".into()))
}

/// The mandatory integrity level of this process (`low`, `medium`, `high`, `system`).
fn integrity() -> Result<String, String> {
    use windows::Win32::Foundation::{CloseHandle, HANDLE};
    use windows::Win32::Security::{
        GetSidSubAuthority, GetSidSubAuthorityCount, GetTokenInformation, TokenIntegrityLevel,
        TOKEN_MANDATORY_LABEL, TOKEN_QUERY,
    };
    use windows::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};
    let mut buf = [0u64; 16];
    let rid = {
        let mut token = HANDLE::default();
        let mut len = 0u32;
        // SAFETY: this process's token opened for query, read into a buffer sized and aligned
        // for the label and its SID, and closed; the SID's last sub-authority is the level.
        unsafe {
            OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token)
                .map_err(|e| e.to_string())?;
            let got = GetTokenInformation(
                token,
                TokenIntegrityLevel,
                Some(buf.as_mut_ptr().cast()),
                std::mem::size_of_val(&buf) as u32,
                &mut len,
            );
            let _ = CloseHandle(token);
            got.map_err(|e| e.to_string())?;
            let label = &*(buf.as_ptr() as *const TOKEN_MANDATORY_LABEL);
            let sid = label.Label.Sid;
            let n = *GetSidSubAuthorityCount(sid);
            if n == 0 {
                return Err("the token has no integrity level".into());
            }
            *GetSidSubAuthority(sid, u32::from(n) - 1)
        }
    };
    let level = match rid {
        0..=0x0fff => "untrusted",
        0x1000..=0x1fff => "low",
        0x2000..=0x2fff => "medium",
        0x3000..=0x3fff => "high",
        _ => "system",
    };
    if rid < 0x2000 {
        return Err(format!(
            "{level}: most programs' windows refuse this process's input"
        ));
    }
    Ok(format!(
        "{level}{}",
        if rid < 0x3000 {
            " (programs run as administrator take no input from it)"
        } else {
            ""
        }
    ))
}

fn foreground() -> Result<String, String> {
    match super::windows::foreground() {
        0 => Err("no window is in front: the session is locked or not interactive".into()),
        h => Ok(format!("window {h:#x} in front")),
    }
}

fn dpi() -> Result<String, String> {
    use windows::Win32::UI::HiDpi::{
        GetAwarenessFromDpiAwarenessContext, GetThreadDpiAwarenessContext,
        DPI_AWARENESS_PER_MONITOR_AWARE,
    };
    // SAFETY: reading this thread's awareness, which follows the process's.
    let a = unsafe { GetAwarenessFromDpiAwarenessContext(GetThreadDpiAwarenessContext()) };
    if a == DPI_AWARENESS_PER_MONITOR_AWARE {
        Ok("per-monitor: coordinates are pixels on every monitor".into())
    } else {
        Err(format!(
            "awareness {}: coordinates are scaled on monitors above 100 %",
            a.0
        ))
    }
}

/// The doctor's Windows checks.
pub fn all() -> Vec<Check> {
    vec![
        Check::new(
            "ui-automation",
            automation(),
            "Reads fall back to MSAA, which older apps answer with less: use Windows 10 or later",
        ),
        Check::new(
            "integrity",
            integrity(),
            "Run desktop-cli at the same level as the programs it drives (as administrator for elevated ones)",
        ),
        Check::new(
            "foreground",
            foreground(),
            "Unlock the session and run desktop-cli on the interactive desktop",
        ),
        Check::new(
            "dpi",
            dpi(),
            "desktop-cli declares per-monitor v2 awareness as it starts; a host that set another first (a shim, a compatibility setting on the .exe) must let it",
        ),
    ]
}
