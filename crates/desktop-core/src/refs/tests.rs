//! The ids' rules on fixture trees: kept across reads whatever they show, never given twice,
//! refused with what they were.

use super::*;
use crate::error::ErrorCode;
use crate::role::Role;

fn node(role: Role, name: &str, path: &str, children: Vec<Node>) -> Node {
    Node {
        role,
        name: name.into(),
        handle: Handle::new(path),
        bounds: Some(Rect::new(path.len() as i32 * 10, 0, 10, 10)),
        children,
        ..Node::default()
    }
}

use crate::node::Node;

fn data(elements: Vec<Node>, title: &str, wid: u64) -> ReadData {
    ReadData::fixture("demo", title, wid, elements)
}

fn form() -> Vec<Node> {
    vec![node(
        Role::Group,
        "Form",
        "/1",
        vec![
            node(Role::Button, "OK", "/2", vec![]),
            node(Role::Button, "Cancel", "/3", vec![]),
            node(Role::CheckBox, "Amber", "/4", vec![]),
        ],
    )]
}

/// `(id, name)` of every element, in reading order.
fn ids(d: &ReadData) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for n in &d.elements {
        n.walk(&mut |x| out.push((x.id, x.name.clone())));
    }
    out
}

fn numbered(map: &mut RefMap, elements: Vec<Node>) -> Vec<(u32, String)> {
    let mut d = data(elements, "Main", 100);
    map.number_read(&mut d, true);
    ids(&d)
}

fn pairs(list: &[(u32, &str)]) -> Vec<(u32, String)> {
    list.iter().map(|(i, n)| (*i, n.to_string())).collect()
}

#[test]
fn the_first_read_numbers_in_tree_order() {
    let mut map = RefMap::default();
    assert_eq!(
        numbered(&mut map, form()),
        pairs(&[(1, "Form"), (2, "OK"), (3, "Cancel"), (4, "Amber")])
    );
}

#[test]
fn a_read_with_other_filters_gives_the_same_ids() {
    let mut map = RefMap::default();
    numbered(&mut map, form());
    // Only the check box and Cancel (`--roles`, `-i`, `--bbox`): their own ids.
    let some = vec![
        node(Role::CheckBox, "Amber", "/4", vec![]),
        node(Role::Button, "Cancel", "/3", vec![]),
    ];
    assert_eq!(
        numbered(&mut map, some),
        pairs(&[(4, "Amber"), (3, "Cancel")])
    );
    // A read showing what the first did not: new ids past every id given.
    let more = vec![node(
        Role::Group,
        "Form",
        "/1",
        vec![
            node(Role::Text, "Hidden hint", "/9", vec![]),
            node(Role::Button, "OK", "/2", vec![]),
        ],
    )];
    assert_eq!(
        numbered(&mut map, more),
        pairs(&[(1, "Form"), (5, "Hidden hint"), (2, "OK")])
    );
    let (_, e) = map.lookup(4, &Target::default()).unwrap();
    assert_eq!(e.name, "Amber");
}

#[test]
fn ids_are_never_given_twice() {
    let mut map = RefMap::default();
    numbered(&mut map, form());
    // Amber removed, Kestrel inserted where it was: a new id; Amber's is not reused.
    let mut changed = form();
    changed[0].children[2] = node(Role::CheckBox, "Kestrel", "/5", vec![]);
    assert_eq!(numbered(&mut map, changed)[3], (5, "Kestrel".to_string()));
    let (_, amber) = map.lookup(4, &Target::default()).unwrap();
    assert_eq!(amber.name, "Amber", "id 4 still names what it named");
    // The same object showing another name is another element to an agent.
    let mut renamed = form();
    renamed[0].children[0].name = "Okay".into();
    assert_eq!(numbered(&mut map, renamed)[1], (6, "Okay".to_string()));
    let (_, ok) = map.lookup(2, &Target::default()).unwrap();
    assert!(ok.gone && ok.name == "OK");
}

