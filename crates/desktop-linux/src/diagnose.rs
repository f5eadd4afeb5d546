//! `doctor` on Linux: each part the tool needs — private state folders, display, XTEST, session bus, accessibility
//! bus and registry, IsEnabled — checked, with how to fix what fails.

use crate::bus::{Bus, ACCESSIBLE, REGISTRY, ROOT_PATH};
use crate::x11::X;
use crate::{apps, sandbox, session};
use desktop_core::backend::Check;
use std::time::Duration;

/// The displays as `WxH+X+Y` (xrandr's geometry), the primary one marked, and their source.
fn displays(x: &X) -> String {
    let (displays, source) = x.displays_from();
    let list: Vec<String> = displays
        .iter()
        .map(|d| {
            let b = d.bounds;
            let primary = if d.primary { " primary" } else { "" };
            format!("{}x{}+{}+{}{primary}", b.w, b.h, b.x, b.y)
        })
        .collect();
    format!("displays from {}: {}", source.describe(), list.join(", "))
}

/// Every check, in the order a fix has to follow.
pub async fn checks(timeout: Duration) -> Vec<Check> {
    let mut checks = Vec::new();
    let root = sandbox::runtime_root();
    checks.push(Check::new(
        "state",
        sandbox::check_private()
            .map(|()| format!("{} is yours alone", root.display()))
            .map_err(|e| e.message),
        "Remove the folder named (or make it yours with chmod 700), or set XDG_RUNTIME_DIR to a folder only you can enter",
    ));
    let in_sandbox = std::env::var("DESKTOP_CLI_SANDBOX").ok();
    if crate::is_wayland() {
        checks.extend(crate::wayland::checks(in_sandbox.as_deref()));
        checks.extend(buses(timeout, None).await);
        return checks;
    }
    checks.push(Check::new("session", Ok("X11".into()), ""));
    let display = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
    let x = X::connect();
    checks.push(Check::new(
        "display",
        match (&x, &display) {
            (Ok(x), Some(d)) => Ok(format!(
                "X display {d} ({}x{}); {}{}",
                x.screen.w,
                x.screen.h,
                displays(x),
                in_sandbox.as_ref().map(|s| format!("; sandbox :{s}")).unwrap_or_default()
            )),
            (Err(e), _) => Err(e.message.clone()),
            (Ok(_), None) => Err("DISPLAY is not set".into()),
        },
        "Start a headless desktop (sandbox up; it needs xvfb: scripts/install-deps.sh), or set DISPLAY and XAUTHORITY",
    ));
    checks.push(Check::new(
        "xtest",
        match &x {
            Ok(x) if x.has_extension("XTEST") => Ok("XTEST extension present (synthesized input works)".into()),
            Ok(_) => Err("the X server has no XTEST extension".into()),
            Err(_) => Err("no X display".into()),
        },
        "Use an X server with XTEST (Xvfb and Xorg have it); without it only accessibility actions work",
    ));
    checks.extend(buses(timeout, x.as_ref().ok()).await);
    checks
}

/// The session bus, the accessibility bus and its registry, Qt 6 apps that never
/// registered, IsEnabled.
async fn buses(timeout: Duration, x: Option<&X>) -> Vec<Check> {
    let mut checks = Vec::new();
    let session_bus = session::session_bus(timeout).await;
    checks.push(Check::new(
        "session_bus",
        session_bus
            .as_ref()
            .map(|_| std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_default())
            .map_err(|e| e.message.clone()),
        "Start a session bus (dbus-launch, package dbus-x11) or a headless desktop (sandbox up)",
    ));
    let addr = session::a11y_address(x, timeout).await;
    let bus = match &addr {
        Ok(a) => Bus::open(a, timeout).await.map_err(|e| format!("{a}: {e}")),
        Err(e) => Err(e.message.clone()),
    };
    checks.push(Check::new(
        "a11y_bus",
        bus.as_ref().map(|_| addr.clone().unwrap_or_default()).map_err(Clone::clone),
        "Start the AT-SPI bus: /usr/libexec/at-spi-bus-launcher --launch-immediately (package at-spi2-core), or a headless desktop (sandbox up)",
    ));
    let registry = match &bus {
        Ok(b) => apps::registered(b)
            .await
            .map(|n| format!("{n} application(s) registered"))
            .map_err(|e| format!("the registry did not answer: {e}")),
        Err(_) => Err("no accessibility bus".into()),
    };
    checks.push(Check::new(
        "registry",
        registry,
        "The registry (at-spi2-registryd) starts with the bus; restart the bus or the sandbox",
    ));
    if let Ok(b) = &bus {
        let stuck = unregistered_qt6(b).await;
        checks.push(Check::new(
            "qt6_apps",
            if stuck.is_empty() {
                Ok("no Qt 6 app is connected without registering".into())
            } else {
                Err(format!(
                    "Qt 6 apps connected to the accessibility bus but never registered (their windows cannot be read): {}",
                    stuck.join(", ")
                ))
            },
            "Restart them without AT_SPI_BUS_ADDRESS in their environment (Qt 6 does not register when given it); desktop-cli launch and sandbox run leave it out",
        ));
    }
    checks.push(Check::new(
        "a11y_enabled",
        match session::is_enabled(timeout).await {
            Ok(true) => Ok("org.a11y.Status.IsEnabled is true".into()),
            Ok(false) => Err("org.a11y.Status.IsEnabled is false: toolkits hide their trees".into()),
            Err(e) => Err(e.message),
        },
        "Every command switches it on when it finds it off; apps started before that may need a restart",
    ));
    checks
}

/// Qt 6 apps (`program (pid N)`) with a connection to the accessibility bus that the
/// registry does not list: what Qt 6.4 does when started with `AT_SPI_BUS_ADDRESS` set.
async fn unregistered_qt6(bus: &Bus) -> Vec<String> {
    let names: Vec<String> = bus
        .call(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "ListNames",
            &(),
        )
        .await
        .unwrap_or_default();
    let registered: Vec<(String, zbus::zvariant::OwnedObjectPath)> = bus
        .call(REGISTRY, ROOT_PATH, ACCESSIBLE, "GetChildren", &())
        .await
        .unwrap_or_default();
    let mut out = Vec::new();
    for name in names.iter().filter(|n| n.starts_with(':')) {
        if registered.iter().any(|(r, _)| r == name) {
            continue;
        }
        let Ok(pid) = bus.pid_of(name).await else {
            continue;
        };
        let qt6 = std::fs::read_to_string(format!("/proc/{pid}/maps"))
            .is_ok_and(|maps| maps.contains("libQt6Core"));
        if qt6 {
            let program = crate::identity::program_name(pid).unwrap_or_else(|| "?".into());
            out.push(format!("{program} (pid {pid})"));
        }
    }
    out
}

/// Display numbers of the running sandboxes.
pub fn sandboxes() -> Vec<u32> {
    sandbox::all()
        .into_iter()
        .filter(sandbox::Sandbox::alive)
        .map(|s| s.display)
        .collect()
}
