#!/bin/bash
# A fuzz campaign: builds the clang + libFuzzer (ASan, UBSan) tree outside the repository, then runs
# every target of tests/fuzz for MINUTES each, PARALLEL at a time (default 1: one after the other;
# each libFuzzer process uses one core), from a copy of its seed corpus (tests/data/fuzz/<target>/). Writes a summary table (target, minutes,
# executions, crashes) to OUT/summary.md and stdout; crashers stay in OUT/<target>/crashes/ (add
# each to tests/data/fuzz/<target>/ once fixed, so tests/fuzz_regressions replays it).
#   [PARALLEL=N] tools/fuzz/run-campaign.sh MINUTES [OUT]   (BUILD=~/.cache/maskscope/build-fuzz by default)
set -euo pipefail
minutes=${1:?usage: run-campaign.sh MINUTES [OUT]}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-${HOME:-/root}/.cache/maskscope/build-fuzz}
out=${2:-$build/campaign-$(date -u +%Y%m%dT%H%M%SZ)}
jobs=${JOBS:-$(nproc)}
parallel=${PARALLEL:-1}
mkdir -p "$out"

if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMASKSCOPE_FUZZ=ON -DMASKSCOPE_BUILD_UI=OFF -DMASKSCOPE_BUILD_ENGINE=OFF -DMASKSCOPE_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" >"$out/cmake.log"
fi
cmake --build "$build" -j "$jobs" --target fuzz >"$out/build.log"

targets=$(cd "$root/tests/fuzz" && ls fuzz_*.cpp | sed 's/^fuzz_//; s/\.cpp$//')
for t in $targets; do
  [ -x "$build/tests/fuzz/fuzz_$t" ] || { echo "missing $build/tests/fuzz/fuzz_$t" >&2; exit 2; }
done

# One target for MINUTES; writes its summary row to $out/$t/row.md.
run_target() {
  local t=$1 bin="$build/tests/fuzz/fuzz_$1" corpus="$out/$1/corpus" crashes="$out/$1/crashes" rc=0
  mkdir -p "$corpus" "$crashes"
  cp "$root/tests/data/fuzz/$t/"* "$corpus/"
  # -fork=1 keeps fuzzing after a crash (each crash saved), so a target always runs the full MINUTES.
  (cd "$crashes" && UBSAN_OPTIONS=print_stacktrace=1 "$bin" "$corpus" -fork=1 -ignore_crashes=1 -ignore_ooms=1 \
    -ignore_timeouts=1 -max_total_time=$((minutes * 60)) -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
    -artifact_prefix="$crashes/" -print_final_stats=1 >"$out/$t/log.txt" 2>&1) || rc=$?
  # Executions: the fork driver reports "#N" progress lines and the workers their final stats.
  local execs found
  execs=$(grep -oE '^#[0-9]+' "$out/$t/log.txt" | tail -1 | tr -d '#')
  [ -n "$execs" ] || execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$out/$t/log.txt" | awk '{s += $2} END {print s + 0}')
  found=$(find "$crashes" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '| %s | %s | %s | %s | %s |\n' "$t" "$minutes" "${execs:-0}" "$(ls "$corpus" | wc -l)" "$found" >"$out/$t/row.md"
  cat "$out/$t/row.md"
  [ "$rc" = 0 ] || [ "$found" != 0 ] || echo "note: fuzz_$t exited $rc (see $out/$t/log.txt)" >&2
}

running=0
for t in $targets; do
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait

printf '| target | minutes | executions | corpus files | crashes |\n|---|---|---|---|---|\n' >"$out/summary.md"
status=0
for t in $targets; do
  cat "$out/$t/row.md" >>"$out/summary.md"
  [ "$(awk -F'|' '{gsub(/ /, "", $6); print $6}' "$out/$t/row.md")" = 0 ] || status=1
done
echo
cat "$out/summary.md"
echo "logs, corpora and crashers: $out"
exit "$status"
