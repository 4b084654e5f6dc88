#!/usr/bin/env bash
# index.sh: zk index and zk search on a generated vault, next to their
# floors, in one run.
#
# Generates a vault of N notes (bench/vaultgen), then measures, each as
# the median of RUNS whole-process runs (process start included):
#   - cold zk index (one run: it is the slow one), in notes/s;
#   - zk index with nothing changed, and after one edited note (a fresh
#     edit before every run), next to zk check on the unchanged vault when
#     zk check is built, and the stat floor (find stat-ing every note);
#   - zk search for a rare and a common word, with its freshness check
#     (the default) and with --no-update, next to rg -l WORD over the same
#     notes (skipped when ripgrep is not installed).
# Every figure names its denominator; ratios are to floors measured here,
# in the same run.
#
#   bench/index.sh              # N=10000 RUNS=10
#   N=100000 RUNS=5 bench/index.sh
#   OLD=edc7201 bench/index.sh  # also: cold index and search of the
#                               # build at that commit, alternating, ratios
#                               # new/old (time, CPU, index size)
#   HELP=/tmp/obsidian-help OLD=e28023b ROUNDS=3 bench/index.sh
#                               # Obsidian's help vault (6,289 notes in 30
#                               # languages) instead of a generated one
#   VAULT=/tmp/cold/v100k QUERIES='00042|"cold latency"|percent*' bench/index.sh
#                               # any vault, copied (its *.md files); each
#                               # query of QUERIES ('|' between them) timed
#                               # wall and CPU, new and, with OLD, old
#
# HELP names a copy of Obsidian's help vault, github.com/obsidianmd/
# obsidian-help: `git clone --depth 1 https://github.com/obsidianmd/obsidian-help`
# (only its *.md files are used; they are copied, so the checkout is never
# written to). Its search words are WORDS (default "Canvas ค้นหา").
#
# Needs Go, GNU find and awk; /usr/bin/time for peak memory and CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-10000}
runs=${RUNS:-10}
. bench/lib.sh
bench_zk
if [ -n "${HELP:-}${VAULT:-}" ]; then
  src=${VAULT:-$HELP}
  mkdir -p "$tmp/vault"
  (cd "$src" && find . -name '*.md' -not -path './.*' -print0 | tar --null -cf - -T -) | tar -xf - -C "$tmp/vault"
  mkdir -p "$tmp/vault/.obsidian"
  find "$tmp/vault" -type f -exec touch -d '-1 hour' {} +
  n=$(find "$tmp/vault" -name '*.md' | wc -l)
  words=${WORDS:-Canvas ค้นหา}
  [ -n "${VAULT:-}" ] && words=${WORDS:-00042 denominator}
else
  gen_vault "$n" "$tmp/vault"
  words=${WORDS:-00042 denominator}
fi
export ZK_INDEX_DIR="$tmp/idx" ZK_TODAY=2026-12-02
zk() { "$tmp/zk" --vault "$tmp/vault" "$@"; }
md_bytes=$(find "$tmp/vault" -name '*.md' -printf '%s\n' | awk '{s+=$1} END {printf "%.0f", s}')
edit_path=$(find "$tmp/vault" -name '*.md' | sort | sed -n 7p)

edit_one() { echo "Edited line $RANDOM." >>"$edit_path"; }

echo "vault: ${VAULT:-${HELP:+the Obsidian help vault}}${HELP:+, }${VAULT:+, }$n notes, $md_bytes bytes of markdown; $cpus cores; $runs runs per figure (median); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo

rss="" cpu=""
t0=$EPOCHREALTIME
if [ -x /usr/bin/time ]; then
  read -r cpu rss < <(/usr/bin/time -f '%U %S %M' "$tmp/zk" --vault "$tmp/vault" index 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2, $3}')
else
  zk index 2>/dev/null
fi
t1=$EPOCHREALTIME
cold=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
[ -n "$cpu" ] && echo "cold zk index CPU:   $cpu s (user + system), $(awk -v c="$cpu" -v w="$cold" 'BEGIN {printf "%.2f", c / w}') cores used on average, $(awk -v n="$n" -v c="$cpu" 'BEGIN {printf "%.0f", n / c}') notes a CPU second"
idx_bytes=$(du -sb "$tmp/idx" | awk '{print $1}')
echo "cold zk index:       $cold s, $(awk -v n="$n" -v s="$cold" 'BEGIN {printf "%.0f", n / s}') notes/s on $cpus cores" \
  "(index $(awk -v a="$idx_bytes" -v b="$md_bytes" 'BEGIN {printf "%.2f", a / b}')× the markdown, $((idx_bytes / n)) bytes a note${rss:+, peak RSS $((rss / 1024)) MB})"

unchanged=$(median_ms nothing zk index)
edited=$(median_ms edit_one zk index)
stat_floor=$(median_ms nothing find "$tmp/vault" -name '*.md' -printf '%s %T@\n')
echo "zk index, unchanged: $unchanged   ($n notes stat-ed)"
echo "zk index, 1 edited:  $edited   ($(ratio_ms "$edited" "$unchanged") the unchanged run)"
echo "stat floor (find):   $stat_floor   (zk index unchanged = $(ratio_ms "$unchanged" "$stat_floor") it)"
if zk check >/dev/null 2>&1 || [ $? -eq 1 ]; then
  zk check >/dev/null 2>&1 || true # warm its cache, if it keeps one
  check=$(median_ms nothing zk check)
  echo "zk check, unchanged: $check   (zk index after 1 edit = $(ratio_ms "$edited" "$check") it; target < 2×)"