#[test]
fn a_combo_box_named_after_its_option_keeps_its_id() {
    let mut map = RefMap::default();
    let combo = |name: &str| vec![node(Role::Combo, name, "/c", vec![])];
    assert_eq!(numbered(&mut map, combo("Left")), pairs(&[(1, "Left")]));
    assert_eq!(numbered(&mut map, combo("Right")), pairs(&[(1, "Right")]));
    let (_, e) = map.lookup(1, &Target::default()).unwrap();
    assert!(!e.gone && e.name == "Right");
    assert!(same_element(e, "combo", "Middle"));
}

#[test]
fn a_button_named_by_its_label_keeps_its_id_in_a_full_read() {
    // `-i` lifts the label child into the button's name; `--full` keeps the child.
    let mut lifted = node(Role::Button, "Save", "/b", vec![]);
    lifted.name_from_child = true;
    let whole = node(
        Role::Button,
        "",
        "/b",
        vec![node(Role::Text, "Save", "/t", vec![])],
    );
    let mut map = RefMap::default();
    assert_eq!(
        numbered(&mut map, vec![lifted.clone()]),
        pairs(&[(1, "Save")])
    );
    assert_eq!(
        numbered(&mut map, vec![whole.clone()]),
        pairs(&[(1, ""), (2, "Save")])
    );
    assert_eq!(numbered(&mut map, vec![lifted]), pairs(&[(1, "Save")]));
    // Read the other way round: a full read first.
    let mut map = RefMap::default();
    numbered(&mut map, vec![whole]);
    let mut lifted = node(Role::Button, "Save", "/b", vec![]);
    lifted.name_from_child = true;
    assert_eq!(numbered(&mut map, vec![lifted]), pairs(&[(1, "Save")]));
    let (_, e) = map.lookup(1, &Target::default()).unwrap();
    assert!(e.label && e.name == "Save");
}

#[test]
fn ids_unknown_or_let_go_are_refused_with_what_they_were() {
    let mut map = RefMap::default();
    numbered(&mut map, form());
    let err = map.lookup(40, &Target::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::ElementNotFound);
    assert!(err.message.contains("1-4"), "{}", err.message);
    map.windows[0].elements.retain(|e| e.id != 3);
    let err = map.lookup(3, &Target::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::StaleRef, "{}", err.message);
}

#[test]
fn windows_keep_their_own_ids_and_a_window_let_go_resumes_past_them() {
    let mut map = RefMap::default();
    numbered(&mut map, form());
    for w in 0..MAX_WINDOWS as u64 {
        let mut d = data(vec![node(Role::Link, "x", "/x", vec![])], "Other", 200 + w);
        map.number_read(&mut d, true);
        assert_eq!(d.elements[0].id, 1, "each window numbers from 1");
    }
    assert!(map.windows.iter().all(|w| w.window_id != Some(100)));
    // Read again after being let go: nothing it gave before is given again.
    let mut d = data(vec![node(Role::Link, "New", "/7", vec![])], "Main", 100);
    map.number_read(&mut d, true);
    assert_eq!(d.elements[0].id, 5);
}

#[test]
fn a_read_aside_leaves_the_latest_window_as_it_was() {
    let mut map = RefMap::default();
    map.number_read(&mut data(form(), "Main", 100), true);
    map.number_read(
        &mut data(vec![node(Role::Link, "x", "/x", vec![])], "Other", 200),
        true,
    );
    // The first window read again in the background: still the other one is the latest.
    let mut again = data(form(), "Main", 100);
    map.number_read(&mut again, false);
    assert_eq!(ids(&again)[1], (2, "OK".to_string()));
    assert_eq!(map.lookup(1, &Target::default()).unwrap().1.name, "x");
    // A window new to the map, read aside, is the oldest, and never the one let go.
    for w in 0..MAX_WINDOWS as u64 {
        let mut d = data(vec![node(Role::Link, "y", "/y", vec![])], "Aside", 300 + w);
        map.number_read(&mut d, false);
        assert_eq!(d.elements[0].id, 1);
        assert!(map.windows.iter().any(|r| r.window_id == Some(300 + w)));
    }
    assert_eq!(map.windows.len(), MAX_WINDOWS);
    assert_eq!(map.windows.last().unwrap().title, "Other");
}

