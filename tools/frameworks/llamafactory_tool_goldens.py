#!/usr/bin/python3
"""Goldens for maskscope's reproduction of LLaMA-Factory's function calling (tool_format, function_call and
observation turns, the tools column), written as replay cases for tests/frameworks/tst_framework_replays.cpp
under tests/data/frameworks/llamafactory-0.9.6.dev0/.

Nothing here is transcribed: LLaMA-Factory's own modules at ff6d4d1 (data/formatter.py, tool_utils.py,
template.py, converter.py, processor/supervised.py, processor/processor_utils.py) are read from a git
mirror of github.com/hiyouga/LLaMA-Factory and run as they are. Only what needs packages this machine
lacks is stubbed: data_utils (datasets, fsspec: only SLOTS and Role are used), mm_plugin (transformers:
the base plugin of text templates, which returns messages and ids unchanged), extras.logging, and the
tokenizer, whose encode is the reference implementation @huggingface/tokenizers
(tools/frameworks/tokenize.mjs) and whose special-token fixes are those transformers makes for tokens
already in the vocabulary. Llama3ToolUtils writes datetime.now() into the prompt; the cases fix the date
(maskscope's tool_date option) and patch tool_utils' datetime to it. Before writing anything, the script
runs every test of LLaMA-Factory's tests/data/test_formatter.py against the loaded modules.

Run from the repository root with Debian's python and node:
    /usr/bin/python3 tools/frameworks/llamafactory_tool_goldens.py [--mirror GIT_DIR]
(default mirror: $LLAMAFACTORY_GIT or /work/.mirror/hiyouga+LLaMA-Factory/repo).
"""
import argparse
import copy
import dataclasses
import functools
import datetime as real_datetime
import importlib
import json
import os
import subprocess
import sys
import tempfile
import types

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "data", "frameworks", "llamafactory-0.9.6.dev0")
CACHE = os.environ.get("MASKSCOPE_TOKENIZER_CACHE", os.path.expanduser("~/.cache/maskscope/tokenizers"))
COMMIT = "ff6d4d1"
SOURCE = f"LLaMA-Factory v0.9.6.dev0 ({COMMIT})"
UPSTREAM = ["data/formatter.py", "data/tool_utils.py", "data/template.py", "data/converter.py", "data/mm_plugin.py",
            "data/processor/supervised.py", "data/processor/processor_utils.py", "data/collator.py"]
TOOL_DATE = "26 Jul 2024"

STUBS = {
    "__init__.py": "",
    "extras/__init__.py": "",
    "extras/constants.py": ("IGNORE_INDEX = -100\nIMAGE_PLACEHOLDER = '<image>'\nVIDEO_PLACEHOLDER = '<video>'\n"
                            "AUDIO_PLACEHOLDER = '<audio>'\nMROPE_MODELS = set()\n"),
    "extras/packages.py": ("def is_pillow_available():\n    return True\n"
                           "def is_pyav_available():\n    return False\n"
                           "def is_transformers_version_greater_than(v):\n    return True\n"),
    "extras/logging.py": (
        "class _L:\n"
        "    def __getattr__(self, name):\n"
        "        return lambda *a, **k: None\n"
        "def get_logger(name=None):\n"
        "    return _L()\n"),
    "data/__init__.py": "",
    "data/processor/__init__.py": "",
    # data_utils.py at ff6d4d1 imports datasets and fsspec; SLOTS and Role copied from it.
    "data/data_utils.py": (
        "from enum import StrEnum, unique\n"
        "from typing import Union\n"
        "SLOTS = list[Union[str, set[str], dict[str, str]]]\n"
        "@unique\n"
        "class Role(StrEnum):\n"
        "    USER = 'user'\n    ASSISTANT = 'assistant'\n    SYSTEM = 'system'\n"
        "    FUNCTION = 'function'\n    OBSERVATION = 'observation'\n"),
}


class FakeImage:
    """What mm_plugin.py reads of a PIL image: its size, mode, resize and convert (no pixels)."""

    def __init__(self, width, height):
        self.width, self.height, self.mode = width, height, "RGB"

    def resize(self, size):
        return FakeImage(*size)

    def convert(self, mode):
        return self


sys.path.insert(0, os.path.join(ROOT, "tools", "media"))
# transformers' models/qwen2_vl/image_processing_qwen2_vl.py smart_resize, transcribed once (transformers is
# not installed here); its defaults are Qwen2VLImageProcessor's.
from smart_resize_reference import smart_resize  # noqa: E402


