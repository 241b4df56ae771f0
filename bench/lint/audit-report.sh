#!/usr/bin/env bash
# The cost of `lint --report` on a large dataset (default 500 MB of no_robots-sized Qwen3
# conversations, as large-dataset.sh makes): wall time and peak RSS of `lint --json --report` against
# plain `lint --json` in the same run, as ratios; CPU time (user + sys) too, since the wall time of
# a shared machine is noisy.   bench/lint/audit-report.sh [build dir] [MB]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
mb="${2:-500}"
cache="${MASKSCOPE_TOKENIZER_CACHE:-${HOME:-/root}/.cache/maskscope/tokenizers}"
work="$(mktemp -d "${TMPDIR:-/tmp}/audit-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
n=$(( mb * 1000000 / 2025 )) # about 2.02 KB a conversation
"$build/bench/lint/lint_throughput" "$n" --write "$work/data.jsonl" >/dev/null
bytes=$(stat -c %s "$work/data.jsonl")
run() { # name, extra options: "seconds peak_kB" into $work/name.time
  local name="$1"; shift
  set +e
  /usr/bin/time -f "%e %M %U %S" -o "$work/$name.time" "$build/bin/maskscope" lint "$work/data.jsonl" \
    --tokenizer "$cache/qwen3" --collator trl-assistant-only --json --progress "$@" > "$work/$name.json"
  set -e
}
run plain
run report --report "$work/audit.html"
/usr/bin/python3 - "$work" "$bytes" <<'PY'
import json, os, sys
work, size = sys.argv[1], int(sys.argv[2])
t = {k: open(f"{work}/{k}.time").read().split() for k in ("plain", "report")}
secs = {k: float(v[0]) for k, v in t.items()}
kb = {k: int(v[1]) for k, v in t.items()}
cpu = {k: float(v[2]) + float(v[3]) for k, v in t.items()}
rows = json.load(open(f"{work}/plain.json"))["summary"]["rows_read"]
same = json.load(open(f"{work}/plain.json"))["summary"] == json.load(open(f"{work}/report.json"))["summary"]
print(f"dataset: {size / 1e6:.0f} MB, {rows} conversations; summaries identical: {same}")
for k in ("plain", "report"):
    print(f"lint --json{' --report' if k == 'report' else ''}: {secs[k]:.1f} s wall, {cpu[k]:.1f} s CPU, "
          f"peak RSS {kb[k] / 1024:.0f} MB")
print(f"ratios report/plain: wall {secs['report'] / secs['plain']:.2f}x, CPU {cpu['report'] / cpu['plain']:.2f}x, peak RSS {kb['report'] / kb['plain']:.2f}x; "
      f"page {os.path.getsize(work + '/audit.html') / 1e3:.0f} kB")
PY
