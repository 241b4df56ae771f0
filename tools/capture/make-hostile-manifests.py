"""Writes tests/data/capture/hostile/<case>/capture.json: capture manifests a stranger could send, each
with one fault test_capture_manifest expects refused (exit 2 naming capture.json and the field). The
test copies a real batch file beside each, so the fault is the only problem.
Usage: python3 tools/capture/make-hostile-manifests.py"""

import json
import os

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "capture", "hostile")
base = {"format": "maskscope-capture/1", "batches": [{"file": "batch-0000.safetensors"}],
        "tokenizer": {"name_or_path": "t", "pad_token_id": 5, "folder": None}, "chat_template_file": None}


def write(name, text):
    os.makedirs(os.path.join(root, name), exist_ok=True)
    with open(os.path.join(root, name, "capture.json"), "w", encoding="utf-8") as f:
        f.write(text)


def case(name, edit):
    m = json.loads(json.dumps(base))
    edit(m)
    write(name, json.dumps(m, indent=1) + "\n")


def deep(m):
    v = 1
    for _ in range(200):
        v = [v]
    m["facts"] = {"deep": v}


case("path-traversal", lambda m: m["batches"][0].update(file="../example/batch-0000.safetensors"))
case("missing-batch", lambda m: m["batches"].append({"file": "batch-0009.safetensors"}))
case("not-safetensors", lambda m: m["batches"][0].update(file="capture.json"))
case("foreign-format", lambda m: m.update(format="something-else/1"))
case("newer-format", lambda m: m.update(format="maskscope-capture/2"))
case("no-batches", lambda m: m.update(batches=[]))
case("pad-id-negative", lambda m: m["tokenizer"].update(pad_token_id=-5))
case("pad-id-huge", lambda m: m["tokenizer"].update(pad_token_id=2**40))
case("pad-id-string", lambda m: m["tokenizer"].update(pad_token_id="5"))
case("tokenizer-folder-escape", lambda m: m["tokenizer"].update(folder="../../etc"))
case("template-missing", lambda m: m.update(chat_template_file="chat_template.jinja"))
case("trainer-class-number", lambda m: m.update(trainer={"class": 3}))
case("too-deep", deep)
write("not-an-object", "[]\n")
write("invalid-json", '{"format": "maskscope-capture/1", "batches": [\n')
