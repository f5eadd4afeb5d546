//! Reading and acting through UI Automation: a window's whole subtree in one cached call
//! (the raw view, so Chromium's page and Qt's widgets are in it), values in a second call
//! that leaves password fields out, an element found again by its runtime id, and its
//! patterns (Invoke, Toggle, Value, RangeValue, ExpandCollapse, SelectionItem, ScrollItem).
//! Every call runs on a worker thread of the multithreaded apartment (see `desktop`); an
//! element may pass from one such thread to another ([`Shared`]).
#![allow(unsafe_code)]

use crate::uia::Element;
use std::collections::HashMap;
use windows::core::{Interface, BSTR};
use windows::Win32::Foundation::HWND;
use windows::Win32::System::Com::{CoCreateInstance, CLSCTX_INPROC_SERVER, SAFEARRAY};
use windows::Win32::System::Ole::{SafeArrayCreateVector, SafeArrayPutElement};
use windows::Win32::System::Variant::{VARIANT, VT_ARRAY, VT_BOOL, VT_BSTR, VT_I4, VT_R8};
use windows::Win32::UI::Accessibility::*;

/// The properties every element brings, in one cached call.
const PROPS: [UIA_PROPERTY_ID; 31] = [
    UIA_RuntimeIdPropertyId,
    UIA_ControlTypePropertyId,
    UIA_NamePropertyId,
    UIA_AutomationIdPropertyId,
    UIA_ClassNamePropertyId,
    UIA_FrameworkIdPropertyId,
    UIA_HelpTextPropertyId,
    UIA_BoundingRectanglePropertyId,
    UIA_IsEnabledPropertyId,
    UIA_HasKeyboardFocusPropertyId,
    UIA_IsKeyboardFocusablePropertyId,
    UIA_IsOffscreenPropertyId,
    UIA_IsPasswordPropertyId,
    UIA_IsRequiredForFormPropertyId,
    UIA_NativeWindowHandlePropertyId,
    UIA_ProcessIdPropertyId,
    UIA_ValueIsReadOnlyPropertyId,
    UIA_RangeValueValuePropertyId,
    UIA_RangeValueMinimumPropertyId,
    UIA_RangeValueMaximumPropertyId,
    UIA_ToggleToggleStatePropertyId,
    UIA_ExpandCollapseExpandCollapseStatePropertyId,
    UIA_SelectionItemIsSelectedPropertyId,
    UIA_IsInvokePatternAvailablePropertyId,
    UIA_IsValuePatternAvailablePropertyId,
    UIA_IsRangeValuePatternAvailablePropertyId,
    UIA_IsExpandCollapsePatternAvailablePropertyId,
    UIA_IsTogglePatternAvailablePropertyId,
    UIA_IsSelectionItemPatternAvailablePropertyId,
    UIA_IsScrollItemPatternAvailablePropertyId,
    UIA_IsTextPatternAvailablePropertyId,
];

/// `UIA_E_TIMEOUT`: the provider did not answer within the client's transaction timeout.
const UIA_E_TIMEOUT_HR: windows::core::HRESULT = windows::core::HRESULT(0x8013_1505_u32 as i32);

/// The call timeout UI Automation's own timeouts follow (milliseconds; 0: its defaults).
static CALL_TIMEOUT_MS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Bounds UI Automation's own waits on an app by the command's call timeout, so a worker
/// thread left in a call to a hung app comes back soon after the command gave up on it.
pub fn set_call_timeout(ms: u32) {
    CALL_TIMEOUT_MS.store(ms, std::sync::atomic::Ordering::Relaxed);
}

/// The call timeout set by [`set_call_timeout`] (5 s when none was).
pub fn call_timeout() -> std::time::Duration {
    match CALL_TIMEOUT_MS.load(std::sync::atomic::Ordering::Relaxed) {
        0 => std::time::Duration::from_secs(5),
        ms => std::time::Duration::from_millis(u64::from(ms)),
    }
}

