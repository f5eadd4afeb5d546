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

/// The window behind an accessible object, and the object to ask: its client object where
/// the window object answers nothing.
fn settle(acc: IAccessible) -> (IAccessible, Option<HWND>) {
    let mut hwnd = HWND::default();
    // SAFETY: `hwnd` is a valid out-pointer.
    if unsafe { WindowFromAccessibleObject(&acc, Some(&mut hwnd)) }.is_err() || hwnd.is_invalid() {
        return (acc, None);
    }
    // SAFETY: a live object; asking its role has no preconditions.
    if unsafe { acc.get_accRole(&me(CHILDID_SELF)) }.is_err() {
        if let Ok(c) = client(hwnd) {
            return (c, Some(hwnd));
        }
    }
    (acc, Some(hwnd))
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

/// One element's properties (children empty).
pub fn props(e: &Acc) -> Props {
    let c = me(e.child);
    let acc = &e.acc;
    // SAFETY: calls on a live object with a valid child variant; failures leave defaults.
    let (name, value, description, role, state) = unsafe {
        (
            acc.get_accName(&c)
                .map(|b| b.to_string())
                .unwrap_or_default(),
            acc.get_accValue(&c).ok().map(|b: BSTR| b.to_string()),
            acc.get_accDescription(&c)
                .map(|b| b.to_string())
                .unwrap_or_default(),
            acc.get_accRole(&c)
                .ok()
                .and_then(|v| vt_i4(&v))
                .unwrap_or(0),
            acc.get_accState(&c)
                .ok()
                .and_then(|v| vt_i4(&v))
                .unwrap_or(0) as u32,
        )
    };
    let (mut x, mut y, mut w, mut h) = (0, 0, 0, 0);
    // SAFETY: valid out-pointers.
    let location = unsafe { acc.accLocation(&mut x, &mut y, &mut w, &mut h, &c) }
        .ok()
        .map(|()| (x, y, w, h));
    let mut p = Props {
        role,
        name,
        value,
        description,
        state,
        location,
        ..Props::default()
    };
    if let Some(hwnd) = e.hwnd {
        p.class = class_of(hwnd);
        // SAFETY: reading a window's style.
        p.style = unsafe { GetWindowLongW(hwnd, GWL_STYLE) } as u32;
        if p.class.eq_ignore_ascii_case("button") {
            p.check = button_check(hwnd);
        }
    }
    p
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
