#!/usr/bin/python3
"""Writes the batch-dump fixtures under tests/data/batchio/ (run with Debian's /usr/bin/python3,
which has python3-torch): .safetensors files written by hand (8-byte LE header length, JSON header
with dtype/shape/data_offsets, data), some valid and some broken on purpose, a .pt written by
torch.save(dict), and JSON dumps. Deterministic: rerunning gives byte-identical files.

    /usr/bin/python3 tools/batch-fixtures/make_fixtures.py
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "data", "batchio")

# A right-padded batch of two rows (pad id 0, eos 5): row 0 has one pad, row 1 none.
INPUT_IDS = [[4, 304, 16, 827, 5, 0], [4, 304, 16, 866, 795, 5]]
ATTENTION = [[1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1]]
LABELS = [[-100, -100, -100, 827, 5, -100], [-100, -100, -100, 866, 795, 5]]
POSITIONS = [[0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5]]

# One padding-free row (DataCollatorWithFlattening): three examples of 3, 2 and 4 tokens,
# position ids restarting at 0, no attention_mask, the first label of each example -100.
FLAT_IDS = [4, 827, 5, 4, 866, 4, 289, 16, 5]
FLAT_POS = [0, 1, 2, 0, 1, 0, 1, 2, 3]
FLAT_LABELS = [-100, 827, 5, -100, 866, -100, 289, 16, 5]

# A packed row with segment ids in attention_mask (axolotl): 3 + 2 + 2 tokens, 1 pad.
SEG_IDS = [[4, 827, 5, 4, 866, 4, 289, 0]]
SEG_MASK = [[1, 1, 1, 2, 2, 3, 3, 0]]
SEG_POS = [[0, 1, 2, 0, 1, 0, 1, 0]]
SEG_LABELS = [[-100, 827, 5, -100, 866, -100, 289, -100]]

FORMATS = {"I64": "<q", "I32": "<i", "I16": "<h", "I8": "<b", "U8": "<B", "BOOL": "<?", "F32": "<f"}


def flat(v):
    return [x for row in v for x in row] if v and isinstance(v[0], list) else list(v)


def shape(v):
    return [len(v), len(v[0])] if v and isinstance(v[0], list) else [len(v)]


def pack(dtype, values):
    f = FORMATS[dtype]
    return b"".join(struct.pack(f, (float(x) if dtype == "F32" else (bool(x) if dtype == "BOOL" else x))) for x in values)


def safetensors_bytes(tensors, metadata=None, tamper=None):
    """tensors: list of (name, dtype, nested list). tamper(header_dict, data) may break things."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    data = b""
    for name, dtype, value in tensors:
        raw = pack(dtype, flat(value))
        header[name] = {"dtype": dtype, "shape": shape(value), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if tamper:
        header, data = tamper(header, data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)  # the reference writer pads the header to 8 bytes
    return struct.pack("<Q", len(text)) + text + data


def write(name, blob):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(blob)


def main():
    os.makedirs(OUT, exist_ok=True)
    good = [("input_ids", "I64", INPUT_IDS), ("attention_mask", "I64", ATTENTION), ("labels", "I64", LABELS),
            ("position_ids", "I64", POSITIONS)]
    write("right_padded.safetensors", safetensors_bytes(good + [("pad_token_id", "I64", [0]), ("eos_token_id", "I64", [5])],
                                                        metadata={"format": "pt", "written_by": "make_fixtures.py"}))
    # Narrow integer dtypes: I32 ids, BOOL mask, I16 labels, U8 positions.
    write("narrow_dtypes.safetensors", safetensors_bytes([("input_ids", "I32", INPUT_IDS), ("attention_mask", "BOOL", ATTENTION),
                                                          ("labels", "I16", LABELS), ("position_ids", "U8", POSITIONS)]))
    write("padding_free.safetensors", safetensors_bytes([("input_ids", "I64", FLAT_IDS), ("labels", "I64", FLAT_LABELS),
                                                         ("position_ids", "I64", FLAT_POS)]))
    write("segment_ids.safetensors", safetensors_bytes([("input_ids", "I64", SEG_IDS), ("attention_mask", "I64", SEG_MASK),
                                                        ("labels", "I64", SEG_LABELS), ("position_ids", "I64", SEG_POS)]))

    # Broken on purpose, each for one rule of the format.
    blob = safetensors_bytes(good)
    write("bad_truncated.safetensors", blob[:-5])  # data section shorter than the offsets say
    write("bad_trailing.safetensors", blob + b"\0\0\0\0")  # bytes no tensor covers
    write("bad_header_too_large.safetensors", struct.pack("<Q", 200_000_000) + b"{}")
    write("bad_header_past_end.safetensors", struct.pack("<Q", 4096) + b'{"input_ids":{}}')
    write("bad_header_not_json.safetensors", struct.pack("<Q", 8) + b"{nope!!}")
    write("bad_short.safetensors", b"\x10\0\0")

    def overlap(h, d):
        h["labels"]["data_offsets"] = [h["labels"]["data_offsets"][0] - 8, h["labels"]["data_offsets"][1] - 8]
        return h, d

    write("bad_overlap.safetensors", safetensors_bytes(good, tamper=overlap))

    def lie(h, d):  # the shape promises 12 values, the offsets hold 6 x 8 bytes
        h["labels"]["shape"] = [2, 6]
        h["labels"]["dtype"] = "I64"
        h["input_ids"]["shape"] = [2, 3]
        return h, d

    write("bad_size_lie.safetensors", safetensors_bytes(good, tamper=lie))
    write("bad_float_ids.safetensors", safetensors_bytes([("input_ids", "F32", INPUT_IDS), ("attention_mask", "I64", ATTENTION),
                                                          ("labels", "I64", LABELS)]))
    write("bad_shape_mismatch.safetensors", safetensors_bytes([("input_ids", "I64", INPUT_IDS), ("attention_mask", "I64", ATTENTION),
                                                               ("labels", "I64", [row[:5] for row in LABELS])]))

    def unknown_dtype(h, d):
        h["labels"]["dtype"] = "I128"
        return h, d

    write("bad_unknown_dtype.safetensors", safetensors_bytes(good, tamper=unknown_dtype))

    # JSON dumps.
    with open(os.path.join(OUT, "segment_ids.json"), "w") as f:
        json.dump({"input_ids": SEG_IDS, "attention_mask": SEG_MASK, "labels": SEG_LABELS, "pad_token_id": 0}, f)
        f.write("\n")
    with open(os.path.join(OUT, "padding_free.json"), "w") as f:
        json.dump({"input_ids": FLAT_IDS, "labels": FLAT_LABELS, "position_ids": FLAT_POS}, f)
        f.write("\n")

    # torch.save(dict), as a user's training loop would dump a batch.
    import torch
    batch = {"input_ids": torch.tensor(INPUT_IDS), "attention_mask": torch.tensor(ATTENTION),
             "labels": torch.tensor(LABELS), "position_ids": torch.tensor(POSITIONS, dtype=torch.int32),
             "pad_token_id": 0}
    torch.save(batch, os.path.join(OUT, "right_padded.pt"))


if __name__ == "__main__":
    main()
