"""The real-trainer check of docs/capture.md, for a machine with transformers (a GPU machine usually
has it): a transformers Trainer on a tiny random Llama with a real tokenizer runs two steps with
maskscope_capture.Callback, and the batches the training steps received must be the captured ones,
also with dataloader workers (then worker 0's batches). TRL's SFTTrainer runs too when trl is
installed. The capture folders are packed into OUT/captures.tar to open with maskscope.
Usage: python3 tools/capture/real-trainer-check.py TOKENIZER_FOLDER OUT"""

import json
import os
import sys
import tarfile
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "packaging", "python"))

import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors.torch import load_file  # noqa: E402
from transformers import (AutoTokenizer, DataCollatorForLanguageModeling, LlamaConfig, LlamaForCausalLM,  # noqa: E402
                          Trainer, TrainingArguments)

import maskscope_capture  # noqa: E402

CONVERSATIONS = [
    [{"role": "user", "content": "What does padding do?"},
     {"role": "assistant", "content": "It makes rows the same length."}],
    [{"role": "user", "content": "Name a colour."}, {"role": "assistant", "content": "Blue."}],
    [{"role": "user", "content": "Why mask the prompt?"},
     {"role": "assistant", "content": "So the loss only teaches the reply."}],
    [{"role": "user", "content": "Say hi."}, {"role": "assistant", "content": "Hi."}],
    [{"role": "user", "content": "Is EOS graded?"}, {"role": "assistant", "content": "It should be."}],
    [{"role": "user", "content": "Two plus two?"}, {"role": "assistant", "content": "Four."}],
    [{"role": "user", "content": "One more?"}, {"role": "assistant", "content": "Five."}],
    [{"role": "user", "content": "Last one."}, {"role": "assistant", "content": "Done."}],
]
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures.append(what)


class Rows(torch.utils.data.Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


class RecordingTrainer(Trainer):
    """Keeps what each training step received (on the CPU), to compare with the capture."""

    seen = None

    def training_step(self, model, inputs, *args, **kwargs):
        self.seen = (self.seen or []) + [{k: v.detach().cpu() for k, v in inputs.items() if hasattr(v, "detach")}]
        return super().training_step(model, inputs, *args, **kwargs)


def tiny_model(tok):
    config = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                         pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
    torch.manual_seed(0)
    return LlamaForCausalLM(config)


def compare(name, capture, seen, picks):
    with open(os.path.join(capture, "capture.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    files = [b["file"] for b in manifest["batches"]]
    check(len(files) == len(picks), "%s: %d batches captured (%s)" % (name, len(files), files))
    for file, k in zip(files, picks):
        back = load_file(os.path.join(capture, file))
        same = set(back) == set(seen[k]) and all(torch.equal(back[key], seen[k][key]) for key in back)
        check(same, "%s: %s equals the batch of training step %d (keys %s)" % (name, file, k, sorted(back)))
    print("%s manifest: trainer %s, collator %s, frameworks %s, tokenizer files %s" % (
        name, (manifest["trainer"] or {}).get("class"), manifest["collator"]["class"], manifest["frameworks"],
        manifest["tokenizer"]["files"]), flush=True)


def run_trainer(name, tok, rows, out, workers):
    capture = os.path.join(out, name)
    args = TrainingArguments(output_dir=os.path.join(out, "trainer-" + name), per_device_train_batch_size=2,
                             max_steps=4, report_to="none", save_strategy="no", logging_steps=1,
                             remove_unused_columns=False, dataloader_num_workers=workers, seed=0)
    trainer = RecordingTrainer(model=tiny_model(tok), args=args, train_dataset=Rows(rows),
                               data_collator=DataCollatorForLanguageModeling(tok, mlm=False), processing_class=tok,
                               callbacks=[maskscope_capture.Callback(out=capture, batches=2, check="real-trainer")])
    trainer.train()
    # With workers, batch k comes from worker k % workers: worker 0 wrote steps 0 and `workers`.
    compare(name, capture, trainer.seen, [0, 1] if workers == 0 else [0, workers])
    return capture


def run_sft(tok, out):
    import trl
    from datasets import Dataset

    capture = os.path.join(out, "capture-sft")
    config = trl.SFTConfig(output_dir=os.path.join(out, "trainer-sft"), per_device_train_batch_size=2, max_steps=2,
                           report_to="none", save_strategy="no", assistant_only_loss=False)
    trainer = trl.SFTTrainer(model=tiny_model(tok), args=config, processing_class=tok,
                             train_dataset=Dataset.from_list([{"messages": c} for c in CONVERSATIONS]),
                             callbacks=[maskscope_capture.Callback(out=capture, batches=2)])
    trainer.train()
    check(os.path.isfile(os.path.join(capture, "capture.json")), "SFTTrainer: a capture was written")
    return capture


def main():
    tok_dir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    tok = AutoTokenizer.from_pretrained(tok_dir)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    print("transformers %s, torch %s, %s pad %r (%s) eos %s, cuda %s" % (
        transformers.__version__, torch.__version__, type(tok).__name__, tok.pad_token, tok.pad_token_id,
        tok.eos_token_id, torch.cuda.is_available()), flush=True)
    rows = [{"input_ids": tok.apply_chat_template(c, tokenize=False)} for c in CONVERSATIONS]
    rows = [{"input_ids": tok(r["input_ids"], add_special_tokens=False)["input_ids"]} for r in rows]
    captures = []
    for name, workers in (("capture-trainer", 0), ("capture-workers", 2)):
        try:
            captures.append(run_trainer(name, tok, rows, out, workers))
        except Exception:
            traceback.print_exc()
            check(False, "%s ran" % name)
    try:
        import trl  # noqa: F401

        captures.append(run_sft(tok, out))
    except ImportError:
        print("not run: TRL's SFTTrainer (trl is not installed here)")
    except Exception:
        traceback.print_exc()
        check(False, "SFTTrainer ran")
    with tarfile.open(os.path.join(out, "captures.tar"), "w") as t:
        for c in captures:
            t.add(c, arcname=os.path.basename(c))
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


sys.exit(main())
