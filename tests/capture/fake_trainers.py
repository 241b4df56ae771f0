"""Stand-ins for the trainers and collators maskscope_capture meets, plain Python over torch (no
transformers, no TRL): a transformers-like DataCollatorForLanguageModeling (pads, labels -100 where
input_ids == pad id, as transformers' does), a TRL-like padding-free collator (one flattened row:
input_ids, position_ids restarting per example, labels with the prompt and each example's first
token -100, no attention_mask), a tokenizer object pointing at a local folder, and a Trainer that
calls its callbacks as transformers' does and iterates a real torch DataLoader. Used by
capture_lint.py (test_capture_lint) and tools/capture/make-fixture.py."""

import os
import shutil
import sys
import types

import torch
from torch.utils.data import DataLoader

# Framework modules as a training script has them imported; the versions say they are stand-ins.
FAKE_VERSIONS = {"transformers": "0.0.0+fake", "trl": "0.0.0+fake"}


def install_fake_frameworks():
    for name, version in FAKE_VERSIONS.items():
        module = types.ModuleType(name)
        module.__version__ = version
        sys.modules.setdefault(name, module)


CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
          "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")


class FakeTokenizer:
    """What a collator and the capture read of a transformers tokenizer; name_or_path is a local
    folder (the demo sentencepiece model and a tokenizer_config.json), so its files are copied."""

    def __init__(self, folder, demo_model, pad_token="<|im_end|>", pad_token_id=5):
        os.makedirs(folder, exist_ok=True)
        shutil.copyfile(demo_model, os.path.join(folder, "tokenizer.model"))
        import json

        config = {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": pad_token, "unk_token": "<unk>",
                  "chat_template": CHATML, "add_bos_token": False, "add_eos_token": False}
        with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump(config, f, indent=1)
        self.name_or_path = folder
        self.pad_token, self.pad_token_id = pad_token, pad_token_id
        self.eos_token, self.eos_token_id = "<|im_end|>", 5
        self.bos_token, self.bos_token_id = None, None
        self.padding_side = "right"
        self.chat_template = CHATML


class DataCollatorForLanguageModeling:
    """transformers' DataCollatorForLanguageModeling(mlm=False): pad to the longest row on the
    tokenizer's side, labels = input_ids with -100 wherever input_ids == pad_token_id."""

    def __init__(self, tokenizer, mlm=False, pad_to_multiple_of=None):
        self.tokenizer, self.mlm, self.pad_to_multiple_of = tokenizer, mlm, pad_to_multiple_of

    def __call__(self, features):
        pad = self.tokenizer.pad_token_id
        width = max(len(f["input_ids"]) for f in features)
        ids = torch.full((len(features), width), pad, dtype=torch.int64)
        mask = torch.zeros((len(features), width), dtype=torch.int64)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            ids[i, :n] = torch.tensor(f["input_ids"], dtype=torch.int64)
            mask[i, :n] = 1
        labels = ids.clone()
        labels[labels == pad] = -100
        return {"input_ids": ids, "attention_mask": mask, "labels": labels}


class PaddingFreeCollator:
    """TRL's DataCollatorForLanguageModeling(padding_free=True, completion_only_loss=True): the rows
    flattened into one, position_ids restarting at 0 per example, labels -100 on the prompt
    (completion_mask 0) and at each example's first position, no attention_mask."""

    def __init__(self, pad_token_id):
        self.pad_token_id = pad_token_id
        self.padding_free = True
        self.completion_only_loss = True

    def __call__(self, examples):
        ids = [t for e in examples for t in e["input_ids"]]
        positions = [p for e in examples for p in range(len(e["input_ids"]))]
        keep = [c for e in examples for c in e["completion_mask"]]
        labels = [t if k else -100 for t, k in zip(ids, keep)]
        labels = [-100 if p == 0 else t for t, p in zip(labels, positions)]
        as_row = lambda xs: torch.tensor([xs], dtype=torch.int64)  # noqa: E731
        return {"input_ids": as_row(ids), "position_ids": as_row(positions), "labels": as_row(labels)}


class _Handler:
    def __init__(self, callbacks):
        self.callbacks = callbacks


class _State:
    is_world_process_zero = True


class TrainingArguments:
    def __init__(self, **kw):
        self.per_device_train_batch_size = 2
        self.gradient_accumulation_steps = 1
        self.remove_unused_columns = False
        self.__dict__.update(kw)


class FakeSFTTrainer:
    """The order of transformers' Trainer.train: build the DataLoader from data_collator, give the
    callbacks on_train_begin(args, state, control, train_dataloader=..., processing_class=...), then
    iterate it. Returns the batches the training steps received."""

    def __init__(self, data_collator, processing_class, train_dataset, args=None, callbacks=()):
        self.data_collator = data_collator
        self.processing_class = processing_class
        self.train_dataset = train_dataset
        self.args = args or TrainingArguments()
        self.callback_handler = _Handler(list(callbacks))

    def train(self, steps):
        loader = DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size, shuffle=False,
                            collate_fn=self.data_collator)
        state = _State()
        for cb in self.callback_handler.callbacks:
            cb.on_train_begin(self.args, state, None, model=None, processing_class=self.processing_class,
                              train_dataloader=loader, optimizer=None, lr_scheduler=None, eval_dataloader=None)
        seen = []
        for batch in loader:
            seen.append(batch)
            for cb in self.callback_handler.callbacks:
                cb.on_step_end(self.args, state, None)
            if len(seen) == steps:
                break
        return seen


def render_chatml(messages):
    return "".join("<|im_start|>%s\n%s<|im_end|>\n" % (m["role"], m["content"]) for m in messages)


CONVERSATIONS = [
    [{"role": "user", "content": "What does padding do?"},
     {"role": "assistant", "content": "It makes rows the same length."}],
    [{"role": "user", "content": "Name a colour."}, {"role": "assistant", "content": "Blue."}],
    [{"role": "user", "content": "Why mask the prompt?"},
     {"role": "assistant", "content": "So the loss only teaches the reply."}],
    [{"role": "user", "content": "Say hi."}, {"role": "assistant", "content": "Hi."}],
    [{"role": "user", "content": "Is EOS graded?"}, {"role": "assistant", "content": "It should be."}],
    [{"role": "user", "content": "Two plus two?"}, {"role": "assistant", "content": "Four."}],
]


def tokenized_rows(tokenize):
    """Rows as a trainer's prepared dataset holds them: messages (the source text), input_ids and
    completion_mask (1 on the reply and its closing token). tokenize(list of texts) -> list of id lists."""
    prompts = [render_chatml(c[:-1]) + "<|im_start|>assistant\n" for c in CONVERSATIONS]
    replies = [c[-1]["content"] + "<|im_end|>\n" for c in CONVERSATIONS]
    ids = tokenize(prompts + replies)
    rows = []
    for k, c in enumerate(CONVERSATIONS):
        p, r = ids[k], ids[len(CONVERSATIONS) + k]
        rows.append({"messages": c, "input_ids": p + r, "completion_mask": [0] * len(p) + [1] * len(r)})
    return rows
