//! Displays from RandR: monitors defined with `xrandr --setmonitor` on a sandbox of the
//! test's own (the shared desktop's screen stays as the other tests expect it), seen by
//! `doctor` and by screenshots, whose whole screen is the displays' union, and by an MCP
//! server that lived through every change (it keeps the displays between calls).

use crate::activity::McpSession;
use crate::{Env, Test};
use serde_json::{json, Value};
use std::process::Command;

pub const TESTS: &[(&str, Test)] = &[("displays::randr_monitors_are_the_displays", randr_monitors)];

/// A second sandbox: its environment, the monitors defined on it (deleted, then the
/// sandbox stopped, on drop, even when an assertion fails).
struct Second<'a> {
    env: &'a Env,
    number: String,
    vars: Vec<(String, String)>,
    monitors: Vec<&'static str>,
}

impl Second<'_> {
    fn xrandr(&self, args: &[&str]) -> String {
        let out = Command::new("xrandr")
            .args(args)
            .envs(self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .expect("run xrandr (package x11-xserver-utils)");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.is_empty(),
            "xrandr {args:?}: {stderr}"
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn set_monitor(&mut self, name: &'static str, geometry: &str, outputs: &str) {
        self.monitors.push(name);
        self.xrandr(&["--setmonitor", name, geometry, outputs]);
    }

    fn delete_monitor(&mut self, name: &str) {
        let name = name.trim_start_matches('*');
        self.monitors.retain(|m| m.trim_start_matches('*') != name);
        self.xrandr(&["--delmonitor", name]);
    }

    fn cli(&self, args: &[&str]) -> Value {
        let out = Command::new(crate::BIN)
            .args(args)
            .envs(self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env_remove("AT_SPI_BUS_ADDRESS")
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "desktop-cli {args:?}: not JSON ({e}): {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert_eq!(v["ok"], true, "desktop-cli {args:?}: {v}");
        v["data"].clone()
    }

    /// What doctor says about the displays.
    fn doctor_displays(&self) -> String {
        let data = self.cli(&["doctor"]);
        let check = data["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "display")
            .unwrap_or_else(|| panic!("no display check: {data}"))
            .clone();
        assert_eq!(check["ok"], true, "{check}");
        let detail = check["detail"].as_str().unwrap();
        let at = detail
            .find("displays from ")
            .unwrap_or_else(|| panic!("{detail}"));
        detail[at..]
            .split(';')
            .next()
            .unwrap_or_default()
            .to_string()
    }

    /// A screenshot at one pixel a unit: its region and its size.
    fn shot(&self, region: Option<&str>) -> (Value, (u64, u64)) {
        let mut args = vec!["screenshot", "--scale", "1"];
        if let Some(r) = region {
            args.extend(["--region", r]);
        }
        let data = self.cli(&args);
        let size = (
            data["width"].as_u64().unwrap(),
            data["height"].as_u64().unwrap(),
        );
        (data["region"].clone(), size)
    }
}

impl Drop for Second<'_> {
    fn drop(&mut self) {
        for m in std::mem::take(&mut self.monitors) {
            let _ = Command::new("xrandr")
                .args(["--delmonitor", m.trim_start_matches('*')])
                .envs(self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .output();
        }
        let _ = self
            .env
            .desk
            .cli(&["sandbox", "down", "--display", &self.number]);
    }
}

/// The displays as `mcp`'s `list_displays` tool answers them: box, then whether primary.
fn served(mcp: &mut McpSession) -> Vec<(Value, bool)> {
    let r = mcp.call("list_displays", json!({}));
    let listed = &r["result"]["structuredContent"]["displays"];
    listed
        .as_array()
        .unwrap_or_else(|| panic!("no displays: {r}"))
        .iter()
        .map(|d| (d["bounds"].clone(), d["primary"] == true))
        .collect()
}

fn randr_monitors(env: &Env) {
    let up = env
        .desk
        .cli(&["sandbox", "up", "--size", "1280x800"])
        .data();
    let display = up["display"].as_str().unwrap();
    let vars = up["env"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    let mut second = Second {
        env,
        number: display.trim_start_matches(':').to_string(),
        vars,
        monitors: Vec::new(),
    };

    // Xvfb's one output is one monitor the size of the screen; RandR marks no primary, so
    // it stands in.
    let listed = second.xrandr(&["--listmonitors"]);
    let output = listed
        .lines()
        .nth(1)
        .and_then(|l| l.split_whitespace().last())
        .unwrap_or_else(|| panic!("no monitor listed: {listed}"))
        .to_string();
    assert_eq!(
        second.doctor_displays(),
        "displays from RandR monitors: 1280x800+0+0 primary"
    );
    assert_eq!(second.shot(None), (json!([0, 0, 1280, 800]), (1280, 800)));
    let mut mcp = McpSession::start_with(&second.vars);
    assert_eq!(served(&mut mcp), [(json!([0, 0, 1280, 800]), true)]);
    // Asked again, unchanged: from what the server kept.
    assert_eq!(served(&mut mcp), [(json!([0, 0, 1280, 800]), true)]);

    // Two monitors side by side, short of the screen's right and bottom edges. The left
    // one takes the output, which retires the output's own monitor (else it would still
    // cover the whole screen).
    second.set_monitor("*LEFT", "800/211x600/158+0+0", &output);
    second.set_monitor("RIGHT", "400/106x500/132+800+0", "none");
    assert_eq!(
        second.doctor_displays(),
        "displays from RandR monitors: 800x600+0+0 primary, 400x500+800+0"
    );
    assert_eq!(
        served(&mut mcp),
        [
            (json!([0, 0, 800, 600]), true),
            (json!([800, 0, 400, 500]), false)
        ],
        "the server sees monitors defined since it last looked"
    );
    // The whole screen is their union, not the root window.
    assert_eq!(second.shot(None), (json!([0, 0, 1200, 600]), (1200, 600)));
    assert_eq!(
        second.shot(Some("800,0,400,500")),
        (json!([800, 0, 400, 500]), (400, 500))
    );

    // The primary one moves to the right: it is listed first.
    second.delete_monitor("RIGHT");
    second.set_monitor("*RIGHT", "400/106x500/132+800+0", "none");
    assert_eq!(
        second.doctor_displays(),
        "displays from RandR monitors: 400x500+800+0 primary, 800x600+0+0"
    );
    assert_eq!(
        served(&mut mcp),
        [
            (json!([800, 0, 400, 500]), true),
            (json!([0, 0, 800, 600]), false)
        ]
    );

    // Gone again: the output's own monitor is back, and with it the whole root window.
    second.delete_monitor("RIGHT");
    second.delete_monitor("LEFT");
    assert_eq!(
        second.doctor_displays(),
        "displays from RandR monitors: 1280x800+0+0 primary"
    );
    assert_eq!(served(&mut mcp), [(json!([0, 0, 1280, 800]), true)]);
    assert_eq!(second.shot(None), (json!([0, 0, 1280, 800]), (1280, 800)));
    // Redefined right after the server looked, no other call between.
    second.set_monitor("*LEFT", "640/169x800/211+0+0", &output);
    assert_eq!(served(&mut mcp), [(json!([0, 0, 640, 800]), true)]);
    second.delete_monitor("LEFT");
    assert_eq!(served(&mut mcp), [(json!([0, 0, 1280, 800]), true)]);
}
