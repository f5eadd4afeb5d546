//! Fitting a read into a token budget (`read --max-tokens`, MCP's `read`, the agent's
//! observations). What an agent acts on goes in first (controls, headings, status lines,
//! alerts), then text, then the rest; within each, the first children of every container
//! before the later ones, so a list of 500 links does not crowd out the form beside it. An
//! element comes in with the containers above it. A shown container holding elements left
//! out says how many (`cut`), so `read --id` opens it with the same ids; what lies outside
//! any shown container is counted in the read's own `cut`. The answer, rendered as it will
//! be printed, is measured with [`tokens::estimate`] and kept to [`FILL`] of the budget.

use crate::model::ReadData;
use crate::node::Node;
use crate::render::Compact;
use crate::role::Role;
use crate::tokens;

/// The share of the budget the estimate may fill: the estimator under-counts o200k by at
/// most about 6 %, so an answer filled to here stays within the budget counted exactly.
pub const FILL: f64 = 0.92;

/// How the answer will be printed (each element's own cost is measured in that form).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    /// Compact JSON elements (the envelope, MCP's structured content).
    Json,
    /// The text tree, one element a line (and CSV rows, about as long).
    Text,
}

/// One element of the tree, flattened.
struct Slot {
    parent: Option<usize>,
    /// 0: acted on or a landmark; 1: says something; 2: the rest.
    class: u8,
    /// Its place among its parent's children.
    rank: u32,
    /// Estimated tokens of its own line (or object), with a `cut` mark.
    cost: f64,
    /// It and everything below it.
    size: u32,
}

/// Fits `data` into `max_tokens` as `render` prints it (elements left out, containers
/// marked `cut`) and answers the rendering. A read that fits is left as it is.
pub fn fit(
    data: &mut ReadData,
    max_tokens: usize,
    form: Form,
    render: &dyn Fn(&ReadData) -> String,
) -> String {
    let target = (max_tokens as f64 * FILL).max(1.0);
    let whole = render(data);
    let spent = tokens::estimate(&whole);
    if (spent as f64) <= target {
        data.timing.push(("tokens", spent as f64));
        return whole;
    }
    let slots = flatten(&data.elements, form, data.bounds);
    let mut frame = data.clone_without_elements();
    frame.cut = slots.len();
    let fixed = tokens::estimate(&render(&frame)) as f64;
    let order = priority(&slots);
    // The costs are each element's alone: the whole is rendered and measured, and the room
    // for elements corrected by how far the sum of costs was from it, a few times.
    let room_at_most = (target - fixed).max(0.0);
    let mut room = room_at_most;
    let mut best: Option<(Vec<bool>, String)> = None;
    for _ in 0..4 {
        let chosen = choose(&slots, &order, room);
        let text = render(&build(data, &slots, &chosen));
        let got = tokens::estimate(&text) as f64;
        if got <= target && best.as_ref().is_none_or(|(b, _)| count(b) < count(&chosen)) {
            best = Some((chosen.clone(), text));
        }
        let predicted: f64 = slots
            .iter()
            .zip(&chosen)
            .filter(|(_, c)| **c)
            .map(|(s, _)| s.cost)
            .sum();
        let close = got <= target && target - got < target * 0.03;
        if close || predicted <= 0.0 {
            break;
        }
        let ratio = ((got - fixed).max(1.0)) / predicted;
        room = room_at_most / ratio;
    }
    let (chosen, text) = match best {
        Some(b) => b,
        None => shrink(data, &slots, &order, target, render),
    };
    *data = build(data, &slots, &chosen);
    // The estimate, for `--timing` (and the tests, which count the text exactly).
    data.timing.push(("tokens", tokens::estimate(&text) as f64));
    text
}

fn count(chosen: &[bool]) -> usize {
    chosen.iter().filter(|c| **c).count()
}

/// Fewer elements, dropped from the last chosen, until the answer fits (or none is left).
fn shrink(
    data: &ReadData,
    slots: &[Slot],
    order: &[usize],
    target: f64,
    render: &dyn Fn(&ReadData) -> String,
) -> (Vec<bool>, String) {
    let mut keep = order.len();
    loop {
        let chosen = choose_first(slots, order, keep);
        let text = render(&build(data, slots, &chosen));
        if (tokens::estimate(&text) as f64) <= target || keep == 0 {
            return (chosen, text);
        }
        keep = keep * 3 / 4;
    }
}

