//! Hints: a short word or two for an actionable element that has no name (a feed's icon-only
//! like button, a file tree's unnamed item), from the best clue its toolkit gives. Labels
//! the page set but the toolkit did not turn into a name come first, then where a link goes
//! or which picture an image shows, then the element's id and its class words with
//! generated noise (hashed CSS-in-JS classes, framework boilerplate) left out.

use std::collections::HashMap;

/// Longest hint kept, in characters.
const MAX_CHARS: usize = 40;

/// Attribute names that carry a label a person wrote, best first (web content).
const LABELS: &[&str] = &[
    "aria-label",
    "title",
    "alt",
    "placeholder",
    "placeholder-text",
    "label",
    "tooltip",
];

/// Class words that say nothing about what a control does.
const NOISE: &[&str] = &[
    "icon",
    "icons",
    "fa",
    "fas",
    "far",
    "fab",
    "fal",
    "bi",
    "glyphicon",
    "material-icons",
    "material-symbols-outlined",
    "btn",
    "button",
    "clickable",
    "pointer",
    "active",
    "selected",
    "hidden",
    "visible",
    "disabled",
    "small",
    "large",
    "ui-corner-all",
    "ui-state-default",
    "ui-state-hover",
    "ui-state-focus",
    "ui-state-active",
    "ui-widget",
    "ui-widget-content",
    "ui-widget-header",
];

/// Prefixes of icon-font classes, dropped to leave the icon's own word (`fa-heart` → heart).
const ICON_PREFIXES: &[&str] = &["fa-", "bi-", "glyphicon-", "icon-", "mdi-", "ion-", "ti-"];

/// The hint for an element from its toolkit attributes (`class`, `id`, `aria-label`, ...)
/// and, for links and images, the address it points at. `None`: no clue worth words.
pub fn from_clues(attrs: &HashMap<String, String>, target: Option<&str>) -> Option<String> {
    for key in LABELS {
        if let Some(v) = attrs.get(*key).map(|v| v.trim()).filter(|v| !v.is_empty()) {
            return Some(clip(v));
        }
    }
    if let Some(stem) = target.and_then(file_stem) {
        return Some(clip(&stem));
    }
    if let Some(stem) = attrs.get("src").and_then(|s| file_stem(s)) {
        return Some(clip(&stem));
    }
    let mut words: Vec<String> = Vec::new();
    if let Some(id) = attrs.get("id").map(|s| s.trim()).filter(|s| !is_noise(s)) {
        words.push(id.to_string());
    }
    for class in attrs
        .get("class")
        .map(String::as_str)
        .unwrap_or("")
        .split_whitespace()
    {
        let word = ICON_PREFIXES
            .iter()
            .find_map(|p| class.strip_prefix(p))
            .unwrap_or(class);
        if is_noise(word) || NOISE.contains(&word.to_ascii_lowercase().as_str()) {
            continue;
        }
        if !words.iter().any(|w| w.eq_ignore_ascii_case(word)) {
            words.push(word.to_string());
        }
        if words.len() == 3 {
            break;
        }
    }
    (!words.is_empty()).then(|| clip(&words.join(" ")))
}

/// A word made by a machine, not a person: hashed class names (`css-1x9kq2`, `sc-bdVaJa`,
/// `jsx-2817`, `_3Xk9a`), React's `:r3:` ids, numbered framework ids (`ember123`).
fn is_noise(word: &str) -> bool {
    let w = word.trim();
    if w.is_empty() || w.len() > 32 || w.starts_with(':') || w.starts_with('_') {
        return true;
    }
    let lower = w.to_ascii_lowercase();
    if [
        "css-", "sc-", "jsx-", "svelte-", "emotion-", "ember", "ng-", "v-",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
    {
        return true;
    }
    let digits = w.chars().filter(char::is_ascii_digit).count();
    let upper = w.chars().filter(char::is_ascii_uppercase).count();
    let lower_n = w.chars().filter(char::is_ascii_lowercase).count();
    // A person's word has few digits, and upper case only at word starts.
    digits >= 3
        || (digits > 0 && upper > 0 && lower_n > 0)
        || (upper >= 2 && lower_n >= 2 && !w.contains(['-', '_']) && upper * 2 >= lower_n)
}

/// The file name of an address without its extension: `/img/avatar-ada.png?x=1` → avatar-ada.
fn file_stem(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next()?.trim_end_matches('/');
    if path.starts_with("data:") || path.starts_with("javascript:") {
        return None;
    }
    let name = path.rsplit('/').next()?;
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let stem = stem.trim();
    (!stem.is_empty() && !is_noise(stem) && !stem.contains(':')).then(|| stem.to_string())
}

fn clip(s: &str) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(MAX_CHARS) {
        None => one_line,
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn labels_come_first_then_targets_then_id_and_classes() {
        let a = attrs(&[("title", "Like this post"), ("class", "icon like")]);
        assert_eq!(from_clues(&a, None).as_deref(), Some("Like this post"));
        let a = attrs(&[("class", "icon like")]);
        assert_eq!(
            from_clues(&a, Some("/x/share.html")).as_deref(),
            Some("share")
        );
        assert_eq!(from_clues(&a, None).as_deref(), Some("like"));
        let a = attrs(&[("id", "src"), ("class", "folder")]);
        assert_eq!(from_clues(&a, None).as_deref(), Some("src folder"));
        let a = attrs(&[("src", "https://cdn.example/img/avatar-ada.png?s=64")]);
        assert_eq!(from_clues(&a, None).as_deref(), Some("avatar-ada"));
    }

    #[test]
    fn generated_noise_is_left_out() {
        let a = attrs(&[
            ("id", ":r3:"),
            (
                "class",
                "css-1x9kq2 sc-bdVaJa jsx-2817 _3Xk9a fa fa-heart btn",
            ),
        ]);
        assert_eq!(from_clues(&a, None).as_deref(), Some("heart"));
        let a = attrs(&[("class", "css-1x9kq2 Xk9aQ3b")]);
        assert_eq!(from_clues(&a, None), None);
        assert_eq!(from_clues(&HashMap::new(), None), None);
        let a = attrs(&[("class", "ui-slider-handle ui-corner-all ui-state-default")]);
        assert_eq!(from_clues(&a, None).as_deref(), Some("ui-slider-handle"));
    }

    #[test]
    fn long_labels_are_clipped_and_data_urls_ignored() {
        let long = "a ".repeat(60);
        let a = attrs(&[("aria-label", long.as_str())]);
        assert!(from_clues(&a, None).unwrap().chars().count() <= MAX_CHARS + 1);
        assert_eq!(
            from_clues(&HashMap::new(), Some("data:image/png;base64,xx")),
            None
        );
    }
}
