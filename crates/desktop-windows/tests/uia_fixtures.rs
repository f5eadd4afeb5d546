//! The Windows tree as UI Automation gives it, built from recorded property dumps (keyed by
//! the property names Inspect shows, nested as the apps nest them — written from the UIA
//! documentation's control types for Notepad, a Chromium sign-in page, a WinForms grid and
//! a credentials dialog) and read through the core's pipeline with the CLI's filters.
//! Pure: runs on every platform.

#![allow(clippy::unwrap_used)]

use desktop_core::pipeline::{self, Walked};
use desktop_core::render::read_text;
use desktop_core::{Filters, Node, ReadData, Rect, Role, States, WindowInfo};
use desktop_windows::uia::{self, Element};

/// A 1080p screen.
const SCREEN: Rect = Rect::new(0, 0, 1920, 1080);

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut cx = Context::from_waker(Waker::noop());
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

fn load(name: &str) -> Element {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let json = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn read(name: &str, f: &Filters) -> ReadData {
    let w = load(name);
    let (x, y, width, height) = w.bounding_rectangle.unwrap();
    let hwnd = w.native_window_handle;
    let walked = Walked {
        window: WindowInfo {
            app: name.into(),
            pid: w.process_id,
            title: w.name.clone(),
            id: Some(hwnd),
            bounds: Some(Rect::new(x as i32, y as i32, width as i32, height as i32)),
            focused: true,
            a11y: true,
            modal: false,
            state: Default::default(),
            display: None,
            handle: Some(uia::handle(hwnd, &w.runtime_id)),
        },
        children: uia::tree(hwnd, &w, f.actions),
        incomplete: None,
        timing: Vec::new(),
    };
    let hydrate = async |_: &mut Vec<Node>| Ok(());
    block_on(pipeline::finish(
        walked,
        f,
        Some(SCREEN),
        pipeline::Ids::InOrder,
        hydrate,
    ))
    .unwrap()
}

fn plain() -> Filters {
    Filters {
        visible_only: true,
        ..Filters::default()
    }
}

fn interactive() -> Filters {
    Filters {
        interactive: true,
        ..plain()
    }
}

fn text(name: &str, f: &Filters) -> String {
    read_text(&read(name, f), false)
}

fn lines(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .map(|l| {
            let l = l.trim_start();
            l.split_once(' ').map_or(l, |(_, rest)| rest).to_string()
        })
        .collect()
}

#[track_caller]
fn has_line(text: &str, want: &str) {
    assert!(
        lines(text).iter().any(|l| l == want),
        "no line `{want}` in\n{text}"
    );
}

fn find<'a>(nodes: &'a [Node], pick: &impl Fn(&Node) -> bool) -> Option<&'a Node> {
    nodes.iter().find_map(|n| {
        if pick(n) {
            Some(n)
        } else {
            find(&n.children, pick)
        }
    })
}

/// The values typed into the password fields of the fixtures.
const SECRETS: [&str; 2] = ["Tr0ub4dor&3-secret", "pa55-w0rd-dialog"];

#[track_caller]
fn no_secret(name: &str) {
    for f in [plain(), interactive(), Filters::default()] {
        let data = read(name, &f);
        let json = serde_json::to_string(&data).unwrap();
        let txt = read_text(&data, true);
        for s in SECRETS {
            assert!(!json.contains(s) && !txt.contains(s), "{s} shown in {json}");
        }
    }
}

