//! Reading one window's subtree. The app's `Cache.GetItems` gives structure, names, roles
//! and states in one call where the toolkit fills it (GTK3, Chromium); wherever it is
//! missing or partial (Qt5 has none, GTK4 fills it lazily, every toolkit leaves out the
//! children of MANAGES_DESCENDANTS containers) a level-by-level walk fills in, with every
//! call of a level in flight at once.

use crate::bus::Addr;
use crate::bus::{Bus, CallError, ACCESSIBLE, APPLICATION, CACHE, CACHE_PATH, ROOT_PATH};
use crate::cells::Cells;
use crate::children::{self, Kids};
use crate::convert;
pub use crate::memo::Memo;
use crate::showing;
use desktop_core::{Handle, Node, Rect, States};
use futures_util::future::join_all;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use zbus::zvariant::{OwnedObjectPath, OwnedValue};

/// An object reference as the wire carries it: `(so)`.
type Ref = (String, OwnedObjectPath);

/// One `Cache.GetItems` entry: `((so)(so)(so)iiassusau)`, decoded leniently (no name
/// validation) so one odd entry cannot cost the whole cache.
pub(crate) type CacheEntry = (
    Ref,
    Ref,
    Ref,
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

/// How far the reader goes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Levels below the root to read (`u32::MAX`: all).
    pub max_depth: u32,
    /// Do not descend into elements that are not showing (their subtree is dropped anyway).
    pub skip_hidden: bool,
    /// At most this many children of one container (long lists, tables): a larger one is
    /// read by its cells in view or its first children (`children`).
    pub managed_cap: usize,
    /// The part of the screen the window shows, where a large table's cells are looked for.
    pub view: Option<Rect>,
    /// The walk stops (the read is marked incomplete) past this many elements...
    pub max_nodes: usize,
    /// ...or once this much time has gone (an app building objects without end).
    pub budget: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_depth: u32::MAX,
            skip_hidden: true,
            managed_cap: 500,
            view: None,
            max_nodes: 20_000,
            budget: Duration::from_secs(3),
        }
    }
}

/// Where the time went, for `--timing` and the benchmark.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub cache_items: usize,
    pub walked: usize,
    pub cache_ms: f64,
    pub walk_ms: f64,
    /// Why the walk stopped before the whole window was read, if it did.
    pub incomplete: Option<&'static str>,
    /// The toolkit reports boxes in its window's coordinates, not the screen's (GTK 4).
    pub window_relative: bool,
    /// Other reads of the app that had its mirrors out when this one walked (`Warm::walk`).
    pub beside: usize,
}

struct Slot {
    node: Node,
    children: Vec<usize>,
    depth: u32,
    /// Unknown to the memo before this read, or below such an element: what is below it is
    /// asked about afresh too (Chromium moves an element under a new one and changes its
    /// states without a signal).
    fresh: bool,
}

/// Reads the subtree under `root` (a window) of the app owning `root.owner`; the cells of
/// large tables recent reads were handed are taken from `cells` where still alive.
pub async fn read_subtree(
    bus: &Bus,
    root: &Handle,
    limits: Limits,
    cells: Option<&Cells>,
) -> Result<(Node, Stats), CallError> {
    read_subtree_with(bus, root, limits, cells, None, None).await
}

