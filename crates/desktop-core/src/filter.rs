//! Filters of `read`: each rebuilds the tree, deciding per node to keep it, hoist its
//! children into its place, or drop its whole subtree (AccessKit's include / exclude-node /
//! exclude-subtree). They run in the order the reader needs: structural filters before the
//! backend fetches bounds and values, spatial and text filters after.

use crate::error::{Error, ErrorCode, Result};
use crate::node::{Node, Rect, States};
use crate::role::{Role, SHORT_NAMES};

/// What `read` was asked to keep.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filters {
    /// Levels of the answer to keep (1 = the window's children as the answer shows them;
    /// with `under`, the element's): counted in what a reader sees, not in the toolkit's
    /// unnamed levels left out.
    pub depth: Option<u32>,
    pub roles: Option<Vec<Role>>,
    pub visible_only: bool,
    pub bbox: Option<Rect>,
    /// Case-insensitive substring of name, value or description.
    pub text: Option<String>,
    pub interactive: bool,
    pub max_elements: Option<usize>,
    /// Keep every node as the toolkit reports it (no dropping of unnamed containers).
    pub full: bool,
    /// Fetch and show each element's accessibility action names (`a`).
    pub actions: bool,
    /// Only the web page a browser window shows (its document and what is in it), not the
    /// browser's own toolbar and tabs; a window without a page is read whole.
    pub page: bool,
    /// Only element `id` (of an earlier read of the window) and what it holds: one part of
    /// a big window opened (`read --id`).
    pub under: Option<u32>,
}

/// A list of short role names (`btn,input,lnk`), as faces take it.
pub fn parse_roles(list: &str) -> Result<Vec<Role>> {
    let mut roles = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match Role::parse(name) {
            Some(Role::Other(_)) | None => {
                return Err(Error::invalid_args(format!("unknown role `{name}`"))
                    .suggest(format!("Known roles: {}", SHORT_NAMES.join(","))))
            }
            Some(r) => roles.push(r),
        }
    }
    if roles.is_empty() {
        return Err(
            Error::invalid_args("the list of roles is empty").suggest("Example: btn,input,lnk")
        );
    }
    Ok(roles)
}

/// A screen rectangle `x,y,w,h` with a positive size.
pub fn parse_rect(s: &str) -> Result<Rect> {
    Rect::parse(s).ok_or_else(|| {
        Error::invalid_args(format!(
            "`{s}` is not x,y,w,h with a positive width and height"
        ))
        .suggest("Example: 0,0,640,400")
    })
}

impl Filters {
    /// Levels of the answer kept: `depth`, below the element opened when `under` is given.
    fn levels(&self) -> Option<u32> {
        self.depth
            .map(|d| d.saturating_add(u32::from(self.under.is_some())))
    }

    /// Refuses filters no read can honour.
    pub fn validate(&self) -> Result<()> {
        if self.depth == Some(0) {
            return Err(Error::invalid_args("the depth must be at least 1")
                .suggest("1 shows the window's top elements; leave it out for every level"));
        }
        if self.max_elements == Some(0) {
            return Err(Error::invalid_args("the element limit must be at least 1")
                .suggest("Leave it out for no limit, or give a positive number such as 200"));
        }
        if self.text.as_deref() == Some("") {
            return Err(Error::invalid_args("the text to look for is empty")
                .suggest("Give the text to look for, e.g. Save"));
        }
        Ok(())
    }
}

/// A per-node verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Keep the node with its (already filtered) children.
    Node,
    /// Drop the node, put its filtered children in its place.
    Hoist,
    /// Drop the node and everything below it.
    Drop,
}

/// Rebuilds `nodes` bottom-up: children are filtered first, then `decide` sees the node
/// with its filtered children and its depth (1 for the nodes passed in).
pub fn retain(
    nodes: Vec<Node>,
    depth: u32,
    decide: &mut impl FnMut(&Node, u32) -> Keep,
) -> Vec<Node> {
    let mut out = Vec::with_capacity(nodes.len());
    for mut node in nodes {
        let children = std::mem::take(&mut node.children);
        node.children = retain(children, depth + 1, decide);
        match decide(&node, depth) {
            Keep::Node => out.push(node),
            Keep::Hoist => out.append(&mut node.children),
            Keep::Drop => {}
        }
    }
    out
}

