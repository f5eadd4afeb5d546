//! Finding the element an action names: by the handle a `read` recorded (checked against
//! its fingerprint, found again by fingerprint when gone) or by its text, and probing it.

use super::Live;
use crate::bus::Addr;
use crate::bus::{Bus, CallError, APPLICATION, ROOT_PATH};
use crate::identity::Identities;
use crate::warm::Showing;
use crate::{app_error, tree, LinuxDesktop};
use desktop_core::filter;
use desktop_core::node::wordless;
use desktop_core::refs::{self, RefMap};
use desktop_core::{Caps, WindowInfo};
use desktop_core::{Error, ErrorCode, Filters, Handle, Node, Rect, Result, Role, States, Target};
use std::path::Path;

/// The live state of one element: role, states, name, interfaces and bounds (and its value,
/// never for a secure field).
pub async fn probe(bus: &Bus, handle: &Handle) -> Result<Node, CallError> {
    let (o, p) = (handle.owner(), handle.path());
    let (node, extents) = tokio::join!(
        tree::fetch_node(bus, handle.clone(), false),
        bus.extents_of(o, p),
    );
    let mut node = node?;
    node.bounds = extents.ok().map(|(x, y, w, h)| Rect::new(x, y, w, h));
    if node.states.contains(States::DEFUNCT) {
        return Err(CallError::Gone("the object is defunct".into()));
    }
    if node.states.contains(States::SHOWING)
        && matches!(node.role, Role::Item | Role::MenuItem)
        && crate::showing::in_empty_list(bus, handle).await
    {
        // An option of a closed popup (Qt 5 says it shows, at the popup's would-be place).
        node.states.remove(States::SHOWING);
    }
    if node.states.contains(States::VISIBLE) && !node.states.contains(States::SHOWING) {
        // Toolkits that do not say SHOWING of everything that shows (GTK 4, GTK 2's menus).
        let (toolkit, version) = tokio::join!(
            bus.string_property(o, ROOT_PATH, APPLICATION, "ToolkitName"),
            bus.string_property(o, ROOT_PATH, APPLICATION, "Version"),
        );
        let quirk =
            crate::showing::quirk(&toolkit.unwrap_or_default(), &version.unwrap_or_default());
        let popup_item = quirk == crate::showing::Quirk::PopupItems
            && matches!(node.role, Role::MenuItem | Role::Menu)
            && crate::showing::popup_item_shows(bus, handle).await;
        if popup_item || crate::showing::shows_anyway(quirk, &node) {
            node.states.insert(States::SHOWING);
        }
    }
    if crate::hydrate::has_value(&node) {
        let mut one = [node];
        let want = crate::hydrate::Want {
            bounds: false,
            values: true,
            actions: false,
            skip_pass_through: false,
        };
        crate::hydrate::hydrate(bus, &mut one, want).await?;
        let [n] = one;
        node = n;
    }
    Ok(node)
}

/// Resolving recorded ids on Linux (`refs::resolve` holds the logic every backend shares):
/// probing a handle over the app's connection, and the window's current tree.
struct Probing<'a> {
    d: &'a LinuxDesktop,
    bus: Bus,
    app: &'a str,
}

impl refs::Probe for Probing<'_> {
    async fn probe(&self, handle: &Handle) -> Result<Option<Node>> {
        match probe(&self.bus, handle).await {
            Ok(n) => Ok(Some(n)),
            Err(CallError::Timeout) => Err(app_error(CallError::Timeout, self.app, self.d.timeout)),
            Err(_) => Ok(None),
        }
    }

    async fn current_tree(&self, w: &refs::WindowRefs) -> Result<Vec<Node>> {
        let target = Target {
            window_id: w.window_id,
            pid: (w.pid != 0).then_some(w.pid),
            window: w.window_id.is_none().then(|| w.title.clone()),
            ..Target::default()
        };
        let window = self
            .d
            .resolve_window(&target)
            .await
            .map_err(|e| match e.code {
                ErrorCode::AppNotFound | ErrorCode::WindowNotFound => Error::new(
                    ErrorCode::StaleRef,
                    format!("the window of the read (\"{}\") is gone", w.title),
                )
                .suggest("List the windows and read again"),
                _ => e,
            })?;
        self.d.fresh_tree(&window, false).await
    }
}