/// An element handed from one worker thread to another: kept in the cache of elements
/// found (`element`), or given to the thread that runs a pattern call.
#[derive(Clone)]
pub struct Shared(IUIAutomationElement);

// SAFETY: every thread that makes UI Automation calls has joined COM's multithreaded
// apartment (`com_init`, in `desktop::bounded` and on the pattern call's thread), and an
// interface pointer obtained in that apartment may be used and released by any of its
// threads; the apartment is kept for the life of the process (`Shared::new`).
unsafe impl Send for Shared {}

impl Shared {
    pub fn new(e: &IUIAutomationElement) -> Shared {
        // Elements outlive the worker thread that found them: the apartment must not end
        // when its last worker does.
        static KEEP_MTA: std::sync::Once = std::sync::Once::new();
        KEEP_MTA.call_once(|| {
            // SAFETY: a usage count on the process's apartment, never given back.
            let _ = unsafe { windows::Win32::System::Com::CoIncrementMTAUsage() };
        });
        Shared(e.clone())
    }

    /// The element (a method, so a closure that calls it takes the whole `Shared`).
    pub fn element(&self) -> &IUIAutomationElement {
        &self.0
    }
}

/// The UI Automation client of one worker thread.
pub struct Uia {
    auto: IUIAutomation,
}

// SAFETY (the four readers below): each reads the union's field its tag names.
fn variant_bool(v: &VARIANT) -> Option<bool> {
    (v.vt() == VT_BOOL).then(|| unsafe { v.Anonymous.Anonymous.Anonymous.boolVal.0 != 0 })
}

fn variant_i32(v: &VARIANT) -> Option<i32> {
    (v.vt() == VT_I4).then(|| unsafe { v.Anonymous.Anonymous.Anonymous.lVal })
}

fn variant_f64(v: &VARIANT) -> Option<f64> {
    (v.vt() == VT_R8).then(|| unsafe { v.Anonymous.Anonymous.Anonymous.dblVal })
}

fn variant_text(v: &VARIANT) -> Option<String> {
    (v.vt() == VT_BSTR).then(|| unsafe { v.Anonymous.Anonymous.Anonymous.bstrVal.to_string() })
}

/// A one-dimensional array of `i32` (a runtime id).
fn variant_ints(v: &VARIANT) -> Vec<i32> {
    if v.vt().0 != VT_ARRAY.0 | VT_I4.0 {
        return Vec::new();
    }
    // SAFETY: the tag says the union holds a SAFEARRAY of VT_I4; one dimension is checked
    // before its elements are read within its bound.
    unsafe {
        let psa: *const SAFEARRAY = v.Anonymous.Anonymous.Anonymous.parray;
        if psa.is_null() || (*psa).cDims != 1 || (*psa).pvData.is_null() {
            return Vec::new();
        }
        let n = (*psa).rgsabound[0].cElements.min(64) as usize;
        std::slice::from_raw_parts((*psa).pvData as *const i32, n).to_vec()
    }
}

/// A runtime id as a property value (for a condition that finds the element again).
fn ints_variant(ids: &[i32]) -> Option<VARIANT> {
    // SAFETY: a vector of VT_I4 created, filled within its bound, and handed to a VARIANT
    // whose drop (VariantClear) destroys it.
    unsafe {
        let psa = SafeArrayCreateVector(VT_I4, 0, u32::try_from(ids.len()).ok()?);
        if psa.is_null() {
            return None;
        }
        for (i, id) in ids.iter().enumerate() {
            let put = i32::try_from(i)
                .ok()
                .and_then(|at| SafeArrayPutElement(psa, &at, (id as *const i32).cast()).ok());
            if put.is_none() {
                let _ = windows::Win32::System::Ole::SafeArrayDestroy(psa);
                return None;
            }
        }
        let mut v = VARIANT::default();
        let inner = &mut *v.Anonymous.Anonymous;
        inner.vt = windows::Win32::System::Variant::VARENUM(VT_ARRAY.0 | VT_I4.0);
        inner.Anonymous.parray = psa;
        Some(v)
    }
}

