//! The thin D-Bus layer: one connection to the accessibility bus, every call bounded by a
//! timeout, D-Bus failures sorted into the few kinds the reader acts on.

use desktop_core::{Handle, Rect};
use serde::de::DeserializeOwned;
use std::time::Duration;
use zbus::zvariant::{DynamicType, OwnedObjectPath, OwnedValue, Type};
use zbus::Connection;

pub const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
pub const APPLICATION: &str = "org.a11y.atspi.Application";
pub const COMPONENT: &str = "org.a11y.atspi.Component";
pub const ACTION: &str = "org.a11y.atspi.Action";
pub const TEXT: &str = "org.a11y.atspi.Text";
pub const VALUE: &str = "org.a11y.atspi.Value";
pub const TABLE: &str = "org.a11y.atspi.Table";
pub const DOCUMENT: &str = "org.a11y.atspi.Document";
pub const CACHE: &str = "org.a11y.atspi.Cache";
pub const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
pub const REGISTRY: &str = "org.a11y.atspi.Registry";
pub const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
pub const CACHE_PATH: &str = "/org/a11y/atspi/cache";

/// An object reference as AT-SPI sends it: bus name and path.
pub type ObjectRef = (String, OwnedObjectPath);

/// A reference as (owner, path); an empty owner means the app of `parent` (as toolkits
/// answer for objects of their own).
pub fn owned(parent: &str, (owner, path): &ObjectRef) -> (String, String) {
    let owner = if owner.is_empty() { parent } else { owner };
    (owner.to_string(), path.as_str().to_string())
}

/// An element's address as its [`Handle`] carries it: the app's bus name, then the object
/// path (a bus name holds no `/`, so the path starts at the first one).
pub trait Addr {
    fn owner(&self) -> &str;
    fn path(&self) -> &str;
}

impl Addr for Handle {
    fn owner(&self) -> &str {
        let s = self.as_str();
        &s[..s.find('/').unwrap_or(s.len())]
    }
    fn path(&self) -> &str {
        let s = self.as_str();
        &s[s.find('/').unwrap_or(s.len())..]
    }
}

/// The handle of the object at `path` of the app at `owner`.
pub fn handle(owner: impl AsRef<str>, path: impl AsRef<str>) -> Handle {
    Handle::new(format!("{}{}", owner.as_ref(), path.as_ref()))
}

/// An element's box as its toolkit reports it (see [`Bus::extents_of`]), if it has a valid
/// one.
pub async fn extents(bus: &Bus, h: &Handle) -> Option<Rect> {
    bus.extents_of(h.owner(), h.path())
        .await
        .ok()
        .map(|(x, y, w, h)| Rect::new(x, y, w, h))
        .filter(Rect::is_valid)
}

/// An app's coordinate type, once learned (concurrent askers wait for one answer).
type Coords = std::sync::Arc<tokio::sync::OnceCell<u32>>;

/// AT-SPI's coordinate types (`AtspiCoordType`).
pub const COORD_SCREEN: u32 = 0;
const COORD_WINDOW: u32 = 1;

/// The coordinate type an app's boxes are asked in. GTK 4 does not know where its window
/// is: from 4.10 on it answers every SCREEN box at 0,0 (sizes right), while WINDOW boxes
/// are the element's place in its window (4.8 answered both so). Every other toolkit places
/// its elements on the screen (on Wayland, in the window).
pub fn coord_type(toolkit: &str, version: &str) -> u32 {
    if toolkit.eq_ignore_ascii_case("GTK") && version.starts_with("4.") {
        COORD_WINDOW
    } else {
        COORD_SCREEN
    }
}

/// Why a call failed, in the terms the reader acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// No answer in time: the app is hung or overloaded.
    Timeout,
    /// The app or object no longer exists.
    Gone(String),
    /// The object does not implement this method.
    Unsupported(String),
    /// The reply had another signature than expected (Qt's legacy cache, say).
    Decode(String),
    Other(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Timeout => f.write_str("no reply before the timeout"),
            Self::Gone(s) | Self::Unsupported(s) | Self::Decode(s) | Self::Other(s) => {
                f.write_str(s)
            }
        }
    }
}

impl From<zbus::Error> for CallError {
    fn from(e: zbus::Error) -> Self {
        match &e {
            zbus::Error::MethodError(name, _, _) => classify(name.as_str(), e.to_string()),
            zbus::Error::FDO(fdo) => match **fdo {
                zbus::fdo::Error::NoReply(_) | zbus::fdo::Error::TimedOut(_) => CallError::Timeout,
                _ => classify(fdo_name(fdo), e.to_string()),
            },
            zbus::Error::InputOutput(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                CallError::Timeout
            }
            zbus::Error::InputOutput(_) => CallError::Gone(e.to_string()),
            zbus::Error::Variant(_) => CallError::Decode(e.to_string()),
            zbus::Error::Connection(..) => CallError::Gone(e.to_string()),
            _ => CallError::Other(e.to_string()),
        }
    }
}

