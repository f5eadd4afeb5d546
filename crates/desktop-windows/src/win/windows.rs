//! Top-level windows (`EnumWindows`): title, class, owning process and its executable's
//! name, rectangle, and which one is in front.
#![allow(unsafe_code)]

use windows::core::BOOL;
use windows::Win32::Foundation::{CloseHandle, HWND, LPARAM, RECT, TRUE};
use windows::Win32::System::Threading::{
    OpenProcess, QueryFullProcessImageNameW, PROCESS_NAME_WIN32, PROCESS_QUERY_LIMITED_INFORMATION,
};
use windows::Win32::UI::Input::KeyboardAndMouse::IsWindowEnabled;
use windows::Win32::UI::WindowsAndMessaging::{
    EnumWindows, GetClassNameW, GetForegroundWindow, GetSystemMetrics, GetWindow, GetWindowRect,
    GetWindowTextW, GetWindowThreadProcessId, IsWindowVisible, SetForegroundWindow, GW_OWNER,
    SM_CXVIRTUALSCREEN, SM_CYVIRTUALSCREEN, SM_XVIRTUALSCREEN, SM_YVIRTUALSCREEN,
};

/// One visible top-level window.
#[derive(Clone, Debug)]
pub struct Top {
    pub hwnd: u64,
    pub title: String,
    pub class: String,
    pub pid: u32,
    /// The executable's name without `.exe` (`notepad`).
    pub program: String,
    pub rect: (i32, i32, i32, i32),
    /// A dialog whose owner window is disabled while it shows: input goes here first.
    pub modal: bool,
    /// Windows says the window has not taken its messages for seconds (`IsHungAppWindow`,
    /// which asks the window nothing).
    pub hung: bool,
}

unsafe extern "system" fn collect(h: HWND, lp: LPARAM) -> BOOL {
    // SAFETY: `lp` is the vector `list` passed below, alive for the whole enumeration.
    let v = unsafe { &mut *(lp.0 as *mut Vec<isize>) };
    v.push(h.0 as isize);
    TRUE
}

pub fn hwnd(v: u64) -> HWND {
    HWND(v as usize as *mut core::ffi::c_void)
}

fn text(h: HWND) -> String {
    let mut b = [0u16; 512];
    // SAFETY: a buffer of 512 units.
    let n = unsafe { GetWindowTextW(h, &mut b) };
    String::from_utf16_lossy(&b[..n.max(0) as usize])
}

fn class(h: HWND) -> String {
    let mut b = [0u16; 256];
    // SAFETY: a buffer of 256 units.
    let n = unsafe { GetClassNameW(h, &mut b) };
    String::from_utf16_lossy(&b[..n.max(0) as usize])
}

/// The executable name of a process (`notepad`), empty when it cannot be asked.
pub fn program(pid: u32) -> String {
    // SAFETY: opening with the least right that reads the image name; closed below.
    let Ok(p) = (unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid) }) else {
        return String::new();
    };
    let mut buf = [0u16; 1024];
    let mut n = buf.len() as u32;
    // SAFETY: `buf` holds `n` units; `n` receives the length written.
    let ok = unsafe {
        QueryFullProcessImageNameW(
            p,
            PROCESS_NAME_WIN32,
            windows::core::PWSTR(buf.as_mut_ptr()),
            &mut n,
        )
    };
    // SAFETY: the handle opened above.
    let _ = unsafe { CloseHandle(p) };
    if ok.is_err() {
        return String::new();
    }
    let path = String::from_utf16_lossy(&buf[..n as usize]);
    let file = path.rsplit(['\\', '/']).next().unwrap_or(&path);
    file.strip_suffix(".exe")
        .or_else(|| file.strip_suffix(".EXE"))
        .unwrap_or(file)
        .to_string()
}

/// Visible top-level windows with a title, front to back.
pub fn list() -> Vec<Top> {
    let mut raw: Vec<isize> = Vec::new();
    // SAFETY: the callback only pushes into `raw`, which outlives the call.
    let _ = unsafe { EnumWindows(Some(collect), LPARAM(&mut raw as *mut _ as isize)) };
    let mut out = Vec::new();
    for v in raw {
        let h = HWND(v as *mut core::ffi::c_void);
        // SAFETY: queries on a window handle; a stale one just answers nothing.
        if !unsafe { IsWindowVisible(h) }.as_bool() {
            continue;
        }
        let title = text(h);
        if title.is_empty() {
            continue;
        }
        let mut pid = 0u32;
        // SAFETY: valid out-pointers.
        unsafe { GetWindowThreadProcessId(h, Some(&mut pid)) };
        let mut r = RECT::default();
        // SAFETY: as above.
        let _ = unsafe { GetWindowRect(h, &mut r) };
        // SAFETY: queries on window handles.
        let modal = unsafe { GetWindow(h, GW_OWNER) }
            .is_ok_and(|owner| !owner.is_invalid() && !unsafe { IsWindowEnabled(owner) }.as_bool());
        out.push(Top {
            hwnd: v as u64,
            title,
            class: class(h),
            pid,
            program: program(pid),
            rect: (r.left, r.top, r.right - r.left, r.bottom - r.top),
            modal,
            // SAFETY: a query on a window handle.
            hung: unsafe { windows::Win32::UI::WindowsAndMessaging::IsHungAppWindow(h) }.as_bool(),
        });
    }
    out
}

