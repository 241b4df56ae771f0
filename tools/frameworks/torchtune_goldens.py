#!/usr/bin/python3
"""Goldens for maskscope's torchtune reproduction (tests/frameworks/tst_upstream_cases.cpp).

Each case replays one of torchtune's own published unit tests (github.com/pytorch/torchtune at
bd2a0fc, version.txt 0.7.0): tests/torchtune/data/test_collate.py (padded_collate_sft,
padded_collate_packed) and tests/torchtune/datasets/test_packed_dataset.py (PackedDataset), with the
test's own inputs as pre-tokenized rows and its own expectations. The packed-dataset tests compute
their expectations with helper functions (_calculate_num_packs, _get_expected_seq_lens_and_input_pos,
the last-index arithmetic); the same arithmetic is written out below. Nothing here runs maskscope.

Run from the repository root: /usr/bin/python3 tools/frameworks/torchtune_goldens.py
"""
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "data", "frameworks", "torchtune")
SOURCE = "torchtune 0.7.0 (bd2a0fc)"
IGNORE = -100


def write_rows(name, rows):
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    return name


def collate_cases():
    cases = []
    rows = write_rows("sft_batch.jsonl", [{"tokens": [1, 2, 3], "labels": [4, 5, 6]}, {"tokens": [7], "labels": [10]}])
    p, i = -8, -9
    spec = {"framework": "torchtune", "collator": "padded_collate_sft", "padding_idx": p, "ignore_idx": i}
    cases.append({"name": "test_batch_pad_sequence", "cites": "tests/torchtune/data/test_collate.py::"
                  "TestPaddedCollateSFT::test_batch_pad_sequence", "spec": spec, "data": rows, "stage": "batch",
                  "expect": {"tokens": [[1, 2, 3], [7, p, p]], "labels": [[4, 5, 6], [10, i, i]]}})
    cases.append({"name": "test_batch_pad_sequence_to_multiple_of", "cites": "tests/torchtune/data/test_collate.py::"
                  "TestPaddedCollateSFT::test_batch_pad_sequence_to_multiple_of",
                  "spec": dict(spec, pad_to_multiple_of=5), "data": rows, "stage": "batch",
                  "expect": {"tokens": [[1, 2, 3, p, p], [7, p, p, p, p]],
                             "labels": [[4, 5, 6, i, i], [10, i, i, i, i]]}})
    rows = write_rows("packed_batch.jsonl", [
        {"tokens": [1, 2, 3, 4, 5, 6], "labels": [7, 8, 9, 10, 11, 12], "input_pos": [0, 1, 2, 0, 1, 0],
         "seq_lens": [3, 2, 1]},
        {"tokens": [13, 14, 15, 16, 17, 18], "labels": [19, 20, 21, 22, 23, 24], "input_pos": [0, 1, 0, 1, 0, 1],
         "seq_lens": [2, 2, 2]}])
    t, f = True, False
    mask = [[[t, f, f, f, f, f], [t, t, f, f, f, f], [t, t, t, f, f, f],
             [f, f, f, t, f, f], [f, f, f, t, t, f], [f, f, f, f, f, t]],
            [[t, f, f, f, f, f], [t, t, f, f, f, f], [f, f, t, f, f, f],
             [f, f, t, t, f, f], [f, f, f, f, t, f], [f, f, f, f, t, t]]]
    cases.append({"name": "test_padded_collate_packed_sdpa", "cites": "tests/torchtune/data/test_collate.py::"
                  "TestPaddedCollatePacked::test_padded_collate_packed_sdpa",
                  "spec": {"framework": "torchtune", "collator": "padded_collate_packed"}, "data": rows,
                  "stage": "batch",
                  "expect": {"tokens": [[1, 2, 3, 4, 5, 6], [13, 14, 15, 16, 17, 18]],
                             "labels": [[7, 8, 9, 10, 11, 12], [19, 20, 21, 22, 23, 24]],
                             "input_pos": [[0, 1, 2, 0, 1, 0], [0, 1, 0, 1, 0, 1]], "mask": mask}})
    return cases


def dummy_rows(sample_size):
    """DummyDataset: 1000 samples, tokens [index] * size, labels [index] * (size - 1) + [-100]."""
    return [{"tokens": [k] * sample_size, "labels": [k] * (sample_size - 1) + [IGNORE]} for k in range(1000)]


def expected_num_packs(dataset_size, max_seq_len, sample_size, split, max_packs):
    per_pack, remainder = divmod(max_seq_len, sample_size)
    if split and remainder > 0:
        per_pack = max_seq_len / sample_size
    packs, remainder = divmod(dataset_size, per_pack)
    if remainder > 0:
        packs += 1
    return int(packs if packs < max_packs else max_packs)


def expected_first_pack(max_seq_len, sample_size, split):
    samples, remainder = divmod(max_seq_len, sample_size)
    seq_lens = [sample_size] * samples
    if split and remainder > 0:
        samples += 1
    input_pos = [p for _ in range(samples) for p in range(sample_size)]
    if remainder > 0:
        if not split:
            input_pos.extend(range(sample_size, sample_size + remainder))
        seq_lens.append(remainder)
    return seq_lens, input_pos[:max_seq_len]


