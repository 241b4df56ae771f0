#!/usr/bin/python3
"""Goldens for maskscope's LLaMA-Factory reproduction (tests/frameworks/tst_upstream_cases.cpp).

Each case replays one of LLaMA-Factory's own published unit tests (v0.9.6.dev0, commit ff6d4d1 of
github.com/hiyouga/LLaMA-Factory) through `maskscope collate`: the rows and options are the test's
inputs, the expected tensors are the test's expectations. Where the upstream test names a model
tokenizer that is not available here (llamafactory/tiny-random-Llama-3, Qwen/Qwen3-8B), the real
tokenizer of the same family from the cache is used, and the expected ids are derived the way the
upstream test derives them: its expected strings (test_template.py) or transformers'
apply_chat_template (test_supervised.py: the Meta-Llama-3-8B-Instruct chat template, which
tiny-random-Llama-3 carries, rendered with Python jinja2 as transformers renders it), tokenized
with the reference implementation @huggingface/tokenizers (tools/frameworks/tokenize.mjs).
Nothing here runs maskscope.

Run from the repository root with Debian's python (python3-jinja2) and node:
    /usr/bin/python3 tools/frameworks/llamafactory_goldens.py
"""
import json
import os

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "data", "frameworks", "llamafactory")
IGNORE = -100
SOURCE = "LLaMA-Factory v0.9.6.dev0 (ff6d4d1)"

# tiny-random-Llama-3's chat template (Meta-Llama-3-8B-Instruct's tokenizer_config.json).
LLAMA3_INSTRUCT = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = "
    "'<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + "
    "'<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}"
    "{{ content }}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}")

# test_template.py's conversations.
MESSAGES = [
    {"role": "user", "content": "How are you"},
    {"role": "assistant", "content": "I am fine!"},
    {"role": "user", "content": "你好"},
    {"role": "assistant", "content": "很高兴认识你！"},
]
MESSAGES_WITH_THOUGHT = [
    {"role": "user", "content": "How are you"},
    {"role": "assistant", "content": "<think>\nModel thought here\n</think>\n\nI am fine!"},
    {"role": "user", "content": "你好"},
    {"role": "assistant", "content": "<think>\n模型思考内容\n</think>\n\n很高兴认识你！"},
]

# Rows in the shape of the upstream tests' datasets: llamafactory/tiny-supervised-dataset (alpaca)
# and llamafactory/demo_data "system_chat" (messages with a system turn, sharegpt formatting with
# OpenAI tags). Written here; the datasets themselves are not available offline.
ALPACA_ROWS = [
    {"instruction": "Give three tips for staying healthy.", "input": "",
     "output": "1. Eat a balanced diet.\n2. Exercise regularly.\n3. Sleep well."},
    {"instruction": "Translate the sentence to French.", "input": "The cat sleeps.", "output": "Le chat dort."},
    {"instruction": "What is the capital of Japan?", "input": "", "output": "Tokyo."},
    {"instruction": "Summarize the text.", "input": "Padding makes rows of a batch the same length; "
     "the attention mask hides the pads.", "output": "Pads align rows; the mask hides them."},
]
SYSTEM_CHAT_ROWS = [
    {"messages": [{"role": "system", "content": "You are a pirate."},
                  {"role": "user", "content": "Hello!"},
                  {"role": "assistant", "content": "Ahoy, matey!"},
                  {"role": "user", "content": "Where is the treasure?"},
                  {"role": "assistant", "content": "Buried on the island, arr."}]},
    {"messages": [{"role": "system", "content": "Answer in one word."},
                  {"role": "user", "content": "Colour of the sky?"},
                  {"role": "assistant", "content": "Blue."}]},
    {"messages": [{"role": "system", "content": "You are terse."},
                  {"role": "user", "content": "2+2?"},
                  {"role": "assistant", "content": "4"},
                  {"role": "user", "content": "3+3?"},
                  {"role": "assistant", "content": "6"},
                  {"role": "user", "content": "And 4+4?"},
                  {"role": "assistant", "content": "8"}]},
]


