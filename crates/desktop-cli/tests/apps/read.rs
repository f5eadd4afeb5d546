//! `list` and `read` against gtk3-widget-factory, the Chromium fixture page and FeatherPad,
//! cross-checked with pyatspi where it can say the same thing.

use crate::{Env, Test};
use serde_json::Value;

pub const TESTS: &[(&str, Test)] = &[
    (
        "read::list_joins_frames_with_x_windows",
        list_joins_frames_with_x_windows,
    ),
    ("read::list_apps", list_apps),
    (
        "read::gtk_named_controls_have_their_roles_and_states",
        gtk_named_controls,
    ),
    ("read::gtk_agrees_with_pyatspi", gtk_agrees_with_pyatspi),
    (
        "read::gtk_bounds_lie_on_screen_inside_the_window",
        gtk_bounds_on_screen,
    ),
    ("read::filter_roles", filter_roles),
    ("read::filter_depth", filter_depth),
    ("read::filter_bbox", filter_bbox),
    ("read::filter_text", filter_text),
    ("read::filter_interactive", filter_interactive),
    ("read::max_elements_truncates_with_a_marker", max_elements),
    ("read::compact_is_flat_with_the_same_elements", compact),
    ("read::text_format_is_one_line_per_element", text_format),
    ("read::chromium_fixture_elements", chromium_fixture),
    (
        "read::chromium_visible_only_stays_on_screen",
        chromium_visible_only,
    ),
    ("read::password_value_never_printed", password_never_printed),
    ("read::qt_featherpad_reads_without_a_cache", qt_featherpad),
    ("read::default_target_is_the_focused_window", default_target),
];

/// Every element of a read, flattened in order.
pub fn flatten(elements: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    fn go(list: &Value, out: &mut Vec<Value>) {
        for e in list.as_array().into_iter().flatten() {
            out.push(e.clone());
            go(&e["c"], out);
        }
    }
    go(elements, &mut out);
    out
}

pub fn read(env: &Env, args: &[&str]) -> Value {
    let mut all = vec!["read"];
    all.extend_from_slice(args);
    env.desk.cli(&all).data()
}

fn els(env: &Env, args: &[&str]) -> Vec<Value> {
    flatten(&read(env, args)["elements"])
}

fn named<'a>(list: &'a [Value], role: &str, name: &str) -> Vec<&'a Value> {
    list.iter()
        .filter(|e| e["r"] == role && e["t"] == name)
        .collect()
}

fn rect(v: &Value) -> (i64, i64, i64, i64) {
    let b = v.as_array().unwrap_or_else(|| panic!("no bounds: {v}"));
    (
        b[0].as_i64().unwrap(),
        b[1].as_i64().unwrap(),
        b[2].as_i64().unwrap(),
        b[3].as_i64().unwrap(),
    )
}

fn intersects(a: (i64, i64, i64, i64), b: (i64, i64, i64, i64)) -> bool {
    a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
}

const SCREEN: (i64, i64, i64, i64) = (0, 0, 1280, 800);

fn list_joins_frames_with_x_windows(env: &Env) {
    let data = env.desk.cli(&["list"]).data();
    let ws = data["windows"].as_array().unwrap();
    for app in ["gtk3-widget-factory", "Chromium", "FeatherPad"] {
        let w = ws
            .iter()
            .find(|w| w["app"] == app)
            .unwrap_or_else(|| panic!("{app} missing: {data}"));
        assert!(w["id"].as_u64().unwrap() > 0, "{w}");
        assert!(w["pid"].as_u64().unwrap() > 0, "{w}");
        assert_ne!(w["title"], "", "{w}");
        assert!(intersects(rect(&w["bounds"]), SCREEN), "{w}");
    }
    let chromium = ws.iter().find(|w| w["app"] == "Chromium").unwrap();
    assert_eq!(chromium["title"], "Fixture Page - Chromium");
    assert_eq!(chromium["bounds"], serde_json::json!([0, 0, 1200, 780]));
    let focused = ws.iter().filter(|w| w["focused"] == true).count();
    assert!(focused <= 1, "at most one focused window: {data}");
    // --app and --pid narrow the list.
    let pid = chromium["pid"].as_u64().unwrap().to_string();
    let only = env.desk.cli(&["list", "--pid", &pid]).data();
    let only_windows = only["windows"].as_array().unwrap();
    assert!(
        !only_windows.is_empty() && only_windows.iter().all(|w| w["app"] == "Chromium"),
        "{only}"
    );
    let by_app = env.desk.cli(&["list", "--app", "feather"]).data();
    assert_eq!(by_app["windows"].as_array().unwrap().len(), 1, "{by_app}");
}

