# llm-bench.sh: what bench/ollama.sh and bench/llama-server.sh share (source
# it after llm-build.sh). The caller sets $kind (ollama or llama-server),
# $label and $port, and starts the server serving the model as $model,
# writing its pid to $tmp/server.pid.
#
# The run, once the server answers:
#   1. the record: zk run on a copy of the examples vault, the seed note's
#      falsifier 1 with zk probe openai at every level, recorded in the
#      note as a user would record it;
#   2. the comparison, ROUNDS rounds: at each level, zk probe openai and
#      llmref measure (the server's own per-request figures, closed loop,
#      non-streamed, the probe's prompt and token budget; bench/llmref),
#      in windows that are WINDOWS=simultaneous (both send at once, so
#      both see the same server: the server serves twice the level's
#      streams) or WINDOWS=adjacent (one right after the other, alternating
#      which goes first). A shared machine's speed drifts: on this machine,
#      busy with other work, two passes at 16 streams differed by 2.7x, and
#      adjacent windows drift too, so their ratio mixes that drift with the
#      probe's error;
#   3. llmref compare: the medians per level, each ratio the columns beside
#      it, and the server's drift across rounds, reported apart. Exit 1 only
#      for the probe's error beyond TOLERANCE where it can be told from
#      drift (per-stream decode on the same requests, where the server
#      accounts for them: llama.cpp's timings; else on simultaneous
#      windows; the aggregate on simultaneous windows), a failed request or
#      the probe's consistency check; drift alone is reported, never a
#      failure.
# STREAM=1 (Ollama only) has llmref ask for streamed answers, as the probe
# does, its figures from the last chunk: like with like on the wire too.
# VAULT=DIR records the run in that vault (a copy of examples/vault you
# made) instead of a fresh copy. The copy of the vault, the server's log
# and every JSON stay in $OUT (default $ZK_BENCH_CACHE/runs/KIND-TIME).
export LC_ALL=C
levels=${LEVELS:-1,4,16}
duration=${DURATION:-15s}
rounds=${ROUNDS:-3}
max_tokens=${MAX_TOKENS:-128}
tolerance=${TOLERANCE:-0.10}
# windows: the caller's default (ollama.sh: simultaneous; llama-server.sh:
# adjacent, its timings judge decode on the probe's own requests).
windows=${WINDOWS:-${default_windows:-adjacent}}
model=zk-bench-llama-28m
# threads is the server's compute threads. One by default: ggml's threads
# meet at a spinning barrier after each operation, so on a machine whose
# cores other work shares, one preempted thread stalls the rest. Measured
# here (2 cores, load average 8-10 from other work): Ollama at one stream
# decoded 101-110 tok/s with 1 thread and 3-5 tok/s with 2.
threads=${THREADS:-1}
seed_note='Aggregate Throughput Hides the Per-Stream Speed a User Feels'

# preflight TOOL... stops the script unless every TOOL is installed and
# $port is free.
preflight() {
  local me tool
  me=$(basename "$0")
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$me: $tool is not installed" >&2; exit 1; }
  done
  port_free "$port" || { echo "$me: port $port is in use (set PORT)" >&2; exit 1; }
}

# setup builds zk, llmref and ggufgen into $tmp/bin and writes the model
# (once) into the cache; sets $gguf. The server and $tmp go when the
# script exits.
setup() {
  tmp=$(mktemp -d)
  trap 'stop_server; rm -rf "$tmp"' EXIT
  OUT=${OUT:-$ZK_BENCH_CACHE/runs/$kind-$(date -u +%Y%m%dT%H%M%SZ)}
  mkdir -p "$tmp/bin" "$OUT"
  go build -o "$tmp/bin/" ./cmd/zk ./bench/cmd/llmref ./bench/cmd/ggufgen
  export PATH=$tmp/bin:$PATH
  gguf=$ZK_BENCH_CACHE/$model.gguf
  if [ ! -f "$gguf" ]; then
    log "writing the model: $gguf"
    mkdir -p "$ZK_BENCH_CACHE"
    ggufgen -o "$gguf"
  fi
}