fn fdo_name(e: &zbus::fdo::Error) -> &'static str {
    use zbus::fdo::Error as F;
    match e {
        F::ServiceUnknown(_) => "org.freedesktop.DBus.Error.ServiceUnknown",
        F::UnknownObject(_) => "org.freedesktop.DBus.Error.UnknownObject",
        F::UnknownMethod(_) => "org.freedesktop.DBus.Error.UnknownMethod",
        F::UnknownInterface(_) => "org.freedesktop.DBus.Error.UnknownInterface",
        F::NameHasNoOwner(_) => "org.freedesktop.DBus.Error.NameHasNoOwner",
        _ => "",
    }
}

fn classify(name: &str, text: String) -> CallError {
    let short = name.rsplit('.').next().unwrap_or(name);
    match short {
        "NoReply" | "Timeout" | "TimedOut" => CallError::Timeout,
        "ServiceUnknown" | "UnknownObject" | "NameHasNoOwner" | "Disconnected" => {
            CallError::Gone(text)
        }
        "UnknownMethod" | "UnknownInterface" | "UnknownProperty" | "InvalidArgs"
        | "NotSupported" => CallError::Unsupported(text),
        _ => CallError::Other(text),
    }
}

/// A connection with the timeout every call on it is bounded by, and optionally a direct
/// (peer-to-peer) connection to one app that calls to that app take instead: it skips the
/// bus daemon, which otherwise relays (and serializes) every one of hundreds of calls.
#[derive(Clone, Debug)]
pub struct Bus {
    pub conn: Connection,
    pub timeout: Duration,
    peer: Option<(String, Connection)>,
    /// Per app (bus name, never reused by the bus daemon), the coordinate type its boxes are
    /// asked in; shared by the clones of this connection.
    coords: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Coords>>>,
}

impl Bus {
    /// Opens a plain connection to `address` (no eager per-app work, unlike atspi's
    /// `AccessibilityConnection`, which costs milliseconds per running app).
    pub async fn open(address: &str, timeout: Duration) -> Result<Bus, CallError> {
        let build = async { zbus::connection::Builder::address(address)?.build().await };
        let conn = tokio::time::timeout(timeout, build)
            .await
            .map_err(|_| CallError::Timeout)??;
        Ok(Bus {
            conn,
            timeout,
            peer: None,
            coords: Default::default(),
        })
    }

    /// This bus plus a direct connection to the app `owner`, when the app offers one
    /// (`Application.GetApplicationBusAddress`; GTK and Chromium do, Qt does not). Asking
    /// also makes atk-bridge register its cache. Falls back to the bus alone.
    pub async fn with_peer(&self, owner: &str) -> Result<Bus, CallError> {
        let addr = match self
            .call::<_, String>(
                owner,
                ROOT_PATH,
                APPLICATION,
                "GetApplicationBusAddress",
                &(),
            )
            .await
        {
            Ok(a) if !a.is_empty() => a,
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            _ => return Ok(self.clone()),
        };
        let build = async {
            zbus::connection::Builder::address(addr.as_str())?
                .p2p()
                .build()
                .await
        };
        match tokio::time::timeout(self.timeout, build).await {
            Ok(Ok(peer)) => Ok(Bus {
                peer: Some((owner.to_string(), peer)),
                ..self.clone()
            }),
            _ => Ok(self.clone()),
        }
    }

    /// The same connections with another bound on each call.
    pub fn with_timeout(&self, timeout: Duration) -> Bus {
        Bus {
            timeout,
            ..self.clone()
        }
    }

