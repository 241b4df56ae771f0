#!/usr/bin/python3
"""Writes the naive-packing (and pad-id) batch dumps under tests/data/lint/ with the real Qwen3 token ids.

Conversations are rendered in ChatML (Qwen3's template) and tokenized by maskscope's own
tokenizer over ~/.cache/maskscope/tokenizers/qwen3, then packed the way a hand-rolled
concat + chunk does it: examples joined by a separator, one all-ones attention block, position
ids 0..T-1, labels = input_ids (ConstantLengthDataset). Deterministic.

    /usr/bin/python3 tools/lint-fixtures/make_packing_dumps.py build/bin/maskscope
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "data", "lint")
TOKENIZER = os.path.expanduser("~/.cache/maskscope/tokenizers/qwen3")
IM_END, ENDOFTEXT = 151645, 151643  # Qwen3: eos_token <|im_end|>, pad_token <|endoftext|>

CONVERSATIONS = [
    [("system", "You are terse."), ("user", "Capital of France?"), ("assistant", "Paris.")],
    [("user", "2+2?"), ("assistant", "4.")],
    [("user", "Name a colour."), ("assistant", "Blue.")],
]


def tokenize(maskscope, text):
    out = subprocess.run([maskscope, "tokenize", "--tokenizer", TOKENIZER, "--text", text, "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["ids"]


def chatml(conv):
    return "".join(f"<|im_start|>{role}\n{text}<|im_end|>\n" for role, text in conv)


def dump(name, rows, pad, length, extra=None):
    ids = [r + [pad] * (length - len(r)) for r in rows]
    obj = {
        "input_ids": ids,
        "attention_mask": [[1] * length for _ in rows],
        "labels": [list(r) for r in ids],
        "position_ids": [list(range(length)) for _ in rows],
        "pad_token_id": pad,
    }
    obj.update(extra or {})
    obj = {k: v for k, v in obj.items() if v is not None}
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")


def main():
    maskscope = sys.argv[1] if len(sys.argv) > 1 else "build/bin/maskscope"
    encoded = [tokenize(maskscope, chatml(c)) for c in CONVERSATIONS]
    # Joined by the EOS <|im_end|> right before the next <|im_start|> (concat_token_id = eos).
    joined_eos = encoded[0] + [IM_END] + encoded[1] + [IM_END] + encoded[2]
    length = len(joined_eos) + 3
    dump("naive-packing-eos.json", [joined_eos, encoded[1]], ENDOFTEXT, length, {"eos_token_id": IM_END})
    # Joined by the pad id <|endoftext|> (a pad id that also occurs mid-row), no eos in the dump.
    joined_pad = encoded[0] + [ENDOFTEXT] + encoded[1] + [ENDOFTEXT] + encoded[2]
    dump("naive-packing-pad.json", [joined_pad], ENDOFTEXT, len(joined_pad) + 2)
    # Near miss: the same conversations one per row, right-padded (no packing).
    dump("unpacked-chatml.json", encoded, ENDOFTEXT, max(map(len, encoded)) + 1, {"eos_token_id": IM_END})
    # The buggy max_length collator: padded to 32 with <|endoftext|>, an all-ones mask, labels =
    # input_ids, and no pad_token_id in the dump (lint needs --pad-id or --tokenizer to see pads).
    dump("all-ones-no-pad-id.json", encoded[1:], ENDOFTEXT, 32, {"pad_token_id": None})
    # Padding-free (DataCollatorWithFlattening / TRL padding_free): one row, examples concatenated,
    # the first label of each -100, cu_seq_lens_q/k; position ids restarting, or (the bug) not.
    flat = sum(encoded, [])
    cu = [0]
    for e in encoded:
        cu.append(cu[-1] + len(e))
    labels = sum([[-100] + e[1:] for e in encoded], [])
    restart = sum([list(range(len(e))) for e in encoded], [])
    for name, pos in (("padding-free-cu-seq-lens.json", restart), ("padding-free-positions-run-on.json", None)):
        obj = {"input_ids": [flat], "labels": [labels], "position_ids": [pos or list(range(len(flat)))],
               "cu_seq_lens_q": cu, "cu_seq_lens_k": cu, "max_length_q": max(map(len, encoded))}
        with open(os.path.join(OUT, name), "w") as f:
            json.dump(obj, f, separators=(",", ":"))
            f.write("\n")
    # Broken on purpose: cu_seq_lens that goes backwards (the reader must refuse it).
    with open(os.path.join(OUT, "cu-seq-lens-decreasing.json"), "w") as f:
        json.dump({"input_ids": [flat], "labels": [labels], "cu_seq_lens_q": [0, 30, 20, len(flat)]}, f,
                  separators=(",", ":"))
        f.write("\n")
    # Only a warning: pads attended (all-ones mask) but never graded (labels -100 there).
    row = encoded[1] + [ENDOFTEXT] * 4
    dump("pads-attended-only.json", [row], ENDOFTEXT, len(row),
         {"labels": [[-100] + row[1:len(encoded[1])] + [-100] * 4], "eos_token_id": IM_END})


if __name__ == "__main__":
    main()
