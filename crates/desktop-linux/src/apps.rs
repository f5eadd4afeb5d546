//! Applications on the accessibility bus and their top-level windows ("frames"). Every app
//! is asked at once, and only what the query needs: an app whose name the bus's
//! identities file already knows is not asked its name, an app that cannot match the query
//! is asked nothing more, a stopped process is not asked at all, and where a query only
//! browses (`list`) each app gets a short budget. One hung app costs its own entry in
//! `unresponsive`, never the other apps' time.

use crate::bus::{Bus, CallError, ACCESSIBLE, APPLICATION, REGISTRY, ROOT_PATH};
use crate::convert;
use crate::identity::{self, Identities, Identity};
use desktop_core::{Handle, Rect, States, Unresponsive};
use futures_util::future::join_all;
use std::time::Duration;
use zbus::zvariant::OwnedObjectPath;

/// An application and (when asked for) its frames.
#[derive(Clone, Debug)]
pub struct App {
    pub name: String,
    pub pid: u32,
    pub frames: Vec<Frame>,
    /// False when the query's name did not match: the app is listed (its name helps error
    /// messages, its pid keeps its X windows from looking inaccessible) but was not asked more.
    pub matched: bool,
}

/// A top-level accessible window of an app.
#[derive(Clone, Debug)]
pub struct Frame {
    pub handle: Handle,
    pub name: String,
    pub states: States,
    pub bounds: Option<Rect>,
}

/// Which apps to ask about, and whether to fetch their frames.
#[derive(Clone, Debug, Default)]
pub struct AppQuery {
    pub name: Option<String>,
    pub pid: Option<u32>,
    pub frames: bool,
    /// Time each app gets to answer when the query only browses (`list`); `None`: the
    /// call timeout, for apps the command needs.
    pub budget: Option<Duration>,
}

/// What a listing found, and what it learned about apps the identities file lacked.
#[derive(Debug, Default)]
pub struct Listing {
    pub apps: Vec<App>,
    pub unresponsive: Vec<Unresponsive>,
    pub learned: Vec<(String, Identity)>,
    /// Every bus name the registry listed (entries of others are dropped from the file).
    pub live: Vec<String>,
}

/// How long an app that probably does not match gets to say its name.
pub const PROBE_BUDGET: Duration = Duration::from_millis(250);

pub use desktop_core::model::name_matches;

/// How many apps the registry knows (a cheap liveness check of the registry).
pub async fn registered(bus: &Bus) -> Result<usize, CallError> {
    let refs: Vec<(String, OwnedObjectPath)> = bus
        .call(REGISTRY, ROOT_PATH, ACCESSIBLE, "GetChildren", &())
        .await?;
    Ok(refs.len())
}

/// The bus names of the apps the registry knows, in its order.
pub async fn registered_names(bus: &Bus) -> Result<Vec<String>, CallError> {
    let refs: Vec<(String, OwnedObjectPath)> = bus
        .call(REGISTRY, ROOT_PATH, ACCESSIBLE, "GetChildren", &())
        .await?;
    Ok(refs.into_iter().map(|(n, _)| n).collect())
}

/// Whether every app of `names` answers a ping within `budget`: an app stopped or hung
/// since a window list was kept has it listed afresh, where it shows as unresponsive.
pub async fn all_answer(bus: &Bus, names: &[String], budget: Duration) -> bool {
    let bus = bus.with_timeout(budget);
    join_all(
        names
            .iter()
            .map(|n| bus.call::<_, ()>(n, ROOT_PATH, "org.freedesktop.DBus.Peer", "Ping", &())),
    )
    .await
    .iter()
    .all(Result::is_ok)
}

/// Lists apps registered with the AT-SPI registry.
pub async fn list(bus: &Bus, q: &AppQuery, known: &Identities) -> Result<Listing, CallError> {
    let refs: Vec<(String, OwnedObjectPath)> = bus
        .call(REGISTRY, ROOT_PATH, ACCESSIBLE, "GetChildren", &())
        .await?;
    let results = join_all(
        refs.iter()
            .map(|(name, _)| one(bus, name, q, known.apps.get(name))),
    )
    .await;
    let mut out = Listing {
        live: refs.into_iter().map(|(n, _)| n).collect(),
        ..Listing::default()
    };
    for r in results {
        let Some(r) = r else { continue };
        if let Some(id) = r.learned {
            out.learned.push(id);
        }
        match r.app {
            Ok(app) => out.apps.push(app),
            Err(u) => out.unresponsive.push(u),
        }
    }
    Ok(out)
}

