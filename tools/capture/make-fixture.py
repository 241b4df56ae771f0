"""Writes tests/data/capture/example/: a capture made by maskscope_capture.Callback inside the fake
trainer of tests/capture/fake_trainers.py (a transformers-like DataCollatorForLanguageModeling whose
tokenizer pads with <|im_end|>, so the end-of-turn tokens lose their labels), two batches, the demo
tokenizer copied. docs/cli.md's capture examples and test_capture_app open it. The ids come from
the built binary's tokenizer; `created` is fixed so the files are reproducible.
Usage: /usr/bin/python3 tools/capture/make-fixture.py build/bin/maskscope"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(root, "packaging", "python"))
sys.path.insert(0, os.path.join(root, "tests", "capture"))

import fake_trainers as ft  # noqa: E402
import maskscope_capture  # noqa: E402


def tokenize(maskscope, texts, work):
    path = os.path.join(work, "texts.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(t) + "\n" for t in texts)
    out = subprocess.run([maskscope, "tokenize", "--tokenizer", "builtin:demo", "--jsonl", path, "--json"],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line)["ids"] for line in out.splitlines() if line.strip()]


def main():
    maskscope = os.path.abspath(sys.argv[1])
    target = os.path.join(root, "tests", "data", "capture", "example")
    ft.install_fake_frameworks()
    with tempfile.TemporaryDirectory() as work:
        # The tokenizer's folder name is what name_or_path records: keep it short and stable.
        tok = ft.FakeTokenizer(os.path.join(work, "demo-chatml"), os.path.join(root, "resources", "tokenizer",
                                                                               "demo.model"))
        tok.name_or_path = "demo-chatml"
        os.chdir(work)
        rows = ft.tokenized_rows(lambda texts: tokenize(maskscope, texts, work))
        capture = os.path.join(work, "capture")
        callback = maskscope_capture.Callback(out=capture, batches=2)
        ft.FakeSFTTrainer(ft.DataCollatorForLanguageModeling(tok), tok, rows, callbacks=[callback]).train(steps=3)
        manifest_path = os.path.join(capture, "capture.json")
        with open(manifest_path, encoding="utf-8") as f:
            manifest = json.load(f)
        manifest["created"] = "2026-01-01T00:00:00Z"
        manifest["python"] = "3.11"
        manifest["frameworks"] = {k: v for k, v in manifest["frameworks"].items() if k in ft.FAKE_VERSIONS}
        with open(manifest_path, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1, ensure_ascii=False)
            f.write("\n")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(capture, target)
    print("wrote", target)


main()