class Qwen2VLImageProcessor:
    """image_grid_thw as Qwen2VLImageProcessor computes it: (1, h/14, w/14) after smart_resize."""
    merge_size, patch_size, temporal_patch_size = 2, 14, 2

    def __call__(self, images, return_tensors=None):
        import torch
        grids = []
        for im in images:
            h, w = smart_resize(im.height, im.width)
            grids.append([1, h // 14, w // 14])
        return {"image_grid_thw": torch.tensor(grids, dtype=torch.long)}


@dataclasses.dataclass
class DataCollatorForSeq2Seq:
    """transformers' DataCollatorForSeq2Seq.__call__ for the features LLaMA-Factory's collator passes it
    (transcribed: transformers is not installed here): labels padded to the longest, rounded up to
    pad_to_multiple_of, with label_pad_token_id; the other keys through tokenizer.pad (right: input_ids
    with the pad id, attention_mask and token_type_ids with 0); labels added after them."""
    tokenizer: object
    model: object = None
    padding: object = True
    max_length: object = None
    pad_to_multiple_of: object = None
    label_pad_token_id: int = -100
    return_tensors: str = "pt"

    def __call__(self, features):
        import torch

        def width(n):
            m = self.pad_to_multiple_of
            return (n + m - 1) // m * m if m else n
        labels = [f.pop("labels") for f in features]
        lw = width(max(len(lab) for lab in labels))
        w = width(max(len(f["input_ids"]) for f in features))
        fill = {"input_ids": self.tokenizer.pad_token_id, "attention_mask": 0, "token_type_ids": 0}
        batch = {k: torch.tensor([f[k] + [fill[k]] * (w - len(f[k])) for f in features]) for k in features[0]}
        batch["labels"] = torch.tensor([lab + [self.label_pad_token_id] * (lw - len(lab)) for lab in labels])
        return batch


class Gemma3ImageProcessor:
    """What Gemma3Plugin reads of the image processor's output: a pixel_values per image (zeros here)."""

    def __call__(self, images, return_tensors=None, **kwargs):
        import torch
        return {"pixel_values": torch.zeros(len(images), 3, 1, 1)}


@functools.lru_cache(maxsize=None)  # reads the model's tokenizer.json once, not once per case
def gemma3_processor(model):
    """Gemma3Processor's attributes as its __init__ sets them from the tokenizer (transformers
    models/gemma3/processing_gemma3.py, image_seq_length 256), read from the model's tokenizer_config.json."""
    with open(os.path.join(CACHE, model, "tokenizer_config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    boi, eoi, image = cfg["boi_token"], cfg["eoi_token"], cfg["image_token"]
    with open(os.path.join(CACHE, model, "tokenizer.json"), encoding="utf-8") as f:
        image_id = next(t["id"] for t in json.load(f)["added_tokens"] if t["content"] == image)
    return types.SimpleNamespace(image_processor=Gemma3ImageProcessor(), boi_token=boi, image_token=boi,
                                 image_token_id=image_id, image_seq_length=256,
                                 full_image_sequence=f"\n\n{boi}{image * 256}{eoi}\n\n", image_do_pan_and_scan=False,
                                 image_max_pixels=768 * 768, image_min_pixels=32 * 32, model_input_names=[])


def stub_media_modules():
    """The third-party modules mm_plugin.py imports at its top, as empty stand-ins (torch is real)."""
    for name in ("torchaudio", "transformers", "transformers.image_utils", "transformers.models",
                 "transformers.models.mllama", "transformers.models.mllama.processing_mllama", "transformers.video_utils",
                 "PIL", "PIL.Image"):
        sys.modules[name] = types.ModuleType(name)
    iu = sys.modules["transformers.image_utils"]
    for f in ("get_image_size", "is_valid_image", "make_flat_list_of_images", "to_numpy_array"):
        setattr(iu, f, lambda *a, **k: None)
    pm = sys.modules["transformers.models.mllama.processing_mllama"]
    pm.convert_sparse_cross_attention_mask_to_dense = pm.get_cross_attention_token_mask = lambda *a, **k: None
    sys.modules["transformers.video_utils"].make_batched_videos = lambda *a, **k: None
    sys.modules["PIL"].Image = sys.modules["PIL.Image"]
    sys.modules["PIL.Image"].Image = FakeImage
    sys.modules["PIL.Image"].open = lambda *a, **k: (_ for _ in ()).throw(RuntimeError("no files are opened"))
    sys.modules["PIL.Image"].new = lambda mode, size, color=None: FakeImage(*size)  # the collator's fake image
    sys.modules["peft"] = types.ModuleType("peft")
    sys.modules["peft"].PeftModel = type("PeftModel", (), {})
    sys.modules["transformers"].DataCollatorForSeq2Seq = DataCollatorForSeq2Seq


def load_upstream(mirror):
    """The package llamafactory with the upstream files and the stubs, imported from a temp dir."""
    tmp = tempfile.mkdtemp(prefix="lf-upstream-")
    pkg = os.path.join(tmp, "llamafactory")
    for rel, text in STUBS.items():
        os.makedirs(os.path.dirname(os.path.join(pkg, rel)), exist_ok=True)
        with open(os.path.join(pkg, rel), "w") as f:
            f.write(text)
    for rel in UPSTREAM:
        text = subprocess.run(["git", "--git-dir", mirror, "show", f"{COMMIT}:src/llamafactory/{rel}"],
                              check=True, capture_output=True, text=True).stdout
        with open(os.path.join(pkg, rel), "w") as f:
            f.write(text)
    sys.path.insert(0, tmp)
    stub_media_modules()
    mods = types.SimpleNamespace()
    for name in ("formatter", "tool_utils", "template", "converter", "processor.supervised", "collator"):
        setattr(mods, name.split(".")[-1], importlib.import_module("llamafactory.data." + name))
    return mods, mirror


def run_formatter_tests(mirror):
    """tests/data/test_formatter.py at ff6d4d1, every test, against the loaded modules."""
    pytest = types.ModuleType("pytest")
    pytest.mark = types.SimpleNamespace(runs_on=lambda *_: (lambda f: f))
    sys.modules["pytest"] = pytest
    src = subprocess.run(["git", "--git-dir", mirror, "show", f"{COMMIT}:tests/data/test_formatter.py"],
                         check=True, capture_output=True, text=True).stdout
    ns = {}
    exec(compile(src, "test_formatter.py", "exec"), ns)
    tests = [k for k in ns if k.startswith("test_")]
    for k in tests:
        ns[k]()
    return ns, len(tests)


from node_tokenizer import NodeTokenizer as Node  # noqa: E402 (a sibling module)


class Tokenizer:
    """What LLaMA-Factory's encoding and fix_special_tokens call of a PreTrainedTokenizer; the special tokens
    it sets must already be in the vocabulary (they are for the templates used here)."""

    def __init__(self, node, model):
        self.node, self.model = node, model
        with open(os.path.join(CACHE, model, "tokenizer.json"), encoding="utf-8") as f:
            tj = json.load(f)
        with open(os.path.join(CACHE, model, "tokenizer_config.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        vocab = tj["model"]["vocab"]
        self.vocab = dict(vocab) if isinstance(vocab, dict) else {p[0]: i for i, p in enumerate(vocab)}
        for t in tj.get("added_tokens", []):
            self.vocab[t["content"]] = t["id"]

        def text(v):
            return v.get("content") if isinstance(v, dict) else v

        self.bos_token, self.eos_token, self.pad_token = (text(cfg.get(k)) for k in ("bos_token", "eos_token", "pad_token"))
        self.chat_template = None

    padding_side = "right"  # load_tokenizer(padding_side="right")
    bos_token_id = property(lambda self: self.vocab.get(self.bos_token) if self.bos_token else None)
    eos_token_id = property(lambda self: self.vocab.get(self.eos_token) if self.eos_token else None)
    pad_token_id = property(lambda self: self.vocab.get(self.pad_token) if self.pad_token else None)

    def encode(self, text, add_special_tokens=False):
        assert not add_special_tokens
        return self.node.ids(self.model, text)

    def convert_tokens_to_ids(self, token):
        return self.vocab[token]

    def add_special_tokens(self, d, replace_additional_special_tokens=False):
        # A stop word outside the vocabulary (Llama-3's <|eom_id|>) becomes a new token; no text here spells it.
        added = 0
        for k, v in d.items():
            for t in v if isinstance(v, list) else [v]:
                assert k != "eos_token" or t in self.vocab, f"EOS {t} would be a new token"
                added += t not in self.vocab
            if k == "eos_token":
                self.eos_token = v
        return added


class FixedDate(real_datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return cls.strptime(TOOL_DATE, "%d %b %Y")


def attr(**columns):
    """DatasetAttr's defaults (parser.py) with dataset_info.json's columns/tags applied as DatasetAttr.join does."""
    a = dict(load_from="file", ranking=False, system=None, tools=None, images=None, videos=None, audios=None,
             chosen=None, rejected=None, kto_tag=None, prompt="instruction", query="input", response="output",
             history=None, messages="conversations", role_tag="from", content_tag="value", user_tag="human",
             assistant_tag="gpt", observation_tag="observation", function_tag="function_call", system_tag="system")
    a.update(columns)
    return types.SimpleNamespace(**a)


def processor_for(spec):
    """The processor LLaMA-Factory loads for a VL template, with patch_processor's image_max/min_pixels."""
    if spec.get("template") == "gemma3":
        return gemma3_processor("gemma3")
    if spec.get("template") != "qwen2_vl":
        return None
    return types.SimpleNamespace(image_processor=Qwen2VLImageProcessor(),
                                 image_max_pixels=spec.get("image_max_pixels", 768 * 768),
                                 image_min_pixels=spec.get("image_min_pixels", 32 * 32), model_input_names=[])


def prepare(lf, tok, rows, spec, formatting, dataset_attr, batch=False):
    """align_dataset (the converter) then SupervisedDatasetProcessor.preprocess_dataset, as run_sft runs them."""
    data_args = types.SimpleNamespace(template=spec.get("template"), tool_format=spec.get("tool_format"),
                                      default_system=spec.get("default_system"),
                                      train_on_prompt=spec.get("train_on_prompt", False),
                                      mask_history=spec.get("mask_history", False),
                                      enable_thinking=spec.get("enable_thinking", True),
                                      preserve_thinking=spec.get("preserve_thinking", False),
                                      cutoff_len=spec.get("cutoff_len", 2048), media_dir="")
    # TEMPLATES entries are module-level singletons that get_template_and_fix_tokenizer mutates.
    saved = copy.deepcopy(lf.template.TEMPLATES[data_args.template])
    try:
        template = lf.template.get_template_and_fix_tokenizer(tok, data_args)
        converter = lf.converter.get_dataset_converter(formatting, dataset_attr, data_args)
        converted = [converter(r) for r in rows]
        for c in converted:  # the images LLaMA-Factory would open: their sizes
            if c["_images"]:
                c["_images"] = [FakeImage(i["width"], i["height"]) for i in c["_images"]]
        examples = {k: [c[k] for c in converted] for k in converted[0]}
        processor = lf.supervised.SupervisedDatasetProcessor(template=template, tokenizer=tok,
                                                             processor=processor_for(spec), data_args=data_args)
        out = processor.preprocess_dataset(examples)
        if batch:  # SFTDataCollatorWith4DAttentionMask as run_sft builds it (do_train: pad_to_multiple_of 8)
            import torch
            features = [{k: out[k][i] for k in out} for i in range(len(out["input_ids"]))]
            collator = lf.collator.SFTDataCollatorWith4DAttentionMask(
                template=template, model=None, pad_to_multiple_of=8, label_pad_token_id=-100, block_diag_attn=False,
                neat_packing=False, attn_implementation="sdpa", compute_dtype=torch.float32, tokenizer=tok,
                processor=processor_for(spec))
            got = collator(features)
            return {k: got[k].tolist() for k in ("input_ids", "attention_mask", "token_type_ids", "labels") if k in got}
    finally:
        lf.template.TEMPLATES[data_args.template] = saved
    return [{"input_ids": i, "labels": l} for i, l in zip(out["input_ids"], out["labels"])]


def glaive_rows(mirror, n):
    text = subprocess.run(["git", "--git-dir", mirror, "show", f"{COMMIT}:data/glaive_toolcall_en_demo.json"],
                          check=True, capture_output=True, text=True).stdout
    return json.loads(text)[:n]


def cases(ns):
    """(file name, upstream, note, spec, rows, formatting, dataset_attr, tokenizer model)."""
    tools = json.dumps(ns["TOOLS"])
    one = json.dumps(ns["FUNCTION"])
    two = json.dumps([ns["FUNCTION"]] * 2)

    def formatter_row(call):
        return {"conversations": [{"from": "human", "value": "Call the tool."}, {"from": "function_call", "value": call},
                                  {"from": "observation", "value": "{\"result\": 42}"},
                                  {"from": "gpt", "value": "The tool says 42."}],
                "tools": tools}

    sharegpt_tools = attr(tools="tools")
    out = []
    for fmt, template, model in (("default", "default", "llama3"), ("gemma4", "gemma", "gemma3"), ("glm4", "qwen", "qwen3"),
                                 ("llama3", "llama3", "llama3"), ("mistral", "mistral", "llama2"),
                                 ("qwen", "qwen", "qwen3"), ("lfm2", "qwen", "qwen3")):
        for n, call in (("function", one), ("multi_function", two)):
            if fmt == "glm4" and n == "multi_function":
                continue  # GLM-4 does not support parallel functions (raises)
            spec = {"framework": "llamafactory", "template": template, "tool_format": fmt, "tool_date": TOOL_DATE}
            out.append((f"tool_format_{fmt}_{n}", f"tests/data/test_formatter.py::test_{fmt}_{n}_formatter and "
                        f"::test_{fmt}_tool_formatter (their FUNCTION and TOOLS) through template {template}",
                        "tool_format given: format_function becomes FunctionFormatter(default_slots, tool_format) "
                        "and format_tools ToolFormatter(tool_format) (get_template_and_fix_tokenizer)",
                        spec, [formatter_row(call)], "sharegpt", sharegpt_tools, model))
    # The templates' own formats (tool_format null), on LLaMA-Factory's glaive_toolcall_en_demo rows.
    glaive = glaive_rows(MIRROR, 3)
    for template, model in (("qwen", "qwen3"), ("qwen3", "qwen3"), ("qwen3_nothink", "qwen3"), ("llama3", "llama3"),
                            ("mistral", "llama2"), ("default", "llama3"), ("chatml", "qwen3"), ("gemma", "gemma3"),
                            ("alpaca", "llama3"), ("llama2", "llama2"), ("empty", "qwen3")):
        spec = {"framework": "llamafactory", "template": template, "tool_date": TOOL_DATE, "cutoff_len": 4096}
        out.append((f"glaive_{template}", f"data/glaive_toolcall_en_demo.json (first 3 rows) through template "
                    f"{template}", "tool_format null: the template's own format_function / format_tools",
                    spec, glaive, "sharegpt", sharegpt_tools, model))
    # Label options on tool turns: function_call turns are responses, observations prompts.
    for extra in ({"mask_history": True}, {"train_on_prompt": True}, {"enable_thinking": False},
                  {"mask_history": True, "enable_thinking": None}):
        spec = {"framework": "llamafactory", "template": "qwen3", "cutoff_len": 4096, **extra}
        name = "_".join(f"{k}_{str(v).lower()}" for k, v in extra.items())
        out.append((f"glaive_qwen3_{name}", "data/glaive_toolcall_en_demo.json (first 3 rows), template qwen3",
                    "function_call turns are responses (graded unless mask_history leaves only the last turn), "
                    "observation turns prompts (-100 unless train_on_prompt)", spec, glaive, "sharegpt",
                    sharegpt_tools, "qwen3"))
    # A tight cutoff: infer_seqlen cuts the tool prompt and the calls.
    spec = {"framework": "llamafactory", "template": "llama3", "tool_date": TOOL_DATE, "cutoff_len": 200}
    out.append(("glaive_llama3_cutoff_200", "data/glaive_toolcall_en_demo.json (first 3 rows), template llama3",
                "cutoff_len 200 truncates the system prompt with the tools", spec, glaive, "sharegpt", sharegpt_tools,
                "llama3"))
    # OpenAI rows: assistant tool_calls become a function turn (arguments a JSON string stay a string),
    # consecutive tool messages one observation, the tools list dumped to a string.
    openai_rows = [{"messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
            {"type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}}]},
        {"role": "tool", "content": "{\"temp\": 21}"}, {"role": "tool", "content": "{\"temp\": 25}"},
        {"role": "assistant", "content": "Paris 21°C, Rome 25°C."}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city",
                                                      "parameters": {"type": "object", "properties": {
                                                          "city": {"type": "string", "description": "the city"}},
                                                          "required": ["city"]}}}]}]
    openai_attr = attr(messages="messages", role_tag="role", content_tag="content", user_tag="user",
                       assistant_tag="assistant", observation_tag="tool", function_tag="function_call",
                       system_tag="system", tools="tools")
    for template, model in (("qwen", "qwen3"), ("llama3", "llama3")):
        spec = {"framework": "llamafactory", "template": template, "formatting": "openai", "tool_date": TOOL_DATE,
                "tags": {"observation_tag": "tool", "function_tag": "function_call"}, "columns": {"tools": "tools"}}
        out.append((f"openai_tool_calls_{template}", "converter.py::OpenAIDatasetConverter on a row with tool_calls "
                    f"and two tool messages, template {template}",
                    "formatting openai: 'detailed thinking off' is appended to a system without tools",
                    spec, openai_rows, "openai", openai_attr, model))
    # gemma4 on the same rows: a dict's keys sorted, a JSON-string argument written as it is, bool and nested values.
    nested = copy.deepcopy(openai_rows)
    nested[0]["messages"][2]["tool_calls"].append({"type": "function", "function": {"name": "get_weather", "arguments": {
        "city": "Oslo", "options": {"units": "metric", "days": [1, 2]}, "hourly": True, "alerts": None, "ratio": 0.5}}})
    nested[0]["messages"].insert(5, {"role": "tool", "content": "{\"temp\": 9}"})
    spec = {"framework": "llamafactory", "template": "gemma", "formatting": "openai", "tool_format": "gemma4",
            "tags": {"observation_tag": "tool", "function_tag": "function_call"}, "columns": {"tools": "tools"}}
    out.append(("openai_tool_calls_gemma4", "converter.py::OpenAIDatasetConverter, tool_format gemma4 "
                "(Gemma4ToolUtils), template gemma", "three parallel calls: a dict, a JSON string and a nested dict "
                "with a bool, null and a float", spec, nested, "openai", openai_attr, "gemma3"))
    # FunctionFormatter's tool_call_words and thought_words paths (qwen3 passes both), the Llama-2 class
    # (mistral) that passes neither, and the default tool prompt on a schema with enum, items, a wrapped
    # tool and a non-string type (written with Python's str()).
    call = json.dumps(ns["FUNCTION"])
    words_rows = [{"conversations": [{"from": "human", "value": "Call it."},
                                     {"from": "function_call", "value": f"I will call it.\n<tool_call>{call}</tool_call>"},
                                     {"from": "observation", "value": "42"},
                                     {"from": "function_call", "value": f"<think>\nOnce more.\n</think>\n\n{call}"},
                                     {"from": "observation", "value": "43"},
                                     {"from": "gpt", "value": "Done."}], "tools": tools}]
    for template, model in (("qwen3", "qwen3"), ("mistral", "llama2")):
        spec = {"framework": "llamafactory", "template": template}
        out.append((f"function_words_{template}", "formatter.py::FunctionFormatter.apply (tool_call_words, "
                    f"thought_words) through template {template}", "text around a <tool_call> block or a thought is "
                    "kept; the Llama-2 class passes no words, so its calls must be bare JSON" if template == "qwen3"
                    else "the Llama-2 class passes no words: the text is parsed as JSON as a whole",
                    spec, [words_rows[0] if template == "qwen3" else formatter_row(call)], "sharegpt", sharegpt_tools,
                    model))
    schema = [{"type": "function", "function": {"name": "pick", "description": "Pick one", "parameters": {
        "type": "object", "properties": {
            "colour": {"type": "string", "enum": ["red", "green"], "description": "the colour"},
            "sizes": {"type": "array", "items": {"type": "integer"}},
            "note": {"type": ["string", "null"]},
            "weight": {"type": "number", "description": 1.5}},
        "required": ["colour", "sizes"]}}},
        {"name": "noop", "parameters": {"type": "object", "properties": {}}}]
    row = {"conversations": [{"from": "human", "value": "Pick red."},
                             {"from": "function_call", "value": json.dumps({"name": "pick", "arguments": {
                                 "colour": "red", "sizes": [1, 2], "weight": 1.0, "note": None}})},
                             {"from": "observation", "value": "ok"}, {"from": "gpt", "value": "Picked."}],
           "system": "Be brief.", "tools": json.dumps(schema, ensure_ascii=False)}
    for fmt, template, model in (("default", "chatml", "qwen3"), ("gemma4", "gemma", "gemma3"), ("qwen", "qwen", "qwen3"),
                                 ("llama3", "llama3", "llama3"), ("mistral", "mistral", "llama2"),
                                 ("glm4", "qwen", "qwen3"), ("glm4_moe", "qwen", "qwen3"), ("lfm2", "qwen", "qwen3"),
                                 ("ling", "qwen", "qwen3"), ("minimax1", "qwen", "qwen3"),
                                 ("minimax2", "qwen", "qwen3"), ("qwen3_5", "qwen3", "qwen3"),
                                 ("seed_oss", "qwen", "qwen3")):
        spec = {"framework": "llamafactory", "template": template, "tool_format": fmt, "tool_date": TOOL_DATE,
                "columns": {"messages": "conversations", "system": "system", "tools": "tools"}}
        out.append((f"schema_{fmt}", f"tool_utils.py {fmt} formatters on a schema with enum, items, a wrapped tool, a "
                    "list type and float values", "system and tools joined into the system turn",
                    spec, [row], "sharegpt", attr(tools="tools", system="system"), model))
    return out


def image_cases():
    """Qwen2VLPlugin on rows shaped like LLaMA-Factory's data/mllm_demo.json, images given by their size."""
    def row(sizes, texts=("<image>What is this?", "A cat.")):
        return {"messages": [{"role": "user", "content": texts[0]}, {"role": "assistant", "content": texts[1]}],
                "images": [{"path": f"{i}.jpg", "width": w, "height": h} for i, (w, h) in enumerate(sizes)]}
    mllm_attr = attr(messages="messages", role_tag="role", content_tag="content", user_tag="user",
                     assistant_tag="assistant", observation_tag="tool", system_tag="system", images="images")
    rows = [row([(448, 448)]),  # 256 image tokens (the example)
            row([(1920, 1080), (30, 2000)], ("Compare <image> and <image>.", "The first is wider.")),
            row([(10, 10)]),  # scaled up to image_min_pixels, then to 28 a side
            {"messages": [{"role": "user", "content": "<image>Who?"}, {"role": "assistant", "content": "Kane."},
                          {"role": "user", "content": "Doing what?<image>"}, {"role": "assistant", "content": "Celebrating."}],
             "images": [{"path": "1.jpg", "width": 640, "height": 480}, {"path": "1.jpg", "width": 640, "height": 480}]}]
    out = []
    for name, extra in (("", {}), ("_train_on_prompt", {"train_on_prompt": True}),
                        ("_max_pixels_65536", {"image_max_pixels": 65536}), ("_mask_history", {"mask_history": True})):
        spec = {"framework": "llamafactory", "template": "qwen2_vl", **extra}
        out.append((f"images_qwen2_vl{name}", "mm_plugin.py::Qwen2VLPlugin.process_messages on data/mllm_demo.json-"
                    "shaped rows, template qwen2_vl", "each <image> becomes <|vision_start|> + <|image_pad|> x "
                    "(h/28)(w/28) after image_max/min_pixels and smart_resize + <|vision_end|>, in the prompt (-100 "
                    "unless train_on_prompt)", spec, rows, "sharegpt", mllm_attr, "qwen3"))
    return out


def gemma3_rows():
    """Rows shaped like data/mllm_demo.json for Gemma3Plugin: one and two images, two turns, and a text row
    whose literal "{{image}}" the plugin expands too (it replaces "{{image}}" in every message)."""
    def row(sizes, texts=("<image>What is this?", "A cat.")):
        return {"messages": [{"role": "user", "content": texts[0]}, {"role": "assistant", "content": texts[1]}],
                "images": [{"path": f"{i}.jpg", "width": w, "height": h} for i, (w, h) in enumerate(sizes)]}
    return [row([(448, 448)]), row([(1920, 1080), (30, 2000)], ("Compare <image> and <image>.", "The first is wider.")),
            {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "<image>Who?"},
                          {"role": "assistant", "content": "Kane."}, {"role": "user", "content": "Doing what?"},
                          {"role": "assistant", "content": "Celebrating."}],
             "images": [{"path": "1.jpg", "width": 640, "height": 480}]},
            {"messages": [{"role": "user", "content": "Fill in {{image}} here."}, {"role": "assistant", "content": "No."}],
             "images": []}]


MLLM_ATTR = dict(messages="messages", role_tag="role", content_tag="content", user_tag="user", assistant_tag="assistant",
                 observation_tag="tool", system_tag="system", images="images")


def gemma3_cases():
    """Gemma3Plugin.process_messages through template gemma3 (prepared rows)."""
    out = []
    for name, extra in (("", {}), ("_train_on_prompt", {"train_on_prompt": True}), ("_mask_history", {"mask_history": True})):
        spec = {"framework": "llamafactory", "template": "gemma3", **extra}
        out.append((f"images_gemma3{name}", "mm_plugin.py::Gemma3Plugin.process_messages on data/mllm_demo.json-shaped "
                    "rows, template gemma3", "each <image> becomes Gemma3Processor.full_image_sequence (\\n\\n "
                    "<start_of_image> + 256 <image_soft_token> + <end_of_image> \\n\\n), whatever the image's size, "
                    "in the prompt (-100 unless train_on_prompt); a literal {{image}} is expanded too", spec,
                    gemma3_rows(), "sharegpt", attr(**MLLM_ATTR), "gemma3"))
    return out


def gemma3_batch_cases():
    """SFTDataCollatorWith4DAttentionMask (MultiModalDataCollatorForSeq2Seq) on template gemma3 batches."""
    rows = gemma3_rows()
    text = [{"messages": [{"role": "user", "content": "What colour is the sky?"}, {"role": "assistant", "content": "Blue."}],
             "images": []},
            {"messages": [{"role": "user", "content": "And grass?"}, {"role": "assistant", "content": "Green, mostly."}],
             "images": []}]
    return [("batch_gemma3_images", "collator.py::MultiModalDataCollatorForSeq2Seq.__call__ with images, template gemma3",
             "padded to a multiple of 8 (do_train); token_type_ids 1 at <image_soft_token> (_get_gemma3_token_type_ids)",
             [rows[0], rows[2]]),
            ("batch_gemma3_text_fake_image", "collator.py::MultiModalDataCollatorForSeq2Seq.__call__ without images, "
             "template gemma3", "a batch without images: the plugin's text for a fake 64x64 image is appended to the "
             "first feature (attention_mask 0, labels -100), then every row is padded to it", text)]


# Refused: written without running LLaMA-Factory (an unknown format is its own ValueError; the others
# it runs but maskscope does not reproduce).
IMAGE_ROW = {"messages": [{"role": "user", "content": "<image>What is this?"}, {"role": "assistant", "content": "A cat."}],
             "images": [{"path": "cat.jpg", "width": 448, "height": 448}]}
REFUSALS = [  # (name, spec keys, stderr, rows (None: one glaive row), stage, tokenizer)
    ("refused_tool_format_unknown", {"tool_format": "nope"}, ["Tool utils `nope` not found."], None, "prepared", "qwen3"),
    ("refused_images_text_template", {}, ["This model does not support image input."], [IMAGE_ROW], "prepared", "qwen3"),
    ("refused_images_count", {"template": "qwen2_vl"}, ["The number of images does not match the number of <image>"],
     [dict(IMAGE_ROW, images=IMAGE_ROW["images"] * 2)], "prepared", "qwen3"),
    ("refused_images_batch", {"template": "qwen2_vl"}, ["MultiModalDataCollatorForSeq2Seq", "get_rope_index"],
     [IMAGE_ROW], "batch", "qwen3"),
    ("refused_images_gemma3_pan_and_scan", {"template": "gemma3", "image_do_pan_and_scan": True},
     ["image_do_pan_and_scan", "not reproduced"], [IMAGE_ROW], "prepared", "gemma3"),
    ("refused_text_batch_qwen2_vl", {"template": "qwen2_vl"}, ["a batch without images", "get_rope_index"],
     [{"messages": [{"role": "user", "content": "What is a cat?"}, {"role": "assistant", "content": "A pet."}]}],
     "batch", "qwen3"),
]


def main():
    global MIRROR
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default=os.environ.get("LLAMAFACTORY_GIT", "/work/.mirror/hiyouga+LLaMA-Factory/repo"))
    MIRROR = ap.parse_args().mirror
    lf, _ = load_upstream(MIRROR)
    ns, n = run_formatter_tests(MIRROR)
    print(f"tests/data/test_formatter.py: {n} tests pass against the loaded modules", flush=True)
    lf.tool_utils.datetime = FixedDate
    node = Node()
    os.makedirs(OUT, exist_ok=True)
    written = 0
    for name, upstream, note, spec, rows, formatting, dataset_attr, model in cases(ns) + image_cases() + gemma3_cases():
        tok = Tokenizer(node, model)
        expected = prepare(lf, tok, rows, spec, formatting, dataset_attr)
        case = {"upstream": f"{SOURCE}: {upstream}", "note": note + f" (tokenizer: {model} from the cache)",
                "spec": spec, "rows": rows, "args": ["--tokenizer", f"$TOKENIZERS/{model}", "--stage", "prepared"],
                "compare_keys": ["input_ids", "labels"], "expected_rows": expected}
        with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as f:  # a key a line
            f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                                        for k, v in case.items()) + "\n}\n")
        written += 1
    for name, upstream, note, rows in gemma3_batch_cases():
        spec = {"framework": "llamafactory", "template": "gemma3"}
        tok = Tokenizer(node, "gemma3")
        expected = prepare(lf, tok, rows, spec, "sharegpt", attr(**MLLM_ATTR), batch=True)
        case = {"upstream": f"{SOURCE}: {upstream}", "note": note + " (tokenizer: gemma3 from the cache)", "spec": spec,
                "rows": rows, "args": ["--tokenizer", "$TOKENIZERS/gemma3", "--stage", "batch"], "expected": expected}
        with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as f:
            f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                                        for k, v in case.items()) + "\n}\n")
        written += 1
    for name, extra, stderr, rows, stage, model in REFUSALS:
        case = {"upstream": f"{SOURCE}: tool_utils.py get_tool_utils / TOOLS, mm_plugin.py, collator.py",
                "note": "refused by name, exit 2", "spec": {"framework": "llamafactory", "template": "qwen", **extra},
                "rows": rows or glaive_rows(MIRROR, 1), "args": ["--tokenizer", f"$TOKENIZERS/{model}", "--stage", stage],
                "exit": 2, "stderr_contains": stderr}
        with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as f:
            f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                                        for k, v in case.items()) + "\n}\n")
        written += 1
    print(f"wrote {written} cases to {os.path.relpath(OUT, ROOT)}")


MIRROR = None

if __name__ == "__main__":
    main()
