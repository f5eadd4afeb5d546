//! Top-level windows (`EnumWindows`): title, class, owning process and its executable's
//! name, rectangle and state, and which one is in front.
#![allow(unsafe_code)]

use desktop_core::model::WindowState;
use windows::core::BOOL;
use windows::Win32::Foundation::{CloseHandle, HWND, LPARAM, RECT, TRUE};
use windows::Win32::System::Threading::{
    OpenProcess, QueryFullProcessImageNameW, PROCESS_NAME_WIN32, PROCESS_QUERY_LIMITED_INFORMATION,
};
use windows::Win32::UI::Input::KeyboardAndMouse::IsWindowEnabled;
use windows::Win32::UI::WindowsAndMessaging::{
    EnumWindows, GetClassNameW, GetForegroundWindow, GetSystemMetrics, GetWindow, GetWindowLongW,
    GetWindowRect, GetWindowTextW, GetWindowThreadProcessId, IsIconic, IsWindowVisible, IsZoomed,
    SetForegroundWindow, GWL_STYLE, GW_OWNER, SM_CXVIRTUALSCREEN, SM_CYVIRTUALSCREEN,
    SM_XVIRTUALSCREEN, SM_YVIRTUALSCREEN,
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
    /// Minimized, maximized, full screen or normal.
    pub state: WindowState,
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

/// Visible top-level windows with a title, front to back. Minimized windows are among them
/// (they stay visible, parked off screen), so that they can be restored.
pub fn list() -> Vec<Top> {
    list_of(None)
}

/// The windows of [`list`], of the process `pid` only when given (its executable's name is
/// then asked of that process alone).
pub fn list_of(only: Option<u32>) -> Vec<Top> {
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
        if title.is_empty() || cloaked(h) {
            continue;
        }
        let mut pid = 0u32;
        // SAFETY: valid out-pointers.
        unsafe { GetWindowThreadProcessId(h, Some(&mut pid)) };
        // A Store app's window belongs to ApplicationFrameHost; the app is the process of
        // the core window inside it (Calculator is CalculatorApp, not the frame host).
        let class = class(h);
        if class == "ApplicationFrameWindow" {
            use windows::core::w;
            // SAFETY: a search among the window's children.
            if let Ok(core) = unsafe {
                windows::Win32::UI::WindowsAndMessaging::FindWindowExW(
                    Some(h),
                    None,
                    w!("Windows.UI.Core.CoreWindow"),
                    None,
                )
            } {
                let inner = pid_of(core.0 as usize as u64);
                if inner != 0 {
                    pid = inner;
                }
            }
        }
        if only.is_some_and(|p| p != pid) {
            continue;
        }
        let r = frame(h);
        // SAFETY: queries on window handles.
        let modal = unsafe { GetWindow(h, GW_OWNER) }
            .is_ok_and(|owner| !owner.is_invalid() && !unsafe { IsWindowEnabled(owner) }.as_bool());
        out.push(Top {
            hwnd: v as u64,
            title,
            class,
            pid,
            program: program(pid),
            rect: (r.left, r.top, r.right - r.left, r.bottom - r.top),
            state: state(h),
            modal,
            // SAFETY: a query on a window handle.
            hung: unsafe { windows::Win32::UI::WindowsAndMessaging::IsHungAppWindow(h) }.as_bool(),
        });
    }
    out
}

/// Whether Windows keeps the window hidden though it is "visible": a suspended or
/// prelaunched Store app, a window on another virtual desktop.
fn cloaked(h: HWND) -> bool {
    use windows::Win32::Graphics::Dwm::{DwmGetWindowAttribute, DWMWA_CLOAKED};
    let mut c = 0u32;
    // SAFETY: a four-byte attribute read into a u32.
    let ok =
        unsafe { DwmGetWindowAttribute(h, DWMWA_CLOAKED, (&mut c as *mut u32).cast(), 4) }.is_ok();
    ok && c != 0
}

/// The rectangle a window shows on screen: DWM's extended frame bounds (Windows 10 and 11
/// draw invisible resize borders of about 7 px around `GetWindowRect`), else the window's.
pub fn frame(h: HWND) -> RECT {
    use windows::Win32::Graphics::Dwm::{DwmGetWindowAttribute, DWMWA_EXTENDED_FRAME_BOUNDS};
    let mut r = RECT::default();
    // SAFETY: a RECT-sized attribute read into a RECT.
    let dwm = unsafe {
        DwmGetWindowAttribute(
            h,
            DWMWA_EXTENDED_FRAME_BOUNDS,
            (&mut r as *mut RECT).cast(),
            std::mem::size_of::<RECT>() as u32,
        )
    };
    if dwm.is_err() || r.right <= r.left || r.bottom <= r.top {
        // SAFETY: a valid out-pointer.
        let _ = unsafe { GetWindowRect(h, &mut r) };
    }
    r
}

