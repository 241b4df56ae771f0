#!/usr/bin/python3
# Command line: /usr/bin/python3 tools/goldens/sentencepiece_goldens.py
#   [--model resources/tokenizer/demo.model] [--out tests/data/sentencepiece/demo_goldens.json]
# Writes SentencePiece's own answers (ids, pieces, UTF-8 byte offsets) for the demo model and ~40
# strings, so the C++ tokenizer can be checked against the reference implementation
# (Debian python3-sentencepiece 0.1.97).
#
# Offsets: the Python wrapper's immutable proto converts begin/end to code-point offsets, so this
# script parses EncodeAsSerializedProto (the C++ library's SentencePieceText, byte offsets into the
# input) with a minimal protobuf reader instead. SentencePiece's byte-fallback convention is kept as
# is: for a character split into byte pieces, the leading byte pieces have an empty range
# [b, b) and the last one spans the whole character [b, b + len).
# These are plain encodes of the text: "<|im_end|>" in a string is tokenized as ordinary
# characters here (control symbols are never produced from text by SentencePiece).
import argparse
import json
import os

import sentencepiece as spm

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

CASES = [
    ("empty", ""),
    ("single_letter", "a"),
    ("ascii_sentence", "The attention mask hides padding from every real token."),
    ("maskscope_words", "maskscope shows labels, attention_mask and position_ids."),
    ("leading_space", " leading space"),
    ("trailing_space", "trailing space "),
    ("space_run", "a    b"),
    ("only_spaces", "     "),
    ("tab", "key\tvalue"),
    ("newline", "\n"),
    ("newlines", "line one\nline two\n\nline four\n"),
    ("crlf", "windows\r\nline\r\n"),
    ("chatml_body", "assistant\nHello! How can I help?"),
    ("digits", "max_length=2048, vocab 32000"),
    ("negative_label", "labels = [-100, -100, 42]"),
    ("accents_composed", "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, na\u00efve Fran\u00e7oise"),
    ("accents_decomposed", "cafe\u0301 cre\u0300me bru\u0302le\u0301e"),
    ("german", "Feinabstimmung heißt „weitertrainieren“ – größer, schöner."),
    ("spanish", "¿Dónde está la estación? ¡Allí!"),
    ("chinese", "注意力掩码告诉模型哪些位置是填充。"),
    ("japanese", "こんにちは、世界。おにぎりを食べます。"),
    ("korean", "안녕하세요, 세계!"),
    ("arabic", "مرحبا بالعالم"),
    ("greek_cyrillic", "αβγ δέλτα — привет мир"),
    ("emoji", "Happy growing! 🍅 👋"),
    ("emoji_zwj", "family: 👨\u200d👩\u200d👧\u200d👦 and flag 🏳\ufe0f\u200d🌈"),
    ("emoji_skin_tone", "👍🏽 ok"),
    ("code_python", "def f(x):\n    return x[::-1]  # reverse\n"),
    ("code_cpp", "for (std::size_t i = 0; i < n; ++i) { v[i] = -100; }"),
    ("url", "https://huggingface.co/datasets/HuggingFaceH4/no_robots?row=3#top"),
    ("json_snippet", "{\"role\": \"user\", \"content\": \"Hi\"}"),
    ("literal_im_start", "<|im_start|>user\nHi<|im_end|>\n"),
    ("literal_im_end_inside", "Stop here<|im_end|> and go on"),
    ("literal_bos_eos", "<s> text </s>"),
    ("literal_pad_unk", "<pad><unk>"),
    ("byte_token_lookalike", "<0x0A> is a byte token"),
    ("control_chars", "bell\x07 nul\x00 end"),
    ("nbsp_and_zero_width", "non\u00a0breaking and zero\u200bwidth"),
    ("replacement_char", "bad \ufffd char"),
    ("mixed_scripts", "Loss 损失 perte ロス 🤖 = 0.42"),
    ("long_word", "Supercalifragilisticexpialidocious"),
]


def varint(buf, i):
    result = shift = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated varint")
        byte = buf[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, i


def proto_fields(buf):
    """(field number, value) pairs of one protobuf message; enough for SentencePieceText."""
    i, out = 0, []
    while i < len(buf):
        key, i = varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            value, i = buf[i:i + n], i + n
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.append((field, value))
    return out


def encode(sp, text):
    """SentencePieceText { 1: text, 2: repeated SentencePiece { 1: piece, 2: id, 3: surface,
    4: begin, 5: end } } with byte offsets, as the C++ library fills it."""
    ids, pieces, offsets = [], [], []
    for field, value in proto_fields(sp.encode_as_serialized_proto(text)):
        if field != 2:
            continue
        piece = dict(proto_fields(value))
        ids.append(piece.get(2, 0))
        pieces.append(piece.get(1, b"").decode("utf-8"))
        offsets.append([piece.get(4, 0), piece.get(5, 0)])
    return ids, pieces, offsets


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=os.path.join(ROOT, "resources", "tokenizer", "demo.model"))
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "sentencepiece", "demo_goldens.json"))
    args = parser.parse_args()

    sp = spm.SentencePieceProcessor(model_file=args.model)
    cases = []
    for name, text in CASES:
        ids, pieces, offsets = encode(sp, text)
        # Cross-checks: same ids as the plain API, offsets inside the input and non-decreasing,
        # and the pieces decode back to the text (identity normalization, no dummy prefix).
        assert ids == sp.encode(text), name
        size = len(text.encode("utf-8"))
        last = 0
        for begin, end in offsets:
            assert last <= begin <= end <= size, (name, offsets)
            last = end
        assert sp.decode(ids) == text, (name, sp.decode(ids))
        cases.append({"name": name, "text": text, "ids": ids, "pieces": pieces, "offsets": offsets})

    model = {
        "file": os.path.relpath(args.model, ROOT),
        "sentencepiece_version": spm.__version__,
        "vocab_size": sp.get_piece_size(),
        "pad_id": sp.pad_id(), "unk_id": sp.unk_id(), "bos_id": sp.bos_id(), "eos_id": sp.eos_id(),
        "im_start_id": sp.piece_to_id("<|im_start|>"),
        "im_end_id": sp.piece_to_id("<|im_end|>"),
        "control_ids": [i for i in range(sp.get_piece_size()) if sp.is_control(i)],
        "byte_ids": [i for i in range(sp.get_piece_size()) if sp.is_byte(i)][:1]
                    + [i for i in range(sp.get_piece_size()) if sp.is_byte(i)][-1:],
    }
    doc = {
        "generator": "tools/goldens/sentencepiece_goldens.py",
        "offsets": "UTF-8 byte ranges [begin, end) as SentencePiece reports them; leading byte-fallback "
                   "pieces of a character have an empty range, the last spans the whole character",
        "model": model,
        "cases": cases,
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {os.path.relpath(args.out, ROOT)}")


if __name__ == "__main__":
    main()
