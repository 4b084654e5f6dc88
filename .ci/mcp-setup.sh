# Sourced by mcp-test.sh and mcp-inspector-test.sh: what both MCP clients'
# tests set up alike. Not run on its own.

# npm_pinned PACKAGE VERSION CACHE: PACKAGE@VERSION installed under CACHE
# (kept between runs, so a warm CI machine installs nothing); false, saying
# why, where node, npm or the registry cannot give it, so that the caller
# skips.
npm_pinned() {
  local pkg=$1 version=$2 cache=$3
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "node or npm missing (Debian: apt-get install nodejs npm)"; return 1
  fi
  local manifest="$cache/node_modules/$pkg/package.json"
  if ! [ -f "$manifest" ] || ! grep -q "\"version\": \"$version\"" "$manifest"; then
    mkdir -p "$cache"
    if ! npm install --silent --no-audit --no-fund --prefix "$cache" "$pkg@$version"; then
      echo "npm could not install $pkg@$version"; return 1
    fi
  fi
}

# mcp_vault: $work, a temporary folder removed on exit, holding zk built
# from this checkout ($work/zk) and a copy of examples/vault ($work/vault)
# with one note whose command nobody approved; $work/config and
# $work/home, empty, for XDG_CONFIG_HOME and HOME, so that approvals are
# looked up where there are none.
mcp_vault() {
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
  # Notes written this second are refused as maybe mid-write; age them.
  find "$work/vault" -name '*.md' -exec touch -d '1 minute ago' {} +
}
