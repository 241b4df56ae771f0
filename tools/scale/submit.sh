#!/bin/bash
# Submits the lint array and the dependent merge job. Usage:
#   tools/scale/submit.sh DATA N OUTDIR [lint options...]
# MASKSCOPE=/path/to/maskscope and CPUS=cores per task (default: the script's 4) override.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=$1 shards=$2 outdir=$3
shift 3
export DATA="$data" SHARDS="$shards" OUTDIR="$outdir" LINT_ARGS="$*" MASKSCOPE="${MASKSCOPE:-maskscope}"
array=$(sbatch --parsable --array=0-$((shards - 1)) ${CPUS:+--cpus-per-task=$CPUS} --export=ALL "$here/lint-shard.sbatch")
merge=$(sbatch --parsable --dependency=afterok:"${array%%;*}" --export=ALL "$here/lint-merge.sbatch")
echo "array job $array, merge job $merge; the report will be $outdir/report.json"
