//! `read`: one window's element tree, filtered, in compact JSON or as indented text.

use super::desk;
use crate::cli::{Format, Global, ReadArgs};
use crate::output::{notice, Out};
use desktop_core::{render, Desktop, Error};

/// The read, on `lent` when given (the keeper's desktop), else on a connection of its own.
pub async fn run_on(
    lent: Option<&crate::platform::Platform>,
    g: &Global,
    out: Out,
    args: ReadArgs,
) -> i32 {
    let filters = match args.filters() {
        Ok(f) => f,
        Err(e) => return out.err("read", &e),
    };
    let t = std::time::Instant::now();
    let result = async {
        let d = desk(lent, g).await?;
        let target = read_target(&*d, args.target.target(), &filters)?;
        let mut data = d.read(&target, &filters).await?;
        data.flat = args.compact;
        data.bounds = !args.no_bounds;
        if let Some(max) = args.max_tokens {
            fit(&mut data, max as usize, out);
        }
        Ok::<_, Error>(data)
    }
    .await;
    let done = t.elapsed();
    let code = match &result {
        Ok(data) if out.format == Format::Text => out.text(&text(data)),
        Ok(data) if out.format == Format::Csv => out.text(&desktop_core::table::read_csv(data)),
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

/// Fits the read into `max` tokens as it will be printed (`budget::fit`).
fn fit(data: &mut desktop_core::ReadData, max: usize, out: Out) {
    use desktop_core::budget::{self, Form};
    match out.format {
        Format::Text => budget::fit(data, max, Form::Text, &text),
        Format::Csv => budget::fit(data, max, Form::Text, &desktop_core::table::read_csv),
        _ => budget::fit(data, max, Form::Json, &|d| out.ok_string("read", d)),
    };
}

/// The window to read: for a part (`--id`), the one whose reads gave that id, among those
/// the target names.
pub(crate) fn read_target<D: Desktop>(
    d: &D,
    target: desktop_core::Target,
    filters: &desktop_core::Filters,
) -> Result<desktop_core::Target, Error> {
    match filters.under {
        Some(id) => desktop_core::refs::RefMap::target_of(&d.refs_path(), id, &target),
        None => Ok(target),
    }
}

pub(crate) fn text(data: &desktop_core::ReadData) -> String {
    render::read_text(data, data.bounds)
}