/// One element's cached properties (children not included).
fn record(e: &IUIAutomationElement) -> Element {
    // SAFETY: reading the element's cache; a property it does not support comes back as
    // the reserved "not supported" value (VT_UNKNOWN), which decodes to nothing.
    let get = |id: UIA_PROPERTY_ID| unsafe { e.GetCachedPropertyValueEx(id, true) }.ok();
    let b = |id| get(id).and_then(|v| variant_bool(&v));
    let f = |id| get(id).and_then(|v| variant_f64(&v));
    let t = |id| get(id).and_then(|v| variant_text(&v)).unwrap_or_default();
    // SAFETY: as above.
    let rect = unsafe { e.CachedBoundingRectangle() }.ok();
    Element {
        control_type: get(UIA_ControlTypePropertyId)
            .and_then(|v| variant_i32(&v))
            .unwrap_or(0),
        name: t(UIA_NamePropertyId),
        automation_id: t(UIA_AutomationIdPropertyId),
        class_name: t(UIA_ClassNamePropertyId),
        framework_id: t(UIA_FrameworkIdPropertyId),
        help_text: t(UIA_HelpTextPropertyId),
        bounding_rectangle: rect.map(|r| {
            (
                f64::from(r.left),
                f64::from(r.top),
                f64::from(r.right - r.left),
                f64::from(r.bottom - r.top),
            )
        }),
        is_enabled: b(UIA_IsEnabledPropertyId),
        has_keyboard_focus: b(UIA_HasKeyboardFocusPropertyId).unwrap_or(false),
        is_keyboard_focusable: b(UIA_IsKeyboardFocusablePropertyId).unwrap_or(false),
        is_offscreen: b(UIA_IsOffscreenPropertyId).unwrap_or(false),
        is_password: b(UIA_IsPasswordPropertyId).unwrap_or(false),
        is_required_for_form: b(UIA_IsRequiredForFormPropertyId).unwrap_or(false),
        value_value: None,
        value_is_read_only: b(UIA_ValueIsReadOnlyPropertyId),
        range_value_value: f(UIA_RangeValueValuePropertyId),
        range_value_minimum: f(UIA_RangeValueMinimumPropertyId),
        range_value_maximum: f(UIA_RangeValueMaximumPropertyId),
        range_value_is_read_only: None,
        toggle_toggle_state: get(UIA_ToggleToggleStatePropertyId).and_then(|v| variant_i32(&v)),
        expand_collapse_expand_collapse_state: get(UIA_ExpandCollapseExpandCollapseStatePropertyId)
            .and_then(|v| variant_i32(&v)),
        selection_item_is_selected: b(UIA_SelectionItemIsSelectedPropertyId),
        is_invoke_pattern_available: b(UIA_IsInvokePatternAvailablePropertyId).unwrap_or(false),
        is_value_pattern_available: b(UIA_IsValuePatternAvailablePropertyId).unwrap_or(false),
        is_range_value_pattern_available: b(UIA_IsRangeValuePatternAvailablePropertyId)
            .unwrap_or(false),
        is_expand_collapse_pattern_available: b(UIA_IsExpandCollapsePatternAvailablePropertyId)
            .unwrap_or(false),
        is_toggle_pattern_available: b(UIA_IsTogglePatternAvailablePropertyId).unwrap_or(false),
        is_selection_item_pattern_available: b(UIA_IsSelectionItemPatternAvailablePropertyId)
            .unwrap_or(false),
        is_scroll_item_pattern_available: b(UIA_IsScrollItemPatternAvailablePropertyId)
            .unwrap_or(false),
        is_text_pattern_available: b(UIA_IsTextPatternAvailablePropertyId).unwrap_or(false),
        runtime_id: get(UIA_RuntimeIdPropertyId)
            .map(|v| variant_ints(&v))
            .unwrap_or_default(),
        native_window_handle: get(UIA_NativeWindowHandlePropertyId)
            .and_then(|v| variant_i32(&v))
            .map_or(0, |h| h as u32 as u64),
        process_id: get(UIA_ProcessIdPropertyId)
            .and_then(|v| variant_i32(&v))
            .map_or(0, |p| p as u32),
        children: Vec::new(),
    }
}

