#!/usr/bin/env bash
# "go install github.com/zk-claims/zk/cmd/zk@VERSION" works from the module
# alone: serve HEAD's tracked files as that module version from a file://
# proxy (the zip the go command would fetch), install from outside any
# module, and check the binary names that version. A build that needed a
# file outside the module (an embed or a replace pointing elsewhere, a
# generated file not committed) fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
ver=v0.0.0-citest
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir="$tmp/proxy/$mod/@v"
mkdir -p "$dir" "$tmp/bin" "$tmp/out"
echo "$ver" > "$dir/list"
printf '{"Version":"%s","Time":"2026-01-01T00:00:00Z"}\n' "$ver" > "$dir/$ver.info"
cp go.mod "$dir/$ver.mod"
# The module zip: every tracked file under "$mod@$ver/" (what the proxy
# serves; git archive leaves out what is not committed).
git archive --format=zip --prefix="$mod@$ver/" -o "$dir/$ver.zip" HEAD
# Its dependencies come from the module cache or the usual proxy; the
# module itself only from the file proxy, unchecked against the sum database.
(
  cd "$tmp/out"
  GOFLAGS= GOBIN="$tmp/bin" GONOSUMDB="$mod" \
    GOPROXY="file://$tmp/proxy,$(go env GOPROXY)" \
    go install "$mod/cmd/zk@$ver"
)
got=$("$tmp/bin/zk" --version)
if [ "$got" != "zk version $ver" ]; then
  echo "go install $mod/cmd/zk@$ver: --version says \"$got\", want \"zk version $ver\""
  exit 1
fi
echo "go install $mod/cmd/zk@$ver: ok ($got)"
