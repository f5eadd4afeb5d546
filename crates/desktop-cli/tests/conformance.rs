//! The conformance suite (`desktop_core::conformance`) on the Linux backend, in process: a
//! GTK3 window (tests/fixtures/conformance_gtk.py) in the project's own sandbox.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use desktop_core::conformance::{self, Stage, FILLED, INSERTED};
use desktop_core::request::{Action, ActionRequest, Aim, Button, Element};
use desktop_core::{Desktop, Error, ErrorCode, Filters, Node, Result, Role, Target};
use desktop_linux::LinuxDesktop;
use desktop_testkit::Desk;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");

struct LinuxStage(LinuxDesktop);

impl LinuxStage {
    /// Presses the fixture's button `name`, then reads the window until `done` holds of
    /// its elements (`what` says what that is, for the timeout).
    async fn press_until(
        &self,
        name: &str,
        what: &str,
        done: impl Fn(&[Node]) -> bool,
    ) -> Result<()> {
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
            if done(&data.elements) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(Error::new(
                    ErrorCode::Timeout,
                    format!("{name} did not make {what}"),
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Whether an element of `nodes`, at any depth, is one `f` looks for.
fn any(nodes: &[Node], f: impl Fn(&Node) -> bool) -> bool {
    let mut hit = false;
    for n in nodes {
        n.walk(&mut |x| hit |= f(x));
    }
    hit
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
        self.press_until("Insert", "the check box show", |els| {
            any(els, |x| x.name == INSERTED)
        })
        .await
    }
    async fn remove(&self) -> Result<()> {
        self.press_until("Remove", "the check box go", |els| {
            !any(els, |x| x.name == INSERTED)
        })
        .await
    }
    async fn fill(&self) -> Result<()> {
        let field = self.field();
        self.press_until("Fill", "the field show its text", |els| {
            any(els, |x| {
                x.name == field && x.value.as_deref() == Some(FILLED)
            })
        })
        .await
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