fn cached_children(e: &IUIAutomationElement) -> Vec<IUIAutomationElement> {
    // SAFETY: reading the cached children of an element built with a subtree cache.
    let Ok(kids) = (unsafe { e.GetCachedChildren() }) else {
        return Vec::new();
    };
    // SAFETY: indices below the array's length.
    let n = unsafe { kids.Length() }.unwrap_or(0).max(0);
    (0..n)
        .filter_map(|i| unsafe { kids.GetElement(i) }.ok())
        .collect()
}

impl Uia {
    /// The client, or why UI Automation is not there (Wine has no provider for it).
    pub fn new() -> windows::core::Result<Uia> {
        // SAFETY: creating an in-process COM object on a thread that joined COM.
        let auto: IUIAutomation =
            unsafe { CoCreateInstance(&CUIAutomation8, None, CLSCTX_INPROC_SERVER) }.or_else(
                |_| unsafe { CoCreateInstance(&CUIAutomation, None, CLSCTX_INPROC_SERVER) },
            )?;
        let ms = CALL_TIMEOUT_MS.load(std::sync::atomic::Ordering::Relaxed);
        if ms > 0 {
            // Windows 8 and later: the defaults are 2 s to connect and 20 s a call.
            if let Ok(a2) = auto.cast::<IUIAutomation2>() {
                // SAFETY: setting this client's own timeouts.
                unsafe {
                    let _ = a2.SetConnectionTimeout(ms);
                    let _ = a2.SetTransactionTimeout(ms);
                }
            }
        }
        Ok(Uia { auto })
    }

    /// The client itself (for registering event handlers).
    pub fn client(&self) -> &IUIAutomation {
        &self.auto
    }

    fn request(
        &self,
        props: &[UIA_PROPERTY_ID],
        scope: TreeScope,
        filter: Option<&IUIAutomationCondition>,
        full: bool,
    ) -> windows::core::Result<IUIAutomationCacheRequest> {
        // SAFETY: building a cache request of this client.
        unsafe {
            let r = self.auto.CreateCacheRequest()?;
            for p in props {
                r.AddProperty(*p)?;
            }
            r.SetTreeScope(scope)?;
            match filter {
                Some(c) => r.SetTreeFilter(c)?,
                None => r.SetTreeFilter(&self.auto.RawViewCondition()?)?,
            }
            if !full {
                // Properties only: no references kept into the app for each element.
                r.SetAutomationElementMode(AutomationElementMode_None)?;
            }
            Ok(r)
        }
    }

    /// A window's tree, the window's element at its root, within a budget of elements;
    /// whether it was cut. Two cross-process calls: every property but values, then the
    /// values of elements with a Value pattern that are no password.
    pub fn dump(&self, hwnd: HWND, max: usize) -> windows::core::Result<(Element, bool)> {
        let req = self.request(&PROPS, TreeScope_Subtree, None, false)?;
        // SAFETY: one cached call for the whole subtree.
        let root = unsafe { self.auto.ElementFromHandleBuildCache(hwnd, &req) }?;
        let mut count = 0usize;
        let mut cut = false;
        fn fill(
            e: &IUIAutomationElement,
            depth: u32,
            count: &mut usize,
            max: usize,
            cut: &mut bool,
        ) -> Element {
            let mut out = record(e);
            *count += 1;
            let kids = cached_children(e);
            if depth >= 60 && !kids.is_empty() {
                // Deeper than any real UI: said to be cut, not silently dropped.
                *cut = true;
                return out;
            }
            for c in kids {
                if *count >= max {
                    *cut = true;
                    break;
                }
                out.children.push(fill(&c, depth + 1, count, max, cut));
            }
            out
        }
        let mut top = fill(&root, 0, &mut count, max, &mut cut);
        let values = self.values(hwnd).unwrap_or_default();
        crate::uia::merge_values(&mut top, &values);
        Ok((top, cut))
    }

