//! `desktop-cli ask`: one question to a model about a window (the `desktop-agent` crate's
//! `ask`), printed as an envelope; a "no" (a condition that does not hold, nothing found)
//! exits with status 1 so scripts can branch on it.

use crate::agent::{choices, look, services};
use crate::cli::{AskArgs, Global};
use crate::output::Out;
use desktop_agent::{AskRequest, Question};
use std::time::Duration;

fn request(g: &Global, a: AskArgs) -> AskRequest {
    let question = match (a.locate, a.check, a.extract) {
        (Some(d), _, _) => Question::Locate(d),
        (_, Some(c), _) => Question::Check(c),
        (_, _, Some(q)) => Question::Extract(q),
        _ => Question::Describe,
    };
    AskRequest {
        question,
        start: a.target.target(),
        choices: choices(a.model),
        look: look(&a.look),
        transcript: a.transcript,
        secrets: a.secrets,
        secret_fields: Vec::new(),
        call_timeout: Duration::from_millis(g.call_timeout.max(1)),
    }
}

pub async fn command(g: &Global, out: Out, a: AskArgs) -> i32 {
    // The loop reads the same windows turn after turn: keep them warm.
    let connect = crate::commands::connect_for(g, true);
    match desktop_agent::ask(request(g, a), connect, services()).await {
        Ok(answer) => {
            let no = answer.is_no();
            let code = out.ok("ask", answer);
            if code == 0 && no {
                1
            } else {
                code
            }
        }
        Err(e) => out.err("ask", &e),
    }
}
