//! The AX API, thinly: one element's attributes in one batched read (decoded into
//! [`Attrs`]; its value apart, never a secure field's; its children in a ranged read),
//! single attributes, a window's frame and state flags, setting them, actions, and the
//! messaging timeout that bounds every call to an app. Every `unsafe` of the backend's
//! accessibility calls is here, each a documented AX function called as its header says.
#![allow(unsafe_code)]

use crate::attrs::{self, Attrs, Value, BATCH};
use desktop_core::{Error, ErrorCode};
use objc2_application_services::{
    AXCopyMultipleAttributeOptions, AXError, AXUIElement, AXValue, AXValueType,
};
use objc2_core_foundation::{
    CFArray, CFBoolean, CFNumber, CFRetained, CFString, CFType, CGPoint, CGSize, CFURL,
};
use std::ptr::NonNull;

pub type Element = CFRetained<AXUIElement>;

/// The accessibility object of the app with `pid`, its calls bounded by `timeout_s`.
pub fn app(pid: i32, timeout_s: f32) -> Element {
    // SAFETY: creating an element reference for a pid has no preconditions.
    let el = unsafe { AXUIElement::new_application(pid) };
    // SAFETY: a valid element; the timeout applies to calls on it.
    unsafe { el.set_messaging_timeout(timeout_s) };
    el
}

/// Sets the timeout every AX call of this process defaults to (on the system-wide
/// element), so no call waits the system's 6 s on a hung app.
pub fn set_global_timeout(timeout_s: f32) {
    // SAFETY: as above, on the system-wide element.
    unsafe {
        let system = AXUIElement::new_system_wide();
        system.set_messaging_timeout(timeout_s);
    }
}

/// An AX failure as the contract's error.
pub fn error(e: AXError, what: &str) -> Error {
    match e.0 {
        // kAXErrorCannotComplete: the app did not answer in time (or is busy).
        -25204 => Error::new(
            ErrorCode::AppUnresponsive,
            format!("the app did not answer in time ({what})"),
        )
        .suggest("The app may be busy or hung: wait, or raise --call-timeout"),
        // kAXErrorAPIDisabled / kAXErrorNotImplemented on a process without the grant.
        -25211 => crate::permissions::required(
            crate::permissions::Permission::Accessibility,
            &super::responsible_app(),
        ),
        // kAXErrorInvalidUIElement: the element is gone.
        -25202 => Error::new(ErrorCode::StaleRef, format!("the element is gone ({what})"))
            .suggest("Read the window again and use the new ids"),
        code => Error::new(
            ErrorCode::ActionFailed,
            format!("the accessibility call failed ({what}: AXError {code})"),
        )
        .suggest("Read the window again; the app may not support this"),
    }
}

fn cfstr(s: &'static str) -> CFRetained<CFString> {
    CFString::from_static_str(s)
}

/// What a read gave one attribute (lists of elements come through ranged reads instead).
enum Raw {
    Missing,
    Str(String),
    Bool(bool),
    Num(f64),
    Point(CGPoint),
    Size(CGSize),
}

fn decode(v: &CFType) -> Raw {
    if let Some(s) = v.downcast_ref::<CFString>() {
        return Raw::Str(s.to_string());
    }
    if let Some(b) = v.downcast_ref::<CFBoolean>() {
        return Raw::Bool(b.as_bool());
    }
    if let Some(n) = v.downcast_ref::<CFNumber>() {
        return n.as_f64().map_or(Raw::Missing, Raw::Num);
    }
    if let Some(u) = v.downcast_ref::<CFURL>() {
        return Raw::Str(u.string().to_string());
    }
    let Some(ax) = v.downcast_ref::<AXValue>() else {
        return Raw::Missing;
    };
    // SAFETY: each out-pointer is of the type the AXValue says it holds.
    unsafe {
        let (mut p, mut s) = (CGPoint::ZERO, CGSize::ZERO);
        match ax.r#type() {
            AXValueType::CGPoint
                if ax.value(AXValueType::CGPoint, NonNull::from(&mut p).cast()) =>
            {
                Raw::Point(p)
            }
            AXValueType::CGSize if ax.value(AXValueType::CGSize, NonNull::from(&mut s).cast()) => {
                Raw::Size(s)
            }
            // A failed slot of the batch (AXError inside an AXValue): no value.
            _ => Raw::Missing,
        }
    }
}

/// One element's attributes (children empty), its first children, and how many children it
/// has in all.
pub struct Read {
    pub attrs: Attrs,
    pub children: Vec<Element>,
    pub child_count: usize,
}

