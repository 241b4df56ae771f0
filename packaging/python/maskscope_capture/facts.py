"""The facts of a capture's manifest (capture.json): the tokenizer (its ids, padding side, chat
template and files), the collator and trainer (class, module, public attributes), the framework
versions and the examples' source text. Everything is made JSON-safe and capped, and nothing here
imports a framework: versions are read from modules already imported."""

import math
import os
import shutil
import sys

# Caps: a manifest stays small whatever the collator holds.
MAX_REPR = 300  # characters of one attribute's repr
MAX_ITEMS = 64  # entries of one list or dict, attributes of one object
MAX_DEPTH = 4  # nesting of lists and dicts
MAX_TEMPLATE = 256 * 1024  # characters of a chat template
MAX_EXAMPLE_TEXT = 8 * 1024  # characters of one example string
MAX_EXAMPLES_PER_BATCH = 64 * 1024  # characters of a batch's examples, all together
MAX_TOKENIZER_FILE = 256 * 1024 * 1024  # bytes of one copied tokenizer file

# The frameworks whose version says which collator code built the batch.
FRAMEWORKS = ("transformers", "trl", "axolotl", "unsloth", "llamafactory", "torch", "accelerate", "peft", "datasets")

# Dataset fields that hold the source text of an example (what the collator saw before tokens).
EXAMPLE_FIELDS = ("messages", "conversations", "text", "prompt", "completion", "chosen", "rejected", "instruction",
                  "input", "output", "system", "tools")

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "special_tokens_map.json",
                   "chat_template.jinja", "chat_template.json", "added_tokens.json", "vocab.json", "merges.txt")


def _cut(text, limit):
    return text if len(text) <= limit else text[:limit] + "...[%d more characters]" % (len(text) - limit)


def json_safe(value, depth=0, text_limit=MAX_REPR):
    """value as JSON: plain scalars as they are, lists and dicts recursively (capped), anything else
    as its capped repr. Never raises."""
    try:
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            return value if abs(value) < 2**63 else repr(value)
        if isinstance(value, float):
            return value if math.isfinite(value) else repr(value)
        if isinstance(value, str):
            return _cut(value, text_limit)
        if hasattr(value, "shape") and hasattr(value, "dtype"):  # a tensor or array: its kind, not its data
            return "%s(dtype=%s, shape=%s)" % (type(value).__name__, value.dtype, list(value.shape))
        if depth < MAX_DEPTH and isinstance(value, (list, tuple)):
            out = [json_safe(v, depth + 1, text_limit) for v in list(value)[:MAX_ITEMS]]
            if len(value) > MAX_ITEMS:
                out.append("...[%d more]" % (len(value) - MAX_ITEMS))
            return out
        if depth < MAX_DEPTH and isinstance(value, dict):
            out = {}
            for i, (k, v) in enumerate(value.items()):
                if i >= MAX_ITEMS:
                    out["..."] = "%d more" % (len(value) - MAX_ITEMS)
                    break
                out[_cut(str(k), MAX_REPR)] = json_safe(v, depth + 1, text_limit)
            return out
        return _cut(repr(value), text_limit)
    except Exception as e:  # a repr that raises: say so, never fail the capture for it
        return "<unreadable %s: %s>" % (type(value).__name__, type(e).__name__)


def class_facts(obj):
    cls = type(obj)
    return {"class": cls.__qualname__, "module": cls.__module__}


def _public_attributes(obj):
    try:
        items = vars(obj).items()
    except TypeError:  # no __dict__ (slots, builtins)
        items = ((n, getattr(obj, n, None)) for n in getattr(type(obj), "__slots__", ()))
    out = {}
    for name, value in items:
        if name.startswith("_") or callable(value) and not hasattr(value, "name_or_path"):
            continue
        if len(out) >= MAX_ITEMS:
            out["..."] = "more attributes left out"
            break
        if hasattr(value, "name_or_path"):  # a tokenizer: which one, not its vocabulary
            value = "%s(%s)" % (type(value).__name__, getattr(value, "name_or_path", ""))
        out[name] = json_safe(value)
    return out


