#!/usr/bin/env bash
# Builds and runs the tokenizer benchmark: maskscope's tokenizer.json vs @huggingface/tokenizers.
#   bench/tokenizer/run.sh [build dir] [bench args...]   (default build dir: build-bench, Release)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build-bench}"
shift || true
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMASKSCOPE_BUILD_UI=OFF -DMASKSCOPE_BUILD_ENGINE=OFF
fi
cmake --build "$build" --target bench_tokenizer_hf
"$root/tools/fetch-tokenizers.sh"
exec "$build/bench/tokenizer/bench_tokenizer_hf" "$@"