/// [`read_subtree`], reusing (and refreshing) what `memo` knows of elements the cache lacks.
pub async fn read_subtree_with(
    bus: &Bus,
    root: &Handle,
    limits: Limits,
    cells: Option<&Cells>,
    mut memo: Option<&mut Memo>,
    known: Option<AppCache>,
) -> Result<(Node, Stats), CallError> {
    let mut stats = Stats::default();
    let t = Instant::now();
    let started = t;
    let app = match known {
        Some(k) => k,
        None => fetch_app_cache(bus, root.owner()).await?,
    };
    if let Some(m) = memo.as_deref_mut() {
        m.settle_poll(app.trust());
    }
    let AppCache {
        items: cache,
        get_all,
        showing: quirk,
        ..
    } = app;
    // Where SHOWING is not reported, hidden parts are only known after the walk.
    let limits = Limits {
        skip_hidden: limits.skip_hidden && quirk != showing::Quirk::WindowOnly,
        ..limits
    };
    stats.window_relative = quirk == showing::Quirk::WindowOnly;
    let cache = cache.as_deref();
    stats.cache_ms = ms(t);
    stats.cache_items = cache.map_or(0, Vec::len);

    let mut arena: Vec<Slot> = Vec::new();
    let mut frontier: Vec<usize> = Vec::new();
    let t = Instant::now();
    let index = cache.and_then(|c| index_cache(c, root.path()));
    match &index {
        Some(ix) => {
            build_from_cache(
                ix,
                root.path(),
                root.owner(),
                0,
                limits,
                &mut arena,
                &mut frontier,
            );
        }
        None => {
            // No usable cache: fetch the root itself, then walk.
            let node = fetch_node(bus, root.clone(), get_all).await?;
            arena.push(Slot {
                node,
                children: Vec::new(),
                depth: 0,
                fresh: false,
            });
            if wants_children(&arena[0], limits) {
                frontier.push(0);
            }
        }
    }
    let walker = Walker {
        bus,
        ix: index.as_ref(),
        limits,
        get_all,
        started,
        cells,
    };
    (stats.walked, stats.incomplete) = walker
        .walk(&mut arena, frontier, memo.as_deref_mut())
        .await?;
    if let Some(m) = memo {
        m.recheck_once = false;
        m.restate_once = false;
    }
    let mut root = assemble(&mut arena, 0);
    match quirk {
        showing::Quirk::WindowOnly => showing::derive(bus, &mut root).await?,
        showing::Quirk::PopupItems => showing::derive_popups(bus, &mut root).await?,
        showing::Quirk::None => {}
    }
    showing::closed_popups(bus, &mut root).await?;
    stats.walk_ms = ms(t);
    Ok((root, stats))
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// What one `Cache.GetItems` call says about an app, and how to ask it about the rest.
#[derive(Clone, Debug)]
pub struct AppCache {
    /// `None` when the app keeps no cache (Qt).
    pub(crate) items: Option<std::sync::Arc<Vec<CacheEntry>>>,
    /// Whether `Properties.GetAll` is safe with this toolkit (Qt 5 crashes on it).
    pub(crate) get_all: bool,
    /// How the toolkit falls short in reporting SHOWING (`showing` makes up for it).
    pub(crate) showing: showing::Quirk,
    /// The toolkit's name as the app gives it.
    pub(crate) toolkit: String,
}

/// How far a toolkit's change signals can be trusted to keep a mirror of its windows true
/// (measured by `cargo test --test mirror`: random changes, mirror against fresh reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trust {
    /// Every change is signalled (GTK 4).
    Everything,
    /// Names and states are; children moved, added or removed sometimes are not (GTK 3
    /// leaves out a box's removals, Chromium some of its own): children lists are asked
    /// again on every read.
    NamesAndStates,
    /// Names are; children and states sometimes are not (Qt 5: rows scrolled into or out
    /// of a list's view change their states silently): both are asked again on every read.
    Names,
    /// Not measured: nothing kept.
    Nothing,
}

impl AppCache {
    /// Whether elements' states change without a signal when their window scrolls:
    /// Chromium's SHOWING (a page scrolled by script: only its drawing tells, `quiet`).
    pub(crate) fn scrolls_silently(&self) -> bool {
        self.toolkit.eq_ignore_ascii_case("Chromium")
    }

    /// States a read judges itself rather than takes from the toolkit (`showing`): asking
    /// an element again cannot confirm them.
    pub(crate) fn derived(&self) -> States {
        match self.showing {
            showing::Quirk::None => States::empty(),
            _ => States::SHOWING,
        }
    }

