#!/usr/bin/python3
"""Replay fixtures of Axolotl's multimodal path (tests/data/frameworks/axolotl-0.18/mm_*.json).

The labels come from running Axolotl's own code: src/axolotl/processing_strategies.py at v0.18.0
(2f5cb9da) is read from the mirror (git show) and executed with stub modules for PIL, transformers
and axolotl.utils (nothing they provide is used on these rows); ProcessingStrategy.__call__
normalises the rows, get_processing_strategy picks the class, process_labels makes the labels.
The rendering is jinja2 over Axolotl's bundled template (or the given built-in), the processor's
image expansion follows transformers' formulas (Qwen2-VL smart_resize, tools/media; Gemma 3's
full_image_sequence), the tokenizer is @huggingface/tokenizers (tools/frameworks/tokenize.mjs), and
the BOS rule is ProcessorMixin.apply_chat_template's (transformers 5.14.1: add_special_tokens=False
only when the text starts with bos_token). Padding: processor_kwargs={"padding": True}, right.
Run from the repository root: /usr/bin/python3 tools/frameworks/axolotl_mm_goldens.py"""
import json
import os
import subprocess
import sys
import types

import jinja2
import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MIRROR = "/work/.mirror/axolotl-ai-cloud+axolotl/repo"
COMMIT = "2f5cb9da"
OUT = os.path.join(ROOT, "tests", "data", "frameworks", "axolotl-0.18")
CACHE = os.environ.get("MASKSCOPE_TOKENIZER_CACHE", os.path.expanduser("~/.cache/maskscope/tokenizers"))
sys.path.insert(0, os.path.join(ROOT, "tools", "media"))
from smart_resize_reference import smart_resize  # noqa: E402


def upstream(path):
    return subprocess.run(["git", "-C", MIRROR, "show", f"{COMMIT}:{path}"], check=True, capture_output=True,
                          text=True).stdout


class FakeImage:
    """An image as a size: what load_image, resize and ImageOps.pad change of it."""

    def __init__(self, width, height):
        self.width, self.height = width, height

    def resize(self, size, method=None):
        return FakeImage(*size)


