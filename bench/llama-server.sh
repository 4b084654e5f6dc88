#!/usr/bin/env bash
# llama-server.sh: bench/ollama.sh's twin for llama.cpp's llama-server.
#
# Builds llama-server with cmake (Release, x86-64-v3) from the llama.cpp
# source npm's node-llama-cpp ships as a git bundle (bench/llm-build.sh;
# minutes, once), writes the random-weight model (bench/cmd/ggufgen),
# serves it on loopback with 16 parallel slots of 1024 tokens each, and
# runs bench/llm-bench.sh's comparison: the seed note's first falsifier
# through zk run on a copy of the examples vault at 1, 4 and 16 streams,
# then rounds of zk probe openai, each next to the server's own timings
# (predicted_n, predicted_ms, prompt_ms) per request (llmref). The probe's
# per-stream decode is judged on the same requests: llama-server sends its
# timings with each streamed response, and the probe sets them beside its
# own (server_account). The windows are adjacent (WINDOWS=simultaneous to
# judge the aggregate too; it needs --parallel 32, set by it). Prints the
# table and the server's drift across rounds; exits 1 if the probe's error
# is over TOLERANCE or a request failed, never for drift.
#
#   bench/llama-server.sh         # LEVELS=1,4,16 DURATION=15s ROUNDS=3 MAX_TOKENS=128
#
# llama-server closes the connection after each streamed response while
# still advertising keep-alive: zk probe openai sends a request whose
# reused connection died before any response byte once more, on a fresh
# connection, and counts it as retried (the table's "retried" column).
#
# Environment: ZK_BENCH_CACHE (default ~/.cache/zk-bench), PORT (default
# 8080), THREADS (--threads; default 1, see bench/llm-bench.sh; "auto"
# leaves it to llama-server), OUT (where the
# vault copy, the server's log and the JSON are kept; default
# $ZK_BENCH_CACHE/runs/llama-server-TIME). Needs Go, cmake, a C/C++
# compiler, npm, git and curl.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/llm-build.sh
default_windows=adjacent
source bench/llm-bench.sh
kind=llama-server
port=${PORT:-8080}
preflight go cmake gcc g++ npm git curl

bin=$(llama_server_bin)
setup
label="Against llama.cpp's llama-server (node-llama-cpp $NODE_LLAMA_CPP_VERSION's llama.cpp, $slots parallel slots, $(nproc) CPUs)"

slots=$([ "$windows" = simultaneous ] && echo 32 || echo 16)

start_server() {
  local t=()
  [ "$threads" = auto ] || t=(--threads "$threads" --threads-batch "$threads")
  setsid "$bin" -m "$gguf" --host 127.0.0.1 --port "$port" --alias "$model" \
    --parallel "$slots" --ctx-size $((slots * 1024)) --metrics "${t[@]}" >"$OUT/server.log" 2>&1 &
  echo $! >"$tmp/server.pid"
  wait_http "http://127.0.0.1:$port/health"
}

log "serving $model with $bin on 127.0.0.1:$port"
start_server
bench_run
