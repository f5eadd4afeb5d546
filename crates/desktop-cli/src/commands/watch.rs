//! `wait` (until an element appears or goes) and `observe` (a window's changes as JSON
//! lines, read again when the app reports a change, polled where it reports none).

use crate::output::Out;
use crate::platform::Platform;
use desktop_core::backend::{Change, Changes, ReadMemo};
use desktop_core::diff::Observer;
use desktop_core::watch::{ObserveRequest, WaitRequest};
use desktop_core::Desktop;
use desktop_core::{Error, Filters, ReadData, Result, WindowInfo};
use serde_json::{json, Value};
use std::time::{Duration, Instant, SystemTime};

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `wait` on this desktop, with the runtime's timer (the polling is the core's), as the
/// JSON the faces print.
pub async fn wait<D: Desktop>(d: &D, a: &WaitRequest) -> Result<Value> {
    let waited = desktop_core::watch::wait(d, a, tokio::time::sleep).await?;
    serde_json::to_value(&waited).map_err(|e| desktop_core::Error::internal(e.to_string()))
}

/// A burst of change events is over once this passes without another...
const BURST_QUIET: Duration = Duration::from_millis(3);
/// ...or this long after its first event, whatever still comes.
const BURST_MAX: Duration = Duration::from_millis(15);

/// Reads the window with the observer's filters, asking again only about what changed.
async fn observe_read<D: Desktop>(
    d: &D,
    window: &WindowInfo,
    filters: &Filters,
    memo: &mut D::Memo,
) -> Result<ReadData> {
    d.read_window(window.clone(), filters, Some(memo)).await
}

/// Notes which element a change is about.
fn note<M: ReadMemo>(memo: &mut M, c: &Change) {
    memo.touched(&c.handle, c.children);
}

/// Completes on Ctrl+C, and on Unix on SIGTERM too (`observe` then ends with `done`; an
/// action is given up). The signals are taken over at its first poll.
pub(crate) async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(mut a), Ok(mut b)) => {
                tokio::select! { _ = a.recv() => {}, _ = b.recv() => {} }
            }
            _ => std::future::pending().await,
        }
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// `observe` for the command line: JSON lines on stdout until --duration, Ctrl+C or SIGTERM.
pub async fn observe(d: &Platform, a: &ObserveRequest, out: Out) -> i32 {
    match observe_events(d, a, |v| out.line(&v), interrupted()).await {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => out.err("observe", &e),
    }
}

