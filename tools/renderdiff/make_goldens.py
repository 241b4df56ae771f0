#!/usr/bin/python3
"""Goldens for `maskscope render-diff` (tests/renderdiff/tst_render_diff.cpp), computed without maskscope.

Each case renders the fixture rows of tests/data/renderdiff/ with Python jinja2 configured as
transformers configures apply_chat_template (ImmutableSandboxedEnvironment, trim_blocks,
lstrip_blocks, loopcontrols, its tojson, raise_exception), using the real chat templates of the
tokenizer cache (~/.cache/maskscope/tokenizers, tools/fetch-tokenizers.sh), and tokenizes with the
reference implementation @huggingface/tokenizers (tools/frameworks/tokenize.mjs). Per assistant turn:

  training  the whole conversation rendered (add_generation_prompt=False), tokenized; with the
            collator's add_bos, the tokenizer's BOS in front. It is cut after the token that closes
            the turn: the first end-of-turn marker after the turn's assistant header. The reply
            starts right after that header (a plain prompt/completion row: after the prompt).
  serving   the messages before the turn rendered with add_generation_prompt=True and tokenized as
            is (a plain row: the prompt text), then the turn's content tokenized, then the closing
            token unless the content already ends with it.

The two are compared as docs/cli.md (render-diff) defines it: common prefix and suffix, a longest
common subsequence of the rest (a match whenever the tokens agree, else the training token is
dropped first on ties), each one-sided run moved as early as the tokens allow but never from a reply into the context; verdicts by the
leading special tokens, then where the differences are. Writes tests/data/renderdiff/cases.json.

Run from the repository root with Debian's python (python3-jinja2) and node:
    /usr/bin/python3 tools/renderdiff/make_goldens.py
"""
import json
import os
import subprocess

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data", "renderdiff")
CACHE = os.environ.get("MASKSCOPE_TOKENIZER_CACHE", os.path.expanduser("~/.cache/maskscope/tokenizers"))

# Per template family: the assistant header that opens a reply and the marker that closes it.
FAMILIES = {
    "qwen3": ("<|im_start|>assistant\n", "<|im_end|>"),
    "llama3": ("<|start_header_id|>assistant<|end_header_id|>\n\n", "<|eot_id|>"),
    "gemma3": ("<start_of_turn>model\n", "<end_of_turn>"),
}

# name, tokenizer (a cache folder, or llama3-adds-bos: the cached Llama-3 tokenizer.json with the
# BOS post-processor Meta's tokenizer has, tests/data/renderdiff/llama3-adds-bos), template
# family, data file, collator, --var pairs.
CASES = [
    ("qwen3-thinking-default", "qwen3", "qwen3", "qwen3-chat.jsonl", "default", {}),
    ("qwen3-enable-thinking-true", "qwen3", "qwen3", "qwen3-chat.jsonl", "default", {"enable_thinking": True}),
    ("qwen3-enable-thinking-false", "qwen3", "qwen3", "qwen3-chat.jsonl", "default", {"enable_thinking": False}),
    ("llama3-chat", "llama3", "llama3", "llama3-chat.jsonl", "default", {}),
    ("llama3-chat-tokenizer-bos", "llama3-adds-bos", "llama3", "llama3-chat.jsonl", "add_bos=true", {}),
    ("llama3-prerendered", "llama3-adds-bos", "llama3", "llama3-prerendered.jsonl", "default", {}),
    ("llama3-prerendered-tokenizer-bos", "llama3-adds-bos", "llama3", "llama3-prerendered.jsonl", "add_bos=true", {}),
    ("gemma3-system-folded", "gemma3", "gemma3", "gemma3-chat.jsonl", "default", {}),
]


