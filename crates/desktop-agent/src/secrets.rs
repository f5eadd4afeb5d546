//! Secrets the model never sees: `--secret NAME=env:VAR|file:PATH` values the model knows by
//! name only. It types one with a `{{secret:NAME}}` placeholder in `type_text` or
//! `set_value`; the placeholder is replaced just before the step runs, and only into a
//! password field or a field the user allowed with `--secret-field NAME=FIELD`, never into
//! a terminal. Every value is blanked wherever text leaves the process (screens sent to the
//! model, tool results, the transcript, the envelope, stderr) and fields showing one are
//! painted over in screenshots.

use super::safety;
use super::screen::Screen;
use super::tools::Act;
use desktop_core::{Error, Result};

const OPEN: &str = "{{secret:";
const CLOSE: &str = "}}";

struct Secret {
    name: String,
    value: String,
    /// Names (or parts of names) of fields that are not password fields but may take it.
    fields: Vec<String>,
}

/// The run's secrets.
#[derive(Default)]
pub struct Secrets(Vec<Secret>);

fn bad(msg: String) -> Error {
    Error::invalid_args(msg).suggest(
        "Example: --secret site_password=env:SITE_PASSWORD (or file:/path/to/file); the model \
         types it as {{secret:site_password}}",
    )
}

fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The value a source names: an environment variable or a file's first line.
fn load(name: &str, source: &str) -> Result<String> {
    let value = if let Some(var) = source.strip_prefix("env:") {
        std::env::var(var).map_err(|_| {
            bad(format!(
                "--secret {name}: the environment variable {var} is not set"
            ))
        })?
    } else if let Some(path) = source.strip_prefix("file:") {
        let text = std::fs::read_to_string(path)
            .map_err(|e| bad(format!("--secret {name}: cannot read {path}: {e}")))?;
        text.lines().next().unwrap_or("").to_string()
    } else {
        // A value on the command line would sit in the shell history and `ps`.
        return Err(bad(format!(
            "--secret {name}: say where the value is, env:VAR or file:PATH"
        )));
    };
    if value.is_empty() {
        return Err(bad(format!("--secret {name} is empty")));
    }
    Ok(value)
}

impl Secrets {
    /// From `--secret NAME=SOURCE` and `--secret-field NAME=FIELD` options.
    pub fn parse(specs: &[String], fields: &[String]) -> Result<Secrets> {
        let mut all: Vec<Secret> = Vec::new();
        for spec in specs {
            let (name, source) = spec.split_once('=').unwrap_or((spec, ""));
            let name = name.trim();
            if !valid_name(name) {
                return Err(bad(format!(
                    "--secret `{name}`: a name is letters, digits, _ and -"
                )));
            }
            if all.iter().any(|s| s.name == name) {
                return Err(bad(format!("--secret {name} is given twice")));
            }
            let value = load(name, source.trim())?;
            all.push(Secret {
                name: name.to_string(),
                value,
                fields: Vec::new(),
            });
        }
        for f in fields {
            let (name, field) = f.split_once('=').unwrap_or((f, ""));
            let field = field.trim();
            let Some(s) = all.iter_mut().find(|s| s.name == name.trim()) else {
                return Err(bad(format!("--secret-field {f}: no --secret named {name}")));
            };
            if field.is_empty() {
                return Err(bad(format!(
                    "--secret-field {f}: name the field, NAME=FIELD"
                )));
            }
            s.fields.push(field.to_lowercase());
        }
        Ok(Secrets(all))
    }

