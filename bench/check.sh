#!/usr/bin/env bash
# check.sh: zk check on generated vaults next to its floors, in one run.
#
# For each vault size (bench/vaultgen: notes in the house format, typed
# links, a few broken links, dates over a year), it measures, each as the
# median of RUNS whole-process runs (process start included):
#   - cold zk check: no metadata cache, every note read and parsed, the
#     cache written; as a ratio to the read floor, a walk that reads every
#     file (find ... -exec cat {} +), with the page cache warm for both;
#   - unchanged zk check: the cached result after one walk; as a ratio to
#     the stat floor, a walk that stats every file (find -printf '%s %T@');
#   - peak RSS of the cold check (/usr/bin/time -f %M).
# Every figure names its denominator (notes, bytes, cores); the floors
# are measured here, in the same run. Targets: cold <= 3x the read floor,
# unchanged <= 1.5x the stat floor, 100k notes under 1 GiB.
#
#   bench/check.sh                  # SIZES="10000" RUNS=5
#   SIZES="10000 100000" RUNS=3 bench/check.sh
#   BASELINE=/tmp/zk-old bench/check.sh   # also an older build, same vault, same run
#
# With BASELINE, the older binary's cold and unchanged checks are measured
# on the same vault right after this build's, each with a cache folder of
# its own, and the ratio new/old printed: a change must not cost speed.
#
# Needs Go, GNU find, awk and /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${SIZES:-10000}
runs=${RUNS:-5}
. bench/lib.sh
bench_zk
export XDG_CACHE_HOME="$tmp/cache" ZK_TODAY=2026-12-02

verdict() { awk -v r="$1" -v t="$2" 'BEGIN {print (r <= t) ? "met" : "NOT met"}'; }

echo "zk check on $cpus cores; each figure the median of $runs runs"
for n in $sizes; do
  vault="$tmp/vault-$n"
  gen_vault "$n" "$vault"
  files=$(find "$vault" -type f -not -path '*/.*' | wc -l)
  bytes=$(find "$vault" -type f -not -path '*/.*' -printf '%s\n' | awk '{s+=$1} END {print s}')
  zk=("$tmp/zk" --vault "$vault" check)
  no_cache() { rm -rf "$XDG_CACHE_HOME"; }
  nothing() { :; }

  # Warm the page cache, so that both sides read from memory.
  find "$vault" -type f -exec cat {} + >/dev/null
  read_floor=$(ms "$(median_ms nothing find "$vault" -type f -not -path '*/.*' -exec cat {} +)")
  stat_floor=$(ms "$(median_ms nothing find "$vault" -type f -not -path '*/.*' -printf '%s %T@\n')")
  cold=$(ms "$(median_ms no_cache "${zk[@]}")")
  "${zk[@]}" >/dev/null 2>&1 || true # the cache, for the unchanged runs
  unchanged=$(ms "$(median_ms nothing "${zk[@]}")")
  no_cache
  rss_kb=$({ /usr/bin/time -f '%M' "${zk[@]}" 2>&1 >/dev/null || true; } | tail -1)

  cold_r=$(ratio "$cold" "$read_floor")
  unch_r=$(ratio "$unchanged" "$stat_floor")
  rss_mb=$((rss_kb / 1024))
  echo
  echo "vault: $n notes, $files files, $bytes bytes"
  echo "  read floor (find -exec cat): $read_floor ms"
  echo "  stat floor (find -printf):   $stat_floor ms"
  echo "  cold zk check:      $cold ms = ${cold_r}x the read floor (target <= 3x: $(verdict "$cold_r" 3)); $(awk -v n="$n" -v ms="$cold" -v c="$cpus" 'BEGIN {printf "%.0f notes/s on %d cores", n / ms * 1000, c}')"
  echo "  unchanged zk check: $unchanged ms = ${unch_r}x the stat floor (target <= 1.5x: $(verdict "$unch_r" 1.5))"
  echo "  peak RSS, cold:     $rss_mb MiB for $n notes ($(awk -v k="$rss_kb" -v b="$bytes" 'BEGIN {printf "%.1f", k * 1024 / b}')x the markdown; target < 1024 MiB at 100k: $(verdict "$rss_mb" 1023))"
  if [ -n "${BASELINE:-}" ]; then
    base=("$BASELINE" --vault "$vault" check)
    export XDG_CACHE_HOME="$tmp/cache-baseline"
    bcold=$(ms "$(median_ms no_cache "${base[@]}")")
    "${base[@]}" >/dev/null 2>&1 || true
    bunchanged=$(ms "$(median_ms nothing "${base[@]}")")
    no_cache
    export XDG_CACHE_HOME="$tmp/cache"
    echo "  baseline ($BASELINE): cold $bcold ms, unchanged $bunchanged ms;" \
      "this build / baseline: cold $(ratio "$cold" "$bcold"), unchanged $(ratio "$unchanged" "$bunchanged")"
  fi
  rm -rf "$vault" "$XDG_CACHE_HOME"
done
