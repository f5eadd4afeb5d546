//! `sandbox up|down|status|env|run`: the headless desktop agents and tests run against.

use crate::cli::{Format, Global, SandboxCmd};
use crate::output::{notice, Out};
use crate::platform::sandbox::{self, Sandbox, UpOptions};
use desktop_core::{Error, ErrorCode, Result};
use serde_json::{json, Value};
use std::process::Command;

pub async fn run(_g: &Global, out: Out, cmd: SandboxCmd) -> i32 {
    match cmd {
        SandboxCmd::Up {
            size,
            outputs,
            wm,
            wayland,
        } => match up(&size, outputs, wm, wayland).await {
            Ok(s) => {
                notice(&format!("sandbox :{} is up; use it from a shell with: eval \"$(desktop-cli sandbox env)\"", s.display));
                out.ok("sandbox-up", describe(&s))
            }
            Err(e) => out.err("sandbox-up", &e),
        },
        SandboxCmd::Down { display, all } => {
            let chosen: Vec<Sandbox> = if all {
                sandbox::all()
            } else {
                match pick(display) {
                    Ok(s) => vec![s],
                    Err(e) => return out.err("sandbox-down", &e),
                }
            };
            for s in &chosen {
                s.stop();
            }
            out.ok(
                "sandbox-down",
                json!({ "stopped": chosen.iter().map(|s| s.display).collect::<Vec<_>>() }),
            )
        }
        SandboxCmd::Seat => match desktop_linux::wayland_seat() {
            Ok(()) => 0,
            Err(e) => out.err("sandbox-seat", &e),
        },
        SandboxCmd::Status => {
            let list: Vec<Value> = sandbox::all().iter().map(describe).collect();
            if out.format == Format::Text {
                let lines: String = sandbox::all()
                    .iter()
                    .map(|s| {
                        format!(
                            ":{} {} {} {}\n",
                            s.display,
                            s.size,
                            if s.alive() { "running" } else { "dead" },
                            s.dir.display()
                        )
                    })
                    .collect();
                return out.text(&lines);
            }
            out.ok("sandbox-status", json!({ "sandboxes": list }))
        }
        SandboxCmd::Env { display } => match pick(display) {
            Ok(s) if out.format == Format::Json && out.pretty => {
                out.ok("sandbox-env", describe(&s))
            }
            Ok(s) => out.text(&shell_exports(&s)),
            Err(e) => out.err("sandbox-env", &e),
        },
        SandboxCmd::Run {
            fresh,
            detach,
            display,
            cmd,
        } => run_in(out, fresh, detach, display, cmd).await,
    }
}

async fn up(size: &str, outputs: u32, wm: bool, wayland: Option<String>) -> Result<Sandbox> {
    let size = normalize_size(size)?;
    let width: u32 = size
        .split('x')
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or(0);
    if width * outputs > 16384 {
        return Err(Error::invalid_args(format!(
            "{outputs} displays {width} wide make a screen wider than 16384"
        ))
        .suggest("Give a smaller --size or fewer --outputs"));
    }
    sandbox::up(&UpOptions {
        size,
        outputs,
        wm,
        wayland: wayland
            .as_deref()
            .map(desktop_linux::Compositor::named)
            .transpose()?,
        seat: std::env::current_exe()
            .ok()
            .map(|exe| vec![exe.into_os_string(), "sandbox".into(), "seat".into()]),
        ..UpOptions::default()
    })
    .await
}

/// `1280x800` → `1280x800x24`; anything else malformed is INVALID_ARGS.
fn normalize_size(size: &str) -> Result<String> {
    let parts: Vec<u32> = size
        .split('x')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()
        .unwrap_or_default();
    match parts[..] {
        [w, h] if (64..=16384).contains(&w) && (64..=16384).contains(&h) => {
            Ok(format!("{w}x{h}x24"))
        }
        [w, h, d]
            if (64..=16384).contains(&w)
                && (64..=16384).contains(&h)
                && [8, 16, 24].contains(&d) =>
        {
            Ok(format!("{w}x{h}x{d}"))
        }
        _ => Err(
            Error::invalid_args(format!("--size `{size}` is not WIDTHxHEIGHT[xDEPTH]"))
                .suggest("Example: --size 1280x800"),
        ),
    }
}

