#!/usr/bin/python3
"""Writes the conversation-join batch dumps under tests/data/lint/joins/ with real token ids.

Each dump holds conversations joined into one row the way hand-rolled packing does it (one all-ones
attention block, position ids 0..T-1, labels = input_ids), or a clean conversation for the near miss.
Qwen3 ids (~/.cache/maskscope/tokenizers/qwen3, tokenized by `maskscope tokenize`): conversations in
plain ChatML (as Qwen2.5's template and hand-rolled ChatML write them, no <think> block), each ending
"<|im_end|>\\n", and one conversation rendered by Qwen3's own template with jinja2 (an independent
renderer). Llama 2 ids (~/.cache/maskscope/tokenizers/llama2) rendered by maskscope's built-in llama2
template. Deterministic.

    /usr/bin/python3 tools/lint-fixtures/make_join_dumps.py build/bin/maskscope
"""
import json
import os
import subprocess
import sys
import tempfile

import jinja2

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "data", "lint", "joins")
CACHE = os.path.expanduser("~/.cache/maskscope/tokenizers")
QWEN3, LLAMA2 = os.path.join(CACHE, "qwen3"), os.path.join(CACHE, "llama2")

A = [("system", "You are terse."), ("user", "Capital of France?"), ("assistant", "Paris.")]
B = [("user", "2+2?"), ("assistant", "4.")]
C = [("user", "Name a colour."), ("assistant", "Blue."), ("user", "Another?"), ("assistant", "Green.")]
D = [("user", "Say hi."), ("assistant", "Hi.")]
E = [("user", "Largest planet?"), ("assistant", "Jupiter.")]
F = [("user", "Opposite of up?"), ("assistant", "Down.")]
MULTI = [("system", "You answer in one word."), ("user", "Sky colour?"), ("assistant", "Blue."),
         ("user", "Grass colour?"), ("assistant", "Green."), ("user", "Snow colour?"), ("assistant", "White.")]


def tokenize(maskscope, tokenizer, text):
    out = subprocess.run([maskscope, "tokenize", "--tokenizer", tokenizer, "--text", text, "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["ids"]


def chatml(conv):
    return "".join(f"<|im_start|>{role}\n{text}<|im_end|>\n" for role, text in conv)


def qwen3_render(conv):
    with open(os.path.join(QWEN3, "tokenizer_config.json")) as f:
        source = json.load(f)["chat_template"]
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
    messages = [{"role": r, "content": t} for r, t in conv]
    return env.from_string(source).render(messages=messages, add_generation_prompt=False)


def llama2_render(maskscope, conv):
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump([{"role": r, "content": t} for r, t in conv], f)
        f.flush()
        out = subprocess.run([maskscope, "render", "--template", "llama2", "--tokenizer", LLAMA2, "--messages",
                              f.name, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["text"]


def dump(name, rows, pad=None):
    length = max(map(len, rows))
    ids = [r + [pad] * (length - len(r)) for r in rows]
    obj = {
        "input_ids": ids,
        "attention_mask": [[1] * len(r) + [0] * (length - len(r)) for r in rows],
        "labels": [list(r) + [-100] * (length - len(r)) for r in rows],
        "position_ids": [list(range(length)) for _ in rows],
    }
    if pad is not None:
        obj["pad_token_id"] = pad
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")


def main():
    maskscope = sys.argv[1] if len(sys.argv) > 1 else "build/bin/maskscope"
    os.makedirs(OUT, exist_ok=True)
    tok = lambda text: tokenize(maskscope, QWEN3, text)
    packed = [A, B, C, D]
    texts = [chatml(c) for c in packed]
    # Joined with "\n" as text: <|im_end|> "\n\n" (271) <|im_start|>, where the template writes "\n" (198).
    dump("chatml-newline-text.json", [tok("\n".join(texts))])
    # Each conversation tokenized, the ids joined with "\n" (198): <|im_end|> 198 198 <|im_start|>.
    joined = []
    for i, t in enumerate(texts):
        joined += ([198] if i else []) + tok(t)
    dump("chatml-newline-ids.json", [joined])
    # Joined with a blank line: <|im_end|> "\n\n\n" (1406) <|im_start|>.
    dump("chatml-blank-line-text.json", [tok("\n\n".join(texts))])
    # Back to back: <|im_end|> "\n" <|im_start|>, the template's own join (ambiguous).
    dump("chatml-direct.json", [tok("".join(texts))])
    # A stream of conversations without system turns, back to back, cut into rows of 40 tokens.
    stream = tok("".join(chatml(c) for c in [B, C, D, E, F, B, D]))
    dump("chatml-direct-chunked.json", [stream[i:i + 40] for i in range(0, 120, 40)])
    # Near misses: one multi-turn conversation with a system turn, in plain ChatML and by Qwen3's template.
    dump("chatml-multi-turn.json", [tok(chatml(MULTI))])
    dump("qwen3-multi-turn.json", [tok(qwen3_render(MULTI))])
    # Qwen3's own renders (an empty <think> block in each final reply) joined with "\n".
    dump("qwen3-newline-text.json", [tok("\n".join(qwen3_render(c) for c in packed))])
    # Llama 2: back to back (</s><s>[INST], the template's own turn join), joined with "\n", and one chat.
    ltok = lambda text: tokenize(maskscope, LLAMA2, text)
    lrenders = [llama2_render(maskscope, c) for c in [B, C, D]]
    dump("llama2-direct.json", [ltok("".join(lrenders))])
    dump("llama2-newline-text.json", [ltok("\n".join(lrenders))])
    dump("llama2-multi-turn.json", [ltok(llama2_render(maskscope, MULTI))])


if __name__ == "__main__":
    main()
