#!/usr/bin/env bash
# Whole-process benchmark of `maskscope tokenize --text-file F --json > out` on a generated text
# (default 10 MB) through a real tokenizer (default qwen3), next to the JavaScript reference
# (@huggingface/tokenizers writing the same JSON) in the same run: wall time, peak memory, ratio.
#   bench/tokenizer/json-output.sh [build dir] [MB] [model]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
mb="${2:-10}"
model="${3:-qwen3}"
cache="${MASKSCOPE_TOKENIZER_CACHE:-${HOME:-/root}/.cache/maskscope/tokenizers}"
cmake --build "$build" --target maskscope bench_tokenizer_hf >/dev/null
"$root/tools/fetch-tokenizers.sh" >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$build/bench/tokenizer/bench_tokenizer_hf" --mb "$mb" --write-text "$work/text.txt"

measure() { # label, out file, command...: prints "label seconds peak_MB"
  local label="$1" out="$2"
  shift 2
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$out"
  read -r secs kb < "$work/time"
  echo "$label $secs $((kb / 1024))"
}
ours=$(measure maskscope "$work/ours.json" "$build/bin/maskscope" tokenize --tokenizer "$cache/$model" \
  --text-file "$work/text.txt" --json)
theirs=$(measure javascript /dev/null node "$here/json-reference.mjs" "$cache" "$model" "$work/text.txt" "$work/js.json")
read -r _ s1 m1 <<< "$ours"
read -r _ s2 m2 <<< "$theirs"
same=$(/usr/bin/python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); print('ids identical' if a['ids']==b['ids'] else 'IDS DIFFER')" "$work/ours.json" "$work/js.json")
printf 'text: %s MB, model %s, %s\n' "$mb" "$model" "$same"
printf 'maskscope  %6.2f s  peak %5d MB  (%s bytes of JSON)\n' "$s1" "$m1" "$(stat -c %s "$work/ours.json")"
printf 'javascript %6.2f s  peak %5d MB\n' "$s2" "$m2"
/usr/bin/python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'maskscope is {b/a:.1f}x faster, whole process, same run')" "$s1" "$s2"
