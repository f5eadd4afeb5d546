//! Agent settings: flags over environment over `~/.config/desktop-cli/agent.toml` over
//! defaults. API keys come from the environment or the file only, never from a flag (flags
//! show in `ps`), and are never printed.

use super::model::{Protocol, Provider};
use crate::{Choices, Confirm};
use desktop_core::{Error, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The settings file; every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    provider: Option<String>,
    model: Option<String>,
    fallback_model: Option<String>,
    base_url: Option<String>,
    api_key: Option<String>,
    max_tokens: Option<u32>,
    max_steps: Option<u32>,
    model_timeout: Option<u64>,
    retries: Option<u32>,
    confirm: Option<Confirm>,
    allow_apps: Option<Vec<String>>,
    /// Screenshots carry the pointer's crosshair and a magnified inset around it, for apps
    /// whose tree has no ids for what the model must point at (a canvas, a remote desktop).
    pointer_overlays: Option<bool>,
}

/// Everything the loop needs to know beyond the goal.
#[derive(Debug)]
pub struct Settings {
    pub provider: Provider,
    pub max_steps: u32,
    pub confirm: Confirm,
    pub allow_apps: Vec<String>,
    /// The pointer's crosshair and inset on every screenshot sent.
    pub pointer_overlays: bool,
}

fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("desktop-cli").join("agent.toml"))
}

fn load(path: &Path, explicit: bool) -> Result<FileSettings> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => {
            return Ok(FileSettings::default())
        }
        Err(e) => {
            return Err(
                Error::invalid_args(format!("cannot read {}: {e}", path.display()))
                    .suggest("Give an existing file with --config"),
            )
        }
    };
    let settings: FileSettings = toml::from_str(&text).map_err(|e| {
        Error::invalid_args(format!("{} is not valid: {e}", path.display())).suggest(
            "Keys: provider, model, fallback_model, base_url, api_key, max_tokens, max_steps, \
             model_timeout, retries, confirm, allow_apps, pointer_overlays",
        )
    })?;
    if settings.api_key.is_some() {
        warn_if_shared(path);
    }
    Ok(settings)
}

/// Says on stderr when a file holding an API key can be read by other users (as ssh does
/// for private keys); the run goes on.
fn warn_if_shared(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(m) = std::fs::metadata(path) {
            let mode = m.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                crate::notice(&format!(
                    "{} holds an api_key and is readable by other users (mode {mode:o}); \
                     run: chmod 600 {}",
                    path.display(),
                    path.display()
                ));
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Resolves the settings for a run.
pub fn resolve(a: &Choices) -> Result<Settings> {
    let file = match &a.config {
        Some(p) => load(p, true)?,
        None => match default_path() {
            Some(p) => load(&p, false)?,
            None => FileSettings::default(),
        },
    };
    let name = a
        .provider
        .clone()
        .or(file.provider.clone())
        .or_else(|| {
            // With no choice made, the provider whose key is present.
            match (env("ANTHROPIC_API_KEY"), env("OPENAI_API_KEY")) {
                (None, Some(_)) => Some("openai".into()),
                _ => Some("anthropic".into()),
            }
        })
        .unwrap_or_default();
    let protocol = Protocol::parse(&name).ok_or_else(|| {
        Error::invalid_args(format!("unknown provider {name:?}"))
            .suggest("Use anthropic, openai or openai-responses")
    })?;
    let (key_var, default_url, default_model) = match protocol {
        Protocol::Anthropic => (
            "ANTHROPIC_API_KEY",
            "https://api.anthropic.com",
            "claude-sonnet-4-5",
        ),
        _ => ("OPENAI_API_KEY", "https://api.openai.com", "gpt-5"),
    };
    let base_url = a
        .base_url
        .clone()
        .or(file.base_url.clone())
        .unwrap_or_else(|| default_url.to_string());
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(
            Error::invalid_args(format!("--base-url {base_url:?} is not an http(s) URL"))
                .suggest("Example: --base-url http://127.0.0.1:8080"),
        );
    }
    let api_key = env(key_var).or(file.api_key.clone());
    if api_key.is_none() && base_url == default_url {
        return Err(Error::invalid_args(format!("no API key for {name}"))
            .suggest(format!("Set {key_var}, or api_key in ~/.config/desktop-cli/agent.toml, or point --base-url at a local server")));
    }
    let max_steps = a.max_steps.or(file.max_steps).unwrap_or(20);
    if max_steps == 0 || max_steps > 500 {
        return Err(
            Error::invalid_args("--max-steps must be 1 to 500").suggest("Example: --max-steps 20")
        );
    }
    let mut allow_apps: Vec<String> = a.allow_apps.clone();
    if allow_apps.is_empty() {
        allow_apps = file.allow_apps.clone().unwrap_or_default();
    }
    allow_apps.retain(|s| !s.trim().is_empty());
    Ok(Settings {
        provider: Provider {
            protocol,
            base_url,
            api_key,
            model: a
                .model
                .clone()
                .or(file.model)
                .unwrap_or_else(|| default_model.to_string()),
            fallback_model: a.fallback_model.clone().or(file.fallback_model),
            max_tokens: a
                .max_tokens
                .or(file.max_tokens)
                .unwrap_or(2048)
                .clamp(64, 64_000),
            timeout: Duration::from_secs(
                a.model_timeout_s
                    .or(file.model_timeout)
                    .unwrap_or(120)
                    .clamp(1, 900),
            ),
            retries: file.retries.unwrap_or(3).min(10),
        },
        max_steps,
        confirm: a.confirm.or(file.confirm).unwrap_or(Confirm::Risky),
        allow_apps,
        pointer_overlays: file.pointer_overlays.unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_keys_are_checked() {
        let ok: FileSettings =
            toml::from_str("provider = \"openai\"\nconfirm = \"all\"\nallow_apps = [\"gedit\"]")
                .unwrap();
        assert_eq!(ok.confirm, Some(Confirm::All));
        assert!(toml::from_str::<FileSettings>("provder = \"x\"").is_err());
        let pointing: FileSettings = toml::from_str("pointer_overlays = true").unwrap();
        assert_eq!(pointing.pointer_overlays, Some(true));
    }
}
