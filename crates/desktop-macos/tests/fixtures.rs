//! The macOS tree, built from recorded AX attribute dumps (keyed by Apple's attribute names,
//! nested as the apps nest them) and read through the core's pipeline with the CLI's
//! filters: what an agent sees of Finder, Safari, System Settings and a password dialog.
//! Pure: runs on every platform.

#![allow(clippy::unwrap_used)]

use desktop_core::pipeline::{self, Walked};
use desktop_core::render::read_text;
use desktop_core::{Caps, Filters, Handle, Node, ReadData, Rect, Role, WindowInfo};
use desktop_macos::attrs::{self, Attrs};

const PID: u32 = 501;
/// The main display of a 14-inch MacBook Pro, in points.
const SCREEN: Rect = Rect::new(0, 0, 1512, 982);
/// The values typed into the password fields of the fixtures.
const SAFARI_SECRET: &str = "Tr0ub4dor&3-secret";
const LOGIN_SECRET: &str = "pa55-w0rd-dialog";

/// Runs the read pipeline to its end: with nothing to hydrate it never waits. (The core's
/// `fake::block_on` is the same loop, behind its `fake` feature.)
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

fn load(name: &str) -> Attrs {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let json = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn app_of(name: &str) -> &'static str {
    match name {
        "finder" => "Finder",
        "safari" => "Safari",
        "settings" => "System Settings",
        "login" => "SecurityAgent",
        other => panic!("no fixture {other}"),
    }
}

/// `read` of a recorded window: its tree as `attrs::tree` builds it, through the pipeline
/// with `f`, a hydrate step with nothing to add (a dump has every attribute), on the main
/// display.
fn read(name: &str, f: &Filters) -> ReadData {
    let w = load(name);
    let (x, y) = w.position.unwrap();
    let (width, height) = w.size.unwrap();
    let walked = Walked {
        window: WindowInfo {
            app: app_of(name).into(),
            pid: PID,
            title: w.title.clone().unwrap_or_default(),
            id: None,
            bounds: Some(Rect::new(x as i32, y as i32, width as i32, height as i32)),
            focused: true,
            a11y: true,
            modal: attrs::node(&w, Handle::default()).role == Role::Dialog,
            state: Default::default(),
            display: None,
            handle: Some(attrs::handle(PID, 0, &[])),
        },
        children: attrs::tree(PID, 0, &w),
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

/// `read` (visible only, as the CLI defaults).
fn plain() -> Filters {
    Filters {
        visible_only: true,
        ..Filters::default()
    }
}

/// `read -i`.
fn interactive() -> Filters {
    Filters {
        interactive: true,
        ..plain()
    }
}

/// `read -i --page`.
fn page() -> Filters {
    Filters {
        page: true,
        ..interactive()
    }
}

/// `read --visible-only=false`.
fn everything() -> Filters {
    Filters::default()
}

/// The text form of a read, without boxes.
fn text(name: &str, f: &Filters) -> String {
    read_text(&read(name, f), false)
}

/// The element lines of a read's text, each without its indentation and id.
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

#[track_caller]
fn no_line_with(text: &str, unwanted: &str) {
    assert!(
        !text.contains(unwanted),
        "`{unwanted}` should not be in\n{text}"
    );
}

/// The first node, in pre-order, that `pick` accepts.
fn find_by<'a>(nodes: &'a [Node], pick: &impl Fn(&Node) -> bool) -> Option<&'a Node> {
    nodes.iter().find_map(|n| {
        if pick(n) {
            Some(n)
        } else {
            find_by(&n.children, pick)
        }
    })
}

/// The first node, in pre-order, with this role and name.
fn find<'a>(nodes: &'a [Node], role: &Role, name: &str) -> Option<&'a Node> {
    find_by(nodes, &|n| &n.role == role && n.name == name)
}

/// The JSON element (compact keys) named `name` in a read's `data`.
fn json_element(data: &ReadData, name: &str) -> serde_json::Value {
    fn walk(list: &serde_json::Value, name: &str) -> Option<serde_json::Value> {
        list.as_array()?.iter().find_map(|e| {
            if e["t"] == name {
                Some(e.clone())
            } else {
                walk(&e["c"], name)
            }
        })
    }
    let json = serde_json::to_value(data).unwrap();
    walk(&json["elements"], name).unwrap_or_else(|| panic!("no element {name:?} in {json}"))
}

/// The recorded element at a child path below the window.
fn at<'a>(window: &'a Attrs, path: &[usize]) -> &'a Attrs {
    path.iter().fold(window, |a, &i| &a.children[i])
}

