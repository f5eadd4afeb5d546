//! What the agent must not do unasked: which steps are risky, asking the person (deny by
//! default), and the kill switch (Ctrl+C, or the pointer pushed into a screen corner),
//! checked before every action.

use super::tools::{Act, Step};
use crate::Confirm;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Apps whose keyboard input runs commands.
const TERMINALS: &[&str] = &[
    "terminal",
    "xterm",
    "uxterm",
    "konsole",
    "kitty",
    "alacritty",
    "foot",
    "tilix",
    "terminator",
    "urxvt",
    "rxvt",
    "wezterm",
    "qterminal",
    "lxterminal",
    "sakura",
    "guake",
    "yakuake",
    "st",
    "ptyxis",
    "console",
    "tmux",
    "blackbox",
];

/// What the safety check knows about where a step would land.
pub struct Place<'a> {
    /// The app of the window the step acts in.
    pub app: &'a str,
    /// Role of the element it acts on, when known (`term` for a terminal widget).
    pub role: Option<&'a str>,
}

pub(super) fn is_terminal(app: &str, role: Option<&str>) -> bool {
    let app = app.to_lowercase();
    matches!(role, Some("term" | "terminal"))
        || TERMINALS
            .iter()
            .any(|t| app == *t || (t.len() > 3 && app.contains(t)))
}

/// A key combo that reaches the system rather than the app: super, ctrl+alt+anything
/// (ctrl+alt+del, VT switches), alt+f4, alt+tab, alt+sysrq.
pub fn is_system_combo(keys: &str) -> bool {
    keys.split_whitespace().any(is_system_one)
}

fn is_system_one(keys: &str) -> bool {
    let parts: Vec<String> = keys
        .to_lowercase()
        .split('+')
        .map(|p| p.trim().to_string())
        .collect();
    let has = |k: &str| parts.iter().any(|p| p == k);
    let superish = [
        "super", "meta", "win", "windows", "cmd", "hyper", "super_l", "super_r",
    ];
    superish.iter().any(|k| has(k))
        || ((has("ctrl") || has("control")) && has("alt"))
        || (has("alt") && (has("f4") || has("tab") || has("sysrq") || has("print")))
}

/// Why a step is risky, or None.
pub fn risk(step: &Step, place: &Place, allow_apps: &[String]) -> Option<String> {
    let types = matches!(
        step.act,
        Act::TypeText { .. } | Act::PressKeys { .. } | Act::SetValue { .. }
    );
    match &step.act {
        Act::Launch { command } => {
            return Some(format!("launches a program: {}", command.join(" ")))
        }
        Act::Window { op, .. } => {
            return Some(format!("{}: the window of {}", op.as_str(), place.app));
        }
        Act::CloseApp { app } => return Some(format!("closes the app {app}")),
        Act::FileDialog { path, .. } => {
            return Some(format!(
                "opens or saves the file {path} through a file dialog"
            ))
        }
        Act::PressKeys { keys, .. } if is_system_combo(keys) => {
            return Some(format!("presses a system key combo: {keys}"))
        }
        Act::Done { .. } | Act::AskUser { .. } | Act::ClipboardGet | Act::WaitFor { .. } => {
            return None
        }
        _ => {}
    }
    if types && is_terminal(place.app, place.role) {
        return Some(format!("types into a terminal ({})", place.app));
    }
    let allowed = |app: &str| {
        let app = app.to_lowercase();
        allow_apps.iter().any(|a| {
            let a = a.to_lowercase();
            app == a || app.contains(&a)
        })
    };
    let app = match &step.act {
        Act::SwitchWindow { app: Some(a), .. } => a.as_str(),
        _ => place.app,
    };
    if !allow_apps.is_empty() && !allowed(app) && !matches!(step.act, Act::ClipboardSet { .. }) {
        return Some(format!("acts on {app:?}, which is not in --allow-app"));
    }
    None
}

/// The decision on one step.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Go,
    /// Refused, with the reason given to the model.
    Refused(String),
}

/// Asks on stderr and reads the answer from stdin; anything but "y"/"yes" (end of input
/// included) is a no.
pub fn ask(question: &str) -> bool {
    crate::notice(&format!("{question} [y/N] "));
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => false,
        Ok(_) => matches!(line.trim().to_lowercase().as_str(), "y" | "yes"),
    }
}

/// Applies `--confirm` to one step.
pub fn decide(
    confirm: Confirm,
    risk: Option<&str>,
    describe: &str,
    asker: &mut dyn FnMut(&str) -> bool,
) -> Verdict {
    match (confirm, risk) {
        (Confirm::Never, Some(r)) if r.contains("--allow-app") => Verdict::Refused(format!(
            "refused: {r} (with --confirm never, only allowed apps are acted on)"
        )),
        (Confirm::Never, _) | (Confirm::Risky, None) => Verdict::Go,
        (Confirm::All, _) | (Confirm::Risky, Some(_)) => {
            let why = risk.map(|r| format!(" ({r})")).unwrap_or_default();
            if asker(&format!("agent wants to {describe}{why}. Allow?")) {
                Verdict::Go
            } else {
                Verdict::Refused(format!("the user declined: {describe}"))
            }
        }
    }
}

