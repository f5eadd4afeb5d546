//! Applications on the accessibility bus and their top-level windows ("frames"), every
//! app asked at once so one hung app costs one timeout, not one per app.

use crate::bus::{Bus, CallError, ACCESSIBLE, COMPONENT, REGISTRY, ROOT_PATH};
use crate::convert;
use desktop_core::{Handle, Rect, Role, States, Unresponsive};
use futures_util::future::join_all;
use zbus::zvariant::OwnedObjectPath;

/// An application and (when asked for) its frames.
#[derive(Clone, Debug)]
pub struct App {
    pub bus_name: String,
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
    pub role: Role,
    pub states: States,
    pub bounds: Option<Rect>,
}

/// Which apps to ask about, and whether to fetch their frames.
#[derive(Clone, Debug, Default)]
pub struct AppQuery {
    pub name: Option<String>,
    pub pid: Option<u32>,
    pub frames: bool,
}

/// Case-insensitive: exact name, or a substring of it.
pub fn name_matches(app: &str, wanted: &str) -> bool {
    let (a, w) = (app.to_lowercase(), wanted.to_lowercase());
    a == w || a.contains(&w)
}

/// How many apps the registry knows (a cheap liveness check of the registry).
pub async fn registered(bus: &Bus) -> Result<usize, CallError> {
    let refs: Vec<(String, OwnedObjectPath)> = bus
        .call(REGISTRY, ROOT_PATH, ACCESSIBLE, "GetChildren", &())
        .await?;
    Ok(refs.len())
}

/// Lists apps registered with the AT-SPI registry.
pub async fn list(bus: &Bus, q: &AppQuery) -> Result<(Vec<App>, Vec<Unresponsive>), CallError> {
    let refs: Vec<(String, OwnedObjectPath)> = bus
        .call(REGISTRY, ROOT_PATH, ACCESSIBLE, "GetChildren", &())
        .await?;
    let results = join_all(refs.iter().map(|(name, _)| one(bus, name, q))).await;
    let mut apps = Vec::new();
    let mut hung = Vec::new();
    for r in results {
        match r {
            Some(Ok(app)) => apps.push(app),
            Some(Err(u)) => hung.push(u),
            None => {}
        }
    }
    Ok((apps, hung))
}

/// One app: `None` when it does not match the query or has gone away.
async fn one(bus: &Bus, bus_name: &str, q: &AppQuery) -> Option<Result<App, Unresponsive>> {
    let pid = bus.pid_of(bus_name).await.unwrap_or(0);
    if q.pid.is_some_and(|p| p != pid) {
        return None;
    }
    let hung = |name: Option<String>| Unresponsive {
        app: name,
        pid,
        code: "APP_UNRESPONSIVE",
    };
    let name = match bus
        .string_property(bus_name, ROOT_PATH, ACCESSIBLE, "Name")
        .await
    {
        Ok(n) => n,
        Err(CallError::Timeout) => {
            // The pid's command name is the best name we can give a hung app.
            return Some(Err(hung(comm(pid))));
        }
        Err(_) => return None,
    };
    let matched = q.name.as_deref().is_none_or(|w| name_matches(&name, w));
    let mut app = App {
        bus_name: bus_name.to_string(),
        name,
        pid,
        frames: Vec::new(),
        matched,
    };
    if !matched {
        return Some(Ok(app));
    }
    if q.frames {
        match frames(bus, bus_name).await {
            Ok(f) => app.frames = f,
            Err(CallError::Timeout) => return Some(Err(hung(Some(app.name)))),
            Err(_) => {}
        }
    }
    Some(Ok(app))
}

/// `/proc/PID/comm`, the process's short command name.
pub fn comm(pid: u32) -> Option<String> {
    (pid != 0)
        .then(|| std::fs::read_to_string(format!("/proc/{pid}/comm")).ok())
        .flatten()
        .map(|s| s.trim().to_string())
}

async fn frames(bus: &Bus, app: &str) -> Result<Vec<Frame>, CallError> {
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
        bus.call::<_, (i32, i32, i32, i32)>(owner, path, COMPONENT, "GetExtents", &(0u32,)),
    );
    let st = convert::state_set(&states?);
    let role = convert::role(convert::role_number(role?), st);
    Ok(Frame {
        handle: Handle {
            owner: owner.to_string(),
            path: path.to_string(),
        },
        name: name.unwrap_or_default(),
        states: convert::states(st, &role),
        role,
        bounds: extents
            .ok()
            .map(|(x, y, w, h)| Rect::new(x, y, w, h))
            .filter(Rect::is_valid),
    })
}