impl LinuxDesktop {
    /// The toolkit of the app behind `owner`: from the bus's identities file, else asked.
    pub(crate) async fn toolkit_of(&self, owner: &str) -> String {
        if let Some(id) = Identities::load(&self.address).apps.get(owner) {
            if !id.toolkit.is_empty() {
                return id.toolkit.clone();
            }
        }
        self.bus
            .string_property(owner, ROOT_PATH, APPLICATION, "ToolkitName")
            .await
            .unwrap_or_default()
    }

    /// The box the toolkit reports for its window titled `title` (the one showing frame
    /// when none has that title): where its window-relative boxes start.
    async fn frame_box(&self, bus: &Bus, owner: &str, title: &str) -> Option<Rect> {
        let frames = crate::apps::frames(bus, owner).await.ok()?;
        let showing: Vec<_> = frames
            .iter()
            .filter(|f| f.states.contains(desktop_core::States::SHOWING))
            .collect();
        showing
            .iter()
            .find(|f| f.name == title)
            .or_else(|| (showing.len() == 1).then(|| &showing[0]))
            .and_then(|f| f.bounds)
    }

    /// Whether the boxes of the app at `owner` are places on screen, and how far they move
    /// to be: GTK 4 reports them from its window's corner, and so does every toolkit on
    /// Wayland; boxes relative to a window nothing places are no place on screen.
    async fn placement(
        &self,
        bus: &Bus,
        owner: &str,
        title: &str,
        window_id: Option<u32>,
    ) -> (bool, (i32, i32)) {
        // The toolkit's coordinate type, as the bus learned it once for this app.
        let relative = self.wl.is_some() || bus.coords_of(owner).await != crate::bus::COORD_SCREEN;
        if !relative {
            return (true, (0, 0));
        }
        let window = window_id.and_then(|id| {
            let tops = self.tops().ok()?;
            tops.iter().find(|t| t.id == id).map(|t| t.bounds)
        });
        match window {
            // GTK 4.10+ puts its window's corner off its frame's (the frame is at -5,-5).
            Some(w) => {
                let frame = self.frame_box(bus, owner, title).await;
                (true, crate::wayland::shift(frame, w))
            }
            None => (false, (0, 0)),
        }
    }

    async fn live(
        &self,
        node: Node,
        bus: Bus,
        (app, title, pid, window_id): (&str, &str, u32, Option<u32>),
        (id, rematched): (Option<u32>, bool),
    ) -> Live {
        let toolkit = self.toolkit_of(node.handle.owner()).await;
        let mut node = node;
        let (placed, offset) = self
            .placement(&bus, node.handle.owner(), title, window_id)
            .await;
        node.shift(offset.0, offset.1);
        Live {
            node,
            window_id,
            id,
            rematched,
            bus,
            app: app.to_string(),
            toolkit,
            window_title: title.to_string(),
            pid: (pid != 0).then_some(pid),
            placed,
            offset,
        }
    }

