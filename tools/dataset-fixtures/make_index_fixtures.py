#!/usr/bin/env python3
# Writes the offset-index fixtures under tests/data/dataset/index/ (tst_dataset_index): byte-level
# cases a text editor would normalise away (a UTF-8 byte-order mark, CRLF line ends, blank lines,
# a broken row, a row longer than the test's row cache, multi-byte text), in JSONL and a JSON list.
import json, os

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "..", "tests", "data", "dataset", "index")
os.makedirs(out, exist_ok=True)


def msgs(*pairs):
    return json.dumps({"messages": [{"role": r, "content": c} for r, c in pairs]}, ensure_ascii=False)


rows = [
    msgs(("system", "Be brief."), ("user", "Hello \u00e9t\u00e9 \u2603"), ("assistant", "Hi.")),
    "",  # blank line
    "   ",  # blank line of spaces
    '{"messages": [{"role": "user", "content": "unterminated"}',  # broken JSON
    json.dumps({"prompt": "2+2=", "completion": "4"}),
    msgs(("user", "long " + "x" * 3000), ("assistant", "ok"), ("tool", "t")),
    '{"neither": 1}',  # no known shape
    msgs(("user", "last row, no newline after it"), ("assistant", "done")),
]
with open(os.path.join(out, "bom_crlf.jsonl"), "wb") as f:
    f.write(b"\xef\xbb\xbf" + "\r\n".join(rows).encode("utf-8"))

with open(os.path.join(out, "blank_lines.jsonl"), "wb") as f:
    f.write(("\n\n" + "\n\n".join(r for r in rows if r.strip()) + "\n\n").encode("utf-8"))



def parses(r):
    try:
        json.loads(r)
        return True
    except ValueError:
        return False


items = [json.loads(r) for r in rows if parses(r)]  # the shapeless row stays: the list reports it
with open(os.path.join(out, "list.json"), "wb") as f:
    f.write(b"\xef\xbb\xbf[\r\n  " + b",\r\n  ".join(json.dumps(i, ensure_ascii=False).encode("utf-8") for i in items)
            + b"\r\n]\r\n")

# Escapes (tst_dataset_browser): a \u escape hides the text from the row's bytes, so a search must
# parse such rows; "caf\u00e9" written escaped and unescaped, and a quote and a slash escaped.
escaped = [
    json.dumps({"messages": [{"role": "user", "content": "caf\u00e9 au lait"}, {"role": "assistant", "content": "ok"}]}),
    json.dumps({"messages": [{"role": "user", "content": "say \"a/b\"\tnow"}, {"role": "assistant", "content": "ok"}]}),
    json.dumps({"prompt": "un caf\u00e9", "completion": "noir"}, ensure_ascii=False),
]
with open(os.path.join(out, "escapes.jsonl"), "wb") as f:
    f.write(("\n".join(escaped) + "\n").encode("utf-8"))