#[test]
fn a_window_record_is_bounded() {
    let mut map = RefMap::default();
    let many = |from: usize| -> Vec<Node> {
        (from..from + 1000)
            .map(|i| node(Role::Item, &format!("row {i}"), &format!("/r{i}"), vec![]))
            .collect()
    };
    for round in 0..6 {
        numbered(&mut map, many(round * 1000));
    }
    let w = map.windows.last().unwrap();
    assert_eq!(w.elements.len(), MAX_ENTRIES);
    assert_eq!(w.next, 6001);
    assert_eq!(w.elements.first().unwrap().id, 1001, "the oldest let go");
    assert!(w.elements.windows(2).all(|p| p[0].id < p[1].id));
}

#[test]
fn numbering_the_same_read_again_leaves_the_file_alone() {
    let dir = std::env::temp_dir().join(format!("desktop-core-refs-{}", std::process::id()));
    let path = dir.join("refs.json");
    let mut first = data(form(), "Main", 100);
    RefMap::number(&path, &mut first).unwrap();
    let written = std::fs::metadata(&path).unwrap().modified().unwrap();
    let mut again = data(form(), "Main", 100);
    again.ts = 2;
    std::thread::sleep(std::time::Duration::from_millis(20));
    RefMap::number(&path, &mut again).unwrap();
    assert_eq!(ids(&again), ids(&first));
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        written,
        "an unchanged read is not written again"
    );
    // Another window read in between: the first one is the latest again.
    RefMap::number(&path, &mut data(vec![], "Second", 200)).unwrap();
    RefMap::number(&path, &mut again).unwrap();
    let map = RefMap::load(&path);
    assert_eq!(map.windows.len(), 2);
    assert_eq!(map.windows.last().unwrap().title, "Main");
    // Another process writes the file: the file counts, not this process's memory of it.
    let mut other = RefMap::load(&path);
    let mut third = data(vec![node(Role::Button, "Go", "/g", vec![])], "Main", 100);
    other.number_read(&mut third, true);
    other.save(&path).unwrap();
    let mut fourth = data(vec![node(Role::Link, "Help", "/h", vec![])], "Main", 100);
    RefMap::number(&path, &mut fourth).unwrap();
    assert_eq!(third.elements[0].id, 5);
    assert_eq!(
        fourth.elements[0].id, 6,
        "the other process's id 5 is not given again"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn processes_numbering_at_once_never_give_an_id_twice() {
    let dir = std::env::temp_dir().join(format!("desktop-core-lock-{}", std::process::id()));
    let path = dir.join("refs.json");
    RefMap::number(&path, &mut data(form(), "Main", 100)).unwrap();
    // Threads stand for processes here: each forgets this process's copy by writing.
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut got = Vec::new();
                for i in 0..25 {
                    let name = format!("t{t} n{i}");
                    let mut d = data(
                        vec![node(Role::Button, &name, &format!("/{t}/{i}"), vec![])],
                        "Main",
                        100,
                    );
                    RefMap::number(&path, &mut d).unwrap();
                    got.push(d.elements[0].id);
                }
                got
            })
        })
        .collect();
    let mut all: Vec<u32> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 100, "every new element its own id");
    assert_eq!(RefMap::load(&path).windows[0].next, 105);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lookup_by_window() {
    let mut map = RefMap::default();
    map.number_read(&mut data(form(), "Main", 100), true);
    map.number_read(
        &mut data(vec![node(Role::Link, "Other", "/9", vec![])], "Second", 200),
        true,
    );
    let scope = Target {
        app: Some("demo".into()),
        window: Some("main".into()),
        ..Target::default()
    };
    let (w, e) = map.lookup(2, &scope).unwrap();
    assert_eq!(w.title, "Main");
    assert_eq!(e.name, "OK");
    assert_eq!(e.ancestry, ["group:Form"]);
    assert_eq!(
        map.lookup(1, &Target::default()).unwrap().1.name,
        "Other",
        "no scope: the window read last"
    );
    let err = map.lookup(2, &Target::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::ElementNotFound);
    let nope = Target {
        window: Some("nope".into()),
        ..Target::default()
    };
    assert_eq!(
        map.lookup(1, &nope).unwrap_err().code,
        ErrorCode::WindowMismatch
    );
}

