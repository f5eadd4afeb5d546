//! `read`: one window's element tree, filtered, in compact JSON or as indented text.

use super::connect;
use crate::cli::{Format, Global, ReadArgs};
use crate::output::{notice, Out};
use desktop_core::{render, Desktop, Error};

pub async fn run(g: &Global, out: Out, args: ReadArgs) -> i32 {
    let filters = match args.filters() {
        Ok(f) => f,
        Err(e) => return out.err("read", &e),
    };
    let t = std::time::Instant::now();
    let result = async {
        let d = connect(g).await?;
        let mut data = d.read(&args.target.target(), &filters).await?;
        data.flat = args.compact;
        remember(&d, &data);
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
pub(crate) fn remember<D: desktop_core::Desktop>(d: &D, data: &desktop_core::ReadData) {
    let path = d.refs_path();
    if let Err(e) = desktop_core::refs::RefMap::remember(&path, data) {
        notice(&format!(
            "cannot save element ids to {}: {e}",
            path.display()
        ));
    }
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
    if let Some(reason) = &data.incomplete {
        s.push_str(&format!(
            "... the window was not read whole ({reason}); narrow with --depth, --bbox or --text\n"
        ));
    }
    s
}

/// The text tree, cut to about `max_tokens` (four characters a token) by showing fewer
/// elements; the cut is marked in the text and in `shown`.
#[cfg_attr(not(any(feature = "mcp", feature = "agent")), allow(dead_code))]
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