/// Drops what is hidden and what surely lies below `--depth`, before anything else is
/// fetched.
pub fn structural(nodes: Vec<Node>, f: &Filters) -> Vec<Node> {
    let mut nodes = nodes;
    if f.visible_only {
        count_scrolled_out(&mut nodes);
    }
    let nodes = if f.visible_only {
        let needle = f.text.as_deref().map(str::to_lowercase);
        retain(nodes, 1, &mut |n, _| {
            if n.states.contains(States::SHOWING) {
                return Keep::Node;
            }
            // A container the app wrongly marked defunct, holding what shows.
            if n.states.contains(States::DEFUNCT) && !n.children.is_empty() {
                return Keep::Node;
            }
            // A text search finds what is scrolled out of view, and says so.
            match &needle {
                Some(t) if matches_text(n, t) || !n.children.is_empty() => Keep::Node,
                _ => Keep::Drop,
            }
        })
    } else {
        nodes
    };
    let mut nodes = nodes;
    if f.visible_only {
        mark_out_of_view(&mut nodes, false);
    }
    // Labels first, so a button whose name lives in a text child keeps it through
    // `--roles` and `-i`, which would drop the child.
    if !f.full {
        nodes = absorb_all(nodes);
    }
    if let Some(roles) = &f.roles {
        nodes = retain(nodes, 1, &mut |n, _| {
            if roles.contains(&n.role) {
                Keep::Node
            } else {
                Keep::Hoist
            }
        });
    }
    if f.interactive {
        nodes = retain(nodes, 1, &mut |n, _| {
            if n.is_interactive() || is_landmark(n) {
                Keep::Node
            } else if n.children.is_empty() {
                Keep::Drop
            } else if n.name.is_empty() && n.more == 0 {
                Keep::Hoist
            } else {
                Keep::Node
            }
        });
    }
    if let Some(text) = &f.text {
        // A node can match by value only once values are fetched: keep such candidates.
        let needle = text.to_lowercase();
        nodes = retain(nodes, 1, &mut |n, _| {
            if !n.children.is_empty() || matches_text(n, &needle) || may_have_value(n) {
                Keep::Node
            } else {
                Keep::Drop
            }
        });
    }
    if let Some(depth) = f.levels() {
        // Only levels the answer will surely show count here; `shown_depth` cuts exactly
        // once the answer is simplified.
        let counts = |n: &Node| f.full || surely_shown(n);
        nodes = cut_levels(nodes, depth, &counts);
    }
    nodes
}

/// Keeps `depth` levels of the answer as it is (after simplification): `--depth` counts
/// what a reader sees.
pub fn shown_depth(nodes: Vec<Node>, f: &Filters) -> Vec<Node> {
    match f.levels() {
        Some(depth) => cut_levels(nodes, depth, &|_| true),
        None => nodes,
    }
}

/// An element [`simplify`] keeps whatever its value turns out to be, so a level of the
/// answer: it says something, or holds something and is not a structural wrapper.
fn surely_shown(n: &Node) -> bool {
    let notable = States::FOCUSED | States::SELECTED | States::CHECKED | States::EXPANDED;
    !n.name.is_empty()
        || !n.description.is_empty()
        || n.more > 0
        || n.is_interactive()
        || (!n.children.is_empty()
            && (n.states.bits() & notable.bits() != 0
                || !(n.role.is_structural() || n.role.is_text())))
}

/// Drops what lies more than `depth` counted levels down, where only nodes `counts` says
/// are levels add one (the others are hoisted away later).
fn cut_levels(mut nodes: Vec<Node>, depth: u32, counts: &impl Fn(&Node) -> bool) -> Vec<Node> {
    fn go(nodes: &mut [Node], above: u32, depth: u32, counts: &impl Fn(&Node) -> bool) {
        for n in nodes.iter_mut() {
            let level = above + u32::from(counts(n));
            if level >= depth && counts(n) {
                n.children.clear();
            } else {
                go(&mut n.children, level, depth, counts);
            }
        }
    }
    go(&mut nodes, 0, depth, counts);
    nodes
}

/// The one element of `nodes` (at any depth) whose name contains `text` (case-insensitive;
/// the whole name with `exact`), of `role` when given: how backends that read whole windows
/// find an element named by text. None is `ELEMENT_NOT_FOUND`, several `AMBIGUOUS_TARGET`.
pub fn named(nodes: &[Node], text: &str, role: Option<&Role>, exact: bool) -> Result<Node> {
    let lower = text.to_lowercase();
    let mut hits = Vec::new();
    for n in nodes {
        n.walk(&mut |x| {
            let name_ok = if exact {
                x.name == text
            } else {
                x.name.to_lowercase().contains(&lower)
            };
            if name_ok && role.is_none_or(|r| &x.role == r) {
                hits.push(x.clone());
            }
        });
    }
    match hits.len() {
        1 => Ok(hits.remove(0)),
        0 => Err(Error::new(
            ErrorCode::ElementNotFound,
            format!("no element named {text:?}"),
        )
        .suggest("Read the window to see what it holds")),
        n => Err(Error::new(
            ErrorCode::AmbiguousTarget,
            format!("{n} elements match {text:?}"),
        )
        .suggest("Add --role or --exact, or read and use an id")),
    }
}

