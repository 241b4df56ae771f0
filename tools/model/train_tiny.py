#!/usr/bin/python3
"""Pretrains builtin:tiny, the small Llama-architecture model embedded in maskscope, with the demo
tokenizer on a general corpus that is disjoint from the demo conversations, so that the Training lab
(`maskscope train-ab`) fine-tunes a model that has never seen them: its held-out conversations are
unseen by both the pretraining and the fine-tuning. Writes resources/models/tiny/{config.json,
model.safetensors} (BF16: half the size of F32, and it exercises the engine's BF16 loading).

Corpus (CORPUS below): the plain English under tools/demo/corpus/, frozen in the repository (the
hand-written prose of corpus/*.txt, which the demo tokenizer was also trained on, and
corpus/pretrain/everyday_generated.txt, 1500 generated paragraphs of everyday English), then the Debian
corpus that tools/model/make_pretrain_corpus.py writes to ~/.cache/maskscope/corpus/pretrain-debian.txt
(WordNet glosses, the Python documentation, the Debian Administrator's Handbook and 300k characters of
each of five of its translations: 7.9M tokens with the frozen part; the sources and their licences are
in that script). Read line by line as plain text, no chat template and no control tokens: like a base
model, builtin:tiny has never seen <|im_start|> or <|im_end|> and learns them in fine-tuning. A line
that shares any 8-word sequence with a demo conversation is left out (the script prints how many: 50),
so no conversation, held out or not, is in the pretraining. TINY_CORPUS=frozen trains on the frozen
part alone (600 steps of 8 windows: the builtin:tiny of rounds 1-3, held-out loss 7.95 before
fine-tuning, 0.96 ln V).
The lines are joined with the newline byte piece into one stream; every step trains next-token
prediction on 16 random 128-token windows. STEPS steps of AdamW (peak 3e-3, 50 warm-up steps, cosine
to a tenth); the last loss is printed.

Deterministic; Debian's python3-torch and python3-sentencepiece; the forward of reference.py, so the
trained weights are exercised by exactly the maths the engine is tested against. Retrain whenever the
tokenizer changes (vocab_size is its piece count). About 16 minutes of one CPU core (2000 steps).
"""
import glob
import json
import math
import os
import re
import sys
import time

import sentencepiece as spm
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import reference  # noqa: E402

# In this order (the stream's order decides which windows each step samples, so it is part of the model)
CORPUS = ["tools/demo/corpus/everyday_english.txt", "tools/demo/corpus/pretrain/*.txt", "tools/demo/corpus/maskscope_*.txt"]
# The Debian corpus (tools/model/make_pretrain_corpus.py) follows the frozen one: 2000 steps of 16 x 128 tokens,
# held-out loss 6.32 before fine-tuning (0.76 ln V). TINY_CORPUS=frozen: the frozen corpus alone, 600 x 8.
DEBIAN = os.environ.get("TINY_CORPUS", "debian") != "frozen"
if DEBIAN:
    CORPUS.append(os.path.join(os.path.expanduser("~"), ".cache", "maskscope", "corpus", "pretrain-debian.txt"))
DEMO = os.path.join(ROOT, "resources", "data", "demo.jsonl")
STEPS = int(os.environ.get("TINY_STEPS", "2000" if DEBIAN else "600"))
SHARED_WORDS = 8  # a corpus line with any 8-word sequence of a demo conversation is left out
NEWLINE = 6 + 0x0A  # the byte piece <0x0A>: the demo tokenizer writes every newline as it
CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 4000, "hidden_size": 128,
          "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 352,
          "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "max_position_embeddings": 1024, "tie_word_embeddings": True,
          "hidden_act": "silu", "bos_token_id": 2, "eos_token_id": 3, "pad_token_id": 0, "torch_dtype": "bfloat16"}


def words(text):
    return re.findall(r"\w+|[^\w\s]", text.lower())


def demo_sequences():
    """Every SHARED_WORDS-word sequence of every demo conversation (all messages, held out or not)."""
    seqs = set()
    with open(DEMO, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            w = words(" ".join(m["content"] for m in row["messages"] if isinstance(m.get("content"), str)))
            seqs.update(tuple(w[i:i + SHARED_WORDS]) for i in range(len(w) - SHARED_WORDS + 1))
    return seqs


def corpus_stream(sp):
    if DEBIAN and not os.path.exists(CORPUS[-1]):
        sys.exit(f"{CORPUS[-1]} is missing: run /usr/bin/python3 tools/model/make_pretrain_corpus.py first "
                 "(or TINY_CORPUS=frozen for the frozen corpus alone)")
    banned = demo_sequences()
    stream, kept, dropped = [], 0, 0
    for pattern in CORPUS:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            with open(path, encoding="utf-8") as f:
                for line in f.read().split("\n"):
                    w = words(line)
                    if any(tuple(w[i:i + SHARED_WORDS]) in banned for i in range(len(w) - SHARED_WORDS + 1)):
                        dropped += 1
                        continue
                    kept += 1
                    stream += sp.encode(line) + [NEWLINE]
    print(f"corpus: {kept} lines kept, {dropped} left out for sharing {SHARED_WORDS} words with a demo conversation")
    return stream


def main():
    torch.manual_seed(1234)
    torch.set_num_threads(int(os.environ.get("TINY_THREADS", "1")))  # small matmuls: one thread is fastest with OpenBLAS here
    sp = spm.SentencePieceProcessor(model_file=os.path.join(ROOT, "resources", "tokenizer", "demo.model"))
    assert sp.get_piece_size() == CONFIG["vocab_size"], sp.get_piece_size()  # no unused embedding rows
    stream = corpus_stream(sp)
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
    T, B = 128, int(os.environ.get("TINY_BATCH", "16" if DEBIAN else "8"))
    causal = reference.Reference.mask_4d(torch.ones(B, T, dtype=torch.long), T)  # every window: all real
    model.mask_4d = lambda mask, length, window=None: causal
    params = [p for k, p in w.items() if k != "lm_head.weight"]
    opt = torch.optim.AdamW(params, lr=3e-3, weight_decay=0.01)
    g = torch.Generator().manual_seed(99)
    for step in range(STEPS):
        lr = 3e-3 * min(1.0, (step + 1) / 50) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * step / STEPS)))
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
        if step % 25 == 0 or step == STEPS - 1:
            print(f"step {step} loss {loss.item():.3f} ({time.process_time():.0f} s CPU)", flush=True)
    out = os.environ.get("TINY_OUT", os.path.join(ROOT, "resources", "models", "tiny"))
    os.makedirs(out, exist_ok=True)
    tensors = {k: v.detach().to(torch.bfloat16).contiguous() for k, v in w.items() if k != "lm_head.weight"}
    reference.write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)
    print("wrote", out)


if __name__ == "__main__":
    main()
