//! Pure translation from AT-SPI roles, states and interfaces to the core model. No I/O.

use atspi_common::{Role as R, State as S, StateSet};
use desktop_core::{Caps, Role, States};

/// Maps an AT-SPI role (with its states, which tell an editable `text` from a label).
pub fn role(r: R, st: StateSet) -> Role {
    match r {
        R::Button | R::PushButtonMenu => Role::Button,
        R::ToggleButton => Role::Toggle,
        R::Link => Role::Link,
        R::Entry | R::Autocomplete | R::Editbar => Role::Input,
        R::PasswordText => Role::Password,
        R::Text if st.contains(S::Editable) => Role::Input,
        R::CheckBox => Role::CheckBox,
        R::RadioButton => Role::Radio,
        R::ComboBox => Role::Combo,
        R::SpinButton => Role::Spin,
        R::Slider | R::Dial => Role::Slider,
        R::Menu | R::MenuBar | R::PopupMenu => Role::Menu,
        R::MenuItem | R::CheckMenuItem | R::RadioMenuItem | R::TearoffMenuItem => Role::MenuItem,
        R::PageTab => Role::Tab,
        R::PageTabList => Role::TabList,
        R::List | R::ListBox => Role::List,
        R::ListItem => Role::Item,
        R::Table | R::DocumentSpreadsheet => Role::Table,
        R::TableRow => Role::Row,
        R::TableCell => Role::Cell,
        R::TableColumnHeader | R::ColumnHeader | R::TableRowHeader | R::RowHeader => Role::Header,
        R::Tree | R::TreeTable => Role::Tree,
        R::TreeItem => Role::TreeItem,
        R::Text
        | R::Label
        | R::Static
        | R::Caption
        | R::Paragraph
        | R::AcceleratorLabel
        | R::DescriptionTerm
        | R::DescriptionValue => Role::Text,
        R::Heading => Role::Heading,
        R::Image | R::Icon | R::Animation => Role::Image,
        R::Panel
        | R::Filler
        | R::Section
        | R::Grouping
        | R::Form
        | R::Landmark
        | R::Article
        | R::BlockQuote
        | R::HTMLContainer
        | R::LayeredPane
        | R::RootPane
        | R::GlassPane
        | R::OptionPane
        | R::InternalFrame
        | R::Embedded
        | R::Header
        | R::Footer
        | R::SplitPane
        | R::DescriptionList
        | R::Definition
        | R::Page
        | R::Mark
        | R::ContentDeletion
        | R::ContentInsertion
        | R::Suggestion
        | R::RedundantObject => Role::Group,
        R::ScrollPane | R::Viewport => Role::Scroll,
        R::ScrollBar => Role::ScrollBar,
        R::ToolBar => Role::Toolbar,
        R::StatusBar => Role::Status,
        R::ProgressBar | R::LevelBar => Role::Progress,
        R::Separator => Role::Separator,
        R::DocumentWeb
        | R::DocumentFrame
        | R::DocumentText
        | R::DocumentEmail
        | R::DocumentPresentation => Role::Web,
        R::Frame | R::Window => Role::Window,
        R::Dialog | R::FileChooser | R::ColorChooser | R::FontChooser => Role::Dialog,
        R::Alert | R::Notification | R::InfoBar => Role::Alert,
        R::ToolTip => Role::Tooltip,
        R::Application => Role::App,
        other => Role::Other(
            other
                .name()
                .chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .collect(),
        ),
    }
}

/// An element's name as an agent should see it: trimmed, without a mnemonic underscore
/// (GTK 4 keeps it: `Page _2`), and empty where the toolkit put its class name in place of
/// a label (GTK 4 names unlabelled widgets `GtkEntry`, `GtkToggleButton`).
pub fn name(raw: &str) -> String {
    let t = raw.trim();
    if is_class_name(t) {
        return String::new();
    }
    desktop_core::without_mnemonic(desktop_core::steady_name(t))
}

