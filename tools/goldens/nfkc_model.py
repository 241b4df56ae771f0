#!/usr/bin/python3
# Command line: /usr/bin/python3 tools/goldens/nfkc_model.py
# Trains a 100-piece SentencePiece model with the nmt_nfkc normalization (so it carries a real
# precompiled_charsmap: a double-array trie plus the normalized strings, about 240 KB) and writes
# SentencePiece's own ids and pieces for a few strings NFKC changes. tests/tokenizer_sp checks that
# the charsmap check (core/tokenizer/SentencePieceModelCheck.h) accepts a real charsmap and that the
# model then tokenizes as the reference does. Also the seeds of the sentencepiece_model fuzz target
# (tests/data/fuzz/sentencepiece_model/): a 20-piece model whose charsmap holds four rules (1.3 KB),
# and the same with its trie's root pointing past the trie. Debian python3-sentencepiece 0.1.97;
# deterministic.
import json
import os
import struct
import tempfile

import sentencepiece as spm

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(ROOT, "tests", "data", "sentencepiece")
CORPUS = ["The attention mask hides padding from every real token.",
          "Full width: ＡＢＣ ｆｕｌｌ ｗｉｄｔｈ and ligatures ﬁ ﬂ and circled ① ② numbers.",
          "Labels of -100 are ignored by the loss; the model shifts them by one."] * 20
CASES = ["ｆｕｌｌ ｗｉｄｔｈ", "ﬁne ﬂow", "① and ②", "plain text", "Ａ ｍａｓｋ"]

with tempfile.TemporaryDirectory() as tmp:
    os.chdir(tmp)  # relative paths: the model records its input and prefix, which must not vary
    with open("corpus.txt", "w", encoding="utf-8") as f:
        f.write("\n".join(CORPUS) + "\n")
    spm.SentencePieceTrainer.train(input="corpus.txt", model_prefix="nfkc", vocab_size=100, model_type="bpe",
                                   normalization_rule_name="nmt_nfkc", character_coverage=1.0, num_threads=1,
                                   minloglevel=2)
    with open("nfkc.model", "rb") as f:
        model = f.read()
    os.chdir(ROOT)
with open(os.path.join(OUT, "nfkc.model"), "wb") as f:
    f.write(model)
sp = spm.SentencePieceProcessor(model_proto=model)

# The fuzz seeds: a small model with a real charsmap of four rules (fullwidth a, b; the fi ligature;
# circled one), and a copy whose root unit points 2^29 units past its trie (same size: the protobuf
# stays valid, only the charsmap lies).
with tempfile.TemporaryDirectory() as tmp:
    os.chdir(tmp)
    with open("rules.tsv", "w", encoding="utf-8") as f:
        f.write("FF41\t61\nFF42\t62\nFB01\t66 69\n2460\t31\n")
    with open("corpus.txt", "w", encoding="utf-8") as f:
        f.write("ab ba abba fi 1 ａｂ ① ﬁ\n" * 30)
    spm.SentencePieceTrainer.train(input="corpus.txt", model_prefix="tiny", vocab_size=20, model_type="bpe",
                                   normalization_rule_tsv="rules.tsv", character_coverage=1.0, num_threads=1,
                                   minloglevel=2)
    with open("tiny.model", "rb") as f:
        tiny = f.read()
    os.chdir(ROOT)
SEEDS = os.path.join(ROOT, "tests", "data", "fuzz", "sentencepiece_model")
os.makedirs(SEEDS, exist_ok=True)
with open(os.path.join(SEEDS, "tiny_rules.model"), "wb") as f:
    f.write(tiny)


def varint(b, i):
    v, shift = 0, 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def field_at(b, number, begin=0, end=None):
    """(offset, length) of the first length-delimited field `number` of the message b[begin:end]."""
    i, end = begin, len(b) if end is None else end
    while i < end:
        tag, i = varint(b, i)
        kind = tag & 7
        if kind == 0:
            _, i = varint(b, i)
        elif kind == 1:
            i += 8
        elif kind == 5:
            i += 4
        elif kind == 2:
            n, i = varint(b, i)
            if tag >> 3 == number:
                return i, n
            i += n
        else:
            raise ValueError("unexpected wire type")
    raise ValueError("field not found")


spec, spec_len = field_at(tiny, 3)                     # ModelProto.normalizer_spec
at, _ = field_at(tiny, 2, spec, spec + spec_len)       # NormalizerSpec.precompiled_charsmap
root = struct.unpack_from("<I", tiny, at + 4)[0]       # after the uint32 trie size: unit 0
broken = bytearray(tiny)
struct.pack_into("<I", broken, at + 4, (root & 0x3FF) | (0x1FFFFF << 10) | (1 << 9))
with open(os.path.join(SEEDS, "tiny_rules_root_far.model"), "wb") as f:
    f.write(bytes(broken))
cases = [{"text": t, "ids": sp.encode(t), "pieces": sp.encode(t, out_type=str)} for t in CASES]
with open(os.path.join(OUT, "nfkc_goldens.json"), "w", encoding="utf-8") as f:
    json.dump({"cases": cases}, f, ensure_ascii=False, indent=1)
    f.write("\n")