/// Text that tells an agent where it is and what happened, kept by `-i` although nothing
/// acts on it: headings, status lines, alerts.
fn is_landmark(n: &Node) -> bool {
    matches!(n.role, Role::Heading | Role::Status | Role::Alert)
        && !(n.name.is_empty() && n.children.is_empty())
}

/// Roles whose children scroll within them: what is out of view there is counted.
fn scrolls_children(n: &Node) -> bool {
    use crate::role::Role;
    matches!(
        n.role,
        Role::List | Role::Table | Role::Tree | Role::Menu | Role::TabList | Role::Web
    ) || n.states.contains(States::MANAGES_DESCENDANTS)
}

/// Sets `more` on showing list-like containers: how many of their children are not showing
/// (scrolled out of view), or not reported at all (a container managing its descendants).
fn count_scrolled_out(nodes: &mut [Node]) {
    for n in nodes {
        if n.states.contains(States::SHOWING) && scrolls_children(n) {
            // Rows are children like the showing ones (a tab strip's hidden drag helper is
            // not a tab scrolled away).
            let shown_roles: Vec<&Role> = n
                .children
                .iter()
                .filter(|c| c.states.contains(States::SHOWING))
                .map(|c| &c.role)
                .collect();
            let hidden = n
                .children
                .iter()
                .filter(|c| !c.states.contains(States::SHOWING))
                .filter(|c| shown_roles.is_empty() || shown_roles.contains(&&c.role))
                .count();
            // Toolkits report only the visible rows of such a container, or the reader
            // asked for only part of a large one (and set `more` to the rest): the rest
            // are unreported.
            let managed =
                if n.states.contains(States::MANAGES_DESCENDANTS) && n.child_count != u32::MAX {
                    (n.child_count as usize).saturating_sub(n.children.len())
                } else {
                    0
                };
            let unreported = managed.max(n.more as usize);
            n.more = u32::try_from(hidden + unreported).unwrap_or(u32::MAX);
        }
        count_scrolled_out(&mut n.children);
    }
}

/// Marks what a text search kept although it is not showing.
fn mark_out_of_view(nodes: &mut [Node], parent_out: bool) {
    for n in nodes {
        n.out_of_view = parent_out || !n.states.contains(States::SHOWING);
        let out = n.out_of_view;
        mark_out_of_view(&mut n.children, out);
    }
}

/// After bounds and values are known: on-screen, bbox and text filters.
pub fn spatial_and_text(nodes: Vec<Node>, f: &Filters, screen: Option<Rect>) -> Vec<Node> {
    let mut nodes = nodes;
    if f.visible_only {
        if let Some(screen) = screen {
            nodes = retain(nodes, 1, &mut |n, _| {
                let inside = n
                    .bounds
                    .is_some_and(|b| b.is_valid() && b.intersects(&screen));
                if inside || n.out_of_view || !n.children.is_empty() {
                    Keep::Node
                } else {
                    Keep::Drop
                }
            });
        }
    }
    if let Some(bbox) = f.bbox {
        nodes = keep_within(nodes, bbox);
    }
    if let Some(text) = &f.text {
        let needle = text.to_lowercase();
        nodes = retain(nodes, 1, &mut |n, _| {
            if matches_text(n, &needle) || !n.children.is_empty() {
                Keep::Node
            } else {
                Keep::Drop
            }
        });
    }
    nodes
}

/// Keeps nodes whose bounds intersect `area`, and the ancestors of such nodes.
pub fn keep_within(nodes: Vec<Node>, area: Rect) -> Vec<Node> {
    retain(nodes, 1, &mut |n, _| {
        let inside = n
            .bounds
            .is_some_and(|b| b.is_valid() && b.intersects(&area));
        if inside || !n.children.is_empty() {
            Keep::Node
        } else {
            Keep::Drop
        }
    })
}

pub fn matches_text(n: &Node, needle_lower: &str) -> bool {
    // A mnemonic underscore in the needle (`Page _2`) matches the name without it.
    let needle = crate::node::without_mnemonic(needle_lower);
    let hit = |s: &str| {
        let s = s.to_lowercase();
        !s.is_empty() && (s.contains(needle_lower) || s.contains(&needle))
    };
    // A secure element's value must not be discoverable by probing with --text.
    hit(&n.name)
        || hit(&n.description)
        || hit(&n.hint)
        || (!n.is_secure() && n.value.as_deref().is_some_and(hit))
}