/// `Gtk` and a capitalised word: a GTK class name, not a label.
fn is_class_name(t: &str) -> bool {
    t.strip_prefix("Gtk").is_some_and(|rest| {
        rest.starts_with(|c: char| c.is_ascii_uppercase())
            && rest.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

/// Maps AT-SPI states; `role` decides whether a missing ENABLED is worth reporting.
pub fn states(st: StateSet, role: &Role) -> States {
    let mut out = States::empty();
    let pairs = [
        (S::Focused, States::FOCUSED),
        (S::Selected, States::SELECTED),
        (S::Checked, States::CHECKED),
        (S::Expandable, States::EXPANDABLE),
        (S::Expanded, States::EXPANDED),
        (S::ReadOnly, States::READ_ONLY),
        (S::Required, States::REQUIRED),
        (S::InvalidEntry, States::INVALID),
        (S::Busy, States::BUSY),
        (S::Modal, States::MODAL),
        (S::Focusable, States::FOCUSABLE),
        (S::Editable, States::EDITABLE),
        (S::Checkable, States::CHECKABLE),
        (S::Active, States::ACTIVE),
        (S::Pressed, States::PRESSED),
        (S::Selectable, States::SELECTABLE),
        (S::ManagesDescendants, States::MANAGES_DESCENDANTS),
        (S::MultiLine, States::MULTILINE),
        (S::Defunct, States::DEFUNCT),
        (S::Visible, States::VISIBLE),
    ];
    for (from, to) in pairs {
        if st.contains(from) {
            out.insert(to);
        }
    }
    out.set(
        States::SHOWING,
        st.contains(S::Showing) && st.contains(S::Visible),
    );
    // "indeterminate" only means "mixed" on something that can be checked.
    if st.contains(S::Indeterminate)
        && matches!(
            role,
            Role::CheckBox | Role::Toggle | Role::Switch | Role::MenuItem | Role::Radio
        )
    {
        out.insert(States::MIXED);
    }
    // GTK reports a toggle button that is down as PRESSED, Chromium as CHECKED.
    if *role == Role::Toggle && st.contains(S::Pressed) {
        out.insert(States::CHECKED);
    }
    // GTK drops ENABLED (but keeps SENSITIVE) on an inconsistent check box that still
    // responds; an insensitive widget lacks both.
    let usable = st.contains(S::Enabled) || st.contains(S::Sensitive);
    if !usable && (role.is_interactive() || st.contains(S::Focusable)) {
        out.insert(States::DISABLED);
    }
    if *role == Role::Password {
        out.insert(States::SECURE);
    }
    out
}

/// Maps the interface names an object reports (`org.a11y.atspi.Action`, ...).
pub fn caps<S: AsRef<str>>(ifaces: &[S]) -> Caps {
    let mut out = Caps::empty();
    for name in ifaces {
        let cap = match name.as_ref().strip_prefix("org.a11y.atspi.") {
            Some("Action") => Caps::ACTION,
            Some("Component") => Caps::COMPONENT,
            Some("Text") => Caps::TEXT,
            Some("EditableText") => Caps::EDITABLE_TEXT,
            Some("Value") => Caps::VALUE,
            Some("Selection") => Caps::SELECTION,
            Some("Table") => Caps::TABLE,
            Some("Hyperlink") => Caps::HYPERLINK,
            Some("Image") => Caps::IMAGE,
            Some("Document") => Caps::DOCUMENT,
            _ => continue,
        };
        out.insert(cap);
    }
    out
}

/// Decodes the two 32-bit words of an AT-SPI state set, ignoring bits this crate does not know.
pub fn state_set(words: &[u32]) -> StateSet {
    let lo = u64::from(words.first().copied().unwrap_or(0));
    let hi = u64::from(words.get(1).copied().unwrap_or(0));
    StateSet::new(enumflags2::BitFlags::<S>::from_bits_truncate(
        lo | (hi << 32),
    ))
}

/// Decodes a role number; unknown numbers become `Unknown` rather than an error.
pub fn role_number(n: u32) -> R {
    R::try_from(n).unwrap_or(R::Unknown)
}

/// A number as an agent would type it: `5`, not `5.0`; `0.25`, not `0.25000000001`.
pub fn format_number(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_mnemonics_and_class_placeholders() {
        assert_eq!(name(" Page _2 "), "Page 2");
        assert_eq!(name("_File"), "File");
        assert_eq!(name("user_name"), "user_name");
        assert_eq!(name("a _b _c"), "a _b _c");
        assert_eq!(name("_"), "_");
        assert_eq!(name("GtkEntry"), "");
        assert_eq!(name("GtkToggleButton"), "");
        assert_eq!(name("Gtk"), "Gtk");
        assert_eq!(name("Gtk rocks"), "Gtk rocks");
    }

    #[test]
    fn editable_text_is_an_input_and_label_text_is_not() {
        assert_eq!(role(R::Text, StateSet::new(S::Editable)), Role::Input);
        assert_eq!(role(R::Text, StateSet::empty()), Role::Text);
        assert_eq!(
            role(R::Calendar, StateSet::empty()),
            Role::Other("calendar".into())
        );
    }

    #[test]
    fn password_is_secure_and_disabled_only_matters_on_controls() {
        let st = states(StateSet::new(S::Showing | S::Visible), &Role::Password);
        assert!(st.contains(States::SECURE));
        assert!(st.contains(States::SHOWING));
        assert!(
            st.contains(States::DISABLED),
            "a password field without ENABLED is disabled"
        );
        let label = states(StateSet::new(S::Showing | S::Visible), &Role::Text);
        assert!(!label.contains(States::DISABLED));
    }

    #[test]
    fn numbers_read_naturally() {
        assert_eq!(format_number(5.0), "5");
        assert_eq!(format_number(0.25), "0.25");
        assert_eq!(format_number(1.0 / 3.0), "0.3333");
    }
}
