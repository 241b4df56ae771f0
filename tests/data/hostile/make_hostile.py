#!/usr/bin/env python3
# Writes the hostile inputs of tests/hostile (run from this folder; the outputs are committed).
# Each file is something a stranger could hand maskscope: JSON nested 100k deep in every place the
# program reads JSON, a template whose filter chain is 100k long, a 10 MB single line, invalid UTF-8
# and NUL bytes. The cases each file is run with are in cases.txt.
import json
import os
import struct

DEEP = 100_000
deep = '[' * DEEP + ']' * DEEP


def write(name, data):
    os.makedirs(os.path.dirname(name) or '.', exist_ok=True)
    with open(name, 'wb') as f:
        f.write(data.encode() if isinstance(data, str) else data)


# Datasets: each row shape with a value nested too deep.
write('deep_messages.jsonl', '{"messages": ' + deep + '}\n')
write('deep_prompt.jsonl', '{"prompt": ' + deep + ', "completion": "x"}\n')
write('deep_completion.jsonl', '{"prompt": "x", "completion": ' + deep + '}\n')
write('deep_text.jsonl', '{"text": ' + deep + '}\n')
write('deep_list.json', '[{"messages": ' + deep + '}]\n')
# Batch dumps: a JSONL dump, a wrapped 1-D dump, a plain JSON dump.
write('deep_batch.jsonl', '{"input_ids": ' + deep + ', "labels": [1]}\n')
write('deep_wrapped_1d.json', '{"input_ids": [1, ' + deep + '], "labels": [1, 2]}\n')
write('deep_batch.json', '{"input_ids": [[1, 2]], "labels": [[1, 2]], "meta": ' + deep + '}\n')
# A safetensors header nested too deep (a valid length prefix, then the header).
header = ('{"__metadata__": ' + deep + '}').encode()
write('deep_header.safetensors', struct.pack('<Q', len(header)) + header)
# Tokenizer and template configuration, collator spec, messages file.
write('deep_tokenizer/tokenizer.json', '{"model": ' + deep + '}')
write('deep_tokenizer_config/tokenizer.json', json.dumps(
    {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}}))
write('deep_tokenizer_config/tokenizer_config.json', '{"chat_template": ' + deep + '}')
write('deep_collator.json', '{"preset": "default", "x": ' + deep + '}')
write('deep_messages_file.json', '{"messages": [{"role": "user", "content": ' + deep + '}]}')
# Templates: a 100k-long filter chain, attribute chain and operator chain, each within the size cap.
write('filter_chain.jinja', '{{ "x"' + '|lower' * DEEP + ' }}')
write('attribute_chain.jinja', '{{ x' + '.a' * DEEP + ' }}')
write('operator_chain.jinja', '{{ 1' + '+1' * DEEP + ' }}')
# A 10 MB single line that never closes its string.
# long_line.jsonl (one 10 MiB line with an unterminated string) is written by tests/hostile itself
# at start, so the repository does not carry 10 MB.
# Invalid UTF-8 in a message, NUL bytes inside a row.
write('invalid_utf8.jsonl', b'{"messages": [{"role": "user", "content": "caf\xc3\x28 \xff\xfe"}]}\n')
write('nul_bytes.jsonl', b'{"messages": [{"role": "user", "content": "a\x00b"}]}\x00\x00\n')
