#!/bin/bash
# One machine, or several sharing a file system, without a scheduler: lints N shards of a
# dataset with P parallel processes, then merges them. See docs/scale.md.
#   tools/scale/lint-xargs.sh DATA N OUTDIR [lint options...]   (P=4 processes by default)
set -euo pipefail
data=$1 shards=$2 outdir=$3
shift 3
mkdir -p "$outdir"
# Each task: exit 1 ("linted, found errors") still wrote a complete report; only 2 is a failure.
seq 0 $((shards - 1)) | xargs -P "${P:-4}" -I{} sh -c \
  '"${MASKSCOPE:-maskscope}" lint "$0" --shard {}/'"$shards"' --json "$@" > "'"$outdir"'/shard-{}.json"; [ $? -le 1 ]' \
  "$data" "$@"
rc=0
"${MASKSCOPE:-maskscope}" lint --merge "$outdir"/shard-*.json --json >"$outdir/report.json" || rc=$?
exit "$rc"
