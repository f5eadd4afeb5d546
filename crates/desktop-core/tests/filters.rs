//! Filters, simplification, masking and rendering on a fixture tree shaped like a real
//! login form (unnamed wrappers, repeated labels, a password field, off-screen items).

#![allow(clippy::unwrap_used)]

use desktop_core::filter::{self, Filters};
use desktop_core::render::{text_tree, Flat, Tree};
use desktop_core::{Caps, Node, Rect, Role, States};

fn el(role: Role, name: &str, b: (i32, i32, i32, i32), children: Vec<Node>) -> Node {
    Node {
        role,
        name: name.into(),
        bounds: Some(Rect::new(b.0, b.1, b.2, b.3)),
        states: States::SHOWING,
        children,
        ..Node::default()
    }
}

fn with(mut n: Node, f: impl FnOnce(&mut Node)) -> Node {
    f(&mut n);
    n
}

const SECRET: &str = "hunter2-secret";

fn fixture() -> Vec<Node> {
    vec![
        el(
            Role::Group,
            "",
            (0, 0, 400, 300),
            vec![
                el(Role::Heading, "Account", (10, 0, 60, 8), vec![]),
                el(Role::Text, "Username", (10, 10, 80, 20), vec![]),
                with(
                    el(Role::Input, "Username", (100, 10, 200, 20), vec![]),
                    |n| {
                        n.value = Some("alice".into());
                        n.caps = Caps::EDITABLE_TEXT | Caps::TEXT;
                        n.states.insert(States::FOCUSED | States::EDITABLE);
                    },
                ),
                with(
                    el(Role::Password, "Password", (100, 40, 200, 20), vec![]),
                    |n| {
                        n.value = Some(SECRET.into());
                        n.states.insert(States::SECURE);
                    },
                ),
                el(
                    Role::Button,
                    "",
                    (100, 70, 80, 24),
                    vec![el(Role::Text, "Sign in", (110, 72, 60, 20), vec![])],
                ),
                el(
                    Role::Link,
                    "Help",
                    (200, 70, 40, 20),
                    vec![el(Role::Text, "Help", (200, 70, 40, 20), vec![])],
                ),
            ],
        ),
        el(
            Role::Group,
            "Options",
            (0, 300, 400, 100),
            vec![
                with(
                    el(Role::CheckBox, "Remember me", (10, 310, 120, 20), vec![]),
                    |n| n.states.insert(States::CHECKED),
                ),
                el(Role::Text, "Saved for 30 days", (10, 335, 150, 20), vec![]),
                el(Role::Image, "", (150, 310, 16, 16), vec![]),
                with(
                    el(Role::Button, "Disabled", (200, 310, 80, 24), vec![]),
                    |n| {
                        n.states.insert(States::DISABLED);
                        n.actions = vec!["click".into(), "menu".into()];
                    },
                ),
            ],
        ),
        el(
            Role::Scroll,
            "",
            (0, 400, 400, 200),
            vec![el(
                Role::List,
                "Fruits",
                (0, 400, 400, 200),
                vec![
                    el(Role::Item, "Apple", (0, 400, 400, 20), vec![]),
                    el(Role::Item, "Scrolled away", (0, -500, 400, 20), vec![]),
                    with(el(Role::Item, "Hidden", (0, 440, 400, 20), vec![]), |n| {
                        n.states = States::empty()
                    }),
                ],
            )],
        ),
    ]
}

fn names(nodes: &[Node]) -> Vec<String> {
    let mut out = Vec::new();
    for n in nodes {
        n.walk(&mut |x| out.push(format!("{} {}", x.role, x.name)));
    }
    out
}

fn run(f: &Filters) -> Vec<Node> {
    let screen = Rect::new(0, 0, 1280, 800);
    let nodes = filter::structural(fixture(), f);
    let nodes = filter::spatial_and_text(nodes, f, Some(screen));
    let nodes = if f.full {
        nodes
    } else {
        filter::simplify(nodes, f)
    };
    let mut nodes = filter::shown_depth(nodes, f);
    filter::number_and_cap(&mut nodes, f.max_elements);
    nodes
}