    /// The Value pattern's text of every element of a window that has one and is no
    /// password, by runtime id: the password's value is never asked for.
    fn values(&self, hwnd: HWND) -> windows::core::Result<HashMap<Vec<i32>, String>> {
        // SAFETY: conditions and a cached call of this client.
        unsafe {
            let has_value = self.auto.CreatePropertyCondition(
                UIA_IsValuePatternAvailablePropertyId,
                &VARIANT::from(true),
            )?;
            let no_password = self
                .auto
                .CreatePropertyCondition(UIA_IsPasswordPropertyId, &VARIANT::from(false))?;
            let both = self.auto.CreateAndCondition(&has_value, &no_password)?;
            let req = self.request(
                &[UIA_RuntimeIdPropertyId, UIA_ValueValuePropertyId],
                TreeScope_Subtree,
                Some(&both),
                false,
            )?;
            let root = self.auto.ElementFromHandleBuildCache(hwnd, &req)?;
            let mut out = HashMap::new();
            let mut stack = vec![root];
            while let Some(e) = stack.pop() {
                if out.len() > 20_000 {
                    break;
                }
                let id = e
                    .GetCachedPropertyValueEx(UIA_RuntimeIdPropertyId, true)
                    .map(|v| variant_ints(&v))
                    .unwrap_or_default();
                let text = e
                    .GetCachedPropertyValueEx(UIA_ValueValuePropertyId, true)
                    .ok()
                    .and_then(|v| variant_text(&v));
                if let (false, Some(text)) = (id.is_empty(), text) {
                    // A long document's text is cut: the read shows a field, not a file.
                    out.insert(id, text.chars().take(4000).collect());
                }
                stack.extend(cached_children(&e));
            }
            Ok(out)
        }
    }

    /// The element of a window with this runtime id (with its properties cached), if it
    /// still lives.
    pub fn find(
        &self,
        hwnd: HWND,
        runtime_id: &[i32],
    ) -> windows::core::Result<Option<(IUIAutomationElement, Element)>> {
        let Some(id) = ints_variant(runtime_id) else {
            return Ok(None);
        };
        // SAFETY: a condition and a cached search of this client, properties of the element
        // found only.
        let found = unsafe {
            let cond = self
                .auto
                .CreatePropertyCondition(UIA_RuntimeIdPropertyId, &id)?;
            let req = self.request(&PROPS, TreeScope_Element, None, true)?;
            let root = self.auto.ElementFromHandle(hwnd)?;
            match root.FindFirstBuildCache(TreeScope_Subtree, &cond, &req) {
                Ok(f) => f,
                // The app did not answer: not the same as the element being gone.
                Err(e) if e.code() == UIA_E_TIMEOUT_HR => return Err(e),
                // Nothing found (a null answer), or the element is no longer available.
                Err(_) => return Ok(None),
            }
        };
        Ok(Some(with_value(found)))
    }

    /// An element found before, its properties read again in one call: `None` when it is
    /// gone (the call fails with `UIA_E_ELEMENTNOTAVAILABLE`) or answers as another element
    /// than `runtime_id` — then it is searched for again ([`Uia::find`]).
    pub fn refresh(
        &self,
        e: &IUIAutomationElement,
        runtime_id: &[i32],
    ) -> windows::core::Result<Option<(IUIAutomationElement, Element)>> {
        let req = self.request(&PROPS, TreeScope_Element, None, true)?;
        // SAFETY: a cached read of one element of this process's apartment.
        let again = match unsafe { e.BuildUpdatedCache(&req) } {
            Ok(a) => a,
            // The app did not answer: not the same as the element being gone.
            Err(err) if err.code() == UIA_E_TIMEOUT_HR => return Err(err),
            Err(_) => return Ok(None),
        };
        let (again, rec) = with_value(again);
        Ok((rec.runtime_id == runtime_id).then_some((again, rec)))
    }
}