fn list_apps(env: &Env) {
    let data = env.desk.cli(&["list", "--apps"]).data();
    let apps = data["apps"].as_array().unwrap();
    for name in ["gtk3-widget-factory", "Chromium", "FeatherPad"] {
        let a = apps
            .iter()
            .find(|a| a["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {data}"));
        assert!(a["windows"].as_u64().unwrap() >= 1, "{a}");
    }
}

fn gtk_named_controls(env: &Env) {
    let all = els(env, &["--app", "gtk3-widget-factory"]);
    let checks = named(&all, "chk", "checkbutton");
    assert_eq!(checks.len(), 6, "six check buttons on page 1");
    assert_eq!(checks.iter().filter(|e| e["k"] == true).count(), 2);
    assert_eq!(checks.iter().filter(|e| e["k"] == "mixed").count(), 2);
    assert_eq!(
        checks.iter().filter(|e| e["e"] == false).count(),
        3,
        "three are insensitive"
    );
    assert_eq!(named(&all, "radio", "radiobutton").len(), 6);
    assert_eq!(named(&all, "toggle", "togglebutton").len(), 4);
    assert!(
        all.iter().any(|e| e["r"] == "slider" && e["v"] == "50"),
        "a slider at 50"
    );
    assert!(
        all.iter().any(|e| e["r"] == "spin" && e["v"] == "50"),
        "a spin button at 50"
    );
    assert!(
        all.iter().any(|e| e["r"] == "input" && e["v"] == "entry"),
        "an entry with text"
    );
    assert!(
        all.iter().any(|e| e["r"] == "hdr" && e["t"] == "Name"),
        "tree view column header"
    );
    // Cells of the tree view are not in GTK's cache: they come from the walk.
    assert!(
        all.iter().any(|e| e["r"] == "cell" && e["t"] == "Andrea"),
        "tree view cells"
    );
    let ids: Vec<u64> = all.iter().map(|e| e["i"].as_u64().unwrap()).collect();
    assert_eq!(
        ids,
        (1..=ids.len() as u64).collect::<Vec<_>>(),
        "ids are 1..n in order"
    );
}

/// Maps the pyatspi role names the comparison covers to ours.
fn short_role(atspi: &str) -> Option<&'static str> {
    Some(match atspi {
        "push button" => "btn",
        "check box" => "chk",
        "radio button" => "radio",
        "toggle button" => "toggle",
        "slider" => "slider",
        "spin button" => "spin",
        "table column header" => "hdr",
        _ => return None,
    })
}

fn gtk_agrees_with_pyatspi(env: &Env) {
    let theirs: Vec<(String, String, Value)> = env
        .desk
        .atspi_dump("gtk3-widget-factory", "")
        .into_iter()
        .filter(|e| e["depth"].as_u64() > Some(0))
        .filter(|e| intersects(rect(&e["b"]), SCREEN))
        .filter_map(|e| {
            Some((
                short_role(e["role"].as_str()?)?.to_string(),
                e["name"].as_str()?.to_string(),
                e["b"].clone(),
            ))
        })
        .collect();
    let ours: Vec<(String, String, Value)> = els(env, &["--app", "gtk3-widget-factory", "--full"])
        .into_iter()
        .filter(|e| {
            ["btn", "chk", "radio", "toggle", "slider", "spin", "hdr"]
                .contains(&e["r"].as_str().unwrap())
        })
        .map(|e| {
            (
                e["r"].as_str().unwrap().to_string(),
                e["t"].as_str().unwrap_or("").to_string(),
                e["b"].clone(),
            )
        })
        .collect();
    let mut a = theirs.clone();
    let mut b = ours.clone();
    let key = |x: &(String, String, Value)| format!("{} {} {}", x.0, x.1, x.2);
    a.sort_by_key(key);
    b.sort_by_key(key);
    assert!(a.len() >= 20, "pyatspi saw too little: {a:?}");
    assert_eq!(
        b, a,
        "our controls (role, name, bounds) differ from pyatspi's"
    );
}

