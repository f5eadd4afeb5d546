//! `activity`: the activity log (see `desktop_core::activity`) printed as JSON lines, or one
//! readable line each; `--follow` keeps printing what is appended, across rotations.

use crate::cli::{ActivityArgs, Format};
use crate::output::Out;
use desktop_core::activity::{self, Entry};
use desktop_core::{Error, ErrorCode};
use std::io::Write;
use std::time::{Duration, SystemTime};

fn print(out: &Out, e: &Entry) -> bool {
    let line = if out.format == Format::Text {
        activity::text_line(e)
    } else {
        serde_json::to_string(e).unwrap_or_default()
    };
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) ends the command.
    writeln!(stdout, "{line}")
        .and_then(|()| stdout.flush())
        .is_ok()
}

pub async fn run(out: Out, a: ActivityArgs) -> i32 {
    let Some(dir) = activity::dir() else {
        let e = Error::new(ErrorCode::InvalidArgs, "no home directory: there is no log")
            .suggest("Set HOME or XDG_STATE_HOME");
        return out.err("activity", &e);
    };
    if let Err(e) = desktop_core::private::check_dir(&dir) {
        return out.err("activity", &e);
    }
    let since = a.since.map(|d| SystemTime::now() - d);
    let app = a.app.as_deref();
    for e in activity::entries(&dir, since, app) {
        if !print(&out, &e) {
            return 0;
        }
    }
    if !a.follow {
        return 0;
    }
    let since = since.map(activity::rfc3339);
    let app = app.map(str::to_lowercase);
    let mut tail = activity::Tail::from_end(&dir);
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        for e in tail.poll() {
            if activity::keep(&e, since.as_deref(), app.as_deref()) && !print(&out, &e) {
                return 0;
            }
        }
    }
}