    pub(crate) fn trust(&self) -> Trust {
        let is = |k: &str| self.toolkit.eq_ignore_ascii_case(k);
        if self.showing == showing::Quirk::WindowOnly {
            Trust::Everything
        } else if is("GTK") || is("GAIL") || is("Chromium") {
            Trust::NamesAndStates
        } else if is("Qt") {
            Trust::Names
        } else {
            Trust::Nothing
        }
    }
}

/// The app's cache and toolkit, fetched together.
pub async fn fetch_app_cache(bus: &Bus, owner: &str) -> Result<AppCache, CallError> {
    let (cache, toolkit, version, app) = tokio::join!(
        load_cache(bus, owner),
        bus.string_property(owner, ROOT_PATH, APPLICATION, "ToolkitName"),
        bus.string_property(owner, ROOT_PATH, APPLICATION, "Version"),
        bus.string_property(owner, ROOT_PATH, ACCESSIBLE, "Name"),
    );
    let toolkit = toolkit.unwrap_or_default();
    let version = version.unwrap_or_default();
    bus.learn_toolkit(owner, &toolkit, &version);
    let get_all = get_all_safe(&toolkit, &app.unwrap_or_default());
    Ok(AppCache {
        items: cache?.map(std::sync::Arc::new),
        get_all,
        showing: showing::quirk(&toolkit, &version),
        toolkit,
    })
}

/// `GetItems`, after `GetApplicationBusAddress` where needed: atk-bridge registers its
/// cache only once it has seen a client. `Ok(None)` means "no cache: walk".
async fn load_cache(bus: &Bus, app: &str) -> Result<Option<Vec<CacheEntry>>, CallError> {
    for attempt in 0..2 {
        match bus
            .call::<_, Vec<CacheEntry>>(app, CACHE_PATH, CACHE, "GetItems", &())
            .await
        {
            Ok(items) => return Ok(Some(items)),
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(CallError::Decode(_)) => {
                // Qt answers with the legacy signature and no items.
                return Ok(None);
            }
            Err(_) if attempt == 0 => {
                let woke: Result<String, _> = bus
                    .call(app, ROOT_PATH, APPLICATION, "GetApplicationBusAddress", &())
                    .await;
                if let Err(CallError::Timeout) = woke {
                    return Err(CallError::Timeout);
                }
            }
            Err(_) => return Ok(None),
        }
    }
    Ok(None)
}

/// The cache indexed by object path and by parent path (children in index order).
struct Index<'a> {
    by_path: HashMap<&'a str, &'a CacheEntry>,
    kids: HashMap<&'a str, Vec<(i32, &'a str)>>,
}

/// Indexes the cache; `None` if `root` is not in it.
fn index_cache<'a>(items: &'a [CacheEntry], root: &str) -> Option<Index<'a>> {
    let mut by_path = HashMap::with_capacity(items.len());
    let mut kids: HashMap<&'a str, Vec<(i32, &'a str)>> = HashMap::with_capacity(items.len());
    for item in items {
        let path = item.0 .1.as_str();
        by_path.insert(path, item);
        kids.entry(item.2 .1.as_str())
            .or_default()
            .push((item.3, path));
    }
    if !by_path.contains_key(root) {
        return None;
    }
    for list in kids.values_mut() {
        list.sort_unstable();
    }
    Some(Index { by_path, kids })
}

fn node_from_cache(item: &CacheEntry, owner: &str) -> Node {
    let (obj, _app, _parent, _index, child_count, ifaces, name, role, description, states) = item;
    let st = convert::state_set(states);
    let role = convert::role(convert::role_number(*role), st);
    Node {
        states: convert::states(st, &role),
        role,
        name: convert::name(name),
        description: description.trim().to_string(),
        caps: convert::caps(ifaces),
        // -1: a MANAGES_DESCENDANTS container whose children the toolkit does not cache.
        child_count: u32::try_from(*child_count).unwrap_or(u32::MAX),
        handle: crate::bus::handle(owner, obj.1.as_str()),
        ..Node::default()
    }
}