/// Reads [`BATCH`] of `el` in one call (a failed attribute is just absent), its `AXValue`
/// where it shows one and is not secure, then at most `max_children` of its children in a
/// ranged read.
pub fn read(el: &AXUIElement, max_children: usize) -> Result<Read, AXError> {
    let mut attrs = Attrs::default();
    for (name, raw) in BATCH.iter().zip(batch(el, &BATCH)?) {
        let s = || match &raw {
            Raw::Str(s) => Some(s.clone()),
            _ => None,
        };
        let b = || match raw {
            Raw::Bool(b) => Some(b),
            Raw::Num(n) => Some(n != 0.0),
            _ => None,
        };
        match *name {
            "AXRole" => attrs.role = s().unwrap_or_default(),
            "AXSubrole" => attrs.subrole = s(),
            "AXTitle" => attrs.title = s(),
            "AXDescription" => attrs.description = s(),
            "AXHelp" => attrs.help = s(),
            "AXPlaceholderValue" => attrs.placeholder = s(),
            "AXURL" => attrs.url = s(),
            "AXEnabled" => attrs.enabled = b(),
            "AXFocused" => attrs.focused = b(),
            "AXSelected" => attrs.selected = b(),
            "AXExpanded" => attrs.expanded = b(),
            "AXPosition" => {
                if let Raw::Point(p) = raw {
                    attrs.position = Some((p.x, p.y));
                }
            }
            "AXSize" => {
                if let Raw::Size(s) = raw {
                    attrs.size = Some((s.width, s.height));
                }
            }
            _ => {}
        }
    }
    // The value in a call of its own, only where the element shows one and is not secure:
    // AX has no read of one attribute depending on another, and the role is known only now.
    // Most elements (groups, buttons, rows, cells) stay at one call; a password never
    // crosses into this process.
    if attrs::wants_value(&attrs) {
        attrs.value = value(el)?;
    }
    let (children, child_count) = children(el, max_children)?;
    Ok(Read {
        attrs,
        children,
        child_count,
    })
}

/// Several attributes of `el` in one call, decoded, in the order asked (a failed attribute
/// is [`Raw::Missing`]).
fn batch(el: &AXUIElement, names: &[&'static str]) -> Result<Vec<Raw>, AXError> {
    let names: Vec<CFRetained<CFString>> = names.iter().map(|a| cfstr(a)).collect();
    let names = CFArray::from_retained_objects(&names);
    let mut out: *const CFArray = std::ptr::null();
    // SAFETY: `names` is an array of CFStrings; `out` receives a +1 array ("Copy" rule),
    // adopted below. Options empty: a failing attribute does not stop the others.
    let err = unsafe {
        el.copy_multiple_attribute_values(
            names.as_opaque(),
            AXCopyMultipleAttributeOptions::empty(),
            NonNull::from(&mut out),
        )
    };
    if err != AXError::Success {
        return Err(err);
    }
    let Some(out) = NonNull::new(out as *mut CFArray<CFType>) else {
        return Err(AXError::Failure);
    };
    // SAFETY: the array was returned +1 by a Copy function: we own it.
    let out = unsafe { CFRetained::from_raw(out) };
    Ok(out.iter().map(|v| decode(&v)).collect())
}

/// What a window shows of its place and state, in one batched read.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WindowRead {
    /// `AXPosition` and `AXSize`, where both came.
    pub frame: Option<(f64, f64, f64, f64)>,
    pub minimized: bool,
    pub fullscreen: bool,
    pub modal: bool,
}

/// A window's frame and its `AXMinimized`, `AXFullScreen` and `AXModal` in one call (an
/// attribute the window lacks is false).
pub fn window(el: &AXUIElement) -> Result<WindowRead, AXError> {
    const NAMES: [&str; 5] = [
        "AXPosition",
        "AXSize",
        "AXMinimized",
        "AXFullScreen",
        "AXModal",
    ];
    let raw = batch(el, &NAMES)?;
    let flag = |i: usize| match raw.get(i) {
        Some(Raw::Bool(b)) => *b,
        Some(Raw::Num(n)) => *n != 0.0,
        _ => false,
    };
    let frame = match (raw.first(), raw.get(1)) {
        (Some(Raw::Point(p)), Some(Raw::Size(s))) => Some((p.x, p.y, s.width, s.height)),
        _ => None,
    };
    Ok(WindowRead {
        frame,
        minimized: flag(2),
        fullscreen: flag(3),
        modal: flag(4),
    })
}

/// `AXValue` as text, a number or a boolean. Callers ask only where [`attrs::wants_value`]
/// allows it; an attribute the element lacks or refuses is no value, while a hung or gone
/// app is the error the batch would have given.
fn value(el: &AXUIElement) -> Result<Option<Value>, AXError> {
    match copy(el, "AXValue") {
        Ok(v) => Ok(match decode(&v) {
            Raw::Str(s) => Some(Value::Text(s)),
            Raw::Num(n) => Some(Value::Number(n)),
            Raw::Bool(b) => Some(Value::Bool(b)),
            _ => None,
        }),
        Err(e @ (AXError::CannotComplete | AXError::InvalidUIElement | AXError::APIDisabled)) => {
            Err(e)
        }
        Err(_) => Ok(None),
    }
}