/// An element with its cached properties, and its value unless it is a password (asked for
/// apart, so a password's value is never read).
fn with_value(e: IUIAutomationElement) -> (IUIAutomationElement, Element) {
    let mut rec = record(&e);
    if rec.is_value_pattern_available && !rec.is_password {
        // SAFETY: a current property of a live element.
        rec.value_value = unsafe { e.GetCurrentPropertyValueEx(UIA_ValueValuePropertyId, true) }
            .ok()
            .and_then(|v| variant_text(&v));
    }
    (e, rec)
}

/// Whether a call failed because the app did not answer within the client's timeout.
pub fn timed_out(e: &windows::core::Error) -> bool {
    e.code() == UIA_E_TIMEOUT_HR
}

/// The pattern actions of one element (its current state, not the cache).
pub mod act {
    use super::*;

    /// A pattern action that may run the app's own handler (a click's), so may not answer
    /// until a dialog it opens is closed: run bounded by `element`.
    #[derive(Clone, Copy, Debug)]
    pub enum Pattern {
        Invoke,
        Toggle,
        Select,
        Expand,
        Collapse,
    }

    pub fn run(e: &IUIAutomationElement, p: Pattern) -> windows::core::Result<()> {
        match p {
            Pattern::Invoke => invoke(e),
            Pattern::Toggle => toggle(e),
            Pattern::Select => select(e),
            Pattern::Expand => expand(e, true),
            Pattern::Collapse => expand(e, false),
        }
    }

    fn pattern<T: Interface>(
        e: &IUIAutomationElement,
        id: UIA_PATTERN_ID,
    ) -> windows::core::Result<T> {
        // SAFETY: asking a live element for one of its patterns.
        unsafe { e.GetCurrentPatternAs::<T>(id) }
    }

    pub fn invoke(e: &IUIAutomationElement) -> windows::core::Result<()> {
        let p: IUIAutomationInvokePattern = pattern(e, UIA_InvokePatternId)?;
        // SAFETY: a live pattern object.
        unsafe { p.Invoke() }
    }

    pub fn toggle(e: &IUIAutomationElement) -> windows::core::Result<()> {
        let p: IUIAutomationTogglePattern = pattern(e, UIA_TogglePatternId)?;
        // SAFETY: as above.
        unsafe { p.Toggle() }
    }

    pub fn select(e: &IUIAutomationElement) -> windows::core::Result<()> {
        let p: IUIAutomationSelectionItemPattern = pattern(e, UIA_SelectionItemPatternId)?;
        // SAFETY: as above.
        unsafe { p.Select() }
    }

    pub fn expand(e: &IUIAutomationElement, open: bool) -> windows::core::Result<()> {
        let p: IUIAutomationExpandCollapsePattern = pattern(e, UIA_ExpandCollapsePatternId)?;
        // SAFETY: as above.
        unsafe {
            if open {
                p.Expand()
            } else {
                p.Collapse()
            }
        }
    }

    pub fn scroll_into_view(e: &IUIAutomationElement) -> windows::core::Result<()> {
        let p: IUIAutomationScrollItemPattern = pattern(e, UIA_ScrollItemPatternId)?;
        // SAFETY: as above.
        unsafe { p.ScrollIntoView() }
    }

    pub fn set_text(e: &IUIAutomationElement, value: &str) -> windows::core::Result<()> {
        let p: IUIAutomationValuePattern = pattern(e, UIA_ValuePatternId)?;
        // SAFETY: as above, with a BSTR holding the value.
        unsafe { p.SetValue(&BSTR::from(value)) }
    }

    pub fn set_number(e: &IUIAutomationElement, value: f64) -> windows::core::Result<()> {
        let p: IUIAutomationRangeValuePattern = pattern(e, UIA_RangeValuePatternId)?;
        // SAFETY: as above.
        unsafe { p.SetValue(value) }
    }

    pub fn focus(e: &IUIAutomationElement) -> windows::core::Result<()> {
        // SAFETY: a live element.
        unsafe { e.SetFocus() }
    }
}
