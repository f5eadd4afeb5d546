//! The element tree every backend produces and every filter and renderer consumes.

use crate::role::Role;

/// Screen rectangle in pixels, origin at the top-left of the root window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl Rect {
    pub const fn new(x: i32, y: i32, w: i32, h: i32) -> Self {
        Self { x, y, w, h }
    }

    /// Toolkits report hidden widgets at `i32::MIN` or with no size; such bounds mean "nowhere".
    pub fn is_valid(&self) -> bool {
        self.w > 0 && self.h > 0 && self.x > i32::MIN / 2 && self.y > i32::MIN / 2
    }

    pub fn right(&self) -> i64 {
        i64::from(self.x) + i64::from(self.w)
    }

    pub fn bottom(&self) -> i64 {
        i64::from(self.y) + i64::from(self.h)
    }

    pub fn intersects(&self, other: &Rect) -> bool {
        i64::from(self.x) < other.right()
            && i64::from(other.x) < self.right()
            && i64::from(self.y) < other.bottom()
            && i64::from(other.y) < self.bottom()
    }

    /// Whether `other` lies wholly inside this rectangle.
    pub fn contains(&self, other: &Rect) -> bool {
        self.x <= other.x
            && self.y <= other.y
            && other.right() <= self.right()
            && other.bottom() <= self.bottom()
    }

    /// The part both rectangles cover, if any.
    pub fn intersection(&self, other: &Rect) -> Option<Rect> {
        let x0 = self.x.max(other.x);
        let y0 = self.y.max(other.y);
        let w = i32::try_from(self.right().min(other.right()) - i64::from(x0)).ok()?;
        let h = i32::try_from(self.bottom().min(other.bottom()) - i64::from(y0)).ok()?;
        Some(Rect::new(x0, y0, w, h)).filter(|r| r.w > 0 && r.h > 0)
    }

    /// The smallest rectangle holding both (saturating at the edges of `i32`).
    pub fn union(&self, other: &Rect) -> Rect {
        let x0 = self.x.min(other.x);
        let y0 = self.y.min(other.y);
        let clamp = |v: i64| i32::try_from(v).unwrap_or(i32::MAX);
        Rect::new(
            x0,
            y0,
            clamp(self.right().max(other.right()) - i64::from(x0)),
            clamp(self.bottom().max(other.bottom()) - i64::from(y0)),
        )
    }

    pub fn contains_point(&self, x: i32, y: i32) -> bool {
        x >= self.x && y >= self.y && i64::from(x) < self.right() && i64::from(y) < self.bottom()
    }

    pub fn center(&self) -> (i32, i32) {
        (self.x + self.w / 2, self.y + self.h / 2)
    }

    /// Parses `x,y,w,h` (as `--bbox` takes it).
    pub fn parse(s: &str) -> Option<Rect> {
        let parts: Vec<i32> = s
            .split(',')
            .map(|p| p.trim().parse().ok())
            .collect::<Option<_>>()?;
        match parts[..] {
            [x, y, w, h] if w > 0 && h > 0 => Some(Rect::new(x, y, w, h)),
            _ => None,
        }
    }
}

/// Element states as a small bit set; only what an agent acts on is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct States(u32);