def packing_cases():
    cases = []
    for size in (2, 5):
        rows = write_rows(f"dummy_{size}.jsonl", dummy_rows(size))
        for max_packs in (5, 200):
            for split in (True, False):
                max_seq_len = 25
                count = expected_num_packs(1000, max_seq_len, size, split, max_packs)
                if split:
                    last, rem = divmod(count * max_seq_len, size)
                    last = last if rem > 0 else last - 1
                else:
                    last = (max_seq_len // size) * count - 1 if max_seq_len % size == 0 else 0
                seq_lens, input_pos = expected_first_pack(max_seq_len, size, split)
                cases.append({
                    "name": f"test_packed_dataset[{split}-{max_packs}-{size}-25]",
                    "cites": "tests/torchtune/datasets/test_packed_dataset.py::TestPackedDataset::test_packed_dataset "
                    f"(max_seq_len=25, sample_size={size}, max_packs={max_packs}, split_across_pack={split})",
                    "spec": {"framework": "torchtune", "collator": "padded_collate_packed", "max_seq_len": max_seq_len,
                             "max_packs": max_packs, "split_across_pack": split},
                    "data": rows, "stage": "prepared",
                    "expect": {"rows": count, "same_length": ["tokens", "labels", "input_pos"],
                               "values": [{"row": 0, "key": "seq_lens", "equals": seq_lens},
                                          {"row": 0, "key": "input_pos", "equals": input_pos},
                                          {"row": -1, "key": "tokens", "at": -1, "equals": last}]}})
    for size in (14, 27, 40):
        rows = write_rows(f"dummy_{size}.jsonl", dummy_rows(size))
        for max_packs in (5, 200, 3100):
            count = expected_num_packs(1000, 13, size, True, max_packs)
            cases.append({
                "name": f"test_chunked_case[True-{max_packs}-{size}-13]",
                "cites": "tests/torchtune/datasets/test_packed_dataset.py::TestPackedDataset::test_chunked_case "
                f"(max_seq_len=13, sample_size={size}, max_packs={max_packs}, split_across_pack=True)",
                "spec": {"framework": "torchtune", "collator": "padded_collate_packed", "max_seq_len": 13,
                         "max_packs": max_packs, "split_across_pack": True},
                "data": rows, "stage": "prepared",
                "expect": {"rows": count, "same_length": ["tokens", "labels", "input_pos"], "seq_lens_sum": 13}})
    rows = write_rows("dummy_8.jsonl", dummy_rows(8)[:4])
    cases.append({"name": "test_pack_errors_if_sample_too_long",
                  "cites": "tests/torchtune/datasets/test_packed_dataset.py::TestPackedDataset::"
                  "test_pack_errors_if_sample_too_long",
                  "spec": {"framework": "torchtune", "collator": "padded_collate_packed", "max_seq_len": 4},
                  "data": rows, "stage": "prepared", "expect": {"error": "Dataset sample is too long"}})
    # DummyTokenizer (tests/test_utils.py): bos 0, eos -1, each word -> its length; labels = tokens[1:] + [-100].
    texts = ["This is a packing test", "A fantastic test. It should pack two samples.",
             "This one will not be fully packed."]
    real = []
    for text in texts:
        tokens = [0] + [len(w) for w in text.split()] + [-1]
        real.append({"tokens": tokens, "labels": tokens[1:] + [IGNORE]})
    rows = write_rows("real_data.jsonl", real)
    cases.append({"name": "test_packed_dataset_real_data",
                  "cites": "tests/torchtune/datasets/test_packed_dataset.py::TestPackedDataset::"
                  "test_packed_dataset_real_data",
                  "spec": {"framework": "torchtune", "collator": "padded_collate_packed", "max_seq_len": 10,
                           "split_across_pack": True},
                  "data": rows, "stage": "prepared",
                  "expect": {"rows": 3, "values": [
                      {"row": 0, "key": "tokens", "equals": [0, 4, 2, 1, 7, 4, -1, 0, 1, 9]},
                      {"row": 1, "key": "tokens", "equals": [5, 2, 6, 4, 3, 8, -1, 0, 4, 3]},
                      {"row": 2, "key": "tokens", "equals": [4, 3, 2, 5, 7, -1, 0, 0, 0, 0]},
                      {"row": 0, "key": "labels", "equals": [4, 2, 1, 7, 4, -1, -100, 1, 9, 5]},
                      {"row": 1, "key": "labels", "equals": [2, 6, 4, 3, 8, -1, -100, 4, 3, 4]},
                      {"row": 2, "key": "labels", "equals": [3, 2, 5, 7, -1, -100, -100, -100, -100, -100]},
                      {"row": 0, "key": "seq_lens", "equals": [7, 3]},
                      {"row": 1, "key": "seq_lens", "equals": [7, 3]},
                      {"row": 2, "key": "seq_lens", "equals": [6, 4]},
                      {"row": 0, "key": "input_pos", "equals": [0, 1, 2, 3, 4, 5, 6, 0, 1, 2]},
                      {"row": 1, "key": "input_pos", "equals": [3, 4, 5, 6, 7, 8, 9, 0, 1, 2]},
                      {"row": 2, "key": "input_pos", "equals": [3, 4, 5, 6, 7, 8, 9, 9, 9, 9]}]}})
    return cases


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = collate_cases() + packing_cases()
    for c in cases:
        c["cites"] = SOURCE + ": " + c["cites"]
    with open(os.path.join(OUT, "cases.json"), "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")  # a case a line
    print(f"wrote {len(cases)} cases to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
