#!/usr/bin/env bash
# million.sh: zk on a generated vault of a million notes, on one machine.
#
# Generates N notes (bench/vaultgen, about 2.3 KB each: 2.3 GB of
# markdown, about 4 GB on disk, plus an index of about 1.5x the markdown
# and zk check's cache) under DIR, then measures each command once, as a
# whole process, with its wall time and peak memory (/usr/bin/time -v):
#   - zk index: cold, unchanged, after one edited note;
#   - zk search, a rare and a common word: as a user runs it, and
#     --no-update; rg -l of the same word in the same run, as the ratio;
#   - zk check: cold (--no-cache) and cached (its second run);
#   - zk list --tag: cold (no cache) and cached;
#   - the language server's start (bench/cmd/lspstart: first
#     diagnostics of one note, and the whole vault known).
# A benchmark, not CI: it takes hours at a million notes on two cores.
# Every step runs even when one before it failed or timed out (STEP_TIMEOUT,
# default 3h); the figures go to stdout and DIR/results.txt.
#
#   bench/million.sh                        # N=1000000 DIR=/tmp/zk-million
#   N=100000 DIR=/tmp/zk-100k bench/million.sh
#   ZK=/tmp/zk-other KEEP=1 bench/million.sh   # another build; reuse the vault
#   STEPS="check list lsp" KEEP=1 bench/million.sh   # some steps only
#                                 # (index, update, search, check, list, lsp;
#                                 # update and search need the index the
#                                 # index step builds)
#
# DIR/vault is kept when KEEP=1 (generating it again takes minutes); the
# index and caches are always rebuilt. The script refuses to start when
# DIR's file system has less free space than the run needs (10 KB a note).
# Runs niced (nice -n 10) under an address-space cap (prlimit --as=AS,
# default 12 GB: the index's segments are mapped, so leave room past the
# heap), and prints the load average and CPU time (user + system) with
# every figure: on a shared machine the wall time follows the load. Each
# run appends to DIR/results.txt.
#
# Needs Go, GNU find, awk, /usr/bin/time; ripgrep for the ratios.
set -euo pipefail
export LC_ALL=C # a "." in $EPOCHREALTIME
cd "$(dirname "$0")/.."
n=${N:-1000000}
dir=${DIR:-/tmp/zk-million}
step_timeout=${STEP_TIMEOUT:-3h}
as=${AS:-12000000000}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
vault="$dir/vault"
out="$dir/results.txt"

need_kb=$((n * 10))
free_kb=$(df -Pk "$dir" | awk 'NR == 2 {print $4}')
if [ ! -d "$vault" ] && [ "$free_kb" -lt "$need_kb" ]; then
  echo "million.sh: $dir has $((free_kb / 1024)) MB free; $n notes need about $((need_kb / 1024)) MB" >&2
  exit 2
fi

zk=${ZK:-}
if [ -z "$zk" ]; then
  zk="$dir/zk"
  go build -o "$zk" ./cmd/zk
fi
go build -o "$dir/lspstart" ./bench/cmd/lspstart
export ZK_INDEX_DIR="$dir/idx" XDG_CACHE_HOME="$dir/cache" ZK_TODAY=2026-12-02

say() { echo "$*" | tee -a "$out"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# measure LABEL CMD... runs CMD once, niced, under /usr/bin/time -v and a
# timeout, and says its wall time, peak RSS and exit status.
measure() {
  local label=$1
  shift
  local tv="$dir/time.txt" rc=0 t0=$EPOCHREALTIME
  nice -n 10 prlimit --as="$as" /usr/bin/time -v -o "$tv" timeout "$step_timeout" "$@" >"$dir/step.out" 2>"$dir/step.err" || rc=$?
  local t1=$EPOCHREALTIME wall rss cpu
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$tv")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.1f", s}' "$tv")
  local status="exit $rc"
  [ "$rc" = 124 ] && status="TIMED OUT after $step_timeout"
  last_wall=$wall
  say "$(printf '%-44s %9s s  CPU %8s s  peak %6s MB  %s  (load %s)' "$label" "$wall" "$cpu" "$rss" "$status" "$(load)")"
  if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
    sed 's/^/    /' "$dir/step.err" | tail -3 | tee -a "$out"
  fi
}