def load_strategies():
    """processing_strategies.py with stub imports (PIL, transformers, axolotl.utils)."""
    def mod(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m
        return m

    class Resampling:
        BILINEAR = 2
    image = mod("PIL.Image", Resampling=Resampling, Image=object)
    pad = lambda img, size, method=None, color=None: FakeImage(*size)
    mod("PIL", Image=image, ImageOps=types.SimpleNamespace(pad=pad))
    mod("transformers", ProcessorMixin=object)
    mod("transformers.image_utils", load_image=lambda v: FakeImage(v["width"], v["height"]))
    for name, cls in [("internvl", "InternVLProcessor"), ("smolvlm", "SmolVLMProcessor"),
                      ("voxtral", "VoxtralProcessor")]:
        mod(f"transformers.models.{name}", **{cls: type(cls, (), {})})
    mod("transformers.models")

    def remove_none_values(obj):
        if isinstance(obj, dict):
            return {k: remove_none_values(v) for k, v in obj.items() if v is not None}
        if isinstance(obj, list):
            return [remove_none_values(v) for v in obj]
        return obj
    import logging
    mod("axolotl")
    mod("axolotl.utils")
    mod("axolotl.utils.dict", remove_none_values=remove_none_values)
    mod("axolotl.utils.logging", get_logger=logging.getLogger)
    mod("axolotl.model_support", get_model_support=lambda t: None, get_model_support_for_processor=lambda p: None)
    ns = {"__name__": "processing_strategies"}
    exec(compile(upstream("src/axolotl/processing_strategies.py"), "processing_strategies.py", "exec"), ns)
    return ns


class Tok:
    """The tokenizer side of a processor, through @huggingface/tokenizers."""

    def __init__(self, model):
        self.model = model
        self.proc = subprocess.Popen(["node", os.path.join(ROOT, "tools", "frameworks", "tokenize.mjs")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        with open(os.path.join(CACHE, model, "tokenizer.json")) as f:
            self.vocab = {t["content"]: t["id"] for t in json.load(f)["added_tokens"]}
        with open(os.path.join(CACHE, model, "tokenizer_config.json")) as f:
            cfg = json.load(f)
        tok = lambda k: cfg.get(k)["content"] if isinstance(cfg.get(k), dict) else cfg.get(k)
        self.bos_token, self.eos_token, self.pad_token = tok("bos_token"), tok("eos_token"), tok("pad_token")
        self.pad_token = self.pad_token or self.eos_token  # Axolotl's load_tokenizer fallback
        self.pad_token_id = self.vocab.get(self.pad_token)
        self.eos_token_id = self.vocab.get(self.eos_token)
        self.unk_token_id = None
        if "boi_token" in cfg:
            self.boi_token = cfg["boi_token"]
        self.chat_template = None

    def encode(self, text, add_special_tokens=False):
        self.proc.stdin.write(json.dumps({"model": self.model, "text": text,
                                          "add_special_tokens": add_special_tokens}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def convert_tokens_to_ids(self, token):
        return self.vocab.get(token)


def expand(text, parts, family):
    """The processor's placeholder expansion, one image per placeholder in order."""
    out = ""
    for k, chunk in enumerate(text.split({"qwen2-vl": "<|image_pad|>", "gemma3": "<start_of_image>"}[family])):
        if k:
            w, h = parts[k - 1]
            if family == "qwen2-vl":
                hb, wb = smart_resize(h, w)
                out += "<|image_pad|>" * ((hb // 28) * (wb // 28))
            else:
                out += "\n\n<start_of_image>" + "<image_soft_token>" * 256 + "<end_of_image>\n\n"
        out += chunk
    return out


def image_sizes(messages):
    return [(p["width"], p["height"]) for m in messages for p in m["content"]
            if p.get("type") == "image" or "image" in p]


def template_text(case):
    name = case["spec"].get("chat_template")
    if name:
        text = upstream(f"src/axolotl/utils/chat_templates/templates/{name}.jinja")
    else:
        with open(os.path.join(ROOT, "resources", "templates", case["builtin_template"] + ".jinja")) as f:
            text = f.read()
    return text


def build(ns, case):
    tok = Tok(case["model"])
    spec = case["spec"]
    processor = types.SimpleNamespace(tokenizer=tok)
    if case["family"] == "qwen2-vl":
        processor.image_token = "<|image_pad|>"
    else:
        processor.image_token = "<image_soft_token>"
    strategy = ns["get_processing_strategy"](
        processor, None, spec.get("chat_template"), image_size=spec.get("image_size"),
        train_on_inputs=spec.get("train_on_inputs", False), roles_to_train=spec.get("roles_to_train"),
        train_on_eos=spec.get("train_on_eos"), role_boundaries_override=spec.get("role_boundaries"),
        field_messages=spec.get("field_messages"))
    examples = strategy(json.loads(json.dumps(case["rows"])))
    env = jinja2.Environment(extensions=["jinja2.ext.loopcontrols"])

    def raise_exception(msg):
        raise ValueError(msg)
    env.globals["raise_exception"] = raise_exception
    tpl = env.from_string(template_text(case))
    ids = []
    for ex in examples:
        for m in ex["messages"]:  # the column image: its size (maskscope's rows say it on the part)
            for p in m["content"]:
                if isinstance(p.get("image"), FakeImage):
                    p["width"], p["height"] = p["image"].width, p["image"].height
        text = tpl.render(messages=ex["messages"], add_generation_prompt=False, bos_token=tok.bos_token,
                          eos_token=tok.eos_token)
        text = expand(text, image_sizes(ex["messages"]), case["family"])
        add = not (tok.bos_token and text.startswith(tok.bos_token))
        ids.append(tok.encode(text, add_special_tokens=add))
    width = max(len(r) for r in ids)
    attention = [[1] * len(r) + [0] * (width - len(r)) for r in ids]
    ids = [r + [tok.pad_token_id] * (width - len(r)) for r in ids]
    labels = strategy.process_labels(torch.tensor(ids)).tolist()
    return {"input_ids": ids, "attention_mask": attention, "labels": labels}, type(strategy).__name__


CASES = [
    {"name": "mm_qwen2vl_assistant_only", "model": "qwen3", "family": "qwen2-vl",
     "spec": {"chat_template": "qwen2_vl"},
     "rows": [
         {"messages": [{"role": "system", "content": "Be brief."},
                       {"role": "user", "content": [{"type": "image", "width": 56, "height": 56},
                                                    {"type": "text", "text": "What is this?"}]},
                       {"role": "assistant", "content": "A cat."}]},
         {"messages": [{"role": "user", "content": [{"type": "image", "width": 56, "height": 84},
                                                    {"type": "text", "text": "And?"}]},
                       {"role": "assistant", "content": "Dog."}]}]},
    {"name": "mm_qwen2vl_train_on_inputs", "model": "qwen3", "family": "qwen2-vl",
     "spec": {"chat_template": "qwen2_vl", "train_on_inputs": True},
     "rows": [{"messages": [{"role": "user", "content": [{"type": "image", "width": 56, "height": 56},
                                                         {"type": "text", "text": "What is this?"}]},
                            {"role": "assistant", "content": "A cat."}]}]},
    {"name": "mm_qwen2vl_multiturn_eos_last", "model": "qwen3", "family": "qwen2-vl",
     "spec": {"chat_template": "qwen2_vl", "roles_to_train": ["assistant"], "train_on_eos": "last"},
     "rows": [{"messages": [{"role": "user", "content": [{"type": "image", "width": 28, "height": 28},
                                                         {"type": "text", "text": "Hi"}]},
                            {"role": "assistant", "content": "One."},
                            {"role": "user", "content": "More?"},
                            {"role": "assistant", "content": "Two."}]}]},
    {"name": "mm_qwen2vl_image_column", "model": "qwen3", "family": "qwen2-vl",
     "spec": {"chat_template": "qwen2_vl", "image_size": 84},
     "rows": [{"messages": [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Hm?"}]},
                            {"role": "assistant", "content": "Ok."}],
               "images": [{"width": 640, "height": 480}, {"width": 10, "height": 10}]}]},
    {"name": "mm_tokenizer_default_base_strategy", "model": "qwen3", "family": "qwen2-vl",
     "builtin_template": "qwen2-vl", "args": ["--template", "qwen2-vl"], "spec": {},
     "rows": [{"messages": [{"role": "user", "content": [{"type": "image", "width": 56, "height": 56},
                                                         {"type": "text", "text": "What is this?"}]},
                            {"role": "assistant", "content": "A cat."}]}]},
    {"name": "mm_gemma3_assistant_only", "model": "gemma3", "family": "gemma3",
     "spec": {"chat_template": "gemma3"},
     "rows": [{"messages": [{"role": "system", "content": "Be brief."},
                            {"role": "user", "content": [{"type": "image", "width": 896, "height": 896},
                                                         {"type": "text", "text": "What is this?"}]},
                            {"role": "assistant", "content": "A cat."}]}]},
    {"name": "mm_gemma3_train_on_inputs", "model": "gemma3", "family": "gemma3",
     "spec": {"chat_template": "gemma3", "train_on_inputs": True},
     "rows": [{"messages": [{"role": "user", "content": [{"type": "image", "width": 896, "height": 896},
                                                         {"type": "text", "text": "Hi"}]},
                            {"role": "assistant", "content": "Yo."}]}]},
]


def main():
    ns = load_strategies()
    for case in CASES:
        expected, cls = build(ns, case)
        spec = {"framework": "axolotl", "type": "chat_template", "collator": "MultiModalChatDataCollator"}
        spec.update(case["spec"])
        out = {
            "upstream": f"axolotl v0.18.0 ({COMMIT}) src/axolotl/utils/collators/mm_chat.py MultiModalChatDataCollator "
                        f"with {cls} (processing_strategies.py)",
            "note": "Labels from running Axolotl's processing_strategies.py (ProcessingStrategy.__call__, "
                    "get_processing_strategy, process_labels) on ids rendered by jinja2, expanded by transformers' "
                    "formulas and tokenized by @huggingface/tokenizers: tools/frameworks/axolotl_mm_goldens.py.",
            "spec": spec,
            "rows": case["rows"],
            "args": ["--tokenizer", f"$TOKENIZERS/{case['model']}"] + case.get("args", []),
            "expected": expected,
        }
        with open(os.path.join(OUT, case["name"] + ".json"), "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        print(case["name"], cls, [sum(1 for x in r if x != -100) for r in expected["labels"]])


if __name__ == "__main__":
    main()
