#!/usr/bin/python3
"""Reference for the engine's training step (engine/Trainer.cpp): two steps of torch.optim.AdamW
(decoupled weight decay on matrices only, as HF Trainer's groups), torch.nn.utils.clip_grad_norm_ and
gradient accumulation over two micro-batches with different graded-token counts, on the random
llama_f32 test model (tests/data/engine/llama_f32) with reference.py's forward.
Writes tests/data/engine/adamw/golden.json: per run (token-weighted and per-micro-batch-mean) the
training loss and pre-clip gradient norm of each step and the held-out loss before and after each.

  adamw_reference.py [OUT_DIR]
  adamw_reference.py bench CONFIG.json BATCH LENGTH STEPS   seconds of STEPS training steps (one thread),
                                                           for bench/engine/TrainBench.cpp
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

SETTINGS = {"learning_rate": 0.01, "weight_decay": 0.1, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8,
            "clip_norm": 0.5, "steps": 2}


def micro_batches():
    g = torch.Generator().manual_seed(7)
    ids1 = torch.randint(0, 64, (2, 8), generator=g)
    lab1 = ids1.clone()
    lab1[0, :2] = -100  # 13 graded (position 0 never counts: the shift)
    ids2 = torch.randint(0, 64, (1, 6), generator=g)
    lab2 = torch.full_like(ids2, -100)
    lab2[0, 4:] = ids2[0, 4:]  # 2 graded
    mask2 = torch.ones_like(ids2)
    return [(ids1, torch.ones_like(ids1), lab1), (ids2, mask2, lab2)]


def summed_nll(model, ids, mask, labels):
    logits, _ = model.forward(ids, mask)
    lab = labels[:, 1:]
    nll = F.cross_entropy(logits[:, :-1].transpose(1, 2), lab.clamp_min(0), reduction="none") * (lab != -100)
    return nll.sum(), int((lab != -100).sum())


def run(per_micro_mean):
    d = os.path.join(ROOT, "tests", "data", "engine", "llama_f32")
    config = json.load(open(os.path.join(d, "config.json")))
    weights = {k: v.float().clone().requires_grad_(True) for k, v in reference.read_safetensors(
        os.path.join(d, "model.safetensors")).items()}
    model = reference.Reference(config, weights)
    params = list(weights.values())
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": SETTINGS["weight_decay"]},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=SETTINGS["learning_rate"], betas=(SETTINGS["beta1"], SETTINGS["beta2"]),
                            eps=SETTINGS["epsilon"], foreach=False)
    mbs = micro_batches()

    def held_out():
        with torch.no_grad():
            s, n = zip(*(summed_nll(model, *mb) for mb in mbs))
            return float(sum(x.item() for x in s) / sum(n))

    out = {"train_loss": [], "grad_norm": [], "held_out": [held_out()], "graded": []}
    for _ in range(SETTINGS["steps"]):
        opt.zero_grad(set_to_none=True)
        total = sum(int((mb[2][:, 1:] != -100).sum()) for mb in mbs)
        reported = 0.0
        for mb in mbs:
            s, n = summed_nll(model, *mb)
            loss = s / n / len(mbs) if per_micro_mean else s / total
            loss.backward()
            reported += loss.item()
        norm = torch.nn.utils.clip_grad_norm_(params, SETTINGS["clip_norm"])
        opt.step()
        out["train_loss"].append(reported)
        out["grad_norm"].append(float(norm))
        out["graded"].append(total)
        out["held_out"].append(held_out())
    return out


def bench(config_path, batch, length, steps):
    import time
    torch.set_num_threads(1)
    config = json.load(open(config_path))
    weights = {k: v.requires_grad_(True) for k, v in reference.random_model(config, 1, torch.float32).items()}
    model = reference.Reference(config, weights)
    params = list(weights.values())
    opt = torch.optim.AdamW(params, lr=1e-3, foreach=False)
    ids = torch.randint(0, config["vocab_size"], (batch, length))
    t0 = time.perf_counter()
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        s, n = summed_nll(model, ids, torch.ones_like(ids), ids)
        (s / n).backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
    print(json.dumps({"seconds": time.perf_counter() - t0}))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "bench":
        bench(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
        return
    torch.manual_seed(0)
    torch.set_num_threads(1)
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "data", "engine", "adamw")
    os.makedirs(out_dir, exist_ok=True)
    mbs = micro_batches()
    golden = {"settings": SETTINGS,
              "micro_batches": [{"input_ids": i.tolist(), "attention_mask": m.tolist(), "labels": l.tolist()}
                                for i, m, l in mbs],
              "token_weighted": run(False), "per_micro_batch_mean": run(True)}
    assert golden["token_weighted"]["grad_norm"][0] > SETTINGS["clip_norm"], "clipping must be exercised"
    with open(os.path.join(out_dir, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
