//! `read`: one window's element tree, filtered, in compact JSON or as indented text.

use super::connect;
use crate::cli::{Format, Global, ReadArgs, TargetArgs};
use crate::output::{notice, Out};
use desktop_core::role::SHORT_NAMES;
use desktop_core::{render, Desktop, Error, Filters, Rect, Result, Role, Target};

pub async fn run(g: &Global, out: Out, args: ReadArgs) -> i32 {
    let filters = match filters(&args) {
        Ok(f) => f,
        Err(e) => return out.err("read", &e),
    };
    let t = std::time::Instant::now();
    let result = async {
        let d = connect(g).await?;
        let mut data = d.read(&target(&args.target), &filters).await?;
        data.flat = args.compact;
        remember(&data);
        Ok::<_, Error>(data)
    }
    .await;
    let done = t.elapsed();
    let code = match &result {
        Ok(data) if out.format == Format::Text => out.text(&text(data)),
        Ok(data) => out.ok("read", data),
        Err(e) => out.err("read", e),
    };
    let output_ms = (t.elapsed() - done).as_secs_f64() * 1000.0;
    if g.timing {
        if let Ok(data) = &result {
            let parts: Vec<String> = data
                .timing
                .iter()
                .map(|(k, v)| format!("{k}={v:.1}"))
                .collect();
            notice(&format!(
                "timing: {} output={output_ms:.1} total={:.1}ms",
                parts.join(" "),
                t.elapsed().as_secs_f64() * 1000.0
            ));
        }
    }
    code
}

/// Records the ids of this read for later actions; a failure costs only the ids.
pub(crate) fn remember(data: &desktop_core::ReadData) {
    let path = desktop_linux::sandbox::refs_path();
    let mut map = desktop_core::refs::RefMap::load(&path);
    map.record(data);
    if let Err(e) = map.save(&path) {
        notice(&format!(
            "cannot save element ids to {}: {e}",
            path.display()
        ));
    }
}

pub fn target(t: &TargetArgs) -> Target {
    Target {
        app: t.app.clone(),
        window: t.window.clone(),
        window_id: t.window_id,
        pid: t.pid,
    }
}

/// Validates and converts the filter options; malformed ones are INVALID_ARGS.
pub fn filters(args: &ReadArgs) -> Result<Filters> {
    let roles = match &args.roles {
        None => None,
        Some(list) => Some(parse_roles(list)?),
    };
    let bbox = match &args.bbox {
        None => None,
        Some(s) => Some(Rect::parse(s).ok_or_else(|| {
            Error::invalid_args(format!(
                "--bbox `{s}` is not x,y,w,h with a positive width and height"
            ))
            .suggest("Example: --bbox 0,0,640,400")
        })?),
    };
    if args.max_elements == Some(0) {
        return Err(
            Error::invalid_args("--max-elements must be at least 1").suggest(
                "Leave it out for no limit, or give a positive number such as --max-elements 200",
            ),
        );
    }
    if args.text.as_deref() == Some("") {
        return Err(Error::invalid_args("--text must not be empty")
            .suggest("Give the text to look for, e.g. --text Save"));
    }
    Ok(Filters {
        depth: args.depth,
        roles,
        visible_only: args.visible_only,
        bbox,
        text: args.text.clone(),
        interactive: args.interactive,
        max_elements: args.max_elements,
        full: args.full,
        actions: args.actions,
    })
}

pub fn parse_roles(list: &str) -> Result<Vec<Role>> {
    let mut roles = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match Role::parse(name) {
            Some(Role::Other(_)) | None => {
                return Err(
                    Error::invalid_args(format!("unknown role `{name}` in --roles"))
                        .suggest(format!("Known roles: {}", SHORT_NAMES.join(","))),
                )
            }
            Some(r) => roles.push(r),
        }
    }
    if roles.is_empty() {
        return Err(
            Error::invalid_args("--roles is empty").suggest("Example: --roles btn,input,lnk")
        );
    }
    Ok(roles)
}

pub(crate) fn text(data: &desktop_core::ReadData) -> String {
    text_with(data, true)
}

/// The text form, with or without each element's screen rectangle.
pub(crate) fn text_with(data: &desktop_core::ReadData, bounds: bool) -> String {
    let w = &data.window;
    let mut s = format!("{} \"{}\"", w.app, w.title);
    if let Some(id) = w.id {
        s.push_str(&format!(" id 0x{id:x}"));
    }
    if w.pid != 0 {
        s.push_str(&format!(" pid {}", w.pid));
    }
    s.push('\n');
    s.push_str(&render::text_tree_with(&data.elements, bounds));
    if data.shown < data.total {
        s.push_str(&format!(
            "... {} more elements not shown (--max-elements {}); narrow with --roles, --bbox, --text or -i\n",
            data.total - data.shown,
            data.shown
        ));
    }
    s
}

/// The text tree, cut to about `max_tokens` (four characters a token) by showing fewer
/// elements; the cut is marked in the text and in `shown`.
pub(crate) fn capped_text(
    data: &mut desktop_core::ReadData,
    max_tokens: usize,
    bounds: bool,
) -> String {
    let mut out = text_with(data, bounds);
    while out.len() / 4 > max_tokens && data.shown > 1 {
        let keep = (data.shown * max_tokens * 4 / out.len().max(1)).clamp(1, data.shown - 1);
        desktop_core::filter::number_and_cap(&mut data.elements, Some(keep));
        data.shown = keep;
        out = text_with(data, bounds);
    }
    out
}
