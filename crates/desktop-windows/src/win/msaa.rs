//! Reading through MSAA (`IAccessible`): a window's client object and its children, each
//! element's role, name, value, state and location, with the Win32 class and style of the
//! element's own window where it has one. Child windows come back from
//! `AccessibleChildren` as window objects that (under Wine) answer nothing: those are
//! reopened as the window's client object.
#![allow(unsafe_code)]

use crate::props::Props;
use windows::core::{Interface, BSTR};
use windows::Win32::Foundation::{HWND, LPARAM, WPARAM};
use windows::Win32::System::Com::IDispatch;
use windows::Win32::System::Variant::{VARIANT, VT_DISPATCH, VT_I4};
use windows::Win32::UI::Accessibility::{
    AccessibleChildren, AccessibleObjectFromWindow, IAccessible, WindowFromAccessibleObject,
};
use windows::Win32::UI::WindowsAndMessaging::PostMessageW;

/// The id that names an accessible object itself rather than one of its simple children.
pub const CHILDID_SELF: i32 = 0;
use windows::Win32::UI::WindowsAndMessaging::{
    GetClassNameW, GetWindowLongW, SendMessageTimeoutW, GWL_STYLE, OBJID_CLIENT, SMTO_ABORTIFHUNG,
};

/// One element: an accessible object and the child id within it (`CHILDID_SELF` for the
/// object itself), with its own window when it has one.
#[derive(Clone)]
pub struct Acc {
    pub acc: IAccessible,
    pub child: i32,
    pub hwnd: Option<HWND>,
}

/// The client object of a window.
pub fn client(hwnd: HWND) -> windows::core::Result<IAccessible> {
    let mut p: *mut core::ffi::c_void = core::ptr::null_mut();
    // SAFETY: `p` receives an IAccessible pointer (+1) on success, adopted below.
    unsafe {
        AccessibleObjectFromWindow(hwnd, OBJID_CLIENT.0 as u32, &IAccessible::IID, &mut p)?;
        Ok(IAccessible::from_raw(p))
    }
}

fn me(child: i32) -> VARIANT {
    VARIANT::from(child)
}

fn vt_i4(v: &VARIANT) -> Option<i32> {
    // SAFETY: the union is read as the variant's tag says.
    unsafe { (v.vt() == VT_I4).then(|| v.Anonymous.Anonymous.Anonymous.lVal) }
}

/// The object to ask for a child `AccessibleChildren` gave, and the window it is the
/// object of: a window object (Windows answers it as role "window", Wine answers nothing)
/// is replaced by that window's client object, which holds the control; any other object
/// has no window of its own (it would inherit its container's class and style).
fn settle(acc: IAccessible) -> (IAccessible, Option<HWND>) {
    const ROLE_SYSTEM_WINDOW: i32 = 0x09;
    let mut hwnd = HWND::default();
    // SAFETY: `hwnd` is a valid out-pointer.
    if unsafe { WindowFromAccessibleObject(&acc, Some(&mut hwnd)) }.is_err() || hwnd.is_invalid() {
        return (acc, None);
    }
    // SAFETY: a live object; asking its role has no preconditions.
    let role = unsafe { acc.get_accRole(&me(CHILDID_SELF)) }
        .ok()
        .and_then(|v| vt_i4(&v));
    match role {
        None | Some(ROLE_SYSTEM_WINDOW) => match client(hwnd) {
            Ok(c) => (c, Some(hwnd)),
            Err(_) => (acc, None),
        },
        Some(_) => (acc, None),
    }
}

/// An element's children.
pub fn children(e: &Acc) -> Vec<Acc> {
    if e.child != CHILDID_SELF {
        return Vec::new();
    }
    // SAFETY: a live object.
    let n = unsafe { e.acc.accChildCount() }.unwrap_or(0).clamp(0, 2000);
    if n == 0 {
        return Vec::new();
    }
    let mut kids: Vec<VARIANT> = (0..n).map(|_| VARIANT::default()).collect();
    let mut got = 0i32;
    // SAFETY: `kids` has room for `n` variants; `got` receives how many were filled.
    if unsafe { AccessibleChildren(&e.acc, 0, &mut kids, &mut got) }.is_err() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for k in kids.iter().take(got.max(0) as usize) {
        if k.vt() == VT_DISPATCH {
            let Ok(acc) = IDispatch::try_from(k).and_then(|d| d.cast::<IAccessible>()) else {
                continue;
            };
            let (acc, hwnd) = settle(acc);
            out.push(Acc {
                acc,
                child: CHILDID_SELF,
                hwnd,
            });
        } else if let Some(id) = vt_i4(k) {
            out.push(Acc {
                acc: e.acc.clone(),
                child: id,
                hwnd: None,
            });
        }
    }
    out
}

fn class_of(hwnd: HWND) -> String {
    let mut b = [0u16; 256];
    // SAFETY: a buffer of 256 units.
    let n = unsafe { GetClassNameW(hwnd, &mut b) };
    String::from_utf16_lossy(&b[..n.max(0) as usize])
}

/// `BM_GETCHECK` of a button window, bounded.
fn button_check(hwnd: HWND) -> Option<u32> {
    const BM_GETCHECK: u32 = 0xF0;
    let mut res = 0usize;
    // SAFETY: a message without pointers, bounded by its timeout.
    let ok = unsafe {
        SendMessageTimeoutW(
            hwnd,
            BM_GETCHECK,
            WPARAM(0),
            LPARAM(0),
            SMTO_ABORTIFHUNG,
            500,
            Some(&mut res),
        )
    };
    (ok.0 != 0).then_some(res as u32)
}