/// The first `n` elements in priority order (with the containers above them).
fn choose_first(slots: &[Slot], order: &[usize], n: usize) -> Vec<bool> {
    let mut chosen = vec![false; slots.len()];
    for &i in order.iter().take(n) {
        let mut at = Some(i);
        while let Some(k) = at.filter(|k| !chosen[*k]) {
            chosen[k] = true;
            at = slots[k].parent;
        }
    }
    chosen
}

/// Elements in priority order, each taken where it fits with the containers above it not
/// yet taken, within `room` tokens.
fn choose(slots: &[Slot], order: &[usize], room: f64) -> Vec<bool> {
    let mut chosen = vec![false; slots.len()];
    let mut spent = 0.0;
    let mut chain = Vec::new();
    for &i in order {
        if chosen[i] {
            continue;
        }
        chain.clear();
        let mut cost = 0.0;
        let mut at = Some(i);
        while let Some(k) = at.filter(|k| !chosen[*k]) {
            chain.push(k);
            cost += slots[k].cost;
            at = slots[k].parent;
        }
        if spent + cost <= room {
            spent += cost;
            for &k in &chain {
                chosen[k] = true;
            }
        }
    }
    chosen
}

/// Class first, then place among siblings, then reading order.
fn priority(slots: &[Slot]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..slots.len()).collect();
    order.sort_by_key(|&i| (slots[i].class, slots[i].rank, i));
    order
}

fn flatten(nodes: &[Node], form: Form, bounds: bool) -> Vec<Slot> {
    fn go(
        nodes: &[Node],
        parent: Option<usize>,
        form: Form,
        bounds: bool,
        out: &mut Vec<Slot>,
    ) -> u32 {
        let mut total = 0;
        for (rank, n) in nodes.iter().enumerate() {
            let at = out.len();
            out.push(Slot {
                parent,
                class: class(n),
                rank: u32::try_from(rank).unwrap_or(u32::MAX),
                cost: own_cost(n, form, bounds),
                size: 1,
            });
            let below = go(&n.children, Some(at), form, bounds, out);
            out[at].size += below;
            total += out[at].size;
        }
        total
    }
    let mut out = Vec::new();
    go(nodes, None, form, bounds, &mut out);
    out
}

fn class(n: &Node) -> u8 {
    let landmark = matches!(n.role, Role::Heading | Role::Status | Role::Alert);
    if n.is_interactive() || landmark {
        0
    } else if !n.name.is_empty() || !n.description.is_empty() || n.value.is_some() {
        1
    } else {
        2
    }
}

/// Tokens of an element's own line or object, with room for a `cut` mark where it holds
/// something (a mark that does not show leaves that much over).
fn own_cost(n: &Node, form: Form, bounds: bool) -> f64 {
    let mut alone = n.without_children();
    if !bounds {
        alone.bounds = None;
    }
    let text = match form {
        Form::Json => serde_json::to_string(&Compact::flat(&alone)).unwrap_or_default() + ",",
        Form::Text => crate::render::text_tree_with(std::slice::from_ref(&alone), bounds),
    };
    let mark = if n.children.is_empty() { 0.0 } else { 4.0 };
    tokens::estimate(&text) as f64 + mark
}

