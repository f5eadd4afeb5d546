//! `activity`: the activity log (see `desktop_core::activity`) printed as JSON lines, or one
//! readable line each; `--follow` keeps printing what is appended, across rotations.

use crate::cli::{ActivityArgs, Format};
use crate::output::Out;
use desktop_core::activity::{self, Entry};
use desktop_core::{Error, ErrorCode};
use std::io::{Read, Seek, SeekFrom, Write};
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
    let path = activity::file(&dir);
    // From the end of what was printed; a shorter file means it was rotated: from its start.
    let mut at = std::fs::metadata(&path).map_or(0, |m| m.len());
    let mut partial = String::new();
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let len = std::fs::metadata(&path).map_or(0, |m| m.len());
        if len < at {
            at = 0;
            partial.clear();
        }
        if len == at {
            continue;
        }
        let Ok(mut f) = std::fs::File::open(&path) else {
            continue;
        };
        let mut text = String::new();
        if f.seek(SeekFrom::Start(at)).is_err() || f.read_to_string(&mut text).is_err() {
            continue;
        }
        at += text.len() as u64;
        partial.push_str(&text);
        // Whole lines only: a writer may be half-way through one.
        let Some(end) = partial.rfind('\n') else {
            continue;
        };
        let done: String = partial.drain(..=end).collect();
        for e in activity::lines(&done) {
            if activity::keep(&e, since.as_deref(), app.as_deref()) && !print(&out, &e) {
                return 0;
            }
        }
    }
}
