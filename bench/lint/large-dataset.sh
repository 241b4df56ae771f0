#!/usr/bin/env bash
# Lints a large generated JSONL dataset (default 500 MB of no_robots-sized conversations) with the
# real Qwen3 tokenizer and template through the whole `maskscope lint` process: wall time, peak
# memory (RSS), conversations/s and MB/s. Progress shows on the terminal (stderr).
#   bench/lint/large-dataset.sh [build dir] [MB]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
mb="${2:-500}"
cache="${MASKSCOPE_TOKENIZER_CACHE:-${HOME:-/root}/.cache/maskscope/tokenizers}"
cmake --build "$build" --target maskscope lint_throughput >/dev/null
"$root/tools/fetch-tokenizers.sh" >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# About 2.02 KB a conversation (measured on the generator's output).
n=$(( mb * 1000000 / 2025 ))
"$build/bench/lint/lint_throughput" "$n" --write "$work/data.jsonl"
bytes=$(stat -c %s "$work/data.jsonl")
set +e
/usr/bin/time -f "%e %M" -o "$work/time" "$build/bin/maskscope" lint "$work/data.jsonl" \
  --tokenizer "$cache/qwen3" --json > "$work/report.json"
status=$?
set -e
read -r secs kb < "$work/time"
/usr/bin/python3 - "$work/report.json" "$bytes" "$secs" "$kb" "$status" <<'PY'
import json, sys
report, size, secs, kb, status = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
r = json.load(open(report))
rows = r.get("summary", {}).get("rows_read") or r.get("summary", {}).get("rows") or 0
print(f"dataset: {size / 1e6:.0f} MB, {rows} conversations; lint exit status {status}")
print(f"lint: {secs:.1f} s = {rows / secs:.0f} conversations/s = {size / 1e6 / secs:.1f} MB/s; peak RSS {kb / 1024:.0f} MB "
      f"({kb * 1024 / size:.2f}x the dataset size)")
PY
