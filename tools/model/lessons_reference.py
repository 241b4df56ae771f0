#!/usr/bin/python3
"""Reference for the engine's masking lessons (engine/Lessons.cpp, `maskscope loss --lessons`) on
builtin:tiny (resources/models/tiny) and the fixture tests/data/engine/lessons/batch.json, with
reference.py's forward and python-torch's own autograd and torch.optim.AdamW:

- per scored position (every row, t >= 1): the gradient its term of the mean loss sends into the
  weights, by autograd.grad of that one term (scaled 1/N as in the mean; 0 where the label is -100);
- one AdamW step (lr 3e-3, betas 0.9/0.999, eps 1e-8, clip 1.0, weight decay 0) with every label -100
  and with the labels as given, counting the weights whose bits changed; the all -100 step with weight
  decay 0.01 on the matrices;
- the probe (the last ignored non-pad position before the first graded one of the first row grading
  anything, its id + 1, as core/forward/MaskLessons.cpp picks it without collator metadata): the
  row's graded loss before and after;
- the labels flipped (graded -> -100, other non-pad labels -> the input id): loss and graded count.

Writes tests/data/engine/lessons/golden.json.   lessons_reference.py [OUT_DIR]
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import reference  # noqa: E402

STEP = {"learning_rate": 3e-3, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "clip_norm": 1.0, "weight_decay": 0.01}


def load():
    d = os.path.join(ROOT, "resources", "models", "tiny")
    config = json.load(open(os.path.join(d, "config.json")))
    weights = {k: v.float().clone() for k, v in reference.read_safetensors(os.path.join(d, "model.safetensors")).items()}
    return config, weights


def batch():
    b = json.load(open(os.path.join(ROOT, "tests", "data", "engine", "lessons", "batch.json")))
    return torch.tensor(b["input_ids"]), torch.tensor(b["attention_mask"]), torch.tensor(b["labels"]), b["pad_token_id"]


def terms(model, ids, mask, labels):
    """[B, T-1] graded NLL terms (0 where ignored) and the graded count."""
    logits, _ = model.forward(ids, mask)
    lab = labels[:, 1:]
    valid = lab != -100
    nll = F.cross_entropy(logits[:, :-1].transpose(1, 2), lab.clamp_min(0), reduction="none") * valid
    return nll, int(valid.sum())


def position_gradients(config, weights, ids, mask, labels):
    w = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
    model = reference.Reference(config, w)
    params = list(w.values())
    nll, n = terms(model, ids, mask, labels)
    out = []
    for b in range(ids.shape[0]):
        for t in range(ids.shape[1] - 1):
            g = torch.autograd.grad(nll[b, t] / max(1, n), params, retain_graph=True, allow_unused=True)
            sq = sum(float(x.double().pow(2).sum()) for x in g if x is not None)
            out.append({"row": b, "position": t + 1, "graded": bool(labels[b, t + 1] != -100), "norm": sq ** 0.5})
    full = torch.autograd.grad(nll.sum() / max(1, n), params, allow_unused=True)
    return out, sum(float(x.double().pow(2).sum()) for x in full if x is not None) ** 0.5


def step(config, weights, ids, mask, labels, decay):
    w = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
    model = reference.Reference(config, w)
    params = list(w.values())
    before = [p.detach().clone() for p in params]
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": decay},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=STEP["learning_rate"], betas=(STEP["beta1"], STEP["beta2"]),
                            eps=STEP["epsilon"], foreach=False)
    nll, n = terms(model, ids, mask, labels)
    (nll.sum() / max(1, n)).backward()
    nonzero = sum(int((p.grad != 0).sum()) for p in params if p.grad is not None)
    norm = float(torch.nn.utils.clip_grad_norm_(params, STEP["clip_norm"]))
    opt.step()
    moved = sum(int((a.view(torch.int32) != p.detach().view(torch.int32)).sum()) for a, p in zip(before, params))
    return {"graded": n, "nonzero_gradients": nonzero, "grad_norm": norm, "weights_moved": moved}


def main():
    torch.set_num_threads(1)
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "data", "engine", "lessons")
    config, weights = load()
    ids, mask, labels, pad = batch()
    pads = mask == 0
    positions, full = position_gradients(config, weights, ids, mask, labels)
    ignored = torch.full_like(labels, -100)
    model = reference.Reference(config, weights)
    with torch.no_grad():
        nll, n = terms(model, ids, mask, labels)
        row = next(r for r in range(ids.shape[0]) if bool((labels[r, 1:] != -100).any()))
        first = next(t for t in range(1, ids.shape[1]) if labels[row, t] != -100)
        probe = max(t for t in range(first) if not pads[row, t])
        changed = ids.clone()
        changed[row, probe] = (ids[row, probe] + 1) % config["vocab_size"]
        after, _ = terms(model, changed, mask, labels)
        graded_row = int((labels[row, 1:] != -100).sum())
        flipped = torch.where((labels == -100) & ~pads, ids, torch.full_like(ids, -100))
        fnll, fn = terms(model, ids, mask, flipped)
    golden = {
        "step_settings": STEP,
        "positions": positions,
        "full_norm": full,
        "all_ignored": step(config, weights, ids, mask, ignored, 0.0),
        "as_given": step(config, weights, ids, mask, labels, 0.0),
        "moved_by_decay_alone": step(config, weights, ids, mask, ignored, STEP["weight_decay"])["weights_moved"],
        "still_read": {"row": row, "position": probe, "token_before": int(ids[row, probe]),
                       "token_after": int(changed[row, probe]),
                       "row_loss_before": float(nll[row].sum()) / graded_row,
                       "row_loss_after": float(after[row].sum()) / graded_row,
                       "loss_before": float(nll.sum()) / n},
        "label_flip": {"graded_flipped": fn, "loss_flipped": float(fnll.sum()) / fn},
    }
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
