//! The logic every backend shares, pinned down on the in-memory desktop: ids resolved by
//! handle, then fingerprint, never to a wrong element; requests validated before any input.

use crate::backend::Desktop;
use crate::fake::{block_on, el, refs_file, FakeDesktop};
use crate::request::{Action, ActionRequest, Aim, Button, Element};
use crate::{ErrorCode, Filters, Node, Role, States, Target};

mod windows;

fn form() -> Vec<Node> {
    let mut agree = el(Role::CheckBox, "Agree", (10, 100, 80, 20), vec![]);
    agree.states.insert(States::CHECKABLE);
    let mut name = el(Role::Input, "Name", (10, 40, 200, 20), vec![]);
    name.states.insert(States::EDITABLE);
    vec![el(
        Role::Group,
        "Form",
        (0, 0, 400, 300),
        vec![
            name,
            el(Role::Button, "Save", (10, 200, 60, 24), vec![]),
            el(Role::Button, "Cancel", (80, 200, 60, 24), vec![]),
            agree,
        ],
    )]
}

fn desk(test: &str) -> FakeDesktop {
    FakeDesktop::new("demo", "Form window", form(), refs_file(test))
}

fn visible() -> Filters {
    Filters {
        visible_only: true,
        ..Filters::default()
    }
}

/// The id a read gave the element of this role and name.
fn id_of(d: &FakeDesktop, role: Role, name: &str) -> u32 {
    let data = block_on(d.read_and_record(&visible())).unwrap();
    let mut id = None;
    for n in &data.elements {
        n.walk(&mut |x| {
            if x.role == role && x.name == name {
                id = Some(x.id);
            }
        });
    }
    id.unwrap_or_else(|| panic!("no {role} {name} in the read"))
}

fn click(id: u32) -> ActionRequest {
    ActionRequest::new(
        Target::default(),
        Aim::Element(Element::Id(id)),
        Action::Click {
            button: Button::Left,
            count: 1,
            modifiers: Vec::new(),
        },
    )
}

fn cancel_handle(d: &FakeDesktop) -> String {
    let mut path = String::new();
    d.mutate(|t| {
        t[0].walk(&mut |x| {
            if x.name == "Cancel" {
                path = x.handle.as_str().to_string();
            }
        })
    });
    path
}

#[test]
fn the_same_element_after_inserts_above() {
    let d = desk("inserts");
    let id = id_of(&d, Role::Button, "Cancel");
    let handle = cancel_handle(&d);
    d.mutate(|t| {
        t[0].children
            .insert(0, el(Role::Button, "Inserted", (10, 10, 60, 24), vec![]))
    });
    let r = block_on(d.act(&click(id))).unwrap();
    assert!(!r.rematched);
    assert_eq!(d.inputs(), [format!("click {handle}")]);
}

#[test]
fn found_again_by_fingerprint_after_a_rerender() {
    let d = desk("rerender");
    let id = id_of(&d, Role::Button, "Cancel");
    let old = cancel_handle(&d);
    // The app rebuilds the button: same role, name and place, a new handle.
    d.mutate(|t| {
        t[0].children[2] = el(Role::Button, "Cancel", (80, 200, 60, 24), vec![]);
    });
    let new = cancel_handle(&d);
    assert_ne!(old, new);
    block_on(d.act(&click(id))).unwrap();
    assert_eq!(d.inputs(), [format!("click {new}")]);
}

#[test]
fn a_handle_showing_another_element_is_never_acted_on() {
    let d = desk("renamed");
    let id = id_of(&d, Role::Button, "Cancel");
    // The same object now says "Delete": acting on it would hit the wrong thing.
    d.mutate(|t| t[0].children[2].name = "Delete".into());
    let e = block_on(d.act(&click(id))).unwrap_err();
    assert_eq!(e.code, ErrorCode::StaleRef, "{e:?}");
    assert!(d.inputs().is_empty(), "nothing was clicked");
}

#[test]
fn gone_is_stale_and_two_lookalikes_are_ambiguous() {
    let d = desk("gone");
    let id = id_of(&d, Role::Button, "Cancel");
    d.mutate(|t| {
        t[0].children.remove(2);
    });
    assert_eq!(
        block_on(d.act(&click(id))).unwrap_err().code,
        ErrorCode::StaleRef
    );

    let d = desk("twins");
    let id = id_of(&d, Role::Button, "Cancel");
    d.mutate(|t| {
        t[0].children[2] = el(Role::Button, "Cancel", (300, 10, 60, 24), vec![]);
        t[0].children
            .push(el(Role::Button, "Cancel", (300, 60, 60, 24), vec![]));
    });
    let e = block_on(d.act(&click(id))).unwrap_err();
    assert_eq!(e.code, ErrorCode::AmbiguousTarget, "{e:?}");
    assert!(d.inputs().is_empty());
}

