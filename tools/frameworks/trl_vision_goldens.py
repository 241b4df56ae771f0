#!/usr/bin/python3
"""Goldens for maskscope's reproduction of TRL 1.10's DataCollatorForVisionLanguageModeling on
prompt-completion rows (_collate_prompt_completion), written as replay cases for
tests/frameworks/tst_framework_replays.cpp under tests/data/frameworks/trl-1.10/.

Nothing of TRL is transcribed: the collator class (trl/trainer/sft_trainer.py), flush_left
(trl/trainer/utils.py) and prepare_multimodal_messages, is_conversational and apply_chat_template
(trl/data_utils.py) are read from a git mirror of github.com/huggingface/trl at f2cd577 and run as they
are. What needs packages this machine lacks is a stand-in: the Qwen2-VL processor, whose
apply_chat_template renders maskscope's qwen2-vl built-in (Qwen/Qwen2-VL-7B-Instruct's template) with
python jinja2 as transformers does (tools/templates/make_goldens.py), and whose __call__ expands each
<|image_pad|> to (h/28)(w/28) tokens (transformers' smart_resize, tools/media/smart_resize_reference.py),
tokenizes with the reference implementation @huggingface/tokenizers (tools/frameworks/tokenize.mjs) and
pads as the tokenizer pads (transcribed). Images are given by their size.

Run from the repository root with Debian's python and node:
    /usr/bin/python3 tools/frameworks/trl_vision_goldens.py [--mirror GIT_DIR]
(default mirror: $TRL_GIT or /work/.mirror/huggingface+trl/repo).
"""
import argparse
import ast
import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Callable
from itertools import takewhile
from typing import Any

import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "data", "frameworks", "trl-1.10")
CACHE = os.environ.get("MASKSCOPE_TOKENIZER_CACHE", os.path.expanduser("~/.cache/maskscope/tokenizers"))
COMMIT = "f2cd577"
sys.path.insert(0, os.path.join(ROOT, "tools", "media"))
sys.path.insert(0, os.path.join(ROOT, "tools", "templates"))
sys.path.insert(0, os.path.dirname(__file__))
from make_goldens import make_env, render  # noqa: E402
from node_tokenizer import NodeTokenizer  # noqa: E402
from smart_resize_reference import smart_resize  # noqa: E402


