#!/usr/bin/env bash
# reading.sh: every reading command on a vault, in CPU seconds
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
#   VAULT=~/help NOTE=Home.md bench/reading.sh       # a copy of a vault of yours
#   ONLY="check graph" bench/reading.sh               # those commands alone
#   EDIT=rename bench/reading.sh                      # one edit: a rename (below)
#   EDIT=add AFTER=list ONLY=check bench/reading.sh   # check after an add and zk list
#
# VAULT= times a copy of that vault (its files dated an hour back) instead
# of a generated one; NOTE= is the note backlinks and links are asked of
# and the one edited (default: the second note by path). base evaluates
# zk-bench.base, a table of every note by name, written into the vault.
#
# Needs Go, GNU find and awk.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-10000}
runs=${RUNS:-5}
. bench/lib.sh
bench_zk
vault="$tmp/vault"
if [ -n "${VAULT:-}" ]; then
  cp -R "$VAULT" "$vault"
  rm -rf "$vault/.git" "$vault/.zk"
  find "$vault" -type f -exec touch -d '-1 hour' {} +
  n=$(find "$vault" -name '*.md' -not -path '*/.*' | wc -l)
  note=${NOTE:-$(cd "$vault" && find . -name '*.md' -not -path '*/.*' | sort | sed -n 2p)}
else
  gen_vault "$n" "$vault"
  note=${NOTE:-$(cd "$vault" && find . -path '*/Permanent Notes/*' -name '*.md' | sort | sed -n 2p)}
fi
printf 'views:\n  - type: table\n    name: All\n    filters: file.ext == "md"\n    order: [file.name]\n' >"$vault/zk-bench.base"
touch -d '-1 hour' "$vault/zk-bench.base"
export ZK_TODAY=2026-12-02
note=${note#./}
edited="$vault/$note"

# EDIT= what "one edit" is before each run: append (to NOTE), add (a note
# linking to NOTE), remove (the last note by path) or rename (a note other
# than NOTE, back and forth).
case ${EDIT:-append} in
append) edit_one() { echo "edited $EPOCHREALTIME" >>"$edited"; touch -d '-1 hour' "$edited"; } ;;
add) edit_one() { local f="$vault/added $EPOCHREALTIME.md"; printf '# Added\n\n[[%s]]\n' "${note%.md}" >"$f"; touch -d '-1 hour' "$f"; } ;;
remove) edit_one() { rm "$(find "$vault" -name '*.md' -not -path '*/.*' -not -path "$edited" | sort | tail -1)"; } ;;
rename) renamed=$(find "$vault" -name '*.md' -not -path '*/.*' -not -path "$edited" | sort | sed -n 3p)
  edit_one() { if [ -e "$renamed" ]; then mv "$renamed" "${renamed%.md} 2.md"; else mv "${renamed%.md} 2.md" "$renamed"; fi; } ;;
esac

# AFTER= a command run after each edit, untimed, before the command timed
# (AFTER=list: zk list saves the model file over the files that came or
# went, keeping or dropping the other commands' sections).
after_this() { edit_one; [ -z "${AFTER:-}" ] || XDG_CACHE_HOME="$tmp/cache" "$tmp/zk" --vault "$vault" $AFTER >/dev/null 2>&1 || true; }
after_base() { edit_one; [ -z "${AFTER:-}" ] || XDG_CACHE_HOME="$tmp/cache-base" "$BASELINE" --vault "$vault" $AFTER >/dev/null 2>&1 || true; }

commands=("check" "stale" "list" "runs" "properties" "graph" "backlinks|$note" "links|$note" "base|zk-bench.base")
stat=$(median_cpu nothing find "$vault" -printf '%s %T@\n')
echo "vault: $n notes${VAULT:+ (a copy of $VAULT)}; one edit: ${EDIT:-append}${AFTER:+, then zk $AFTER}; $cpus cores, load average $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs; CPU ms (user+sys)"
echo "stat floor (find -printf): $stat ms"
printf '%-22s %10s %8s %10s %8s' command unchanged xfloor "one-edit" xfloor
[ -n "${BASELINE:-}" ] && printf ' %12s %10s %9s %9s' base-unch base-edit new/base new/base
echo
for c in "${commands[@]}"; do
  IFS='|' read -ra args <<<"$c"
  [[ -z "${ONLY:-}" || " $ONLY " == *" ${args[0]} "* ]] || continue
  this() { XDG_CACHE_HOME="$tmp/cache" "$tmp/zk" --vault "$vault" "${args[@]}"; }
  base() { XDG_CACHE_HOME="$tmp/cache-base" "$BASELINE" --vault "$vault" "${args[@]}"; }
  this >/dev/null 2>&1 || true
  u=$(median_cpu nothing this)
  e=$(median_cpu after_this this)
  printf '%-22s %10s %8s %10s %8s' "${args[0]}" "$u" "$(ratio "$u" "$stat")x" "$e" "$(ratio "$e" "$stat")x"
  if [ -n "${BASELINE:-}" ]; then
    base >/dev/null 2>&1 || true
    bu=$(median_cpu nothing base)
    be=$(median_cpu after_base base)
    printf ' %12s %10s %9s %9s' "$bu" "$be" "$(ratio "$u" "$bu")x" "$(ratio "$e" "$be")x"
    if ! cmp -s <(this 2>&1) <(base 2>&1); then printf '  (output differs from the baseline)'; fi
  fi
  echo
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
