"""test_capture_lint: maskscope_capture inside fake trainers (fake_trainers.py), then `maskscope lint`
on each capture. Each batch's report must equal linting the same batch saved by hand (a JSON batch
dump written here from the tensors the training loop received, linted with the same tokenizer and
template given as options), and the text output must name the trainer, collator and versions the
manifest records. A given --tokenizer / --pad-id must win over the manifest, and a batch file of the capture must carry
the trainer's pad id.
Usage: capture_lint.py MASKSCOPE_BINARY SOURCE_DIR (exit 77 when this python has no torch)."""

import json
import os
import subprocess
import sys
import tempfile

try:
    import torch  # noqa: F401
except ImportError:
    print("SKIP: this python has no torch (Debian: python3-torch)")
    sys.exit(77)

maskscope, source = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(source, "packaging", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fake_trainers as ft  # noqa: E402
import maskscope_capture  # noqa: E402

failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def run(*args):
    r = subprocess.run([maskscope, *args], capture_output=True, text=True, timeout=300)
    if r.returncode == 2:
        print("maskscope %s\n%s" % (" ".join(args), r.stderr))
    return r


def tokenize(texts, work):
    path = os.path.join(work, "texts.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps(t) + "\n")
    r = run("tokenize", "--tokenizer", "builtin:demo", "--jsonl", path, "--json")
    assert r.returncode == 0, r.stderr
    return [json.loads(line)["ids"] for line in r.stdout.splitlines() if line.strip()]


def save_by_hand(batch, path, tok):
    """The batch as a user would dump it without maskscope_capture: JSON lists of the tensors and the
    tokenizer's special-token ids."""
    dump = {k: v.tolist() for k, v in batch.items()}
    for key in ("pad_token_id", "eos_token_id", "bos_token_id"):
        if getattr(tok, key) is not None:
            dump[key] = getattr(tok, key)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(dump, f)


def without_source(report):
    report = json.loads(json.dumps(report))
    report.get("summary", {}).pop("source", None)
    report.pop("file", None)
    return report


def compare_with_hand(name, capture, seen, tok, work):
    r = run("lint", capture, "--json")
    check(r.returncode in (0, 1), "%s: lint CAPTURE --json runs (exit %d)" % (name, r.returncode))
    got = json.loads(r.stdout)
    check(len(got["batches"]) == 2, "%s: two batches linted" % name)
    statuses, total = [], 0
    for k, batch in enumerate(seen[:2]):
        hand = os.path.join(work, "%s-hand-%d.json" % (name, k))
        save_by_hand(batch, hand, tok)
        h = run("lint", hand, "--tokenizer", tok.name_or_path, "--template", tok.name_or_path, "--json")
        statuses.append(h.returncode)
        expected = without_source(json.loads(h.stdout))
        actual = without_source(got["batches"][k])
        total += len(expected["findings"])
        check(actual == expected, "%s: batch %d's report equals linting the batch saved by hand" % (name, k))
        if actual != expected:
            print("capture: %s\nby hand: %s" % (json.dumps(actual)[:3000], json.dumps(expected)[:3000]))
    check(total > 0, "%s: the batches have findings to compare (%d)" % (name, total))
    check(r.returncode == max(statuses), "%s: exit status %d is the worst batch's" % (name, r.returncode))
    check(got["summary"]["errors"] == sum(b["summary"]["errors"] for b in got["batches"]),
          "%s: the summary adds the batches' errors" % name)
    return got


def main():
    ft.install_fake_frameworks()
    work = tempfile.mkdtemp(prefix="maskscope-capture-")
    demo = os.path.join(source, "resources", "tokenizer", "demo.model")
    tok = ft.FakeTokenizer(os.path.join(work, "model"), demo)
    rows = ft.tokenized_rows(lambda texts: tokenize(texts, work))

    # A transformers Trainer with DataCollatorForLanguageModeling, captured by the Callback.
    cap_a = os.path.join(work, "capture-trainer")
    callback = maskscope_capture.Callback(out=cap_a, batches=2, experiment="test_capture_lint")
    trainer = ft.FakeSFTTrainer(ft.DataCollatorForLanguageModeling(tok), tok, rows, callbacks=[callback])
    seen_a = trainer.train(steps=3)
    got = compare_with_hand("trainer", cap_a, seen_a, tok, work)
    c = got["capture"]
    check(c["trainer"] == {"class": "FakeSFTTrainer", "module": "fake_trainers"}, "trainer named in the JSON")
    check(c["collator"]["class"] == "DataCollatorForLanguageModeling", "collator named in the JSON")
    check(c["frameworks"].get("transformers") == "0.0.0+fake", "transformers version in the JSON")
    check(c["used"]["tokenizer_from_capture"] and c["used"]["pad_token_id"] == 5, "manifest tokenizer and pad id used")
    text = run("lint", cap_a).stdout
    for line in ("  trainer: FakeSFTTrainer (fake_trainers)",
                 "  collator: DataCollatorForLanguageModeling (fake_trainers)",
                 "== batch-0001.safetensors =="):
        check(line in text.splitlines(), "text output shows %r" % line)
    check("transformers 0.0.0+fake" in text and "trl 0.0.0+fake" in text, "text output names the versions")

    # Options win over the manifest, and say so.
    o = json.loads(run("lint", cap_a, "--tokenizer", "builtin:demo", "--pad-id", "0", "--json").stdout)["capture"]
    check(o["used"]["tokenizer"] == "builtin:demo" and not o["used"]["tokenizer_from_capture"],
          "--tokenizer wins over the captured tokenizer")
    check(o["used"]["pad_token_id"] == 0 and not o["used"]["pad_id_from_capture"], "--pad-id wins")
    one = json.loads(run("lint", os.path.join(cap_a, "batch-0000.safetensors"), "--tokenizer", tok.name_or_path,
                         "--template", tok.name_or_path, "--json").stdout)
    check(without_source(one) == without_source(got["batches"][0]),
          "a batch file of the capture, linted alone with the same tokenizer, reads as in the capture")

    # TRL's padding-free collator wrapped directly, as the collate_fn of a DataLoader.
    cap_b = os.path.join(work, "capture-padding-free")
    wrapped = maskscope_capture.wrap_collator(ft.PaddingFreeCollator(5), out=cap_b, batches=2, tokenizer=tok)
    loader = torch.utils.data.DataLoader(rows, batch_size=3, collate_fn=wrapped)
    seen_b = list(loader)
    got = compare_with_hand("padding-free", cap_b, seen_b, tok, work)
    check(got["capture"]["trainer"] is None and got["capture"]["collator"]["class"] == "PaddingFreeCollator",
          "wrap_collator: no trainer, the collator named")
    check(all("attention_mask" not in b for b in seen_b), "padding-free batches have no attention_mask")

    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


sys.exit(main())
