#!/usr/bin/env bash
# The zk-check hook of .pre-commit-hooks.yaml, run by the pre-commit tool
# as a user's repository would (try-repo builds it with language: golang
# from a clone of this repository, uncommitted changes included): a vault
# with a broken link fails the commit check; once the link is fixed it passes.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
if ! command -v pre-commit >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pre-commit >/dev/null
  else
    echo "pre-commit missing and not root: skipping the pre-commit hook test"
    exit 0
  fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# pre-commit's own cache (its clone and the built hook) in the temp folder;
# the module and build caches stay the usual ones, so the hook's
# "go install ./..." downloads nothing it already has.
export PRE_COMMIT_HOME="$tmp/cache"
export GOMODCACHE="${GOMODCACHE:-$(go env GOMODCACHE)}" GOCACHE="${GOCACHE:-$(go env GOCACHE)}"
repo="$tmp/notes"
mkdir -p "$repo/.obsidian"
cd "$repo"
git init -q
git config user.email ci@example.invalid
git config user.name ci
printf '# Alpha\n\nSee [[Beta]].\n' > alpha.md
git add -A
git commit -qm broken

if pre-commit try-repo "$here" zk-check --all-files > "$tmp/broken.log" 2>&1; then
  echo "pre-commit zk-check passed a vault with a broken link:"; cat "$tmp/broken.log"; exit 1
fi
if ! grep -q 'links/broken' "$tmp/broken.log"; then
  echo "pre-commit zk-check failed, but not on the broken link:"; cat "$tmp/broken.log"; exit 1
fi
echo "pre-commit zk-check on a broken link: fails, as it should"

printf '# Beta\n\nHello.\n' > beta.md
git add -A
if ! pre-commit try-repo "$here" zk-check --all-files > "$tmp/fixed.log" 2>&1; then
  echo "pre-commit zk-check failed once the link was fixed:"; cat "$tmp/fixed.log"; exit 1
fi
echo "pre-commit zk-check once the link is fixed: passes"