    /// Element `id` of its window (the one `scope` names, else the latest read): the
    /// recorded handle if it still shows the same element, else the one element matching
    /// its fingerprint that no other id named beside it (`refs::resolve`).
    pub async fn element_by_id(&self, path: &Path, id: u32, scope: &Target) -> Result<Live> {
        let w = RefMap::window_of(path, id, scope)?;
        if crate::identity::is_stopped(w.pid) {
            return Err(crate::stopped_error(&w.app, w.pid));
        }
        let owner = w
            .get(id)
            .map(|e| e.handle.owner().to_string())
            .unwrap_or_default();
        let bus = self
            .peer(&owner)
            .await
            .map_err(|e| app_error(e, &w.app, self.timeout))?;
        let window_id = w.window_id.and_then(|i| u32::try_from(i).ok());
        let probing = Probing {
            d: self,
            bus,
            app: &w.app,
        };
        let found = refs::resolve_in(&probing, &w, id).await?;
        if found.rematched {
            // Only the next action's speed depends on it: a failure to write costs nothing else.
            let _ = RefMap::adopt(path, &w, id, &found.node.handle);
        }
        Ok(self
            .live(
                found.node,
                probing.bus,
                (&w.app, &w.title, w.pid, window_id),
                (Some(id), found.rematched),
            )
            .await)
    }

    /// The one element of the target window whose name is `text` (`exact`) or contains it
    /// (case-insensitive), optionally of `role`. Several: interactive ones win, then whole
    /// names, then the one name as written; still several is `AMBIGUOUS_TARGET`, listing them.
    pub async fn element_by_text(
        &self,
        target: &Target,
        text: &str,
        role: Option<&Role>,
        exact: bool,
    ) -> Result<Live> {
        let window = self.resolve_window(target).await?;
        // Names are read without mnemonic underscores: so is the text (`Page _2`).
        let text = &desktop_core::without_mnemonic(text.trim());
        let needle = text.trim().to_lowercase();
        let hit = |s: &str| {
            let s = s.trim();
            if exact {
                s == text.trim()
            } else {
                !s.is_empty() && s.to_lowercase().contains(&needle)
            }
        };
        let matching = |tree: &[Node]| -> Vec<Node> {
            let mut out = Vec::new();
            for n in tree {
                n.walk(&mut |x| {
                    let named = hit(&x.name) || (wordless(&x.name) && hit(&x.hint));
                    if named && role.is_none_or(|r| &x.role == r) {
                        let mut one = x.clone();
                        one.children.clear();
                        out.push(one);
                    }
                });
            }
            out
        };
        // What shows first; then what is scrolled out of view (the action brings it in).
        // Boxes are asked only of what matches.
        let (mut bus, tree) = self.tree_of(&window, false, false).await?;
        let mut found = matching(&tree);
        if found.is_empty() {
            let (again, tree) = self.tree_of(&window, true, false).await?;
            (bus, found) = (again, matching(&tree));
        }
        if found.len() > 1 && found.iter().any(|n| n.is_interactive()) {
            found.retain(|n| n.is_interactive());
        }
        let whole = |n: &Node| {
            n.name.trim().to_lowercase() == needle || n.hint.trim().to_lowercase() == needle
        };
        if found.len() > 1 && found.iter().any(&whole) {
            found.retain(|n| whole(n));
        }
        // Then the name as written, capitals too: `Page 2` is the stack's tab in GTK 4.18's
        // widget factory, `page 2` three notebooks' tabs on its first page.
        let as_written = |n: &Node| n.name.trim() == text.trim() || n.hint.trim() == text.trim();
        if found.len() > 1 && found.iter().filter(|n| as_written(n)).count() == 1 {
            found.retain(|n| as_written(n));
        }
        let window_id = window.id.and_then(|i| u32::try_from(i).ok());
        match found.len() {
            0 => Err(Error::new(
                ErrorCode::ElementNotFound,
                format!(
                    "no element named {text:?}{} in {} \"{}\"",
                    role.map(|r| format!(" with role {r}")).unwrap_or_default(),
                    window.app,
                    window.title
                ),
            )
            .suggest("Check the name with a read filtered by that text, or match less exactly")),
            1 => {
                let handle = found[0].handle.clone();
                let mut node = probe(&bus, &handle)
                    .await
                    .map_err(|e| app_error(e, &window.app, self.timeout))?;
                if node.name.is_empty() {
                    node.name = found[0].name.clone();
                }
                node.hint = found[0].hint.clone();
                node.clickable = found[0].clickable;
                Ok(self
                    .live(
                        node,
                        bus,
                        (&window.app, &window.title, window.pid, window_id),
                        (None, false),
                    )
                    .await)
            }
            n => {
                let want = crate::hydrate::Want {
                    bounds: true,
                    values: false,
                    actions: false,
                    skip_pass_through: false,
                };
                found.truncate(10);
                crate::hydrate::hydrate(&bus, &mut found, want)
                    .await
                    .map_err(|e| app_error(e, &window.app, self.timeout))?;
                // Listed where they are on screen, as a read shows them.
                let owner = found[0].handle.owner().to_string();
                let (_, (dx, dy)) = self.placement(&bus, &owner, &window.title, window_id).await;
                for n in &mut found {
                    n.shift(dx, dy);
                }
                let list: Vec<String> = found
                    .iter()
                    .map(|c| {
                        let b = c
                            .bounds
                            .map(|b| format!(" at {},{}", b.x, b.y))
                            .unwrap_or_default();
                        if wordless(&c.name) && !c.hint.is_empty() {
                            format!("{} hint \"{}\"{b}", c.role.short(), c.hint)
                        } else {
                            format!("{} \"{}\"{b}", c.role.short(), c.name)
                        }
                    })
                    .collect();
                Err(Error::new(
                    ErrorCode::AmbiguousTarget,
                    format!("{n} elements match {text:?}: {}", list.join("; ")),
                )
                .suggest("Narrow it by role or exact name, or read the window and act by id"))
            }
        }
    }

