#!/usr/bin/env bash
# The one prepared script for a GPU machine without Qt (issue 36, docs/cuda.md "Checking on a GPU
# machine without Qt"): builds the LibTorch module and its torch-free driver against python's torch
# (tools/cuda/CMakeLists.txt), checks the engine goldens and transformers 5.17's numbers on the device,
# and benchmarks maskscope against transformers (sdpa, eager) on a random-weight Qwen3-0.6B.
# Run from the repository root. Every step is time-boxed and the whole run stays inside MS_BUDGET_S
# (default 450 s); a failing step never stops the later ones. Writes gpu-checks.log and table.md to
# $OUT when set (else to the build folder).
#
#   tools/cuda/run-gpu-checks.sh --prepare     # on a machine with /usr/include/nlohmann: copies the
#                                               # headers to .gpu/include (carry .gpu to the GPU machine)
#   tools/cuda/run-gpu-checks.sh [--quick] [--device cuda|cpu] [--build DIR] [--python PY]
#                                [--torch-prefix DIR] [--shapes "8x2048 4x4096 8x8192"]
#   --quick: a local smoke run (2 layers, shape 2x64; QUICK_SHAPES overrides), e.g. on the CPU with Debian's LibTorch:
#   (MS_CMAKE_ARGS: more cmake -D options, e.g. the build type of an existing build folder)
#   tools/cuda/run-gpu-checks.sh --quick --device cpu --python /usr/bin/python3 \
#     --torch-prefix /usr/lib/x86_64-linux-gnu/cmake/Torch --build /tmp/gpu-build
set -u

if [[ ! -f tools/cuda/CMakeLists.txt ]]; then
  echo "run-gpu-checks.sh: run it from the maskscope repository root" >&2
  exit 2
fi

if [[ "${1:-}" == "--prepare" ]]; then
  src=${NLOHMANN_INCLUDE:-/usr/include/nlohmann}
  [[ -f "$src/json.hpp" ]] || { echo "no $src/json.hpp (apt-get install nlohmann-json3-dev)" >&2; exit 1; }
  rm -rf .gpu/include/nlohmann && mkdir -p .gpu/include && cp -r "$src" .gpu/include/nlohmann
  echo "copied $src to .gpu/include/nlohmann ($(du -sh .gpu | cut -f1)); keep .gpu out of git" \
    "(echo .gpu >> \$(git rev-parse --git-common-dir)/info/exclude) and carry it to the GPU machine"
  exit 0
fi

DEVICE=cuda
BUILD=/tmp/ms-cuda
PY=python3
PREFIX=""
QUICK=0
SHAPES="8x2048 4x4096 8x8192"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --device) DEVICE=$2; shift ;;
    --build) BUILD=$2; shift ;;
    --python) PY=$2; shift ;;
    --torch-prefix) PREFIX=$2; shift ;;
    --shapes) SHAPES=$2; shift ;;
    *) echo "run-gpu-checks.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
LAYERS=0
if [[ $QUICK == 1 ]]; then
  LAYERS=2
  SHAPES=${QUICK_SHAPES:-2x64}
fi

OUTDIR=${OUT:-$BUILD/out}
mkdir -p "$BUILD" "$OUTDIR"
LOG=$OUTDIR/gpu-checks.log
: > "$LOG"
BUDGET=${MS_BUDGET_S:-450}
SCALE=${MS_TIME_SCALE:-1} # multiplies each step's limit (a slow local CPU); the budget still caps the run
START=$SECONDS
FAILED=()

log() { echo "$*" | tee -a "$LOG"; }

# step NAME LIMIT_S COMMAND...: runs COMMAND with its output in the log, killed after LIMIT_S or when
# the run's budget is spent (whichever comes first); records the failure and goes on.
step() {
  local name=$1 limit=$(($2 * SCALE))
  shift 2
  local left=$((BUDGET - (SECONDS - START)))
  ((limit > left)) && limit=$left
  if ((limit < 5)); then
    log "## $name: skipped (budget of ${BUDGET}s spent)"
    FAILED+=("$name(skipped)")
    return 1
  fi
  log "## $name (limit ${limit}s): $*"
  local t0=$SECONDS rc
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$LOG"
  rc=${PIPESTATUS[0]}
  log "## $name: rc=$rc after $((SECONDS - t0))s (total $((SECONDS - START))s)"
  ((rc == 124 || rc == 137)) && log "## $name: TIMED OUT"
  ((rc != 0)) && FAILED+=("$name")
  return "$rc"
}