impl States {
    pub const FOCUSED: States = States(1);
    pub const DISABLED: States = States(1 << 1);
    pub const SELECTED: States = States(1 << 2);
    pub const CHECKED: States = States(1 << 3);
    pub const MIXED: States = States(1 << 4);
    pub const EXPANDABLE: States = States(1 << 5);
    pub const EXPANDED: States = States(1 << 6);
    pub const READ_ONLY: States = States(1 << 7);
    pub const REQUIRED: States = States(1 << 8);
    pub const INVALID: States = States(1 << 9);
    pub const BUSY: States = States(1 << 10);
    pub const MODAL: States = States(1 << 11);
    /// Password-like: the value must never be read or printed.
    pub const SECURE: States = States(1 << 12);
    /// Drawn now (mapped, not hidden by an ancestor).
    pub const SHOWING: States = States(1 << 13);
    pub const FOCUSABLE: States = States(1 << 14);
    pub const EDITABLE: States = States(1 << 15);
    pub const CHECKABLE: States = States(1 << 16);
    pub const ACTIVE: States = States(1 << 17);
    pub const PRESSED: States = States(1 << 18);
    pub const SELECTABLE: States = States(1 << 19);
    /// Keeps only the visible part of a long list: children are not all exposed.
    pub const MANAGES_DESCENDANTS: States = States(1 << 20);
    pub const MULTILINE: States = States(1 << 21);
    /// The object is dead: the app destroyed it (a handle that points nowhere).
    pub const DEFUNCT: States = States(1 << 22);
    /// The toolkit reports the element visible, whether or not it is drawn now (GTK 4
    /// reports SHOWING only of windows: the backend judges the rest by their boxes).
    pub const VISIBLE: States = States(1 << 23);

    pub const fn empty() -> Self {
        States(0)
    }

    /// Both sets' states.
    pub const fn union(self, other: States) -> Self {
        States(self.0 | other.0)
    }

    pub const fn bits(self) -> u32 {
        self.0
    }

    pub const fn from_bits(bits: u32) -> Self {
        States(bits)
    }

    pub const fn contains(self, other: States) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn insert(&mut self, other: States) {
        self.0 |= other.0;
    }

    pub fn remove(&mut self, other: States) {
        self.0 &= !other.0;
    }

    pub fn set(&mut self, other: States, on: bool) {
        if on {
            self.insert(other)
        } else {
            self.remove(other)
        }
    }
}

impl std::ops::BitOr for States {
    type Output = States;
    fn bitor(self, rhs: States) -> States {
        States(self.0 | rhs.0)
    }
}

/// What an element can do, from the interfaces its toolkit exposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Caps(u16);

impl Caps {
    pub const ACTION: Caps = Caps(1);
    pub const COMPONENT: Caps = Caps(1 << 1);
    pub const TEXT: Caps = Caps(1 << 2);
    pub const EDITABLE_TEXT: Caps = Caps(1 << 3);
    pub const VALUE: Caps = Caps(1 << 4);
    pub const SELECTION: Caps = Caps(1 << 5);
    pub const TABLE: Caps = Caps(1 << 6);
    pub const HYPERLINK: Caps = Caps(1 << 7);
    pub const IMAGE: Caps = Caps(1 << 8);
    /// A document (a web page): its address is its value.
    pub const DOCUMENT: Caps = Caps(1 << 9);

    pub const fn empty() -> Self {
        Caps(0)
    }

    pub const fn contains(self, other: Caps) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn insert(&mut self, other: Caps) {
        self.0 |= other.0;
    }

    pub const fn bits(self) -> u16 {
        self.0
    }

    pub const fn from_bits(bits: u16) -> Self {
        Caps(bits)
    }
}

impl std::ops::BitOr for Caps {
    type Output = Caps;
    fn bitor(self, rhs: Caps) -> Caps {
        Caps(self.0 | rhs.0)
    }
}

/// The backend's own address of an element, written by the backend and read by it alone
/// (core only compares and stores it): kept so an action can reach the element without a
/// re-read, and saved with the ids of a read for the next process. Empty: none.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Handle(String);

impl Handle {
    pub fn new(address: impl Into<String>) -> Handle {
        Handle(address.into())
    }

