#!/usr/bin/env bash
# Scaling of the commands that read long rows and many rows: wall time, CPU time (user + sys) and
# peak RSS (/usr/bin/time) of `lint`, `snapshot --view attention` and `collate --json` at each row
# length (one padding-free row of the demo conversations, builtin:demo) and each row count
# (pre-tokenized rows of 8-40 ids through TRL padding_free), each series fitted to a slope on
# log-log axes (1 = linear, 2 = quadratic) and drawn as a PNG with Qt Charts (bench_scaling_chart).
#   bench/lint/scaling.sh [build dir] [out.png]
#   LENGTHS="1000 4000 16000 64000 128000" ROWS="10000 100000 1000000" (the defaults) choose the sizes.
# The row-count `collate --json` stops at 2^24 values in one batch (docs/cli.md), so it runs up to
# 100,000 rows. Inputs: tools/scale/make-scale-inputs.py.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
png="${2:-$root/build/scaling.png}"
lengths="${LENGTHS:-1000 4000 16000 64000 128000}"
rows="${ROWS:-10000 100000 1000000}"
bin="$build/bin/maskscope"
make="$root/tools/scale/make-scale-inputs.py"
work="$(mktemp -d "${TMPDIR:-/tmp}/scaling-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
trl='{"framework": "trl", "version": "1.10", "pad_token_id": 0, "padding_free": true}'
trl_long='{"framework": "trl", "version": "1.10", "pad_token_id": 0, "max_length": null}'
results="$work/results.tsv"
printf 'command\tseries\tsize\twall_s\tcpu_s\tpeak_mb\n' > "$results"

measure() { # command name, series, size, argv...: one line of results.tsv (exit 0 or 1 is success)
  local name="$1" series="$2" size="$3"
  shift 3
  set +e
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  set -e
  if [ "$rc" -gt 1 ]; then
    echo "$name at $size failed (exit $rc): $(tail -c 300 "$work/err")" >&2
    return
  fi
  read -r wall user sys kb < <(tail -n 1 "$work/time") # the last line: a failed command adds one before it
  local cpu
  cpu=$(/usr/bin/python3 -c "print(f'{$user + $sys:.2f}')")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$series" "$size" "$wall" "$cpu" "$((kb / 1024))" >> "$results"
  printf '%-9s %-7s %9s tokens/rows  wall %7.2f s  cpu %7.2f s  peak %6d MB\n' "$name" "$series" "$size" "$wall" \
    "$cpu" "$((kb / 1024))"
}

for n in $lengths; do
  /usr/bin/python3 "$make" long-row "$n" "$work/row.json" --maskscope "$bin"
  /usr/bin/python3 "$make" one-row "$n" "$work/one.jsonl"
  measure lint length "$n" "$bin" lint "$work/row.json" --tokenizer builtin:demo --json
  measure snapshot length "$n" "$bin" snapshot --batch "$work/row.json" --tokenizer builtin:demo --view attention \
    --out "$work/grid.png"
  measure collate length "$n" "$bin" collate --data "$work/one.jsonl" --collator "$trl_long" --json
done
for n in $rows; do
  /usr/bin/python3 "$make" rows "$n" "$work/rows.jsonl"
  measure lint rows "$n" "$bin" lint "$work/rows.jsonl" --collator "$trl" --json
  measure snapshot rows "$n" "$bin" snapshot --data "$work/rows.jsonl" --collator "$trl" --view attention \
    --out "$work/grid.png"
  if [ "$n" -le 100000 ]; then
    measure collate rows "$n" "$bin" collate --data "$work/rows.jsonl" --collator "$trl" --json
  fi
done

# Least-squares slope of log(CPU time) against log(size) per command and series.
/usr/bin/python3 - "$results" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("\nslopes on log-log axes (CPU time; 1 = linear, 2 = quadratic):")
for series in ("length", "rows"):
    for name in ("lint", "snapshot", "collate"):
        pts = [(math.log(float(r["size"])), math.log(max(float(r["cpu_s"]), 0.01)))
               for r in rows if r["command"] == name and r["series"] == series]
        if len(pts) < 2:
            continue
        mx = sum(x for x, _ in pts) / len(pts)
        my = sum(y for _, y in pts) / len(pts)
        slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
        print(f"  {name:9s} by {'row length' if series == 'length' else 'row count':10s} {slope:5.2f}  ({len(pts)} sizes)")
PY
cp "$results" "${png%.png}.tsv"
QT_QPA_PLATFORM=offscreen "$build/bench/lint/bench_scaling_chart" "$results" "$png"
echo "chart: $png (data: ${png%.png}.tsv)"
