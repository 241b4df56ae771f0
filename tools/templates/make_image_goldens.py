#!/usr/bin/python3
"""Image goldens: rows whose messages hold list content with image parts ({"type": "image", "width",
"height"}, "image_url" with a size) rendered through the vision built-ins (qwen2-vl, gemma3-vision,
llava) by Python jinja2 configured as transformers' apply_chat_template configures it
(make_goldens.make_env). The text is what the template writes, one placeholder per image, before the
processor expands it (core/media/MediaExpansion.h).
Writes tests/data/templates/image_goldens.json (test_image_templates compares maskscope byte for byte).
Run with Debian's python (python3-jinja2) from the repository root:
    /usr/bin/python3 tools/templates/make_image_goldens.py"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jinja2  # noqa: E402
from make_goldens import ROOT, make_env, render  # noqa: E402


def image(w, h):
    return {"type": "image", "width": w, "height": h}


def text(t):
    return {"type": "text", "text": t}


def m(role, parts):
    return {"role": role, "content": parts}


def rows():
    one = [m("user", [image(448, 448), text("What is in this picture?")]),
           m("assistant", [text("A cat on a sofa.")])]
    two = [m("user", [text("Compare "), image(640, 480), text(" and "), image(1024, 768), text(".")]),
           m("assistant", [text("The second one is brighter.")])]
    url = [m("user", [{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}, "width": 300, "height": 200},
                      text("Describe it.")]),
           m("assistant", [text("A chart.")])]
    system = [m("system", [text("You are a careful describer.")]), m("user", [image(56, 56), text("Colour?")]),
              m("assistant", [text("Red.")]), m("user", [text("Sure?")]), m("assistant", [text("Yes.")])]
    strings = [{"role": "user", "content": "No image here."}, {"role": "assistant", "content": "Fine."}]
    return [("one_image", one), ("two_images", two), ("image_url", url), ("system_multi_turn", system),
            ("string_content", strings)]


TEMPLATES = [
    ("qwen2-vl", {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}),
    ("gemma3-vision", {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>", "unk_token": "<unk>"}),
    ("llava", {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}),
]


def main():
    env = make_env()
    cases = []
    for name, tokens in TEMPLATES:
        path = "resources/templates/%s.jinja" % name
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            source = f.read()
        for row_name, msgs in rows():
            for gen in (False, True):
                shown = msgs if not gen else msgs[:-1]
                variables = dict(tokens)
                variables.update({"messages": shown, "tools": None, "documents": None, "add_generation_prompt": gen})
                case = {"template": name, "path": path, "row_name": row_name, "add_generation_prompt": gen,
                        "variables": tokens, "row": {"messages": shown}}
                case.update(render(env, source, variables))
                cases.append(case)
    out = os.path.join(ROOT, "tests", "data", "templates", "image_goldens.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"generator": "tools/templates/make_image_goldens.py", "jinja2": jinja2.__version__,
                   "cases": cases}, f, ensure_ascii=False, indent=1)
    errs = sum(1 for c in cases if "error" in c)
    print("image goldens: %d cases (%d raise)" % (len(cases), errs))
    for c in cases:
        if "error" in c:
            print("  %s/%s%s: %s" % (c["template"], c["row_name"], "/gen" if c["add_generation_prompt"] else "", c["error"]))


if __name__ == "__main__":
    main()