#[test]
fn rematch_by_fingerprint() {
    let mut map = RefMap::default();
    map.number_read(&mut data(form(), "Main", 100), true);
    let window = map.windows[0].clone();
    let entry = window.get(3).unwrap().clone();
    // New objects, new paths, one element inserted in front: still found.
    let fresh = vec![node(
        Role::Group,
        "Form",
        "/11",
        vec![
            node(Role::Button, "New", "/10", vec![]),
            node(Role::Button, "OK", "/12", vec![]),
            node(Role::Button, "Cancel", "/13", vec![]),
        ],
    )];
    assert_eq!(
        rematch(&entry, &fresh, &window).unwrap().handle.as_str(),
        "/13"
    );
    // Gone.
    let gone = vec![node(
        Role::Group,
        "Form",
        "/11",
        vec![node(Role::Button, "OK", "/12", vec![])],
    )];
    assert_eq!(
        rematch(&entry, &gone, &window).unwrap_err().code,
        ErrorCode::StaleRef
    );
    // Moved under another named container: not the same element.
    let moved = vec![node(
        Role::Group,
        "Other form",
        "/11",
        vec![node(Role::Button, "Cancel", "/13", vec![])],
    )];
    assert_eq!(
        rematch(&entry, &moved, &window).unwrap_err().code,
        ErrorCode::StaleRef
    );
    // Two look-alikes elsewhere: ambiguous.
    let twice = vec![node(
        Role::Group,
        "Form",
        "/11",
        vec![
            node(Role::Button, "Cancel", "/20", vec![]),
            node(Role::Button, "Cancel", "/21", vec![]),
        ],
    )];
    assert_eq!(
        rematch(&entry, &twice, &window).unwrap_err().code,
        ErrorCode::AmbiguousTarget
    );
}

#[test]
fn a_look_alike_that_lived_beside_it_is_never_taken_for_it() {
    let mut map = RefMap::default();
    // Two rows, each with its Delete button.
    let rows = |paths: &[&str]| -> Vec<Node> {
        paths
            .iter()
            .map(|p| node(Role::Button, "Delete", p, vec![]))
            .collect()
    };
    map.number_read(&mut data(rows(&["/a", "/b"]), "Main", 100), true);
    // Row a goes: its id must not slide onto row b's button.
    map.number_read(&mut data(rows(&["/b"]), "Main", 100), true);
    let window = map.windows[0].clone();
    let a = window.get(1).unwrap();
    let err = rematch(a, &rows(&["/b"]), &window).unwrap_err();
    assert_eq!(err.code, ErrorCode::StaleRef);
    assert!(err.message.contains("element 2"), "{}", err.message);
    // A button re-made after the last read that showed it (a page re-rendered): found.
    let now = rows(&["/b", "/c"]);
    let again = rematch(a, &now, &window).unwrap();
    assert_eq!(again.handle.as_str(), "/c");
}

#[test]
fn same_element_checks_role_and_name() {
    let e = RefEntry {
        id: 1,
        handle: Handle::default(),
        role: "btn".into(),
        name: "OK".into(),
        label: false,
        ancestry: vec![],
        bounds: None,
        first: 1,
        last: 1,
        gone: false,
    };
    assert!(same_element(&e, "btn", "OK"));
    assert!(!same_element(&e, "btn", "Clicked"));
    assert!(!same_element(&e, "lnk", "OK"));
    let labelled = RefEntry { label: true, ..e };
    assert!(same_element(&labelled, "btn", ""));
}
