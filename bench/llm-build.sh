#!/usr/bin/env bash
# llm-build.sh: build the two real LLM servers the seed note's falsifier is
# tried against, at pinned versions, into a cache folder. Run it to build
# (it prints the path of each binary on stdout, its progress on stderr):
#
#   bench/llm-build.sh                 # both
#   bench/llm-build.sh ollama          # or llama-server
#
# or source it for its functions (bench/ollama.sh, bench/llama-server.sh).
# Nothing here downloads weights: the model is written by bench/gguf.
#
#   cache=${ZK_BENCH_CACHE:-~/.cache/zk-bench}
#   ollama_bin       -> $cache/ollama-v0.17.4/ollama
#   llama_server_bin -> $cache/llama.cpp-<bundle>/build/bin/llama-server
#
# Where the sources come from (the network reaches only the Go module proxy,
# Debian and npm):
#   - Ollama is a Go module, so the proxy serves it; but module zips drop
#     every folder named vendor/, and llama.cpp's vendored headers live in
#     one. node-llama-cpp (npm) ships llama.cpp's source as a git bundle,
#     llama/gitRelease.bundle, whose vendor/ has the four headers Ollama
#     needs (the json and stb headers identical, a miniaudio that compiles).
#   - llama-server is built with cmake from that same bundle.
# Both are compiled for x86-64-v3 (AVX2, FMA, F16C): without it Ollama's CPU
# code is plain SSE2, slow to decode and with almost no gain from batching.
export LC_ALL=C
ZK_BENCH_CACHE=${ZK_BENCH_CACHE:-$HOME/.cache/zk-bench}
OLLAMA_VERSION=${OLLAMA_VERSION:-v0.17.4}
NODE_LLAMA_CPP_VERSION=${NODE_LLAMA_CPP_VERSION:-3.22.1}
JOBS=${JOBS:-$(nproc)}

log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

# llama_src prints a directory holding llama.cpp's source, cloned from
# node-llama-cpp's bundle (once).
llama_src() {
  local dir=$ZK_BENCH_CACHE/llama.cpp-node-llama-cpp-$NODE_LLAMA_CPP_VERSION
  if [ ! -f "$dir/CMakeLists.txt" ]; then
    command -v npm >/dev/null || { echo "llm-build.sh: npm is not installed" >&2; return 1; }
    local tmp
    tmp=$(mktemp -d)
    log "npm pack node-llama-cpp@$NODE_LLAMA_CPP_VERSION"
    (cd "$tmp" && npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" >/dev/null) || { rm -rf "$tmp"; return 1; }
    tar -xzf "$tmp"/node-llama-cpp-*.tgz -C "$tmp" package/llama/gitRelease.bundle
    rm -rf "$dir.tmp"
    git -c advice.detachedHead=false clone -q "$tmp/package/llama/gitRelease.bundle" "$dir.tmp" || { rm -rf "$tmp"; return 1; }
    rm -rf "$tmp" "$dir"
    mv "$dir.tmp" "$dir"
  fi
  echo "$dir"
}

# ollama_bin prints the path of an Ollama binary built from the module proxy.
ollama_bin() {
  local dir=$ZK_BENCH_CACHE/ollama-$OLLAMA_VERSION
  if [ ! -x "$dir/ollama" ]; then
    local src mod
    src=$(llama_src) || return 1
    log "go mod download github.com/ollama/ollama@$OLLAMA_VERSION"
    mod=$(GOFLAGS=-mod=mod go mod download -json "github.com/ollama/ollama@$OLLAMA_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    [ -d "$mod" ] || { echo "llm-build.sh: go mod download gave no directory" >&2; return 1; }
    rm -rf "$dir.src"
    cp -r "$mod" "$dir.src"
    chmod -R u+w "$dir.src"
    local h
    for h in nlohmann/json.hpp nlohmann/json_fwd.hpp stb/stb_image.h miniaudio/miniaudio.h; do
      mkdir -p "$dir.src/llama/llama.cpp/vendor/$(dirname "$h")"
      cp "$src/vendor/$h" "$dir.src/llama/llama.cpp/vendor/$h"
    done
    log "go build ollama $OLLAMA_VERSION (cgo, -O3 -march=x86-64-v3; minutes)"
    mkdir -p "$dir"
    (cd "$dir.src" &&
      CGO_ENABLED=1 CGO_CFLAGS="-O3 -march=x86-64-v3" CGO_CXXFLAGS="-O3 -march=x86-64-v3" \
        go build -p "$JOBS" -trimpath -o "$dir/ollama.tmp" .) || return 1
    mv "$dir/ollama.tmp" "$dir/ollama"
    rm -rf "$dir.src"
  fi
  echo "$dir/ollama"
}

# llama_server_bin prints the path of llama.cpp's llama-server built with cmake.
llama_server_bin() {
  local src
  src=$(llama_src) || return 1
  local bin=$src/build/bin/llama-server
  if [ ! -x "$bin" ]; then
    command -v cmake >/dev/null || { echo "llm-build.sh: cmake is not installed (Debian: apt-get install cmake)" >&2; return 1; }
    log "cmake llama-server (Release, x86-64-v3; minutes)"
    cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release \
      -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
      -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
      -DCMAKE_C_FLAGS="-march=x86-64-v3" -DCMAKE_CXX_FLAGS="-march=x86-64-v3" >&2 || return 1
    cmake --build "$src/build" --config Release -j "$JOBS" --target llama-server >&2 || return 1
  fi
  echo "$bin"
}

# Run directly (not sourced): build what is asked, print each path.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case "${1:-all}" in
  ollama) ollama_bin ;;
  llama-server) llama_server_bin ;;
  all) ollama_bin && llama_server_bin ;;
  *)
    echo "usage: bench/llm-build.sh [ollama|llama-server|all]" >&2
    exit 2
    ;;
  esac
fi
