//! `doctor`: the platform's checks of each part the tool needs, with how to fix what fails,
//! as JSON or as a table for people.

use crate::cli::{Format, Global};
use crate::output::Out;
use std::time::Duration;

pub async fn run(g: &Global, out: Out) -> i32 {
    let timeout = Duration::from_millis(g.call_timeout.max(1));
    let desktop_core::system::Diagnosis { checks, sandboxes } =
        desktop_core::System::diagnose(&crate::platform::SYSTEM, timeout).await;
    let healthy = checks.iter().all(|c| c.ok);
    if out.format == Format::Text {
        return out.text(&as_text(&checks, &sandboxes));
    }
    out.ok(
        "doctor",
        serde_json::json!({ "healthy": healthy, "checks": checks, "sandboxes": sandboxes }),
    )
}

/// The checks as a person reads them: a mark, the name, what was found, the fix under a
/// failure, then the sandboxes and a verdict.
fn as_text(checks: &[desktop_core::backend::Check], sandboxes: &[u32]) -> String {
    let mut s = format!("desktop-cli {}\n", crate::cli::VERSION);
    for c in checks {
        s.push_str(&format!(
            "  {:<4}  {:<13} {}\n",
            if c.ok { "ok" } else { "FAIL" },
            c.name,
            c.detail
        ));
        if let (false, Some(f)) = (c.ok, c.fix) {
            s.push_str(&format!("  {:<4}  {:<13} fix: {f}\n", "", ""));
        }
    }
    if !sandboxes.is_empty() {
        let list: Vec<String> = sandboxes.iter().map(|n| format!(":{n}")).collect();
        s.push_str(&format!("sandboxes running: {}\n", list.join(" ")));
    }
    let failed = checks.iter().filter(|c| !c.ok).count();
    if failed == 0 {
        s.push_str(&format!("healthy: all {} checks pass\n", checks.len()));
    } else {
        s.push_str(&format!(
            "not ready: {failed} of {} checks fail; fix the first one first (later checks need it)\n",
            checks.len()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use desktop_core::backend::Check;

    #[test]
    fn text_reads_at_a_glance() {
        let checks = [
            Check::new(
                "state",
                Ok("/run/user/1/desktop-cli is yours alone".into()),
                "x",
            ),
            Check::new(
                "display",
                Err("DISPLAY is not set".into()),
                "Start a sandbox",
            ),
        ];
        let t = super::as_text(&checks, &[3]);
        assert!(t.contains("  ok    state         /run/user/1"), "{t}");
        assert!(
            t.contains("  FAIL  display       DISPLAY is not set\n"),
            "{t}"
        );
        assert!(t.contains("fix: Start a sandbox"), "{t}");
        assert!(t.contains("sandboxes running: :3"), "{t}");
        assert!(
            t.ends_with(
                "not ready: 1 of 2 checks fail; fix the first one first (later checks need it)\n"
            ),
            "{t}"
        );
        assert!(!t.contains("fix: x"), "no fix under a passing check: {t}");
    }
}
