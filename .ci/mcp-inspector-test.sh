#!/usr/bin/env bash
# zk mcp driven by a second real client: the MCP Inspector's CLI
# (@modelcontextprotocol/inspector, pinned, from npm) on a copy of
# examples/vault, calling every tool. Needs node and npm; skips, saying
# so, where the Inspector cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
version=2.12.0
cache="${ZK_CI_NODE_INSPECTOR:-$HOME/.cache/zk-ci/mcp-inspector}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "mcp inspector test skipped: node or npm missing (Debian: apt-get install nodejs npm)"; exit 0
fi
pkg="$cache/node_modules/@modelcontextprotocol/inspector/package.json"
if ! [ -f "$pkg" ] || ! grep -q "\"version\": \"$version\"" "$pkg"; then
  mkdir -p "$cache"
  if ! npm install --silent --no-audit --no-fund --prefix "$cache" "@modelcontextprotocol/inspector@$version"; then
    echo "mcp inspector test skipped: npm could not install @modelcontextprotocol/inspector@$version"; exit 0
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
cat > "$work/vault/Tended.base" <<'BASE'
views:
  - type: table
    name: By folder
    filters: file.ext == "md"
    order: [file.name, file.folder]
BASE
# Notes written this second are refused as maybe mid-write; age them.
find "$work/vault" -name '*.md' -exec touch -d '1 minute ago' {} +
# Approvals are looked up in a config folder of the test's own: empty.
XDG_CONFIG_HOME="$work/config" HOME="$work/home" \
  node .ci/mcp-inspector.mjs "$cache/node_modules/.bin/mcp-inspector" "$work/zk" "$work/vault"
