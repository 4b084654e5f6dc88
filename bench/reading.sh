#!/usr/bin/env bash
# reading.sh: every reading command on a generated vault, in CPU seconds
# (user + system, the process and its children), next to the stat floor
# and, with BASELINE=, to another build on the same vault in the same run.
# CPU rather than wall time, since this project's machine is shared:
# waiting for a core is not the command's cost.
#
# For each command, each figure the median of RUNS whole-process runs:
#   - unchanged: the vault as the last run left it (its cache warm);
#   - one note edited: one note appended to before each run (that note
#     read again, every other record reused).
# The stat floor is find stat-ing every file (find -printf size and time).
#
#   bench/reading.sh                               # N=10000 RUNS=5
#   BASELINE=/tmp/zk-main N=100000 RUNS=3 bench/reading.sh
#
# Needs Go, GNU find and awk.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-10000}
runs=${RUNS:-5}
. bench/lib.sh
bench_zk
gen_vault "$n" "$tmp/vault"
export ZK_TODAY=2026-12-02
vault="$tmp/vault"
note=$(cd "$vault" && find . -path '*/Permanent Notes/*' -name '*.md' | sort | sed -n 2p)
note=${note#./}
name=$(basename "$note" .md)
edited="$vault/$note"

# cpu_ms CMD... runs CMD once, output discarded, and prints the CPU
# milliseconds (user + system) it took.
cpu_ms() {
  local TIMEFORMAT='%U %S' t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) || true
  awk -v t="$t" 'BEGIN {split(t, a, " "); printf "%.1f\n", (a[1] + a[2]) * 1000}'
}
# median_cpu PREP CMD... as median_ms, in CPU milliseconds.
median_cpu() {
  local prep=$1
  shift
  for _ in $(seq "$runs"); do
    $prep
    cpu_ms "$@"
  done | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f\n", m}'
}
edit_one() { echo "edited $EPOCHREALTIME" >>"$edited"; touch -d '-1 hour' "$edited"; }

commands=("check" "stale" "list" "runs" "properties" "graph" "backlinks|$name" "links|$name")
stat=$(median_cpu nothing find "$vault" -printf '%s %T@\n')
echo "vault: $n notes; $cpus cores, load average $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs; CPU ms (user+sys)"
echo "stat floor (find -printf): $stat ms"
printf '%-22s %10s %8s %10s %8s' command unchanged xfloor "one-edit" xfloor
[ -n "${BASELINE:-}" ] && printf ' %12s %10s %9s %9s' base-unch base-edit new/base new/base
echo
for c in "${commands[@]}"; do
  IFS='|' read -ra args <<<"$c"
  this() { XDG_CACHE_HOME="$tmp/cache" "$tmp/zk" --vault "$vault" "${args[@]}"; }
  base() { XDG_CACHE_HOME="$tmp/cache-base" "$BASELINE" --vault "$vault" "${args[@]}"; }
  this >/dev/null 2>&1 || true
  u=$(median_cpu nothing this)
  e=$(median_cpu edit_one this)
  printf '%-22s %10s %8s %10s %8s' "${args[0]}" "$u" "$(ratio "$u" "$stat")x" "$e" "$(ratio "$e" "$stat")x"
  if [ -n "${BASELINE:-}" ]; then
    base >/dev/null 2>&1 || true
    bu=$(median_cpu nothing base)
    be=$(median_cpu edit_one base)
    printf ' %12s %10s %9s %9s' "$bu" "$be" "$(ratio "$u" "$bu")x" "$(ratio "$e" "$be")x"
    if ! cmp -s <(this 2>&1) <(base 2>&1); then printf '  (output differs from the baseline)'; fi
  fi
  echo
done
