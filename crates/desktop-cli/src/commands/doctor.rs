//! `doctor`: the platform's checks of each part the tool needs, with how to fix what fails,
//! as JSON or as a table for people.

use crate::cli::{Format, Global};
use crate::output::Out;
use std::time::Duration;

pub async fn run(g: &Global, out: Out) -> i32 {
    let timeout = Duration::from_millis(g.call_timeout.max(1));
    let (checks, sandboxes) = crate::platform::doctor(timeout).await;
    let healthy = checks.iter().all(|c| c.ok);
    if out.format == Format::Text {
        let mut s = String::new();
        for c in &checks {
            s.push_str(&format!(
                "{} {:<13} {}\n",
                if c.ok { "ok  " } else { "FAIL" },
                c.name,
                c.detail
            ));
            if let Some(f) = c.fix {
                s.push_str(&format!("     {:<13} fix: {f}\n", ""));
            }
        }
        return out.text(&s);
    }
    out.ok(
        "doctor",
        serde_json::json!({ "healthy": healthy, "checks": checks, "sandboxes": sandboxes }),
    )
}
