#!/usr/bin/python3
"""Goldens for maskscope's reproduction of torchtune's message datasets (chat_dataset's OpenAIToMessages /
ShareGPTToMessages, validate_messages, mask_messages, SFTTransform's labels and the model tokenizers'
tokenize_messages), written as replay cases for tests/frameworks/tst_framework_replays.cpp under
tests/data/frameworks/torchtune-0.7.0/.

Nothing here is transcribed: torchtune's own torchtune/data/_messages.py, the truncate function of
torchtune/data/_utils.py, the SFTTransform class of torchtune/datasets/_sft.py and the tokenizer modules
torchtune/models/{llama3,qwen2,qwen2_5,qwen3}/_tokenizer.py are read at bd2a0fc (version.txt 0.7.0) from a
git mirror of github.com/pytorch/torchtune and run as they are. Stubbed: the package __init__ files (they
import the model builders, torch and torchao), Transform / ModelTokenizer / PromptTemplate (protocols),
the `regex` module (only compiled in Qwen2Tokenizer.__init__, which is not run), and each tokenizer's base
encode: the tiktoken / BPE files are not in the tokenizer cache, so encode is the reference implementation
@huggingface/tokenizers (tools/frameworks/tokenize.mjs) on the cached tokenizer.json, and the Qwen
tokenizer's attributes are set as Qwen2Tokenizer.__init__ sets them (eos_token <|im_end|> for Qwen 2.5 / 3).

Run from the repository root with Debian's python and node:
    /usr/bin/python3 tools/frameworks/torchtune_message_goldens.py [--mirror GIT_DIR]
(default mirror: $TORCHTUNE_GIT or /work/.mirror/pytorch+torchtune/repo).
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "data", "frameworks", "torchtune-0.7.0")
COMMIT = "bd2a0fc"
SOURCE = f"torchtune 0.7.0 (pytorch/torchtune {COMMIT})"
REAL = ["data/_messages.py", "models/llama3/_tokenizer.py", "models/qwen2/_tokenizer.py",
        "models/qwen2_5/_tokenizer.py", "models/qwen3/_tokenizer.py"]

STUBS = {
    "__init__.py": "",
    "data/__init__.py": (
        "from torchtune.data._messages import *\n"
        "from torchtune.data._messages import validate_messages, mask_messages\n"
        "from torchtune.data._utils import truncate\n"
        "class PromptTemplate: pass\n"
        "class ChatMLTemplate(PromptTemplate): pass\n"),
    "modules/__init__.py": "",
    "modules/transforms/__init__.py": "class Transform:\n    pass\n",
    "modules/transforms/tokenizers/__init__.py": (
        "class ModelTokenizer:\n    pass\n"
        "class BaseTokenizer:\n    pass\n"
        "class TikTokenBaseTokenizer:\n"
        "    def __init__(self, path, name, pattern, bos_id, eos_id, special_tokens):\n"
        "        self.bos_id, self.eos_id = bos_id, eos_id\n"
        "    def encode(self, text, add_bos=True, add_eos=True):\n"
        "        raise RuntimeError('replaced by the goldens script')\n"),
    "models/__init__.py": "",
    "models/llama3/__init__.py": "",
    "models/qwen2/__init__.py": "",
    "models/qwen2_5/__init__.py": "",
    "models/qwen3/__init__.py": "",
}


def git_show(mirror, path):
    return subprocess.run(["git", "--git-dir", mirror, "show", f"{COMMIT}:torchtune/{path}"], check=True,
                          capture_output=True, text=True).stdout


def function_source(text, name):
    """The source of one top-level def / class of a module (its imports are the stubs' or numpy)."""
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return ast.get_source_segment(text, node)
    raise KeyError(name)


def load_upstream(mirror):
    root = tempfile.mkdtemp(prefix="torchtune-")
    pkg = os.path.join(root, "torchtune")
    files = dict(STUBS)
    for rel in REAL:
        files[rel] = git_show(mirror, rel)
    # truncate from the real _utils.py; load_image (PIL, torch) is never reached: image parts are not in the cases
    files["data/_utils.py"] = ("from typing import Any, Optional\n" +
                               function_source(git_show(mirror, "data/_utils.py"), "truncate") +
                               "\ndef load_image(loc):\n    raise RuntimeError('no images in these cases')\n"
                               "format_content_with_images = load_image\n")
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(pkg, rel)), exist_ok=True)
        with open(os.path.join(pkg, rel), "w") as f:
            f.write(text)
    sys.modules["regex"] = re  # only compiled in Qwen2Tokenizer.__init__, which is not run
    sys.path.insert(0, root)
    import torchtune.data._messages as messages
    sft = {"np": np, "CROSS_ENTROPY_IGNORE_IDX": -100, "validate_messages": messages.validate_messages,
           "Transform": object}
    exec("from typing import Any, Mapping, Optional\n" +
         function_source(git_show(mirror, "datasets/_sft.py"), "SFTTransform"), sft)
    return messages, sft["SFTTransform"]