def unwrap_collator(collator):
    """The collator that builds the batch: transformers' RemoveColumnsCollator and
    functools.partial wrap it."""
    for _ in range(8):
        inner = getattr(collator, "data_collator", None)
        if type(collator).__name__ == "RemoveColumnsCollator" and inner is not None:
            collator = inner
        elif type(collator).__name__ == "partial" and hasattr(collator, "func"):
            collator = collator.func
        else:
            break
    return collator


def collator_facts(collator):
    real = unwrap_collator(collator)
    facts = class_facts(real)
    if type(real).__name__ == "function":
        facts = {"class": "function", "module": getattr(real, "__module__", ""), "name": real.__qualname__}
    facts["attributes"] = _public_attributes(real)
    if real is not collator:
        facts["wrapped_by"] = class_facts(collator)["class"]
    return facts


def framework_versions():
    """{name: version} of the frameworks this process has imported (never imports one)."""
    out = {}
    for name in FRAMEWORKS:
        module = sys.modules.get(name)
        if module is not None:
            out[name] = json_safe(getattr(module, "__version__", "unknown"))
    return out


def _text_tokenizer(tokenizer):
    # A multimodal processor holds the text tokenizer.
    if tokenizer is not None and not hasattr(tokenizer, "pad_token_id") and hasattr(tokenizer, "tokenizer"):
        return tokenizer.tokenizer
    return tokenizer


def tokenizer_facts(tokenizer):
    tok = _text_tokenizer(tokenizer)
    if tok is None:
        return None
    facts = class_facts(tok)
    facts["name_or_path"] = json_safe(getattr(tok, "name_or_path", None))
    for key in ("pad_token_id", "eos_token_id", "bos_token_id", "pad_token", "eos_token", "bos_token",
                "padding_side", "truncation_side", "model_max_length"):
        try:
            facts[key] = json_safe(getattr(tok, key, None))
        except Exception:
            facts[key] = None
    template = getattr(tok, "chat_template", None)
    facts["chat_template"] = json_safe(template, text_limit=MAX_TEMPLATE) if template else None
    return facts


def save_tokenizer_files(tokenizer, folder):
    """Writes the tokenizer's files into folder: save_pretrained (the tokenizer as the trainer has it,
    added tokens and a template set in the script included), then whatever save_pretrained did not
    write is copied from its local folder. Returns the file names written."""
    tok = _text_tokenizer(tokenizer)
    os.makedirs(folder, exist_ok=True)
    problems = []
    if hasattr(tok, "save_pretrained"):
        try:
            tok.save_pretrained(folder)
        except Exception as e:
            problems.append("save_pretrained failed: %s" % _cut(str(e), MAX_REPR))
    source = getattr(tok, "name_or_path", None)
    if isinstance(source, str) and os.path.isdir(source):
        for name in TOKENIZER_FILES:
            src, dst = os.path.join(source, name), os.path.join(folder, name)
            if os.path.isfile(src) and not os.path.exists(dst):
                if os.path.getsize(src) > MAX_TOKENIZER_FILE:
                    problems.append("%s left out: over %d bytes" % (name, MAX_TOKENIZER_FILE))
                    continue
                shutil.copyfile(src, dst)
    return sorted(os.listdir(folder)), problems


def example_texts(features):
    """The source text of the examples a collator was given (dicts with messages/text/... fields),
    capped; None when the features hold none (pre-tokenized rows)."""
    if not isinstance(features, (list, tuple)):
        return None
    out, used = [], 0
    for row in features:
        if not hasattr(row, "keys"):
            return None
        picked = {}
        for key in EXAMPLE_FIELDS:
            if key in row.keys():
                value = json_safe(row[key], text_limit=MAX_EXAMPLE_TEXT)
                picked[key] = value
                used += len(str(value))
        if not picked:
            continue
        if used > MAX_EXAMPLES_PER_BATCH:
            out.append({"...": "further examples left out (over %d characters)" % MAX_EXAMPLES_PER_BATCH})
            break
        out.append(picked)
    return out or None
