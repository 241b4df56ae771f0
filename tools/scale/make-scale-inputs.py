#!/usr/bin/python3
# Writes the inputs of the scaling benchmark and test (bench/lint/scaling.sh, test_scaling): one
# long row as a batch dump, or many short pre-tokenized rows, deterministic for a seed.
# Usage:
#   make-scale-inputs.py long-row TOKENS OUT.json [--maskscope BIN]
#       one padding-free row of TOKENS tokens: the demo dataset's conversations (collated by BIN with
#       builtin:demo, so role recovery finds real turns) packed back to back, position_ids restarting
#       at 0 per conversation, labels on the replies (as `collate --json` gave them); without BIN,
#       random ids with a reply-shaped label span per example of ~1000 tokens.
#   make-scale-inputs.py rows ROWS OUT.jsonl
#       ROWS pre-tokenized rows {"input_ids", "labels"} of 8-40 tokens (ids 5..3999, builtin:demo's vocabulary).
#   make-scale-inputs.py one-row TOKENS OUT.jsonl
#       one pre-tokenized row of TOKENS ids, its second half graded (collate --json of one long row).
import json
import random
import subprocess
import sys


def demo_rows(binary):
    out = subprocess.run([binary, "collate", "--tokenizer", "builtin:demo", "--data", "builtin:demo", "--json"],
                         check=True, capture_output=True, text=True).stdout
    batch = json.loads(out)
    rows = []
    for ids, labels, mask in zip(batch["input_ids"], batch["labels"], batch["attention_mask"]):
        n = sum(1 for m in mask if m)  # right padding: the real tokens come first
        rows.append((ids[:n], labels[:n]))
    return rows


def random_rows(rng):
    rows = []
    for _ in range(16):
        n = rng.randint(600, 1400)
        ids = [rng.randint(5, 3999) for _ in range(n)]
        cut = n // 3
        rows.append((ids, [-100] * cut + ids[cut:]))
    return rows


def long_row(tokens, path, binary):
    rng = random.Random(37)
    rows = demo_rows(binary) if binary else random_rows(rng)
    ids, labels, pos = [], [], []
    i = 0
    while len(ids) < tokens:
        r_ids, r_labels = rows[i % len(rows)]
        i += 1
        take = min(len(r_ids), tokens - len(ids))
        ids += r_ids[:take]
        # TRL padding_free: the first label of every example is -100 (position 0)
        labels += [-100] + r_labels[1:take]
        pos += list(range(take))
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"input_ids": [ids], "labels": [labels], "position_ids": [pos]}, f, separators=(",", ":"))


def many_rows(count, path):
    rng = random.Random(37)
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(count):
            n = rng.randint(8, 40)
            ids = [rng.randint(5, 3999) for _ in range(n)]
            cut = n // 2
            f.write(json.dumps({"input_ids": ids, "labels": [-100] * cut + ids[cut:]}, separators=(",", ":")) + "\n")


def one_row(tokens, path):
    rng = random.Random(37)
    ids = [rng.randint(5, 3999) for _ in range(tokens)]
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"input_ids": ids, "labels": [-100] * (tokens // 2) + ids[tokens // 2:]},
                           separators=(",", ":")) + "\n")


def main():
    args = sys.argv[1:]
    binary = None
    if "--maskscope" in args:
        k = args.index("--maskscope")
        binary = args[k + 1]
        del args[k:k + 2]
    if len(args) != 3 or args[0] not in ("long-row", "rows", "one-row"):
        sys.exit("usage: make-scale-inputs.py long-row TOKENS OUT.json [--maskscope BIN] | rows ROWS OUT.jsonl | "
                 "one-row TOKENS OUT.jsonl")
    if args[0] == "long-row":
        long_row(int(args[1]), args[2], binary)
    elif args[0] == "one-row":
        one_row(int(args[1]), args[2])
    else:
        many_rows(int(args[1]), args[2])


if __name__ == "__main__":
    main()