fn gtk_bounds_on_screen(env: &Env) {
    let data = read(env, &["--app", "gtk3-widget-factory"]);
    let win = rect(&data["window"]["b"]);
    for e in flatten(&data["elements"]) {
        let b = rect(&e["b"]);
        assert!(b.2 > 0 && b.3 > 0, "{e}");
        assert!(intersects(b, SCREEN), "off screen: {e}");
        assert!(
            b.0 >= win.0
                && b.1 >= win.1
                && b.0 + b.2 <= win.0 + win.2
                && b.1 + b.3 <= win.1 + win.3,
            "outside its window {win:?}: {e}"
        );
    }
}

fn filter_roles(env: &Env) {
    let all = els(env, &["--app", "gtk3-widget-factory"]);
    let only = els(
        env,
        &["--app", "gtk3-widget-factory", "--roles", "chk,radio"],
    );
    assert!(!only.is_empty());
    assert!(
        only.iter().all(|e| e["r"] == "chk" || e["r"] == "radio"),
        "{only:?}"
    );
    let expected = all
        .iter()
        .filter(|e| e["r"] == "chk" || e["r"] == "radio")
        .count();
    assert_eq!(only.len(), expected, "every chk and radio, nothing else");
    // Long aliases work too.
    let alias = els(
        env,
        &["--app", "gtk3-widget-factory", "--roles", "checkbox"],
    );
    assert_eq!(alias.len(), all.iter().filter(|e| e["r"] == "chk").count());
}

fn filter_depth(env: &Env) {
    let shallow = read(
        env,
        &["--app", "gtk3-widget-factory", "--depth", "1", "--full"],
    );
    let top = shallow["elements"].as_array().unwrap();
    assert!(!top.is_empty());
    assert!(
        top.iter().all(|e| e.get("c").is_none()),
        "depth 1 has no grandchildren: {shallow}"
    );
    let two = read(
        env,
        &["--app", "gtk3-widget-factory", "--depth", "2", "--full"],
    );
    assert!(flatten(&two["elements"]).len() > top.len());
    assert!(flatten(&two["elements"]).iter().all(|e| e["c"]
        .as_array()
        .is_none_or(|c| c.iter().all(|g| g.get("c").is_none()))));
}

fn filter_bbox(env: &Env) {
    let bbox = (0, 50, 380, 240);
    let out = els(
        env,
        &["--app", "gtk3-widget-factory", "--bbox", "0,50,380,240"],
    );
    assert!(!out.is_empty());
    for e in out.iter().filter(|e| e.get("c").is_none()) {
        assert!(intersects(rect(&e["b"]), bbox), "outside the bbox: {e}");
    }
    let all = els(env, &["--app", "gtk3-widget-factory"]);
    assert!(
        all.iter()
            .any(|e| e.get("c").is_none() && !intersects(rect(&e["b"]), bbox)),
        "the bbox excluded something"
    );
    assert!(
        !out.iter().any(|e| e["t"] == "togglebutton"),
        "toggle buttons lie right of x=380"
    );
}

fn filter_text(env: &Env) {
    let out = els(
        env,
        &["--app", "gtk3-widget-factory", "--text", "CHECKBUTTON"],
    );
    let leaves: Vec<&Value> = out.iter().filter(|e| e.get("c").is_none()).collect();
    assert_eq!(leaves.len(), 6, "{out:?}");
    assert!(leaves.iter().all(|e| e["t"] == "checkbutton"));
    let by_value = els(
        env,
        &["--app", "gtk3-widget-factory", "--text", "comboboxentry"],
    );
    assert!(
        by_value.iter().any(|e| e["v"] == "comboboxentry"),
        "matches values too: {by_value:?}"
    );
    let none = read(
        env,
        &[
            "--app",
            "gtk3-widget-factory",
            "--text",
            "no such text anywhere",
        ],
    );
    assert_eq!(none["count"], 0);
}

