//! The conformance suite (`desktop_core::conformance`) on the Linux backend, in process: a
//! GTK3 window (tests/fixtures/conformance_gtk.py) in the project's own sandbox.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use desktop_core::conformance::{self, Stage, INSERTED};
use desktop_core::request::{Action, ActionRequest, Aim, Button, Element};
use desktop_core::{Desktop, Error, ErrorCode, Filters, Result, Role, Target};
use desktop_linux::LinuxDesktop;
use desktop_testkit::Desk;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");

struct LinuxStage(LinuxDesktop);

impl LinuxStage {
    /// Presses the fixture's button `name`, then waits until the inserted check box shows
    /// (`true`) or is gone (`false`).
    async fn press_until(&self, name: &str, shows: bool) -> Result<()> {
        let click = Action::Click {
            button: Button::Left,
            count: 1,
            modifiers: Vec::new(),
        };
        let aim = Aim::Element(Element::Text {
            text: name.into(),
            role: Some(Role::Button),
            exact: true,
        });
        self.0
            .act(&ActionRequest::new(self.target(), aim, click))
            .await?;
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            let shown = Filters {
                visible_only: true,
                ..Filters::default()
            };
            let data = self.0.read(&self.target(), &shown).await?;
            let mut there = false;
            for n in &data.elements {
                n.walk(&mut |x| there |= x.name == INSERTED);
            }
            if there == shows {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(Error::new(
                    ErrorCode::Timeout,
                    format!("{name} did not make {INSERTED} show={shows}"),
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Stage for LinuxStage {
    type Desktop = LinuxDesktop;
    fn desktop(&self) -> &LinuxDesktop {
        &self.0
    }
    fn target(&self) -> Target {
        Target {
            window: Some("Conformance".into()),
            ..Target::default()
        }
    }
    fn field(&self) -> &str {
        "Field"
    }
    fn check(&self) -> &str {
        "Agree"
    }
    async fn insert(&self) -> Result<()> {
        self.press_until("Insert", true).await
    }
    async fn remove(&self) -> Result<()> {
        self.press_until("Remove", false).await
    }
    async fn sleep(&self, time: Duration) {
        tokio::time::sleep(time).await;
    }
}

#[test]
fn the_linux_backend_conforms() {
    let mut desk = Desk::start(BIN);
    // This process talks to the sandbox itself: its display and buses, before any thread.
    for (k, v) in desk.env() {
        std::env::set_var(k, v);
    }
    desk.python_app("conformance_gtk.py");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let failures = rt.block_on(async {
        let d = LinuxDesktop::connect(Duration::from_secs(3)).await.unwrap();
        conformance::run_all(&LinuxStage(d)).await
    });
    assert!(failures.is_empty(), "{failures:#?}");
}
