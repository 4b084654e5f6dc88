#!/usr/bin/env bash
# ollama.sh: the seed note's falsifier against a real Ollama, and zk probe
# openai held to Ollama's own per-request figures.
#
# Builds Ollama at a pinned version into a cache folder (bench/llm-build.sh:
# the module from the Go module proxy, four headers the module zip lacks
# from npm's node-llama-cpp; minutes, once), writes a random-weight llama
# model (bench/cmd/ggufgen: 28M parameters, 56 MB, shaped so that every
# request returns exactly its token budget), serves it on loopback with 16
# parallel slots, and runs bench/llm-bench.sh's comparison: the seed note's
# first falsifier through zk run on a copy of the examples vault, at 1, 4
# and 16 streams, then rounds of zk probe openai, each in the same window
# as Ollama's own eval_count, eval_duration and total_duration per request
# (llmref; WINDOWS=simultaneous, 32 slots so each side has 16; Ollama's
# OpenAI API sends no timings, so the same requests cannot be compared).
# Prints the table and the server's drift across rounds; exits 1 if the
# probe's error is over TOLERANCE or a request failed, never for drift.
#
#   bench/ollama.sh               # LEVELS=1,4,16 DURATION=15s ROUNDS=3 MAX_TOKENS=128
#   OUT=/tmp/ollama-run THREADS=2 bench/ollama.sh
#   STREAM=1 bench/ollama.sh       # the reference streamed too, as the probe is
#
# Environment: ZK_BENCH_CACHE (default ~/.cache/zk-bench), PORT (default
# 11434, Ollama's), THREADS (the model's num_thread; default 1, see
# bench/llm-bench.sh; "auto" leaves it to Ollama), OUT (where the vault copy, the server's log and the JSON are
# kept; default $ZK_BENCH_CACHE/runs/ollama-TIME).
# Needs Go, a C/C++ compiler, npm, git and curl.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/llm-build.sh
default_windows=simultaneous
source bench/llm-bench.sh
kind=ollama
port=${PORT:-11434}
preflight go gcc g++ npm git curl

bin=$(ollama_bin)
setup
label="Against Ollama $OLLAMA_VERSION ($([ "$windows" = simultaneous ] && echo 32 || echo 16) parallel slots, $(nproc) CPUs)"

start_server() {
  # Its own home and model store: nothing is written to the user's ~/.ollama.
  mkdir -p "$tmp/home"
  HOME=$tmp/home OLLAMA_HOST=127.0.0.1:$port OLLAMA_MODELS=$tmp/home/models \
    OLLAMA_NUM_PARALLEL=$([ "$windows" = simultaneous ] && echo 32 || echo 16) OLLAMA_MAX_LOADED_MODELS=1 OLLAMA_KEEP_ALIVE=-1 \
    OLLAMA_CONTEXT_LENGTH=1024 OLLAMA_NOPRUNE=1 \
    setsid "$bin" serve >"$OUT/server.log" 2>&1 &
  echo $! >"$tmp/server.pid"
  wait_http "http://127.0.0.1:$port/api/version"
  {
    echo "FROM $gguf"
    [ "$threads" = auto ] || echo "PARAMETER num_thread $threads"
  } >"$tmp/Modelfile"
  HOME=$tmp/home OLLAMA_HOST=127.0.0.1:$port "$bin" create "$model" -f "$tmp/Modelfile" >"$tmp/create.log" 2>&1 ||
    { cat "$tmp/create.log" >&2; return 1; }
  # Load it before anything is timed.
  curl -fsS -o /dev/null "http://127.0.0.1:$port/api/generate" -d "{\"model\":\"$model\",\"prompt\":\"hi\",\"stream\":false,\"options\":{\"num_predict\":4}}"
}

log "serving $model with $bin on 127.0.0.1:$port"
start_server
bench_run
