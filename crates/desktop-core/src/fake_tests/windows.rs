//! The in-memory desktop's windows and change notices: each window listed, resolved, read
//! and acted on by itself, with the errors the Linux backend gives; notices for what
//! changed, to the subscribers of that window only.

use super::{desk, form, id_of, visible};
use crate::backend::{Change, Changes, Desktop};
use crate::fake::{block_on, el, FakeDesktop};
use crate::request::{Action, ActionRequest, Aim, Button, Element};
use crate::{ErrorCode, Handle, Role, States, Target};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// The form (app "demo", focused), a mail window of app "editor" and a second "demo" window.
fn three(test: &str) -> (FakeDesktop, u64, u64, u64) {
    let d = desk(test);
    let first = block_on(d.resolve(&Target::default())).unwrap().id.unwrap();
    let mail = d.add_window(
        "editor",
        "Notes",
        vec![el(Role::Button, "Send", (10, 10, 60, 24), vec![])],
    );
    let prefs = d.add_window("demo", "Preferences", form());
    (d, first, mail, prefs)
}

fn target(app: Option<&str>, window: Option<&str>) -> Target {
    Target {
        app: app.map(str::to_string),
        window: window.map(str::to_string),
        ..Target::default()
    }
}

fn resolved(d: &FakeDesktop, t: &Target) -> Result<u64, ErrorCode> {
    block_on(d.resolve(t))
        .map(|w| w.id.unwrap())
        .map_err(|e| e.code)
}

#[test]
fn windows_are_listed_and_resolved_by_app_title_id_and_pid() {
    let (d, first, mail, prefs) = three("windows-resolve");
    let apps = block_on(d.apps()).unwrap().apps;
    let apps: Vec<(&str, u32, usize)> = apps
        .iter()
        .map(|a| (a.name.as_str(), a.pid, a.windows))
        .collect();
    assert_eq!(apps, [("demo", 4242, 2), ("editor", 4243, 1)]);
    let count = |t: &Target| block_on(d.windows(t)).unwrap().windows.len();
    assert_eq!(count(&Target::default()), 3);
    assert_eq!(count(&target(Some("DEMO"), None)), 2);
    assert_eq!(count(&target(None, Some("nowhere"))), 0);

    // Several matches: the focused one, else the first; never an error.
    assert_eq!(resolved(&d, &Target::default()), Ok(first));
    assert_eq!(resolved(&d, &target(Some("demo"), None)), Ok(first));
    assert_eq!(resolved(&d, &target(Some("editor"), None)), Ok(mail));
    assert_eq!(resolved(&d, &target(None, Some("prefer"))), Ok(prefs));
    let by_pid = Target {
        pid: Some(4243),
        ..Target::default()
    };
    assert_eq!(resolved(&d, &by_pid), Ok(mail));
    let by_id = Target {
        window_id: Some(prefs),
        ..Target::default()
    };
    assert_eq!(resolved(&d, &by_id), Ok(prefs));
    d.focus_window(prefs).unwrap();
    assert_eq!(resolved(&d, &target(Some("demo"), None)), Ok(prefs));
    // Focus through a window action moves it back.
    let focus = ActionRequest::new(target(None, Some("Form")), Aim::Window, Action::Focus);
    block_on(d.act(&focus)).unwrap();
    assert_eq!(resolved(&d, &Target::default()), Ok(first));

    // An app named nowhere is APP_NOT_FOUND, naming the apps there are; a window of an app
    // that is there, or a title or id nothing has, is WINDOW_NOT_FOUND.
    let e = block_on(d.resolve(&target(Some("nope"), None))).unwrap_err();
    assert_eq!(e.code, ErrorCode::AppNotFound);
    let hint = e.suggestion.unwrap_or_default();
    assert!(hint.contains("demo, editor"), "{hint}");
    assert!(e.message.contains("\"Notes\""), "{}", e.message);
    let pid = Target {
        pid: Some(9),
        ..Target::default()
    };
    assert_eq!(resolved(&d, &pid), Err(ErrorCode::AppNotFound));
    assert_eq!(
        resolved(&d, &target(Some("demo"), Some("Notes"))),
        Err(ErrorCode::WindowNotFound)
    );
    assert_eq!(
        resolved(&d, &target(None, Some("zzz"))),
        Err(ErrorCode::WindowNotFound)
    );
    let gone = Target {
        window_id: Some(7),
        ..Target::default()
    };
    assert_eq!(resolved(&d, &gone), Err(ErrorCode::WindowNotFound));
    // A closed window is neither listed nor resolved.
    d.close_window(mail).unwrap();
    assert_eq!(count(&Target::default()), 2);
    assert_eq!(
        resolved(&d, &target(Some("editor"), None)),
        Err(ErrorCode::AppNotFound)
    );
}

fn click(scope: Target, e: Element) -> ActionRequest {
    ActionRequest::new(
        scope,
        Aim::Element(e),
        Action::Click {
            button: Button::Left,
            count: 1,
            modifiers: Vec::new(),
        },
    )
}

