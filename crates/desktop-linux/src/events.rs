//! AT-SPI change events from one app: the registry is asked to have apps emit them, and a
//! match rule delivers them to us. `observe` reads when they come; the warm cache of a
//! long-lived server is dropped when they come.

use crate::bus::{Bus, CallError, REGISTRY};
use zbus::{MatchRule, MessageStream};

/// The events that can change what `read` reports.
const EVENTS: &[&str] = &[
    "object:children-changed",
    "object:property-change",
    "object:state-changed",
    "object:text-changed",
    "object:value-changed",
    "object:bounds-changed",
];

/// Signals from `app` (only those of `interface` when given), with the events above
/// registered so apps emit them; an error when the bus refuses the subscription.
pub async fn subscribe(
    bus: &Bus,
    app: &str,
    interface: Option<&str>,
) -> Result<MessageStream, CallError> {
    let mut rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(app)
        .map_err(other)?;
    if let Some(i) = interface {
        rule = rule.interface(i).map_err(other)?;
    }
    listen(bus, rule.build(), EVENTS).await
}

/// Every app's windows added or removed: children changes of the apps' roots.
pub async fn roots(bus: &Bus) -> Result<MessageStream, CallError> {
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface(OBJECT)
        .map_err(other)?
        .member("ChildrenChanged")
        .map_err(other)?
        .path(crate::bus::ROOT_PATH)
        .map_err(other)?
        .build();
    listen(bus, rule, &["object:children-changed"]).await
}

/// The object a signal is about and whether it was its children that changed; `None` for
/// signals that are not object events.
pub fn object_of(msg: &zbus::Message) -> Option<(String, bool)> {
    let header = msg.header();
    if header.interface().is_some_and(|i| i.as_str() != OBJECT) {
        return None;
    }
    let children = header
        .member()
        .is_some_and(|m| m.as_str() == "ChildrenChanged");
    Some((header.path()?.as_str().to_string(), children))
}

const OBJECT: &str = "org.a11y.atspi.Event.Object";

fn other(e: zbus::Error) -> CallError {
    CallError::Other(e.to_string())
}

/// A stream of the signals `rule` matches, with `events` registered so apps emit them.
async fn listen(
    bus: &Bus,
    rule: MatchRule<'_>,
    events: &[&str],
) -> Result<MessageStream, CallError> {
    let stream = tokio::time::timeout(
        bus.timeout,
        MessageStream::for_match_rule(rule, &bus.conn, Some(512)),
    )
    .await
    .map_err(|_| CallError::Timeout)??;
    register(bus, events).await?;
    Ok(stream)
}

/// Has apps emit `events`: toolkits send only the events some client registered for
/// (atk-bridge, Qt); the registration lasts as long as this connection.
async fn register(bus: &Bus, events: &[&str]) -> Result<(), CallError> {
    for event in events {
        bus.call::<_, ()>(
            REGISTRY,
            "/org/a11y/atspi/registry",
            REGISTRY,
            "RegisterEvent",
            &(*event, Vec::<String>::new(), ""),
        )
        .await?;
    }
    Ok(())
}

/// Has apps emit every change event for as long as `bus` stays connected (the keeper's):
/// an action's settling then sees the app's reaction on every toolkit, Qt's included, where
/// it would otherwise only when some listener happened to be registered.
pub async fn register_all(bus: &Bus) -> Result<(), CallError> {
    register(bus, EVENTS).await
}

/// Object events only (what `observe` reads again for).
pub async fn object_events(bus: &Bus, app: &str) -> Result<MessageStream, CallError> {
    subscribe(bus, app, Some(OBJECT)).await
}
