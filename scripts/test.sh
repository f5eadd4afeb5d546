#!/usr/bin/env bash
# Runs every check and test of desktop-cli on a fresh Debian/Ubuntu machine: installs the
# system packages, checks formatting and lints, then runs unit tests and the integration
# tests against real GTK3, Chromium and Qt5 apps (each test binary starts its own
# headless sandbox and stops it afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
./scripts/install-test-tools.sh

if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all -- --check
else
  echo "rustfmt not installed: skipping the format check" >&2
fi
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --workspace --all-targets --locked -- -D warnings
else
  echo "clippy not installed: skipping lints" >&2
fi

# Other platforms, checked, not linked (nothing here can run them): the macOS backend and
# the binary for both Apple targets (with its real-app suite, which runs only on a Mac),
# the binary for Windows (it answers PLATFORM_NOT_SUPPORTED there), and the binary
# without its optional faces.
if command -v rustup >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1; then
  rustup target add x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin >&2
  cargo clippy -p desktop-cli --locked --no-default-features -- -D warnings
  cargo clippy -p desktop-cli --locked --target x86_64-pc-windows-gnu -- -D warnings
  cargo clippy -p desktop-windows --locked --target x86_64-pc-windows-gnu --features real-app-tests --tests -- -D warnings
  for target in aarch64-apple-darwin x86_64-apple-darwin; do
    cargo clippy -p desktop-macos -p desktop-cli --locked --target "$target" -- -D warnings
    cargo clippy -p desktop-macos --locked --target "$target" --features real-app-tests --tests -- -D warnings
  done
  ./scripts/check-workflows.sh
fi

# GUI tests share one sandbox per test binary; keep them off each other's input.
before="$(git status --porcelain 2>/dev/null || true)"
cargo test --workspace --locked -- --test-threads="${TEST_THREADS:-2}"

# The real-app suites again on Debian 13's desktop (GTK 4.18, Qt 6.8, LibreOffice 26, Java 25;
# GTK 3.24.49, Qt 5.15.15 and Chromium 156 with jQuery UI 1.13), and labwc, which only Debian
# 13 has: a Debian 13 root made with debootstrap and cached between runs (scripts/bed.sh;
# mounting it needs root).
if [ "$(id -u)" -eq 0 ]; then
  ./scripts/bed.sh test --locked --test toolkits --test widgets --test labwc -- --test-threads=1
else
  echo "not root: the Debian 13 bed's suites are skipped (scripts/bed.sh needs root)" >&2
fi

# The Windows build, run under Wine against notepad and a standard dialog.
./scripts/wine-tests.sh

# The install path of the README, into a temporary root, then the installed binary alone.
./scripts/check-install.sh

# Tests write only into temporary directories: the checkout is as it was.
after="$(git status --porcelain 2>/dev/null || true)"
if [ "$after" != "$before" ]; then
  echo "the tests changed the checkout:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
