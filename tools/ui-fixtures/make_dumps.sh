#!/usr/bin/env bash
# Regenerates the batch dumps of tests/data/ui/ that the dump-tokenizer tests open: tests/data/ui/
# dump-chats.jsonl collated by the real Qwen3 and Llama-3 tokenizers (their own templates) and saved
# with `collate --json`, as a user's own training script would dump a batch.
# Usage: tools/ui-fixtures/make_dumps.sh [path/to/maskscope]   (default: build/bin/maskscope)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${1:-$root/build/bin/maskscope}"
tok="${XDG_CACHE_HOME:-$HOME/.cache}/maskscope/tokenizers"
data="$root/tests/data/ui/dump-chats.jsonl"
out="$root/tests/data/ui"
"$bin" collate --tokenizer "$tok/qwen3" --data "$data" --collator default --json >"$out/qwen3-batch.json"
"$bin" collate --tokenizer "$tok/qwen3" --data "$data" --collator hf-lm --json >"$out/qwen3-hf-lm.json"
"$bin" collate --tokenizer "$tok/llama3" --data "$data" --collator hf-lm --json >"$out/llama3-hf-lm.json"
# A dump that names its special ids, as a training script that saves the tokenizer's ids does: the
# Llama-3 one names <|begin_of_text|> and <|eot_id|>, which Qwen3's vocabulary holds as plain tokens.
python3 - "$out/llama3-hf-lm.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["bos_token_id"], d["eos_token_id"] = 128000, 128009
json.dump(d, open(sys.argv[1], "w"), separators=(",", ":"))
PY
echo "wrote $out/qwen3-batch.json $out/qwen3-hf-lm.json $out/llama3-hf-lm.json"
