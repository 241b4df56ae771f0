#!/usr/bin/env python3
# Writes tests/data/frameworks/axolotl-0.18/jinja_message_vars_*.json: which unmapped message keys
# Axolotl v0.18.0 lets through to a chat template (JinjaTemplateAnalyzer.get_message_vars). Expected
# rows: the text rendered with Python's jinja2 from the messages as transform_message leaves them,
# tokenized by @huggingface/tokenizers (tokenize.mjs, the cache's Llama-3 tokenizer); labels: the
# assistant content and the <|eot_id|> after it (train_on_eos: turn), everything else -100.
# Run: /usr/bin/python3 tools/frameworks/axolotl_message_vars_goldens.py
import json
import os
import subprocess

import jinja2

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "data", "frameworks", "axolotl-0.18")
UPSTREAM = ("axolotl v0.18.0 (2f5cb9da) src/axolotl/prompt_strategies/chat_template.py::"
            "ChatTemplateStrategy.transform_message with jinja_template_analyzer.py::"
            "JinjaTemplateAnalyzer.get_message_vars (tests/prompt_strategies/test_jinja_template_analyzer.py::"
            "test_basic_msg_vars asserts the same rule on its own template)")
TPL_M = ("{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m.role }}{% if m.name %} ({{ m.name }})"
         "{% endif %}<|end_header_id|>\n\n{{ m.content }}<|eot_id|>{% endfor %}{% if add_generation_prompt %}"
         "<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}")
TPL_MESSAGE = TPL_M.replace("for m in", "for message in").replace("m.", "message.")
NOTE_M = ("The template's loop variable is `m`: get_message_vars returns only what is read on a variable "
          "literally named `message` (get_downstream_properties finds nothing for `messages`, as "
          "analyze_template resets iteration_targets), so the set is empty and transform_message drops the "
          "unmapped key `name` before rendering: row 1 (with name) gives exactly row 2's tokens. Expected rows "
          "written by tools/frameworks/axolotl_message_vars_goldens.py (Python jinja2 + @huggingface/tokenizers).")
NOTE_MESSAGE = ("Same template with the loop variable named `message`: get_message_vars returns {role, name, "
                "content}, so `name` is kept and rendered (row 1's user header reads 'user (alice)'). Expected "
                "rows written by tools/frameworks/axolotl_message_vars_goldens.py (Python jinja2 + "
                "@huggingface/tokenizers).")
ROWS = [
    {"messages": [{"role": "user", "name": "alice", "content": "hello"}, {"role": "assistant", "content": "hi there"}]},
    {"messages": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi there"}]},
]


def tokenize(texts):
    lines = "".join(json.dumps({"model": "llama3", "text": t, "add_special_tokens": False}) + "\n" for t in texts)
    out = subprocess.run(["node", os.path.join(HERE, "tokenize.mjs")], input=lines, capture_output=True,
                         text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def expected_row(template, messages):
    full = template.render(messages=messages, bos_token="<|begin_of_text|>", add_generation_prompt=False)
    prompt = template.render(messages=messages[:-1], bos_token="<|begin_of_text|>", add_generation_prompt=True)
    content = messages[-1]["content"]
    assert full == prompt + content + "<|eot_id|>"
    ids, pre, con, eot = tokenize([full, prompt, content, "<|eot_id|>"])
    assert ids == pre + con + eot  # the pieces tokenize as the whole does
    return {"input_ids": ids, "labels": [-100] * len(pre) + con + eot}


def write(name, text, note, keeps_name):
    template = jinja2.Environment().from_string(text)
    expected = []
    for row in ROWS:
        msgs = [{k: v for k, v in m.items() if keeps_name or k in ("role", "content")} for m in row["messages"]]
        expected.append(expected_row(template, msgs))
    case = {
        "upstream": UPSTREAM,
        "note": note,
        "spec": {"framework": "axolotl", "version": "0.18", "type": "chat_template", "chat_template": "jinja",
                 "chat_template_jinja": text, "message_property_mappings": {"role": "role", "content": "content"},
                 "roles_to_train": ["assistant"], "train_on_eos": "turn",
                 "special_tokens": {"eos_token": "<|eot_id|>"}},
        "rows": ROWS,
        "args": ["--tokenizer", "$TOKENIZERS/llama3", "--stage", "prepared"],
        "compare_keys": ["input_ids", "labels"],
        "expected_rows": expected,
    }
    with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(case, f, indent=1, ensure_ascii=False)
        f.write("\n")


write("jinja_message_vars_loop_m", TPL_M, NOTE_M, False)
write("jinja_message_vars_message", TPL_MESSAGE, NOTE_MESSAGE, True)