from node_tokenizer import NodeTokenizer as Tok  # noqa: E402 (a sibling module)


def render(template, messages, add_generation_prompt, **variables):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    return env.from_string(template).render(messages=messages, add_generation_prompt=add_generation_prompt,
                                            **variables)


def write_rows(name, rows):
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return name


def turns_row(tok, model, prompts, answers, graded):
    """input_ids/labels of encode_multiturn's pairs: each prompt -100, each answer graded if graded[i]."""
    ids, labels = [], []
    for p, a, g in zip(prompts, answers, graded):
        pi, ai = tok.ids(model, p), tok.ids(model, a)
        ids += pi + ai
        labels += [IGNORE] * len(pi) + (ai if g else [IGNORE] * len(ai))
    return {"input_ids": ids, "labels": labels}


def template_cases(tok):
    cases = []
    rows = write_rows("messages.jsonl", [{"messages": MESSAGES}])
    rows_cot = write_rows("messages_with_thought.jsonl", [{"messages": MESSAGES_WITH_THOUGHT}])
    # test_encode_multiturn: llama3 template.
    p1 = ("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHow are you<|eot_id|>"
          "<|start_header_id|>assistant<|end_header_id|>\n\n")
    a1 = "I am fine!<|eot_id|>"
    p2 = "<|start_header_id|>user<|end_header_id|>\n\n你好<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
    a2 = "很高兴认识你！<|eot_id|>"
    cases.append({"name": "test_encode_multiturn", "cites": "tests/data/test_template.py::test_encode_multiturn",
                  "tokenizer": "llama3", "spec": {"framework": "llamafactory", "template": "llama3"},
                  "data": rows, "stage": "prepared",
                  "expect": [turns_row(tok, "llama3", [p1, p2], [a1, a2], [True, True])]})
    # test_reasoning_encode_multiturn[cot_messages, enable_thinking]: qwen3 template.
    for cot in (True, False):
        for thinking in (True, False, None):
            messages = MESSAGES if not cot or thinking is False else MESSAGES_WITH_THOUGHT
            p1 = f"<|im_start|>user\n{MESSAGES[0]['content']}<|im_end|>\n<|im_start|>assistant\n"
            a1 = f"{messages[1]['content']}<|im_end|>\n"
            p2 = f"<|im_start|>user\n{MESSAGES[2]['content']}<|im_end|>\n<|im_start|>assistant\n"
            a2 = f"{messages[3]['content']}<|im_end|>\n"
            if not cot or thinking is False:
                if thinking:
                    a1 = "<think>\n\n</think>\n\n" + a1
                    a2 = "<think>\n\n</think>\n\n" + a2
                else:
                    p1 += "<think>\n\n</think>\n\n"
                    p2 += "<think>\n\n</think>\n\n"
            name = f"test_reasoning_encode_multiturn[{cot}-{thinking}]"
            cases.append({"name": name, "cites": "tests/data/test_template.py::test_reasoning_encode_multiturn "
                          f"(cot_messages={cot}, enable_thinking={thinking})",
                          "tokenizer": "qwen3",
                          "spec": {"framework": "llamafactory", "template": "qwen3", "enable_thinking": thinking},
                          "data": rows_cot if cot else rows, "stage": "prepared",
                          "expect": [turns_row(tok, "qwen3", [p1, p2], [a1, a2], [True, True])]})
    # test_reasoning_encode_multiturn_discarding_history_cot[enable_thinking, True]: the supervised
    # processor asks for discarding_history_cot exactly under mask_history (and not preserve_thinking),
    # which also leaves only the last answer graded.
    for thinking in (True, False, None):
        p1 = f"<|im_start|>user\n{MESSAGES[0]['content']}<|im_end|>\n<|im_start|>assistant\n"
        p2 = f"<|im_start|>user\n{MESSAGES[2]['content']}<|im_end|>\n<|im_start|>assistant\n"
        if thinking is False:
            a1 = f"{MESSAGES[1]['content']}<|im_end|>\n"
            a2 = f"{MESSAGES[3]['content']}<|im_end|>\n"
            p2 += "<think>\n\n</think>\n\n"
        else:
            a1 = f"{MESSAGES[1]['content']}<|im_end|>\n"
            a2 = f"{MESSAGES_WITH_THOUGHT[3]['content']}<|im_end|>\n"
        cases.append({"name": f"test_reasoning_encode_multiturn_discarding_history_cot[{thinking}-True]",
                      "cites": "tests/data/test_template.py::test_reasoning_encode_multiturn_discarding_history_cot "
                      f"(enable_thinking={thinking}, discarding_history_cot=True via mask_history)",
                      "tokenizer": "qwen3",
                      "spec": {"framework": "llamafactory", "template": "qwen3", "enable_thinking": thinking,
                               "mask_history": True},
                      "data": rows_cot, "stage": "prepared",
                      "expect": [turns_row(tok, "qwen3", [p1, p2], [a1, a2], [False, True])]})
    # test_parse_qwen3_template: no template named, so parse_template reads the tokenizer's own; the
    # slots it finds (asserted upstream) encode the thought conversation as the qwen3 template does.
    p1 = "<|im_start|>user\nHow are you<|im_end|>\n<|im_start|>assistant\n"
    p2 = "<|im_start|>user\n你好<|im_end|>\n<|im_start|>assistant\n"
    cases.append({"name": "test_parse_qwen3_template", "cites": "tests/data/test_template.py::test_parse_qwen3_template "
                  "(slots from the Qwen3 tokenizer's chat template; ReasoningTemplate, enable_thinking=True)",
                  "tokenizer": "qwen3", "spec": {"framework": "llamafactory"}, "data": rows_cot, "stage": "prepared",
                  "expect": [turns_row(tok, "qwen3", [p1, p2],
                                       [MESSAGES_WITH_THOUGHT[1]["content"] + "<|im_end|>\n",
                                        MESSAGES_WITH_THOUGHT[3]["content"] + "<|im_end|>\n"], [True, True])]})
    return cases