/// Emits `observe`'s events (snapshot, added, removed, changed, error, done) until the
/// duration ends or `stop` completes. Bad options are an `Err` before anything is emitted;
/// `Ok(false)` means the window could not be read at all (an `error` and `done` went out).
pub async fn observe_events<D: Desktop>(
    d: &D,
    a: &ObserveRequest,
    mut emit: impl FnMut(Value),
    stop_signal: impl std::future::Future<Output = ()>,
) -> Result<bool> {
    a.validate()?;
    let scope = &a.target;
    let filters = &a.filters;
    let ignore = a.ignore;
    let start = Instant::now();
    let error_event = |e: &Error| json!({"type": "error", "ts": now_secs(), "code": e.code.as_str(), "error": e.message});
    let done_event = |events: u64| json!({"type": "done", "ts": now_secs(), "elapsed": format!("{:.1}s", start.elapsed().as_secs_f64()), "events": events});
    let window = match d.resolve(scope).await {
        Ok(w) => w,
        Err(e) => {
            emit(error_event(&e));
            emit(done_event(0));
            return Ok(false);
        }
    };
    let mut observer = Observer::default();
    let mut memo = D::Memo::default();
    // Boxes matter unless changes of them are ignored and every element is kept wherever
    // it is (no on-screen or bounding-box filter): then an element seen before need not
    // be asked for its box again.
    let boxes = !ignore.bounds || filters.visible_only || filters.bbox.is_some();
    ReadMemo::reuse(&mut memo, boxes);
    let data = match observe_read(d, &window, filters, &mut memo).await {
        Ok(data) => data,
        Err(e) => {
            emit(error_event(&e));
            emit(done_event(0));
            return Ok(false);
        }
    };
    let count = observer.baseline(&data.elements);
    emit(
        json!({"type": "snapshot", "ts": now_secs(), "count": count, "app": window.app, "window": window.title}),
    );

    let mut stream = d.changes(&window).await;
    // Where reads had to walk (Qt, or a Chromium page loaded after the first client came),
    // the window is looked at every --interval, asking again only what the toolkit may
    // change without an event (children lists; the backend knows which), the gap doubling
    // up to 4 times --interval while looks find nothing and no event comes; without events
    // every --interval, wholly. Everything is asked again every 10 s, as a safety net.
    let interval = a.interval;
    let mut look = interval;
    let full_every = interval.max(Duration::from_secs(10));
    let mut last_full = tokio::time::Instant::now();
    let deadline = a.duration.map(|d| tokio::time::Instant::now() + d);
    let mut events = 0u64;
    let mut last_error = String::new();
    // An absolute time: a stream of events must not keep pushing the next poll back.
    let mut next_poll = tokio::time::Instant::now() + interval;
    let mut stop_signal = std::pin::pin!(stop_signal);
    loop {
        let got_event = async {
            match stream.as_mut() {
                Some(s) => s.next().await,
                None => std::future::pending().await,
            }
        };
        let stop = async {
            match deadline {
                Some(t) => tokio::time::sleep_until(t).await,
                None => std::future::pending().await,
            }
        };
        // Whether this read is a timed look asking again only part of the window.
        let looking = tokio::select! {
            event = got_event => {
                match event {
                    Some(c) => note(&mut memo, &c),
                    None => stream = None,
                }
                look = interval;
                // Let a burst of events settle into one read: it is over once 3 ms pass
                // without one (an app's reaction to one input spans well under a
                // millisecond), and read at the latest 15 ms after its first event.
                let until = tokio::time::Instant::now() + BURST_MAX;
                while let Some(s) = stream.as_mut() {
                    let quiet = (tokio::time::Instant::now() + BURST_QUIET).min(until);
                    match tokio::time::timeout_at(quiet, s.next()).await {
                        Ok(Some(c)) => note(&mut memo, &c),
                        Ok(None) => stream = None,
                        Err(_) => break,
                    }
                    if tokio::time::Instant::now() >= until {
                        break;
                    }
                }
                // What has come meanwhile goes into this read too.
                while let Some(c) = stream.as_mut().and_then(|s| s.try_next()) {
                    note(&mut memo, &c);
                }
                false
            }
            _ = tokio::time::sleep_until(next_poll) => {
                let wait = if stream.is_none() { interval } else if ReadMemo::walked_any(&memo) { look } else { full_every };
                let now = tokio::time::Instant::now();
                next_poll = now + wait;
                let partial = stream.is_some() && now < last_full + full_every;
                if partial {
                    ReadMemo::poll(&mut memo);
                } else {
                    ReadMemo::clear(&mut memo);
                    last_full = now;
                }
                partial
            }
            _ = stop => break,
            _ = &mut stop_signal => break,
        };
        match observe_read(d, &window, filters, &mut memo).await {
            Ok(data) => {
                last_error.clear();
                let changes = observer.diff(&data.elements, ignore);
                if !changes.is_empty() {
                    look = interval;
                } else if looking {
                    look = (look * 2).min(interval * 4);
                }
                let ts = now_secs();
                for mut c in changes {
                    c["ts"] = json!(ts);
                    emit(c);
                    events += 1;
                }
            }
            Err(e) => {
                // The baseline stays: the next good read is compared with the last good one.
                if e.message != last_error {
                    emit(error_event(&e));
                    last_error = e.message.clone();
                }
            }
        }
    }
    emit(done_event(events));
    Ok(true)
}

#[cfg(test)]
mod tests {
    //! `observe` on the in-memory desktop, woken by its change notices:
    //! elements are followed by identity, so one inserted at the top is one `added`.

    use super::*;
    use desktop_core::diff::Ignore;
    use desktop_core::fake::{el, refs_file, FakeDesktop};
    use desktop_core::{Role, Target};

    #[test]
    fn an_insert_at_the_top_is_one_added_and_a_rename_one_changed() {
        let tree = vec![el(
            Role::Group,
            "List",
            (0, 0, 400, 300),
            (1..=5)
                .map(|i| {
                    el(
                        Role::Button,
                        &format!("Item {i}"),
                        (10, 30 * i, 80, 20),
                        vec![],
                    )
                })
                .collect(),
        )];
        let d = FakeDesktop::new("demo", "Items", tree, refs_file("observe"));
        let req = ObserveRequest {
            target: Target {
                app: Some("demo".into()),
                ..Target::default()
            },
            filters: Filters {
                visible_only: true,
                ..Filters::default()
            },
            interval: Duration::from_millis(50),
            duration: Some(Duration::from_millis(400)),
            ignore: Ignore {
                bounds: true,
                focus: false,
            },
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let mut events = Vec::new();
        rt.block_on(async {
            let app = async {
                tokio::time::sleep(Duration::from_millis(120)).await;
                d.mutate(|t| {
                    t[0].children
                        .insert(0, el(Role::Button, "New", (10, 0, 80, 20), vec![]))
                });
                tokio::time::sleep(Duration::from_millis(120)).await;
                d.mutate(|t| t[0].children[3].name = "Renamed".into());
            };
            let watch = observe_events(&d, &req, |v| events.push(v), std::future::pending());
            let (done, ()) = tokio::join!(watch, app);
            assert!(done.unwrap());
        });
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(kinds.first(), Some(&"snapshot"), "{events:?}");
        assert_eq!(kinds.last(), Some(&"done"), "{events:?}");
        let changes: Vec<&Value> = events
            .iter()
            .filter(|e| !matches!(e["type"].as_str(), Some("snapshot" | "done")))
            .collect();
        assert_eq!(changes.len(), 2, "one event per real change: {changes:?}");
        assert_eq!(changes[0]["type"], "added");
        assert_eq!(changes[0]["el"]["t"], "New");
        assert_eq!(changes[1]["type"], "changed", "{changes:?}");
    }
}
