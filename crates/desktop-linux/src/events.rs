//! AT-SPI change events from one app, so `observe` reads only when something changed: the
//! registry is asked to have the app emit them, and a match rule delivers them to us.

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

/// A stream of the app's object events, or an error when the bus refuses the subscription.
pub async fn subscribe(bus: &Bus, app: &str) -> Result<MessageStream, CallError> {
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(app)
        .map_err(|e| CallError::Other(e.to_string()))?
        .interface("org.a11y.atspi.Event.Object")
        .map_err(|e| CallError::Other(e.to_string()))?
        .build();
    let stream = tokio::time::timeout(
        bus.timeout,
        MessageStream::for_match_rule(rule, &bus.conn, Some(512)),
    )
    .await
    .map_err(|_| CallError::Timeout)??;
    for event in EVENTS {
        bus.call::<_, ()>(
            REGISTRY,
            "/org/a11y/atspi/registry",
            REGISTRY,
            "RegisterEvent",
            &(*event, Vec::<String>::new(), ""),
        )
        .await?;
    }
    Ok(stream)
}
