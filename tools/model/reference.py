#!/usr/bin/python3
"""Independent Python reference of the transformers decoder forward (eager attention, float32) for
the architectures the LibTorch engine runs: llama, mistral, qwen2, qwen3, gemma2, gemma3_text, phi3.
Transcribed from transformers' modeling_llama / _mistral / _qwen2 / _qwen3 / _gemma2 / _gemma3 /
_phi3 (repeat_kv, rotate_half, the RMSNorm variants, sliding-window and soft-capping attention,
layer_types defaults) with Debian's python3-torch; no transformers needed. The engine is checked
against the goldens this writes (tests/engine/tst_engine.cpp).

  reference.py generate [OUT_DIR]   tiny random F32/BF16 models + batches + goldens (tests/data/engine)
  reference.py bench --layers N --batch B --length T --threads K   time one Qwen2-0.5B-shaped forward
  reference.py nll MODEL_DIR BATCH.json   per-token NLL of a batch (debugging)
  reference.py gradients [DATA_DIR]   gradient norms of the pad and real loss terms for the fixtures
                                      (DATA_DIR/gradient_goldens.json; reads the models generate wrote)
  reference.py scores [DATA_DIR]   layer 0 head 1 pre-softmax scores (before the mask) and probabilities
                                   of a padded and a packed batch (DATA_DIR/score_goldens.json)
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

SUPPORTED = ("llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3_text", "phi3")
GEMMA = ("gemma2", "gemma3_text")


def layer_types(c):
    """Per layer "sliding_attention" / "full_attention", as the transformers configs derive them."""
    n, mt = c["num_hidden_layers"], c["model_type"]
    if c.get("layer_types"):
        return list(c["layer_types"])
    if mt == "gemma2":  # Gemma2Config: even layers (0, 2, ...) slide
        return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(n)]
    if mt == "gemma3_text":
        pattern = c.get("sliding_window_pattern", 6)
        return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(n)]
    if mt in ("mistral", "phi3") and c.get("sliding_window"):
        return ["sliding_attention"] * n
    if mt in ("qwen2", "qwen3") and c.get("use_sliding_window") and c.get("sliding_window"):
        return ["sliding_attention" if i >= c.get("max_window_layers", 28) else "full_attention" for i in range(n)]
    return ["full_attention"] * n


class Reference:
    def __init__(self, config, weights):
        self.c = config
        self.mt = config["model_type"]
        assert self.mt in SUPPORTED, self.mt
        self.w = {k: v.float() for k, v in weights.items()}  # CPU compute in float32
        if config.get("tie_word_embeddings", self.mt in GEMMA):
            self.w["lm_head.weight"] = self.w["model.embed_tokens.weight"]
        self.heads = config["num_attention_heads"]
        self.kv = config.get("num_key_value_heads", self.heads)
        self.dim = config.get("head_dim") or config["hidden_size"] // self.heads
        self.eps = config.get("rms_norm_eps", 1e-6)
        self.bias = self.mt == "qwen2" or config.get("attention_bias", False)
        self.gemma = self.mt in GEMMA
        self.qk_norm = self.mt in ("qwen3", "gemma3_text")
        if self.gemma:
            self.scaling = config.get("query_pre_attn_scalar", 256) ** -0.5
            default_cap = (50.0, 30.0) if self.mt == "gemma2" else (None, None)
            self.attn_cap = config.get("attn_logit_softcapping", default_cap[0])
            self.final_cap = config.get("final_logit_softcapping", default_cap[1])
        else:
            self.scaling, self.attn_cap, self.final_cap = self.dim ** -0.5, None, None
        self.types = layer_types(config)

    def inv_freq(self, base, rs):
        dim = self.dim
        inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        rs = rs or {}
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
        elif kind not in (None, "default"):
            raise ValueError("rope_scaling " + kind)
        return inv

    def rms(self, x, w):
        if self.gemma:  # Gemma{2,3}RMSNorm: float32 maths, scale (1 + w)
            xf = x.float()
            out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
            return (out * (1.0 + w.float())).type_as(x)
        var = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return w * (x * torch.rsqrt(var + self.eps))

    @staticmethod
    def rotate_half(x):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)

    @staticmethod
    def mask_4d(mask, T, window=None):
        """[B,1,T,T] additive. Key k is seen by query q when k <= q, mask[k] != 0 and (mask[q] == 0 or
        mask[q] == mask[k]) (0/1: key padding; 1, 2, ...: packed segments), and with a window when
        q - k < window (the `window` most recent keys including itself). Small batches: the rule
        written out position by position; large (benchmarks): the same rule vectorised."""
        B = mask.shape[0]
        lo = torch.finfo(torch.float32).min
        if B * T * T > 200000:
            q, k = torch.arange(T)[:, None], torch.arange(T)[None, :]
            mq, mk = mask[:, :, None], mask[:, None, :]
            ok = (k <= q) & (mk != 0) & ((mq == 0) | (mq == mk))
            if window is not None:
                ok = ok & (q - k < window)
            return torch.zeros(B, 1, T, T).masked_fill(~ok[:, None], lo)
        m = torch.full((B, 1, T, T), lo)
        for b in range(B):
            for q in range(T):
                for k in range(q + 1):
                    if window is not None and q - k >= window:
                        continue
                    if mask[b, k] != 0 and (mask[b, q] == 0 or mask[b, q] == mask[b, k]):
                        m[b, 0, q, k] = 0.0
        return m

    def rope(self, positions, base, rs):
        freqs = (self.inv_freq(base, rs)[None, :, None] @ positions[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos()[:, None], emb.sin()[:, None]

    def mlp(self, x, p):
        w = self.w
        if self.mt == "phi3":  # Phi3MLP: gate_up_proj, first half gate
            gate, up = F.linear(x, w[p + "mlp.gate_up_proj.weight"]).chunk(2, dim=-1)
            return F.linear(up * F.silu(gate), w[p + "mlp.down_proj.weight"])
        gate = F.linear(x, w[p + "mlp.gate_proj.weight"])
        act = F.gelu(gate, approximate="tanh") if self.gemma else F.silu(gate)
        return F.linear(act * F.linear(x, w[p + "mlp.up_proj.weight"]), w[p + "mlp.down_proj.weight"])

    def qkv(self, x, p):
        w, H, KV, D = self.w, self.heads, self.kv, self.dim
        if self.mt == "phi3":  # Phi3Attention: fused qkv_proj, split [H*D | KV*D | KV*D]
            a = F.linear(x, w[p + "self_attn.qkv_proj.weight"])
            return a[..., : H * D], a[..., H * D: H * D + KV * D], a[..., H * D + KV * D:]
        bias = (lambda n: w.get(p + "self_attn." + n + ".bias")) if self.bias else (lambda n: None)
        return (F.linear(x, w[p + "self_attn.q_proj.weight"], bias("q_proj")),
                F.linear(x, w[p + "self_attn.k_proj.weight"], bias("k_proj")),
                F.linear(x, w[p + "self_attn.v_proj.weight"], bias("v_proj")))

    def forward(self, ids, mask=None, positions=None, keep_attention=None, keep_scores=None):
        B, T = ids.shape
        c, w, H, KV, D = self.c, self.w, self.heads, self.kv, self.dim
        if mask is None:
            mask = torch.ones_like(ids)
        if positions is None:
            positions = torch.arange(T)[None].expand(B, T)
        h = F.embedding(ids, w["model.embed_tokens.weight"])
        if self.gemma:  # normalizer in the hidden dtype
            h = h * torch.tensor(c["hidden_size"] ** 0.5, dtype=h.dtype)
        default_theta = 1000000.0 if self.mt == "gemma3_text" else 10000.0
        rope_full = self.rope(positions, c.get("rope_theta", default_theta), c.get("rope_scaling"))
        rope_local = rope_full
        if self.mt == "gemma3_text":  # sliding layers: rope_local_base_freq, no scaling
            rope_local = self.rope(positions, c.get("rope_local_base_freq", 10000.0), None)
        m_full = self.mask_4d(mask, T)
        m_slide = self.mask_4d(mask, T, c.get("sliding_window")) if "sliding_attention" in self.types else None
        attn = {}
        for i in range(c["num_hidden_layers"]):
            p = f"model.layers.{i}."
            sliding = self.types[i] == "sliding_attention"
            cos, sin = rope_local if sliding else rope_full
            x = self.rms(h, w[p + "input_layernorm.weight"])
            q, k, v = self.qkv(x, p)
            q, k, v = q.view(B, T, H, D), k.view(B, T, KV, D), v.view(B, T, KV, D)
            if self.qk_norm:
                q = self.rms(q, w[p + "self_attn.q_norm.weight"])
                k = self.rms(k, w[p + "self_attn.k_norm.weight"])
            q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
            q = q * cos + self.rotate_half(q) * sin
            k = k * cos + self.rotate_half(k) * sin
            k = k[:, :, None].expand(B, KV, H // KV, T, D).reshape(B, H, T, D)  # repeat_kv
            v = v[:, :, None].expand(B, KV, H // KV, T, D).reshape(B, H, T, D)
            s = torch.matmul(q, k.transpose(2, 3)) * self.scaling
            if self.attn_cap:
                s = torch.tanh(s / self.attn_cap) * self.attn_cap
            if keep_scores is not None and i in keep_scores:  # before the mask: what the softmax view shows
                keep_scores[i] = s.clone()
            s = s + (m_slide if sliding else m_full)
            probs = F.softmax(s, dim=-1, dtype=torch.float32)
            if keep_attention is not None and i in keep_attention:
                attn[i] = probs
            o = torch.matmul(probs, v).transpose(1, 2).reshape(B, T, H * D)
            o = F.linear(o, w[p + "self_attn.o_proj.weight"], w.get(p + "self_attn.o_proj.bias"))
            if self.gemma:
                h = h + self.rms(o, w[p + "post_attention_layernorm.weight"])
                m = self.mlp(self.rms(h, w[p + "pre_feedforward_layernorm.weight"]), p)
                h = h + self.rms(m, w[p + "post_feedforward_layernorm.weight"])
            else:
                h = h + o
                h = h + self.mlp(self.rms(h, w[p + "post_attention_layernorm.weight"]), p)
        h = self.rms(h, w["model.norm.weight"])
        logits = F.linear(h, w["lm_head.weight"])
        if self.final_cap:
            logits = torch.tanh(logits / self.final_cap) * self.final_cap
        return logits.float(), attn


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
    mt = config["model_type"]
    H, KV = config["num_attention_heads"], config["num_key_value_heads"]
    D = config.get("head_dim") or config["hidden_size"] // H
    hid, inter, V = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    bias = mt == "qwen2"
    gemma = mt in GEMMA
    norm_centre = 0.0 if gemma else 1.0  # Gemma norms scale by (1 + w)

    def r(*s, scale=0.2):
        return torch.randn(*s, generator=g) * scale

    def norm(n):
        return norm_centre + r(n, scale=0.1)

    w = {"model.embed_tokens.weight": r(V, hid, scale=1.0 if not gemma else 0.2), "model.norm.weight": norm(hid)}
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = norm(hid)
        w[p + "post_attention_layernorm.weight"] = norm(hid)
        if gemma:
            w[p + "pre_feedforward_layernorm.weight"] = norm(hid)
            w[p + "post_feedforward_layernorm.weight"] = norm(hid)
        if mt in ("qwen3", "gemma3_text"):
            w[p + "self_attn.q_norm.weight"] = norm(D)
            w[p + "self_attn.k_norm.weight"] = norm(D)
        if mt == "phi3":
            w[p + "self_attn.qkv_proj.weight"] = r(H * D + 2 * KV * D, hid)
        else:
            w[p + "self_attn.q_proj.weight"] = r(H * D, hid)
            w[p + "self_attn.k_proj.weight"] = r(KV * D, hid)
            w[p + "self_attn.v_proj.weight"] = r(KV * D, hid)
        w[p + "self_attn.o_proj.weight"] = r(hid, H * D)
        if bias:
            w[p + "self_attn.q_proj.bias"] = r(H * D)
            w[p + "self_attn.k_proj.bias"] = r(KV * D)
            w[p + "self_attn.v_proj.bias"] = r(KV * D)
        if mt == "phi3":
            w[p + "mlp.gate_up_proj.weight"] = r(2 * inter, hid)
        else:
            w[p + "mlp.gate_proj.weight"] = r(inter, hid)
            w[p + "mlp.up_proj.weight"] = r(inter, hid)
        w[p + "mlp.down_proj.weight"] = r(hid, inter)
    if not config.get("tie_word_embeddings", gemma):
        w["lm_head.weight"] = r(V, hid)
    return {k: v.to(dtype) for k, v in w.items()}


TINY = {"vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "intermediate_size": 48}
MODELS = {
    "llama_f32": ({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                   "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
                   "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": False, "hidden_act": "silu"},
                  torch.float32),
    "qwen2_f32": ({"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                   "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
                   "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": True, "hidden_act": "silu",
                   "use_sliding_window": False, "sliding_window": 4096}, torch.float32),
    "qwen2_bf16": ("qwen2_f32", torch.bfloat16),  # the qwen2_f32 weights stored as BF16
    "llama3rope_f32": ({"model_type": "llama", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 1,
                        "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 40, "rms_norm_eps": 1e-5,
                        "rope_theta": 500000.0, "tie_word_embeddings": True, "hidden_act": "silu",
                        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                         "high_freq_factor": 4.0, "original_max_position_embeddings": 16}},
                       torch.float32),
    # Qwen3: q/k RMSNorm over head_dim, head_dim (16) != hidden / heads (8).
    "qwen3_f32": (dict(TINY, model_type="qwen3", architectures=["Qwen3ForCausalLM"], head_dim=16, rms_norm_eps=1e-6,
                       rope_theta=1000000.0, tie_word_embeddings=True, hidden_act="silu", attention_bias=False,
                       use_sliding_window=False, sliding_window=None, max_window_layers=28), torch.float32),
    "qwen3_bf16": ("qwen3_f32", torch.bfloat16),
    # Gemma 2: no layer_types (transformers' alternation: layer 0 slides), small soft-caps so tanh bites.
    "gemma2_f32": (dict(TINY, model_type="gemma2", architectures=["Gemma2ForCausalLM"], head_dim=16,
                        query_pre_attn_scalar=24, rms_norm_eps=1e-6, rope_theta=10000.0, sliding_window=4,
                        attn_logit_softcapping=5.0, final_logit_softcapping=3.0, hidden_act="gelu_pytorch_tanh",
                        hidden_activation="gelu_pytorch_tanh", tie_word_embeddings=True), torch.float32),
    "gemma2_bf16": ("gemma2_f32", torch.bfloat16),
    # Gemma 3 text: sliding_window_pattern 3 (layers 0, 1 slide with the local RoPE base, layer 2 is
    # full with rope_theta and linear scaling), q/k norms, no soft-caps.
    "gemma3_f32": (dict(TINY, model_type="gemma3_text", architectures=["Gemma3ForCausalLM"], num_hidden_layers=3,
                        head_dim=16, query_pre_attn_scalar=16, rms_norm_eps=1e-6, rope_theta=1000000.0,
                        rope_local_base_freq=10000.0, rope_scaling={"rope_type": "linear", "factor": 8.0},
                        sliding_window=3, sliding_window_pattern=3, attn_logit_softcapping=None,
                        final_logit_softcapping=None, hidden_activation="gelu_pytorch_tanh",
                        tie_word_embeddings=True), torch.float32),
    "gemma3_bf16": ("gemma3_f32", torch.bfloat16),
    # Gemma 3 with explicit layer_types (as newer configs write them): full, sliding.
    "gemma3types_f32": (dict(TINY, model_type="gemma3_text", head_dim=8, query_pre_attn_scalar=8, sliding_window=4,
                             layer_types=["full_attention", "sliding_attention"], rope_theta=1000000.0,
                             rope_local_base_freq=10000.0, hidden_activation="gelu_pytorch_tanh"), torch.float32),
    # Mistral: a window on every layer.
    "mistral_f32": (dict(TINY, model_type="mistral", architectures=["MistralForCausalLM"], rms_norm_eps=1e-5,
                         rope_theta=10000.0, sliding_window=4, tie_word_embeddings=False, hidden_act="silu"),
                    torch.float32),
    "mistral_bf16": ("mistral_f32", torch.bfloat16),
    # Phi-3: fused qkv_proj / gate_up_proj, a window on every layer.
    "phi3_f32": (dict(TINY, model_type="phi3", architectures=["Phi3ForCausalLM"], rms_norm_eps=1e-5,
                      rope_theta=10000.0, sliding_window=5, tie_word_embeddings=False, hidden_act="silu",
                      rope_scaling=None), torch.float32),
    "phi3_bf16": ("phi3_f32", torch.bfloat16),
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
    written = {}
    for mname, (config, dtype) in MODELS.items():
        if isinstance(config, str):  # the weights of another fixture, stored in another dtype
            base = config
            config = MODELS[base][0]
            w = {k: v.to(dtype) for k, v in written[base].items()}
        else:
            w = random_model(config, seed=len(mname) * 1000 + 11, dtype=dtype)
        written[mname] = w
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


def gradient_norms(model, b, pad_positions):
    """||d(sum of graded NLL terms whose target is a pad)/N|| and the same for real targets, over every
    weight tensor once (tied embeddings count once), N = all graded targets: the two parts of the mean
    loss's gradient, as the engine's loss view reports them."""
    params = list({id(t): t for t in model.w.values()}.values())
    for t in params:
        t.requires_grad_(True)
    logits, _ = model.forward(b["input_ids"], b["attention_mask"], b.get("position_ids"))
    labels = b["labels"][:, 1:]
    terms = F.cross_entropy(logits[:, :-1].transpose(1, 2), labels.clamp(min=0), reduction="none")
    graded = labels != -100
    is_pad = graded & pad_positions[:, 1:]
    n = graded.sum()
    out = {}
    for key, sel in (("pad", is_pad), ("real", graded & ~is_pad)):
        if not sel.any():
            out[key] = 0.0
            continue
        grads = torch.autograd.grad((terms * sel).sum() / n, params, retain_graph=True, allow_unused=True)
        out[key] = math.sqrt(sum(float(g.double().pow(2).sum()) for g in grads if g is not None))
    return out


# Which captures score_goldens.json holds: a padded (right and left) and a packed batch, every f32 model.
SCORE_BATCHES = ("right_correct", "left_correct", "packed_segments")


def scores(data_dir):
    """Pre-softmax scores (q k^T * scale, soft-capped, before the mask) and probabilities of layer 0
    head 1, every row, for the f32 fixtures (DATA_DIR/score_goldens.json): the engine's capture of the
    scores the softmax view shows is checked against these."""
    goldens = json.load(open(os.path.join(data_dir, "goldens.json")))
    out = {"layer": 0, "head": 1, "models": {}}
    for name in goldens["models"]:
        if not name.endswith("_f32"):
            continue
        d = os.path.join(data_dir, name)
        config = json.load(open(os.path.join(d, "config.json")))
        model = Reference(config, read_safetensors(os.path.join(d, "model.safetensors")))
        res = {}
        for bname in SCORE_BATCHES:
            b = {k: torch.tensor(v) for k, v in goldens["batches"][bname].items()}
            kept = {0: None}
            _, attn = model.forward(b["input_ids"], b["attention_mask"], b.get("position_ids"), keep_attention={0},
                                    keep_scores=kept)
            res[bname] = {"scores": kept[0][:, 1].tolist(), "probs": attn[0][:, 1].tolist()}
        out["models"][name] = res
    with open(os.path.join(data_dir, "score_goldens.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))


def gradients(data_dir):
    """Gradient norms on right_both_buggy (pads attended and graded) for every fixture model."""
    goldens = json.load(open(os.path.join(data_dir, "goldens.json")))
    raw = goldens["batches"]["right_both_buggy"]
    b = {k: torch.tensor(v) for k, v in raw.items()}
    pads = torch.tensor(goldens["batches"]["right_correct"]["attention_mask"]) == 0
    out = {"batch": "right_both_buggy", "models": {}}
    for name in goldens["models"]:
        d = os.path.join(data_dir, name)
        config = json.load(open(os.path.join(d, "config.json")))
        model = Reference(config, read_safetensors(os.path.join(d, "model.safetensors")))
        out["models"][name] = gradient_norms(model, b, pads)
    with open(os.path.join(data_dir, "gradient_goldens.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    torch.manual_seed(0)
    cmd = sys.argv[1] if len(sys.argv) > 1 else "generate"
    if cmd == "generate":
        here = os.path.dirname(os.path.abspath(__file__))
        generate(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "..", "tests", "data", "engine"))
    elif cmd == "bench":
        bench(sys.argv[2:])
    elif cmd == "gradients":
        here = os.path.dirname(os.path.abspath(__file__))
        gradients(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "..", "tests", "data", "engine"))
    elif cmd == "scores":
        here = os.path.dirname(os.path.abspath(__file__))
        scores(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "..", "tests", "data", "engine"))
    elif cmd == "nll":
        nll_cmd(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