/// Up to `max` elements of an array attribute from index `start`
/// (`AXUIElementCopyAttributeValues`): the app hands over that range only, however many it
/// holds, so a table of a million rows costs what its first rows cost. Empty where the
/// attribute is absent or the range lies past its end.
fn range(
    el: &AXUIElement,
    name: &CFString,
    start: usize,
    max: usize,
) -> Result<Vec<Element>, AXError> {
    let (Ok(start), Ok(max)) = (isize::try_from(start), isize::try_from(max)) else {
        return Ok(Vec::new());
    };
    if max == 0 {
        return Ok(Vec::new());
    }
    let mut out: *const CFArray = std::ptr::null();
    // SAFETY: `out` receives a +1 array of elements or stays null.
    let err = unsafe { el.copy_attribute_values(name, start, max, NonNull::from(&mut out)) };
    match err {
        AXError::Success => {}
        AXError::NoValue | AXError::AttributeUnsupported | AXError::IllegalArgument => {
            return Ok(Vec::new())
        }
        e => return Err(e),
    }
    let Some(out) = NonNull::new(out as *mut CFArray<CFType>) else {
        return Ok(Vec::new());
    };
    // SAFETY: returned +1 by a Copy function: we own it.
    let out = unsafe { CFRetained::from_raw(out) };
    Ok(out
        .iter()
        .filter_map(|e| e.downcast::<AXUIElement>().ok())
        .collect())
}

/// At most `max` of an element's children, and how many it has: one ranged read, and a
/// count only when the range came back full.
pub fn children(el: &AXUIElement, max: usize) -> Result<(Vec<Element>, usize), AXError> {
    let name = cfstr("AXChildren");
    let list = range(el, &name, 0, max)?;
    let mut total = list.len();
    if max > 0 && total >= max {
        let mut n: isize = 0;
        // SAFETY: `n` is a valid out-pointer.
        if unsafe { el.attribute_value_count(&name, NonNull::from(&mut n)) } == AXError::Success {
            total = total.max(n.max(0) as usize);
        }
    }
    Ok((list, total))
}

/// The child at `index` alone (a handle's step), asked for as a range of one: the app never
/// hands over the rest of its children.
pub fn child(el: &AXUIElement, index: usize) -> Result<Option<Element>, AXError> {
    Ok(range(el, &cfstr("AXChildren"), index, 1)?
        .into_iter()
        .next())
}

/// An attribute holding elements (`AXWindows`), empty when absent: the first
/// [`attrs::MAX_CHILDREN`] of them, as for children (no app shows more windows than that).
pub fn elements(el: &AXUIElement, name: &'static str) -> Result<Vec<Element>, AXError> {
    range(el, &cfstr(name), 0, attrs::MAX_CHILDREN)
}

/// One attribute's raw value (+1, adopted).
fn copy(el: &AXUIElement, name: &'static str) -> Result<CFRetained<CFType>, AXError> {
    let mut out: *const CFType = std::ptr::null();
    // SAFETY: `out` receives a +1 reference or stays null.
    let err = unsafe { el.copy_attribute_value(&cfstr(name), NonNull::from(&mut out)) };
    if err != AXError::Success {
        return Err(err);
    }
    let out = NonNull::new(out as *mut CFType).ok_or(AXError::NoValue)?;
    // SAFETY: returned +1 by a Copy function.
    Ok(unsafe { CFRetained::from_raw(out) })
}