fn visible() -> Filters {
    Filters {
        visible_only: true,
        ..Filters::default()
    }
}

#[test]
fn simplify_drops_wrappers_repeats_and_empty_leaves() {
    let out = run(&visible());
    assert_eq!(
        names(&out),
        [
            "h Account",
            // The label "Username" beside the input of that name is dropped too.
            "input Username",
            "pwd Password",
            "btn Sign in",
            "lnk Help",
            "group Options",
            "chk Remember me",
            "txt Saved for 30 days",
            "btn Disabled",
            "list Fruits",
            "item Apple",
        ]
    );
    let ids: Vec<u32> = {
        let mut v = Vec::new();
        for n in &out {
            n.walk(&mut |x| v.push(x.id));
        }
        v
    };
    assert_eq!(
        ids,
        (1..=11).collect::<Vec<_>>(),
        "ids are dense, in pre-order"
    );
}

#[test]
fn a_hint_keeps_pictures_and_controls_not_empty_containers() {
    let hinted = |role: Role, children: Vec<Node>| {
        with(el(role, "", (0, 0, 10, 10), children), |n| {
            n.hint = "top".into()
        })
    };
    let clickable = with(hinted(Role::Group, vec![]), |n| n.clickable = true);
    let page = vec![el(
        Role::Group,
        "Page",
        (0, 0, 100, 100),
        vec![
            // `<div id="top"></div>`: nothing to show, nothing to click.
            hinted(Role::Group, vec![]),
            // An unnamed picture and a clickable icon are told by their hints.
            hinted(Role::Image, vec![]),
            clickable,
        ],
    )];
    let f = visible();
    let out = filter::simplify(page, &f);
    let shown: Vec<String> = out[0]
        .children
        .iter()
        .map(|n| format!("{} {}", n.role, n.hint))
        .collect();
    assert_eq!(shown, ["img top", "group top"]);
    assert!(out[0].children[1].is_interactive());
}

#[test]
fn full_keeps_everything_visible() {
    let out = run(&Filters {
        full: true,
        ..visible()
    });
    let all = names(&out);
    assert!(
        all.contains(&"group ".to_string()),
        "unnamed group kept: {all:?}"
    );
    assert!(all.contains(&"img ".to_string()));
    assert!(
        !all.iter()
            .any(|n| n.contains("Hidden") || n.contains("Scrolled")),
        "{all:?}"
    );
}

#[test]
fn visible_only_false_keeps_hidden_and_offscreen() {
    let out = run(&Filters::default());
    let all = names(&out).join("|");
    assert!(
        all.contains("Hidden") && all.contains("Scrolled away"),
        "{all}"
    );
}

