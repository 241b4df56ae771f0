#!/usr/bin/python3
"""The python side of tools/cuda/run-gpu-checks.sh: the same model folder and the same batch as
`maskscope_engine_driver bench` (its --batch-out file), run by transformers (AutoModelForCausalLM,
attn_implementation sdpa and/or eager) or, where transformers is absent, by tools/model/reference.py
(`--backend reference`: plain python torch, CPU float32). Prints JSON lines like the driver's:

  forward  forward + per-token NLL (logits in float32, cross-entropy per position, copied to the host)
  loss     the loss comparison by hand, as `maskscope loss` reports it: the as-given loss (buggy collator:
           attention_mask all ones, labels = input_ids), the gradient norms of its pad-target and
           real-target terms (two torch.autograd.grad calls on one graph), then one no-grad forward
           with the correct mask for the fixed / attention_fixed_only losses (labels_fixed_only needs
           no forward) and the largest logit change at real positions.

  transformers_bench.py --model DIR --batch FILE [--device cuda|cpu] [--backend transformers|reference]
                        [--attn sdpa,eager] [--repeat N] [--skip-loss]
Each run: one warm-up, then N steady-state runs (median); peak memory = torch.cuda.max_memory_allocated
after reset_peak_memory_stats (weights included), 0 on the CPU. CUDA out of memory: reported, not fatal.
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def emit(line):
    print(json.dumps(line), flush=True)


def load_batch(path, device):
    b = json.load(open(path))
    ids = torch.tensor(b["input_ids"], dtype=torch.long)
    B, T = ids.shape
    lengths = torch.tensor(b["lengths"], dtype=torch.long)
    real = torch.arange(T)[None, :] < lengths[:, None]  # [B, T] non-pad positions (right padding)
    return {
        "shape": f"{B}x{T}",
        "ids": ids.to(device),
        "mask_given": torch.ones_like(ids).to(device),  # the buggy collator: all ones
        "mask_fixed": real.long().to(device),
        "real": real.to(device),
        "labels_given": ids.to(device),  # labels = input_ids, pads graded
        "labels_fixed": torch.where(real, ids, torch.full_like(ids, -100)).to(device),
    }


class ReferenceModel:
    """tools/model/reference.py behind the call transformers' models answer: model(input_ids=,
    attention_mask=).logits, and parameters() (each weight once, tied embeddings once)."""

    def __init__(self, folder):
        sys.path.insert(0, os.path.join(HERE, "..", "model"))
        import reference

        config = json.load(open(os.path.join(folder, "config.json")))
        self.model = reference.Reference(config, reference.read_safetensors(os.path.join(folder, "model.safetensors")))

    def __call__(self, input_ids, attention_mask):
        logits, _ = self.model.forward(input_ids, attention_mask)
        return type("Out", (), {"logits": logits})

    def parameters(self):
        return list({id(t): t for t in self.model.w.values()}.values())


def load_model(backend, folder, attn, device):
    if backend == "reference":
        if device != "cpu":
            raise RuntimeError("--backend reference computes on the CPU only")
        return ReferenceModel(folder), "float32"
    from transformers import AutoConfig, AutoModelForCausalLM

    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    try:
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype, attn_implementation=attn)
    except Exception as e:  # noqa: BLE001 - e.g. a version that wants safetensors metadata: same weights by hand
        emit({"mode": "bench", "side": f"transformers-{attn}", "event": "note",
              "note": f"from_pretrained failed ({type(e).__name__}: {str(e)[:200]}); from_config + load_state_dict"})
        from safetensors.torch import load_file

        config = AutoConfig.from_pretrained(folder)
        model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=attn)
        missing, unexpected = model.load_state_dict(load_file(os.path.join(folder, "model.safetensors")), strict=False)
        model.tie_weights()
        if unexpected or [k for k in missing if k != "lm_head.weight"]:
            raise RuntimeError(f"weights do not match the model: missing {missing[:5]}, unexpected {unexpected[:5]}")
    return model.to(device).eval(), str(dtype).replace("torch.", "")


def token_nll(logits, labels):
    """[B, T-1] cross-entropy (float32) of labels[:, t+1] from logits[:, t]; 0 where labels are -100."""
    V = logits.shape[-1]
    return F.cross_entropy(logits[:, :-1].float().reshape(-1, V), labels[:, 1:].reshape(-1), reduction="none",
                           ignore_index=-100).view(labels.shape[0], -1)


def forward_work(model, b):
    with torch.inference_mode():
        logits = model(input_ids=b["ids"], attention_mask=b["mask_given"]).logits
        nll = token_nll(logits, b["labels_given"])
        graded = b["labels_given"][:, 1:] != -100
        host = nll.double().cpu()  # the per-token NLL, on the host as maskscope returns it
        return {"loss": float(nll[graded].sum() / graded.sum()), "graded": int(graded.sum()), "values": host.numel()}


def grad_norm(grads):
    return math.sqrt(sum(float(g.double().pow(2).sum()) for g in grads if g is not None))


def loss_work(model, b):
    params = [p for p in model.parameters()]
    for p in params:
        p.requires_grad_(True)
    logits = model(input_ids=b["ids"], attention_mask=b["mask_given"]).logits
    nll = token_nll(logits, b["labels_given"])
    graded = b["labels_given"][:, 1:] != -100
    pad_target = graded & ~b["real"][:, 1:]  # the term's target token is a pad
    real_target = graded & b["real"][:, 1:]
    n = graded.sum()
    as_given = float(nll[graded].sum() / n)
    g_pad = torch.autograd.grad((nll * pad_target).sum() / n, params, retain_graph=True, allow_unused=True)
    g_real = torch.autograd.grad((nll * real_target).sum() / n, params, allow_unused=True)
    out = {"as_given": as_given, "grad_norm_pad": grad_norm(g_pad), "grad_norm_real": grad_norm(g_real),
           "labels_fixed_only": float(nll[real_target].sum() / real_target.sum())}
    del g_pad, g_real, nll
    given = logits.detach()
    del logits
    with torch.no_grad():  # the correct mask: fixed and attention_fixed_only differ only in labels
        fixed_logits = model(input_ids=b["ids"], attention_mask=b["mask_fixed"]).logits
        fixed_nll = token_nll(fixed_logits, b["labels_given"])
        fixed_graded = b["labels_fixed"][:, 1:] != -100
        out["fixed"] = float(fixed_nll[fixed_graded].sum() / fixed_graded.sum())
        out["attention_fixed_only"] = float(fixed_nll[graded].sum() / n)
        change = 0.0
        for r in range(given.shape[0]):  # row by row: one [T, V] float32 difference at a time
            real = b["real"][r]
            change = max(change, float((given[r][real].float() - fixed_logits[r][real].float()).abs().max()))
        out["max_logit_change_real"] = change
    for p in params:
        p.requires_grad_(False)
    return out


def timed(work, repeat, device):
    """One warm-up, then `repeat` runs: (result, median seconds, warm-up seconds, peak MiB of the last run)."""

    def once():
        if device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        result = work()
        if device == "cuda":
            torch.cuda.synchronize()
        return result, time.perf_counter() - t0

    _, warmup = once()
    runs = []
    for _ in range(max(1, repeat)):
        result, s = once()
        runs.append(s)
    peak = torch.cuda.max_memory_allocated() / 2**20 if device == "cuda" else 0.0
    return result, sorted(runs)[len(runs) // 2], warmup, peak


def run_side(args, attn, b):
    side = "reference" if args.backend == "reference" else f"transformers-{attn}"
    base = {"mode": "bench", "side": side, "shape": b["shape"], "device": args.device}
    t0 = time.perf_counter()
    model, dtype = load_model(args.backend, args.model, attn, args.device)
    base["dtype"] = dtype
    emit(dict(base, event="model", seconds=time.perf_counter() - t0))
    works = [("forward", forward_work)] + ([] if args.skip_loss else [("loss", loss_work)])
    for name, work in works:
        try:
            result, seconds, warmup, peak = timed(lambda: work(model, b), args.repeat, args.device)
            emit(dict(base, work=name, seconds=seconds, warmup_seconds=warmup, peak_mib=peak, **result))
        except torch.cuda.OutOfMemoryError as e:
            emit(dict(base, work=name, error="CUDA out of memory", detail=str(e).splitlines()[0][:300]))
        if args.device == "cuda":
            torch.cuda.empty_cache()
    del model
    if args.device == "cuda":
        torch.cuda.empty_cache()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--batch", required=True)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--backend", choices=["transformers", "reference"], default="transformers")
    p.add_argument("--attn", default="sdpa,eager")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--skip-loss", action="store_true")
    args = p.parse_args()
    if args.backend == "transformers":
        try:
            import transformers
        except ImportError as e:
            emit({"mode": "bench", "side": "transformers", "event": "error", "error": f"not importable: {e}"})
            return 3
        emit({"mode": "bench", "side": "transformers", "event": "versions", "transformers": transformers.__version__,
              "torch": torch.__version__})
    b = load_batch(args.batch, args.device)
    failed = 0
    for attn in args.attn.split(",") if args.backend == "transformers" else ["-"]:
        try:
            run_side(args, attn, b)
        except Exception as e:  # noqa: BLE001 - one side failing must not hide the others
            emit({"mode": "bench", "side": f"transformers-{attn}", "shape": b["shape"], "event": "error",
                  "error": f"{type(e).__name__}: {str(e)[:300]}"})
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
