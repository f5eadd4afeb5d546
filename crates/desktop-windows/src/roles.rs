//! Pure translation of UI Automation control types (`UIA_*ControlTypeId`, 50000–50040) and
//! MSAA roles (`ROLE_SYSTEM_*`, the fallback where UIA gives nothing: old Win32 apps, Wine)
//! to the core's roles.

use desktop_core::Role;

/// The core role of a UIA control type; an unknown id keeps a name of its own.
pub fn from_control_type(id: i32) -> Role {
    match id {
        50000 => Role::Button,
        50001 => Role::Other("calendar".into()),
        50002 => Role::CheckBox,
        50003 => Role::Combo,
        50004 => Role::Input,
        50005 => Role::Link,
        50006 => Role::Image,
        50007 => Role::Item,
        50008 => Role::List,
        50009 => Role::Menu,
        50010 => Role::Menu,
        50011 => Role::MenuItem,
        50012 => Role::Progress,
        50013 => Role::Radio,
        50014 => Role::ScrollBar,
        50015 => Role::Slider,
        50016 => Role::Spin,
        50017 => Role::Status,
        50018 => Role::TabList,
        50019 => Role::Tab,
        50020 => Role::Text,
        50021 => Role::Toolbar,
        50022 => Role::Tooltip,
        50023 => Role::Tree,
        50024 => Role::TreeItem,
        50025 => Role::Group,
        50026 => Role::Group,
        50027 => Role::Other("thumb".into()),
        50028 => Role::Table,
        50029 => Role::Row,
        50030 => Role::Web,
        50031 => Role::Button,
        50032 => Role::Window,
        50033 => Role::Group,
        50034 => Role::Header,
        50035 => Role::Header,
        50036 => Role::Table,
        50037 => Role::Group,
        50038 => Role::Separator,
        50039 => Role::Other("semanticzoom".into()),
        50040 => Role::Group,
        other => Role::Other(format!("uia{other}")),
    }
}

/// The core role of an MSAA role number.
pub fn from_msaa(role: i32) -> Role {
    match role {
        0x2B | 0x38 | 0x39 => Role::Button,
        0x2C => Role::CheckBox,
        0x2D => Role::Radio,
        0x2E => Role::Combo,
        0x2A => Role::Input,
        0x1E => Role::Link,
        0x28 => Role::Image,
        0x22 => Role::Item,
        0x21 => Role::List,
        0x02 | 0x0B => Role::Menu,
        0x0C => Role::MenuItem,
        0x30 => Role::Progress,
        0x03 => Role::ScrollBar,
        0x33 => Role::Slider,
        0x34 => Role::Spin,
        0x17 => Role::Status,
        0x3C => Role::TabList,
        0x25 => Role::Tab,
        0x29 => Role::Text,
        0x16 => Role::Toolbar,
        0x0D => Role::Tooltip,
        0x23 => Role::Tree,
        0x24 => Role::TreeItem,
        0x14 | 0x10 | 0x0A => Role::Group,
        0x1D => Role::Cell,
        0x18 => Role::Table,
        0x1C => Role::Row,
        0x19 => Role::Header,
        0x0F => Role::Web,
        0x09 => Role::Window,
        0x12 => Role::Dialog,
        0x08 => Role::Alert,
        0x15 => Role::Separator,
        0x0E => Role::App,
        other => Role::Other(format!("msaa{other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uia_control_types_map_to_core_roles() {
        assert_eq!(from_control_type(50000), Role::Button);
        assert_eq!(from_control_type(50004), Role::Input);
        assert_eq!(from_control_type(50030), Role::Web);
        assert_eq!(from_control_type(50032), Role::Window);
        assert_eq!(from_control_type(50033), Role::Group);
        assert_eq!(from_control_type(50028), Role::Table);
        assert_eq!(from_control_type(50029), Role::Row);
        assert_eq!(from_control_type(99999), Role::Other("uia99999".into()));
    }

    #[test]
    fn msaa_roles_map_to_core_roles() {
        assert_eq!(from_msaa(0x2B), Role::Button);
        assert_eq!(from_msaa(0x2A), Role::Input);
        assert_eq!(from_msaa(0x12), Role::Dialog);
        assert_eq!(from_msaa(0x29), Role::Text);
        assert_eq!(from_msaa(0x7F), Role::Other("msaa127".into()));
    }
}
