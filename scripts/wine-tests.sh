#!/usr/bin/env bash
# The Windows build run for real under Wine: cross-builds desktop-cli.exe with MinGW, then
# runs the ignored test that drives it in a Wine prefix inside the project's X sandbox
# (crates/desktop-cli/tests/wine.rs; the prefix is made and removed by the test).
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add x86_64-pc-windows-gnu >&2
cargo build -p desktop-cli --locked --target x86_64-pc-windows-gnu
export DESKTOP_CLI_EXE="$PWD/target/x86_64-pc-windows-gnu/debug/desktop-cli.exe"
cargo test -p desktop-cli --locked --test wine -- --ignored
