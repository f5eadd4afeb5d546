//! The answers a model gives to `ask`: one `answer` tool per kind of question, whose typed
//! parameters are the answer. The model only answers; nothing here acts.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::agent::Space;

/// An account of the window.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Describe {
    /// What the window shows and what can be done there, in a few sentences.
    pub text: String,
}

/// Where the described element is.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Locate {
    /// Whether the element is on screen at all.
    pub found: bool,
    /// Its id in the element tree (preferred); null when the tree does not list it.
    #[serde(default, deserialize_with = "crate::agent::whole")]
    #[schemars(with = "Option<u32>")]
    pub id: Option<u32>,
    /// Otherwise a point on it in the screenshot.
    pub x: Option<f64>,
    pub y: Option<f64>,
    /// What x/y mean: "image" = pixels of the screenshot, "normalized" = 0-1000 across it.
    pub space: Option<Space>,
    /// One short sentence: how it was recognised, or why it was not found.
    pub note: Option<String>,
}

/// Whether a condition holds.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// True only when the screen shows the condition holds.
    pub result: bool,
    /// One short sentence: what on the screen shows it.
    pub reason: String,
}

/// Information read off the window.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Extract {
    /// Whether the window shows the information.
    pub found: bool,
    /// The information, as the window shows it (empty when not found).
    pub text: String,
}