#[test]
fn a_closed_window_makes_its_ids_stale() {
    let d = desk("closed");
    let id = id_of(&d, Role::Button, "Save");
    d.close();
    assert_eq!(
        block_on(d.act(&click(id))).unwrap_err().code,
        ErrorCode::StaleRef
    );
}

#[test]
fn actions_go_through_one_request_and_report_their_effect() {
    let d = desk("actions");
    let agree = id_of(&d, Role::CheckBox, "Agree");
    let name = id_of(&d, Role::Input, "Name");
    let save = id_of(&d, Role::Button, "Save");
    let on = |id: u32, action: Action| {
        ActionRequest::new(Target::default(), Aim::Element(Element::Id(id)), action)
    };
    let r = block_on(d.act(&on(agree, Action::Toggle))).unwrap();
    assert_eq!(serde_json::to_value(&r).unwrap()["post_state"]["k"], true);
    assert_eq!(serde_json::to_value(&r).unwrap()["effect"], "confirmed");
    let typed = Action::Type {
        text: "Ada".into(),
        replace: false,
        delay: std::time::Duration::ZERO,
    };
    block_on(d.act(&on(name, typed.clone()))).unwrap();
    block_on(d.act(&on(name, typed.clone()))).unwrap();
    assert_eq!(
        d.node("/fake/2").and_then(|n| n.value),
        Some("AdaAda".into())
    );
    let e = block_on(d.act(&on(save, typed))).unwrap_err();
    assert_eq!(e.code, ErrorCode::ActionNotSupported);
    // Invalid requests are refused before anything reaches the desktop.
    let before = d.inputs();
    let bad = ActionRequest::new(Target::default(), Aim::Window, Action::Toggle);
    assert_eq!(
        block_on(d.act(&bad)).unwrap_err().code,
        ErrorCode::InvalidArgs
    );
    assert_eq!(d.inputs(), before);
}

fn wait_for(text: Option<&str>, id: Option<u32>, gone: bool) -> crate::watch::WaitRequest {
    crate::watch::WaitRequest {
        target: Target::default(),
        text: text.map(str::to_string),
        role: None,
        id,
        gone,
        timeout: std::time::Duration::from_secs(5),
        interval: std::time::Duration::from_millis(10),
    }
}

#[test]
fn wait_looks_until_the_element_comes_and_records_its_id() {
    let d = desk("wait-comes");
    let looks = std::cell::Cell::new(0);
    // Each pause is where time passes: on the second one, the app shows the message.
    let sleep = |_| {
        looks.set(looks.get() + 1);
        if looks.get() == 2 {
            d.mutate(|t| {
                t[0].children
                    .push(el(Role::Text, "Saved", (10, 250, 80, 20), vec![]))
            });
        }
        std::future::ready(())
    };
    let r = block_on(crate::watch::wait(
        &d,
        &wait_for(Some("saved"), None, false),
        sleep,
    ))
    .unwrap();
    // The JSON every face prints: matched, with the element's id, role and name.
    let r = serde_json::to_value(&r).unwrap();
    assert_eq!(r["matched"], true);
    assert_eq!(r["elements"][0]["t"], "Saved");
    assert_eq!(
        looks.get(),
        2,
        "it looked again after each pause, and stopped when found"
    );
    // The id it reported works for an action right away.
    let id = r["elements"][0]["i"].as_u64().unwrap() as u32;
    assert_eq!(
        block_on(d.find(&Target::default(), &Element::Id(id)))
            .unwrap()
            .name,
        "Saved"
    );
}

#[test]
fn wait_gone_and_timeout_say_what_they_saw() {
    let d = desk("wait-gone");
    let id = id_of(&d, Role::Button, "Cancel");
    let sleep = |_| {
        d.mutate(|t| {
            t[0].children.retain(|n| n.name != "Cancel");
        });
        std::future::ready(())
    };
    let r = block_on(crate::watch::wait(
        &d,
        &wait_for(None, Some(id), true),
        sleep,
    ))
    .unwrap();
    assert!(matches!(r, crate::watch::Waited::Gone { .. }), "{r:?}");
    assert_eq!(serde_json::to_value(&r).unwrap()["gone"], true);
    let never = crate::watch::WaitRequest {
        timeout: std::time::Duration::ZERO,
        ..wait_for(Some("Nowhere"), None, false)
    };
    let e = block_on(crate::watch::wait(&d, &never, |_| std::future::ready(()))).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    assert!(e.message.contains("none matching"), "{}", e.message);
}
