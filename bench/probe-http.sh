#!/usr/bin/env bash
# probe-http.sh: zk probe http and wrk, side by side, on the same nginx.
#
# Starts a private nginx on a loopback port (nginx-loopback.sh: one worker,
# a 612-byte page), then at each concurrency runs wrk and `zk probe http`
# for the same duration, ROUNDS times, alternating which goes first so
# drift on a shared machine hits both alike. With taskset and 2 or more
# CPUs, nginx's worker is pinned to the last CPU and both clients to the
# others: on a 2-core machine a ping-pong at concurrency 1 otherwise runs
# 13k or 80k requests/s depending on whether the scheduler happens to put
# client and server on one core, and no comparison survives that. Prints the figures of every
# round, the median of each tool per level with the ratio zk ÷ wrk (the
# target: aggregate requests/s within 10% of wrk's), and one full zk probe
# table (per stream and aggregate).
#
#   bench/probe-http.sh                 # LEVELS=1,4,16 DURATION=5 ROUNDS=3
#   LEVELS=1,16 DURATION=10 ROUNDS=5 bench/probe-http.sh
#
# CPU idle states. Between two requests at low concurrency every CPU goes
# idle, and what waking up costs decides the figure more than either
# client does: on this project's KVM machine (cpuidle-haltpoll with
# guest_halt_poll_ns=0, so every idle CPU halts and exits to the host)
# concurrency 1 ran 13k requests/s with halting and 75-80k with polling,
# and at concurrency 4 wrk, ab and zk spread from 58k to 108k depending on
# how often each client's own CPU happened to halt. So when the script may
# write /dev/cpu_dma_latency (root) it holds it at 0 for the run, which
# keeps idle CPUs polling: what tuned's latency-performance and
# network-latency profiles do for the same reason. IDLE=asis keeps the
# machine as configured; the header says which was measured.
#
# Needs nginx, wrk (Debian: apt-get install nginx wrk), python3 and Go.
# With ApacheBench installed (apt-get install apache2-utils) it also runs
# ab after each pair, a third client to referee where the two disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
levels=${LEVELS:-1,4,16}
duration=${DURATION:-5}
rounds=${ROUNDS:-3}
cpus=$(nproc)
for tool in wrk python3 go; do
  command -v "$tool" >/dev/null || { echo "probe-http.sh: $tool is not installed" >&2; exit 1; }
done

tmp=$(mktemp -d)
holder=""
trap 'bench/nginx-loopback.sh stop "$tmp/nginx" || true; [ -z "$holder" ] || kill "$holder" 2>/dev/null; rm -rf "$tmp"' EXIT
idle="as configured ($(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo unknown) cpuidle driver)"
if [ "${IDLE:-poll}" = poll ] && [ -w /dev/cpu_dma_latency ]; then
  # The request lasts as long as the file stays open.
  python3 -c 'import os, signal, struct
fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
os.write(fd, struct.pack("i", 0))
signal.pause()' &
  holder=$!
  sleep 0.2
  if kill -0 "$holder" 2>/dev/null; then
    idle="polling (/dev/cpu_dma_latency held at 0)"
  else
    holder=""
    idle="$idle; /dev/cpu_dma_latency could not be held"
  fi
fi
go build -o "$tmp/zk" ./cmd/zk
mkdir "$tmp/nginx"
pin=()
placement="client and server share $cpus CPUs"
if command -v taskset >/dev/null && (( cpus >= 2 )); then
  export NGINX_CPU=$((cpus - 1))
  pin=(taskset -c "0-$((cpus - 2))")
  placement="nginx worker on CPU $NGINX_CPU, clients on CPU 0-$((cpus - 2))"
  cpus=$((cpus - 1))
fi
url=$(bench/nginx-loopback.sh start "$tmp/nginx")

