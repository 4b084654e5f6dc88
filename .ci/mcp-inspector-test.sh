#!/usr/bin/env bash
# zk mcp driven by a second real client: the MCP Inspector's CLI
# (@modelcontextprotocol/inspector, pinned, from npm) on a copy of
# examples/vault, calling every tool. Needs node and npm; skips, saying
# so, where the Inspector cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/mcp-setup.sh
cache="${ZK_CI_NODE_INSPECTOR:-$HOME/.cache/zk-ci/mcp-inspector}"
if ! why=$(npm_pinned @modelcontextprotocol/inspector 2.12.0 "$cache"); then
  echo "mcp inspector test skipped: $why"; exit 0
fi
mcp_vault
cat > "$work/vault/Tended.base" <<'BASE'
views:
  - type: table
    name: By folder
    filters: file.ext == "md"
    order: [file.name, file.folder]
BASE
XDG_CONFIG_HOME="$work/config" HOME="$work/home" \
  node .ci/mcp-inspector.mjs "$cache/node_modules/.bin/mcp-inspector" "$work/zk" "$work/vault"
