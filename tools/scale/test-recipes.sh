#!/bin/bash
# ctest "scale": runs the recipes of docs/scale.md on this machine and checks that each merged
# report equals the unsharded report byte for byte. The xargs and GNU parallel recipes run for real; the Slurm
# array runs for real on a throw-away single-node Slurm (slurmctld + slurmd + munged started here,
# as root) when slurm-wlm is installed, else its body runs by hand with SLURM_ARRAY_TASK_ID set.
# Usage: test-recipes.sh MASKSCOPE_BINARY [DATASET]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export MASKSCOPE=$(realpath "$1")
data=${2:-$here/../../tests/data/lint/shards-300.jsonl}
opts=(--collator buggy-max-length-all-ones --micro-batch 4)
tmp=$(mktemp -d)
pids=()
cleanup() {
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do # slurmd, slurmctld, then munged
    kill "${pids[i]}" 2>/dev/null || true
    for _ in $(seq 30); do kill -0 "${pids[i]}" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

rc=0
"$MASKSCOPE" lint "$data" --json "${opts[@]}" >"$tmp/whole.json" || rc=$?
[ "$rc" -le 1 ] || fail "unsharded lint exit $rc"
want=$rc

# 1. xargs -P, for real, N = 5.
rc=0
P=3 "$here/lint-xargs.sh" "$data" 5 "$tmp/xargs" "${opts[@]}" || rc=$?
[ "$rc" = "$want" ] || fail "xargs recipe: exit $rc, unsharded $want"
cmp "$tmp/whole.json" "$tmp/xargs/report.json" || fail "xargs recipe: merged report differs from the unsharded one"
echo "xargs recipe (5 shards): merged report == unsharded report"

# 1b. GNU parallel, for real, N = 4 (packaging/debian-packages.txt installs it).
command -v parallel >/dev/null || fail "GNU parallel is not installed (apt-get install parallel)"
rc=0
P=3 "$here/lint-parallel.sh" "$data" 4 "$tmp/parallel" "${opts[@]}" || rc=$?
[ "$rc" = "$want" ] || fail "GNU parallel recipe: exit $rc, unsharded $want"
cmp "$tmp/whole.json" "$tmp/parallel/report.json" || fail "GNU parallel recipe: merged report differs from the unsharded one"
echo "GNU parallel recipe (4 shards): merged report == unsharded report"

# A shard lost on the way is refused, naming what is missing.
rm "$tmp/xargs/shard-3.json"
rc=0
"$MASKSCOPE" lint --merge "$tmp"/xargs/shard-*.json --json >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "missing shard(s) 3/5" "$tmp/err" || fail "a missing shard was not refused: $(cat "$tmp/err")"

# 2. Slurm job array (N = 3) + dependent merge job.
start_slurm() {
  [ "$(id -u)" = 0 ] && command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
    command -v munged >/dev/null && [ -r /etc/munge/munge.key ] || return 1
  local d=$tmp/slurm host port
  host=$(hostname -s)
  port=$((20000 + RANDOM % 20000))
  mkdir -p "$d/state" "$d/spool" "$d/munge"
  munged --force --socket="$d/munge/socket" --pid-file="$d/munge/pid" --log-file="$d/munge/log" || return 1
  pids+=("$(cat "$d/munge/pid")")
  sed -e "s|@D@|$d|g" -e "s|@HOST@|$host|g" -e "s|@PORT@|$port|g" -e "s|@PORT1@|$((port + 1))|g" \
    -e "s|@CPUS@|$(nproc)|g" "$here/slurm-local.conf.in" >"$d/slurm.conf"
  export SLURM_CONF=$d/slurm.conf
  slurmctld -f "$SLURM_CONF" || return 1
  for _ in $(seq 50); do [ -s "$d/slurmctld.pid" ] && break; sleep 0.1; done
  pids+=("$(cat "$d/slurmctld.pid")")
  slurmd -f "$SLURM_CONF" || return 1
  for _ in $(seq 50); do [ -s "$d/slurmd.pid" ] && break; sleep 0.1; done
  pids+=("$(cat "$d/slurmd.pid")")
  for _ in $(seq 100); do sinfo -h -o %t 2>/dev/null | grep -q idle && return 0; sleep 0.1; done
  return 1
}
out=$tmp/slurm-shards
if [ "${MASKSCOPE_SCALE_SLURM:-1}" != 0 ] && start_slurm; then
  (cd "$tmp" && CPUS=1 "$here/submit.sh" "$data" 3 "$out" "${opts[@]}")
  for _ in $(seq 300); do
    [ -z "$(squeue -h 2>/dev/null)" ] && break
    squeue -h -o %r | grep -qvx -e None -e Dependency -e Resources -e Priority && break # will never run
    sleep 0.1
  done
  [ -z "$(squeue -h)" ] || fail "Slurm jobs still queued: $(squeue; cat "$tmp"/maskscope-lint-*.log)"
  echo "Slurm array ran for real ($(ls "$out"/shard-*.json | wc -l) shard reports)"
else
  # No Slurm here: check the scripts parse, then run their bodies as Slurm would.
  bash -n "$here/lint-shard.sbatch" && bash -n "$here/lint-merge.sbatch" && bash -n "$here/submit.sh"
  for k in 0 1 2; do
    SLURM_ARRAY_TASK_ID=$k DATA=$data SHARDS=3 OUTDIR=$out LINT_ARGS="${opts[*]}" bash "$here/lint-shard.sbatch"
  done
  OUTDIR=$out bash "$here/lint-merge.sbatch" || true
  echo "Slurm not started here: the array tasks ran by hand with SLURM_ARRAY_TASK_ID=0..2"
fi
cmp "$tmp/whole.json" "$out/report.json" || fail "Slurm recipe: merged report differs from the unsharded one"
echo "Slurm recipe (3 shards): merged report == unsharded report"
