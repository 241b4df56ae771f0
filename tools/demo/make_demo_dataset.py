#!/usr/bin/python3
# Builds resources/data/demo.jsonl, the dataset the maskscope app opens on, from the
# hand-written conversations in demo_conversations_*.py (no_robots style rows).
# Usage: /usr/bin/python3 tools/demo/make_demo_dataset.py   (run from anywhere; deterministic)
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from demo_conversations_a import CONVERSATIONS_A  # noqa: E402
from demo_conversations_b import CONVERSATIONS_B  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "resources", "data", "demo.jsonl")
MAX_WORDS = 400


def check(index, messages):
    roles = [role for role, _ in messages]
    body = roles[1:] if roles[0] == "system" else roles
    # Strict user/assistant alternation, starting with user and ending with assistant.
    expected = ["user", "assistant"] * (len(body) // 2)
    if body != expected or not body:
        raise SystemExit(f"conversation {index}: bad role order {roles}")
    words = sum(len(content.split()) for _, content in messages)
    if words > MAX_WORDS:
        raise SystemExit(f"conversation {index}: {words} words > {MAX_WORDS}")


def main():
    conversations = CONVERSATIONS_A + CONVERSATIONS_B
    # Interleave the two halves so the first screenful of the app mixes topics.
    order = []
    a, b = list(CONVERSATIONS_A), list(CONVERSATIONS_B)
    while a or b:
        if b:
            order.append(b.pop(0))
        if a:
            order.append(a.pop(0))
    assert len(order) == len(conversations)
    lines = []
    for index, (category, messages) in enumerate(order):
        check(index, messages)
        row = {
            "messages": [{"role": role, "content": content} for role, content in messages],
            "category": category,
            "prompt_id": f"demo-{index:03d}",
        }
        lines.append(json.dumps(row, ensure_ascii=False))
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} rows to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
