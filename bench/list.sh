#!/usr/bin/env bash
# list.sh: zk list with a property filter on generated vaults, next to its
# floors and to zk check on the same vault, in one run.
#
# For each vault size (bench/vaultgen -properties: every note has status,
# rating and created in its frontmatter), each figure the median of RUNS
# whole-process runs (process start included), page cache warm:
#   - cold: zk list --no-cache --where 'rating > 3' --where status=draft,
#     every note read and parsed; as a ratio to the read floor (find -exec
#     cat), and beside zk check --no-cache on the same vault;
#   - first: the same query with no cache yet (every record read, the
#     cache written);
#   - unchanged: the run after it; as a ratio to the stat floor;
#   - one note edited: the run after one note changed (that note read
#     again, every other record reused).
#
#   bench/list.sh                        # SIZES="10000" RUNS=5
#   SIZES="10000 100000" RUNS=3 bench/list.sh
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${SIZES:-10000}
runs=${RUNS:-5}
. bench/lib.sh
bench_zk
export XDG_CACHE_HOME="$tmp/cache" ZK_TODAY=2026-12-02

echo "zk list on $cpus cores; each figure the median of $runs runs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $sizes; do
  vault="$tmp/vault-$n"
  gen_vault "$n" "$vault" -properties
  bytes=$(find "$vault" -type f -not -path '*/.*' -printf '%s\n' | awk '{s+=$1} END {print s}')
  list=("$tmp/zk" --vault "$vault" list --where 'rating > 3' --where 'status = draft' --format paths)
  no_cache() { rm -rf "$XDG_CACHE_HOME"; }
  edit_one() {
    "${list[@]}" >/dev/null 2>&1 # the cache, of the vault as it is
    echo "edited $EPOCHREALTIME" >>"$vault/Permanent Notes/00/$(ls "$vault/Permanent Notes/00" | head -1)"
  }

  find "$vault" -type f -exec cat {} + >/dev/null
  read_floor=$(ms "$(median_ms nothing find "$vault" -type f -not -path '*/.*' -exec cat {} +)")
  stat_floor=$(ms "$(median_ms nothing find "$vault" -type f -not -path '*/.*' -printf '%s %T@\n')")
  check=$(ms "$(median_ms nothing "$tmp/zk" --vault "$vault" check --no-cache)")
  cold=$(ms "$(median_ms nothing "${list[@]}" --no-cache)")
  first=$(ms "$(median_ms no_cache "${list[@]}")")
  "${list[@]}" >/dev/null 2>&1
  unchanged=$(ms "$(median_ms nothing "${list[@]}")")
  edited=$(ms "$(median_ms edit_one "${list[@]}")")
  matched=$("${list[@]}" | wc -l)

  echo
  echo "vault: $n notes, $bytes bytes; $matched match the filter"
  echo "  read floor (find -exec cat):  $read_floor ms"
  echo "  stat floor (find -printf):    $stat_floor ms"
  echo "  zk check --no-cache:          $check ms = $(ratio "$check" "$read_floor")x the read floor"
  echo "  cold zk list (--no-cache):    $cold ms = $(ratio "$cold" "$read_floor")x the read floor, $(ratio "$cold" "$check")x zk check"
  echo "  first zk list (cache written): $first ms = $(ratio "$first" "$read_floor")x the read floor"
  echo "  unchanged zk list:            $unchanged ms = $(ratio "$unchanged" "$stat_floor")x the stat floor"
  echo "  one note edited:              $edited ms = $(ratio "$edited" "$stat_floor")x the stat floor"
  rm -rf "$vault" "$XDG_CACHE_HOME"
done