/// One element's properties (children empty). A password box's value is never asked for:
/// its state and its window's style are read first.
pub fn props(e: &Acc) -> Props {
    const ES_PASSWORD: u32 = 0x20;
    let c = me(e.child);
    let acc = &e.acc;
    let mut p = Props::default();
    if let Some(hwnd) = e.hwnd {
        p.class = class_of(hwnd);
        // SAFETY: reading a window's style.
        p.style = unsafe { GetWindowLongW(hwnd, GWL_STYLE) } as u32;
        if p.class.eq_ignore_ascii_case("button") {
            p.check = button_check(hwnd);
        }
    }
    // SAFETY: calls on a live object with a valid child variant; failures leave defaults.
    unsafe {
        p.role = acc
            .get_accRole(&c)
            .ok()
            .and_then(|v| vt_i4(&v))
            .unwrap_or(0);
        p.state = acc
            .get_accState(&c)
            .ok()
            .and_then(|v| vt_i4(&v))
            .unwrap_or(0) as u32;
        p.name = acc
            .get_accName(&c)
            .map(|b| b.to_string())
            .unwrap_or_default();
        p.description = acc
            .get_accDescription(&c)
            .map(|b| b.to_string())
            .unwrap_or_default();
    }
    let edit = p.class.eq_ignore_ascii_case("edit");
    let secret =
        p.state & crate::props::state::PROTECTED != 0 || (edit && p.style & ES_PASSWORD != 0);
    if !secret {
        // SAFETY: as above.
        p.value = unsafe { acc.get_accValue(&c) }
            .ok()
            .map(|b: BSTR| b.to_string());
    }
    let (mut x, mut y, mut w, mut h) = (0, 0, 0, 0);
    // SAFETY: valid out-pointers.
    p.location = unsafe { acc.accLocation(&mut x, &mut y, &mut w, &mut h, &c) }
        .ok()
        .map(|()| (x, y, w, h));
    p
}

/// Gives the element the keyboard focus (`accSelect` with `SELFLAG_TAKEFOCUS`).
pub fn take_focus(e: &Acc) -> windows::core::Result<()> {
    const SELFLAG_TAKEFOCUS: i32 = 0x1;
    // SAFETY: a live object and its child id.
    unsafe { e.acc.accSelect(SELFLAG_TAKEFOCUS, &me(e.child)) }
}

/// The element at `path` below a window's client object.
pub fn follow(hwnd: HWND, path: &[usize]) -> Option<Acc> {
    let mut at = Acc {
        acc: client(hwnd).ok()?,
        child: CHILDID_SELF,
        hwnd: Some(hwnd),
    };
    for &i in path {
        at = children(&at).into_iter().nth(i)?;
    }
    Some(at)
}

/// A window's tree as properties, within a budget of elements; whether it was cut.
pub fn dump(hwnd: HWND, max: usize) -> windows::core::Result<(Props, bool)> {
    let root = Acc {
        acc: client(hwnd)?,
        child: CHILDID_SELF,
        hwnd: Some(hwnd),
    };
    let mut count = 0usize;
    let mut cut = false;
    fn fill(e: &Acc, depth: u32, count: &mut usize, max: usize, cut: &mut bool) -> Props {
        let mut p = props(e);
        *count += 1;
        if depth < 40 {
            for c in children(e) {
                if *count >= max {
                    *cut = true;
                    break;
                }
                p.children.push(fill(&c, depth + 1, count, max, cut));
            }
        }
        p
    }
    let p = fill(&root, 0, &mut count, max, &mut cut);
    Ok((p, cut))
}

/// Runs the element's default action (a button's press).
pub fn do_default(e: &Acc) -> windows::core::Result<()> {
    // SAFETY: a live object and its child id.
    unsafe { e.acc.accDoDefaultAction(&me(e.child)) }
}

/// The name of the element's default action, empty when it has none.
pub fn default_action(e: &Acc) -> String {
    // SAFETY: as above.
    unsafe { e.acc.get_accDefaultAction(&me(e.child)) }
        .map(|b| b.to_string())
        .unwrap_or_default()
}

/// Sets the element's value (an edit's text).
pub fn set_value(e: &Acc, value: &str) -> windows::core::Result<()> {
    // SAFETY: as above, with a BSTR holding the value.
    unsafe { e.acc.put_accValue(&me(e.child), &BSTR::from(value)) }
}

/// Presses a Win32 push button the way its own keyboard handling does (`BM_CLICK`, posted:
/// a button that opens a modal dialog would not return before the dialog closes). Where
/// MSAA has no default action (Wine), this beats synthetic mouse input: it needs neither the
/// pointer nor the foreground. `false` when the element is not such a button.
pub fn click_button(e: &Acc) -> bool {
    const BM_CLICK: u32 = 0x00F5;
    let Some(hwnd) = e.hwnd else { return false };
    if e.child != CHILDID_SELF || !class_of(hwnd).eq_ignore_ascii_case("button") {
        return false;
    }
    // SAFETY: reading a window's style.
    let style = unsafe { GetWindowLongW(hwnd, GWL_STYLE) } as u32;
    // Push buttons only (BS_PUSHBUTTON, BS_DEFPUSHBUTTON): a check box toggles on click.
    if style & 0xF > 1 {
        return false;
    }
    // SAFETY: a message without pointers to a window of another thread.
    unsafe { PostMessageW(Some(hwnd), BM_CLICK, WPARAM(0), LPARAM(0)) }.is_ok()
}