    /// The address as the backend wrote it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One element of a window's tree.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Node {
    /// Short id assigned to kept elements in output order (1-based); 0 until numbered.
    pub id: u32,
    pub role: Role,
    pub name: String,
    pub description: String,
    /// Text content or current value; `None` when not fetched or not applicable.
    /// Always `None` for secure elements.
    pub value: Option<String>,
    pub bounds: Option<Rect>,
    pub states: States,
    pub caps: Caps,
    /// The element's own accessibility action names, as the toolkit reports them.
    pub actions: Vec<String>,
    pub children: Vec<Node>,
    /// How many children the toolkit says this element has; may exceed `children.len()`
    /// where a cache was partial or a container manages its descendants; `u32::MAX`
    /// when the toolkit does not say.
    pub child_count: u32,
    pub handle: Handle,
    /// The name was lifted from a lone text child (the toolkit reports none itself).
    pub name_from_child: bool,
    /// A short word or two for an element without a name an agent can use (`like`,
    /// `src folder`): see [`crate::hint`]. Empty when the element has a name or no clue.
    pub hint: String,
    /// The toolkit says the element reacts to a click although its role is not a control
    /// (a `<span>` icon with a click handler).
    pub clickable: bool,
    /// Children of this list-like container left out because they are scrolled out of view.
    pub more: u32,
    /// The element is out of view (kept because a text search matched it).
    pub out_of_view: bool,
    /// Elements it holds that a read fitted to a token budget left out (`read --id` opens
    /// it): 0 where everything it holds is shown.
    pub cut: u32,
}

/// Whether a name says nothing in words: empty, or only symbols and icon glyphs (`♡`, `⋯`,
/// a private-use icon-font character).
pub fn wordless(name: &str) -> bool {
    // Private-use icon-font characters are not alphanumeric either.
    !name.chars().any(char::is_alphanumeric)
}

/// Whether a name is a spreadsheet cell's address (`A1`, `AB123`): the names spreadsheets
/// give their cells, so a cell can be found by its address.
pub fn is_cell_address(name: &str) -> bool {
    let letters = name.chars().take_while(char::is_ascii_uppercase).count();
    let digits = &name[letters..];
    (1..=3).contains(&letters)
        && (1..=7).contains(&digits.len())
        && digits.chars().all(|c| c.is_ascii_digit())
        && !digits.starts_with('0')
}

/// Drops the one underscore that marks a mnemonic: at the start of a word, before a letter
/// or digit (`_File`, `Page _2`). A name with more underscores, or one inside a word
/// (`user_name`), is left alone.
pub fn without_mnemonic(t: &str) -> String {
    if t.matches('_').count() != 1 {
        return t.to_string();
    }
    let Some(at) = t.find('_') else {
        return t.to_string();
    };
    let word_start = t[..at].chars().next_back().is_none_or(char::is_whitespace);
    let before_alnum = t[at + 1..]
        .chars()
        .next()
        .is_some_and(char::is_alphanumeric);
    if word_start && before_alnum {
        format!("{}{}", &t[..at], &t[at + 1..])
    } else {
        t.to_string()
    }
}

/// A name without text that changes while nothing happens: a browser tab's memory figure
/// (`Inbox - Memory usage - 26.8 MB`), which would cost tokens on every read, make every
/// change watcher report the tab, and make its id go stale between two reads.
pub fn steady_name(t: &str) -> &str {
    const MARK: &str = " - Memory usage - ";
    match t.rfind(MARK) {
        Some(at) if is_size(&t[at + MARK.len()..]) => &t[..at],
        _ => t,
    }
}

/// `26.8 MB`, `1,024 KB`, `1.2 GB`.
fn is_size(s: &str) -> bool {
    let Some((n, unit)) = s.trim().split_once(' ') else {
        return false;
    };
    matches!(unit, "B" | "KB" | "MB" | "GB" | "TB")
        && !n.is_empty()
        && n.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
}

impl Default for Role {
    fn default() -> Self {
        Role::Other("unknown".into())
    }
}

impl Node {
    /// A password field or anything a toolkit marked secure: its value never leaves the backend.
    pub fn is_secure(&self) -> bool {
        self.role == Role::Password || self.states.contains(States::SECURE)
    }

    /// Whether an agent can act on this element.
    pub fn is_interactive(&self) -> bool {
        self.role.is_interactive()
            || self.clickable
            // A menu that opens with its own action (GTK2's and LibreOffice's menu bar
            // items are menus, not menu items).
            || (self.role == Role::Menu && self.caps.contains(Caps::ACTION))
            || self.states.contains(States::EDITABLE)
            || (self.states.contains(States::FOCUSABLE) && self.caps.contains(Caps::ACTION))
    }

