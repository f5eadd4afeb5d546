//! What a person at a terminal gets from the clap definition: bash completion loaded into a
//! real bash, the manual pages, and a version that names the commit.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_desktop-cli");

/// What bash's completion function offers for these words (the last one being completed).
fn complete(words: &[&str]) -> Vec<String> {
    let script = format!(
        r#"source <("{BIN}" completions bash)
COMP_WORDS=({words})
COMP_CWORD={cword}
COMP_LINE="${{COMP_WORDS[*]}}"
COMP_POINT=${{#COMP_LINE}}
spec=$(complete -p desktop-cli)
fn=${{spec#*-F }}; fn=${{fn%% *}}
"$fn" desktop-cli "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        words = words
            .iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" "),
        cword = words.len() - 1,
    );
    let out = Command::new("bash")
        .args(["--norc", "-c", &script])
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_commands_and_flags() {
    let commands = complete(&["desktop-cli", "re"]);
    assert!(commands.contains(&"read".to_string()), "{commands:?}");
    assert!(!commands.contains(&"click".to_string()), "{commands:?}");
    let flags = complete(&["desktop-cli", "read", "--int"]);
    assert_eq!(flags, ["--interactive"], "{flags:?}");
    let shells = complete(&["desktop-cli", "completions", "z"]);
    assert_eq!(shells, ["zsh"]);
    let nested = complete(&["desktop-cli", "sandbox", "up", "--"]);
    assert!(nested.contains(&"--size".to_string()), "{nested:?}");
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = Command::new(BIN)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("screenshot"), "{shell}: {text}");
    }
    let bad = Command::new(BIN)
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert_eq!(v["error"]["code"], "INVALID_ARGS");
}

#[test]
fn manual_pages() {
    let out = Command::new(BIN).arg("man").output().unwrap();
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains(".TH desktop-cli 1"), "{page}");
    assert!(page.contains("read") && page.contains("sandbox"));
    let dir = std::env::temp_dir().join(format!("desktop-cli-man-{}", std::process::id()));
    let out = Command::new(BIN)
        .args(["man", "--dir", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let read = std::fs::read_to_string(dir.join("desktop-cli-read.1")).unwrap();
    assert!(read.contains("interactive"), "{read}");
    assert!(
        !dir.join("desktop-cli-keeper.1").exists(),
        "no page for the hidden command"
    );
    // groff, when installed, formats it without complaint.
    if let Ok(g) = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww"])
        .arg(dir.join("desktop-cli-read.1"))
        .output()
    {
        assert!(g.status.success());
        assert!(String::from_utf8_lossy(&g.stderr).trim().is_empty());
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn version_names_the_commit() {
    let out = Command::new(BIN).arg("--version").output().unwrap();
    let v = String::from_utf8_lossy(&out.stdout);
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let expected = commit.unwrap_or_else(|| "unknown".into());
    assert_eq!(
        v.trim(),
        format!("desktop-cli {} ({expected})", env!("CARGO_PKG_VERSION"))
    );
}
