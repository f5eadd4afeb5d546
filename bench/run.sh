#!/usr/bin/env bash
# The project benchmark, one command: builds a release binary, starts a private sandbox with
# gtk3-widget-factory, Chromium on the fixture page and FeatherPad (Qt5), and in one run
# times `desktop-cli read` against pyatspi walks of the same windows and counts o200k tokens;
# then actions, a click that changes the window (bench/click_bench.py), screenshots, observe,
# the MCP server over stdio (bench/mcp_bench.py) and HTTP (bench/mcp_http.py), the agent turn.
# Usage: bench/run.sh [--runs N]      (results also go to bench/out/results.json)
#        bench/run.sh --widgets [--rounds N]   the everyday-controls tasks (bench/widgets.py;
#                                              results in bench/out/widgets.json)
#        bench/run.sh --toolkits [--runs N]    LibreOffice Calc and GTK 4 read against pyatspi
#                                              (bench/toolkits.py; bench/out/toolkits.json)
#        bench/run.sh --snapshots              our compact page read against Playwright MCP's
#                                              browser_snapshot, o200k tokens and addressability
#                                              (bench/snapshots.py; bench/out/snapshots.json)
#        bench/run.sh --ids OLD_BIN [ROUNDS]   ids kept across reads against the build before them
#                                              (OLD_BIN), same run: the identity step's share of a warm
#                                              read, tokens with ids after 200 actions (bench/ids_bench.py)
#        bench/run.sh --tokens-est             desktop_core::tokens's estimate against o200k's exact
#                                              count on reads of GTK 3, GTK 4 and Chromium windows
#                                              (bench/tokens_est.py; bench/out/tokens_est.json)
#        bench/run.sh --view                   `view` against x11vnc, each on fresh sandboxes
#                                              it starts itself (bench/view.py)
#        bench/run.sh --report                 the report of a 20-step run (bench/report.py)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/install-test-tools.sh
cargo build --release --locked
(cd bench && npm install --no-audit --no-fund --silent)
body=bench/bench.py
if [[ "${1:-}" == --widgets ]]; then
    body=bench/widgets.py
    shift
elif [[ "${1:-}" == --toolkits ]]; then
    body=bench/toolkits.py
    shift
elif [[ "${1:-}" == --snapshots ]]; then
    body=bench/snapshots.py
    shift
elif [[ "${1:-}" == --tokens-est ]]; then
    body=bench/tokens_est.py
    shift
elif [[ "${1:-}" == --ids ]]; then
    body=bench/ids_bench.py
    shift
    set -- "$1" "$PWD/target/release/desktop-cli" "${@:2}"
elif [[ "${1:-}" == --view || "${1:-}" == --report ]]; then
    # These start their own sandboxes (two screen sizes; x11vnc beside view).
    exec /usr/bin/python3 "bench/${1#--}.py"
fi
exec ./target/release/desktop-cli sandbox run --fresh -- /usr/bin/python3 "$body" "$@"