    /// Number of nodes in this subtree, this one included.
    pub fn count(&self) -> usize {
        1 + self.children.iter().map(Node::count).sum::<usize>()
    }

    /// A copy without its children (a copy of the whole subtree costs a walk).
    pub fn without_children(&self) -> Node {
        Node {
            id: self.id,
            role: self.role.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
            value: self.value.clone(),
            bounds: self.bounds,
            states: self.states,
            caps: self.caps,
            actions: self.actions.clone(),
            children: Vec::new(),
            child_count: self.child_count,
            handle: self.handle.clone(),
            name_from_child: self.name_from_child,
            hint: self.hint.clone(),
            clickable: self.clickable,
            more: self.more,
            out_of_view: self.out_of_view,
            cut: self.cut,
        }
    }

    /// Pre-order visit of this subtree.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Node)) {
        f(self);
        for c in &self.children {
            c.walk(f);
        }
    }

    /// Whether this node or one below it is `f`.
    pub fn walk_any(&self, f: impl Fn(&Node) -> bool + Copy) -> bool {
        f(self) || self.children.iter().any(|c| c.walk_any(f))
    }

    /// Moves the boxes of this subtree by `(dx, dy)`: from a window's coordinates to the
    /// screen's, for toolkits that report the former.
    pub fn shift(&mut self, dx: i32, dy: i32) {
        self.walk_mut(&mut |n| {
            if let Some(b) = n.bounds.as_mut().filter(|b| b.is_valid()) {
                b.x = b.x.saturating_add(dx);
                b.y = b.y.saturating_add(dy);
            }
        });
    }

    pub fn walk_mut(&mut self, f: &mut impl FnMut(&mut Node)) {
        f(self);
        for c in &mut self.children {
            c.walk_mut(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wordless_names_are_symbols_only() {
        assert!(wordless(""));
        assert!(wordless("♡"));
        assert!(wordless("▸ 🗎"));
        assert!(wordless("\u{f004}"));
        assert!(!wordless("Like"));
        assert!(!wordless("5 ♡"));
    }

    #[test]
    fn cell_addresses_are_letters_then_a_row_number() {
        for yes in ["A1", "M29", "AB123", "XFD1048576"] {
            assert!(is_cell_address(yes), "{yes}");
        }
        for no in [
            "",
            "A",
            "1",
            "A0",
            "a1",
            "ABCD1",
            "A1B",
            "Sheet1",
            "A12345678",
        ] {
            assert!(!is_cell_address(no), "{no}");
        }
    }

    #[test]
    fn rect_parse_and_validity() {
        assert_eq!(Rect::parse("1, 2,3,4"), Some(Rect::new(1, 2, 3, 4)));
        assert_eq!(Rect::parse("1,2,3"), None);
        assert_eq!(Rect::parse("1,2,0,4"), None);
        assert_eq!(Rect::parse("a,b,c,d"), None);
        assert!(!Rect::new(i32::MIN, i32::MIN, 1, 1).is_valid());
        assert!(Rect::new(-5, -5, 10, 10).is_valid());
    }

    #[test]
    fn rect_intersection_is_the_common_part() {
        let a = Rect::new(98, 188, 1051, 478);
        let view = Rect::new(0, 0, 1000, 600);
        assert_eq!(a.intersection(&view), Some(Rect::new(98, 188, 902, 412)));
        assert_eq!(a.intersection(&Rect::new(0, 0, 50, 50)), None);
        assert_eq!(a.intersection(&Rect::new(1149, 188, 5, 5)), None);
    }

    #[test]
    fn rect_intersection_is_strict() {
        let a = Rect::new(0, 0, 10, 10);
        assert!(a.intersects(&Rect::new(9, 9, 5, 5)));
        assert!(!a.intersects(&Rect::new(10, 0, 5, 5)));
        assert!(!a.intersects(&Rect::new(i32::MAX - 1, 0, 5, 5)));
    }
}