fn filter_interactive(env: &Env) {
    let out = els(env, &["--app", "gtk3-widget-factory", "-i"]);
    let interactive = [
        "btn",
        "toggle",
        "lnk",
        "input",
        "pwd",
        "chk",
        "radio",
        "combo",
        "spin",
        "slider",
        "switch",
        "menuitem",
        "tab",
        "item",
        "treeitem",
        "scrollbar",
        "cell",
        "hdr",
    ];
    for e in out.iter().filter(|e| e.get("c").is_none()) {
        assert!(
            interactive.contains(&e["r"].as_str().unwrap()),
            "not interactive: {e}"
        );
    }
    assert!(
        !out.iter()
            .any(|e| e["r"] == "txt" || e["r"] == "img" || e["r"] == "progress"),
        "{out:?}"
    );
    assert!(out.iter().filter(|e| e["r"] == "chk").count() == 6);
}

fn max_elements(env: &Env) {
    let data = read(
        env,
        &["--app", "gtk3-widget-factory", "--max-elements", "5"],
    );
    assert_eq!(data["count"], 5);
    assert_eq!(flatten(&data["elements"]).len(), 5);
    let total = data["truncated"]["total"].as_u64().unwrap();
    assert!(total > 5, "{data}");
    assert_eq!(data["truncated"]["shown"], 5);
    let full = read(env, &["--app", "gtk3-widget-factory"]);
    assert_eq!(full["count"].as_u64().unwrap(), total);
    assert!(full.get("truncated").is_none());
    let text = env.desk.cli(&[
        "read",
        "--app",
        "gtk3-widget-factory",
        "--max-elements",
        "5",
        "--format",
        "text",
    ]);
    assert!(
        text.stdout
            .contains(&format!("{} more elements not shown", total - 5)),
        "{}",
        text.stdout
    );
}

fn compact(env: &Env) {
    let tree = read(env, &["--app", "gtk3-widget-factory"]);
    let flat = read(env, &["--app", "gtk3-widget-factory", "--compact"]);
    let list = flat["elements"].as_array().unwrap();
    assert!(list.iter().all(|e| e.get("c").is_none()));
    let strip = |v: &Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("c");
        v
    };
    let a: Vec<Value> = flatten(&tree["elements"]).iter().map(strip).collect();
    assert_eq!(list.len(), a.len());
    assert_eq!(list, &a, "same elements, same order");
}

fn text_format(env: &Env) {
    let run = env
        .desk
        .cli(&["read", "--app", "gtk3-widget-factory", "--format", "text"]);
    assert_eq!(run.code, 0);
    let data = read(env, &["--app", "gtk3-widget-factory"]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].starts_with("gtk3-widget-factory \"gtk3-widget-factory\""),
        "{}",
        lines[0]
    );
    assert_eq!(lines.len() as u64 - 1, data["count"].as_u64().unwrap());
    // Each element line starts with its id; ids count up from 1 in order.
    for (n, line) in lines[1..].iter().enumerate() {
        let id = line.trim_start().split(' ').next().unwrap();
        assert_eq!(id.parse::<usize>().ok(), Some(n + 1), "{line}");
    }
    assert!(
        lines
            .iter()
            .any(|l| l.contains("chk \"checkbutton\" 15,369,108,22 checked")),
        "{}",
        run.stdout
    );
}

