#!/bin/bash
# The GNU parallel recipe of docs/scale.md as a script: lints N shards of a dataset with P jobs
# (on this host, or on the hosts of SSH_HOSTS sharing the file system), then merges them.
#   tools/scale/lint-parallel.sh DATA N OUTDIR [lint options...]   (P=4 jobs by default)
set -euo pipefail
data=$1 shards=$2 outdir=$3
shift 3
mkdir -p "$outdir"
hosts=()
[ -n "${SSH_HOSTS:-}" ] && hosts=(-S "$SSH_HOSTS" --workdir "$PWD")
# {} is the shard index. Exit 1 ("linted, found errors") still wrote a complete report; only 2 fails.
# --halt now,fail=1 stops the other shards at the first failure, and parallel then exits non-zero.
parallel --will-cite -j "${P:-4}" "${hosts[@]}" --halt now,fail=1 \
  '"${MASKSCOPE:-maskscope}" lint {1} --shard {2}/{3} --json '"$(printf '%q ' "$@")"' > {4}/shard-{2}.json; [ $? -le 1 ]' \
  ::: "$data" ::: $(seq 0 $((shards - 1))) ::: "$shards" ::: "$outdir"
rc=0
"${MASKSCOPE:-maskscope}" lint --merge "$outdir"/shard-*.json --json >"$outdir/report.json" || rc=$?
exit "$rc"
