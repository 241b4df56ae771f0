#!/usr/bin/python3
"""Trains builtin:tiny, the small Llama-architecture model embedded in maskscope, on the demo dataset
with the demo tokenizer (deterministic; a few minutes of CPU). Writes resources/models/tiny/{config.json,
model.safetensors} (BF16: half the size of F32, and it exercises the engine's BF16 loading). Uses Debian's python3-torch and python3-sentencepiece, and the forward of
reference.py, so the trained weights are exercised by exactly the maths the engine is tested against.

Each conversation is rendered as ChatML, <|im_start|>{role}\\n{content}<|im_end|>\\n per message, the
control tokens inserted by id (4, 5) and the text between them encoded with SentencePiece. All tokens
are trained with next-token prediction on 128-token windows of the concatenated stream.
"""
import json
import math
import os
import sys

import sentencepiece as spm
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import reference  # noqa: E402

IM_START, IM_END = 4, 5
CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 4000, "hidden_size": 128,
          "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 352,
          "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "max_position_embeddings": 1024, "tie_word_embeddings": True,
          "hidden_act": "silu", "bos_token_id": 2, "eos_token_id": 3, "pad_token_id": 0, "torch_dtype": "bfloat16"}


def render(sp, messages):
    ids = []
    for m in messages:
        ids.append(IM_START)
        ids += sp.encode(f"{m['role']}\n{m['content']}")
        ids.append(IM_END)
        ids += sp.encode("\n")
    return ids


def main():
    torch.manual_seed(1234)
    torch.set_num_threads(1)  # small matmuls: one thread is fastest with OpenBLAS here
    sp = spm.SentencePieceProcessor(model_file=os.path.join(ROOT, "resources", "tokenizer", "demo.model"))
    assert sp.get_piece_size() == CONFIG["vocab_size"], sp.get_piece_size()  # no unused embedding rows
    stream = []
    with open(os.path.join(ROOT, "resources", "data", "demo.jsonl")) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and isinstance(row.get("messages"), list):
                msgs = [m for m in row["messages"] if isinstance(m, dict) and isinstance(m.get("content"), str)]
                stream += render(sp, msgs)
    data = torch.tensor(stream)
    print(f"{len(stream)} training tokens, uniform loss {math.log(CONFIG['vocab_size']):.3f}")

    w = {k: torch.nn.Parameter(v) for k, v in reference.random_model(CONFIG, 1234, torch.float32).items()}
    with torch.no_grad():  # a gentler start than random_model's test-scale weights
        for k, v in w.items():
            if k.endswith("norm.weight"):
                v.fill_(1.0)
            elif k.endswith("embed_tokens.weight"):
                v.mul_(0.05)
            else:
                v.mul_(0.1)
    model = reference.Reference(dict(CONFIG, tie_word_embeddings=False), {})
    model.w = w
    model.w["lm_head.weight"] = w["model.embed_tokens.weight"]  # tied
    params = [p for k, p in w.items() if k != "lm_head.weight"]
    opt = torch.optim.AdamW(params, lr=3e-3, weight_decay=0.01)
    T, B, steps = 128, 8, int(os.environ.get("TINY_STEPS", "400"))
    g = torch.Generator().manual_seed(99)
    for step in range(steps):
        lr = 3e-3 * min(1.0, (step + 1) / 50) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * step / steps)))
        for group in opt.param_groups:
            group["lr"] = lr
        starts = torch.randint(0, len(stream) - T - 1, (B,), generator=g)
        ids = torch.stack([data[s: s + T] for s in starts])
        logits, _ = model.forward(ids)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            print(f"step {step} loss {loss.item():.3f}", flush=True)
    out = os.path.join(ROOT, "resources", "models", "tiny")
    os.makedirs(out, exist_ok=True)
    tensors = {k: v.detach().to(torch.bfloat16).contiguous() for k, v in w.items() if k != "lm_head.weight"}
    reference.write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)
    print("wrote", out)


if __name__ == "__main__":
    main()
