#!/usr/bin/python3
"""Real-shape random models for bench/engine: the config and tensor shapes of Qwen3-0.6B and
Gemma-3-1B (all layers unless --layers), random BF16 weights (seeded), written tensor by tensor so
memory stays at one tensor; and the reference forward (reference.py) over the same memory-mapped
weights, timed, with its peak memory.

  realshape.py write {qwen3-0.6b|gemma3-1b} OUT_DIR [--layers N]
  realshape.py run MODEL_DIR BATCH.json [--threads K]   -> JSON: seconds, loss, peak_rss_mib
"""
import json
import mmap
import os
import resource
import struct
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference  # noqa: E402

# config.json of the published checkpoints (shapes and attention settings; weights are random).
SHAPES = {
    "qwen3-0.6b": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 151936,
                   "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
                   "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "rms_norm_eps": 1e-6,
                   "rope_theta": 1000000, "rope_scaling": None, "tie_word_embeddings": True, "hidden_act": "silu",
                   "attention_bias": False, "use_sliding_window": False, "sliding_window": None,
                   "max_window_layers": 28, "torch_dtype": "bfloat16"},
    "gemma3-1b": {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "vocab_size": 262144,
                  "hidden_size": 1152, "intermediate_size": 6912, "num_hidden_layers": 26,
                  "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256, "rms_norm_eps": 1e-6,
                  "query_pre_attn_scalar": 256, "rope_theta": 1000000, "rope_local_base_freq": 10000,
                  "rope_scaling": None, "sliding_window": 512, "sliding_window_pattern": 6,
                  "attn_logit_softcapping": None, "final_logit_softcapping": None,
                  "hidden_activation": "gelu_pytorch_tanh", "tie_word_embeddings": True,
                  "torch_dtype": "bfloat16"},
}


def tensor_shapes(c):
    """(name, shape) of every tensor, in transformers' names."""
    H, KV, D = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    hid, inter, V = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    gemma = c["model_type"] in reference.GEMMA
    out = [("model.embed_tokens.weight", [V, hid]), ("model.norm.weight", [hid])]
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        out += [(p + "input_layernorm.weight", [hid]), (p + "post_attention_layernorm.weight", [hid])]
        if gemma:
            out += [(p + "pre_feedforward_layernorm.weight", [hid]), (p + "post_feedforward_layernorm.weight", [hid])]
        out += [(p + "self_attn.q_norm.weight", [D]), (p + "self_attn.k_norm.weight", [D])]
        out += [(p + "self_attn.q_proj.weight", [H * D, hid]), (p + "self_attn.k_proj.weight", [KV * D, hid]),
                (p + "self_attn.v_proj.weight", [KV * D, hid]), (p + "self_attn.o_proj.weight", [hid, H * D]),
                (p + "mlp.gate_proj.weight", [inter, hid]), (p + "mlp.up_proj.weight", [inter, hid]),
                (p + "mlp.down_proj.weight", [hid, inter])]
    return out


def write(shape, out_dir, layers):
    c = dict(SHAPES[shape])
    if layers:
        c["num_hidden_layers"] = layers
    os.makedirs(out_dir, exist_ok=True)
    gemma = c["model_type"] in reference.GEMMA
    g = torch.Generator().manual_seed(1234)
    names = tensor_shapes(c)
    header, offset = {}, 0
    for name, shape_ in names:
        n = 2 * int(torch.tensor(shape_).prod())
        header[name] = {"dtype": "BF16", "shape": shape_, "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(out_dir, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape_ in names:
            if name.endswith("norm.weight"):  # near the identity: 1 + noise, Gemma (1 + w): noise
                t = (0.0 if gemma else 1.0) + torch.randn(shape_, generator=g) * 0.05
            else:  # 1/sqrt(fan_in) keeps activations O(1) through all layers
                t = torch.randn(shape_, generator=g) * (shape_[-1] ** -0.5 if "embed" not in name else 0.05)
            f.write(t.to(torch.bfloat16).view(torch.int16).numpy().tobytes())
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(c, f, indent=1)
    print("wrote", out_dir, offset >> 20, "MiB")


def mapped_weights(path):
    """Tensors viewing a private mapping of the file (no read into memory)."""
    f = open(path, "rb")
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    (n,) = struct.unpack("<Q", m[:8])
    header = json.loads(m[8:8 + n])
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        assert e["dtype"] == "BF16"
        t = torch.frombuffer(m, dtype=torch.int16, offset=base + b, count=(end - b) // 2).view(torch.bfloat16)
        out[name] = t.reshape(e["shape"])
    return out


def run(model_dir, batch_path, threads):
    if threads:
        torch.set_num_threads(threads)
    config = json.load(open(os.path.join(model_dir, "config.json")))
    b = json.load(open(batch_path))
    ids, labels = torch.tensor(b["input_ids"]), torch.tensor(b["labels"])
    t0 = time.perf_counter()
    with torch.inference_mode():
        model = reference.Reference(config, mapped_weights(os.path.join(model_dir, "model.safetensors")))
        t1 = time.perf_counter()
        logits, _ = model.forward(ids)
        loss = reference.causal_lm_loss(logits, labels)
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"load_seconds": t1 - t0, "seconds": t2 - t1, "loss": loss, "peak_rss_mib": peak,
                      "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "write":
        layers = int(a[a.index("--layers") + 1]) if "--layers" in a else 0
        write(a[1], a[2], layers)
    elif len(a) >= 3 and a[0] == "run":
        run(a[1], a[2], int(a[a.index("--threads") + 1]) if "--threads" in a else 0)
    else:
        sys.exit(__doc__)
