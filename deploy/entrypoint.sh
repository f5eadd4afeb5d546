#!/usr/bin/env bash
# One desktop per container: a headless sandbox, then the MCP server over streamable HTTP
# with a bearer token from a file (a mounted secret) or from DESKTOP_CLI_MCP_TOKEN. Stops the
# sandbox when the server ends or the container is asked to stop.
#
# Settings (environment): DESKTOP_CLI (the binary, default desktop-cli), DESKTOP_CLI_BIND
# (default 0.0.0.0), DESKTOP_CLI_PORT (8931), DESKTOP_CLI_SIZE (1280x800x24),
# DESKTOP_CLI_TOKEN_FILE (default /run/secrets/desktop-cli-token), DESKTOP_CLI_MCP_TOKEN.
set -euo pipefail

bin=${DESKTOP_CLI:-desktop-cli}
bind=${DESKTOP_CLI_BIND:-0.0.0.0}
port=${DESKTOP_CLI_PORT:-8931}
size=${DESKTOP_CLI_SIZE:-1280x800x24}
token_file=${DESKTOP_CLI_TOKEN_FILE:-/run/secrets/desktop-cli-token}

args=(mcp --http "$bind:$port")
case "$bind" in
  127.*|localhost|::1) ;;
  *) args+=(--allow-remote) ;;
esac
if [ -z "${DESKTOP_CLI_MCP_TOKEN:-}" ]; then
  if [ ! -s "$token_file" ]; then
    echo "entrypoint: no token: mount one at $token_file or set DESKTOP_CLI_MCP_TOKEN" >&2
    exit 2
  fi
  args+=(--token-file "$token_file")
fi

"$bin" sandbox up --size "$size" >/dev/null

server=""
stop() {
  if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  "$bin" sandbox down --all >/dev/null 2>&1 || true
}
trap 'stop; exit 0' TERM INT
# The server adopts the running sandbox (DISPLAY is unset): programs it launches show there.
env -u DISPLAY "$bin" "${args[@]}" &
server=$!
status=0
wait "$server" || status=$?
server=""
stop
exit "$status"