# One line per measurement: tool concurrency round req/s p50-ms p99-ms
results=$tmp/results.txt
wrk_run() { # concurrency round
  local c=$1 threads=$(( $1 < cpus ? $1 : cpus ))
  "${pin[@]}" wrk -t"$threads" -c"$c" -d"${duration}s" --latency "$url" > "$tmp/wrk.out"
  python3 - "$c" "$2" "$tmp/wrk.out" >> "$results" <<'PY'
import re, sys
c, r, path = sys.argv[1:]
out = open(path).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
def ms(p):
    v, unit = re.search(p + r"%\s+([\d.]+)(us|ms|s)\b", out).groups()
    return float(v) * {"us": 1e-3, "ms": 1, "s": 1e3}[unit]
print("wrk", c, r, rps, ms("50"), ms("99"))
PY
}
# ApacheBench, when installed (Debian's apache2-utils), is a third client:
# a referee where zk and wrk disagree. Keep-alive, one connection per
# stream, as the other two.
ab_run() { # concurrency round
  command -v ab >/dev/null || return 0
  "${pin[@]}" ab -q -k -c "$1" -t "$duration" -n 100000000 "$url" > "$tmp/ab.out" 2>&1 || return 0
  python3 - "$1" "$2" "$tmp/ab.out" >> "$results" <<'PY'
import re, sys
c, r, path = sys.argv[1:]
out = open(path).read()
rps = float(re.search(r"Requests per second:\s+([\d.]+)", out).group(1))
pct = lambda p: float(re.search(r"^\s+" + p + r"%\s+(\d+)", out, re.M).group(1))
print("ab", c, r, rps, pct("50"), pct("99"))
PY
}
zk_run() { # concurrency round
  "${pin[@]}" "$tmp/zk" probe http --url "$url" --concurrency "$1" --duration "${duration}s" --format json > "$tmp/zk.json"
  python3 - "$1" "$2" "$tmp/zk.json" >> "$results" <<'PY'
import json, sys
c, r, path = sys.argv[1:]
lv = json.load(open(path))["levels"][0]
print("zk", c, r, lv["request_throughput"]["avg"], lv["request_latency"]["p50"], lv["request_latency"]["p99"])
PY
}

echo "nginx $(nginx -v 2>&1 | sed 's/.*: //') at $url (1 worker) · $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2) · $(nproc) CPUs: $placement"
echo "CPU idle states: $idle"
echo "levels $levels · $duration s per run · $rounds rounds, order alternating · wrk threads = min(concurrency, $cpus)"
for round in $(seq 1 "$rounds"); do
  for c in ${levels//,/ }; do
    if (( round % 2 )); then wrk_run "$c" "$round"; zk_run "$c" "$round"
    else zk_run "$c" "$round"; wrk_run "$c" "$round"; fi
    ab_run "$c" "$round"
  done
done

python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
runs = {}
for tool, c, r, rps, p50, p99 in rows:
    runs.setdefault((tool, int(c)), []).append((float(rps), float(p50), float(p99)))
levels = sorted({c for _, c in runs})
print()
print("Every round (aggregate requests/s over the run; latency ms):")
print()
print("| concurrency | round | wrk req/s | zk probe req/s | zk ÷ wrk |")
print("|---:|---:|---:|---:|---:|")
for c in levels:
    for i, (w, z) in enumerate(zip(runs[("wrk", c)], runs[("zk", c)]), 1):
        print(f"| {c} | {i} | {w[0]:.0f} | {z[0]:.0f} | {z[0]/w[0]:.2f} |")
print()
print("Median over rounds:")
print()
print("| concurrency | wrk aggregate req/s | zk probe aggregate req/s | zk ÷ wrk | per-round ratios min–max | within 10% | wrk latency ms p50 / p99 | zk latency ms p50 / p99 |")
print("|---:|---:|---:|---:|---:|:---:|---:|---:|")
for c in levels:
    med = lambda tool, k: statistics.median(x[k] for x in runs[(tool, c)])
    ratio = med("zk", 0) / med("wrk", 0)
    ratios = [z[0] / w[0] for w, z in zip(runs[("wrk", c)], runs[("zk", c)])]
    ok = "yes" if abs(1 - ratio) <= 0.10 else "NO"
    print(f"| {c} | {med('wrk',0):.0f} | {med('zk',0):.0f} | {ratio:.2f} | {min(ratios):.2f}–{max(ratios):.2f} | {ok} | "
          f"{med('wrk',1):.3f} / {med('wrk',2):.3f} | {med('zk',1):.3f} / {med('zk',2):.3f} |")
if any(t == "ab" for t, _ in runs):
    print()
    print("ApacheBench as a third client (median over rounds; its latency percentiles are whole ms):")
    print()
    print("| concurrency | ab req/s | wrk req/s | zk probe req/s | zk ÷ ab | zk ÷ wrk |")
    print("|---:|---:|---:|---:|---:|---:|")
    for c in levels:
        if ("ab", c) not in runs:
            continue
        m = {t: statistics.median(x[0] for x in runs[(t, c)]) for t in ("ab", "wrk", "zk")}
        print(f"| {c} | {m['ab']:.0f} | {m['wrk']:.0f} | {m['zk']:.0f} | {m['zk']/m['ab']:.2f} | {m['zk']/m['wrk']:.2f} |")
PY

echo
echo "zk probe's own table, one sweep:"
echo
"${pin[@]}" "$tmp/zk" probe http --url "$url" --concurrency "$levels" --duration "${duration}s" --format markdown
