#!/usr/bin/env bash
# Regenerates resources/frameworks/axolotl/*.jinja: the chat templates Axolotl bundles under
# src/axolotl/utils/chat_templates/templates/ (chat_template: llama3, chatml, qwen3, ...), byte for
# byte, each behind a one-line {#- maskscope ... #} header naming the source (the loader strips it
# before use, so Axolotl's checks on the template text see exactly Axolotl's text).
# Usage: tools/frameworks/import-axolotl-templates.sh AXOLOTL_GIT_DIR [TAG]   (default tag v0.18.0)
# e.g. with a mirror: tools/frameworks/import-axolotl-templates.sh /path/to/axolotl/.git v0.18.0
set -euo pipefail
git_dir=${1:?usage: $0 AXOLOTL_GIT_DIR [TAG]}
tag=${2:-v0.18.0}
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=resources/frameworks/axolotl
mkdir -p "$out"
rm -f "$out"/*.jinja
commit=$(git --git-dir="$git_dir" rev-parse "$tag^{commit}")
prefix=src/axolotl/utils/chat_templates/templates/
git --git-dir="$git_dir" ls-tree --name-only "$tag" "$prefix" | while read -r path; do
  case "$path" in *.jinja) ;; *) continue ;; esac
  name=$(basename "$path" .jinja)
  {
    printf '{#- maskscope: Axolotl %s (%s) %s, Apache-2.0 #}' "$tag" "${commit:0:8}" "$path"
    git --git-dir="$git_dir" show "$tag:$path"
  } > "$out/$name.jinja"
done
echo "imported $(ls "$out" | wc -l) templates from Axolotl $tag ($commit)"
