#!/usr/bin/env bash
# README's second command: install what is missing, build, fetch the real tokenizers the tests
# compare against (cached outside the repository), and run every test with ctest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/packaging/setup-debian.sh"
bash "$root/tools/fetch-tokenizers.sh"
bash "$root/packaging/build.sh" -DMASKSCOPE_FATAL_WARNINGS=ON
cd "$root/build"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"$(nproc)" "$@"