    /// Calls `method` and decodes the reply body as `R`.
    pub async fn call<B, R>(
        &self,
        dest: &str,
        path: &str,
        iface: &str,
        method: &str,
        body: &B,
    ) -> Result<R, CallError>
    where
        B: serde::Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        let conn = match &self.peer {
            Some((owner, peer)) if owner == dest => peer,
            _ => &self.conn,
        };
        let fut = conn.call_method(Some(dest), path, Some(iface), method, body);
        let msg = tokio::time::timeout(self.timeout, fut)
            .await
            .map_err(|_| CallError::Timeout)??;
        Ok(msg.body().deserialize::<R>()?)
    }

    /// Records the toolkit of the app at `owner` (from its `Application` properties), which
    /// says the coordinate type its boxes are asked in.
    pub fn learn_toolkit(&self, owner: &str, toolkit: &str, version: &str) {
        let _ = self.cell(owner).set(coord_type(toolkit, version));
    }

    fn cell(&self, owner: &str) -> Coords {
        let mut coords = self.coords.lock().unwrap_or_else(|e| e.into_inner());
        coords.entry(owner.to_string()).or_default().clone()
    }

    /// The coordinate type `owner`'s boxes are asked in, learned from its toolkit once: the
    /// many boxes of one read asked at once wait for one answer, not ask for it each.
    pub(crate) async fn coords_of(&self, owner: &str) -> u32 {
        let cell = self.cell(owner);
        let learned = cell
            .get_or_try_init(|| async {
                let (toolkit, version) = tokio::join!(
                    self.string_property(owner, ROOT_PATH, APPLICATION, "ToolkitName"),
                    self.string_property(owner, ROOT_PATH, APPLICATION, "Version"),
                );
                Ok::<_, CallError>(coord_type(&toolkit?, &version?))
            })
            .await;
        // Unanswered (a hung app): screen coordinates, asked again next time.
        learned.copied().unwrap_or(COORD_SCREEN)
    }

    /// An element's box, raw, in the coordinates its toolkit knows: the screen's (on Wayland
    /// the window's), or the window's for GTK 4 ([`coord_type`]); the reader places
    /// window-relative boxes.
    pub async fn extents_of(
        &self,
        owner: &str,
        path: &str,
    ) -> Result<(i32, i32, i32, i32), CallError> {
        let coords = self.coords_of(owner).await;
        self.call(owner, path, COMPONENT, "GetExtents", &(coords,))
            .await
    }

    /// The child of the element at `path` under the point (x, y), given in the coordinates
    /// of [`Bus::extents_of`].
    pub async fn at_point(
        &self,
        owner: &str,
        path: &str,
        x: i32,
        y: i32,
    ) -> Result<ObjectRef, CallError> {
        let coords = self.coords_of(owner).await;
        self.call(
            owner,
            path,
            COMPONENT,
            "GetAccessibleAtPoint",
            &(x, y, coords),
        )
        .await
    }

    /// Reads one property.
    pub async fn property(
        &self,
        dest: &str,
        path: &str,
        iface: &str,
        name: &str,
    ) -> Result<OwnedValue, CallError> {
        self.call(dest, path, PROPERTIES, "Get", &(iface, name))
            .await
    }

    pub async fn string_property(
        &self,
        dest: &str,
        path: &str,
        iface: &str,
        name: &str,
    ) -> Result<String, CallError> {
        let v = self.property(dest, path, iface, name).await?;
        String::try_from(v).map_err(|e| CallError::Unsupported(e.to_string()))
    }

    /// The whole text of a Text object. GTK 4.8 answers `GetText(0, -1)` with nothing
    /// (it takes -1 literally): an empty answer is asked again up to the character count.
    pub async fn text(&self, dest: &str, path: &str) -> Result<String, CallError> {
        let text: String = self
            .call(dest, path, TEXT, "GetText", &(0i32, -1i32))
            .await?;
        if !text.is_empty() {
            return Ok(text);
        }
        let count = self.property(dest, path, TEXT, "CharacterCount").await?;
        match i32::try_from(count) {
            Ok(n) if n > 0 => self.call(dest, path, TEXT, "GetText", &(0i32, n)).await,
            _ => Ok(text),
        }
    }

    /// The element's parent; `None` at the top or when the app does not say.
    pub async fn parent(&self, at: &desktop_core::Handle) -> Option<desktop_core::Handle> {
        let parent: ObjectRef = self
            .property(at.owner(), at.path(), ACCESSIBLE, "Parent")
            .await
            .ok()?
            .try_into()
            .ok()?;
        if parent.1.as_str() == "/org/a11y/atspi/null" {
            return None;
        }
        let (owner, path) = owned(at.owner(), &parent);
        Some(handle(owner, path))
    }

    /// The pid of the process behind a bus name (answered by the bus daemon, so it works
    /// even when the app itself is hung).
    pub async fn pid_of(&self, name: &str) -> Result<u32, CallError> {
        self.call(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "GetConnectionUnixProcessID",
            &(name,),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtk4_boxes_are_asked_in_window_coordinates() {
        assert_eq!(coord_type("GTK", "4.18.6"), COORD_WINDOW);
        assert_eq!(coord_type("gtk", "4.8.3"), COORD_WINDOW);
        assert_eq!(coord_type("GTK", "3.24.49"), COORD_SCREEN);
        assert_eq!(coord_type("Qt", "6.8.2"), COORD_SCREEN);
        assert_eq!(coord_type("", ""), COORD_SCREEN);
    }
}