stop_server() {
  if [ -f "$tmp/server.pid" ]; then
    local pid
    pid=$(cat "$tmp/server.pid")
    # The server was started in its own session: end its group (Ollama's
    # runner is a child process).
    kill -- -"$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$tmp/server.pid"
  fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_http URL waits up to 120 s for URL to answer 200.
wait_http() {
  for _ in $(seq 240); do
    if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
    sleep 0.5
  done
  echo "$kind did not answer at $1; its log: $OUT/server.log" >&2
  tail -20 "$OUT/server.log" >&2
  return 1
}

# bench_run runs the record and the rounds against http://127.0.0.1:$port.
bench_run() {
  case "$windows" in
  simultaneous | adjacent) ;;
  *) echo "WINDOWS=$windows: simultaneous or adjacent" >&2; return 2 ;;
  esac
  local base=http://127.0.0.1:$port
  local vault=${VAULT:-$OUT/vault}
  if [ -z "${VAULT:-}" ]; then
    rm -rf "$vault"
    cp -r examples/vault "$vault"
  fi
  log "zk run: the seed note's falsifier 1, zk probe openai at $levels streams, recorded in $vault"
  local rc=0
  (cd "$vault" && zk run "$seed_note" --falsifier 1 -- \
    zk probe openai --url "$base/v1" --model "$model" --concurrency "$levels" \
    --duration "$duration" --max-tokens "$max_tokens" --format json) >"$OUT/record.json" 2>"$OUT/run.err" || rc=$?
  cat "$OUT/run.err" >&2
  [ "$rc" -le 1 ] || { echo "zk run exited $rc" >&2; return 1; }

  local pairs=() r c p f
  for r in $(seq "$rounds"); do
    for c in ${levels//,/ }; do
      p=$OUT/probe-$c-$r.json
      f=$OUT/ref-$c-$r.json
      if [ "$windows" = simultaneous ]; then
        log "round $r of $rounds, $c streams: llmref and zk probe at once"
        measure_ref "$c" "$f" &
        local refpid=$!
        measure_probe "$c" "$p"
        wait "$refpid"
        pairs+=("$p" "$f")
        continue
      fi
      log "round $r of $rounds, $c streams: $( ((r % 2)) && echo "llmref, then zk probe" || echo "zk probe, then llmref")"
      if ((r % 2)); then
        measure_ref "$c" "$f"
        measure_probe "$c" "$p"
      else
        measure_probe "$c" "$p"
        measure_ref "$c" "$f"
      fi
      pairs+=("$p" "$f")
    done
  done

  echo
  echo "## $label"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, server threads: $threads, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $rounds rounds, ${max_tokens} tokens a request, reference $( [ "${STREAM:-0}" = 1 ] && echo streamed || echo "not streamed"), $windows windows of ${duration}; model: $model ($gguf, random weights, 28M parameters, F16)."
  echo
  local crc=0
  llmref compare -tolerance "$tolerance" -windows "$windows" "${pairs[@]}" || crc=$?
  echo
  echo "The run as zk recorded it in the seed note ($vault):"
  echo
  local note="$vault/3. Resources/Permanent Notes/$seed_note.md"
  local id
  id=$(sed -n 's/^recorded run \([^ ]*\) in .*/\1/p' "$OUT/run.err" | tail -1)
  sed -n "/^<!-- zk:run id=$id /,/^<!-- zk:run-end id=$id /p" "$note"
  return "$crc"
}

measure_ref() {
  local stream=()
  [ "${STREAM:-0}" = 1 ] && stream=(-stream)
  llmref measure -kind "$kind" -url "http://127.0.0.1:$port" -model "$model" -levels "$1" \
    -window "$duration" -max-tokens "$max_tokens" "${stream[@]}" >"$2"
}

measure_probe() {
  zk probe openai --url "http://127.0.0.1:$port/v1" --model "$model" --concurrency "$1" \
    --duration "$duration" --max-tokens "$max_tokens" --format json >"$2"
}