def supervised_cases(tok):
    cases = []
    spec = {"framework": "llamafactory", "template": "llama3", "cutoff_len": 8192}
    bos = {"bos_token": "<|begin_of_text|>"}
    alpaca = write_rows("alpaca.jsonl", ALPACA_ROWS)
    chats = write_rows("system_chat.jsonl", SYSTEM_CHAT_ROWS)

    def one_turn(messages):
        full = tok.ids("llama3", render(LLAMA3_INSTRUCT, messages, False, **bos))
        prompt = tok.ids("llama3", render(LLAMA3_INSTRUCT, messages[:-1], True, **bos))
        return {"input_ids": full, "labels": [IGNORE] * len(prompt) + full[len(prompt):]}

    expect = []
    for r in ALPACA_ROWS:
        prompt = r["instruction"] + ("\n" + r["input"] if r["input"] else "")
        expect.append(one_turn([{"role": "user", "content": prompt}, {"role": "assistant", "content": r["output"]}]))
    cases.append({"name": "test_supervised_single_turn", "cites": "tests/data/processor/test_supervised.py::"
                  "test_supervised_single_turn", "tokenizer": "llama3", "spec": spec, "data": alpaca,
                  "stage": "prepared", "expect": expect})
    # Multi-turn: the upstream test checks input_ids only ("cannot test the label ids in multi-turn case").
    expect = [{"input_ids": tok.ids("llama3", render(LLAMA3_INSTRUCT, r["messages"], False, **bos))}
              for r in SYSTEM_CHAT_ROWS]
    cases.append({"name": "test_supervised_multi_turn", "cites": "tests/data/processor/test_supervised.py::"
                  "test_supervised_multi_turn", "tokenizer": "llama3", "spec": spec, "data": chats,
                  "stage": "prepared", "expect": expect})
    expect = []
    for r in SYSTEM_CHAT_ROWS:
        ids = tok.ids("llama3", render(LLAMA3_INSTRUCT, r["messages"], False, **bos))
        expect.append({"input_ids": ids, "labels": ids})
    cases.append({"name": "test_supervised_train_on_prompt", "cites": "tests/data/processor/test_supervised.py::"
                  "test_supervised_train_on_prompt", "tokenizer": "llama3", "spec": dict(spec, train_on_prompt=True),
                  "data": chats, "stage": "prepared", "expect": expect})
    expect = [one_turn(r["messages"]) for r in SYSTEM_CHAT_ROWS]
    cases.append({"name": "test_supervised_mask_history", "cites": "tests/data/processor/test_supervised.py::"
                  "test_supervised_mask_history", "tokenizer": "llama3", "spec": dict(spec, mask_history=True),
                  "data": chats, "stage": "prepared", "expect": expect})
    return cases


