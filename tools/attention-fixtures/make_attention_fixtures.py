#!/usr/bin/python3
# Writes the batch dumps of tests/data/mask/attention/: one padding-free pair of examples (3 + 4 tokens)
# in the shapes collators really write it, each as a torch.save(dict) .pt (what a training script dumps)
# and its JSON twin (what the torch-free tests read). The expected masks are in expected.json, by hand.
# Run: /usr/bin/python3 tools/attention-fixtures/make_attention_fixtures.py
import json
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "mask", "attention")

A = [101, 102, 103]       # example A: 3 tokens
B = [201, 202, 203, 204]  # example B: 4 tokens
IDS = A + B
LABELS = [-100, 102, 103, -100, 202, 203, 204]
RESTART = [0, 1, 2, 0, 1, 2, 3]


def dumps():
    yield "padding_free", {"input_ids": [IDS], "labels": [LABELS], "position_ids": [RESTART]}
    yield "all_ones_mask", {"input_ids": [IDS], "labels": [LABELS], "position_ids": [RESTART],
                            "attention_mask": [[1] * 7]}
    # cu_seq_lens with positions running on (a collator that wrote the boundaries but not the restarts)
    yield "cu_seq_lens", {"input_ids": [IDS], "labels": [LABELS], "position_ids": [list(range(7))],
                          "cu_seq_lens_q": [0, 3, 7], "cu_seq_lens_k": [0, 3, 7]}
    # the same two examples as a batch of two rows, padding-free (no mask), positions restarting
    yield "two_rows_padding_free", {"input_ids": [IDS, IDS], "labels": [LABELS, LABELS],
                                    "position_ids": [RESTART, RESTART]}
    # example B left-padded to 7 beside A + 1 token, positions not given
    yield "left_padded", {"input_ids": [[0, 0, 0] + B, A + [104, 105, 106, 107]],
                          "labels": [[-100, -100, -100] + LABELS[3:], LABELS[:3] + [104, 105, 106, 107]],
                          "attention_mask": [[0, 0, 0, 1, 1, 1, 1], [1] * 7]}
    # a block-diagonal causal 4-D mask [1, 1, 7, 7] (LLaMA-Factory neat_packing under sdpa)
    seg = [1, 1, 1, 2, 2, 2, 2]
    four = [[[[1 if k <= q and seg[k] == seg[q] else 0 for k in range(7)] for q in range(7)]]]
    yield "mask_4d", {"input_ids": [IDS], "labels": [LABELS], "position_ids": [RESTART], "attention_mask": four}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, d in dumps():
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(d, f)
            f.write("\n")
        tensors = {k: torch.tensor(v, dtype=torch.bool if k == "attention_mask" and name == "mask_4d"
                                   else torch.int64) for k, v in d.items()}
        torch.save(tensors, os.path.join(OUT, name + ".pt"))


if __name__ == "__main__":
    main()
