#!/usr/bin/env bash
# base.sh: zk base on a generated vault, next to the read floor and to
# zk stale (the same walk and parse of every note), in one run.
#
# Generates a vault of N notes (bench/vaultgen) with a .base in it, then
# measures, each as the median of RUNS whole-process runs (process start
# included):
#   - the read floor: cat of every note;
#   - zk stale, no cache: a command that walks and parses every note as
#     zk base does;
#   - zk base with a tag filter, two formulas (links and backlinks
#     counted), a sort, a limit and a groupBy;
#   - zk base with no filter: every file is a row, every formula computed.
# Every figure names its denominator; ratios are to figures of this run.
#
#   bench/base.sh              # N=10000 RUNS=5
#   N=100000 RUNS=3 bench/base.sh
#   BASELINE=main bench/base.sh  # also zk built from main, in the same run:
#                                # the ratios this/baseline for each view, of
#                                # wall and of CPU time, run by run
#
# Needs Go, GNU find and awk.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-10000}
runs=${RUNS:-5}
. bench/lib.sh
bench_zk
if [ -n "${BASELINE:-}" ]; then
  mkdir -p "$tmp/baseline"
  git archive "$BASELINE" | tar -x -C "$tmp/baseline"
  (cd "$tmp/baseline" && go build -o "$tmp/zk-baseline" ./cmd/zk)
fi
gen_vault "$n" "$tmp/vault"
cat >"$tmp/vault/Claims.base" <<'BASE'
formulas:
  links: file.links.length
  cited: file.backlinks.length
views:
  - type: table
    name: Most cited
    filters:
      and:
        - file.hasTag("median")
        - file.inFolder("Permanent Notes")
    sort:
      - property: formula.cited
        direction: DESC
    limit: 50
    groupBy: {property: file.folder, direction: ASC}
    order: [file.name, formula.links, formula.cited]
  - type: table
    name: Everything
    filters: 'file.ext == "md"'
    order: [file.name, formula.links, formula.cited, file.size]
BASE
# zk's caches in the run's own folder, not the user's: zk stale answers
# from the records zk list caches, so it is timed cold, each run reading
# every note as zk base does (and writing those records, which zk base
# does not).
export ZK_TODAY=2026-12-02 XDG_CACHE_HOME="$tmp/cache"
zk() { "$tmp/zk" --vault "$tmp/vault" "$@"; }
no_cache() { rm -rf "$tmp/cache"; }
md_bytes=$(find "$tmp/vault" -name '*.md' -printf '%s\n' | awk '{s+=$1} END {print s}')
read_floor() { find "$tmp/vault" -name '*.md' -exec cat {} + >/dev/null; }

echo "vault: $n notes, $md_bytes bytes of markdown; $cpus cores; $runs runs per figure (median)"
echo
read=$(median_ms nothing read_floor)
stale=$(median_ms no_cache zk stale)
cited=$(median_ms nothing zk base "$tmp/vault/Claims.base")
all=$(median_ms nothing zk base "$tmp/vault/Claims.base" --view Everything)
echo "read floor (cat every note):       $read"
echo "zk stale, cold (parse, write cache): $stale   $(ratio_ms "$stale" "$read") the read floor"
echo "zk base, tag filter, top 50:       $cited   $(ratio_ms "$cited" "$read") the read floor, $(ratio_ms "$cited" "$stale") zk stale"
echo "zk base, every note a row:         $all   $(ratio_ms "$all" "$read") the read floor, $(ratio_ms "$all" "$stale") zk stale"
if [ -n "${BASELINE:-}" ]; then
  # Each run times this zk and the baseline back to back, so that both
  # see the same load; a ratio is the median of the runs' ratios, of wall
  # time and of CPU time (user + system), which a loaded machine inflates
  # far less.
  zkb() { "$tmp/zk-baseline" --vault "$tmp/vault" "$@"; }
  paired() {
    local pairs
    pairs=$(for _ in $(seq "$runs"); do
      a=$(wall_cpu_ms zk base "$tmp/vault/Claims.base" "$@")
      b=$(wall_cpu_ms zkb base "$tmp/vault/Claims.base" "$@")
      echo "$a $b"
    done)
    med() { sort -n | awk '{v[NR] = $1} END {printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
    echo "wall: this $(awk '{print $1}' <<<"$pairs" | med) ms, baseline $(awk '{print $3}' <<<"$pairs" | med) ms," \
      "ratio $(awk '{print $1 / $3}' <<<"$pairs" | med)×; CPU: this $(awk '{print $2}' <<<"$pairs" | med) ms," \
      "baseline $(awk '{print $4}' <<<"$pairs" | med) ms, ratio $(awk '{print $2 / $4}' <<<"$pairs" | med)× (medians of $runs paired runs)"
  }
  echo "vs $BASELINE, tag filter, top 50:  $(paired)"
  echo "vs $BASELINE, every note a row:    $(paired --view Everything)"
fi
echo "rows: $(zk base "$tmp/vault/Claims.base" --format paths | wc -l) (top 50 of $(zk base "$tmp/vault/Claims.base" --format json | awk -F': ' '/"total"/ {print $2}' | tr -d ,) matching), $(zk base "$tmp/vault/Claims.base" --view Everything --format paths | wc -l) of $n"