#[test]
fn each_window_is_read_and_acted_on_by_itself() {
    let (d, first, mail, _) = three("windows-act");
    let notes = target(Some("editor"), None);
    let data = block_on(d.read(&notes, &visible())).unwrap();
    assert_eq!(data.window.id, Some(mail));
    assert_eq!(data.elements.len(), 1);
    assert_eq!(data.elements[0].name, "Send");
    let send = data.elements[0].id;
    let found = block_on(d.find(&notes, &Element::Id(send))).unwrap();
    assert_eq!((found.name.as_str(), found.window_id), ("Send", Some(mail)));
    // The form's ids, read later, stay apart from the mail window's.
    let save = id_of(&d, Role::Button, "Save");
    let found = block_on(d.find(&Target::default(), &Element::Id(save))).unwrap();
    assert_eq!(
        (found.name.as_str(), found.window_id),
        ("Save", Some(first))
    );
    block_on(d.act(&click(notes.clone(), Element::Id(send)))).unwrap();
    let text = |t: &str| Element::Text {
        text: t.into(),
        role: None,
        exact: true,
    };
    block_on(d.act(&click(notes.clone(), text("Send")))).unwrap();
    let send_handle = format!("click {}", data.elements[0].handle.as_str());
    assert_eq!(d.inputs(), [send_handle.clone(), send_handle]);
    // By text, only the named (or focused) window is searched.
    let e = block_on(d.act(&click(Target::default(), text("Send")))).unwrap_err();
    assert_eq!(e.code, ErrorCode::ElementNotFound);
    // Closing the mail window makes its ids stale and leaves the form's working.
    d.close_window(mail).unwrap();
    let e = block_on(d.act(&click(notes, Element::Id(send)))).unwrap_err();
    assert_eq!(e.code, ErrorCode::StaleRef);
    block_on(d.act(&click(Target::default(), Element::Id(save)))).unwrap();
}

fn change(path: &str, children: bool) -> Change {
    Change {
        handle: Handle::new(path),
        children,
    }
}

fn drain(c: &mut impl Changes) -> Vec<Change> {
    std::iter::from_fn(|| c.try_next()).collect()
}

#[test]
fn notices_name_what_changed_in_the_subscribed_window_only() {
    let (d, _, mail, _) = three("windows-notices");
    let form_window = block_on(d.resolve(&Target::default())).unwrap();
    let mail_window = block_on(d.resolve(&target(Some("editor"), None))).unwrap();
    let mut form = block_on(d.changes(&form_window)).unwrap();
    let mut notes = block_on(d.changes(&mail_window)).unwrap();
    // The form is /fake/1 with Name /fake/2, Save /fake/3, Cancel /fake/4, Agree /fake/5.
    d.mutate(|_| {});
    assert_eq!(
        drain(&mut form),
        [],
        "a change that changed nothing is not told"
    );
    d.mutate(|t| {
        t[0].children
            .insert(0, el(Role::Button, "New", (10, 10, 60, 24), vec![]));
        t[0].children[2].name = "Store".into();
    });
    assert_eq!(
        drain(&mut form),
        [change("/fake/1", true), change("/fake/3", false)]
    );
    d.mutate(|t| t.push(el(Role::Text, "Footer", (0, 300, 100, 20), vec![])));
    assert_eq!(drain(&mut form), [change("/fake/window", true)]);
    d.mutate(|t| {
        t[0].children.retain(|n| n.name != "Cancel");
    });
    assert_eq!(drain(&mut form), [change("/fake/1", true)]);
    // An action that changes an element tells it; one that changes nothing does not.
    let agree = id_of(&d, Role::CheckBox, "Agree");
    let toggle = ActionRequest::new(
        Target::default(),
        Aim::Element(Element::Id(agree)),
        Action::Toggle,
    );
    block_on(d.act(&toggle)).unwrap();
    assert_eq!(drain(&mut form), [change("/fake/5", false)]);
    assert!(d.node("/fake/5").unwrap().states.contains(States::CHECKED));
    let store = id_of(&d, Role::Button, "Store");
    block_on(d.act(&click(Target::default(), Element::Id(store)))).unwrap();
    assert_eq!(drain(&mut form), []);
    // The other window's changes go to its own subscribers.
    assert_eq!(drain(&mut notes), []);
    d.mutate_window(mail, |t| t[0].name = "Send now".into())
        .unwrap();
    assert_eq!(drain(&mut form), []);
    assert_eq!(drain(&mut notes).len(), 1);
    // Closing a window ends its notices.
    d.close_window(mail).unwrap();
    assert_eq!(block_on(notes.next()), None);
    assert!(block_on(d.changes(&mail_window)).is_none());
}

/// Records whether it was woken.
struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn a_waiting_subscriber_is_woken_by_the_next_change() {
    let d = desk("windows-wake");
    let w = block_on(d.resolve(&Target::default())).unwrap();
    let mut changes = block_on(d.changes(&w)).unwrap();
    let flag = Arc::new(Flag(AtomicBool::new(false)));
    let waker = Waker::from(flag.clone());
    let mut cx = Context::from_waker(&waker);
    let mut next = std::pin::pin!(changes.next());
    assert!(next.as_mut().poll(&mut cx).is_pending());
    assert!(!flag.0.load(Ordering::SeqCst));
    d.mutate(|t| t[0].children[0].name = "Full name".into());
    assert!(
        flag.0.load(Ordering::SeqCst),
        "the change woke the waiting task"
    );
    assert_eq!(
        next.as_mut().poll(&mut cx),
        Poll::Ready(Some(change("/fake/2", false)))
    );
}
