//! The macOS backend against real apps — TextEdit, Calculator, Safari — each effect read
//! back from the app. Runs only on a Mac with Accessibility (and, for the capture test,
//! Screen Recording) granted to this test binary: `cargo test -p desktop-macos --features
//! real-app-tests -- --test-threads=1` (.github/workflows/macos.yml grants them on a
//! hosted runner). Nothing here can run on Linux; CI there only type-checks it.

#![cfg(all(target_os = "macos", feature = "real-app-tests"))]
#![allow(clippy::unwrap_used)]

use desktop_core::action::Effect;
use desktop_core::conformance::Stage;
use desktop_core::keys::Combo;
use desktop_core::request::{Action, ActionRequest, Aim, Button, Element};
use desktop_core::system::{Clipboard, System};
use desktop_core::{Desktop, Filters, Node, ReadData, Role, Target};
use desktop_macos::{MacDesktop, MacSystem};
use std::time::{Duration, Instant};

fn run<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

async fn desk() -> MacDesktop {
    MacSystem
        .connect(Duration::from_secs(3), false)
        .await
        .unwrap()
}

fn app(name: &str) -> Target {
    Target {
        app: Some(name.into()),
        ..Target::default()
    }
}

fn flat(data: &ReadData) -> Vec<Node> {
    let mut out = Vec::new();
    for n in &data.elements {
        n.walk(&mut |x| out.push(x.clone()));
    }
    out
}

