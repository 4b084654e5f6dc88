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
#                               # new/old (time, index size)
#
# Needs Go, GNU find and awk.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-10000}
runs=${RUNS:-10}
. bench/lib.sh
bench_zk
gen_vault "$n" "$tmp/vault"
export ZK_INDEX_DIR="$tmp/idx" ZK_TODAY=2026-12-02
zk() { "$tmp/zk" --vault "$tmp/vault" "$@"; }
md_bytes=$(find "$tmp/vault" -name '*.md' -printf '%s\n' | awk '{s+=$1} END {print s}')

edit_one() { echo "Edited line $RANDOM." >>"$tmp/vault/Permanent Notes/07/$(ls "$tmp/vault/Permanent Notes/07" | head -1)"; }

echo "vault: $n notes, $md_bytes bytes of markdown; $cpus cores; $runs runs per figure (median)"
echo

rss=""
t0=$EPOCHREALTIME
if [ -x /usr/bin/time ]; then
  rss=$(/usr/bin/time -f '%M' "$tmp/zk" --vault "$tmp/vault" index 2>&1 >/dev/null | tail -1)
else
  zk index 2>/dev/null
fi
t1=$EPOCHREALTIME
cold=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
idx_bytes=$(du -sb "$tmp/idx" | awk '{print $1}')
echo "cold zk index:       $cold s, $(awk -v n="$n" -v s="$cold" 'BEGIN {printf "%.0f", n / s}') notes/s on $cpus cores" \
  "(index $(awk -v a="$idx_bytes" -v b="$md_bytes" 'BEGIN {printf "%.2f", a / b}')× the markdown${rss:+, peak RSS $((rss / 1024)) MB})"

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

for word in 00042 denominator; do
  hits=$(grep -rlw --include='*.md' "$word" "$tmp/vault" | wc -l)
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
if [ -n "${OLD:-}" ]; then
  # The same vault, cold, new and old builds in turn (twice each: a
  # shared machine drifts), then search with --no-update.
  mkdir -p "$tmp/old"
  git archive "$OLD" | tar -x -C "$tmp/old"
  (cd "$tmp/old" && go build -o "$tmp/zk-old" ./cmd/zk)
  echo
  for round in 1 2; do
    for b in old new; do
      bin="$tmp/zk"; [ "$b" = old ] && bin="$tmp/zk-old"
      rm -rf "$tmp/idx-$b"
      t0=$EPOCHREALTIME
      ZK_INDEX_DIR="$tmp/idx-$b" "$bin" --vault "$tmp/vault" index >/dev/null 2>&1
      t1=$EPOCHREALTIME
      eval "t_$b=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')"
      eval "s_$b=$(du -sb "$tmp/idx-$b" | awk '{print $1}')"
    done
    echo "cold index, round $round: new $t_new s, $s_new bytes; old ($OLD) $t_old s, $s_old bytes;" \
      "new/old $(awk -v a="$t_new" -v b="$t_old" 'BEGIN {printf "%.2f", a / b}')× time," \
      "$(awk -v a="$s_new" -v b="$s_old" 'BEGIN {printf "%.2f", a / b}')× size (target <= 1.5×)"
  done
  new_q=$(ZK_INDEX_DIR="$tmp/idx-new" median_ms nothing zk search --no-update denominator)
  old_q=$(ZK_INDEX_DIR="$tmp/idx-old" median_ms nothing "$tmp/zk-old" --vault "$tmp/vault" search --no-update denominator)
  echo "zk search --no-update denominator: new $new_q, old $old_q"
fi
true_ms=$(median_ms nothing "$tmp/zk" --version)
echo
echo "process floor (zk --version): $true_ms"