fn may_have_value(n: &Node) -> bool {
    use crate::node::Caps;
    !n.is_secure() && (n.caps.contains(Caps::VALUE) || n.caps.contains(Caps::EDITABLE_TEXT))
}

/// Drops what costs tokens and tells an agent nothing: unnamed pass-through containers
/// (their children move up), text that repeats its parent's label, and empty leaves.
/// A control with no name whose only child is a text label takes the label as its name.
/// A spreadsheet's blank cells are left out too (its table says the range in view as its
/// value), unless a text search asked for them.
pub fn simplify(nodes: Vec<Node>, f: &Filters) -> Vec<Node> {
    let mut nodes = nodes;
    sheet_ranges(&mut nodes);
    let blank_cells = f.text.is_none();
    let mut nodes = absorb_all(retain(nodes, 1, &mut |n, _| {
        if blank_cells && is_blank_cell(n) {
            Keep::Drop
        } else {
            simplify_decision(n)
        }
    }));
    drop_sibling_labels(&mut nodes);
    nodes
}

/// A spreadsheet cell (named by its address) that holds nothing and is not the active one.
fn is_blank_cell(n: &Node) -> bool {
    let notable = States::FOCUSED | States::SELECTED;
    n.role == Role::Cell
        && crate::node::is_cell_address(&n.name)
        && n.value.as_deref().is_none_or(str::is_empty)
        && n.children.is_empty()
        && n.states.bits() & notable.bits() == 0
}

/// Gives a table whose cells are named by address the range of those cells as its value
/// (`A1:M29`), so what is in view is known once blank cells are left out.
fn sheet_ranges(nodes: &mut [Node]) {
    for n in nodes {
        sheet_ranges(&mut n.children);
        if n.role != Role::Table || n.value.is_some() {
            continue;
        }
        let cells: Vec<&Node> = n
            .children
            .iter()
            .filter(|c| c.role == Role::Cell && crate::node::is_cell_address(&c.name))
            .collect();
        if let (Some(first), Some(last)) = (cells.first(), cells.last()) {
            n.value = Some(format!("{}:{}", first.name, last.name));
        }
    }
}

/// Drops a text leaf that only repeats the name of the control next to it (a form
/// label beside its input, once unnamed wrappers are gone).
fn drop_sibling_labels(list: &mut Vec<Node>) {
    for n in list.iter_mut() {
        drop_sibling_labels(&mut n.children);
    }
    let is_label_of = |label: &Node, control: Option<&Node>| {
        control.is_some_and(|c| {
            c.is_interactive() && !c.name.is_empty() && c.name.trim() == label.name.trim()
        })
    };
    let mut i = 0;
    while i < list.len() {
        let n = &list[i];
        let repeated = n.role.is_text()
            && n.children.is_empty()
            && (is_label_of(n, list.get(i + 1)) || (i > 0 && is_label_of(n, list.get(i - 1))));
        if repeated {
            list.remove(i);
        } else {
            i += 1;
        }
    }
}

fn absorb_all(mut nodes: Vec<Node>) -> Vec<Node> {
    for n in &mut nodes {
        absorb_labels(n);
    }
    nodes
}

/// An element [`simplify`] drops or hoists whatever its value: structural, unnamed,
/// undescribed, not interactive, in no notable state. Its bounds need not be fetched.
pub fn is_pass_through(n: &Node) -> bool {
    let notable = States::FOCUSED | States::SELECTED | States::CHECKED | States::EXPANDED;
    n.name.is_empty()
        && n.description.is_empty()
        && n.hint.is_empty()
        && n.more == 0
        && !n.is_interactive()
        && n.states.bits() & notable.bits() == 0
        && (n.role.is_structural() || n.role.is_text())
}

fn simplify_decision(n: &Node) -> Keep {
    // A hint names a wordless control or picture; an empty container that takes no clicks
    // (a web page's `<div id="top">` waiting for content) is not made worth showing by the
    // words of its id. Showing it would also make its first child's arrival read as the
    // container's removal, since a container with children is hoisted away.
    let hint_counts = !n.hint.is_empty()
        && (n.is_interactive() || !n.children.is_empty() || !n.role.is_structural());
    let says_something = !n.name.is_empty()
        || !n.description.is_empty()
        || hint_counts
        || n.more > 0
        || n.value.as_deref().is_some_and(|v| !v.is_empty())
        || n.is_interactive();
    if says_something {
        return Keep::Node;
    }
    let notable = States::FOCUSED | States::SELECTED | States::CHECKED | States::EXPANDED;
    if n.states.bits() & notable.bits() != 0 && !n.children.is_empty() {
        return Keep::Node;
    }
    if n.children.is_empty() {
        return Keep::Drop;
    }
    if n.role.is_structural() || n.role.is_text() {
        Keep::Hoist
    } else {
        Keep::Node
    }
}

