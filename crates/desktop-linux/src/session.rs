//! Finding the desktop to talk to: the display, the session bus and the accessibility bus,
//! adopting a running sandbox when no `DISPLAY` is set, and switching accessibility on.

use crate::bus::{Bus, CallError};
use crate::sandbox::{self, Sandbox};
use crate::x11::X;
use desktop_core::{Error, ErrorCode, Result};
use std::time::{Duration, Instant};
use zbus::zvariant::Value;

const A11Y_BUS: &str = "org.a11y.Bus";
const A11Y_PATH: &str = "/org/a11y/bus";
const A11Y_STATUS: &str = "org.a11y.Status";

/// Points this process at the sandbox when `DISPLAY` is unset (or `DESKTOP_CLI_SANDBOX`
/// names one), so everything after, X and D-Bus alike, talks to it. With several sandboxes
/// running and none named, it refuses rather than guess which desktop to act on.
///
/// Must run before any thread starts: it sets environment variables of this process.
pub fn adopt_sandbox() -> Result<Option<Sandbox>> {
    let asked = std::env::var_os("DESKTOP_CLI_SANDBOX").is_some();
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|d| !d.is_empty()));
    if has_display && !asked {
        return Ok(None);
    }
    if !asked {
        let running: Vec<String> = sandbox::all()
            .into_iter()
            .filter(Sandbox::alive)
            .map(|s| format!(":{}", s.display))
            .collect();
        if running.len() > 1 {
            return Err(Error::new(
                ErrorCode::AmbiguousTarget,
                format!(
                    "{} sandboxes are running ({}) and no DISPLAY is set",
                    running.len(),
                    running.join(", ")
                ),
            )
            .suggest(format!(
                "Choose one with DESKTOP_CLI_SANDBOX={}, or stop the others",
                running[0]
            )));
        }
    }
    let Some(sandbox) = sandbox::current() else {
        return Ok(None);
    };
    for key in sandbox.unset() {
        std::env::remove_var(key);
    }
    if sandbox.wayland.is_none() {
        std::env::remove_var("WAYLAND_DISPLAY");
    }
    for (key, value) in sandbox.env() {
        std::env::set_var(key, value);
    }
    // This process goes straight to the sandbox's bus; programs it starts find it through
    // the X root window (see `Sandbox::env`), so `launch` removes this again for them.
    std::env::set_var("AT_SPI_BUS_ADDRESS", &sandbox.a11y_bus_address);
    Ok(Some(sandbox))
}

fn unavailable(why: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::A11yUnavailable, format!("cannot reach the accessibility bus: {why}"))
        .suggest("Start the AT-SPI bus (package at-spi2-core: /usr/libexec/at-spi-bus-launcher --launch-immediately), or use a headless sandbox desktop; the doctor check tests every part")
}

/// The accessibility bus address: `AT_SPI_BUS_ADDRESS`, else the `AT_SPI_BUS` property of
/// the X root window, else `org.a11y.Bus.GetAddress` on the session bus.
pub async fn a11y_address(x: Option<&X>, timeout: Duration) -> Result<String> {
    if let Ok(addr) = std::env::var("AT_SPI_BUS_ADDRESS") {
        if !addr.is_empty() {
            return Ok(addr);
        }
    }
    if let Some(x) = x {
        if let Ok(Some(addr)) = x.root_string("AT_SPI_BUS") {
            return Ok(addr);
        }
    }
    let session = session_bus(timeout).await?;
    session
        .call::<_, String>(A11Y_BUS, A11Y_PATH, A11Y_BUS, "GetAddress", &())
        .await
        .map_err(unavailable)
}

pub async fn session_bus(timeout: Duration) -> Result<Bus> {
    let addr = std::env::var("DBUS_SESSION_BUS_ADDRESS")
        .ok()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| unavailable("DBUS_SESSION_BUS_ADDRESS is not set"))?;
    Bus::open(&addr, timeout).await.map_err(unavailable)
}

