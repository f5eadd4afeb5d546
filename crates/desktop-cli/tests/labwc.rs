//! The product on labwc (`sandbox up --wayland labwc`), a wlroots compositor that tells no
//! client where its windows are: windows listed from its toplevel list, a GTK 3 sign-in
//! form typed into by id with the keyboard, GTK 4.18's form (which takes no focus request,
//! and no click can give it focus there) typed into through its fields' text, its check
//! button (no accessible action, no place to click) and input at a point refused saying
//! why, and the whole screen captured. Commands run back to back;
//! effects are read back by libatspi. labwc is a Debian 13 package: the suite runs in the
//! Debian 13 bed (`scripts/bed.sh test --test labwc`) and says it is skipped elsewhere.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use desktop_testkit::{repo_root, wait_until, Desk, Fields, Run};
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");
const GTK: &str = "GTK Form";
const GTK4: &str = "GTK4 Form";

struct Env {
    desk: Mutex<Desk>,
    fields: Mutex<Fields>,
}

impl Env {
    fn cli(&self, args: &[&str]) -> Run {
        self.desk.lock().unwrap().cli(args)
    }

    fn ok(&self, args: &[&str]) -> Value {
        self.cli(args).data()
    }

    /// The ids of the elements of `role` in `window`'s interactive read, in reading order,
    /// with their names.
    fn ids(&self, window: &str, role: &str) -> Vec<(String, String)> {
        let data = self.ok(&["read", "--window", window, "-i"]);
        desktop_testkit::all(&data)
            .into_iter()
            .filter(|e| e["r"] == role)
            .map(|e| {
                (
                    e["i"].to_string(),
                    e["t"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }

    fn id(&self, window: &str, role: &str, name: &str) -> String {
        self.ids(window, role)
            .into_iter()
            .find(|(_, n)| n == name)
            .unwrap_or_else(|| panic!("no {role} {name:?} in {window}"))
            .0
    }

    /// Waits until a label of `window` (as libatspi reads it) contains `want`.
    fn label(&self, window: &str, want: &str) {
        wait_until(
            Duration::from_secs(5),
            &format!("{want:?} in {window}"),
            || {
                let f = self.fields.lock().unwrap().read(window);
                f.as_object()?
                    .keys()
                    .any(|k| k.contains(want))
                    .then_some(())
            },
        );
    }
}

fn installed(program: &str) -> bool {
    let root = std::env::var_os(desktop_testkit::bed::ROOT_VAR)
        .filter(|r| !r.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/".into());
    ["usr/bin", "bin"]
        .iter()
        .any(|d| root.join(d).join(program).is_file())
}

/// Listed with titles; a sign-in form filled field after field by id (keys), checked,
/// counted; the password typed never shows.
fn gtk3_form_by_keys(env: &Env) {
    let data = env.ok(&["list"]);
    let titles: Vec<&str> = data["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["title"].as_str().unwrap())
        .collect();
    assert!(titles.contains(&GTK) && titles.contains(&GTK4), "{data}");
    let name = env.id(GTK, "input", "Full name");
    let email = env.id(GTK, "input", "Email");
    let password = env.id(GTK, "pwd", "Password");
    let r = env.ok(&["type", "--id", &name, "Grace Hopper"]);
    assert_eq!(r["route"], "input", "{r}");
    env.ok(&["type", "--id", &email, "grace@navy.mil"]);
    let run = env.cli(&["type", "--id", &password, "s3cret-42"]);
    assert!(!run.stdout.contains("s3cret"), "{}", run.stdout);
    assert_eq!(run.data()["effect"], "confirmed");
    let r = env.ok(&["toggle", "--id", &env.id(GTK, "chk", "Accept terms")]);
    assert_eq!(r["effect"], "confirmed", "{r}");
    let inc = env.id(GTK, "btn", "Increment");
    env.ok(&["click", "--id", &inc]);
    env.ok(&["click", "--id", &inc]);
    let mut f = env.fields.lock().unwrap();
    assert_eq!(f.text(GTK, "Full name"), "Grace Hopper");
    assert_eq!(f.text(GTK, "Email"), "grace@navy.mil");
    let all = f.read(GTK);
    assert_eq!(all["Accept terms"]["checked"], true, "{all}");
    assert!(all.get("Count 2").is_some(), "{all}");
    assert_eq!(all["Password"]["count"], 9, "{all}");
}

/// GTK 4.18 takes no focus request and labwc gives no place to click at: `type --id` puts
/// the text in through the field itself, added or replacing, and says no key was pressed.
/// Text that would be a key (a line break in a one-line field) is refused, and nothing is
/// lost.
fn gtk4_form_without_focus(env: &Env) {
    let inputs = env.ids(GTK4, "input");
    let (name, city) = (&inputs[0].0, &inputs[1].0);
    let r = env.ok(&["type", "--id", name, "Ada"]);
    assert_eq!(
        (&r["route"], &r["keyboard"]),
        (&"a11y".into(), &false.into()),
        "{r}"
    );
    env.ok(&["type", "--id", city, "Paris"]);
    env.ok(&["type", "--id", name, " Lovelace"]);
    env.ok(&["type", "--id", city, "Rome", "--replace"]);
    let refused = env.cli(&["type", "--id", city, "a\nb"]);
    assert_eq!(
        refused.error_code(),
        "PLATFORM_NOT_SUPPORTED",
        "{}",
        refused.stdout
    );
    // GTK 4.18's check button has no accessible action, and no click can reach it here:
    // refused saying both, the box left as it was.
    let refused = env.cli(&["toggle", "--id", &env.id(GTK4, "chk", "Agree")]);
    assert_eq!(
        refused.error_code(),
        "PLATFORM_NOT_SUPPORTED",
        "{}",
        refused.stdout
    );
    let message = refused.json()["error"]["message"].to_string();
    assert!(message.contains("no accessible action"), "{message}");
    env.ok(&["click", "--id", &env.id(GTK4, "btn", "Send")]);
    env.label(GTK4, "name: Ada Lovelace; city: Rome; agree: False");
    env.label(GTK4, "sent: 1");
}

/// No window has a place: input at a point is refused saying so; the screen is captured
/// whole, at the size the sandbox was given.
fn points_refused_screen_captured(env: &Env) {
    let run = env.cli(&["click", "--x", "100", "--y", "100"]);
    assert_eq!(run.error_code(), "PLATFORM_NOT_SUPPORTED", "{}", run.stdout);
    let dir = env.desk.lock().unwrap().temp_dir("labwc-shot");
    let path = dir.join("screen.png");
    let r = env.ok(&["screenshot", "--output", path.to_str().unwrap()]);
    assert_eq!(r["region"], serde_json::json!([0, 0, 1280, 800]), "{r}");
    let png = std::fs::read(&path).unwrap();
    assert!(
        png.len() > 2000,
        "a screen of windows, not a blank: {} bytes",
        png.len()
    );
}

fn main() {
    if !installed("labwc") || !installed("wlr-randr") {
        eprintln!(
            "labwc or wlr-randr is not installed here (Debian 13 packages both): skipped; \
             scripts/bed.sh test --test labwc runs this suite"
        );
        return;
    }
    let mut desk = Desk::start_with(BIN, &["--wayland", "labwc"]);
    let fixture = |f: &str| repo_root().join("tests/fixtures").join(f);
    let gtk4 = fixture("form_gtk4.py");
    desk.launch(&["/usr/bin/python3", gtk4.to_str().unwrap()], GTK4);
    desk.python_app("form_gtk.py");
    let fields = desk.fields();
    let env = Env {
        desk: Mutex::new(desk),
        fields: Mutex::new(fields),
    };
    let tests: Vec<desktop_testkit::NamedTest<Env>> = vec![
        ("labwc::gtk3_form_typed_by_keys", gtk3_form_by_keys),
        (
            "labwc::gtk4_form_typed_without_focus",
            gtk4_form_without_focus,
        ),
        (
            "labwc::points_refused_screen_captured",
            points_refused_screen_captured,
        ),
    ];
    desktop_testkit::run_tests(env, tests, |env, name| {
        env.desk.lock().unwrap().screenshot(name)
    })
}