struct One {
    app: Result<App, Unresponsive>,
    learned: Option<(String, Identity)>,
}

/// One app: `None` when it does not match the query or has gone away.
async fn one(bus: &Bus, bus_name: &str, q: &AppQuery, known: Option<&Identity>) -> Option<One> {
    let pid = match known {
        Some(k) if k.pid != 0 => k.pid,
        _ => bus.pid_of(bus_name).await.unwrap_or(0),
    };
    if q.pid.is_some_and(|p| p != pid) {
        return None;
    }
    let stopped = identity::is_stopped(pid);
    let hung = |name: Option<String>, learned: Option<(String, Identity)>| {
        Some(One {
            app: Err(Unresponsive {
                // Unknown: the caller names it from its windows or its program.
                app: name,
                pid,
                code: "APP_UNRESPONSIVE",
            }),
            learned,
        })
    };
    let (name, learned) = match known {
        Some(k) => (k.name.clone(), None),
        None if stopped => return hung(None, None),
        None => {
            // An app that cannot be the one asked for only gets a short look.
            let likely = q
                .name
                .as_deref()
                .is_none_or(|w| identity::program_name(pid).is_some_and(|p| name_matches(&p, w)));
            let budget = match (likely, q.budget) {
                (false, b) => b.unwrap_or(PROBE_BUDGET).min(PROBE_BUDGET),
                (true, Some(b)) => b,
                (true, None) => bus.timeout,
            };
            let asking = bus.with_timeout(budget.min(bus.timeout));
            let (name, toolkit) = tokio::join!(
                asking.string_property(bus_name, ROOT_PATH, ACCESSIBLE, "Name"),
                asking.string_property(bus_name, ROOT_PATH, APPLICATION, "ToolkitName"),
            );
            match name {
                Ok(n) => {
                    let id = Identity {
                        name: n.clone(),
                        pid,
                        toolkit: toolkit.unwrap_or_default(),
                    };
                    (n, Some((bus_name.to_string(), id)))
                }
                Err(CallError::Timeout) => return hung(None, None),
                Err(_) => return None,
            }
        }
    };
    let matched = q.name.as_deref().is_none_or(|w| {
        name_matches(&name, w) || identity::program_name(pid).is_some_and(|p| name_matches(&p, w))
    });
    let mut app = App {
        name,
        pid,
        frames: Vec::new(),
        matched,
    };
    if matched && q.frames {
        if stopped {
            return hung(Some(app.name), learned);
        }
        let asking = bus.with_timeout(q.budget.unwrap_or(bus.timeout).min(bus.timeout));
        match frames(&asking, bus_name).await {
            Ok(f) => app.frames = f,
            Err(CallError::Timeout) => return hung(Some(app.name), learned),
            Err(_) => {}
        }
    }
    Some(One {
        app: Ok(app),
        learned,
    })
}

pub(crate) async fn frames(bus: &Bus, app: &str) -> Result<Vec<Frame>, CallError> {
    let children: Vec<(String, OwnedObjectPath)> = bus
        .call(app, ROOT_PATH, ACCESSIBLE, "GetChildren", &())
        .await?;
    let results = join_all(children.iter().map(|(owner, path)| {
        let owner = if owner.is_empty() {
            app
        } else {
            owner.as_str()
        };
        frame(bus, owner, path.as_str())
    }))
    .await;
    let mut out = Vec::new();
    for r in results {
        match r {
            Ok(f) => out.push(f),
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(_) => {}
        }
    }
    Ok(out)
}

async fn frame(bus: &Bus, owner: &str, path: &str) -> Result<Frame, CallError> {
    let (name, role, states, extents) = tokio::join!(
        bus.string_property(owner, path, ACCESSIBLE, "Name"),
        bus.call::<_, u32>(owner, path, ACCESSIBLE, "GetRole", &()),
        bus.call::<_, Vec<u32>>(owner, path, ACCESSIBLE, "GetState", &()),
        bus.extents_of(owner, path),
    );
    let st = convert::state_set(&states?);
    let role = convert::role(convert::role_number(role?), st);
    Ok(Frame {
        handle: crate::bus::handle(owner, path),
        name: name.unwrap_or_default(),
        states: convert::states(st, &role),
        bounds: extents
            .ok()
            .map(|(x, y, w, h)| Rect::new(x, y, w, h))
            .filter(Rect::is_valid),
    })
}
