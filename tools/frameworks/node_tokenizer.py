"""The golden scripts' tokenizer: @huggingface/tokenizers (npm) through tools/frameworks/tokenize.mjs,
one node process answering every query, so a script's goldens come from the real tokenizer.json
(cached by tools/fetch-tokenizers.sh), independent of maskscope's own tokenizer."""
import json
import os
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class NodeTokenizer:
    """ids(model, text): the token ids of text under the cached tokenizer named model (qwen3, llama3, ...)."""

    def __init__(self):
        self.proc = subprocess.Popen(["node", os.path.join(ROOT, "tools", "frameworks", "tokenize.mjs")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ids(self, model, text):
        self.proc.stdin.write(json.dumps({"model": model, "text": text}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())