#[test]
fn notepad_is_an_editor_with_its_text_menus_and_one_status_line() {
    let t = text("notepad", &plain());
    assert!(t.starts_with("notepad \"notes.txt - Notepad\""), "{t}");
    // The page of Notepad is a document that takes text: an editor, its lines as \n.
    has_line(&t, r#"input "Text editor" = "Shopping list\neggs" focused"#);
    for b in ["Minimize", "Maximize", "Close"] {
        has_line(&t, &format!("btn {b:?}"));
    }
    has_line(&t, r#"menuitem "File" collapsed"#);
    has_line(&t, r#"status "Ln 2, Col 5 100% Windows (CRLF) UTF-8""#);
    // The editor's handle names it by runtime id in its window, and parses back.
    let data = read("notepad", &plain());
    let editor = find(&data.elements, &|n| n.name == "Text editor").unwrap();
    assert!(editor
        .states
        .contains(States::EDITABLE | States::MULTILINE | States::FOCUSED));
    assert_eq!(
        uia::parse_handle(&editor.handle),
        Some((131_422, vec![42, 65770, 4, 0]))
    );
}

#[test]
fn a_chromium_page_reads_as_its_form_and_its_address() {
    let t = text("chromium_login", &plain());
    has_line(&t, r#"btn "Forward" disabled"#);
    has_line(&t, r#"input "Email" = "ada@example.com""#);
    has_line(&t, r#"pwd "Password" = (hidden) focused"#);
    has_line(&t, r#"chk "Remember me""#);
    has_line(&t, r#"btn "Sign in""#);
    has_line(&t, r#"lnk "Forgot password?""#);
    // The text far below the fold is not shown, only counted.
    has_line(
        &t,
        r#"web "Sign in" = "http://localhost:8000/login.html" more:1"#,
    );
    assert!(!t.contains("Below the fold"), "{t}");
    // The page alone, as `read --page` gives it: no toolbar.
    let page = Filters {
        page: true,
        ..interactive()
    };
    let p = text("chromium_login", &page);
    assert!(!p.contains("Reload") && p.contains("\"Email\""), "{p}");
    let data = read("chromium_login", &plain());
    let email = find(&data.elements, &|n| n.name == "Email").unwrap();
    assert!(email.states.contains(States::REQUIRED | States::EDITABLE));
    let remember = find(&data.elements, &|n| n.name == "Remember me").unwrap();
    assert!(remember.states.contains(States::CHECKABLE));
    assert!(!remember.states.contains(States::CHECKED));
    no_secret("chromium_login");
}

#[test]
fn a_winforms_grid_shows_its_cells_and_selected_row_not_rows_out_of_view() {
    let t = text("winforms_grid", &plain());
    has_line(&t, r#"table "Orders" more:1"#);
    has_line(&t, r#"row "Row 0" selected"#);
    has_line(&t, r#"input "Customer Row 0" = "Ada Lovelace" focused"#);
    has_line(&t, r#"input "Id Row 1" = "1002" read-only"#);
    has_line(&t, r#"input "Total Row 1" = "17""#);
    for h in ["Id", "Customer", "Total"] {
        has_line(&t, &format!("hdr {h:?}"));
    }
    assert!(!t.contains("Katherine"), "{t}");
    // A row's own actions, listed where asked for: they are what `action --name` takes.
    let with = Filters {
        actions: true,
        ..plain()
    };
    has_line(
        &text("winforms_grid", &with),
        r#"row "Row 1" actions:select,scroll-into-view"#,
    );
    assert!(!t.contains("actions:"), "{t}");
    let data = read("winforms_grid", &plain());
    let save = find(&data.elements, &|n| n.name == "Save").unwrap();
    assert_eq!(save.role, Role::Button);
}

#[test]
fn a_credentials_dialog_never_shows_its_password() {
    let t = text("password", &interactive());
    has_line(&t, r#"input "User name" = "CORP\\ada""#);
    has_line(&t, r#"pwd "Password" = (hidden) focused"#);
    has_line(&t, r#"chk "Remember my credentials" checked"#);
    has_line(&t, r#"btn "OK""#);
    has_line(&t, r#"btn "Cancel""#);
    let data = read("password", &plain());
    let pwd = find(&data.elements, &|n| n.role == Role::Password).unwrap();
    assert!(pwd.is_secure() && pwd.value.is_none());
    no_secret("password");
}

#[test]
fn the_value_read_leaves_passwords_out() {
    // The second cached read brings values by runtime id; a password never takes one,
    // even where a provider would answer.
    let mut w = load("password");
    for c in &mut w.children {
        c.value_value = None;
    }
    let values = w
        .children
        .iter()
        .map(|c| (c.runtime_id.clone(), "from the app".to_string()))
        .collect();
    uia::merge_values(&mut w, &values);
    for c in &w.children {
        assert_eq!(c.value_value.is_some(), !c.is_password, "{c:?}");
    }
}