    /// The element of `window` that holds the keyboard focus, if the app says which.
    pub async fn focused_element(&self, window: &WindowInfo) -> Result<Option<Live>> {
        let Some(handle) = window.handle.clone() else {
            return Ok(None);
        };
        let (bus, root) = self.walk(window, &handle, self.limits(window)).await?;
        let Some(h) = last_focused(&root, false).map(|n| n.handle.clone()) else {
            return Ok(None);
        };
        let node = match probe(&bus, &h).await {
            Ok(n) => n,
            Err(CallError::Timeout) => {
                return Err(app_error(CallError::Timeout, &window.app, self.timeout))
            }
            Err(_) => return Ok(None),
        };
        let window_id = window.id.and_then(|i| u32::try_from(i).ok());
        Ok(Some(
            self.live(
                node,
                bus,
                (&window.app, &window.title, window.pid, window_id),
                (None, false),
            )
            .await,
        ))
    }

    /// The window's current tree (showing elements, labels lifted) as a search by
    /// fingerprint or text sees it: with hints, with bounds, and with what is scrolled out
    /// of view when `hidden` (marked `out_of_view`).
    pub(crate) async fn fresh_tree(&self, window: &WindowInfo, hidden: bool) -> Result<Vec<Node>> {
        Ok(self.tree_of(window, hidden, true).await?.1)
    }

    /// [`Self::fresh_tree`], with boxes only when `boxes`, and the connection it was read over.
    async fn tree_of(
        &self,
        window: &WindowInfo,
        hidden: bool,
        boxes: bool,
    ) -> Result<(Bus, Vec<Node>)> {
        let handle = window.handle.clone().ok_or_else(|| {
            Error::new(
                ErrorCode::A11yUnavailable,
                format!("window \"{}\" exposes no accessibility tree", window.title),
            )
        })?;
        let limits = tree::Limits {
            skip_hidden: !hidden,
            ..self.limits(window)
        };
        let (bus, mut root) = self.walk(window, &handle, limits).await?;
        crate::clues::gather(&bus, &mut root.children, !hidden, |_| None)
            .await
            .map_err(|e| app_error(e, &window.app, self.timeout))?;
        let filters = Filters {
            visible_only: !hidden,
            ..Filters::default()
        };
        let mut nodes = filter::structural(root.children, &filters);
        if boxes {
            let want = crate::hydrate::Want {
                bounds: true,
                values: false,
                actions: false,
                skip_pass_through: true,
            };
            crate::hydrate::hydrate(&bus, &mut nodes, want)
                .await
                .map_err(|e| app_error(e, &window.app, self.timeout))?;
        }
        Ok((bus, nodes))
    }