from node_tokenizer import NodeTokenizer as Node  # noqa: E402 (a sibling module)


def model_tokenizer(family, node, max_seq_len, truncation_type):
    if family == "llama3":
        from torchtune.models.llama3._tokenizer import Llama3Tokenizer
        tok = Llama3Tokenizer("unused", max_seq_len=max_seq_len, truncation_type=truncation_type)
        tok.tt_model.encode = lambda text, add_bos=True, add_eos=True: (
            ([tok.bos_id] if add_bos else []) + (node.ids("llama3", text) if text else []) +
            ([tok.eos_id] if add_eos else []))
        return tok
    from torchtune.models.qwen2._tokenizer import IM_END, IM_START
    from torchtune.models.qwen2_5._tokenizer import QWEN2_5_SPECIAL_TOKENS, Qwen2_5Tokenizer
    from torchtune.models.qwen3._tokenizer import QWEN3_SPECIAL_TOKENS, Qwen3Tokenizer
    cls, special = (Qwen3Tokenizer, QWEN3_SPECIAL_TOKENS) if family == "qwen3" else (Qwen2_5Tokenizer,
                                                                                      QWEN2_5_SPECIAL_TOKENS)
    tok = object.__new__(cls)
    # As Qwen2Tokenizer.__init__ and Qwen2_5Tokenizer.__init__ set them (bos None, eos <|im_end|>).
    tok.special_tokens = special
    tok.bos_id, tok.eos_id = None, special[IM_END]
    tok.im_start_id, tok.im_end_id = special[IM_START], special[IM_END]
    tok.tool_call_start_id, tok.tool_call_end_id = special["<tool_call>"], special["</tool_call>"]
    tok.max_seq_len, tok.prompt_template, tok.truncation_type = max_seq_len, None, truncation_type
    tok.encode = lambda text, add_bos=True, add_eos=True: node.ids("qwen3", text) if text else []
    return tok


CHAT = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Hi there"},
        {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Sky colour?"},
        {"role": "assistant", "content": [{"type": "text", "text": "Blue"}, {"type": "text", "text": ", mostly."}]}]
SHAREGPT = [{"from": "system", "value": "Old system."}, {"from": "human", "value": "Name a fruit."},
            {"from": "gpt", "value": " Apple. "}]
