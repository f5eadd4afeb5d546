#!/usr/bin/env bash
# Healthy when the desktop answers (doctor: display, buses, accessibility all pass) and the
# MCP server accepts an authenticated session (initialize answers 200; the session is
# closed again). Exit 0 healthy, 1 not.
set -uo pipefail

bin=${DESKTOP_CLI:-desktop-cli}
port=${DESKTOP_CLI_PORT:-8931}
token=${DESKTOP_CLI_MCP_TOKEN:-}
if [ -z "$token" ]; then
  token=$(cat "${DESKTOP_CLI_TOKEN_FILE:-/run/secrets/desktop-cli-token}" 2>/dev/null) || exit 1
fi

doctor=$(env -u DISPLAY "$bin" doctor 2>/dev/null) || exit 1
case "$doctor" in
  *'"healthy":true'*) ;;
  *) echo "desktop not ready" >&2; exit 1 ;;
esac

url="http://127.0.0.1:$port/mcp"
headers=$(curl -sS -m 5 -o /dev/null -D - -w '%{http_code}' \
  -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  --data '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"healthcheck","version":"1"}}}' \
  "$url") || { echo "MCP server not answering" >&2; exit 1; }
code=${headers##*$'\n'}
if [ "$code" != 200 ]; then echo "MCP server answered $code" >&2; exit 1; fi
session=$(printf '%s' "$headers" | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p')
if [ -n "$session" ]; then
  curl -sS -m 5 -o /dev/null -X DELETE -H "Authorization: Bearer $token" \
    -H "Mcp-Session-Id: $session" "$url" || true
fi
exit 0
