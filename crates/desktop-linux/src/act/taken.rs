//! Proof that an app has taken the input sent to it, or that its window went away
//! instead: the X ping round trip (twice, since an app that quits on the input answers the
//! first and closes before the second), input at a point settled through the window
//! there, and what closed, reported as the action's observed effect.

use super::settle::ASYNC_FIRST_EVENT;
use crate::ping::Ping;
use crate::LinuxDesktop;
use desktop_core::action::Effect;
use desktop_core::{Error, ErrorCode, Result};
use std::time::{Duration, Instant};

/// An app known by its bus name and identity.
type AppAt = (String, crate::identity::Identity);

impl LinuxDesktop {
    /// Proves the app behind `window` has read the input sent so far (X ping), or that
    /// the window closed instead (the input closed it or quit the app). An app that does
    /// not answer within the call timeout has not taken it: `APP_UNRESPONSIVE`.
    ///
    /// Wayland has no such round trip for a client to start: the compositor is seen to have
    /// handled the input, the window is seen to be still there, and the settling that
    /// follows reads the app back (the accessibility round trip).
    pub(crate) fn consumed(&self, window: Option<u32>, app: &str) -> Result<Taken> {
        if let Some(wl) = &self.wl {
            crate::seat::Seat::Wayland(wl).sync()?;
            return Ok(if self.window_gone(window) {
                Taken::Closed
            } else {
                Taken::Read
            });
        }
        let (Some(w), Some(x)) = (window, self.x.as_ref()) else {
            return Ok(Taken::Read);
        };
        x.sync()?;
        let mut ping = x.ping(w, self.timeout)?;
        if ping == Ping::Answered {
            // A second round trip: an app that quits on the input answers the first ping
            // and closes right after (Qt queues its quit), before it reads the second.
            ping = x.ping(w, self.timeout)?;
        }
        match ping {
            Ping::Answered | Ping::Unsupported => Ok(Taken::Read),
            Ping::Closed => Ok(Taken::Closed),
            Ping::NoAnswer => Err(Error::new(
                ErrorCode::AppUnresponsive,
                format!(
                    "{app} had not taken the input sent to it after {} ms (it may still act on it when it recovers)",
                    self.timeout.as_millis()
                ),
            )
            .suggest("The app is busy or hung: read it again later to see what arrived")),
        }
    }

    /// Settles after input at a screen point that names no element (a click at x,y, a
    /// wheel turn, a drag's end): the window there has read the input, and, for an app
    /// whose tree changes afterwards, its events have gone quiet. Returns the time taken,
    /// and what closed instead of answering.
    pub(crate) async fn settle_at(&self, x: i32, y: i32) -> Result<(f64, Option<Closed>)> {
        let t = Instant::now();
        let Some((client, app)) = self.client_at(x, y)? else {
            return Ok((0.0, None));
        };
        let name = app.as_ref().map_or("the app", |(_, id)| id.name.as_str());
        if self.consumed(Some(client.id), name)? == Taken::Closed {
            let closed = Closed::now(&client.title, name, client.pid);
            return Ok((t.elapsed().as_secs_f64() * 1000.0, Some(closed)));
        }
        if let Some((owner, _)) = app.filter(|(_, id)| id.is_chromium()) {
            let (mut watch, _) = self.app_watch(&owner).await;
            watch.quiet(ASYNC_FIRST_EVENT).await;
        }
        Ok((t.elapsed().as_secs_f64() * 1000.0, None))
    }

    /// The client window at a screen point (the top-level itself without a window manager;
    /// under a reparenting one, the topmost client whose box holds the point), with its
    /// app's bus name and identity where known.
    fn client_at(&self, x: i32, y: i32) -> Result<Option<(crate::x11::XWindow, Option<AppAt>)>> {
        let Ok(xc) = self.x() else {
            return Ok(None);
        };
        xc.sync()?;
        let windows = xc.windows()?;
        let at = xc.top_level_at(x, y);
        let Some(client) = windows
            .iter()
            .find(|w| Some(w.id) == at)
            .or_else(|| windows.iter().rev().find(|w| w.bounds.contains_point(x, y)))
        else {
            return Ok(None);
        };
        let known = crate::identity::Identities::load(&self.address);
        let app = client
            .pid
            .and_then(|p| known.apps.into_iter().find(|(_, id)| id.pid == p));
        Ok(Some((client.clone(), app)))
    }

    /// The change events of the page whose window is at a screen point (Chromium's), to
    /// wait between clicks there for the page's reaction (`Watch::reaction`); `None`
    /// elsewhere.
    pub(crate) async fn page_watch_at(&self, x: i32, y: i32) -> Option<super::settle::Watch> {
        let (_, app) = self.client_at(x, y).ok()??;
        let (owner, _) = app.filter(|(_, id)| id.is_chromium())?;
        Some(self.app_watch(&owner).await.0)
    }

    /// Whether the top-level window `window` no longer exists or shows.
    pub(crate) fn window_gone(&self, window: Option<u32>) -> bool {
        window.is_some_and(|w| self.tops().is_ok_and(|all| all.iter().all(|o| o.id != w)))
    }
}

/// What became of input sent to a window: read by its app, or the window closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Taken {
    Read,
    Closed,
}

/// A window an action closed (or whose app it ended): an observed effect.
#[derive(Clone, Debug)]
pub(crate) struct Closed {
    window: String,
    app: String,
    /// The app's process has exited.
    exited: bool,
}

impl Closed {
    /// What closed, and whether its process is gone (given a moment to exit).
    pub(crate) fn now(window: &str, app: &str, pid: Option<u32>) -> Closed {
        let exited = pid.is_some_and(|p| {
            let alive = || {
                std::path::Path::new(&format!("/proc/{p}")).exists()
                    && !crate::identity::is_zombie(p)
            };
            let deadline = Instant::now() + Duration::from_millis(300);
            while alive() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            !alive()
        });
        Closed {
            window: window.to_string(),
            app: app.to_string(),
            exited,
        }
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::json!({"window": self.window, "app": self.app, "exited": self.exited})
    }
}

/// Adds what closed to a result (effect confirmed).
pub(crate) fn with_closed(
    mut r: desktop_core::action::ActionResult,
    closed: Option<Closed>,
) -> desktop_core::action::ActionResult {
    match closed {
        Some(c) => {
            r.effect = Effect::Confirmed;
            r.with("closed", c.json())
        }
        None => r,
    }
}
