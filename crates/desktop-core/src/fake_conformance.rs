//! The conformance suite on the in-memory desktop, with two displays (the primary one and
//! a Retina display above and to the left of it) and a second app's window beside the
//! stage's.

use crate::backend::Display;
use crate::conformance::{self, Stage, FILLED, INSERTED};
use crate::error::Result;
use crate::fake::{block_on, el, refs_file, FakeDesktop};
use crate::{Node, Rect, Role, States, Target};
use std::time::Duration;

struct FakeStage(FakeDesktop);

fn check_box(name: &str, y: i32) -> Node {
    let mut n = el(Role::CheckBox, name, (10, y, 80, 20), vec![]);
    n.states.insert(States::CHECKABLE);
    n
}

impl Stage for FakeStage {
    type Desktop = FakeDesktop;
    fn desktop(&self) -> &FakeDesktop {
        &self.0
    }
    fn target(&self) -> Target {
        Target {
            app: Some("demo".into()),
            ..Target::default()
        }
    }
    fn field(&self) -> &str {
        "Name"
    }
    fn check(&self) -> &str {
        "Agree"
    }
    async fn insert(&self) -> Result<()> {
        self.0
            .mutate(|t| t[0].children.insert(1, check_box(INSERTED, 70)));
        Ok(())
    }
    async fn remove(&self) -> Result<()> {
        self.0
            .mutate(|t| t[0].children.retain(|n| n.name != INSERTED));
        Ok(())
    }
    async fn fill(&self) -> Result<()> {
        self.0.mutate(|t| {
            for n in &mut t[0].children {
                if n.name == "Name" {
                    n.value = Some(FILLED.into());
                }
            }
        });
        Ok(())
    }
    async fn sleep(&self, _: Duration) {}
}

#[test]
fn the_in_memory_desktop_conforms() {
    let mut name = el(Role::Input, "Name", (10, 40, 200, 20), vec![]);
    name.states.insert(States::EDITABLE);
    let form = vec![el(
        Role::Group,
        "Form",
        (0, 0, 400, 300),
        vec![name, check_box("Agree", 100)],
    )];
    let d = FakeDesktop::new("demo", "Form", form, refs_file("conformance"));
    // Another app's window, so finding the stage's window is a choice.
    let notes = vec![el(Role::Input, "Notes", (10, 10, 300, 200), vec![])];
    d.add_window("editor", "Notes", notes);
    d.set_displays(vec![
        Display::new(Rect::new(0, 0, 1440, 900), 1.0, true),
        Display::new(Rect::new(-800, -200, 800, 600), 2.0, false),
    ]);
    let failures = block_on(conformance::run_all(&FakeStage(d)));
    assert!(failures.is_empty(), "{failures:#?}");
}