/// Ctrl+C (first: stop before the next action; second: exit at once), the pointer corner,
/// and the Stop button of `view` (a stop request for the desktop newer than the run).
#[derive(Clone)]
pub struct KillSwitch {
    stopped: Arc<AtomicBool>,
    started: std::time::SystemTime,
}

impl Default for KillSwitch {
    fn default() -> Self {
        KillSwitch {
            stopped: Arc::default(),
            started: std::time::SystemTime::now(),
        }
    }
}

impl KillSwitch {
    /// Starts listening for Ctrl+C on the current runtime.
    pub fn arm() -> Self {
        let k = KillSwitch::default();
        let flag = k.stopped.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                crate::notice("stopping before the next action (Ctrl+C again to quit now)");
                flag.store(true, Ordering::SeqCst);
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        });
        k
    }

    /// Why the run must stop now, if it must.
    pub fn check(&self, d: &impl desktop_core::Desktop) -> Option<String> {
        if self.stopped.load(Ordering::SeqCst) {
            return Some("stopped by the user (Ctrl+C)".into());
        }
        let stop = desktop_core::runs::stop_path(&d.refs_path());
        if desktop_core::runs::stop_requested_since(&stop, self.started) {
            return Some("stopped by the user (the Stop button of the desktop's view)".into());
        }
        let (px, py) = d.pointer()?;
        let s = d.screen()?;
        let near = |v: i32, edge: i32| (v - edge).abs() <= 1;
        let corner = (near(px, s.x) || near(px, s.x + s.w - 1))
            && (near(py, s.y) || near(py, s.y + s.h - 1));
        corner.then(|| {
            format!("stopped: the pointer is in a screen corner ({px},{py}), the kill switch")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(act: Act) -> Step {
        Step {
            act,
            why: String::new(),
        }
    }

    #[test]
    fn risky_steps() {
        let gedit = Place {
            app: "gedit",
            role: None,
        };
        // Window operations and closing apps are confirmed by default.
        let minimize = Act::Window {
            op: desktop_tools::agent::WindowOp::Minimize,
            at: None,
            size: None,
        };
        assert!(risk(&step(minimize), &gedit, &[]).is_some_and(|r| r.contains("minimize")));
        let close = Act::CloseApp {
            app: "gedit".into(),
        };
        assert!(risk(&step(close), &gedit, &[]).is_some());
        assert!(risk(
            &step(Act::Launch {
                command: vec!["xterm".into()]
            }),
            &gedit,
            &[]
        )
        .is_some());
        assert!(risk(
            &step(Act::PressKeys {
                keys: "ctrl+alt+delete".into(),
                repeat: 1,
                id: None,
            }),
            &gedit,
            &[]
        )
        .is_some());
        assert!(risk(
            &step(Act::PressKeys {
                keys: "Super".into(),
                repeat: 1,
                id: None,
            }),
            &gedit,
            &[]
        )
        .is_some());
        assert!(risk(
            &step(Act::PressKeys {
                keys: "ctrl+s".into(),
                repeat: 1,
                id: None,
            }),
            &gedit,
            &[]
        )
        .is_none());
        let term = Place {
            app: "xfce4-terminal",
            role: None,
        };
        assert!(risk(
            &step(Act::TypeText {
                text: "ls".into(),
                id: None
            }),
            &term,
            &[]
        )
        .is_some());
        assert!(risk(&step(Act::Toggle { id: 3 }), &gedit, &["chromium".into()]).is_some());
        assert!(risk(&step(Act::Toggle { id: 3 }), &gedit, &["GEdit".into()]).is_none());
    }

    #[test]
    fn decisions() {
        let mut no = |_: &str| false;
        let mut yes = |_: &str| true;
        assert_eq!(decide(Confirm::Risky, None, "click", &mut no), Verdict::Go);
        assert!(matches!(
            decide(Confirm::Risky, Some("launches"), "launch", &mut no),
            Verdict::Refused(_)
        ));
        assert_eq!(
            decide(Confirm::Risky, Some("launches"), "launch", &mut yes),
            Verdict::Go
        );
        assert!(matches!(
            decide(Confirm::All, None, "click", &mut no),
            Verdict::Refused(_)
        ));
        assert_eq!(
            decide(Confirm::Never, Some("launches"), "launch", &mut no),
            Verdict::Go
        );
        assert!(matches!(
            decide(
                Confirm::Never,
                Some("acts on x, which is not in --allow-app"),
                "click",
                &mut yes
            ),
            Verdict::Refused(_)
        ));
    }
}