/// The sandbox a command means: `--display N`, else the one in use, else the only one.
fn pick(display: Option<u32>) -> Result<Sandbox> {
    let all: Vec<Sandbox> = sandbox::all().into_iter().filter(Sandbox::alive).collect();
    let wanted = display.or_else(|| {
        std::env::var("DESKTOP_CLI_SANDBOX")
            .ok()
            .and_then(|v| v.parse().ok())
    });
    let chosen = match wanted {
        Some(d) => all.into_iter().find(|s| s.display == d),
        None => all.into_iter().next(),
    };
    chosen.ok_or_else(|| match wanted {
        // Sandboxes are recorded in the runtime directory they were started with: a shell
        // that took `sandbox env` in but runs with another one finds none of them.
        Some(d) => Error::new(
            ErrorCode::SandboxFailed,
            format!(
                "no sandbox :{d} is running among those recorded in {}",
                sandbox::state_root().display()
            ),
        )
        .suggest(
            "If it was started with another XDG_RUNTIME_DIR, run this with that one; `desktop-cli sandbox status` lists those recorded here",
        ),
        None => Error::new(ErrorCode::SandboxFailed, "no sandbox is running").suggest(
            "Start one with `desktop-cli sandbox up` (`desktop-cli sandbox status` lists them)",
        ),
    })
}

fn describe(s: &Sandbox) -> Value {
    let env: serde_json::Map<String, Value> = s
        .env()
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::String(v)))
        .collect();
    json!({
        "display": s.display_name(),
        "size": s.size,
        "outputs": s.outputs,
        "wm": s.wm,
        "wayland": s.wayland.as_ref().map(|c| &c.socket),
        "running": s.alive(),
        "dir": s.dir,
        "a11y_bus": s.a11y_bus_address,
        "pids": s.procs.iter().map(|p| json!({"name": p.name, "pid": p.pid})).collect::<Vec<_>>(),
        "env": env,
    })
}

fn shell_exports(s: &Sandbox) -> String {
    let exports = s
        .env()
        .into_iter()
        .map(|(k, v)| format!("export {k}='{}'\n", v.replace('\'', r"'\''")));
    let unsets = s.unset().iter().map(|k| format!("unset {k}\n"));
    exports.chain(unsets).collect()
}

async fn run_in(
    out: Out,
    fresh: bool,
    detach: bool,
    display: Option<u32>,
    cmd: Vec<String>,
) -> i32 {
    let existing = if fresh { None } else { pick(display).ok() };
    if existing.is_none() && display.is_some() {
        return out.err(
            "sandbox-run",
            &pick(display)
                .err()
                .unwrap_or_else(|| Error::internal("no sandbox")),
        );
    }
    let (sb, ephemeral) = match existing {
        Some(s) => (s, false),
        None if detach => {
            return out.err(
                "sandbox-run",
                &Error::new(
                    ErrorCode::SandboxFailed,
                    "no sandbox is running to detach into",
                )
                .suggest("Start one first with `desktop-cli sandbox up`"),
            )
        }
        None => match up("1280x800x24", 1, false, None).await {
            Ok(s) => (s, true),
            Err(e) => return out.err("sandbox-run", &e),
        },
    };
    let mut command = Command::new(&cmd[0]);
    command.args(&cmd[1..]).env_remove("WAYLAND_DISPLAY");
    for var in sb.unset() {
        command.env_remove(var);
    }
    command.envs(sb.env());
    if detach {
        command.stdin(std::process::Stdio::null());
        command.stdout(sb.app_log());
        command.stderr(sb.app_log());
        return match sb.spawn(&mut command) {
            Ok(child) => out.ok(
                "sandbox-run",
                json!({"pid": child.id(), "display": sb.display_name()}),
            ),
            Err(e) => out.err("sandbox-run", &spawn_error(&cmd[0], &e)),
        };
    }
    // Ctrl+C goes to the child (same terminal group); we must live on to clean up.
    let _sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt());
    let _sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate());
    let status = command.status();
    if ephemeral {
        sb.stop();
    }
    match status {
        Ok(st) => st.code().unwrap_or(128 + 1),
        Err(e) => out.err("sandbox-run", &spawn_error(&cmd[0], &e)),
    }
}

fn spawn_error(program: &str, e: &std::io::Error) -> Error {
    Error::new(
        ErrorCode::InvalidArgs,
        format!("cannot run `{program}`: {e}"),
    )
    .suggest("Check the command name and PATH")
}
