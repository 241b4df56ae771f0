#!/usr/bin/python3
"""Turns the JSON lines of tools/cuda/run-gpu-checks.sh's log (maskscope_engine_driver and
transformers_bench.py) into the markdown tables of docs/cuda.md: time and peak device memory of
maskscope beside transformers sdpa / eager (or tools/model/reference.py on the CPU) per shape, their
ratios, the loss comparison's values on both sides, and the goldens summary.

  gpu_table.py LOG > table.md
"""
import json
import sys


def rows_of(path):
    for line in open(path, errors="replace"):
        line = line.strip()
        if line.startswith("{"):
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                pass


def cell(r):
    if r is None:
        return "not run"
    if "error" in r:
        return "OOM" if "out of memory" in r["error"] else "error"
    mem = f", {r['peak_mib'] / 1024:.1f} GiB" if r.get("peak_mib") else ""
    return f"{r['seconds']:.3f} s{mem}"


def ratio(a, b, key):
    if not a or not b or "error" in a or "error" in b or not b.get(key):
        return "-"
    return f"{a[key] / b[key]:.2f}x"


def shape_key(s):
    b, t = s.split("x")
    return int(t), int(b)


def main(path):
    rows = list(rows_of(path))
    bench = {}
    sides = []
    for r in rows:
        if r.get("mode") == "bench" and "work" in r:
            bench[(r["side"], r["shape"], r["work"])] = r
            if r["side"] != "maskscope" and r["side"] not in sides:
                sides.append(r["side"])
    ref = "transformers-sdpa" if "transformers-sdpa" in sides else (sides[0] if sides else None)
    shapes = sorted({k[1] for k in bench}, key=shape_key)
    dev = next((r.get("device") for r in rows if r.get("side") == "maskscope" and r.get("device")), "?")
    dtype = next((r.get("dtype") for r in rows if r.get("side") == "maskscope" and r.get("dtype")), "?")
    print(f"maskscope on {dev} ({dtype}); ratios against {ref or 'nothing (no python side ran)'}, same run.\n")
    head = ["work", "B x T", "maskscope"] + sides + ["time ratio", "memory ratio"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for work in ("forward", "loss"):
        for s in shapes:
            m = bench.get(("maskscope", s, work))
            cells = [cell(m)] + [cell(bench.get((side, s, work))) for side in sides]
            r = bench.get((ref, s, work)) if ref else None
            print(f"| {work} | {s.replace('x', ' x ')} | " + " | ".join(cells) +
                  f" | {ratio(m, r, 'seconds')} | {ratio(m, r, 'peak_mib')} |")
    keys = ["as_given", "fixed", "labels_fixed_only", "attention_fixed_only", "grad_norm_pad", "grad_norm_real",
            "max_logit_change_real"]
    print("\nThe loss comparison's values (maskscope / " + (ref or "-") + "):\n")
    print("| B x T | " + " | ".join(keys) + " |")
    print("|" + " --- |" * (len(keys) + 1))
    for s in shapes:
        m, r = bench.get(("maskscope", s, "loss")), bench.get((ref, s, "loss")) if ref else None
        vals = []
        for k in keys:
            a = m.get(k) if m and "error" not in m else None
            b = r.get(k) if r and "error" not in r else None
            vals.append(f"{a:.6g} / {b:.6g}" if a is not None and b is not None else
                        f"{a:.6g} / -" if a is not None else "-")
        print(f"| {s.replace('x', ' x ')} | " + " | ".join(vals) + " |")
    fixtures = [r for r in rows if r.get("mode") == "goldens" and "fixture" in r]
    summary = next((r for r in rows if r.get("mode") == "goldens" and r.get("event") == "summary"), None)
    if fixtures:
        worst_g = max((f.get("max_diff_golden", 0) or 0) for f in fixtures)
        hf = [f["max_diff_transformers"] for f in fixtures if f.get("max_diff_transformers") is not None]
        def names(key):
            return ", ".join(summary.get(key, [])) or "none" if summary else "?"

        print(f"\nGoldens: {len(fixtures)} fixtures; failed against goldens.json: {names('failed_golden')}; "
              f"against transformers 5.17: {names('failed_transformers')}; any failure: {names('failed')}. "
              f"Max |NLL - golden| = {worst_g:.3g}; max |NLL - transformers 5.17| = "
              f"{max(hf) if hf else float('nan'):.3g} over {len(hf)} fixtures.")
    else:
        print("\nGoldens: not run.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