def collator_cases(tok):
    cases = []
    q = IGNORE
    features = [{"input_ids": [0, 1, 2, 3, 4, 5], "attention_mask": [1, 1, 1, 1, 1, 1], "labels": [q, q, 2, 3, 4, 5]},
                {"input_ids": [6, 7], "attention_mask": [1, 1], "labels": [q, 7]}]
    rows = write_rows("base_collator.jsonl", features)
    # template "default" keeps the tokenizer's EOS; Llama-3 has no pad token, so pad = EOS.
    p = tok.ids("llama3", "<|end_of_text|>")[0]
    cases.append({"name": "test_base_collator", "cites": "tests/data/test_collator.py::test_base_collator "
                  "(pad_to_multiple_of=8 is run_sft's value under do_train; p = the fixed tokenizer's pad id)",
                  "tokenizer": "llama3", "spec": {"framework": "llamafactory", "template": "default"},
                  "data": rows, "stage": "batch",
                  "expect": {"input_ids": [[0, 1, 2, 3, 4, 5, p, p], [6, 7, p, p, p, p, p, p]],
                             "attention_mask": [[1, 1, 1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0]],
                             "labels": [[q, q, 2, 3, 4, 5, q, q], [q, 7, q, q, q, q, q, q]]}})
    # test_4d_attention_mask: prepare_4d_attention_mask in float16 on document indices. Run through
    # the collator: neat_packing (block_diag_attn), eager attention (flash_attn: disabled), fp16
    # compute dtype, no pad_to_multiple_of (do_train: false) so the 6 positions stay 6.
    o, x = 0.0, -65504.0
    rows = write_rows("4d_attention_mask.jsonl", [
        {"input_ids": [11, 12, 13, 14, 15, 16], "attention_mask": [1, 1, 2, 2, 2, 0], "labels": [11, 12, 13, 14, 15, q]},
        {"input_ids": [21, 22, 23, 24, 25, 26], "attention_mask": [1, 2, 2, 3, 3, 3], "labels": [21, 22, 23, 24, 25, 26]},
    ])
    expected = [[[[o, x, x, x, x, x], [o, o, x, x, x, x], [x, x, o, x, x, x], [x, x, o, o, x, x],
                  [x, x, o, o, o, x], [x, x, x, x, x, x]]],
                [[[o, x, x, x, x, x], [x, o, x, x, x, x], [x, o, o, x, x, x], [x, x, x, o, x, x],
                  [x, x, x, o, o, x], [x, x, x, o, o, o]]]]
    cases.append({"name": "test_4d_attention_mask", "cites": "tests/data/test_collator.py::test_4d_attention_mask",
                  "tokenizer": None,
                  "spec": {"framework": "llamafactory", "neat_packing": True, "flash_attn": "disabled", "fp16": True,
                           "do_train": False, "pad_token_id": 0},
                  "data": rows, "stage": "batch", "expect": {"attention_mask": expected}})
    return cases


def main():
    os.makedirs(OUT, exist_ok=True)
    tok = Tok()
    cases = template_cases(tok) + supervised_cases(tok) + collator_cases(tok)
    for c in cases:
        c["cites"] = SOURCE + ": " + c["cites"]
    with open(os.path.join(OUT, "cases.json"), "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n]\n")  # a case a line
    print(f"wrote {len(cases)} cases to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
