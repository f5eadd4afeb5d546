//! Short, token-cheap role names shared by every backend (`btn`, `input`, `lnk`, ...).

use std::fmt;

/// A platform-neutral role. Backends map their native roles onto these; a native role
/// with no counterpart keeps its own lower-case name in [`Role::Other`] rather than
/// collapsing to a meaningless `other`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Button,
    Toggle,
    Link,
    Input,
    Password,
    CheckBox,
    Radio,
    Combo,
    Spin,
    Slider,
    Switch,
    Menu,
    MenuItem,
    Tab,
    TabList,
    List,
    Item,
    Table,
    Row,
    Cell,
    Header,
    Tree,
    TreeItem,
    Text,
    Heading,
    Image,
    Group,
    Scroll,
    ScrollBar,
    Toolbar,
    Status,
    Progress,
    Separator,
    Web,
    Window,
    Dialog,
    Alert,
    Tooltip,
    App,
    Other(String),
}

/// Every fixed short name, for `--roles` validation and help.
pub const SHORT_NAMES: &[&str] = &[
    "btn",
    "toggle",
    "lnk",
    "input",
    "pwd",
    "chk",
    "radio",
    "combo",
    "spin",
    "slider",
    "switch",
    "menu",
    "menuitem",
    "tab",
    "tabs",
    "list",
    "item",
    "table",
    "row",
    "cell",
    "hdr",
    "tree",
    "treeitem",
    "txt",
    "h",
    "img",
    "group",
    "scroll",
    "scrollbar",
    "toolbar",
    "status",
    "progress",
    "sep",
    "web",
    "window",
    "dialog",
    "alert",
    "tooltip",
    "app",
];

impl Role {
    pub fn short(&self) -> &str {
        match self {
            Self::Button => "btn",
            Self::Toggle => "toggle",
            Self::Link => "lnk",
            Self::Input => "input",
            Self::Password => "pwd",
            Self::CheckBox => "chk",
            Self::Radio => "radio",
            Self::Combo => "combo",
            Self::Spin => "spin",
            Self::Slider => "slider",
            Self::Switch => "switch",
            Self::Menu => "menu",
            Self::MenuItem => "menuitem",
            Self::Tab => "tab",
            Self::TabList => "tabs",
            Self::List => "list",
            Self::Item => "item",
            Self::Table => "table",
            Self::Row => "row",
            Self::Cell => "cell",
            Self::Header => "hdr",
            Self::Tree => "tree",
            Self::TreeItem => "treeitem",
            Self::Text => "txt",
            Self::Heading => "h",
            Self::Image => "img",
            Self::Group => "group",
            Self::Scroll => "scroll",
            Self::ScrollBar => "scrollbar",
            Self::Toolbar => "toolbar",
            Self::Status => "status",
            Self::Progress => "progress",
            Self::Separator => "sep",
            Self::Web => "web",
            Self::Window => "window",
            Self::Dialog => "dialog",
            Self::Alert => "alert",
            Self::Tooltip => "tooltip",
            Self::App => "app",
            Self::Other(name) => name,
        }
    }

    /// Parses a short name, or one of the common long aliases agents type
    /// (`button`, `link`, `textfield`, `checkbox`, ...).
    pub fn parse(s: &str) -> Option<Role> {
        let s = s.trim().to_ascii_lowercase();
        let role = match s.as_str() {
            "btn" | "button" | "pushbutton" => Self::Button,
            "toggle" | "togglebutton" => Self::Toggle,
            "lnk" | "link" => Self::Link,
            "input" | "textfield" | "entry" | "textbox" | "edit" => Self::Input,
            "pwd" | "password" => Self::Password,
            "chk" | "checkbox" | "check" => Self::CheckBox,
            "radio" | "radiobutton" => Self::Radio,
            "combo" | "combobox" => Self::Combo,
            "spin" | "spinbutton" => Self::Spin,
            "slider" => Self::Slider,
            "switch" => Self::Switch,
            "menu" | "menubar" => Self::Menu,
            "menuitem" => Self::MenuItem,
            "tab" | "pagetab" => Self::Tab,
            "tabs" | "tablist" => Self::TabList,
            "list" | "listbox" => Self::List,
            "item" | "listitem" => Self::Item,
            "table" | "grid" => Self::Table,
            "row" => Self::Row,
            "cell" => Self::Cell,
            "hdr" | "header" | "columnheader" => Self::Header,
            "tree" => Self::Tree,
            "treeitem" => Self::TreeItem,
            "txt" | "text" | "label" | "static" => Self::Text,
            "h" | "heading" => Self::Heading,
            "img" | "image" | "icon" => Self::Image,
            "group" | "panel" => Self::Group,
            "scroll" | "scrollpane" => Self::Scroll,
            "scrollbar" => Self::ScrollBar,
            "toolbar" => Self::Toolbar,
            "status" | "statusbar" => Self::Status,
            "progress" | "progressbar" => Self::Progress,
            "sep" | "separator" => Self::Separator,
            "web" | "document" => Self::Web,
            "window" | "frame" => Self::Window,
            "dialog" => Self::Dialog,
            "alert" => Self::Alert,
            "tooltip" => Self::Tooltip,
            "app" | "application" => Self::App,
            other if !other.is_empty() && other.chars().all(|c| c.is_ascii_alphanumeric()) => {
                Self::Other(other.to_string())
            }
            _ => return None,
        };
        Some(role)
    }

    /// Roles a user acts on: what `--interactive` keeps.
    pub fn is_interactive(&self) -> bool {
        matches!(
            self,
            Self::Button
                | Self::Toggle
                | Self::Link
                | Self::Input
                | Self::Password
                | Self::CheckBox
                | Self::Radio
                | Self::Combo
                | Self::Spin
                | Self::Slider
                | Self::Switch
                | Self::MenuItem
                | Self::Tab
                | Self::Item
                | Self::TreeItem
                | Self::ScrollBar
        )
    }

    /// Roles that only structure others; unnamed ones are dropped from output
    /// (their children move up) because they cost tokens and say nothing.
    pub fn is_structural(&self) -> bool {
        matches!(self, Self::Group | Self::Scroll | Self::Other(_))
    }

    /// Roles whose value a user edits.
    pub fn is_editable(&self) -> bool {
        matches!(
            self,
            Self::Input | Self::Password | Self::Spin | Self::Combo
        )
    }

    /// Text-like roles whose whole content is their name.
    pub fn is_text(&self) -> bool {
        matches!(self, Self::Text | Self::Heading)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_short_name_round_trips() {
        for name in SHORT_NAMES {
            let role = Role::parse(name).expect(name);
            assert_eq!(role.short(), *name);
            assert!(
                !matches!(role, Role::Other(_)),
                "{name} fell through to Other"
            );
        }
    }

    #[test]
    fn aliases_and_garbage() {
        assert_eq!(Role::parse("Button"), Some(Role::Button));
        assert_eq!(Role::parse("textfield"), Some(Role::Input));
        assert_eq!(
            Role::parse("splitpane"),
            Some(Role::Other("splitpane".into()))
        );
        assert_eq!(Role::parse(""), None);
        assert_eq!(Role::parse("btn;drop"), None);
    }
}