if [ "${KEEP:-0}" != 1 ] || [ ! -d "$vault" ]; then
  rm -rf "$vault"
  t0=$EPOCHREALTIME
  nice -n 10 go run ./bench/cmd/vaultgen -n "$n" -o "$vault" >/dev/null
  # Every file an hour back, as a user's notes are (zk re-hashes a file
  # modified within 2 s of its last look).
  find "$vault" -type f -print0 | nice -n 10 xargs -0 touch -d '-1 hour'
  t1=$EPOCHREALTIME
  gen_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", b - a}')
else
  gen_s="reused"
fi
steps=${STEPS:-index search check list lsp}
step() { [[ " $steps " == *" $1 "* ]]; }
step index && rm -rf "$dir/idx"
rm -rf "$dir/cache"
md_bytes=$(find "$vault" -name '*.md' -printf '%s\n' | awk '{s+=$1} END {printf "%.0f", s}')
folders=$(find "$vault" -type d -not -path '*/.*' | wc -l)
say ""
say "STEPS=\"$steps\" $0; zk $("$zk" --version 2>&1 | head -1) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo) RAM; $(date -u '+%Y-%m-%d %H:%M UTC')"
say "vault: $n notes, $md_bytes bytes of markdown, $folders folders, $(du -sh "$vault" | cut -f1) on disk (generated in ${gen_s} s)"
say ""

if step index; then
measure "zk index, cold" "$zk" --vault "$vault" index
cold_index=$last_wall
idx_bytes=$(du -sb "$dir/idx" 2>/dev/null | awk '{print $1}')
say "    index $idx_bytes bytes = $(awk -v a="${idx_bytes:-0}" -v n="$n" 'BEGIN {printf "%.0f", a / n}') bytes a note, $(awk -v a="${idx_bytes:-0}" -v b="$md_bytes" 'BEGIN {printf "%.2f", a / b}')x the markdown; $(awk -v n="$n" -v s="$cold_index" 'BEGIN {if (s > 0) printf "%.0f", n / s}') notes/s"
fi
if step index || step update; then
measure "zk index, unchanged" "$zk" --vault "$vault" index
# sed, not head: head's early exit fails ls with SIGPIPE, and pipefail the script.
edited="$vault/Permanent Notes/07/$(ls "$vault/Permanent Notes/07" | sed -n 1p)"
echo "Edited line $RANDOM." >>"$edited"
sleep 2.1 # past the racy window, so the edit is what the run finds
measure "zk index, 1 note edited" "$zk" --vault "$vault" index
fi

step search && for word in 00042 denominator; do
  hits=$(rg -l "$word" "$vault" | wc -l || true)
  say ""
  say "search $word: $hits notes hold it"
  measure "  rg -l $word" rg -l "$word" "$vault"
  rg_s=$last_wall
  measure "  zk search $word" "$zk" --vault "$vault" search "$word"
  say "    = $(awk -v a="$last_wall" -v b="$rg_s" 'BEGIN {if (b > 0) printf "%.3f", a / b}')x rg -l, same run; $(grep -h 'stale\|not checked' "$dir/step.err" | head -1)"
  measure "  zk search --no-update $word" "$zk" --vault "$vault" search --no-update "$word"
  say "    = $(awk -v a="$last_wall" -v b="$rg_s" 'BEGIN {if (b > 0) printf "%.3f", a / b}')x rg -l"
done

say ""
if step check; then
measure "zk check, cold (--no-cache)" "$zk" --vault "$vault" check --no-cache
measure "zk check, first (cache written)" "$zk" --vault "$vault" check
measure "zk check, cached" "$zk" --vault "$vault" check
fi
if step list; then
measure "zk list --tag latency, first" "$zk" --vault "$vault" list --tag latency --format paths
measure "zk list --tag latency, cached" "$zk" --vault "$vault" list --tag latency --format paths
fi
if step lsp; then
note=$(cd "$vault" && ls "Permanent Notes/07" | sed -n 2p)
measure "zk lsp, start" "$dir/lspstart" -vault "$vault" -note "Permanent Notes/07/$note" -- "$zk" --vault "$vault" lsp
say "    $(cat "$dir/step.out")"
fi
say ""
say "done $(date -u '+%H:%M UTC'); index $(du -sh "$dir/idx" 2>/dev/null | cut -f1), check cache $(du -sh "$dir/cache" 2>/dev/null | cut -f1)"
