#!/usr/bin/env python3
"""How firmly each train-ab experiment teaches its lesson with the defaults: runs every experiment on
seeds 0-4 (separate processes, in parallel) and prints, per experiment, its verdict on each seed, the
effect (the mean over seeds of d = the verdict metric's distance in the predicted direction: run B's
stop_fraction minus run A's, or run A's metric minus run B's) and its spread (max d - min d), the ratio
effect / spread (the target is at least 5), run B's held-out loss before fine-tuning beside 0.8 * ln V,
and the CPU seconds of each run; then one line per run (the per-seed table of docs/cli.md). Usage:

    bench/train/seed_spread.py build/bin/maskscope [--seeds 0-4] [--jobs 2] [--experiment NAME ...]
                               [--save DIR] [train-ab options, e.g. --model DIR --lr X]

--save DIR keeps each run's report as DIR/EXPERIMENT-SEED.json (the per-seed table of docs/cli.md is read
from them).
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


def run(binary, experiment, seed, extra, save):
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([binary, "train-ab", "--experiment", experiment, "--seed", str(seed), "--json"] + extra,
                                 stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time, whatever runs beside it
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            sys.exit(f"{experiment} seed {seed}: exit {child.returncode}\n{err.read()[-2000:]}")
        report = json.load(out)
        if save:
            with open(os.path.join(save, f"{experiment}-{seed}.json"), "w") as f:
                json.dump(report, f)
        return experiment, seed, report, usage.ru_utime + usage.ru_stime


def seeds_of(text):
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--seeds", default="0-4")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--experiment", action="append")
    parser.add_argument("--save", help="keep each run's JSON report in this folder")
    args, extra = parser.parse_known_args()  # the rest goes to train-ab
    args.extra = [x for x in extra if x != "--"]
    experiments = args.experiment or EXPERIMENTS
    jobs = [(e, s) for e in experiments for s in seeds_of(args.seeds)]
    if args.save:
        os.makedirs(args.save, exist_ok=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda job: run(args.binary, job[0], job[1], args.extra, args.save), jobs))
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
    print()
    print_per_seed(results)
    return 1 if failed else 0


def metric_text(verdict, run_b, run_a):
    a, b = verdict["a"], verdict["b"]
    fmt = (lambda x: f"{x:.4f}") if verdict["metric"] == "final_held_out_loss" else (
        lambda x: f"{x:.2f}" if verdict["metric"] == "end_of_turn_nll" else (f"{x:.4f}" if x >= 1e-4 else f"{x:.1e}"))
    text = f"`{verdict['metric']}` {fmt(a)} / {fmt(b)}"
    if verdict["metric"] == "end_of_turn_nll":
        n = len(run_a["generations"])
        text += (f" (`closes_reply` {round(run_a['closes_reply'] * n)}/{n} vs {round(run_b['closes_reply'] * n)}/{n}, "
                 f"`stop_fraction` {run_a['stop_fraction']:.2f} / {run_b['stop_fraction']:.2f})")
    return text


def print_per_seed(results):
    """The per-seed table of docs/cli.md (train-ab), from the runs' own reports."""
    print("| experiment | seed | A final held-out | B held-out first -> last | verdict metric: A / B | observed | CPU s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for experiment, seed, report, cpu in results:
        run_a, run_b = report["runs"]
        held = run_b["held_out"]["loss"]
        v = report["verdict"]
        print(f"| `{experiment}` | {seed} | {run_a['final_held_out_loss']:.3f} | {held[0]:.3f} -> {held[-1]:.3f} | "
              f"{metric_text(v, run_b, run_a)} | {'yes' if v['observed'] else 'NO'} | {cpu:.0f} |")


if __name__ == "__main__":
    sys.exit(main())
