//! `doctor`: checks each part the tool needs and says how to fix what fails.

use crate::cli::{Format, Global};
use crate::output::Out;
use desktop_linux::bus::Bus;
use desktop_linux::{sandbox, session, x11::X};
use serde::Serialize;
use std::time::Duration;

#[derive(Serialize)]
struct Check {
    name: &'static str,
    ok: bool,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<&'static str>,
}

fn check(name: &'static str, r: Result<String, String>, fix: &'static str) -> Check {
    match r {
        Ok(detail) => Check {
            name,
            ok: true,
            detail,
            fix: None,
        },
        Err(detail) => Check {
            name,
            ok: false,
            detail,
            fix: Some(fix),
        },
    }
}

pub async fn run(g: &Global, out: Out) -> i32 {
    let timeout = Duration::from_millis(g.call_timeout.max(1));
    let mut checks = Vec::new();

    let in_sandbox = std::env::var("DESKTOP_CLI_SANDBOX").ok();
    let display = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
    let x = X::connect();
    checks.push(check(
        "display",
        match (&x, &display) {
            (Ok(x), Some(d)) => Ok(format!(
                "X display {d} ({}x{}){}",
                x.screen.w,
                x.screen.h,
                in_sandbox.as_ref().map(|s| format!(", sandbox :{s}")).unwrap_or_default()
            )),
            (Err(e), _) => Err(e.message.clone()),
            (Ok(_), None) => Err("DISPLAY is not set".into()),
        },
        "Run `desktop-cli sandbox up` for a headless desktop (needs xvfb: scripts/install-deps.sh), or set DISPLAY and XAUTHORITY",
    ));
    checks.push(check(
        "xtest",
        match &x {
            Ok(x) if x.has_extension("XTEST") => Ok("XTEST extension present (synthesized input works)".into()),
            Ok(_) => Err("the X server has no XTEST extension".into()),
            Err(_) => Err("no X display".into()),
        },
        "Use an X server with XTEST (Xvfb and Xorg have it); without it only accessibility actions work",
    ));
    let session_bus = session::session_bus(timeout).await;
    checks.push(check(
        "session_bus",
        session_bus
            .as_ref()
            .map(|_| std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_default())
            .map_err(|e| e.message.clone()),
        "Start a session bus (`dbus-launch`, package dbus-x11) or use `desktop-cli sandbox up`",
    ));
    let addr = session::a11y_address(x.as_ref().ok(), timeout).await;
    let bus = match &addr {
        Ok(a) => Bus::open(a, timeout).await.map_err(|e| format!("{a}: {e}")),
        Err(e) => Err(e.message.clone()),
    };
    checks.push(check(
        "a11y_bus",
        bus.as_ref().map(|_| addr.clone().unwrap_or_default()).map_err(Clone::clone),
        "Start the AT-SPI bus: /usr/libexec/at-spi-bus-launcher --launch-immediately (package at-spi2-core), or use `desktop-cli sandbox up`",
    ));
    let registry = match &bus {
        Ok(b) => desktop_linux::apps::registered(b)
            .await
            .map(|n| format!("{n} application(s) registered"))
            .map_err(|e| format!("the registry did not answer: {e}")),
        Err(_) => Err("no accessibility bus".into()),
    };
    checks.push(check(
        "registry",
        registry,
        "The registry (at-spi2-registryd) starts with the bus; restart the bus or the sandbox",
    ));
    checks.push(check(
        "a11y_enabled",
        match session::is_enabled(timeout).await {
            Ok(true) => Ok("org.a11y.Status.IsEnabled is true".into()),
            Ok(false) => Err("org.a11y.Status.IsEnabled is false: toolkits hide their trees".into()),
            Err(e) => Err(e.message),
        },
        "Every desktop-cli command switches it on when it finds it off; apps started before that may need a restart",
    ));
    let sandboxes = sandbox::all()
        .into_iter()
        .filter(sandbox::Sandbox::alive)
        .map(|s| s.display)
        .collect::<Vec<_>>();
    let healthy = checks.iter().all(|c| c.ok);
    if out.format == Format::Text {
        let mut s = String::new();
        for c in &checks {
            s.push_str(&format!(
                "{} {:<13} {}\n",
                if c.ok { "ok  " } else { "FAIL" },
                c.name,
                c.detail
            ));
            if let Some(f) = c.fix {
                s.push_str(&format!("     {:<13} fix: {f}\n", ""));
            }
        }
        return out.text(&s);
    }
    out.ok(
        "doctor",
        serde_json::json!({ "healthy": healthy, "checks": checks, "sandboxes": sandboxes }),
    )
}
