#!/usr/bin/env python3
"""How firmly each train-ab experiment teaches its lesson with the defaults: runs every experiment on
seeds 0-4 (separate processes, in parallel) and prints, per experiment, its verdict on each seed, the
effect (the mean over seeds of d = the verdict metric's distance in the predicted direction: run B's
stop_fraction minus run A's, or run A's metric minus run B's) and its spread (max d - min d), the ratio
effect / spread (the target is at least 5), run B's held-out loss before fine-tuning beside 0.8 * ln V,
and the CPU seconds of each run. Usage:

    bench/train/seed_spread.py build/bin/maskscope [--seeds 0-4] [--jobs 2] [--experiment NAME ...]
                               [train-ab options, e.g. --model DIR --lr X]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

EXPERIMENTS = ["stop-token", "pad-graded", "prompt-graded", "packing", "grad-accum"]


def direction(verdict):
    """d > 0 when the run showed what the experiment predicts."""
    a, b = verdict["a"], verdict["b"]
    return b - a if verdict["metric"] == "stop_fraction" else a - b


def run(binary, experiment, seed, extra):
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([binary, "train-ab", "--experiment", experiment, "--seed", str(seed), "--json"] + extra,
                                 stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time, whatever runs beside it
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            sys.exit(f"{experiment} seed {seed}: exit {child.returncode}\n{err.read()[-2000:]}")
        return experiment, seed, json.load(out), usage.ru_utime + usage.ru_stime


def seeds_of(text):
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--seeds", default="0-4")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--experiment", action="append")
    args, extra = parser.parse_known_args()  # the rest goes to train-ab
    args.extra = [x for x in extra if x != "--"]
    experiments = args.experiment or EXPERIMENTS
    jobs = [(e, s) for e in experiments for s in seeds_of(args.seeds)]
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda job: run(args.binary, job[0], job[1], args.extra), jobs))
    print("| experiment | metric | per seed: A / B (observed) | effect | spread | effect/spread | "
          "B held-out before -> after | 0.8 ln V | CPU s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    failed = False
    for experiment in experiments:
        mine = [r for r in results if r[0] == experiment]
        verdicts = [r[2]["verdict"] for r in mine]
        d = [direction(v) for v in verdicts]
        effect, spread = sum(d) / len(d), max(d) - min(d)
        ratio = effect / spread if spread > 0 else math.inf
        held = [r[2]["runs"][1]["held_out"]["loss"] for r in mine]
        vocab = mine[0][2].get("vocab_size")
        bound = 0.8 * math.log(vocab) if vocab else float("nan")
        per_seed = ", ".join(f"{v['a']:.4g} / {v['b']:.4g} ({'yes' if v['observed'] else 'NO'})" for v in verdicts)
        cpu = max(r[3] for r in mine)
        print(f"| `{experiment}` | `{verdicts[0]['metric']}` | {per_seed} | {effect:.4g} | {spread:.3g} | "
              f"{ratio:.1f} | {held[0][0]:.3f} -> {min(h[-1] for h in held):.3f}..{max(h[-1] for h in held):.3f} | "
              f"{bound:.3f} | {cpu:.0f} |")
        failed |= not all(v["observed"] for v in verdicts) or ratio < 5 or not held[0][0] < bound
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