def upstream_source(mirror, path):
    return subprocess.run(["git", "--git-dir", mirror, "show", f"{COMMIT}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def definitions(source, names):
    """The source of the named top-level functions and classes, in file order."""
    tree = ast.parse(source)
    out = []
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in names:
            decorators = "".join("@" + ast.get_source_segment(source, d) + "\n" for d in n.decorator_list)
            out.append(decorators + ast.get_source_segment(source, n))
    return "\n\n".join(out)


class DataCollatorMixin:
    """transformers' DataCollatorMixin.__call__ for return_tensors="pt"."""

    def __call__(self, features, return_tensors=None):
        return self.torch_call(features)


class FakeImage:
    def __init__(self, width, height):
        self.width, self.height = width, height


class Qwen2VLProcessor:
    """What the collator calls of Qwen2VLProcessor (see the module docstring)."""

    def __init__(self, node, model):
        with open(os.path.join(ROOT, "resources", "templates", "qwen2-vl.jinja"), encoding="utf-8") as f:
            self.chat_template = f.read()
        with open(os.path.join(CACHE, model, "tokenizer.json"), encoding="utf-8") as f:
            added = {t["content"]: t["id"] for t in json.load(f)["added_tokens"]}
        with open(os.path.join(CACHE, model, "tokenizer_config.json"), encoding="utf-8") as f:
            pad = json.load(f)["pad_token"]
        self.pad_id = added[pad if isinstance(pad, str) else pad["content"]]
        self.node, self.model, self.env = node, model, make_env()

    def apply_chat_template(self, messages, tools=None, tokenize=False, add_generation_prompt=False,
                            continue_final_message=False, **kwargs):
        assert not tokenize and not continue_final_message and not kwargs
        out = render(self.env, self.chat_template, {"messages": messages, "tools": tools,
                                                    "add_generation_prompt": add_generation_prompt})
        assert "error" not in out, out
        return out["text"]

    def __call__(self, images=None, text=None, padding=True, padding_side="right", return_tensors="pt",
                 add_special_tokens=False, **kwargs):
        assert not add_special_tokens and not kwargs, kwargs
        flat = [im for row in images for im in row] if images else []
        counts = []
        for im in flat:
            h, w = smart_resize(im.height, im.width)
            counts.append((h // 28) * (w // 28))
        rows, used = [], 0
        for t in text:  # Qwen2VLProcessor: each <|image_pad|> becomes its image's tokens, in order
            parts = t.split("<|image_pad|>")
            expanded = parts[0]
            for p in parts[1:]:
                expanded += "<|image_pad|>" * counts[used] + p
                used += 1
            rows.append(self.node.ids(self.model, expanded))
        assert used == len(flat), "images and placeholders differ"
        width = max(len(r) for r in rows)
        ids, mask = [], []
        for r in rows:
            pad = [self.pad_id] * (width - len(r))
            ones, zeros = [1] * len(r), [0] * (width - len(r))
            ids.append(pad + r if padding_side == "left" else r + pad)
            mask.append(zeros + ones if padding_side == "left" else ones + zeros)
        return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(mask)}


def load_collator(mirror):
    ns = {"torch": torch, "Any": Any, "Callable": Callable, "takewhile": takewhile, "dataclass": dataclasses.dataclass,
          "DataCollatorMixin": DataCollatorMixin, "ProcessorMixin": object, "PreTrainedTokenizerBase": object}
    data_utils = definitions(upstream_source(mirror, "trl/data_utils.py"),
                             {"prepare_multimodal_messages", "is_conversational", "apply_chat_template"})
    utils = definitions(upstream_source(mirror, "trl/trainer/utils.py"), {"flush_left"})
    collator = definitions(upstream_source(mirror, "trl/trainer/sft_trainer.py"), {"DataCollatorForVisionLanguageModeling"})
    exec(compile(data_utils + "\n\n" + utils + "\n\n" + collator, "trl-upstream", "exec"), ns)
    return ns["DataCollatorForVisionLanguageModeling"]


def image(w, h):
    return {"type": "image", "width": w, "height": h}


def text(t):
    return {"type": "text", "text": t}


def rows():
    """Prompt-completion rows with image parts in the prompt (sizes as maskscope reads them)."""
    return [
        {"prompt": [{"role": "user", "content": [image(56, 56), text("What is this?")]}],
         "completion": [{"role": "assistant", "content": [text("A cat.")]}]},
        {"prompt": [{"role": "system", "content": [text("Be brief.")]},
                    {"role": "user", "content": [text("Compare"), image(112, 84), text("and"), image(56, 56)]}],
         "completion": [{"role": "assistant", "content": [text("The first is wider and shows a dog on a sofa.")]}]},
    ]


CASES = [  # (name, spec extras, note)
    ("vlm_prompt_completion", {}, "completion_only_loss None: True for a prompt-completion dataset, so the prompt "
     "and its image tokens are -100; prompts left-padded, completions right-padded, then flush_left"),
    ("vlm_prompt_completion_full_loss", {"completion_only_loss": False}, "completion_only_loss False: every token "
     "but the padding is graded, the image tokens too"),
    ("vlm_prompt_completion_max_length_40", {"max_length": 40}, "max_length 40: input_ids cut after flush_left, "
     "keeping the start (the second row keeps 2 of its 14 completion tokens)"),
]


# Refused (written without running TRL): its own errors, and what maskscope does not reproduce.
REFUSALS = [  # (name, spec extras, rows, stderr)
    ("vlm_completion_only_messages_refused", {"completion_only_loss": True},
     [{"messages": [{"role": "user", "content": [image(56, 56), text("What is this?")]},
                    {"role": "assistant", "content": [text("A cat.")]}]}],
     ["The `completion_only_loss` argument is not supported for language modeling datasets."]),
    ("vlm_prompt_completion_pad_to_multiple_of_refused", {"pad_to_multiple_of": 8}, None,
     ["Padding to a multiple of a value is not yet implemented for vision-language modeling and prompt-completion"]),
    ("vlm_prompt_completion_continue_final_refused", {},
     [{"prompt": [{"role": "user", "content": [image(56, 56), text("What is this?")]},
                  {"role": "assistant", "content": [text("It is")]}],
       "completion": [{"role": "assistant", "content": [text(" a cat.")]}]}],
     ["continue_final_message"]),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default=os.environ.get("TRL_GIT", "/work/.mirror/huggingface+trl/repo"))
    mirror = ap.parse_args().mirror
    Collator = load_collator(mirror)
    processor = Qwen2VLProcessor(NodeTokenizer(), "qwen3")
    for name, extra, note in CASES:
        examples = []  # the rows with an "images" column, as SFTTrainer's vision datasets have it
        for r in rows():
            sizes = [p for m in r["prompt"] for p in m["content"] if p["type"] == "image"]
            examples.append({**r, "images": [FakeImage(p["width"], p["height"]) for p in sizes]})
        collator = Collator(processor=processor, max_length=extra.get("max_length"),
                            completion_only_loss=extra.get("completion_only_loss", True))
        got = collator(examples)
        spec = {"framework": "trl", "version": "1.10", **extra}
        case = {"upstream": f"trl 1.10 ({COMMIT}) trl/trainer/sft_trainer.py DataCollatorForVisionLanguageModeling."
                            "_collate_prompt_completion, run on a Qwen2-VL processor stand-in (tools/frameworks/"
                            "trl_vision_goldens.py)",
                "note": note, "spec": spec, "rows": rows(),
                "args": ["--tokenizer", "$TOKENIZERS/qwen3", "--template", "qwen2-vl"],
                "expected": {k: got[k].tolist() for k in ("input_ids", "attention_mask", "labels")},
                "stderr_contains": ["DataCollatorForVisionLanguageModeling"]}
        with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as f:
            f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                                        for k, v in case.items()) + "\n}\n")
        print(f"{name}: {list(got['input_ids'].shape)}")
    for name, extra, refused_rows, stderr in REFUSALS:
        case = {"upstream": f"trl 1.10 ({COMMIT}) trl/trainer/sft_trainer.py DataCollatorForVisionLanguageModeling",
                "note": "refused, exit 2", "spec": {"framework": "trl", "version": "1.10", **extra},
                "rows": refused_rows or rows(), "args": ["--tokenizer", "$TOKENIZERS/qwen3", "--template", "qwen2-vl"],
                "exit": 2, "stderr_contains": stderr}
        with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as f:
            f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                                        for k, v in case.items()) + "\n}\n")


if __name__ == "__main__":
    main()
