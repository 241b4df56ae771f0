#!/usr/bin/python3
"""Independent Python reference of the transformers Llama / Qwen2 forward (eager, float32), used to
check the LibTorch engine. Written from modeling_llama.py's structure (repeat_kv, rotate_half,
_prepare_4d_causal_attention_mask, LlamaRMSNorm) with Debian's python3-torch; no transformers needed.

  reference.py generate [OUT_DIR]   tiny random F32/BF16 models + batches + goldens (tests/data/engine)
  reference.py bench --layers N --batch B --length T --threads K   time one Qwen2-0.5B-shaped forward
  reference.py nll MODEL_DIR BATCH.json   per-token NLL of a batch (debugging)
"""
import json
import math
import os
import struct
import sys
import time

import torch
import torch.nn.functional as F

# --------------------------------------------------------------------------- safetensors I/O

DTYPES = {torch.float32: ("F32", 4), torch.bfloat16: ("BF16", 2), torch.float16: ("F16", 2)}


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        t = t.contiguous()
        code, size = DTYPES[t.dtype]
        raw = t.view(torch.int16).numpy().tobytes() if size == 2 else t.numpy().tobytes()
        header[name] = {"dtype": code, "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)  # align the data section as the reference writer does
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        raw = bytearray(data[base + b: base + end])
        if e["dtype"] == "F32":
            t = torch.frombuffer(raw, dtype=torch.float32)
        elif e["dtype"] == "BF16":
            t = torch.frombuffer(raw, dtype=torch.int16).view(torch.bfloat16)
        elif e["dtype"] == "F16":
            t = torch.frombuffer(raw, dtype=torch.float16)
        else:
            raise ValueError(e["dtype"])
        out[name] = t.reshape(e["shape"]).clone()
    return out


# --------------------------------------------------------------------------- the model

class Reference:
    def __init__(self, config, weights):
        self.c = config
        self.w = {k: v.float() for k, v in weights.items()}  # CPU compute in float32
        if config.get("tie_word_embeddings", False):
            self.w["lm_head.weight"] = self.w["model.embed_tokens.weight"]
        self.heads = config["num_attention_heads"]
        self.kv = config.get("num_key_value_heads", self.heads)
        self.dim = config.get("head_dim", config["hidden_size"] // self.heads)
        self.eps = config.get("rms_norm_eps", 1e-6)
        self.bias = config["model_type"] == "qwen2" or config.get("attention_bias", False)

    def inv_freq(self):
        base, dim = self.c.get("rope_theta", 10000.0), self.dim
        inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        rs = self.c.get("rope_scaling") or {}
        kind = rs.get("rope_type", rs.get("type"))
        if kind == "linear":
            inv = inv / rs["factor"]
        elif kind == "llama3":
            factor, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
            old = rs["original_max_position_embeddings"]
            low_wave, high_wave = old / lo, old / hi
            wave = 2 * math.pi / inv
            inv_l = torch.where(wave > low_wave, inv / factor, inv)
            smooth = (old / wave - lo) / (hi - lo)
            smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
            medium = ~(wave < high_wave) * ~(wave > low_wave)
            inv = torch.where(medium, smoothed, inv_l)
        return inv

    def rms(self, x, w):
        var = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return w * (x * torch.rsqrt(var + self.eps))

    @staticmethod
    def rotate_half(x):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)

    @staticmethod
    def mask_4d(mask, T):
        """[B,1,T,T] additive. 0/1: transformers' causal + key padding. Segment ids: block diagonal."""
        B = mask.shape[0]
        lo = torch.finfo(torch.float32).min
        if mask.max() <= 1:
            causal = torch.full((T, T), lo).triu(1)
            m = causal[None, None].expand(B, 1, T, T).clone()
            pad = (1 - mask[:, None, None, :].float()).bool().expand(B, 1, T, T)
            return m.masked_fill(pad, lo)
        m = torch.full((B, 1, T, T), lo)
        for b in range(B):
            for q in range(T):
                for k in range(q + 1):
                    if mask[b, k] != 0 and (mask[b, q] == 0 or mask[b, q] == mask[b, k]):
                        m[b, 0, q, k] = 0.0
        return m

    def forward(self, ids, mask=None, positions=None, keep_attention=None):
        B, T = ids.shape
        w, H, KV, D = self.w, self.heads, self.kv, self.dim
        if mask is None:
            mask = torch.ones_like(ids)
        if positions is None:
            positions = torch.arange(T)[None].expand(B, T)
        h = F.embedding(ids, w["model.embed_tokens.weight"])
        freqs = (self.inv_freq()[None, :, None] @ positions[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[:, None], emb.sin()[:, None]
        m4 = self.mask_4d(mask, T)
        attn = {}
        for i in range(self.c["num_hidden_layers"]):
            p = f"model.layers.{i}."
            x = self.rms(h, w[p + "input_layernorm.weight"])
            bq = w.get(p + "self_attn.q_proj.bias") if self.bias else None
            bk = w.get(p + "self_attn.k_proj.bias") if self.bias else None
            bv = w.get(p + "self_attn.v_proj.bias") if self.bias else None
            q = F.linear(x, w[p + "self_attn.q_proj.weight"], bq).view(B, T, H, D).transpose(1, 2)
            k = F.linear(x, w[p + "self_attn.k_proj.weight"], bk).view(B, T, KV, D).transpose(1, 2)
            v = F.linear(x, w[p + "self_attn.v_proj.weight"], bv).view(B, T, KV, D).transpose(1, 2)
            q = q * cos + self.rotate_half(q) * sin
            k = k * cos + self.rotate_half(k) * sin
            k = k[:, :, None].expand(B, KV, H // KV, T, D).reshape(B, H, T, D)  # repeat_kv
            v = v[:, :, None].expand(B, KV, H // KV, T, D).reshape(B, H, T, D)
            s = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(D) + m4
            probs = F.softmax(s, dim=-1, dtype=torch.float32)
            if keep_attention is not None and i in keep_attention:
                attn[i] = probs
            o = torch.matmul(probs, v).transpose(1, 2).reshape(B, T, H * D)
            h = h + F.linear(o, w[p + "self_attn.o_proj.weight"], w.get(p + "self_attn.o_proj.bias"))
            x = self.rms(h, w[p + "post_attention_layernorm.weight"])
            h = h + F.linear(F.silu(F.linear(x, w[p + "mlp.gate_proj.weight"])) * F.linear(x, w[p + "mlp.up_proj.weight"]),
                             w[p + "mlp.down_proj.weight"])
        h = self.rms(h, w["model.norm.weight"])
        return F.linear(h, w["lm_head.weight"]).float(), attn


def per_token_nll(logits, ids):
    """[B][T]: NLL of ids[t+1] from logits[t]; last position 0."""
    nll = F.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")
    return torch.cat([nll, torch.zeros(ids.shape[0], 1)], dim=1)


def causal_lm_loss(logits, labels):
    """transformers' ForCausalLMLoss: shift by one, mean over labels != -100."""
    return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1), ignore_index=-100).item()


# --------------------------------------------------------------------------- test data

def random_model(config, seed, dtype):
    g = torch.Generator().manual_seed(seed)
    H, KV = config["num_attention_heads"], config["num_key_value_heads"]
    D = config.get("head_dim", config["hidden_size"] // H)
    hid, inter, V = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    bias = config["model_type"] == "qwen2"

    def r(*s, scale=0.2):
        return torch.randn(*s, generator=g) * scale

    w = {"model.embed_tokens.weight": r(V, hid, scale=1.0), "model.norm.weight": 1 + r(hid, scale=0.1)}
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = 1 + r(hid, scale=0.1)
        w[p + "post_attention_layernorm.weight"] = 1 + r(hid, scale=0.1)
        w[p + "self_attn.q_proj.weight"] = r(H * D, hid)
        w[p + "self_attn.k_proj.weight"] = r(KV * D, hid)
        w[p + "self_attn.v_proj.weight"] = r(KV * D, hid)
        w[p + "self_attn.o_proj.weight"] = r(hid, H * D)
        if bias:
            w[p + "self_attn.q_proj.bias"] = r(H * D)
            w[p + "self_attn.k_proj.bias"] = r(KV * D)
            w[p + "self_attn.v_proj.bias"] = r(KV * D)
        w[p + "mlp.gate_proj.weight"] = r(inter, hid)
        w[p + "mlp.up_proj.weight"] = r(inter, hid)
        w[p + "mlp.down_proj.weight"] = r(hid, inter)
    if not config.get("tie_word_embeddings", False):
        w["lm_head.weight"] = r(V, hid)
    return {k: v.to(dtype) for k, v in w.items()}


MODELS = {
    "llama_f32": ({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                   "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
                   "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": False, "hidden_act": "silu"},
                  torch.float32),
    "qwen2_f32": ({"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                   "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
                   "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": True, "hidden_act": "silu",
                   "use_sliding_window": False, "sliding_window": 4096}, torch.float32),
    "qwen2_bf16": (None, torch.bfloat16),  # the qwen2_f32 weights stored as BF16
    "llama3rope_f32": ({"model_type": "llama", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 1,
                        "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 40, "rms_norm_eps": 1e-5,
                        "rope_theta": 500000.0, "tie_word_embeddings": True, "hidden_act": "silu",
                        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                         "high_freq_factor": 4.0, "original_max_position_embeddings": 16}},
                       torch.float32),
}

PAD = 0


def batches():
    """Named batches: right/left padded, packed, with correct and buggy masks."""
    g = torch.Generator().manual_seed(7)
    lens = [9, 6, 3]
    T = 9
    rows = [torch.randint(4, 64, (n,), generator=g) for n in lens]
    out = {}

    def right():
        ids = torch.full((3, T), PAD)
        am = torch.zeros(3, T, dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = r
            am[i, : len(r)] = 1
        return ids, am

    def left():
        ids = torch.full((3, T), PAD)
        am = torch.zeros(3, T, dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, T - len(r):] = r
            am[i, T - len(r):] = 1
        return ids, am

    def lab_masked(ids, am):
        lab = ids.clone()
        lab[am == 0] = -100
        return lab

    ids, am = right()
    out["right_correct"] = dict(input_ids=ids, attention_mask=am, labels=lab_masked(ids, am))
    out["right_all_ones"] = dict(input_ids=ids, attention_mask=torch.ones_like(am), labels=lab_masked(ids, am))
    out["right_labels_all"] = dict(input_ids=ids, attention_mask=am, labels=ids.clone())
    out["right_both_buggy"] = dict(input_ids=ids, attention_mask=torch.ones_like(am), labels=ids.clone())
    ids, am = left()
    out["left_correct"] = dict(input_ids=ids, attention_mask=am, labels=lab_masked(ids, am))
    pos = (am.cumsum(-1) - 1).clamp(min=0)
    out["left_correct_positions"] = dict(input_ids=ids, attention_mask=am, labels=lab_masked(ids, am), position_ids=pos)
    out["left_all_ones"] = dict(input_ids=ids, attention_mask=torch.ones_like(am), labels=lab_masked(ids, am))
    # Packing: rows 2 and 3 into one row of 9 + a second row [row 1 (6) + pad 3].
    pk = torch.full((2, T), PAD)
    seg = torch.zeros(2, T, dtype=torch.long)
    ppos = torch.zeros(2, T, dtype=torch.long)
    pk[0, :6], seg[0, :6], ppos[0, :6] = rows[1], 1, torch.arange(6)
    pk[0, 6:9], seg[0, 6:9], ppos[0, 6:9] = rows[2], 2, torch.arange(3)
    pk[1, :3], seg[1, :3], ppos[1, :3] = rows[2], 1, torch.arange(3)
    pk[1, 3:8] = rows[0][:5]
    seg[1, 3:8] = 2
    ppos[1, 3:8] = torch.arange(5)
    lab = pk.clone()
    lab[seg == 0] = -100
    out["packed_segments"] = dict(input_ids=pk, attention_mask=seg, labels=lab, position_ids=ppos)
    out["packed_naive_reset"] = dict(input_ids=pk, attention_mask=(seg > 0).long(), labels=lab, position_ids=ppos)
    out["packed_naive"] = dict(input_ids=pk, attention_mask=(seg > 0).long(), labels=lab)
    return out


def generate(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    goldens = {"pad_token_id": PAD, "batches": {}, "models": {}}
    bs = batches()
    for name, b in bs.items():
        goldens["batches"][name] = {k: v.tolist() for k, v in b.items()}
    qwen_weights = None
    for mname, (config, dtype) in MODELS.items():
        if config is None:
            config = MODELS["qwen2_f32"][0]
            w = {k: v.to(dtype) for k, v in qwen_weights.items()}
        else:
            w = random_model(config, seed=len(mname) * 1000 + 11, dtype=dtype)
        if mname == "qwen2_f32":
            qwen_weights = w
        d = os.path.join(out_dir, mname)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(config, f, indent=1)
        write_safetensors(os.path.join(d, "model.safetensors"), w)
        model = Reference(config, read_safetensors(os.path.join(d, "model.safetensors")))
        res = {}
        for bname, b in bs.items():
            logits, attn = model.forward(b["input_ids"], b["attention_mask"], b.get("position_ids"), keep_attention={0})
            res[bname] = {"per_token_nll": per_token_nll(logits, b["input_ids"]).tolist(),
                          "loss": causal_lm_loss(logits, b["labels"]),
                          # layer 0, head 1 attention of row 0 (a check of the capture path)
                          "attention_l0_h1_row0": attn[0][0, 1].tolist()}
        goldens["models"][mname] = res
    with open(os.path.join(out_dir, "goldens.json"), "w") as f:
        json.dump(goldens, f, separators=(",", ":"))
    # A .pt batch as a user's collator would torch.save it (int64, int32 and bool tensors).
    b = bs["right_correct"]
    torch.save({"input_ids": b["input_ids"], "attention_mask": b["attention_mask"].to(torch.bool),
                "labels": b["labels"].to(torch.int32), "pad_token_id": PAD}, os.path.join(out_dir, "batch.pt"))
    torch.save([1, 2, 3], os.path.join(out_dir, "not_a_dict.pt"))
    # A sharded copy of llama_f32 (two shards + index), as big checkpoints come.
    w = read_safetensors(os.path.join(out_dir, "llama_f32", "model.safetensors"))
    d = os.path.join(out_dir, "llama_f32_sharded")
    os.makedirs(d, exist_ok=True)
    names = sorted(w)
    half = len(names) // 2
    shards = {"model-00001-of-00002.safetensors": names[:half], "model-00002-of-00002.safetensors": names[half:]}
    index = {"metadata": {}, "weight_map": {}}
    for fn, ns in shards.items():
        write_safetensors(os.path.join(d, fn), {n: w[n] for n in ns})
        for n in ns:
            index["weight_map"][n] = fn
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f, indent=1)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(MODELS["llama_f32"][0], f, indent=1)
    print("wrote", out_dir)


def bench(args):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=24)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--length", type=int, default=512)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--config", default="")
    a = ap.parse_args(args)
    if a.threads:
        torch.set_num_threads(a.threads)
    if a.config:
        config = json.load(open(a.config))
    else:
        config = {"model_type": "qwen2", "vocab_size": 151936, "hidden_size": 896, "num_hidden_layers": a.layers,
                  "num_attention_heads": 14, "num_key_value_heads": 2, "intermediate_size": 4864,
                  "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": True}
    w = random_model(config, 1, torch.float32)
    model = Reference(config, w)
    ids = torch.randint(0, config["vocab_size"], (a.batch, a.length))
    am = torch.ones_like(ids)
    # The 4D mask builder above loops in Python only for segment ids; 0/1 masks are vectorised.
    times = []
    with torch.inference_mode():
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            logits, _ = model.forward(ids, am)
            per_token_nll(logits, ids)
            times.append(time.perf_counter() - t0)
    print(json.dumps({"seconds": min(times), "threads": torch.get_num_threads()}))


def nll_cmd(model_dir, batch_path):
    config = json.load(open(os.path.join(model_dir, "config.json")))
    model = Reference(config, read_safetensors(os.path.join(model_dir, "model.safetensors")))
    b = json.load(open(batch_path))
    ids = torch.tensor(b["input_ids"])
    am = torch.tensor(b["attention_mask"]) if "attention_mask" in b else None
    pos = torch.tensor(b["position_ids"]) if b.get("position_ids") else None
    logits, _ = model.forward(ids, am, pos)
    out = {"per_token_nll": per_token_nll(logits, ids).tolist()}
    if "labels" in b:
        out["loss"] = causal_lm_loss(logits, torch.tensor(b["labels"]))
    print(json.dumps(out))


if __name__ == "__main__":
    torch.manual_seed(0)
    cmd = sys.argv[1] if len(sys.argv) > 1 else "generate"
    if cmd == "generate":
        here = os.path.dirname(os.path.abspath(__file__))
        generate(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "..", "tests", "data", "engine"))
    elif cmd == "bench":
        bench(sys.argv[2:])
    elif cmd == "nll":
        nll_cmd(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
