# lib.sh: timing helpers shared by the bench/*.sh scripts (source it; it
# reads $runs). Times are wall milliseconds from bash's $EPOCHREALTIME, so
# no process is started to read the clock.
export LC_ALL=C # a '.' in $EPOCHREALTIME

# time_ms CMD... runs CMD once, output discarded, and prints its wall ms.
time_ms() {
  local t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || true
  local t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f\n", (b - a) * 1000}'
}

# wall_cpu_ms CMD... runs CMD once, output discarded, and prints its wall
# ms and its CPU ms (user + system, its children's included): on a loaded
# machine the wall time queues for the cores, the CPU time much less so.
wall_cpu_ms() {
  local TIMEFORMAT='%3R %3U %3S'
  { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{printf "%.1f %.1f\n", $1 * 1000, ($2 + $3) * 1000}'
}

# cpu_ms CMD... runs CMD once, output discarded, and prints the CPU
# milliseconds (user + system, its children's included) it took; a
# command that fails (zk check with findings) is timed all the same.
cpu_ms() {
  local TIMEFORMAT='%U %S' t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) || true
  awk -v t="$t" 'BEGIN {split(t, a, " "); printf "%.1f\n", (a[1] + a[2]) * 1000}'
}

# median_by TIMER PREP CMD... runs PREP then TIMER CMD (time_ms, cpu_ms),
# $runs times, and prints the median and the least of the times, "MEDIAN
# MIN".
median_by() {
  local timer=$1 prep=$2
  shift 2
  for _ in $(seq "$runs"); do
    $prep
    $timer "$@"
  done | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f %.1f\n", m, a[1]}'
}

# median_ms PREP CMD... runs PREP then times CMD, $runs times, and prints
# "MEDIAN ms (min MIN)" in wall ms.
median_ms() { median_by time_ms "$@" | awk '{printf "%.1f ms (min %.1f)\n", $1, $2}'; }

# median_cpu PREP CMD... as median_ms, in CPU ms, the median alone.
median_cpu() { median_by cpu_ms "$@" | awk '{printf "%.1f\n", $1}'; }

# ms TIMING prints the median of a median_ms result as a bare number.
ms() { awk '{print $1}' <<<"$1"; }

nothing() { :; }

# bench_zk sets $cpus, makes $tmp (removed when the script exits) and
# builds this checkout's zk into it: every zk benchmark starts so.
bench_zk() {
  cpus=$(nproc)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  go build -o "$tmp/zk" ./cmd/zk
}

# ratio A B prints A/B of two numbers ("1.25"); ratio_ms T1 T2 the same of
# two median_ms results, as "1.25×" ("n/a" when T2 is 0).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
ratio_ms() { awk -v a="$(ms "$1")" -v b="$(ms "$2")" 'BEGIN {if (b > 0) printf "%.2f×", a / b; else print "n/a"}'; }

# gen_vault N DIR [ARG...] generates a vault of N notes (bench/vaultgen,
# given ARGs such as -properties) in DIR and dates every file an hour back, as a user's notes are: a file modified
# within 2 s of a check or an index run is re-hashed by the next one (the
# racy-mtime rule), which would time the wrong path.
gen_vault() {
  local n=$1 dir=$2
  shift 2
  go run ./bench/cmd/vaultgen -n "$n" -o "$dir" "$@" >/dev/null
  find "$dir" -type f -exec touch -d '-1 hour' {} +
}