/// Post-order: lift a lone text child into an unnamed control, and drop text children
/// that only repeat their parent's name.
fn absorb_labels(n: &mut Node) {
    for c in &mut n.children {
        absorb_labels(c);
    }
    // An icon-only control's tooltip (GTK3 and Qt5 report it as the description).
    if n.hint.is_empty()
        && crate::node::wordless(&n.name)
        && !n.description.is_empty()
        && n.is_interactive()
    {
        n.hint = n.description.trim().to_string();
    }
    if n.name.is_empty() && n.is_interactive() && n.children.len() == 1 {
        let c = &n.children[0];
        if c.role.is_text() && c.children.is_empty() && crate::node::wordless(&c.name) {
            // An icon glyph (`♡`): the hint says more; the glyph is a hint only without one.
            if n.hint.is_empty() {
                n.hint = c.name.trim().to_string();
            }
            n.children.clear();
            return;
        }
        if c.role.is_text() && c.children.is_empty() && !c.name.is_empty() {
            n.name = c.name.clone();
            n.name_from_child = true;
            n.children.clear();
            return;
        }
    }
    // A status line or alert that says its text through text children: one line.
    if matches!(n.role, Role::Status | Role::Alert)
        && n.name.is_empty()
        && !n.children.is_empty()
        && n.children
            .iter()
            .all(|c| c.role.is_text() && c.children.is_empty())
    {
        let words: Vec<&str> = n.children.iter().map(|c| c.name.trim()).collect();
        n.name = words.join(" ").trim().to_string();
        n.name_from_child = true;
        n.children.clear();
    }
    if !n.name.is_empty() {
        let parent = n.name.trim();
        n.children
            .retain(|c| !(c.role.is_text() && c.children.is_empty() && c.name.trim() == parent));
    }
    // A wordless control alone in a named group or toolbar (GTK2 tool buttons, the deck
    // buttons of LibreOffice's sidebar) is known by the group's label.
    if matches!(n.role, Role::Group | Role::Toolbar) && !crate::node::wordless(&n.name) {
        let label = n.name.trim().to_string();
        if let Some(c) = lone_control(n) {
            c.hint = label;
        }
    }
}

/// The only control inside `n`, through unnamed wrappers that hold nothing else, when it
/// has no words of its own.
fn lone_control(n: &mut Node) -> Option<&mut Node> {
    let mut at = n;
    loop {
        if at.children.len() != 1 {
            return None;
        }
        let c = &at.children[0];
        if c.is_interactive() {
            let lone = c.children.is_empty() && crate::node::wordless(&c.name) && c.hint.is_empty();
            return lone.then(|| &mut at.children[0]);
        }
        if !(c.name.is_empty() && c.role.is_structural()) {
            return None;
        }
        at = &mut at.children[0];
    }
}

/// Keeps the first `max` nodes in reading order (pre-order) and answers how many there
/// were before. Ids are not touched: they name elements, not places in one read.
pub fn cap(nodes: &mut Vec<Node>, max: Option<usize>) -> usize {
    fn count(nodes: &[Node]) -> usize {
        nodes.iter().map(|n| 1 + count(&n.children)).sum()
    }
    let total = count(nodes);
    if let Some(max) = max.filter(|m| *m < total) {
        fn cut(nodes: &mut Vec<Node>, left: &mut usize) {
            let mut kept = 0;
            for n in nodes.iter_mut() {
                if *left == 0 {
                    break;
                }
                *left -= 1;
                kept += 1;
                cut(&mut n.children, left);
            }
            nodes.truncate(kept);
        }
        cut(nodes, &mut { max });
    }
    total
}

/// Numbers the nodes in reading order from 1: ids for a tree no window's record holds
/// (fixture tests of a backend's mapping).
pub fn number_in_order(nodes: &mut [Node]) {
    fn number(nodes: &mut [Node], next: &mut u32) {
        for n in nodes {
            *next += 1;
            n.id = *next;
            number(&mut n.children, next);
        }
    }
    number(nodes, &mut 0);
}

/// [`cap`], then [`number_in_order`]: a read numbered on its own.
pub fn number_and_cap(nodes: &mut Vec<Node>, max: Option<usize>) -> usize {
    let total = cap(nodes, max);
    number_in_order(nodes);
    total
}