/// Opens `args` with `open` and waits until `name` has a readable window.
async fn open(d: &MacDesktop, name: &str, args: &[&str]) {
    let ok = std::process::Command::new("/usr/bin/open")
        .args(args)
        .status()
        .unwrap()
        .success();
    assert!(ok, "open {args:?}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while d.resolve(&app(name)).await.is_err() {
        assert!(Instant::now() < deadline, "{name} showed no window");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn quit(name: &str) {
    let _ = std::process::Command::new("/usr/bin/osascript")
        .args([
            "-e",
            &format!("tell application \"{name}\" to quit saving no"),
        ])
        .status();
}

fn interactive() -> Filters {
    Filters {
        visible_only: true,
        interactive: true,
        ..Filters::default()
    }
}

#[test]
fn displays_and_windows_are_listed() {
    run(async {
        let d = desk().await;
        let displays = d.displays();
        assert!(!displays.is_empty() && displays[0].primary);
        assert!(displays.iter().all(|x| x.scale >= 1.0));
        open(
            &d,
            "TextEdit",
            &[
                "-a",
                "TextEdit",
                "-n",
                "--args",
                "-NSShowAppCentricOpenPanelInsteadOfUntitledFile",
                "NO",
            ],
        )
        .await;
        let w = d.resolve(&app("TextEdit")).await.unwrap();
        assert!(w.id.is_some() && w.bounds.is_some() && w.a11y, "{w:?}");
        quit("TextEdit");
    });
}

#[test]
fn textedit_takes_typed_text_and_reads_it_back() {
    run(async {
        let d = desk().await;
        let file = std::env::temp_dir().join("desktop-cli-real-app.txt");
        std::fs::write(&file, "").unwrap();
        open(&d, "TextEdit", &["-a", "TextEdit", file.to_str().unwrap()]).await;
        let data = d.read(&app("TextEdit"), &interactive()).await.unwrap();
        let area = flat(&data)
            .into_iter()
            .find(|n| n.role == Role::Input)
            .expect("a text area");
        let typed = "Grüße 👋 from desktop-cli\nsecond line";
        let req = ActionRequest::new(
            app("TextEdit"),
            Aim::Element(Element::Text {
                text: area.name.clone(),
                role: Some(Role::Input),
                exact: true,
            }),
            Action::Type {
                text: typed.into(),
                replace: true,
                delay: Duration::ZERO,
            },
        );
        let r = d.act(&req).await.unwrap();
        assert_eq!(r.effect, Effect::Confirmed);
        // Read back by a fresh read, not trusting the answer.
        let back = d
            .read(
                &app("TextEdit"),
                &Filters {
                    visible_only: true,
                    ..Filters::default()
                },
            )
            .await
            .unwrap();
        let value = flat(&back)
            .into_iter()
            .find(|n| n.role == Role::Input)
            .and_then(|n| n.value)
            .unwrap_or_default();
        assert!(
            value.contains("Grüße 👋 from desktop-cli") && value.contains("second line"),
            "{value:?}"
        );
        quit("TextEdit");
    });
}

#[test]
fn a_textedit_window_moves_resizes_minimizes_restores_and_closes() {
    use desktop_core::model::WindowState;
    use desktop_core::winops::{self, WindowOp};
    run(async {
        let d = desk().await;
        let file = std::env::temp_dir().join("desktop-cli-window-ops.txt");
        std::fs::write(&file, "window ops").unwrap();
        open(&d, "TextEdit", &["-a", "TextEdit", file.to_str().unwrap()]).await;
        let t = Target {
            app: Some("TextEdit".into()),
            window: Some("desktop-cli-window-ops".into()),
            ..Target::default()
        };
        let id = d.resolve(&t).await.unwrap().id;
        let by_id = Target {
            window_id: id,
            ..Target::default()
        };
        // Each change is read back from a fresh list, not trusted from the answer.
        winops::run(&d, &by_id, WindowOp::Move { x: 120, y: 140 })
            .await
            .unwrap();
        winops::run(&d, &by_id, WindowOp::Resize { w: 520, h: 380 })
            .await
            .unwrap();
        let w = d.resolve(&by_id).await.unwrap();
        let b = w.bounds.unwrap();
        assert_eq!((b.x, b.y, b.w, b.h), (120, 140, 520, 380), "{w:?}");
        winops::run(&d, &by_id, WindowOp::Minimize).await.unwrap();
        // Minimized, off screen, and still listed so that it can be restored.
        let w = d.resolve(&by_id).await.unwrap();
        assert_eq!(w.state, WindowState::Minimized, "{w:?}");
        winops::run(&d, &by_id, WindowOp::Restore).await.unwrap();
        assert_eq!(d.resolve(&by_id).await.unwrap().state, WindowState::Normal);
        winops::run(&d, &by_id, WindowOp::Close).await.unwrap();
        assert!(d.resolve(&by_id).await.is_err(), "the window closed");
        quit("TextEdit");
    });
}

#[test]
fn calculator_adds_by_clicking_its_buttons() {
    run(async {
        let d = desk().await;
        open(&d, "Calculator", &["-a", "Calculator"]).await;
        let press = |name: &str| {
            ActionRequest::new(
                app("Calculator"),
                Aim::Element(Element::Text {
                    text: name.into(),
                    role: Some(Role::Button),
                    exact: true,
                }),
                Action::Click {
                    button: Button::Left,
                    count: 1,
                    modifiers: Vec::new(),
                },
            )
        };
        d.act(&ActionRequest::new(
            app("Calculator"),
            Aim::Window,
            Action::Press {
                combos: vec![Combo::parse("escape").unwrap()],
            },
        ))
        .await
        .unwrap();
        for key in ["7", "Add", "8", "Equals"] {
            d.act(&press(key)).await.unwrap();
        }
        let data = d
            .read(
                &app("Calculator"),
                &Filters {
                    visible_only: true,
                    ..Filters::default()
                },
            )
            .await
            .unwrap();
        let shown: Vec<String> = flat(&data)
            .into_iter()
            .filter(|n| n.role == Role::Text)
            .map(|n| n.name)
            .collect();
        assert!(shown.iter().any(|s| s.trim() == "15"), "{shown:?}");
        quit("Calculator");
    });
}

#[test]
fn safari_page_form_password_and_check_box() {
    run(async {
        let d = desk().await;
        let page = std::env::temp_dir().join("desktop-cli-real-app.html");
        std::fs::write(
            &page,
            r#"<!doctype html><title>Sign in</title><h1>Sign in</h1>
<label>User <input id="u"></label><label>Password <input id="p" type="password"></label>
<label><input type="checkbox" id="c"> Remember me</label><button>Sign In</button>"#,
        )
        .unwrap();
        open(&d, "Safari", &["-a", "Safari", page.to_str().unwrap()]).await;
        let f = Filters {
            page: true,
            ..interactive()
        };
        let mut data = d.read(&app("Safari"), &f).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while !flat(&data).iter().any(|n| n.role == Role::Password) {
            assert!(
                Instant::now() < deadline,
                "the page's form never showed: {:?}",
                flat(&data)
            );
            tokio::time::sleep(Duration::from_millis(300)).await;
            data = d.read(&app("Safari"), &f).await.unwrap();
        }
        assert!(data.page);
        assert!(data.elements[0]
            .value
            .as_deref()
            .unwrap_or("")
            .starts_with("file://"));
        let secret = "hunter2-secret";
        let typed = |name: &str, role: Role, text: &str| {
            ActionRequest::new(
                app("Safari"),
                Aim::Element(Element::Text {
                    text: name.into(),
                    role: Some(role),
                    exact: false,
                }),
                Action::Type {
                    text: text.into(),
                    replace: true,
                    delay: Duration::ZERO,
                },
            )
        };
        assert_eq!(
            d.act(&typed("User", Role::Input, "alice"))
                .await
                .unwrap()
                .effect,
            Effect::Confirmed
        );
        assert_eq!(
            d.act(&typed("Password", Role::Password, secret))
                .await
                .unwrap()
                .effect,
            Effect::Confirmed
        );
        let toggle = ActionRequest::new(
            app("Safari"),
            Aim::Element(Element::Text {
                text: "Remember me".into(),
                role: Some(Role::CheckBox),
                exact: false,
            }),
            Action::Toggle,
        );
        assert_eq!(d.act(&toggle).await.unwrap().effect, Effect::Confirmed);
        let back = d.read(&app("Safari"), &f).await.unwrap();
        let json = serde_json::to_string(&back).unwrap();
        assert!(!json.contains(secret), "a password's value never appears");
        let all = flat(&back);
        assert!(all
            .iter()
            .any(|n| n.role == Role::Input && n.value.as_deref() == Some("alice")));
        assert!(all
            .iter()
            .any(|n| n.role == Role::CheckBox && n.states.contains(desktop_core::States::CHECKED)));
        quit("Safari");
    });
}

#[test]
fn the_clipboard_keeps_what_was_set() {
    let c = MacSystem.clipboard();
    c.set("desktop-cli ✓", Duration::from_secs(1)).unwrap();
    assert_eq!(
        c.get(Duration::from_secs(1)).unwrap().as_deref(),
        Some("desktop-cli ✓")
    );
}

#[test]
fn a_window_is_captured_at_its_display_scale() {
    run(async {
        let d = desk().await;
        open(&d, "Calculator", &["-a", "Calculator"]).await;
        let w = d.resolve(&app("Calculator")).await.unwrap();
        let shot = d
            .capture_window(&w)
            .await
            .unwrap()
            .expect("ScreenCaptureKit captures the window");
        let b = w.bounds.unwrap();
        let scale = shot.scale;
        assert!((f64::from(shot.image.width()) - f64::from(b.w) * scale).abs() <= 2.0 * scale);
        quit("Calculator");
    });
}

/// The whole screen (every display, however many the runner has) comes as one image of the
/// global space, at the scale of the display holding most of it.
#[test]
fn the_whole_screen_is_captured_across_displays() {
    run(async {
        let d = desk().await;
        let screen = d.screen().expect("a screen");
        let shot = d.capture(screen).await.unwrap();
        assert_eq!(shot.origin, (screen.x, screen.y));
        let want = desktop_macos::geometry::scale_at(&d.displays(), screen);
        assert_eq!(shot.scale, want);
        let px = |units: i32| (f64::from(units) * want).round() as u32;
        assert_eq!(shot.image.dimensions(), (px(screen.w), px(screen.h)));
        assert_eq!(shot.area(), screen);
    });
}

/// The contract's conformance suite on a Safari page whose buttons insert, remove and fill.
struct SafariStage(MacDesktop);

impl SafariStage {
    async fn press_until(
        &self,
        button: &str,
        done: impl Fn(&[Node]) -> bool,
    ) -> desktop_core::Result<()> {
        let click = Action::Click {
            button: Button::Left,
            count: 1,
            modifiers: Vec::new(),
        };
        let aim = Aim::Element(Element::Text {
            text: button.into(),
            role: Some(Role::Button),
            exact: true,
        });
        self.0
            .act(&ActionRequest::new(self.target(), aim, click))
            .await?;
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let data = self
                .0
                .read(
                    &self.target(),
                    &Filters {
                        visible_only: true,
                        ..Filters::default()
                    },
                )
                .await?;
            if done(&data.elements) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(desktop_core::Error::new(
                    desktop_core::ErrorCode::Timeout,
                    format!("{button} had no effect"),
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn any(nodes: &[Node], f: impl Fn(&Node) -> bool) -> bool {
    let mut hit = false;
    for n in nodes {
        n.walk(&mut |x| hit |= f(x));
    }
    hit
}

impl Stage for SafariStage {
    type Desktop = MacDesktop;
    fn desktop(&self) -> &MacDesktop {
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
    async fn insert(&self) -> desktop_core::Result<()> {
        self.press_until("Insert", |els| {
            any(els, |x| x.name == desktop_core::conformance::INSERTED)
        })
        .await
    }
    async fn remove(&self) -> desktop_core::Result<()> {
        self.press_until("Remove", |els| {
            !any(els, |x| x.name == desktop_core::conformance::INSERTED)
        })
        .await
    }
    async fn fill(&self) -> desktop_core::Result<()> {
        self.press_until("Fill", |els| {
            any(els, |x| {
                x.name == "Field" && x.value.as_deref() == Some(desktop_core::conformance::FILLED)
            })
        })
        .await
    }
    async fn sleep(&self, time: Duration) {
        tokio::time::sleep(time).await;
    }
}

#[test]
fn the_macos_backend_conforms() {
    run(async {
        let d = desk().await;
        let page = std::env::temp_dir().join("desktop-cli-conformance.html");
        std::fs::write(
            &page,
            format!(
                r#"<!doctype html><title>Conformance</title>
<label>Field <input id="f"></label>
<div id="box"><label id="agree"><input type="checkbox"> Agree</label></div>
<button onclick="const l = document.createElement('label'); l.id = 'ins'; l.innerHTML = '<input type=checkbox> {inserted}'; document.getElementById('box').prepend(l)">Insert</button>
<button onclick="document.getElementById('ins').remove()">Remove</button>
<button onclick="document.getElementById('f').value = '{filled}'">Fill</button>"#,
                inserted = desktop_core::conformance::INSERTED,
                filled = desktop_core::conformance::FILLED,
            ),
        )
        .unwrap();
        open(&d, "Safari", &["-a", "Safari", page.to_str().unwrap()]).await;
        let failures = desktop_core::conformance::run_all(&SafariStage(d)).await;
        quit("Safari");
        assert!(failures.is_empty(), "{failures:#?}");
    });
}
