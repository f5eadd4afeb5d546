//! The page of a browser window: a read that leaves out the browser's own toolbar and tabs
//! (`read --page`, the default of the MCP and agent faces) starts at the page's document.

use crate::node::{Node, States};
use crate::role::Role;

/// The page a browser window shows, as the only top node: of the outermost documents, the
/// one showing, holding the focus, with a name (Chromium keeps empty documents beside the
/// page), in that order of preference. The nodes come back unchanged (`Err`) when the
/// window has no document.
pub fn only(nodes: Vec<Node>) -> Result<Vec<Node>, Vec<Node>> {
    fn documents(nodes: &[Node], path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        for (i, n) in nodes.iter().enumerate() {
            path.push(i);
            if n.role == Role::Web {
                out.push(path.clone());
            } else {
                documents(&n.children, path, out);
            }
            path.pop();
        }
    }
    fn at<'a>(nodes: &'a [Node], path: &[usize]) -> &'a Node {
        let n = &nodes[path[0]];
        if path.len() == 1 {
            n
        } else {
            at(&n.children, &path[1..])
        }
    }
    fn has_focus(n: &Node) -> bool {
        n.states.contains(States::FOCUSED) || n.children.iter().any(has_focus)
    }
    let mut found = Vec::new();
    documents(&nodes, &mut Vec::new(), &mut found);
    // The first of the best: false sorts before true.
    let best = found.iter().min_by_key(|path| {
        let d = at(&nodes, path);
        (
            !d.states.contains(States::SHOWING),
            !has_focus(d),
            d.name.is_empty(),
        )
    });
    let Some(path) = best.cloned() else {
        return Err(nodes);
    };
    let mut nodes = nodes;
    let mut list = &mut nodes;
    for &i in &path[..path.len() - 1] {
        list = &mut list[i].children;
    }
    Ok(vec![list.swap_remove(path[path.len() - 1])])
}