/// The window in front.
pub fn foreground() -> u64 {
    // SAFETY: no arguments.
    unsafe { GetForegroundWindow() }.0 as u64
}

/// Asks Windows to put a window in front (it may refuse: the foreground lock).
pub fn set_foreground(v: u64) {
    // SAFETY: a window handle; a stale one is simply refused.
    let _ = unsafe { SetForegroundWindow(hwnd(v)) };
}

/// The virtual screen (every monitor): x, y, width, height.
pub fn virtual_screen() -> (i32, i32, i32, i32) {
    // SAFETY: metric queries.
    unsafe {
        (
            GetSystemMetrics(SM_XVIRTUALSCREEN),
            GetSystemMetrics(SM_YVIRTUALSCREEN),
            GetSystemMetrics(SM_CXVIRTUALSCREEN),
            GetSystemMetrics(SM_CYVIRTUALSCREEN),
        )
    }
}

/// The process that owns a window (0 when the window is gone).
pub fn pid_of(v: u64) -> u32 {
    let mut pid = 0u32;
    // SAFETY: a valid out-pointer; a stale handle leaves it 0.
    unsafe { GetWindowThreadProcessId(hwnd(v), Some(&mut pid)) };
    pid
}

/// The processes this one runs under (parent, its parent, …): the terminal or editor that
/// hosts us waits on our answer, so it is never called into. Read once per command.
pub fn ancestors() -> Vec<u32> {
    use std::sync::OnceLock;
    use windows::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W,
        TH32CS_SNAPPROCESS,
    };
    static ONCE: OnceLock<Vec<u32>> = OnceLock::new();
    ONCE.get_or_init(|| {
        let mut parent = std::collections::HashMap::new();
        // SAFETY: a process snapshot walked with a correctly sized entry, then closed.
        unsafe {
            let Ok(snap) = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) else {
                return Vec::new();
            };
            let mut e = PROCESSENTRY32W {
                dwSize: std::mem::size_of::<PROCESSENTRY32W>() as u32,
                ..Default::default()
            };
            let mut ok = Process32FirstW(snap, &mut e).is_ok();
            while ok {
                parent.insert(e.th32ProcessID, e.th32ParentProcessID);
                ok = Process32NextW(snap, &mut e).is_ok();
            }
            let _ = CloseHandle(snap);
        }
        let mut out = Vec::new();
        let mut at = std::process::id();
        // Parent ids are reused after a parent exits: a short, cycle-free chain only.
        while let Some(&p) = parent.get(&at) {
            if p == 0 || out.contains(&p) || out.len() > 16 {
                break;
            }
            out.push(p);
            at = p;
        }
        out
    })
    .clone()
}

/// Waits until the program owning `hwnd` has taken in the input sent to it and waits for
/// more (`WaitForInputIdle`), at most `ms`: an action answers once the app has its keys.
/// `false` when it did not get there in time (or is no GUI program to wait for).
pub fn input_idle(v: u64, ms: u32) -> bool {
    use windows::Win32::Foundation::WAIT_OBJECT_0;
    use windows::Win32::System::Threading::{
        OpenProcess, WaitForInputIdle, PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SYNCHRONIZE,
    };
    let pid = pid_of(v);
    if pid == 0 || pid == std::process::id() {
        return false;
    }
    // SAFETY: a handle with the rights to wait on the process, closed below.
    let Ok(p) = (unsafe {
        OpenProcess(
            PROCESS_SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION,
            false,
            pid,
        )
    }) else {
        return false;
    };
    // SAFETY: a wait on a live process handle, bounded by `ms`.
    let r = unsafe { WaitForInputIdle(p, ms) };
    // SAFETY: the handle opened above.
    let _ = unsafe { CloseHandle(p) };
    r == WAIT_OBJECT_0.0
}