/// Reads `org.a11y.Status.IsEnabled` without changing it.
pub async fn is_enabled(timeout: Duration) -> Result<bool> {
    let bus = session_bus(timeout).await?;
    let v = bus
        .property(A11Y_BUS, A11Y_PATH, A11Y_STATUS, "IsEnabled")
        .await
        .map_err(unavailable)?;
    bool::try_from(v).map_err(|e| unavailable(e.to_string()))
}

/// Whether `org.a11y.Status.IsEnabled` is on; switches it on if it is off.
/// Returns `Ok(true)` when this call switched it on (toolkits started before then may need
/// a restart to expose their trees).
pub async fn ensure_enabled(timeout: Duration) -> Result<bool> {
    let bus = session_bus(timeout).await?;
    let on = bus
        .property(A11Y_BUS, A11Y_PATH, A11Y_STATUS, "IsEnabled")
        .await
        .ok()
        .and_then(|v| bool::try_from(v).ok());
    if on == Some(true) {
        return Ok(false);
    }
    set_enabled(&bus).await.map_err(unavailable)?;
    Ok(true)
}

async fn set_enabled(bus: &Bus) -> Result<(), CallError> {
    bus.call::<_, ()>(
        A11Y_BUS,
        A11Y_PATH,
        crate::bus::PROPERTIES,
        "Set",
        &(A11Y_STATUS, "IsEnabled", Value::from(true)),
    )
    .await
}

async fn has_owner(bus: &Bus, name: &str) -> bool {
    bus.call::<_, bool>(
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "NameHasOwner",
        &(name,),
    )
    .await
    .unwrap_or(false)
}

/// For a fresh sandbox: waits until `org.a11y.Bus` answers on `bus_address`, switches
/// accessibility on, and returns the accessibility bus address.
pub async fn enable_accessibility(bus_address: &str, deadline: Instant) -> Result<String> {
    let mut last = String::from("no attempt");
    while Instant::now() < deadline {
        let left = deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(50));
        match Bus::open(bus_address, left).await {
            Ok(bus) => {
                // Asking before the launcher owns the name would make the bus daemon start
                // a second launcher by D-Bus activation.
                if !has_owner(&bus, A11Y_BUS).await {
                    last = "org.a11y.Bus has no owner yet".into();
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
                match bus
                    .call::<_, String>(A11Y_BUS, A11Y_PATH, A11Y_BUS, "GetAddress", &())
                    .await
                {
                    Ok(addr) if !addr.is_empty() => {
                        set_enabled(&bus).await.map_err(unavailable)?;
                        // Start the registry now, so apps launched next find it at once.
                        if let Ok(a11y) = Bus::open(&addr, left).await {
                            let _: Result<Vec<(String, zbus::zvariant::OwnedObjectPath)>, _> = a11y
                                .call(
                                    crate::bus::REGISTRY,
                                    crate::bus::ROOT_PATH,
                                    crate::bus::ACCESSIBLE,
                                    "GetChildren",
                                    &(),
                                )
                                .await;
                        }
                        return Ok(addr);
                    }
                    Ok(_) => last = "empty address".into(),
                    Err(e) => last = e.to_string(),
                }
            }
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Err(unavailable(last))
}

/// Hands the sandbox's display and toolkit settings to the services its session bus starts
/// on demand (a desktop portal's file chooser, a secrets prompt): without them such a
/// service cannot open a window, or opens one with no tree to read.
pub async fn share_environment(
    bus_address: &str,
    vars: &[(&str, String)],
) -> std::result::Result<(), CallError> {
    let bus = Bus::open(bus_address, Duration::from_secs(2)).await?;
    let env: std::collections::HashMap<&str, &str> =
        vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    bus.call::<_, ()>(
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "UpdateActivationEnvironment",
        &(env,),
    )
    .await
}
