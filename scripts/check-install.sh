#!/usr/bin/env bash
# The README's install path, as a user takes it: `cargo install --locked --path
# crates/desktop-cli` into a temporary root, then the installed binary alone (no cargo, no
# checkout on PATH) starts a sandbox of its own, passes doctor and reads a real app.
set -euo pipefail
cd "$(dirname "$0")/.."

root=$(mktemp -d)
runtime=$(mktemp -d)
chmod 700 "$runtime"
cleanup() {
  XDG_RUNTIME_DIR="$runtime" "$root/bin/desktop-cli" sandbox down --all >/dev/null 2>&1 || true
  rm -rf "$root" "$runtime"
}
trap cleanup EXIT

# Release artifacts go to target/ so a later build (the benchmark) reuses them.
cargo install --locked --path crates/desktop-cli --root "$root" --target-dir target >&2

bin="$root/bin/desktop-cli"
run() { env -i PATH=/usr/bin:/bin HOME="$HOME" XDG_RUNTIME_DIR="$runtime" "$bin" "$@"; }
field() { /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

run --version | grep -Eq '^desktop-cli [0-9.]+ \([0-9a-f]{12}|unknown\)$' \
  || { echo "check-install: --version does not name the commit: $(run --version)" >&2; exit 1; }
run sandbox up >/dev/null
run launch gtk3-widget-factory >/dev/null
[ "$(run doctor | field 'd["data"]["healthy"]')" = True ] \
  || { echo "check-install: doctor is not healthy:" >&2; run doctor --format text >&2; exit 1; }
count=$(run read --app gtk3-widget-factory -i | field 'd["data"]["count"]')
[ "$count" -gt 20 ] || { echo "check-install: read found $count elements" >&2; exit 1; }
echo "check-install: installed binary healthy, read $count elements of gtk3-widget-factory" >&2
