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

# median_ms PREP CMD... runs PREP then times CMD, $runs times, and prints
# "MEDIAN ms (min MIN)".
median_ms() {
  local prep=$1
  shift
  for _ in $(seq "$runs"); do
    $prep
    time_ms "$@"
  done | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f ms (min %.1f)\n", m, a[1]}'
}

# ms TIMING prints the median of a median_ms result as a bare number.
ms() { awk '{print $1}' <<<"$1"; }

nothing() { :; }

# gen_vault N DIR generates a vault of N notes (bench/vaultgen) in DIR and
# dates every file an hour back, as a user's notes are: a file modified
# within 2 s of a check or an index run is re-hashed by the next one (the
# racy-mtime rule), which would time the wrong path.
gen_vault() {
  go run ./bench/cmd/vaultgen -n "$1" -o "$2" >/dev/null
  find "$2" -type f -exec touch -d '-1 hour' {} +
}
