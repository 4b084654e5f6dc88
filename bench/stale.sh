#!/usr/bin/env bash
# stale.sh: zk stale and zk tend on a generated vault, next to their
# floors, in one run.
#
# Generates a vault of N notes (bench/vaultgen), then measures, each as
# the median of RUNS whole-process runs (process start included):
#   - zk stale (text and json) next to the read floor: cat of every note,
#     cold (no cache) and on the unchanged vault (its notes' records
#     cached, as zk list keeps them), the latter also next to the walk
#     floor;
#   - zk tend of one note (the in-place date overwrite, with its backup;
#     the note's mtime is set back before each run, past the quiet window)
#     and of a note without a date (the rename path), next to the walk
#     floor: find stat-ing every file, as tend lists the vault to resolve
#     the note's name.
# Every figure names its denominator; ratios are to floors measured here,
# in the same run.
#
#   bench/stale.sh              # N=10000 RUNS=10
#   N=100000 RUNS=5 bench/stale.sh
#   BASELINE=/tmp/zk-old bench/stale.sh   # also an older build, same vault, same run
#
# Needs Go, GNU find and awk.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-10000}
runs=${RUNS:-10}
. bench/lib.sh
bench_zk
gen_vault "$n" "$tmp/vault"
export ZK_TODAY=2026-12-02 XDG_CACHE_HOME="$tmp/cache"
zk() { "$tmp/zk" --vault "$tmp/vault" "$@"; }
base() { XDG_CACHE_HOME="$tmp/cache-baseline" "$BASELINE" --vault "$tmp/vault" "$@"; }
no_cache() { rm -rf "$tmp/cache" "$tmp/cache-baseline"; }
md_bytes=$(find "$tmp/vault" -name '*.md' -printf '%s\n' | awk '{s+=$1} END {print s}')
dated=$(find "$tmp/vault" -name '*.md' -print -quit)
undated="$tmp/vault/Undated.md"

age_dated() { touch -d '-1 hour' "$dated"; }
fresh_undated() { printf '# Undated\nA note with no date.\n' >"$undated" && touch -d '-1 hour' "$undated"; }
read_floor() { find "$tmp/vault" -name '*.md' -exec cat {} + >/dev/null; }
walk_floor() { find "$tmp/vault" -printf '%s %T@\n' >/dev/null; }

echo "vault: $n notes, $md_bytes bytes of markdown; $cpus cores; $runs runs per figure (median)"
echo
read=$(median_ms nothing read_floor)
walk=$(median_ms nothing walk_floor)
stale_cold=$(median_ms no_cache zk stale)
zk stale >/dev/null 2>&1 || true
stale=$(median_ms nothing zk stale)
stale_json=$(median_ms nothing zk stale --format json)
if [ -n "${BASELINE:-}" ]; then
  base_cold=$(median_ms no_cache base stale)
  base stale >/dev/null 2>&1 || true
  base_stale=$(median_ms nothing base stale)
fi
tend=$(median_ms age_dated zk tend "$dated" --date 2026-12-01)
tend_new=$(median_ms fresh_undated zk tend "$undated")
echo "read floor (cat every note):   $read"
echo "walk floor (find, stat all):   $walk"
echo "zk stale, cold (no cache):     $stale_cold   $(ratio_ms "$stale_cold" "$read") the read floor"
echo "zk stale, unchanged vault:     $stale   $(ratio_ms "$stale" "$read") the read floor, $(ratio_ms "$stale" "$walk") the walk floor"
echo "zk stale --format json:        $stale_json   $(ratio_ms "$stale_json" "$read") the read floor"
echo "zk tend (in place):            $tend   $(ratio_ms "$tend" "$walk") the walk floor"
echo "zk tend (adds the line):       $tend_new   $(ratio_ms "$tend_new" "$walk") the walk floor"
if [ -n "${BASELINE:-}" ]; then
  echo "baseline ($BASELINE) zk stale, cold:      $base_cold   this build / baseline: $(ratio_ms "$stale_cold" "$base_cold")"
  echo "baseline ($BASELINE) zk stale, unchanged: $base_stale   this build / baseline: $(ratio_ms "$stale" "$base_stale")"
  if ! cmp -s <(zk stale --format json) <(base stale --format json); then
    echo "zk stale --format json differs from the baseline's"
  fi
fi
echo "stale notes listed: $(zk stale | wc -l) of $n"