/// Adds `path` and its cached subtree to the arena; elements whose cached children are
/// fewer than their child count go to `frontier`, to be walked.
fn build_from_cache(
    ix: &Index<'_>,
    path: &str,
    owner: &str,
    depth: u32,
    limits: Limits,
    arena: &mut Vec<Slot>,
    frontier: &mut Vec<usize>,
) -> Option<usize> {
    let item = ix.by_path.get(path)?;
    let idx = arena.len();
    arena.push(Slot {
        node: node_from_cache(item, owner),
        children: Vec::new(),
        depth,
        fresh: false,
    });
    if !wants_children(&arena[idx], limits) {
        return Some(idx);
    }
    let cached = ix.kids.get(path).map_or(&[][..], Vec::as_slice);
    let expected = arena[idx].node.child_count as usize;
    // The window's own children are asked of it (one call): GTK 4.18's cache lists under
    // its window an object the window does not hold, and leaves out its header bar.
    if cached.len() < expected || depth == 0 {
        // The cache is partial here: walk this element's children instead.
        frontier.push(idx);
        return Some(idx);
    }
    for &(_, child) in cached {
        if let Some(c) = build_from_cache(ix, child, owner, depth + 1, limits, arena, frontier) {
            arena[idx].children.push(c);
        }
    }
    Some(idx)
}

fn wants_children(slot: &Slot, limits: Limits) -> bool {
    slot.node.child_count > 0
        && slot.depth < limits.max_depth
        && (!limits.skip_hidden
            || slot.node.states.contains(States::SHOWING)
            // LibreOffice marks some containers defunct while their children still show.
            || slot.node.states.contains(States::DEFUNCT)
            || slot.depth == 0)
}

/// Toolkits whose `Properties.GetAll` is safe to call (Qt 5's crashes the app).
const GET_ALL_SAFE: &[&str] = &["GTK", "GAIL", "Chromium", "Gecko", "WebKitGTK"];

/// Whether `Properties.GetAll` may be asked of the app's objects. It answers every property,
/// `Locale` among them, and LibreOffice (which says its toolkit is "gtk", the version GTK's)
/// aborts when its objects are asked for `Locale` while it starts (25.2 and 26.8 of Debian
/// 13: `IllegalAccessibleComponentStateException`); it is asked property by property.
fn get_all_safe(toolkit: &str, app: &str) -> bool {
    let office = ["soffice", "libreoffice"]
        .iter()
        .any(|n| app.to_ascii_lowercase().starts_with(n));
    !office && GET_ALL_SAFE.iter().any(|k| toolkit.eq_ignore_ascii_case(k))
}

struct Walker<'a, 'c> {
    bus: &'a Bus,
    ix: Option<&'a Index<'c>>,
    limits: Limits,
    get_all: bool,
    started: Instant,
    cells: Option<&'a Cells>,
}