else
  echo "zk check:            not built yet; compare with the stat floor above"
fi
echo

for word in $words; do
  hits=$( (grep -rl --include='*.md' -- "$word" "$tmp/vault" || true) | wc -l)
  fresh=$(median_ms nothing zk search "$word")
  quick=$(median_ms nothing zk search --no-update "$word")
  echo "zk search $word ($hits of $n notes match, top 10 shown)"
  echo "  with freshness check:  $fresh"
  echo "  --no-update:           $quick   (target < 50 ms)"
  if command -v rg >/dev/null; then
    rg=$(median_ms nothing rg -l "$word" "$tmp/vault")
    echo "  rg -l $word:     $rg   (zk search = $(ratio_ms "$fresh" "$rg") / $(ratio_ms "$quick" "$rg") it)"
  else
    echo "  rg -l: ripgrep not installed, skipped"
  fi
done
# QUERIES: each query's median wall and CPU ms, --no-update (the query
# alone) and with the freshness check, and its hits.
queries() { # BIN INDEX_DIR LABEL
  local q
  [ -n "${QUERIES:-}" ] || return 0
  IFS='|' read -r -a qs <<<"$QUERIES"
  for q in "${qs[@]}"; do
    local total
    total=$(ZK_INDEX_DIR="$2" "$1" --vault "$tmp/vault" search --no-update --format json -- "$q" 2>/dev/null | awk -F': ' '/"total"/ {gsub(/,/, "", $2); print $2; exit}')
    echo "  $3 zk search -- '$q' (${total:-0} of $n notes): --no-update $(ZK_INDEX_DIR="$2" median_ms nothing "$1" --vault "$tmp/vault" search --no-update -- "$q")," \
      "CPU $(ZK_INDEX_DIR="$2" median_cpu nothing "$1" --vault "$tmp/vault" search --no-update -- "$q") ms;" \
      "with the freshness check $(ZK_INDEX_DIR="$2" median_ms nothing "$1" --vault "$tmp/vault" search -- "$q")"
  done
}
if [ -n "${QUERIES:-}" ]; then
  echo
  echo "queries, one at a time (concurrency 1), $runs runs each, median:"
  queries "$tmp/zk" "$tmp/idx" new
fi
if [ -n "${OLD:-}" ]; then
  # The same vault, cold, new and old builds in turn (twice each: a
  # shared machine drifts), then search with --no-update.
  mkdir -p "$tmp/old"
  git archive "$OLD" | tar -x -C "$tmp/old"
  (cd "$tmp/old" && go build -o "$tmp/zk-old" ./cmd/zk)
  echo
  # CPU (user + system) beside the wall time: on a shared machine the wall
  # time follows the load, the CPU time much less.
  cold_run() { # BIN DIR: prints "WALL CPU PEAK_KB"
    local t0=$EPOCHREALTIME t1
    /usr/bin/time -f '%U %S %M' -o "$tmp/time.txt" env ZK_INDEX_DIR="$2" "$1" --vault "$tmp/vault" index >/dev/null 2>&1
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" '{printf "%.2f %.2f %d\n", b - a, $1 + $2, $3}' "$tmp/time.txt"
  }
  for round in $(seq "${ROUNDS:-2}"); do
    for b in old new; do
      bin="$tmp/zk"; [ "$b" = old ] && bin="$tmp/zk-old"
      rm -rf "$tmp/idx-$b"
      read -r wall cpu peak < <(cold_run "$bin" "$tmp/idx-$b")
      eval "t_$b=$wall c_$b=$cpu p_$b=$peak"
      eval "s_$b=$(du -sb "$tmp/idx-$b" | awk '{print $1}')"
    done
    echo "cold index, round $round (load $(cut -d' ' -f1 /proc/loadavg)): new $t_new s wall, $c_new s CPU, $((s_new / n)) bytes a note, peak $((p_new / 1024)) MB;" \
      "old ($OLD) $t_old s, $c_old s CPU, $((s_old / n)) bytes a note, peak $((p_old / 1024)) MB;" \
      "new/old $(awk -v a="$t_new" -v b="$t_old" 'BEGIN {printf "%.2f", a / b}')× wall," \
      "$(awk -v a="$c_new" -v b="$c_old" 'BEGIN {printf "%.2f", a / b}')× CPU," \
      "$(awk -v a="$s_new" -v b="$s_old" 'BEGIN {printf "%.2f", a / b}')× size"
  done
  if [ -n "${QUERIES:-}" ]; then
    echo "queries on the last round's indexes, new then old:"
    queries "$tmp/zk" "$tmp/idx-new" new
    queries "$tmp/zk-old" "$tmp/idx-old" old
  fi
  word=${words##* }
  new_q=$(ZK_INDEX_DIR="$tmp/idx-new" median_ms nothing zk search --no-update "$word")
  old_q=$(ZK_INDEX_DIR="$tmp/idx-old" median_ms nothing "$tmp/zk-old" --vault "$tmp/vault" search --no-update "$word")
  echo "zk search --no-update $word: new $new_q, old $old_q"
fi
true_ms=$(median_ms nothing "$tmp/zk" --version)
echo
echo "process floor (zk --version): $true_ms"
