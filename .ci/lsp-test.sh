#!/usr/bin/env bash
# zk lsp driven by a real client: Neovim headless on a copy of
# examples/vault. Skips, saying so, where nvim is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvim >/dev/null; then
  echo "lsp client test skipped: nvim missing (Debian: apt-get install neovim)"; exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/zk" ./cmd/zk
cp -r examples/vault "$work/vault"
export ZK="$work/zk" VAULT="$work/vault" ZK_TODAY=2026-12-02
export NOTE="3. Resources/Permanent Notes/A Rate Needs Its Denominator to Be Compared.md"
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state" HOME="$work/home"
timeout 120 nvim --headless --clean -u NONE -c "luafile .ci/lsp-nvim.lua"