class Tokenizers:
    """@huggingface/tokenizers through tools/frameworks/tokenize.mjs, one node process."""

    def __init__(self):
        self.proc = subprocess.Popen(["node", os.path.join(ROOT, "tools", "frameworks", "tokenize.mjs")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ids(self, model, text):
        self.proc.stdin.write(json.dumps({"model": model, "text": text, "add_special_tokens": False}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())


def config(model):
    with open(os.path.join(CACHE, model, "tokenizer_config.json"), encoding="utf-8") as f:
        return json.load(f)


def special_ids(model):
    with open(os.path.join(CACHE, model, "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    return {t["id"] for t in tok["added_tokens"] if t.get("special")}


def make_env():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    return env


def align(train, serve, train_reply, serve_reply):
    """The documented alignment: a list of gaps (ti, te, si, se) between matched tokens."""
    nt, ns = len(train), len(serve)
    p = 0
    while p < nt and p < ns and train[p] == serve[p]:
        p += 1
    q = 0
    while q < nt - p and q < ns - p and train[nt - 1 - q] == serve[ns - 1 - q]:
        q += 1
    a, b = train[p:nt - q], serve[p:ns - q]
    n, m = len(a), len(b)
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            lcs[i][j] = lcs[i + 1][j + 1] + 1 if a[i] == b[j] else max(lcs[i + 1][j], lcs[i][j + 1])
    matches, i, j = [], 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            matches.append((p + i, p + j))
            i, j = i + 1, j + 1
        elif lcs[i + 1][j] >= lcs[i][j + 1]:
            i += 1
        else:
            j += 1
    matches.append((nt - q, ns - q))
    gaps, ti, si = [], p, p
    for tm, sm in matches:
        if tm > ti or sm > si:
            gaps.append([ti, tm, si, sm])
        ti, si = tm + 1, sm + 1
    floor_t = floor_s = 0
    for g in gaps:
        # one-sided runs move towards the start, never from a reply into its side's context
        train_only = g[3] == g[2]
        min_t = max(floor_t, train_reply if train_only and g[0] >= train_reply else 0)
        min_s = max(floor_s, serve_reply if not train_only and g[2] >= serve_reply else 0)
        while g[0] > min_t and g[2] > min_s and (
                (g[1] == g[0] and serve[g[2] - 1] == serve[g[3] - 1]) or
                (g[3] == g[2] and train[g[0] - 1] == train[g[1] - 1])):
            g[:] = [x - 1 for x in g]
        floor_t, floor_s = g[1], g[3]
    return gaps


def compare(train, serve, specials, train_reply, serve_reply):
    if train == serve:
        return "identical", []
    diffs, in_context = [], False
    for ti, te, si, se in align(train, serve, train_reply, serve_reply):
        k = 0
        while ti + k < te or si + k < se:
            tp, sp = min(ti + k, te), min(si + k, se)
            t = train[ti + k] if ti + k < te else None
            s = serve[si + k] if si + k < se else None
            diffs.append({"position": tp, "train": t, "serve": s})
            in_context = in_context or (t is not None and tp < train_reply) or (s is not None and sp < serve_reply)
            k += 1

    def leading(ids):
        run = []
        for t in ids:
            if t not in specials:
                break
            run.append(t)
        return run

    if leading(train) != leading(serve):
        return "different_start", diffs
    return ("differs_in_context" if in_context else "differs_in_reply"), diffs


def conversation(row):
    """(messages, None) for a messages row, (None, (prompt, completion)) for a plain one."""
    if "messages" in row:
        return row["messages"], None
    return None, (row["prompt"], row["completion"])


def diff_row(tok, model, family, row, add_bos, variables, env):
    cfg = config(model)
    template = env.from_string(cfg["chat_template"])
    specials = special_ids(model)
    header, closer = FAMILIES[family]
    closing_id = tok.ids(model, closer)[0]
    bos = tok.ids(model, cfg["bos_token"]) if add_bos else []
    base = {k: cfg.get(k) for k in ("bos_token", "eos_token", "pad_token", "unk_token") if isinstance(cfg.get(k), str)}
    messages, plain = conversation(row)

    def render(msgs, gen):
        return template.render(messages=msgs, add_generation_prompt=gen, **{**base, **variables})

    turns = []
    if plain:
        prompt, completion = plain
        eos = cfg["eos_token"]
        text = prompt + (completion if completion.endswith(eos) else completion + eos)  # TRL's add_eos
        units = [(1, len(prompt), len(text), prompt, completion, tok.ids(model, eos)[0])]
    else:
        text = render(messages, False)
        units, at = [], 0
        for m, msg in enumerate(messages):
            if msg["role"] != "assistant":
                continue
            at = text.index(header, at) + len(header)
            end = text.index(closer, at) + len(closer)
            units.append((m, at, end, render(messages[:m], True), msg["content"], closing_id))
    full = bos + tok.ids(model, text)
    for m, reply_char, end_char, context_text, content, stop in units:
        train = bos + tok.ids(model, text[:end_char])
        assert full[:len(train)] == train, "the cut is not a token boundary"
        train_reply = len(bos + tok.ids(model, text[:reply_char]))
        context = tok.ids(model, context_text)
        reply = tok.ids(model, content)
        if not reply or reply[-1] != stop:
            reply.append(stop)
        verdict, diffs = compare(train, context + reply, specials, train_reply, len(context))
        turns.append({"message": m, "verdict": verdict, "differences": diffs})
    return turns


def main():
    tok, env, out = Tokenizers(), make_env(), []
    for name, tokenizer, family, data, collator, variables in CASES:
        model = "llama3" if tokenizer == "llama3-adds-bos" else tokenizer
        add_bos = collator == "add_bos=true" and tokenizer == "llama3-adds-bos"
        rows = []
        with open(os.path.join(DATA, data), encoding="utf-8") as f:
            for i, line in enumerate(l for l in f if l.strip()):
                rows.append({"row": i, "turns": diff_row(tok, model, family, json.loads(line), add_bos, variables, env)})
        out.append({"name": name, "tokenizer": tokenizer, "template": family, "data": data, "collator": collator,
                    "vars": [f"{k}={'true' if v is True else 'false' if v is False else v}" for k, v in variables.items()],
                    "expected": rows})
    with open(os.path.join(DATA, "cases.json"), "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(c, ensure_ascii=False) for c in out) + "\n]\n")
    for c in out:
        print(c["name"], [[t["verdict"] for t in r["turns"]] for r in c["expected"]])


if __name__ == "__main__":
    main()