/// An attribute holding one element (`AXFocusedWindow`, `AXFocusedUIElement`).
pub fn element(el: &AXUIElement, name: &'static str) -> Result<Option<Element>, AXError> {
    match copy(el, name) {
        Ok(v) => Ok(v.downcast::<AXUIElement>().ok()),
        Err(AXError::NoValue | AXError::AttributeUnsupported) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A text attribute (`AXValue` of a field, `AXTitle`).
pub fn string(el: &AXUIElement, name: &'static str) -> Result<Option<String>, AXError> {
    match copy(el, name) {
        Ok(v) => Ok(match decode(&v) {
            Raw::Str(s) => Some(s),
            Raw::Num(n) => Some(format!("{n}")),
            _ => None,
        }),
        Err(AXError::NoValue | AXError::AttributeUnsupported) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A boolean attribute (`AXModal`, `AXFocused`).
pub fn boolean(el: &AXUIElement, name: &'static str) -> Result<Option<bool>, AXError> {
    match copy(el, name) {
        Ok(v) => Ok(match decode(&v) {
            Raw::Bool(b) => Some(b),
            Raw::Num(n) => Some(n != 0.0),
            _ => None,
        }),
        Err(AXError::NoValue | AXError::AttributeUnsupported) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Sets a boolean attribute (`AXFocused`, `AXMain`, `AXManualAccessibility`).
pub fn set_bool(el: &AXUIElement, name: &'static str, on: bool) -> Result<(), AXError> {
    let v: &CFType = CFBoolean::new(on);
    // SAFETY: a CFBoolean is a valid value for a boolean attribute.
    check(unsafe { el.set_attribute_value(&cfstr(name), v) })
}

/// Moves a window's top-left to `x`,`y` (`AXPosition`, an AXValue of a CGPoint).
pub fn set_position(el: &AXUIElement, x: f64, y: f64) -> Result<(), AXError> {
    let mut p = CGPoint::new(x, y);
    // SAFETY: an AXValue of type CGPoint made from a CGPoint.
    let v = unsafe { AXValue::new(AXValueType::CGPoint, NonNull::from(&mut p).cast()) }
        .ok_or(AXError::Failure)?;
    // SAFETY: AXPosition takes an AXValue(CGPoint).
    check(unsafe { el.set_attribute_value(&cfstr("AXPosition"), &v) })
}

/// Resizes a window (`AXSize`, an AXValue of a CGSize); its top-left stays.
pub fn set_size(el: &AXUIElement, w: f64, h: f64) -> Result<(), AXError> {
    let mut s = CGSize::new(w, h);
    // SAFETY: an AXValue of type CGSize made from a CGSize.
    let v = unsafe { AXValue::new(AXValueType::CGSize, NonNull::from(&mut s).cast()) }
        .ok_or(AXError::Failure)?;
    // SAFETY: AXSize takes an AXValue(CGSize).
    check(unsafe { el.set_attribute_value(&cfstr("AXSize"), &v) })
}

/// Sets `AXValue` to text, or to a number where `number` is given.
pub fn set_value(el: &AXUIElement, text: &str, number: Option<f64>) -> Result<(), AXError> {
    let name = cfstr("AXValue");
    let err = match number {
        Some(n) => {
            let n = CFNumber::new_f64(n);
            // SAFETY: a CFNumber for a numeric value.
            unsafe { el.set_attribute_value(&name, &n) }
        }
        None => {
            let s = CFString::from_str(text);
            // SAFETY: a CFString for a text value.
            unsafe { el.set_attribute_value(&name, &s) }
        }
    };
    check(err)
}

/// Selects `len` UTF-16 units of a text element's text from `location` (`AXSelectedTextRange`):
/// the caret at the end with `len` 0, everything from 0. Typing then replaces or appends
/// without key shortcuts, whose letters depend on the keyboard layout.
pub fn select_range(el: &AXUIElement, location: isize, len: isize) -> Result<(), AXError> {
    let mut r = objc2_core_foundation::CFRange {
        location,
        length: len,
    };
    // SAFETY: an AXValue of type CFRange made from a CFRange.
    let v = unsafe { AXValue::new(AXValueType::CFRange, NonNull::from(&mut r).cast()) }
        .ok_or(AXError::Failure)?;
    // SAFETY: AXSelectedTextRange takes an AXValue(CFRange).
    check(unsafe { el.set_attribute_value(&cfstr("AXSelectedTextRange"), &v) })
}

/// Runs one of the element's actions (`AXPress`, `AXRaise`, `AXIncrement`, ...).
pub fn perform(el: &AXUIElement, action: &str) -> Result<(), AXError> {
    let name = CFString::from_str(action);
    // SAFETY: a valid element and action name.
    check(unsafe { el.perform_action(&name) })
}

/// The element's action names.
pub fn actions(el: &AXUIElement) -> Result<Vec<String>, AXError> {
    let mut out: *const CFArray = std::ptr::null();
    // SAFETY: `out` receives a +1 array of CFStrings or stays null.
    check(unsafe { el.copy_action_names(NonNull::from(&mut out)) })?;
    let Some(out) = NonNull::new(out as *mut CFArray<CFString>) else {
        return Ok(Vec::new());
    };
    // SAFETY: returned +1 by a Copy function; its items are CFStrings.
    let out = unsafe { CFRetained::from_raw(out) };
    Ok(out.iter().map(|s| s.to_string()).collect())
}

fn check(e: AXError) -> Result<(), AXError> {
    if e == AXError::Success {
        Ok(())
    } else {
        Err(e)
    }
}

/// Whether this process may use the AX API (the Accessibility permission).
pub fn trusted() -> bool {
    // SAFETY: no options: only asks, shows no prompt.
    unsafe { objc2_application_services::AXIsProcessTrustedWithOptions(None) }
}