impl Walker<'_, '_> {
    /// Walks down from `frontier`, one level per round trip; children found in the cache are
    /// taken from it. Returns the number of nodes fetched by calls, and why it stopped
    /// early if the budget ran out.
    async fn walk(
        &self,
        arena: &mut Vec<Slot>,
        mut frontier: Vec<usize>,
        mut memo: Option<&mut Memo>,
    ) -> Result<(usize, Option<&'static str>), CallError> {
        let (bus, ix, limits) = (self.bus, self.ix, self.limits);
        let mut fetched = 0;
        while !frontier.is_empty() {
            if arena.len() >= limits.max_nodes {
                return Ok((fetched, Some("too many elements")));
            }
            if self.started.elapsed() >= limits.budget {
                return Ok((fetched, Some("the app was slow to answer")));
            }
            // Children lists the memo holds (and no event has touched) need no call.
            let known: Vec<Option<Kids>> = frontier
                .iter()
                .map(|&i| {
                    let m = memo
                        .as_deref()
                        .filter(|m| !m.recheck_children && !m.recheck_once && !arena[i].fresh)?;
                    let p = arena[i].node.handle.path();
                    (!m.dirty_children.contains(p))
                        .then(|| m.children.get(p).cloned())
                        .flatten()
                })
                .collect();
            let asked = join_all(
                frontier
                    .iter()
                    .zip(&known)
                    .filter(|(_, k)| k.is_none())
                    .map(|(&i, _)| {
                        children::children(
                            bus,
                            &arena[i].node,
                            limits.managed_cap,
                            limits.view,
                            self.cells,
                        )
                    }),
            )
            .await;
            let mut asked = asked.into_iter();
            let lists: Vec<Result<Kids, CallError>> = known
                .into_iter()
                .map(|k| match k {
                    Some(list) => Ok(list),
                    None => asked
                        .next()
                        .unwrap_or(Err(CallError::Other("missing reply".into()))),
                })
                .collect();
            if let Some(m) = memo.as_deref_mut() {
                for (&i, list) in frontier.iter().zip(&lists) {
                    // Part of a large container (the cells in view) changes with scrolling,
                    // which no event reports: asked again every time.
                    if let Ok(list @ Kids { total: None, .. }) = list {
                        let p = arena[i].node.handle.path().to_string();
                        m.dirty_children.remove(&p);
                        if let Some(old) = m.children.insert(p, list.clone()) {
                            m.forget_arrivals(&old, list);
                        }
                    }
                }
            }
            let mut wanted: Vec<(usize, Handle)> = Vec::new();
            let mut next = Vec::new();
            for (&parent, list) in frontier.iter().zip(lists) {
                let Kids { refs: list, total } = match list {
                    Ok(list) => list,
                    Err(CallError::Timeout) => return Err(CallError::Timeout),
                    Err(_) => continue, // gone meanwhile: keep what we have
                };
                if let Some(total) = total {
                    // Only part of a large container was asked for: the rest is `more`.
                    let node = &mut arena[parent].node;
                    node.child_count = total;
                    node.more = total.saturating_sub(u32::try_from(list.len()).unwrap_or(0));
                }
                for (owner, path) in list {
                    let owner = if owner.is_empty() {
                        arena[parent].node.handle.owner().to_string()
                    } else {
                        owner
                    };
                    let depth = arena[parent].depth + 1;
                    let cached = ix.and_then(|ix| {
                        build_from_cache(ix, path.as_str(), &owner, depth, limits, arena, &mut next)
                    });
                    match cached {
                        Some(c) => arena[parent].children.push(c),
                        None => wanted.push((parent, crate::bus::handle(&owner, path.as_str()))),
                    }
                }
            }
            let remembered: Vec<Option<Node>> = wanted
                .iter()
                .map(|&(parent, ref h)| {
                    let m = memo.as_deref().filter(|_| !arena[parent].fresh)?;
                    (!m.dirty_info.contains(h.path()))
                        .then(|| m.info.get(h.path()).cloned())
                        .flatten()
                })
                .collect();
            // Where children lists are asked again, so are some remembered child counts, in
            // the same round as the new elements: an empty container's (one the toolkit
            // filled without a word — Qt 5's emptied group given a row — would keep its
            // count of none and never be walked), and a list's, table's or tree's, whose
            // count bounds the list asked next (one that grew silently must not be asked
            // whole). Other containers' lists are asked again anyway.
            let recheck = memo
                .as_deref()
                .is_some_and(|m| m.recheck_children || m.recheck_once);
            // So are the states of list, table and tree items (scrolling a view changes
            // which show) and, where the toolkit says nothing of what shows, of all.
            let restate_all = memo
                .as_deref()
                .is_some_and(|m| m.restate_all || m.restate_once);
            let again: Vec<Refresh> = remembered
                .iter()
                .map(|r| match r {
                    Some(n) if recheck => Refresh {
                        count: count_may_change(n),
                        states: restate_all || is_view_item(n),
                    },
                    _ => Refresh::default(),
                })
                .collect();
            let (asked, refreshed) = tokio::join!(
                join_all(
                    wanted
                        .iter()
                        .zip(&remembered)
                        .filter(|(_, r)| r.is_none())
                        .map(|((_, h), _)| fetch_node(bus, h.clone(), self.get_all)),
                ),
                join_all(
                    wanted
                        .iter()
                        .zip(&again)
                        .filter(|(_, a)| a.any())
                        .map(|((_, h), a)| refresh(bus, h, *a)),
                )
            );
            let mut asked = asked.into_iter();
            let mut refreshed = refreshed.into_iter();
            for (((parent, _), known), again) in wanted.into_iter().zip(remembered).zip(again) {
                let node = match known {
                    Some(mut n) if again.any() => match refreshed.next() {
                        Some(Ok((count, states))) => {
                            if let Some(c) = count {
                                n.child_count = c;
                            }
                            if let Some(st) = states {
                                n.states = convert::states(st, &n.role);
                            }
                            Ok(n)
                        }
                        Some(Err(e)) => Err(e),
                        None => Err(CallError::Other("missing reply".into())),
                    },
                    Some(n) => Ok(n),
                    None => {
                        fetched += 1;
                        asked
                            .next()
                            .unwrap_or(Err(CallError::Other("missing reply".into())))
                    }
                };
                let node = match node {
                    Ok(n) => n,
                    Err(CallError::Timeout) => return Err(CallError::Timeout),
                    Err(_) => continue,
                };
                let mut fresh = arena[parent].fresh;
                if let Some(m) = memo.as_deref_mut() {
                    m.dirty_info.remove(node.handle.path());
                    let known = m.info.insert(node.handle.path().to_string(), node.clone());
                    fresh |= known.is_none() && m.walked_any();
                }
                let idx = arena.len();
                arena.push(Slot {
                    node,
                    children: Vec::new(),
                    depth: arena[parent].depth + 1,
                    fresh,
                });
                arena[parent].children.push(idx);
                if wants_children(&arena[idx], limits) {
                    next.push(idx);
                }
            }
            frontier = next;
        }
        Ok((fetched, None))
    }
}

