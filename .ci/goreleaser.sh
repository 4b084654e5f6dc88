#!/usr/bin/env bash
# .goreleaser.yaml is valid (goreleaser check) and builds: a snapshot for
# this machine's platform, with the release's hooks (completions, man pages)
# and its version stamp. GoReleaser comes from the Go module at a pinned
# version (no registry reachable here serves its binary: its npm package
# downloads one from GitHub on install), built once into a cache folder:
# cold, the build downloads ~1.9 GB of modules and takes ~440 CPU-seconds;
# afterwards the check takes well under a second. "goreleaser.sh install"
# only builds it, so that .ci/run can start the build early, in the
# background.
set -euo pipefail
cd "$(dirname "$0")/.."
ver=v2.17.0
bin="${XDG_CACHE_HOME:-$HOME/.cache}/zk-ci/goreleaser-$ver"
if [ ! -x "$bin/goreleaser" ]; then
  echo "building goreleaser $ver into $bin (once)"
  start=$(date +%s)
  # Outside this module, so its go.mod has no say in GoReleaser's deps.
  (cd / && GOFLAGS= GOBIN="$bin" go install "github.com/goreleaser/goreleaser/v2@$ver")
  echo "built goreleaser $ver in $(( $(date +%s) - start )) s"
fi
[ "${1:-}" != install ] || exit 0
gr="$bin/goreleaser"
"$gr" check
# The snapshot's hooks write completions/ and manpages/, the build dist/
# (all three git-ignored).
"$gr" build --snapshot --single-target --clean
zk=$(find dist -type f \( -name zk -o -name zk.exe \) | head -n 1)
got=$("$zk" --version)
case $got in
  "zk version v"*"-devel+"*) ;;
  *) echo "snapshot $zk --version says \"$got\", want the snapshot version stamped"; exit 1 ;;
esac
for f in completions/zk.bash completions/_zk completions/zk.fish completions/zk.ps1 manpages/zk.1 manpages/zk-check.1; do
  if [ ! -s "$f" ]; then echo "the release hooks did not write $f"; exit 1; fi
done
echo "goreleaser $ver: config valid; snapshot $got with completions and man pages"