fn chromium_fixture(env: &Env) {
    let all = els(env, &["--app", "chromium", "--visible-only=false"]);
    for i in [1, 30, 60] {
        assert_eq!(
            named(&all, "btn", &format!("Button {i}")).len(),
            1,
            "Button {i}"
        );
        assert_eq!(
            named(&all, "lnk", &format!("Link {i}")).len(),
            1,
            "Link {i}"
        );
    }
    assert_eq!(
        all.iter()
            .filter(|e| e["r"] == "btn" && e["t"].as_str().unwrap_or("").starts_with("Button "))
            .count(),
        60
    );
    assert_eq!(
        all.iter()
            .filter(|e| e["r"] == "lnk" && e["t"].as_str().unwrap_or("").starts_with("Link "))
            .count(),
        60
    );
    let fields: Vec<&Value> = all
        .iter()
        .filter(|e| e["r"] == "input" && e["t"].as_str().unwrap_or("").starts_with("Field "))
        .collect();
    assert_eq!(fields.len(), 40);
    assert!(
        fields
            .iter()
            .any(|e| e["t"] == "Field 7" && e["v"] == "value 7"),
        "labelled input with its value"
    );
    assert!(named(&all, "input", "Username")
        .iter()
        .any(|e| e["v"] == "alice"));
    assert_eq!(named(&all, "pwd", "Password").len(), 1);
    assert!(
        all.iter().any(|e| e["r"] == "cell" && e["t"] == "Item 7"),
        "table cell"
    );
    assert!(
        all.iter().any(|e| e["r"] == "hdr" && e["t"] == "Color"),
        "table header"
    );
    assert!(
        all.iter().any(|e| e["r"] == "h" && e["t"] == "Sign in"),
        "heading"
    );
    assert!(
        all.iter().any(|e| e["r"] == "btn" && e["t"] == "Reload"),
        "browser toolbar too"
    );
    // A link's text child repeats its name: it is dropped.
    assert!(!all.iter().any(|e| e["r"] == "txt" && e["t"] == "Link 5"));
}

fn chromium_visible_only(env: &Env) {
    let data = read(env, &["--app", "chromium"]);
    let list = flatten(&data["elements"]);
    for e in &list {
        assert!(intersects(rect(&e["b"]), SCREEN), "off screen: {e}");
    }
    let all = els(env, &["--app", "chromium", "--visible-only=false"]);
    assert!(all.len() > list.len(), "the page extends below the screen");
    assert!(
        !list.iter().any(|e| e["t"] == "Item 20"),
        "the last table row is below the fold"
    );
}

fn password_never_printed(env: &Env) {
    for args in [
        vec!["read", "--app", "chromium"],
        vec![
            "read",
            "--app",
            "chromium",
            "--full",
            "--visible-only=false",
        ],
        vec![
            "read",
            "--app",
            "chromium",
            "--format",
            "text",
            "--visible-only=false",
        ],
        vec![
            "read",
            "--app",
            "chromium",
            "--compact",
            "--visible-only=false",
        ],
        vec!["read", "--app", "chromium", "--roles", "pwd"],
        vec!["read", "--app", "chromium", "--text", "hunter2"],
    ] {
        let run = env.desk.cli(&args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stdout);
        assert!(
            !run.stdout.contains("hunter2"),
            "{args:?} leaked the password"
        );
        assert!(
            !run.stderr.contains("hunter2"),
            "{args:?} leaked the password on stderr"
        );
    }
    let probe = read(env, &["--app", "chromium", "--text", "hunter2"]);
    assert_eq!(probe["count"], 0, "the password is not findable by --text");
    let pwd = read(env, &["--app", "chromium", "--roles", "pwd"]);
    let list = flatten(&pwd["elements"]);
    assert_eq!(list.len(), 1);
    assert!(list[0].get("v").is_none());
}

fn qt_featherpad(env: &Env) {
    let all = els(env, &["--app", "featherpad"]);
    for name in ["New", "Open", "Find"] {
        assert_eq!(named(&all, "btn", name).len(), 1, "{name}: {all:?}");
    }
    let save = named(&all, "btn", "Save");
    assert!(
        !save.is_empty() && save.iter().all(|e| e["e"] == false),
        "nothing to save yet: {all:?}"
    );
    for name in ["File", "Edit", "Options", "Help"] {
        assert_eq!(named(&all, "menuitem", name).len(), 1, "{name}");
    }
    assert!(
        all.iter().any(|e| e["r"] == "input" && e["f"] == true),
        "the editor has focus"
    );
    for e in &all {
        assert!(intersects(rect(&e["b"]), SCREEN), "{e}");
    }
}

fn default_target(env: &Env) {
    let data = env.desk.cli(&["list"]).data();
    let focused = data["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["focused"] == true)
        .cloned();
    let read = read(env, &[]);
    match focused {
        Some(w) => assert_eq!(
            read["window"]["id"], w["id"],
            "read without a target reads the focused window"
        ),
        None => assert!(read["window"]["id"].as_u64().is_some()),
    }
}
