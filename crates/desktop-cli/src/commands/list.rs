//! `list`: windows (default) or applications.

use super::{desk, Rendered};
use crate::cli::{Global, ListArgs};
use crate::platform::Platform;
use desktop_core::{AppList, WindowList};
use desktop_core::{Desktop, Result, Target};
use serde::Serialize;
use std::fmt::Write as _;

/// `data` of `list`: windows, or apps with `--apps`.
#[derive(Serialize)]
#[serde(untagged)]
pub enum ListData {
    Windows(WindowList),
    Apps(AppList),
}

/// `csv`: the text form is the CSV table.
pub async fn run(
    lent: Option<&Platform>,
    g: &Global,
    args: ListArgs,
    csv: bool,
) -> Result<Rendered<ListData>> {
    let d = desk(lent, g).await?;
    if args.apps {
        let mut list = d.apps().await?;
        if let Some(name) = &args.app {
            list.apps
                .retain(|a| desktop_core::model::name_matches(&a.name, name));
        }
        if let Some(pid) = args.pid {
            list.apps.retain(|a| a.pid == pid);
        }
        if csv {
            return Ok(Rendered {
                text: Some(desktop_core::table::apps_csv(&list)),
                data: ListData::Apps(list),
            });
        }
        let mut text = String::new();
        for a in &list.apps {
            let _ = writeln!(text, "{:<8} {:<32} {} window(s)", a.pid, a.name, a.windows);
        }
        for u in &list.unresponsive {
            let _ = writeln!(
                text,
                "{:<8} {:<32} not answering",
                u.pid,
                u.app.as_deref().unwrap_or("?")
            );
        }
        return Ok(Rendered {
            data: ListData::Apps(list),
            text: Some(text),
        });
    }
    let target = Target {
        app: args.app,
        pid: args.pid,
        ..Target::default()
    };
    let mut list = d.windows(&target).await?;
    list.place_on(&d.displays());
    let text = if csv {
        desktop_core::table::windows_csv(&list)
    } else {
        windows_text(&list)
    };
    Ok(Rendered {
        data: ListData::Windows(list),
        text: Some(text),
    })
}

/// The window list for people (and for the MCP tool's text): one line per window, then the
/// apps that did not answer.
pub(crate) fn windows_text(list: &WindowList) -> String {
    let mut text = String::new();
    for w in &list.windows {
        let b = w
            .bounds
            .map(|b| format!("{},{} {}x{}", b.x, b.y, b.w, b.h))
            .unwrap_or_default();
        let id =
            w.id.map(|i| format!("0x{i:x}"))
                .unwrap_or_else(|| "-".into());
        let state = serde_json::to_value(w.state)
            .ok()
            .and_then(|v| v.as_str().map(|s| format!(" {s}")))
            .filter(|_| !w.state.is_normal())
            .unwrap_or_default();
        let flags = format!(
            "{}{state}{}",
            if w.focused { " focused" } else { "" },
            if w.a11y { "" } else { " (no a11y)" }
        );
        let _ = writeln!(
            text,
            "{id:<11} {:<7} {:<24} {:<20} {}{flags}",
            w.pid, w.app, b, w.title
        );
    }
    for u in &list.unresponsive {
        let _ = writeln!(
            text,
            "-           {:<7} {:<24} not answering",
            u.pid,
            u.app.as_deref().unwrap_or("?")
        );
    }
    text
}

/// `data` of `displays`: `{"displays":[{"name":..,"bounds":[x,y,w,h],"scale":..,
/// "primary":..,"refresh":..}]}`, the primary one first.
#[derive(Serialize)]
pub struct DisplayList {
    pub displays: Vec<desktop_core::backend::Display>,
}

pub fn displays<D: Desktop>(d: &D) -> DisplayList {
    DisplayList {
        displays: d.displays(),
    }
}