    /// The values, for the transcript's redaction.
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|s| s.value.as_str())
    }

    /// What the model is told: the names and where each may go, never a value.
    pub fn brief(&self) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        let lines: Vec<String> = self
            .0
            .iter()
            .map(|s| {
                let mut where_ = "password fields".to_string();
                for f in &s.fields {
                    where_.push_str(&format!(", fields named like \"{f}\""));
                }
                format!("- {OPEN}{}{CLOSE} ({where_})", s.name)
            })
            .collect();
        Some(format!(
            "Secrets you can type without seeing them: put the placeholder in type_text's text, \
             with the id of the field. You will never see their values.\n{}\n\n",
            lines.join("\n")
        ))
    }

    /// Blanks every value in text, as typed and as written inside JSON strings (longest
    /// first, so one cannot hide part of another).
    pub fn hide(&self, text: &str) -> String {
        super::transcript::blank(text, self.values())
    }

    /// Whether a field's text shows a value (it is painted over in screenshots).
    pub fn shown_in(&self, text: &str) -> bool {
        self.0.iter().any(|s| text.contains(&s.value))
    }

    /// The step with its placeholders replaced by values, `None` when it has none, or why
    /// it may not run: an unknown name, no field id, a field neither secure nor allowed.
    pub fn fill(&self, act: &Act, screen: &Screen) -> std::result::Result<Option<Act>, String> {
        let (text, id) = match act {
            Act::TypeText { text, id } => (text, *id),
            Act::SetValue { value, id } => (value, Some(*id)),
            _ => return Ok(None),
        };
        if !text.contains(OPEN) {
            return Ok(None);
        }
        let Some(id) = id else {
            return Err("a secret is typed into a field named by its id: give type_text the id of the password field".into());
        };
        let Some(field) = screen.element(id) else {
            return Err(format!("no element {id} on the latest screen"));
        };
        let role = field.role.short();
        if safety::is_terminal(screen.app(), Some(role)) {
            return Err("secrets are never typed into a terminal".into());
        }
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find(OPEN) {
            out.push_str(&rest[..at]);
            let after = &rest[at + OPEN.len()..];
            let Some(end) = after.find(CLOSE) else {
                return Err(format!("unclosed placeholder: write {OPEN}NAME{CLOSE}"));
            };
            let name = &after[..end];
            let Some(s) = self.0.iter().find(|s| s.name == name) else {
                let known: Vec<&str> = self.0.iter().map(|s| s.name.as_str()).collect();
                return Err(format!(
                    "no secret named {name:?}; the ones you can type: {}",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ));
            };
            let label = format!("{} {}", field.name, field.hint).to_lowercase();
            let allowed = field.is_secure() || s.fields.iter().any(|f| label.contains(f.as_str()));
            if !allowed {
                return Err(format!(
                    "secret {name:?} may only go into a password field{}; element {id} ({role} {:?}) is not one",
                    if s.fields.is_empty() { String::new() } else { format!(" or a field named like {:?}", s.fields.join("\", \"")) },
                    field.name
                ));
            }
            out.push_str(&s.value);
            rest = &after[end + CLOSE.len()..];
        }
        out.push_str(rest);
        Ok(Some(match act {
            Act::TypeText { .. } => Act::TypeText {
                text: out,
                id: Some(id),
            },
            _ => Act::SetValue { id, value: out },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> Secrets {
        std::env::set_var("DC_TEST_SECRET_PW", "pa55-Word!");
        let file = std::env::temp_dir().join(format!("dc-secret-{}", std::process::id()));
        std::fs::write(&file, "me@example.org\nignored\n").unwrap();
        let s = Secrets::parse(
            &[
                "pw=env:DC_TEST_SECRET_PW".into(),
                format!("user=file:{}", file.display()),
            ],
            &["user=Email".into()],
        )
        .unwrap();
        let _ = std::fs::remove_file(file);
        s
    }

    #[test]
    fn options_are_checked() {
        let s = secrets();
        assert_eq!(
            s.values().collect::<Vec<_>>(),
            ["pa55-Word!", "me@example.org"]
        );
        let brief = s.brief().unwrap();
        assert!(brief.contains("{{secret:pw}} (password fields)"), "{brief}");
        assert!(!brief.contains("pa55"), "{brief}");
        for bad in [
            &["pw=pa55-Word!"][..],
            &["pw=env:DC_TEST_SECRET_UNSET"],
            &["no spaces=env:DC_TEST_SECRET_PW"],
            &["pw=env:DC_TEST_SECRET_PW", "pw=env:DC_TEST_SECRET_PW"],
            &["pw=file:/nonexistent/secret"],
        ] {
            let specs: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
            assert!(Secrets::parse(&specs, &[]).is_err(), "{bad:?}");
        }
        let pw = ["pw=env:DC_TEST_SECRET_PW".to_string()];
        assert!(Secrets::parse(&pw, &["other=Email".into()]).is_err());
        assert!(Secrets::parse(&pw, &["pw=".into()]).is_err());
        assert_eq!(
            s.hide("user me@example.org pw pa55-Word!"),
            "user [redacted] pw [redacted]"
        );
    }

    #[test]
    fn placeholders_fill_only_allowed_fields() {
        use desktop_core::fake::{el, refs_file, FakeDesktop};
        use desktop_core::{Filters, Role};
        let fields = vec![
            el(Role::Password, "Password", (10, 10, 200, 20), vec![]),
            el(Role::Input, "Email address", (10, 40, 200, 20), vec![]),
            el(Role::Input, "Comment", (10, 70, 200, 20), vec![]),
        ];
        let d = FakeDesktop::new("demo", "Sign in", fields, refs_file("agent-secrets"));
        let data = desktop_core::fake::block_on(d.read_and_record(&Filters::default())).unwrap();
        let id = |name: &str| data.elements.iter().find(|n| n.name == name).unwrap().id;
        let (pw, email, comment) = (id("Password"), id("Email address"), id("Comment"));
        let screen = Screen {
            data: Some(data.clone()),
            text: String::new(),
            frame: None,
            image: None,
        };
        let s = secrets();
        let typed = |text: &str, id: Option<u32>| {
            s.fill(
                &Act::TypeText {
                    text: text.into(),
                    id,
                },
                &screen,
            )
        };
        assert_eq!(
            typed("{{secret:pw}}", Some(pw)),
            Ok(Some(Act::TypeText {
                text: "pa55-Word!".into(),
                id: Some(pw)
            }))
        );
        assert_eq!(typed("plain", Some(comment)), Ok(None));
        let user = typed("<{{secret:user}}>", Some(email)).unwrap().unwrap();
        assert_eq!(
            user,
            Act::TypeText {
                text: "<me@example.org>".into(),
                id: Some(email)
            }
        );
        for (text, at, why) in [
            ("{{secret:pw}}", Some(comment), "password field"),
            ("{{secret:pw}}", Some(email), "password field"),
            ("{{secret:user}}", Some(comment), "named like"),
            ("{{secret:pw}}", None, "id"),
            ("{{secret:nope}}", Some(pw), "no secret named"),
            ("{{secret:pw", Some(pw), "unclosed"),
            ("{{secret:pw}}", Some(9999), "no element"),
        ] {
            let e = typed(text, at).unwrap_err();
            assert!(e.contains(why), "{text} {at:?}: {e}");
            assert!(!e.contains("pa55") && !e.contains("example.org"), "{e}");
        }
        let set = s
            .fill(
                &Act::SetValue {
                    id: pw,
                    value: "{{secret:pw}}".into(),
                },
                &screen,
            )
            .unwrap();
        assert_eq!(
            set,
            Some(Act::SetValue {
                id: pw,
                value: "pa55-Word!".into()
            })
        );
    }
}