/// Role, states, interfaces, name, description and child count of one object: four calls
/// in flight together (six where `GetAll` is unsafe).
pub(crate) async fn fetch_node(
    bus: &Bus,
    handle: Handle,
    get_all: bool,
) -> Result<Node, CallError> {
    let (o, p) = (handle.owner(), handle.path());
    let (role, states, ifaces, props) = tokio::join!(
        bus.call::<_, u32>(o, p, ACCESSIBLE, "GetRole", &()),
        bus.call::<_, Vec<u32>>(o, p, ACCESSIBLE, "GetState", &()),
        bus.call::<_, Vec<String>>(o, p, ACCESSIBLE, "GetInterfaces", &()),
        async {
            if get_all {
                bus.call::<_, HashMap<String, OwnedValue>>(
                    o,
                    p,
                    crate::bus::PROPERTIES,
                    "GetAll",
                    &(ACCESSIBLE,),
                )
                .await
            } else {
                single_props(bus, o, p).await
            }
        },
    );
    let st = convert::state_set(&states?);
    let role = convert::role(convert::role_number(role?), st);
    let ifaces = ifaces.unwrap_or_default();
    let props = match props {
        Ok(p) => p,
        Err(CallError::Timeout) => return Err(CallError::Timeout),
        Err(_) => single_props(bus, o, p).await?,
    };
    let text = |k: &str| {
        props
            .get(k)
            .and_then(|v| String::try_from(v.try_clone().ok()?).ok())
            .unwrap_or_default()
    };
    let child_count = props
        .get("ChildCount")
        .and_then(|v| i32::try_from(v).ok())
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    Ok(Node {
        states: convert::states(st, &role),
        role,
        name: convert::name(&text("Name")),
        description: text("Description").trim().to_string(),
        caps: convert::caps(&ifaces),
        child_count,
        handle,
        ..Node::default()
    })
}

/// What of a remembered element is asked again.
#[derive(Clone, Copy, Debug, Default)]
struct Refresh {
    count: bool,
    states: bool,
}

