#!/usr/bin/env bash
# Configures and builds maskscope into ./build with Ninja (all targets: app, LibTorch module,
# tests, benchmarks). Extra arguments go to the CMake configure step.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${MASKSCOPE_BUILD_TYPE:-RelWithDebInfo}" "$@"
cmake --build build -j"$(nproc)"
