//! Warm state for a long-lived process (the MCP server): per app, the direct connection and
//! the last `Cache.GetItems` answer, reused until the app signals any change (an AT-SPI object
//! event or a cache update). Parts a read has to walk are walked every time: an app sends no
//! events for what its cache does not hold.

use crate::bus::{Bus, CallError};
use crate::tree::{fetch_app_cache, AppCache};
use futures_util::StreamExt;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

struct App {
    bus: Bus,
    cache: Option<AppCache>,
    /// Set by the listener on any signal from the app; cleared before each fresh `GetItems`.
    dirty: Arc<AtomicBool>,
    listener: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for App {
    fn drop(&mut self) {
        if let Some(l) = self.listener.take() {
            l.abort();
        }
    }
}

/// Per-app connections and caches, shared by the calls of one process.
#[derive(Default)]
pub struct Warm {
    apps: tokio::sync::Mutex<HashMap<String, App>>,
}

impl std::fmt::Debug for Warm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Warm")
    }
}

/// Listens for every signal `owner` sends; `None` when the bus refuses.
async fn listen(
    main: &Bus,
    owner: &str,
    dirty: Arc<AtomicBool>,
) -> Option<tokio::task::JoinHandle<()>> {
    let mut stream = crate::events::subscribe(main, owner, None).await.ok()?;
    Some(tokio::spawn(async move {
        while stream.next().await.is_some() {
            dirty.store(true, Ordering::SeqCst);
        }
        // The app is gone or the bus closed: never trust the cache again.
        dirty.store(true, Ordering::SeqCst);
    }))
}

impl Warm {
    /// The app's direct connection and its cache: the remembered one if nothing changed
    /// since, else a fresh `GetItems`.
    pub async fn app(&self, main: &Bus, owner: &str) -> Result<(Bus, AppCache), CallError> {
        let mut apps = self.apps.lock().await;
        if !apps.contains_key(owner) {
            let dirty = Arc::new(AtomicBool::new(true));
            let listener = listen(main, owner, dirty.clone()).await;
            let bus = main.with_peer(owner).await?;
            apps.insert(
                owner.to_string(),
                App {
                    bus,
                    cache: None,
                    dirty,
                    listener,
                },
            );
        }
        let Some(app) = apps.get_mut(owner) else {
            return Err(CallError::Other("no app".into()));
        };
        let trusted = app.listener.as_ref().is_some_and(|l| !l.is_finished());
        if let (Some(cache), true) = (&app.cache, trusted && !app.dirty.load(Ordering::SeqCst)) {
            return Ok((app.bus.clone(), cache.clone()));
        }
        // Cleared before asking: a change during the call marks it dirty again.
        app.dirty.store(false, Ordering::SeqCst);
        match fetch_app_cache(&app.bus, owner).await {
            Ok(cache) => {
                app.cache = Some(cache.clone());
                Ok((app.bus.clone(), cache))
            }
            Err(e) => {
                apps.remove(owner);
                Err(e)
            }
        }
    }
}