impl Refresh {
    fn any(self) -> bool {
        self.count || self.states
    }
}

/// A remembered element's child count and states, those `what` names, asked afresh.
async fn refresh(
    bus: &Bus,
    h: &Handle,
    what: Refresh,
) -> Result<(Option<u32>, Option<atspi_common::StateSet>), CallError> {
    let (o, p) = (h.owner(), h.path());
    let (count, states) = tokio::join!(
        async {
            if !what.count {
                return Ok(None);
            }
            let v: OwnedValue = bus.property(o, p, ACCESSIBLE, "ChildCount").await?;
            Ok::<_, CallError>(Some(
                i32::try_from(v).map_or(0, |n| u32::try_from(n).unwrap_or(0)),
            ))
        },
        async {
            if !what.states {
                return Ok(None);
            }
            let words: Vec<u32> = bus.call(o, p, ACCESSIBLE, "GetState", &()).await?;
            Ok::<_, CallError>(Some(convert::state_set(&words)))
        }
    );
    Ok((count?, states?))
}

/// An item of a list, table or tree, whose states change as its view scrolls.
fn is_view_item(n: &Node) -> bool {
    use desktop_core::Role as R;
    matches!(n.role, R::Item | R::Row | R::Cell | R::TreeItem)
}

/// Whether a remembered element's child count is asked again ([`Walker::walk`]): an empty
/// container's, and a list's, table's or tree's.
fn count_may_change(n: &Node) -> bool {
    use desktop_core::Role as R;
    let grows_large = matches!(n.role, R::List | R::Table | R::Tree);
    may_gain_children(n) && (n.child_count == 0 || grows_large)
}

/// Whether an element's children may change without its own record changing: containers,
/// not the controls and texts whose children (a label's text, a combo's popup) come and go
/// with a change of their own that is signalled.
fn may_gain_children(n: &Node) -> bool {
    use desktop_core::Role as R;
    !matches!(
        n.role,
        R::Button
            | R::Toggle
            | R::Link
            | R::Input
            | R::Password
            | R::CheckBox
            | R::Radio
            | R::Spin
            | R::Slider
            | R::Switch
            | R::MenuItem
            | R::Tab
            | R::Text
            | R::Heading
            | R::Image
            | R::ScrollBar
            | R::Progress
            | R::Separator
            | R::Tooltip
            | R::Header
    )
}

/// For toolkits that do not implement `GetAll`: the three properties one by one.
async fn single_props(
    bus: &Bus,
    o: &str,
    p: &str,
) -> Result<HashMap<String, OwnedValue>, CallError> {
    let (name, desc, count) = tokio::join!(
        bus.property(o, p, ACCESSIBLE, "Name"),
        bus.property(o, p, ACCESSIBLE, "Description"),
        bus.property(o, p, ACCESSIBLE, "ChildCount"),
    );
    let mut out = HashMap::new();
    for (k, v) in [("Name", name), ("Description", desc), ("ChildCount", count)] {
        match v {
            Ok(v) => {
                out.insert(k.to_string(), v);
            }
            Err(CallError::Timeout) => return Err(CallError::Timeout),
            Err(_) => {}
        }
    }
    Ok(out)
}

/// Turns the arena into a nested tree rooted at `idx`.
fn assemble(arena: &mut [Slot], idx: usize) -> Node {
    let mut node = std::mem::take(&mut arena[idx].node);
    let children = std::mem::take(&mut arena[idx].children);
    node.children = children.into_iter().map(|c| assemble(arena, c)).collect();
    node
}

#[cfg(test)]
mod tests {
    #[test]
    fn get_all_is_asked_only_where_it_is_safe() {
        assert!(super::get_all_safe("gtk", "gtk3-widget-factory"));
        assert!(super::get_all_safe("Chromium", "Chromium"));
        assert!(
            !super::get_all_safe("gtk", "soffice"),
            "LibreOffice dies on Locale"
        );
        assert!(!super::get_all_safe("Qt", "featherpad"));
    }
}