    /// The window's tree as walked, and the connection it was walked over. A long-lived
    /// process (the keeper, the MCP server, the agent) walks through the window's mirror, as
    /// its reads do: kept true by the app's signals, and used only once the app has answered
    /// a ping sent after them (`Warm::app`). Anything else walks afresh.
    async fn walk(
        &self,
        window: &WindowInfo,
        handle: &Handle,
        limits: tree::Limits,
    ) -> Result<(Bus, Node)> {
        let owner = handle.owner();
        let failed = |e| app_error(e, &window.app, self.timeout);
        let cells = Some(&self.cells);
        let (bus, read) = match &self.warm {
            Some(w) => {
                let (bus, cache) = w.app(&self.bus, owner).await.map_err(failed)?;
                // Chromium changes which elements show as its page scrolls, without a signal
                // (`quiet`): a find that prefers what shows must not go by the states the
                // mirror remembers where the page may have scrolled since they were asked.
                let showing = match (&w.drawn, cache.scrolls_silently()) {
                    (_, false) => Showing::Signalled,
                    (Some(drawn), true) => match (drawn.now(), window.bounds) {
                        (Some(_), Some(area)) => Showing::Drawn { drawn, area },
                        _ => Showing::Asked,
                    },
                    (None, true) => Showing::Asked,
                };
                let read = w.walk(&bus, handle, limits, cells, cache, showing).await;
                (bus, read)
            }
            None => {
                let bus = self.bus.with_peer(owner).await.map_err(failed)?;
                let read = tree::read_subtree(&bus, handle, limits, cells).await;
                (bus, read)
            }
        };
        let (root, _) = read.map_err(failed)?;
        self.cells.save();
        Ok((bus, root))
    }
}

/// The element holding the focus: the last in reading order that says so, where one
/// outside a container marked defunct says so (LibreOffice's formula bar claims the
/// focus from under a defunct panel while a cell has it).
fn last_focused(n: &Node, in_defunct: bool) -> Option<&Node> {
    fn visit<'a>(n: &'a Node, in_defunct: bool, out: &mut Vec<(&'a Node, bool)>) {
        let in_defunct = in_defunct || n.states.contains(States::DEFUNCT);
        if n.states.contains(States::FOCUSED) && n.caps != Caps::empty() {
            out.push((n, in_defunct));
        }
        for c in &n.children {
            visit(c, in_defunct, out);
        }
    }
    let mut found = Vec::new();
    visit(n, in_defunct, &mut found);
    found
        .iter()
        .rev()
        .find(|(_, defunct)| !defunct)
        .or(found.last())
        .map(|(n, _)| *n)
}

/// Whether typed text has a place to go in this element: text fields, editable documents,
/// editable combo and spin boxes. Buttons, links, check boxes and static text do not.
pub fn takes_text(n: &Node) -> bool {
    n.states.contains(States::EDITABLE)
        || n.caps.contains(Caps::EDITABLE_TEXT)
        || matches!(n.role, Role::Input | Role::Password)
        || matches!(&n.role, Role::Other(r) if r == "terminal")
        || keyed_spin(n)
}

/// A spin button that takes digits from the keyboard without being editable text: a
/// segment of a date or time field, a number field.
pub fn keyed_spin(n: &Node) -> bool {
    n.role == Role::Spin
        && n.states.contains(States::FOCUSABLE)
        && !n.states.contains(States::EDITABLE)
        && !n.caps.contains(Caps::EDITABLE_TEXT)
}