TOOL_TURN = [{"role": "user", "content": "Weather in Paris?"},
             {"role": "assistant", "content": "", "tool_calls": [
                 {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
             {"role": "tool", "content": "{\"temp\": 21}"}, {"role": "assistant", "content": "21 C in Paris."}]
FINAL_CALL = [{"role": "user", "content": "Weather in Paris?"},
              {"role": "assistant", "content": "Checking.", "tool_calls": [
                  {"type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}]
NULL_CALL = [{"role": "user", "content": "Weather in Paris?"},
             {"role": "assistant", "content": None, "tool_calls": [
                 {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}]

# name, spec options, rows, the model tokenizer's cache folder, what maskscope prints on stderr
CASES = [
    ("openai_llama3", {"model_tokenizer": "llama3"}, [{"messages": CHAT}], "llama3", []),
    ("openai_qwen3", {"model_tokenizer": "qwen3"}, [{"messages": CHAT}], "qwen3", []),
    ("openai_qwen2_5_train_on_last", {"model_tokenizer": "qwen2_5", "masking_strategy": "train_on_last"},
     [{"messages": CHAT}], "qwen3", []),
    ("openai_llama3_train_on_input", {"model_tokenizer": "llama3", "train_on_input": True}, [{"messages": CHAT}],
     "llama3", []),
    ("sharegpt_llama3_new_system_prompt", {"model_tokenizer": "llama3", "conversation_style": "sharegpt",
                                           "new_system_prompt": "Be brief."}, [{"conversations": SHAREGPT}],
     "llama3", []),
    ("openai_llama3_max_seq_len_24", {"model_tokenizer": "llama3", "tokenizer_max_seq_len": 24},
     [{"messages": CHAT}], "llama3", []),
    ("openai_qwen3_max_seq_len_24_left", {"model_tokenizer": "qwen3", "tokenizer_max_seq_len": 24,
                                          "truncation_type": "left"}, [{"messages": CHAT}], "qwen3", []),
    ("openai_qwen3_tool_calls_dropped", {"model_tokenizer": "qwen3"}, [{"messages": FINAL_CALL}], "qwen3", []),
    # content null: OpenAIToMessages' loop variable keeps the previous message's content
    ("openai_llama3_null_content_repeats", {"model_tokenizer": "llama3"}, [{"messages": NULL_CALL}], "llama3", []),
]
REFUSED = [
    ("refused_tool_turn_llama3", {"model_tokenizer": "llama3"}, [{"messages": TOOL_TURN}], "llama3",
     "must follow an ipython message"),
    ("refused_sharegpt_role", {"model_tokenizer": "llama3", "conversation_style": "sharegpt"},
     [{"conversations": [{"from": "human", "value": "Hi"}, {"from": "function_call", "value": "{}"}]}], "llama3",
     "KeyError: 'function_call'"),
    ("refused_no_model_tokenizer", {}, [{"messages": CHAT}], "llama3", "set model_tokenizer"),
]


def run_torchtune(messages_mod, sft_cls, node, options, row):
    family = options.get("model_tokenizer", "llama3")
    tok = model_tokenizer(family, node, options.get("tokenizer_max_seq_len"), options.get("truncation_type", "right"))
    # chat_dataset passes train_on_input (default False); a masking_strategy case builds the transform with it.
    if "masking_strategy" in options:
        kwargs = {"masking_strategy": options["masking_strategy"]}
    else:
        kwargs = {"train_on_input": options.get("train_on_input", False)}
    kwargs["new_system_prompt"] = options.get("new_system_prompt")
    if options.get("conversation_style") == "sharegpt":
        transform = messages_mod.ShareGPTToMessages(column_map={"conversations": "conversations"}, **kwargs)
    else:
        transform = messages_mod.OpenAIToMessages(column_map={"messages": "messages"}, **kwargs)
    out = sft_cls(message_transform=transform, model_transform=tok)(dict(row))
    return {"tokens": [int(t) for t in out["tokens"]], "labels": [int(t) for t in out["labels"]]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default=os.environ.get("TORCHTUNE_GIT", "/work/.mirror/pytorch+torchtune/repo"))
    args = ap.parse_args()
    messages_mod, sft_cls = load_upstream(args.mirror)
    node = Node()
    os.makedirs(OUT, exist_ok=True)
    import warnings
    warnings.simplefilter("ignore", DeprecationWarning)
    for name, options, rows, cache, stderr in CASES:
        expected = [run_torchtune(messages_mod, sft_cls, node, options, r) for r in rows]
        case = {"upstream": f"{SOURCE}: chat_dataset / SFTTransform / tokenize_messages run on the rows",
                "spec": {"framework": "torchtune", "version": "0.7.0", "collator": "padded_collate_sft", **options},
                "rows": rows, "args": ["--tokenizer", f"$TOKENIZERS/{cache}", "--stage", "prepared"],
                "compare_keys": ["tokens", "labels"], "expected_rows": expected}
        if stderr:
            case["stderr_contains"] = stderr
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(case, f, indent=1, ensure_ascii=False)
            f.write("\n")
    for name, options, rows, cache, fragment in REFUSED:
        why = "maskscope refuses it by name"
        if options.get("model_tokenizer"):
            try:
                run_torchtune(messages_mod, sft_cls, node, options, rows[0])
                raise SystemExit(f"{name}: torchtune did not raise")
            except (ValueError, KeyError) as e:
                why = f"torchtune raises {type(e).__name__}: {e}"
        case = {"upstream": f"{SOURCE}: {why}",
                "spec": {"framework": "torchtune", "version": "0.7.0", "collator": "padded_collate_sft", **options},
                "rows": rows, "args": ["--tokenizer", f"$TOKENIZERS/{cache}"], "exit": 2,
                "stderr_contains": [fragment]}
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(case, f, indent=1, ensure_ascii=False)
            f.write("\n")
    print(f"wrote {len(CASES) + len(REFUSED)} cases to {OUT}")


if __name__ == "__main__":
    main()