#[test]
fn finder_names_icon_buttons_by_description_and_the_search_field_by_placeholder() {
    let t = text("finder", &plain());
    assert!(t.starts_with("Finder \"Documents\" pid 501\n"), "{t}");
    has_line(&t, r#"btn "Back" -- "See folders you viewed previously""#);
    has_line(
        &t,
        r#"btn "Forward" disabled -- "See folders you viewed previously""#,
    );
    has_line(&t, r#"input hint:"Search""#);
    has_line(&t, r#"tree "Sidebar""#);
    // The row at y=2000 lies outside the list's scroll area: scrolled away, counted.
    has_line(&t, r#"tree "list view" focused more:1"#);
    has_line(&t, "toolbar");
    has_line(&t, r#"txt "Documents""#);
    // Rows are named by their first cell's text, which then is not repeated.
    for row in ["Applications", "Desktop"] {
        has_line(&t, &format!("treeitem {row:?}"));
    }
    no_line_with(&t, r#"txt "Desktop""#);
    // The section row is open, the folder shown is the selected row.
    has_line(&t, r#"treeitem "Favorites" expanded"#);
    has_line(&t, r#"treeitem "Documents" selected"#);
    has_line(&t, r#"treeitem "Notes.txt" selected"#);
    // Unnamed split groups, scroll areas, columns and icons are gone; the window's own
    // buttons are named by their description.
    for gone in ["group", "scroll ", "img", "sep"] {
        assert!(
            !lines(&t).iter().any(|l| l.starts_with(gone)),
            "`{gone}` kept:\n{t}"
        );
    }
    has_line(&t, r#"btn "close button""#);
}

#[test]
fn a_row_below_the_screen_is_dropped_by_visible_only() {
    // The recorded row really is there, at y=2000 on a 982-point-high display.
    let w = load("finder");
    let row = at(&w, &[0, 2, 0, 3]);
    assert_eq!(row.subrole.as_deref(), Some("AXOutlineRow"));
    assert_eq!(row.position, Some((381.0, 2000.0)));

    let visible = text("finder", &plain());
    no_line_with(&visible, "Taxes 2025.pdf");
    no_line_with(&visible, "2 January 2026");
    has_line(&visible, r#"treeitem "Budget 2026.numbers""#);
    has_line(&visible, r#"treeitem "Notes.txt" selected"#);
    has_line(&visible, r#"treeitem "Report.pdf""#);
    let all = text("finder", &everything());
    has_line(&all, r#"treeitem "Taxes 2025.pdf""#);
    let count = |t: &str| {
        lines(t)
            .iter()
            .filter(|l| l.starts_with("treeitem"))
            .count()
    };
    assert_eq!((count(&visible), count(&all)), (7, 8));
}

#[test]
fn rows_keep_their_states_through_i() {
    let t = text("finder", &interactive());
    let l = lines(&t);
    let rows: Vec<&String> = l.iter().filter(|l| l.starts_with("treeitem")).collect();
    // Four sidebar rows and the three file rows on screen, whatever their names.
    assert_eq!(rows.len(), 7, "{t}");
    let states: Vec<(bool, bool)> = rows
        .iter()
        .map(|r| (r.ends_with(" expanded"), r.ends_with(" selected")))
        .collect();
    assert_eq!(
        states,
        [
            (true, false),
            (false, false),
            (false, false),
            (false, true),
            (false, false),
            (false, true),
            (false, false),
        ],
        "{t}"
    );
    // -i keeps controls, not labels: the toolbar's title and the cells' text are gone.
    no_line_with(&t, "txt ");
    has_line(&t, r#"input hint:"Search""#);
    has_line(&t, r#"btn "Name""#);
    has_line(&t, r#"btn "Date Modified""#);
}

/// Finder's and System Settings' rows say their words in `AXRow > AXCell > AXStaticText`;
/// `-i` drops the text, so a row must take its name from there (as a control takes a lone
/// text child's), or an agent sees a list of unnamed `treeitem`s.
#[test]
fn rows_are_named_by_the_text_in_their_cells() {
    let t = text("finder", &interactive());
    has_line(&t, r#"treeitem "Favorites" expanded"#);
    for row in ["Applications", "Desktop"] {
        has_line(&t, &format!("treeitem {row:?}"));
    }
    has_line(&t, r#"treeitem "Documents" selected"#);
    has_line(&t, r#"treeitem "Notes.txt" selected"#);
    let t = text("settings", &interactive());
    has_line(&t, r#"treeitem "Sound" selected"#);
}

#[test]
fn a_handle_parses_back_to_the_path_of_its_element() {
    let w = load("finder");
    let data = read("finder", &plain());
    // The sidebar's Desktop row: split group 0, its scroll area 0, the outline 0, the
    // third row 2 (named by the text in its cell, which holds the row's words).
    let desktop = find(&data.elements, &Role::TreeItem, "Desktop").unwrap();
    assert_eq!(desktop.handle.as_str(), "501/0/0.0.0.2");
    let (pid, window, path) = attrs::parse_handle(&desktop.handle).unwrap();
    assert_eq!((pid, window), (501, 0));
    assert_eq!(path, [0, 0, 0, 2]);
    let recorded = at(&w, &path);
    assert_eq!(recorded.subrole.as_deref(), Some("AXOutlineRow"));
    let label = at(&w, &[0, 0, 0, 2, 0, 1]);
    assert_eq!(label.value, Some(attrs::Value::Text("Desktop".into())));
    // The search field: the toolbar is the window's second child, the field's group its
    // third.
    let search = find_by(&data.elements, &|n| n.hint == "Search").unwrap();
    assert_eq!(search.role, Role::Input);
    assert_eq!(attrs::parse_handle(&search.handle).unwrap().2, [1, 2, 0]);

    // Safari's password field, below the page's wrappers: group, group, scroll area, web
    // area, main landmark (1), form (1), the field (3).
    let w = load("safari");
    let data = read("safari", &page());
    let pwd = find(&data.elements, &Role::Password, "Password").unwrap();
    let (pid, window, path) = attrs::parse_handle(&pwd.handle).unwrap();
    assert_eq!((pid, window), (501, 0));
    assert_eq!(path, [0, 0, 0, 0, 1, 1, 3]);
    let recorded = at(&w, &path);
    assert_eq!(
        (recorded.subrole.as_deref(), recorded.title.as_deref()),
        (Some("AXSecureTextField"), Some("Password"))
    );
}

#[test]
fn safari_page_starts_at_the_web_area_without_the_toolbar() {
    let data = read("safari", &page());
    assert!(data.page);
    let web = &data.elements[0];
    assert_eq!(data.elements.len(), 1);
    assert_eq!(web.role, Role::Web);
    assert_eq!(web.name, "Example Login");
    assert_eq!(web.value.as_deref(), Some("https://example.com/login"));
    let t = read_text(&data, false);
    assert_eq!(
        t.lines().take(2).collect::<Vec<_>>(),
        [
            r#"Safari "Example Login" pid 501"#,
            // The footer lies below the page's scroll area: scrolled away, counted.
            r#"1 web "Example Login" = "https://example.com/login" more:1"#,
        ]
    );
    for chrome in [
        r#"btn "Back""#,
        "Reload this page",
        "Smart Search Field",
        "tab ",
        "close button",
    ] {
        no_line_with(&t, chrome);
    }
    let json = serde_json::to_string(&data).unwrap();
    assert!(json.contains(r#""page":true"#), "{json}");

    // Without --page the browser's own controls are read too.
    let whole = text("safari", &interactive());
    has_line(&whole, r#"btn "Back" -- "Show the previous page""#);
    has_line(&whole, r#"btn "Forward" disabled -- "Show the next page""#);
    has_line(
        &whole,
        r#"input "Smart Search Field" = "https://example.com/login""#,
    );
    has_line(&whole, r#"btn "Reload this page""#);
    has_line(&whole, r#"tab "Docs""#);
    assert!(
        lines(&whole)
            .iter()
            .any(|l| l.starts_with(r#"tab "Example Login""#)),
        "{whole}"
    );
}

#[test]
fn safari_form_reads_as_its_controls() {
    let t = text("safari", &page());
    has_line(&t, r#"input "Email" = "ada@example.com" focused"#);
    has_line(&t, r#"pwd "Password" = (hidden)"#);
    // Off: no state word.
    has_line(&t, r#"chk "Remember me""#);
    has_line(&t, r#"btn "Sign In""#);
    has_line(&t, r#"lnk "Forgot password?""#);
    has_line(&t, r#"lnk "Help""#);
    has_line(&t, r#"lnk "Create an account""#);
    // The footer lies below the screen.
    no_line_with(&t, "Privacy");
    has_line(&text("safari", &everything()), r#"lnk "Privacy""#);
    // The labels beside the fields repeat their names and are dropped even without -i.
    let plain = text(
        "safari",
        &Filters {
            page: true,
            ..plain()
        },
    );
    no_line_with(&plain, r#"txt "Email""#);
    no_line_with(&plain, r#"txt "Password""#);
    has_line(&plain, r#"input "Email" = "ada@example.com" focused"#);
}

#[test]
fn a_password_never_appears_in_any_read() {
    let cases: [(&str, &str, Filters); 6] = [
        ("safari", SAFARI_SECRET, plain()),
        ("safari", SAFARI_SECRET, page()),
        ("safari", SAFARI_SECRET, everything()),
        (
            "safari",
            SAFARI_SECRET,
            Filters {
                full: true,
                ..everything()
            },
        ),
        ("login", LOGIN_SECRET, plain()),
        ("login", LOGIN_SECRET, interactive()),
    ];
    for (name, secret, f) in cases {
        let data = read(name, &f);
        let json = serde_json::to_string(&data).unwrap();
        assert!(!json.contains(secret), "{name} {f:?}: {json}");
        let t = read_text(&data, true);
        assert!(!t.contains(secret), "{name} {f:?}: {t}");
        assert!(t.contains("pwd") && t.contains("= (hidden)"), "{t}");
        let mut values = Vec::new();
        for n in &data.elements {
            n.walk(&mut |n| values.extend(n.value.clone()));
        }
        assert!(!values.iter().any(|v| v.contains(secret)), "{values:?}");
    }
    // Probing with --text finds nothing by the secret.
    for (name, secret) in [("safari", SAFARI_SECRET), ("login", LOGIN_SECRET)] {
        let probe = Filters {
            text: Some(secret.into()),
            ..plain()
        };
        let data = read(name, &probe);
        assert_eq!(data.total, 0, "{}", read_text(&data, false));
    }
}

#[test]
fn headings_and_the_status_line_survive_i() {
    let t = text("safari", &page());
    has_line(&t, r#"h "Sign in to Example""#);
    has_line(&t, r#"status "3 attempts remaining""#);
    // The status group said its words in a text child: one line, no child left.
    let data = read("safari", &page());
    let status = find_by(&data.elements, &|n| n.role == Role::Status).unwrap();
    assert!(status.children.is_empty());
    // Nothing acts on a heading either, but -i keeps it where it drops plain text: the
    // toolbar's title.
    let plain = text("settings", &plain());
    has_line(&plain, r#"txt "Sound""#);
    has_line(&plain, r#"h "Sound Effects""#);
    let t = text("settings", &interactive());
    has_line(&t, r#"h "Sound Effects""#);
    no_line_with(&t, "txt ");
}

/// WebKit may leave a heading's `AXTitle` empty and say its words in an `AXStaticText`
/// child (the second heading of safari.json): it should still read as a heading, and `-i`
/// should keep it.
#[test]
fn a_heading_named_by_its_text_child_stays_a_heading() {
    let plain = text(
        "safari",
        &Filters {
            page: true,
            ..plain()
        },
    );
    has_line(&plain, r#"h "New to Example?""#);
    has_line(&text("safari", &page()), r#"h "New to Example?""#);
}

#[test]
fn switches_are_checked_only_when_on() {
    let t = text("settings", &interactive());
    has_line(&t, r#"switch "Play sound on startup" checked"#);
    has_line(&t, r#"switch "Play user interface sound effects""#);
    let data = read("settings", &interactive());
    let on = find(&data.elements, &Role::Switch, "Play sound on startup").unwrap();
    let off = find(
        &data.elements,
        &Role::Switch,
        "Play user interface sound effects",
    )
    .unwrap();
    assert!(on.value.is_none() && off.value.is_none());
    let on = json_element(&data, "Play sound on startup");
    assert_eq!(
        (&on["r"], &on["k"]),
        (&"switch".into(), &true.into()),
        "{on}"
    );
    let off = json_element(&data, "Play user interface sound effects");
    assert_eq!(off["r"], "switch");
    assert!(off.get("k").is_none() && off.get("v").is_none(), "{off}");
}

#[test]
fn a_slider_and_a_pop_up_show_their_values() {
    let t = text("settings", &plain());
    has_line(&t, r#"slider "Alert volume" = "0.75""#);
    has_line(&t, r#"combo "Alert sound" = "Boop""#);
    // The labels in front of them only repeat their names.
    no_line_with(&t, r#"txt "Alert sound""#);
    no_line_with(&t, r#"txt "Alert volume""#);
    no_line_with(&t, r#"txt "Play sound on startup""#);
    // The slider's knob (an AXValueIndicator) says nothing of its own.
    no_line_with(&t, "valueindicator");
    let data = read("settings", &plain());
    let slider = json_element(&data, "Alert volume");
    assert_eq!(
        (&slider["r"], &slider["v"]),
        (&"slider".into(), &"0.75".into())
    );
    let n = find(&data.elements, &Role::Slider, "Alert volume").unwrap();
    assert!(n.caps.contains(Caps::VALUE), "a numeric value can be set");
    let popup = json_element(&data, "Alert sound");
    assert_eq!(
        (&popup["r"], &popup["v"]),
        (&"combo".into(), &"Boop".into())
    );
}

#[test]
fn a_disabled_button_says_so() {
    let t = text("settings", &interactive());
    has_line(&t, r#"btn "Restore Defaults" disabled"#);
    has_line(&t, r#"btn "Back""#);
    has_line(&t, r#"btn "Forward" disabled"#);
    has_line(&t, r#"btn "full screen button" disabled"#);
    let data = read("settings", &interactive());
    assert_eq!(json_element(&data, "Restore Defaults")["e"], false);
    assert!(json_element(&data, "Back").get("e").is_none());
}

#[test]
fn settings_sidebar_and_sheet() {
    let t = text("settings", &plain());
    has_line(&t, r#"input hint:"Search""#);
    has_line(&t, r#"tree "Sidebar""#);
    for row in ["Wi‑Fi", "Bluetooth", "Displays"] {
        has_line(&t, &format!("treeitem {row:?}"));
    }
    has_line(&t, r#"treeitem "Sound" selected"#);
    // The sheet is a dialog holding its message and its button.
    let sheet = r#"17 dialog
  18 txt "Output changed to MacBook Pro Speakers."
  19 btn "Done" focused
"#;
    assert!(t.contains(sheet), "{t}");
}

#[test]
fn the_login_window_is_a_dialog() {
    let w = load("login");
    assert_eq!(w.subrole.as_deref(), Some("AXDialog"));
    let window = attrs::node(&w, attrs::handle(PID, 0, &[]));
    assert_eq!(window.role, Role::Dialog);
    assert_eq!(window.bounds, Some(Rect::new(556, 301, 400, 260)));
    let data = read("login", &plain());
    assert!(data.window.modal);
    let t = read_text(&data, false);
    has_line(&t, r#"txt "Installer is trying to install new software.""#);
    has_line(&t, r#"txt "Enter your password to allow this.""#);
    has_line(&t, r#"input hint:"User Name" = "ada""#);
    // An AXSecureTextField role (not only the subrole) is a password.
    has_line(&t, r#"pwd hint:"Password" = (hidden) focused"#);
    has_line(&t, r#"btn "Cancel""#);
    has_line(&t, r#"btn "OK""#);
}

#[test]
fn login_read_i_in_full() {
    let t = read_text(&read("login", &interactive()), true);
    let want = r#"SecurityAgent "" pid 501
1 input hint:"User Name" = "ada" 576,397,360,24
2 pwd hint:"Password" = (hidden) 576,431,360,24 focused
3 btn "Cancel" 740,513,92,28
4 btn "OK" 843,512,93,29
"#;
    assert_eq!(t, want);
}

/// Over every element of every recorded dump: `AXValue` is asked for only where the node
/// uses it (without it the node comes out the same), and never of a password field.
#[test]
fn values_are_asked_for_only_where_they_show_and_never_of_a_password() {
    fn each(a: &Attrs, f: &mut impl FnMut(&Attrs)) {
        f(a);
        for c in &a.children {
            each(c, f);
        }
    }
    let (mut secure, mut asked, mut all) = (0, 0, 0);
    for name in ["finder", "safari", "settings", "login"] {
        each(&load(name), &mut |a| {
            let mut bare = a.clone();
            bare.children.clear();
            let full = attrs::node(&bare, Handle::default());
            all += 1;
            if attrs::secure(a) {
                secure += 1;
                assert!(!attrs::wants_value(a), "{a:?}");
            }
            if attrs::wants_value(a) {
                asked += 1;
            } else {
                bare.value = None;
                assert_eq!(attrs::node(&bare, Handle::default()), full, "{a:?}");
            }
        });
    }
    // Safari's and the login dialog's password fields; most elements cost no second call.
    assert!(secure >= 2, "{secure} secure fields");
    assert!(
        asked * 2 < all,
        "{asked} of {all} elements asked for their value"
    );
}