/// The window's own rectangle (`GetWindowRect`, invisible borders included): what
/// `SetWindowPos` places.
pub fn outer(h: HWND) -> RECT {
    let mut r = RECT::default();
    // SAFETY: a valid out-pointer; a stale handle leaves it empty.
    let _ = unsafe { GetWindowRect(h, &mut r) };
    r
}

/// Whether a window has a title bar (`WS_CAPTION`: both of its bits).
pub fn captioned(h: HWND) -> bool {
    use windows::Win32::UI::WindowsAndMessaging::WS_CAPTION;
    // SAFETY: a query on a window handle, answered without asking the window.
    let style = unsafe { GetWindowLongW(h, GWL_STYLE) } as u32;
    style & WS_CAPTION.0 == WS_CAPTION.0
}

/// The state a window shows (`crate::placement::state`): none of these queries asks the
/// window itself, so a hung app answers too. The desktop (Explorer's "Program Manager",
/// caption-less over every monitor) is no full-screen window.
pub fn state(h: HWND) -> WindowState {
    // SAFETY: a query without arguments.
    if h == unsafe { windows::Win32::UI::WindowsAndMessaging::GetShellWindow() } {
        return WindowState::Normal;
    }
    let r = outer(h);
    // SAFETY: queries on a window handle.
    let (iconic, zoomed) = unsafe { (IsIconic(h).as_bool(), IsZoomed(h).as_bool()) };
    crate::placement::state(
        iconic,
        zoomed,
        captioned(h),
        desktop_core::Rect::new(r.left, r.top, r.right - r.left, r.bottom - r.top),
        super::monitors::rect_of(h),
    )
}

/// Now, in the units of [`created`].
pub fn now() -> u64 {
    // SAFETY: a query without arguments.
    let t = unsafe { windows::Win32::System::SystemInformation::GetSystemTimeAsFileTime() };
    (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime)
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

/// When a process was created (100 ns units since 1601), `None` where it cannot be asked.
pub fn created(pid: u32) -> Option<u64> {
    use windows::Win32::Foundation::FILETIME;
    use windows::Win32::System::Threading::GetProcessTimes;
    // SAFETY: a handle with the least right that reads the times, closed below.
    let p = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid) }.ok()?;
    let (mut c, mut e, mut k, mut u) = (
        FILETIME::default(),
        FILETIME::default(),
        FILETIME::default(),
        FILETIME::default(),
    );
    // SAFETY: valid out-pointers for a live handle.
    let ok = unsafe { GetProcessTimes(p, &mut c, &mut e, &mut k, &mut u) }.is_ok();
    // SAFETY: the handle opened above.
    let _ = unsafe { CloseHandle(p) };
    ok.then(|| (u64::from(c.dwHighDateTime) << 32) | u64::from(c.dwLowDateTime))
}

/// The shell's process (Explorer: the taskbar and the desktop), 0 when none runs.
pub fn shell_pid() -> u32 {
    // SAFETY: a query without arguments.
    let shell = unsafe { windows::Win32::UI::WindowsAndMessaging::GetShellWindow() };
    pid_of(shell.0 as usize as u64)
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
        // The shell (Explorer) starts terminals but never waits on them: it ends the chain.
        let shell = shell_pid();
        let mut out = Vec::new();
        let mut at = std::process::id();
        while let Some(&p) = parent.get(&at) {
            // A parent id outlives its process and may name a newer, unrelated one: a
            // parent created after its child is not it.
            let newer = matches!((created(p), created(at)), (Some(a), Some(b)) if a > b);
            if p == 0 || p == shell || newer || out.contains(&p) || out.len() > 16 {
                break;
            }
            out.push(p);
            at = p;
        }
        out
    })
    .clone()
}

/// Waits until the thread of the window `v` has taken in the input sent to it and is back
/// in its message loop, at most `ms`: an empty message sent after the input (twice, a
/// moment apart, since input is queued while sent messages are served first) answers only
/// when the thread reads its messages again. `false` when it did not answer in time.
pub fn input_idle(v: u64, ms: u32) -> bool {
    use windows::Win32::Foundation::{LPARAM, WPARAM};
    use windows::Win32::UI::WindowsAndMessaging::{
        SendMessageTimeoutW, SMTO_ABORTIFHUNG, SMTO_ERRORONEXIT, WM_NULL,
    };
    let pid = pid_of(v);
    // Never into a program that hosts us (it waits on our answer).
    if pid == 0 || pid == std::process::id() || ancestors().contains(&pid) {
        return false;
    }
    let mut ok = true;
    for _ in 0..2 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        // SAFETY: a message without pointers, bounded by its timeout.
        let r = unsafe {
            SendMessageTimeoutW(
                hwnd(v),
                WM_NULL,
                WPARAM(0),
                LPARAM(0),
                SMTO_ABORTIFHUNG | SMTO_ERRORONEXIT,
                ms,
                None,
            )
        };
        ok &= r.0 != 0;
    }
    ok
}
