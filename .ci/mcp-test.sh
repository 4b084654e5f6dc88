#!/usr/bin/env bash
# zk mcp driven by a real client: the official MCP TypeScript SDK (pinned)
# on a copy of examples/vault. Needs node and npm; skips, saying so, where
# the SDK cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/mcp-setup.sh
cache="${ZK_CI_NODE:-$HOME/.cache/zk-ci/mcp-client}"
if ! why=$(npm_pinned @modelcontextprotocol/sdk 1.32.2 "$cache"); then
  echo "mcp client test skipped: $why"; exit 0
fi
mcp_vault
cat > "$work/vault/All.base" <<'BASE'
views:
  - type: table
    name: Notes
    filters: file.ext == "md"
    order: [file.name]
BASE
cp .ci/mcp-client.mjs "$cache/"
XDG_CONFIG_HOME="$work/config" HOME="$work/home" node "$cache/mcp-client.mjs" "$work/zk" "$work/vault"