#[test]
fn password_value_never_rendered() {
    let out = run(&Filters {
        full: true,
        ..Filters::default()
    });
    let json = serde_json::to_string(&Tree(&out)).unwrap();
    let flat = serde_json::to_string(&Flat(&out)).unwrap();
    let text = text_tree(&out);
    for s in [&json, &flat, &text] {
        assert!(!s.contains(SECRET), "secret leaked: {s}");
    }
    assert!(json.contains(r#""r":"pwd","t":"Password""#));
    assert!(text.contains(r#"pwd "Password" = (hidden)"#), "{text}");
    // A value that slipped into a secure node is still not shown.
    assert!(json.contains(r#""v":"alice""#));
}

#[test]
fn roles_keep_matches_and_hoist_the_rest() {
    let f = Filters {
        roles: Some(vec![Role::Button, Role::Link]),
        ..visible()
    };
    let out = run(&f);
    assert_eq!(names(&out), ["btn Sign in", "lnk Help", "btn Disabled"]);
    assert!(
        out.iter().all(|n| n.children.is_empty()),
        "matches are hoisted to the top"
    );
}

#[test]
fn depth_cuts_below_the_level() {
    let out = run(&Filters {
        depth: Some(1),
        full: true,
        ..visible()
    });
    assert_eq!(names(&out), ["group ", "group Options", "scroll "]);
}

#[test]
fn depth_counts_the_levels_the_answer_shows() {
    // The unnamed group and the scroll pane are left out of the answer: they are no level.
    let out = run(&Filters {
        depth: Some(1),
        ..visible()
    });
    assert_eq!(
        names(&out),
        [
            "h Account",
            "input Username",
            "pwd Password",
            "btn Sign in",
            "lnk Help",
            "group Options",
            "list Fruits"
        ]
    );
    let out = run(&Filters {
        depth: Some(2),
        ..visible()
    });
    assert!(names(&out).contains(&"chk Remember me".to_string()));
    assert!(names(&out).contains(&"item Apple".to_string()));
    let zero = Filters {
        depth: Some(0),
        ..visible()
    };
    assert!(zero.validate().is_err());
}

#[test]
fn bbox_keeps_only_intersecting_leaves() {
    let bbox = Rect::new(90, 0, 220, 65);
    let out = run(&Filters {
        bbox: Some(bbox),
        ..visible()
    });
    assert_eq!(names(&out), ["input Username", "pwd Password"]);
    for n in &out {
        n.walk(&mut |x| {
            if x.children.is_empty() {
                assert!(x.bounds.unwrap().intersects(&bbox));
            }
        });
    }
}

#[test]
fn text_keeps_matches_with_ancestors() {
    let out = run(&Filters {
        text: Some("REMEMBER".into()),
        ..visible()
    });
    assert_eq!(names(&out), ["group Options", "chk Remember me"]);
    let by_value = run(&Filters {
        text: Some("alic".into()),
        ..visible()
    });
    assert_eq!(names(&by_value), ["input Username"]);
    let secret = run(&Filters {
        text: Some("hunter2".into()),
        ..visible()
    });
    assert!(secret.is_empty(), "a password never matches by value");
}

#[test]
fn interactive_keeps_controls_named_containers_and_headings() {
    let everything = names(&run(&visible()));
    for text in ["h Account", "txt Saved for 30 days"] {
        assert!(everything.contains(&text.to_string()), "{everything:?}");
    }
    let out = run(&Filters {
        interactive: true,
        ..visible()
    });
    assert_eq!(
        names(&out),
        [
            "h Account",
            "input Username",
            "pwd Password",
            "btn Sign in",
            "lnk Help",
            "group Options",
            "chk Remember me",
            "btn Disabled",
            "list Fruits",
            "item Apple",
        ]
    );
}

#[test]
fn max_elements_truncates_in_order_and_counts_all() {
    let f = Filters {
        max_elements: Some(3),
        ..visible()
    };
    let nodes = filter::structural(fixture(), &f);
    let screen = Rect::new(0, 0, 1280, 800);
    let mut nodes = filter::simplify(filter::spatial_and_text(nodes, &f, Some(screen)), &f);
    let total = filter::number_and_cap(&mut nodes, Some(3));
    assert_eq!(total, 11);
    assert_eq!(
        names(&nodes),
        ["h Account", "input Username", "pwd Password"]
    );
}

#[test]
fn snapshot_json_and_text() {
    let out = run(&visible());
    insta::assert_snapshot!("tree_json", serde_json::to_string(&Tree(&out)).unwrap());
    insta::assert_snapshot!("flat_json", serde_json::to_string(&Flat(&out)).unwrap());
    insta::assert_snapshot!("tree_text", text_tree(&out));
}

#[test]
fn more_counts_hidden_rows_like_the_showing_ones() {
    let hidden = |n: Node| with(n, |n| n.states = States::empty());
    let tree = vec![
        el(
            Role::List,
            "Inbox",
            (0, 0, 100, 40),
            vec![
                el(Role::Item, "Message 1", (0, 0, 100, 20), vec![]),
                el(Role::Item, "Message 2", (0, 20, 100, 20), vec![]),
                hidden(el(Role::Item, "Message 3", (0, 40, 100, 20), vec![])),
                hidden(el(Role::Item, "Message 4", (0, 60, 100, 20), vec![])),
            ],
        ),
        el(
            Role::TabList,
            "",
            (0, 50, 100, 20),
            vec![
                el(Role::Tab, "Page", (0, 50, 100, 20), vec![]),
                // A helper the strip keeps hidden is not a tab scrolled away.
                hidden(el(Role::Group, "", (0, 50, 100, 20), vec![])),
            ],
        ),
    ];
    let nodes = filter::structural(tree, &visible());
    assert_eq!((nodes[0].more, nodes[1].more), (2, 0));
}

/// A browser window: toolbar, tab strip, two empty hidden documents and the page.
fn browser() -> Vec<Node> {
    let doc = |name: &str, showing: bool, children: Vec<Node>| {
        with(el(Role::Web, name, (0, 90, 1200, 690), children), |n| {
            if !showing {
                n.states = States::empty();
            }
        })
    };
    vec![
        el(
            Role::Toolbar,
            "",
            (0, 40, 1200, 46),
            vec![el(Role::Button, "Reload", (78, 46, 34, 34), vec![])],
        ),
        el(
            Role::Group,
            "",
            (0, 90, 1200, 690),
            vec![
                doc("", false, vec![]),
                doc(
                    "Inbox",
                    true,
                    vec![
                        el(Role::Heading, "Inbox", (8, 100, 300, 20), vec![]),
                        el(Role::Button, "Archive", (8, 130, 60, 20), vec![]),
                    ],
                ),
                doc("", true, vec![]),
            ],
        ),
        el(
            Role::TabList,
            "",
            (0, 0, 1200, 40),
            vec![el(Role::Tab, "Inbox", (28, 0, 256, 41), vec![])],
        ),
    ]
}

#[test]
fn a_page_read_is_the_showing_named_document() {
    let page = desktop_core::page::only(browser()).unwrap();
    assert_eq!(names(&page), ["web Inbox", "h Inbox", "btn Archive"]);
    // The focus wins over a name: the document the user is in.
    let mut tree = browser();
    tree[1].children[2].states.insert(States::FOCUSED);
    assert_eq!(names(&desktop_core::page::only(tree).unwrap()), ["web "]);
    // No document: the window comes back whole.
    let plain = fixture();
    let back = desktop_core::page::only(plain.clone()).unwrap_err();
    assert_eq!(names(&back), names(&plain));
}

#[test]
fn a_tab_title_keeps_its_words_not_its_memory_figure() {
    use desktop_core::steady_name;
    assert_eq!(steady_name("Inbox - Memory usage - 26.8 MB"), "Inbox");
    assert_eq!(steady_name("Big - Memory usage - 1,024 KB"), "Big");
    // Only a size after the marker goes; words a page chose stay.
    assert_eq!(
        steady_name("Notes - Memory usage - high"),
        "Notes - Memory usage - high"
    );
    assert_eq!(
        steady_name("Inbox - Audio playing"),
        "Inbox - Audio playing"
    );
}

#[test]
fn a_status_line_reads_as_one_element_and_interactive_keeps_it() {
    let bar = el(
        Role::Status,
        "",
        (0, 780, 1200, 20),
        vec![
            el(Role::Text, "Saved", (0, 780, 40, 20), vec![]),
            el(Role::Text, "3 files", (50, 780, 40, 20), vec![]),
        ],
    );
    let f = Filters {
        interactive: true,
        ..visible()
    };
    let nodes = filter::structural(vec![bar], &f);
    assert_eq!(names(&nodes), ["status Saved 3 files"]);
}

#[test]
fn without_bounds_a_read_has_no_boxes() {
    use desktop_core::render::{text_tree_with, Elements};
    let out = run(&visible());
    let shaped = |bounds| {
        serde_json::to_string(&Elements {
            nodes: &out,
            flat: false,
            bounds,
        })
        .unwrap()
    };
    assert!(shaped(true).contains("\"b\":[100,10,200,20]"));
    assert_eq!(shaped(true), serde_json::to_string(&Tree(&out)).unwrap());
    assert!(!shaped(false).contains("\"b\":"), "{}", shaped(false));
    assert!(shaped(false).contains("\"t\":\"Username\""));
    assert!(!text_tree_with(&out, false).contains("100,10,200,20"));
}
