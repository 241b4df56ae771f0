#!/usr/bin/python3
# Trains the built-in demo tokenizer (resources/tokenizer/demo.model + demo.vocab): a small
# SentencePiece BPE model over text this project owns (resources/data/demo.jsonl rendered as ChatML,
# plus tools/demo/corpus/*.txt). Deterministic: one thread, fixed seed, no sampling, no shuffling.
# Usage: /usr/bin/python3 tools/demo/train_demo_tokenizer.py     (needs Debian's python3-sentencepiece)
import glob
import json
import os
import re
import shutil
import tempfile

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATASET = os.path.join(ROOT, "resources", "data", "demo.jsonl")
CORPUS_GLOB = os.path.join(HERE, "corpus", "*.txt")
OUT_DIR = os.path.join(ROOT, "resources", "tokenizer")

IM_START, IM_END = "<|im_start|>", "<|im_end|>"
CONTROL_SPLIT = re.compile(r"(<\|im_start\|>|<\|im_end\|>)")
NEWLINES = re.compile(r"(\n+)")


def chatml_segments():
    """The plain-text pieces SentencePiece will actually see at runtime.

    The app renders rows with ChatML and the C++ tokenizer cuts the control markers out before
    calling SentencePiece, so the training sentences are exactly the text between markers,
    newlines included (e.g. "assistant\\nHello!" and "\\n")."""
    with open(DATASET, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            text = "".join(f"{IM_START}{m['role']}\n{m['content']}{IM_END}\n" for m in row["messages"])
            text += f"{IM_START}assistant\n"  # the generation prompt, as add_generation_prompt=True writes it
            for seg in CONTROL_SPLIT.split(text):
                if seg and seg not in (IM_START, IM_END):
                    yield from newline_split(seg)


def newline_split(text):
    """Lines as separate sentences, so no piece ever glues a newline to text (".\n", "\n-").
    The trainer drops whitespace-only sentences, so "\n" is not in the vocabulary at all and
    always tokenizes as the byte piece <0x0A>, one token per newline, as in Llama 2."""
    for part in NEWLINES.split(text):
        if part and not NEWLINES.fullmatch(part):
            yield part


def corpus_paragraphs():
    for path in sorted(glob.glob(CORPUS_GLOB)):
        with open(path, encoding="utf-8") as f:
            yield from newline_split(f.read())


def main():
    sentences = list(chatml_segments()) + list(corpus_paragraphs())
    # BPE training does not sample once shuffling is off, but pin the seed anyway.
    spm.set_random_generator_seed(20240726)
    tmp = tempfile.mkdtemp(prefix="maskscope-spm-")
    try:
        # The model file records model_prefix, so train under a fixed relative name for
        # byte-identical output across runs.
        cwd = os.getcwd()
        os.chdir(tmp)
        prefix = os.path.join(tmp, "demo")
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(sentences),
            model_prefix="demo",
            model_type="bpe",
            vocab_size=4000,
            hard_vocab_limit=False,
            pad_id=0, unk_id=1, bos_id=2, eos_id=3,
            pad_piece="<pad>", unk_piece="<unk>", bos_piece="<s>", eos_piece="</s>",
            control_symbols=[IM_START, IM_END],  # ids 4 and 5
            byte_fallback=True,
            add_dummy_prefix=False,
            split_digits=True,
            remove_extra_whitespaces=False,
            normalization_rule_name="identity",
            allow_whitespace_only_pieces=True,
            character_coverage=1.0,
            max_sentencepiece_length=16,
            max_sentence_length=65536,
            input_sentence_size=len(sentences) + 1,  # load every sentence
            shuffle_input_sentence=False,
            num_threads=1,
            minloglevel=1,
        )
        os.chdir(cwd)
        os.makedirs(OUT_DIR, exist_ok=True)
        for ext in ("model", "vocab"):
            shutil.copyfile(f"{prefix}.{ext}", os.path.join(OUT_DIR, f"demo.{ext}"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    sp = spm.SentencePieceProcessor(model_file=os.path.join(OUT_DIR, "demo.model"))
    assert (sp.pad_id(), sp.unk_id(), sp.bos_id(), sp.eos_id()) == (0, 1, 2, 3)
    assert sp.piece_to_id(IM_START) == 4 and sp.piece_to_id(IM_END) == 5
    assert sp.is_control(4) and sp.is_control(5)
    print(f"trained on {len(sentences)} sentences; vocab size {sp.get_piece_size()}; "
          f"model {os.path.getsize(os.path.join(OUT_DIR, 'demo.model'))} bytes")


if __name__ == "__main__":
    main()
