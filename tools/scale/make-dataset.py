#!/usr/bin/python3
# Writes a deterministic chat dataset (JSONL) for the shard/merge tests and the scale recipes:
# ROWS rows, mostly good single- and multi-turn chats, with planted bad rows (broken JSON, a
# message without a role, a non-text content, blank lines), empty replies and long replies.
# Usage: make-dataset.py ROWS OUT.jsonl [SEED]
import json
import random
import sys

WORDS = ("the kettle boiled while a quiet fox read maps of distant rivers and counted "
         "seven blue stones under an old bridge near the station").split()


def sentence(rng, lo, hi):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi))).capitalize() + "."


def row(rng, i):
    kind = i % 23
    if kind == 5:
        return '{"messages": [{"role": "user", "content": "broken"'  # truncated JSON
    if kind == 11:
        return json.dumps({"messages": [{"content": "no role"}, {"role": "assistant", "content": "x"}]})
    if kind == 17:
        return json.dumps({"messages": [{"role": "user", "content": 42}, {"role": "assistant", "content": "x"}]})
    if kind == 19:
        return ""  # a blank line
    msgs = []
    if i % 7 == 0:
        msgs.append({"role": "system", "content": sentence(rng, 3, 8)})
    for _ in range(1 + (i % 3 == 0) + (i % 13 == 0)):
        msgs.append({"role": "user", "content": sentence(rng, 2, 12)})
        reply = "" if i % 31 == 4 else sentence(rng, 1, 10 if i % 29 else 220)
        msgs.append({"role": "assistant", "content": reply})
    return json.dumps({"messages": msgs})


def main():
    rows, out = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 16)
    with open(out, "w", encoding="utf-8") as f:
        for i in range(rows):
            f.write(row(rng, i) + "\n")


if __name__ == "__main__":
    main()
