//! Pure translation of AX roles and subroles (Apple's `NSAccessibility` role constants, as
//! `AXRole`/`AXSubrole` report them) to the core's roles. No system calls.

use desktop_core::Role;

/// The core role of an element from its `AXRole` and `AXSubrole`. A role with no
/// counterpart keeps its own name, lower-case and without the `AX` prefix.
pub fn role(ax_role: &str, subrole: Option<&str>) -> Role {
    // Subroles that change what the element is.
    match subrole {
        Some("AXSecureTextField") => return Role::Password,
        Some("AXSwitch") => return Role::Switch,
        Some("AXToggle") => return Role::Toggle,
        Some("AXTabButton") => return Role::Tab,
        Some("AXSearchField") => return Role::Input,
        Some("AXDialog" | "AXSystemDialog" | "AXFloatingWindow") if ax_role == "AXWindow" => {
            return Role::Dialog
        }
        Some("AXOutlineRow") => return Role::TreeItem,
        Some("AXTableRow") if ax_role == "AXRow" => return Role::Row,
        Some("AXApplicationStatus" | "AXApplicationLog" | "AXApplicationTimer") => {
            return Role::Status
        }
        Some("AXApplicationAlert" | "AXApplicationAlertDialog") => return Role::Alert,
        Some("AXTimeline") => return Role::Slider,
        _ => {}
    }
    match ax_role {
        "AXButton" | "AXMenuButton" | "AXColorWell" | "AXDisclosureTriangle" => Role::Button,
        "AXLink" => Role::Link,
        "AXTextField" | "AXTextArea" | "AXDateField" | "AXTimeField" => Role::Input,
        "AXSecureTextField" => Role::Password,
        "AXCheckBox" => Role::CheckBox,
        "AXRadioButton" => Role::Radio,
        "AXComboBox" | "AXPopUpButton" => Role::Combo,
        "AXIncrementor" | "AXStepper" => Role::Spin,
        "AXSlider" => Role::Slider,
        "AXMenuBar" | "AXMenu" => Role::Menu,
        "AXMenuBarItem" | "AXMenuItem" => Role::MenuItem,
        "AXTabGroup" => Role::TabList,
        "AXList" => Role::List,
        "AXTable" | "AXGrid" => Role::Table,
        "AXRow" => Role::Row,
        "AXCell" => Role::Cell,
        "AXColumnHeader" | "AXSortButton" => Role::Header,
        "AXOutline" | "AXBrowser" => Role::Tree,
        "AXStaticText" => Role::Text,
        "AXHeading" => Role::Heading,
        "AXImage" => Role::Image,
        "AXGroup" | "AXSplitGroup" | "AXRadioGroup" | "AXLayoutArea" | "AXLayoutItem"
        | "AXMatte" | "AXDrawer" | "AXRuler" | "AXGrowArea" | "AXColumn" | "AXUnknown" => {
            Role::Group
        }
        "AXScrollArea" => Role::Scroll,
        "AXScrollBar" => Role::ScrollBar,
        "AXToolbar" => Role::Toolbar,
        "AXProgressIndicator" | "AXBusyIndicator" | "AXLevelIndicator" | "AXRelevanceIndicator" => {
            Role::Progress
        }
        "AXSplitter" => Role::Separator,
        "AXWebArea" => Role::Web,
        "AXWindow" => Role::Window,
        "AXSheet" | "AXPopover" => Role::Dialog,
        "AXHelpTag" => Role::Tooltip,
        "AXApplication" => Role::App,
        other => {
            let bare = other.strip_prefix("AX").unwrap_or(other).to_lowercase();
            match Role::parse(&bare) {
                Some(Role::Other(_)) | None => Role::Other(bare),
                Some(known) => known,
            }
        }
    }
}

/// Roles whose `AXValue` is their on/off state (0, 1, or 2 for mixed), not a value to show.
pub fn value_is_state(role: &Role) -> bool {
    matches!(
        role,
        Role::CheckBox | Role::Radio | Role::Switch | Role::Toggle
    )
}

/// Roles whose text an agent edits (`AXValue` is settable text).
pub fn takes_text(ax_role: &str) -> bool {
    matches!(
        ax_role,
        "AXTextField" | "AXTextArea" | "AXComboBox" | "AXSecureTextField"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_map_to_their_core_roles() {
        assert_eq!(role("AXButton", None), Role::Button);
        assert_eq!(role("AXTextField", None), Role::Input);
        assert_eq!(
            role("AXTextField", Some("AXSecureTextField")),
            Role::Password
        );
        assert_eq!(role("AXSecureTextField", None), Role::Password);
        assert_eq!(role("AXTextField", Some("AXSearchField")), Role::Input);
        assert_eq!(role("AXCheckBox", Some("AXSwitch")), Role::Switch);
        assert_eq!(role("AXCheckBox", Some("AXToggle")), Role::Toggle);
        assert_eq!(role("AXRadioButton", Some("AXTabButton")), Role::Tab);
        assert_eq!(role("AXPopUpButton", None), Role::Combo);
        assert_eq!(role("AXRow", Some("AXOutlineRow")), Role::TreeItem);
        assert_eq!(role("AXWindow", Some("AXStandardWindow")), Role::Window);
        assert_eq!(role("AXWindow", Some("AXDialog")), Role::Dialog);
        assert_eq!(role("AXGroup", Some("AXApplicationStatus")), Role::Status);
        assert_eq!(role("AXWebArea", None), Role::Web);
        assert_eq!(role("AXStaticText", None), Role::Text);
    }

    #[test]
    fn an_unknown_role_keeps_its_name() {
        assert_eq!(
            role("AXValueIndicator", None),
            Role::Other("valueindicator".into())
        );
        // A bare name the core knows maps to it.
        assert_eq!(role("AXSwitch", None), Role::Switch);
    }
}
