#!/usr/bin/env bash
# Fails when a tracked C++ file is not clean under the repo's .clang-format (CI runs it via ctest).
# Fix with: git ls-files '*.cpp' '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
command -v clang-format >/dev/null || { echo "format: clang-format is not installed (packaging/debian-packages.txt)"; exit 1; }
bad=0
while IFS= read -r f; do
  [ -f "$f" ] || continue
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then echo "not formatted: $f"; bad=$((bad + 1)); fi
done < <(git ls-files '*.cpp' '*.h' 2>/dev/null || find app core engine ui tests bench tools -name '*.cpp' -o -name '*.h')
[ "$bad" -eq 0 ] && echo "format: every C++ file is clean" || { echo "format: $bad file(s) need clang-format -i"; exit 1; }
