#!/usr/bin/env bash
# zk mcp driven by a real client: the official MCP TypeScript SDK (pinned)
# on a copy of examples/vault. Needs node and npm; skips, saying so, where
# the SDK cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
sdk_version=1.32.2
cache="${ZK_CI_NODE:-$HOME/.cache/zk-ci/mcp-client}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "mcp client test skipped: node or npm missing (Debian: apt-get install nodejs npm)"; exit 0
fi
if ! [ -f "$cache/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
   ! grep -q "\"version\": \"$sdk_version\"" "$cache/node_modules/@modelcontextprotocol/sdk/package.json"; then
  mkdir -p "$cache"
  if ! npm install --silent --no-audit --no-fund --prefix "$cache" "@modelcontextprotocol/sdk@$sdk_version"; then
    echo "mcp client test skipped: npm could not install @modelcontextprotocol/sdk@$sdk_version"; exit 0
  fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/zk" ./cmd/zk
cp -r examples/vault "$work/vault"
cat > "$work/vault/Unapproved.md" <<'NOTE'
# Unapproved

## Claim

A command in a note runs only after its owner approves it.

## Tests / falsifiers

- If this runs without zk trust, the claim is wrong.
  - run: `sh -c 'echo ran > ran.txt'`

## Evidence

## Maintenance

- Last tended: 2026-11-01
NOTE
cat > "$work/vault/All.base" <<'BASE'
views:
  - type: table
    name: Notes
    filters: file.ext == "md"
    order: [file.name]
BASE
# Notes written this second are refused as maybe mid-write; age them.
find "$work/vault" -name '*.md' -exec touch -d '1 minute ago' {} +
cp .ci/mcp-client.mjs "$cache/"
# Approvals are looked up in a config folder of the test's own: empty.
XDG_CONFIG_HOME="$work/config" HOME="$work/home" node "$cache/mcp-client.mjs" "$work/zk" "$work/vault"