log "# maskscope GPU checks: $(date -u +%FT%TZ) on $(hostname), device $DEVICE, quick=$QUICK"
log "# commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') $(git status --porcelain 2>/dev/null | wc -l) changed files"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$LOG"

# The GPU machine's python with torch may sit in a venv, and nvcc outside PATH: find them.
if ! "$PY" -c 'import torch' 2> /dev/null && [[ -x /opt/torch/.venv/bin/python3 ]]; then
  PY=/opt/torch/.venv/bin/python3
  log "# python3 has no torch: using $PY"
fi
if ! command -v nvcc > /dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=$PATH:/usr/local/cuda/bin
fi
"$PY" -c 'import torch, sys; print("# python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tee -a "$LOG"
if [[ -z "$PREFIX" ]]; then
  PREFIX=$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
fi
JOBS=$(nproc)
GEN=()
read -ra EXTRA_CMAKE <<< "${MS_CMAKE_ARGS:-}"
command -v ninja > /dev/null && GEN=(-G Ninja)
step configure 150 cmake -S tools/cuda -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$PREFIX" -DMASKSCOPE_FATAL_WARNINGS=OFF "${EXTRA_CMAKE[@]}"
if ! step build 330 cmake --build "$BUILD" -j"$JOBS"; then
  # The one CUDA-only code path (the caching allocator's statistics, engine/TorchModel.cpp): without it
  # the module still builds and every check runs, with maskscope's peak memory reported as 0.
  step configure-no-device-stats 60 cmake -S tools/cuda -B "$BUILD" -DMASKSCOPE_NO_DEVICE_STATS=ON &&
    step build-no-device-stats 300 cmake --build "$BUILD" -j"$JOBS"
fi
DRIVER=$BUILD/maskscope_engine_driver

step goldens 120 "$DRIVER" goldens --device "$DEVICE" --data tests/data/engine \
  --transformers tests/data/engine/transformers-5.17/engine_nll.jsonl

# The benchmark model: Qwen3-0.6B's shapes with random BF16 weights (tools/model/realshape.py, seed
# fixed), one folder that maskscope and transformers both load.
MODEL=$BUILD/qwen3-0.6b-L$LAYERS
if [[ ! -f $MODEL/model.safetensors ]]; then
  layer_args=()
  ((LAYERS > 0)) && layer_args=(--layers "$LAYERS")
  step model 120 "$PY" tools/model/realshape.py write qwen3-0.6b "$MODEL" "${layer_args[@]}"
fi

for shape in $SHAPES; do
  batch=$BUILD/batch-$shape.json
  rm -f "$batch"
  step "maskscope-$shape" 150 "$DRIVER" bench --device "$DEVICE" --model "$MODEL" --shape "$shape" \
    --batch-out "$batch"
  if [[ ! -f $batch ]]; then
    log "## python sides of $shape: skipped (the driver wrote no batch)"
    continue
  fi
  step "transformers-$shape" 180 "$PY" tools/cuda/transformers_bench.py --model "$MODEL" --batch "$batch" \
    --device "$DEVICE" --attn sdpa,eager
  if [[ $DEVICE == cpu ]]; then
    step "reference-$shape" 180 "$PY" tools/cuda/transformers_bench.py --backend reference --model "$MODEL" \
      --batch "$batch" --device cpu
  fi
done

"$PY" tools/cuda/gpu_table.py "$LOG" > "$OUTDIR/table.md" 2> "$BUILD/table.err" || cat "$BUILD/table.err" >> "$LOG"
log ""
tee -a "$LOG" < "$OUTDIR/table.md"
log ""
log "# done in $((SECONDS - START))s; failed steps: ${FAILED[*]:-none}; log $LOG, table $OUTDIR/table.md"
((${#FAILED[@]} == 0))
