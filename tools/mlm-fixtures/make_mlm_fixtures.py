#!/usr/bin/env python3
"""Writes tests/data/mask/mlm/*.json, the batches of tests/mask/tst_masked_lm.cpp (the BERT aside):
rows of a BOS (1), real text ids 1000.., an EOS (2) and right padding (id 0, attention_mask 0)."""
import json
import pathlib

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "mask" / "mlm"


def row(real, pads, start=1000):
    ids = [1] + [start + i for i in range(real - 2)] + [2] + [0] * pads
    return ids, [1] * real + [0] * pads


def dump(name, rows):
    labels = [[i if m else -100 for i, m in zip(*r)] for r in rows]  # a causal LM's: -100 at pads
    doc = {"input_ids": [r[0] for r in rows], "attention_mask": [r[1] for r in rows], "labels": labels,
           "pad_token_id": 0, "eos_token_id": 2, "bos_token_id": 1}
    (OUT / name).write_text(json.dumps(doc))


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    dump("two_rows.json", [row(42, 20), row(22, 40)])          # 40 + 20 candidates (BOS, EOS special)
    dump("more_padding.json", [row(42, 220), row(22, 240)])    # the same rows, 200 more pads each
    dump("longer_row.json", [row(82, 0), row(22, 60)])         # 40 more real tokens in row 0
    dump("long_row.json", [row(10002, 0)])                      # the 80/10/10 shares