/// The read with only the chosen elements, each shown container counting what it holds
/// that was left out.
fn build(data: &ReadData, slots: &[Slot], chosen: &[bool]) -> ReadData {
    fn go(
        nodes: &[Node],
        slots: &[Slot],
        chosen: &[bool],
        at: &mut usize,
        left_out: &mut usize,
        shown: &mut usize,
    ) -> Vec<Node> {
        let mut out = Vec::new();
        for n in nodes {
            let i = *at;
            *at += slots[i].size as usize;
            if !chosen[i] {
                *left_out += slots[i].size as usize;
                continue;
            }
            *shown += 1;
            let mut inner = 0;
            let mut next = i + 1;
            let children = go(&n.children, slots, chosen, &mut next, &mut inner, shown);
            let mut kept = n.without_children();
            kept.children = children;
            kept.cut = u32::try_from(inner).unwrap_or(u32::MAX);
            out.push(kept);
        }
        out
    }
    let mut fitted = data.clone_without_elements();
    let (mut at, mut top, mut shown) = (0, 0, 0);
    fitted.elements = go(&data.elements, slots, chosen, &mut at, &mut top, &mut shown);
    let held: usize = {
        let mut sum = 0usize;
        for n in &fitted.elements {
            n.walk(&mut |x| sum += x.cut as usize);
        }
        sum
    };
    fitted.cut = top + held;
    fitted.shown = shown;
    fitted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::{Rect, States};

    fn el(id: u32, role: Role, name: &str, children: Vec<Node>) -> Node {
        Node {
            id,
            role,
            name: name.into(),
            bounds: Some(Rect::new(10, 20 + id as i32, 80, 20)),
            states: States::SHOWING | States::VISIBLE,
            children,
            ..Node::default()
        }
    }

    /// A form of five controls beside a list of 400 links, and a long article.
    fn page() -> ReadData {
        let form = el(
            1,
            Role::Group,
            "Sign in",
            vec![
                el(2, Role::Input, "User", vec![]),
                el(3, Role::Password, "Password", vec![]),
                el(4, Role::CheckBox, "Remember me", vec![]),
                el(5, Role::Button, "Sign in", vec![]),
                el(6, Role::Link, "Forgot?", vec![]),
            ],
        );
        let links = (0..400)
            .map(|i| el(100 + i, Role::Link, &format!("Result number {i}"), vec![]))
            .collect();
        let list = el(7, Role::List, "Results", links);
        let article = el(
            8,
            Role::Group,
            "Article",
            (0..50)
                .map(|i| {
                    el(
                        1000 + i,
                        Role::Text,
                        &format!("Paragraph {i} says a few words about it"),
                        vec![],
                    )
                })
                .collect(),
        );
        let mut d = ReadData::fixture("demo", "Page", 9, vec![list, form, article]);
        (d.total, d.shown) = (458, 458);
        d
    }

    fn ids(d: &ReadData) -> Vec<u32> {
        let mut out = Vec::new();
        for n in &d.elements {
            n.walk(&mut |x| out.push(x.id));
        }
        out
    }

    #[test]
    fn a_read_that_fits_is_left_alone() {
        let mut d = page();
        let text = fit(&mut d, 100_000, Form::Text, &|d| {
            crate::render::read_text(d, true)
        });
        assert_eq!(d.cut, 0);
        assert_eq!(ids(&d).len(), 458);
        assert!(!text.contains("cut:"));
    }

    #[test]
    fn controls_first_and_what_is_left_out_is_counted_where_it_lies() {
        for (form, budget) in [(Form::Text, 600), (Form::Json, 900), (Form::Text, 150)] {
            let mut d = page();
            let render = |d: &ReadData| match form {
                Form::Text => crate::render::read_text(d, true),
                Form::Json => serde_json::to_string(d).unwrap(),
            };
            let text = fit(&mut d, budget, form, &render);
            let spent = tokens::estimate(&text);
            assert!(spent as f64 <= budget as f64 * FILL, "{spent} of {budget}");
            assert_eq!(text, render(&d), "the answer is the fitted read");
            let shown = ids(&d);
            assert_eq!(shown.len(), d.shown);
            // Every element is shown or counted once.
            let held: u32 = {
                let mut sum = 0;
                for n in &d.elements {
                    n.walk(&mut |x| sum += x.cut);
                }
                sum
            };
            assert!(d.cut >= held as usize);
            assert_eq!(d.shown + d.cut, 458, "{form:?} {budget}");
            if budget >= 600 {
                // The whole form, and the list's first links before its later ones.
                for id in 2..=6 {
                    assert!(shown.contains(&id), "control {id} kept ({form:?})");
                }
                let list = d.elements.iter().find(|n| n.id == 7).unwrap();
                assert!(list.cut > 0 && list.children[0].id == 100);
                assert!(!shown.contains(&499));
            }
            // Ids are the read's own.
            assert!(shown.windows(2).all(|w| w[0] != w[1]));
        }
    }

    #[test]
    fn the_tiniest_budget_keeps_the_window_line() {
        let mut d = page();
        let text = fit(&mut d, 20, Form::Text, &|d| {
            crate::render::read_text(d, true)
        });
        assert!(text.starts_with("demo \"Page\""));
        assert_eq!(d.shown + d.cut, 458);
    }
}
