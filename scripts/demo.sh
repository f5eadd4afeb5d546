#!/usr/bin/env bash
# First run on a fresh Debian/Ubuntu machine: installs what is missing, builds desktop-cli,
# starts a headless sandbox with a real GTK app in it and shows `list` and `read` on it.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh --demo
cargo build --release --locked
bin=./target/release/desktop-cli

# Reuse a running sandbox, or start one.
if ! $bin sandbox env >/dev/null 2>&1; then
  $bin sandbox up >/dev/null
fi
eval "$($bin sandbox env)"
$bin list --app gtk3-widget-factory | grep -q '"title"' || {
  $bin sandbox run --detach -- gtk3-widget-factory >/dev/null
  for _ in $(seq 50); do
    $bin list --app gtk3-widget-factory 2>/dev/null | grep -q '"title"' && break
    sleep 0.1
  done
}

echo "== desktop-cli list --format text"
$bin list --format text
echo
echo "== desktop-cli read --app gtk3-widget-factory -i --format text"
$bin read --app gtk3-widget-factory -i --format text
echo
echo "== desktop-cli read --app gtk3-widget-factory --roles chk --pretty"
$bin read --app gtk3-widget-factory --roles chk --pretty
echo
echo "The sandbox keeps running (display $DISPLAY). Use it from this shell with:"
echo "  eval \"\$($bin sandbox env)\""
echo "Stop it with: $bin sandbox down"
