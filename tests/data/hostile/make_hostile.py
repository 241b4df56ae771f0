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

# ---------------------------------------------------------------------------------------------
# The rest of the corpus (issue 16): every row shape, templates that try to exhaust time or
# memory, tokenizers, safetensors files that lie, batch dumps of the wrong types, model folders of
# absurd sizes. 100 MB single lines are written by tests/hostile at start (not committed).
deep_obj = '{"":' * DEEP + '1' + '}' * DEEP
TEMPLATE_DEEP = 20_000  # template nesting: deep enough for any recursion, inside the 1 MiB source cap

# Datasets: the other row shapes (preference, ShareGPT, Alpaca, content parts, tools), objects
# nested deep, wrong types in every shape, broken files.
write('deep_chosen.jsonl', '{"prompt": "x", "chosen": ' + deep + ', "rejected": "y"}\n')
write('deep_rejected.jsonl', '{"prompt": [{"role": "user", "content": "x"}], "chosen": [], "rejected": ' + deep + '}\n')
write('deep_conversations.jsonl', '{"conversations": ' + deep + '}\n')
write('deep_alpaca.jsonl', '{"instruction": ' + deep + ', "output": "x"}\n')
write('deep_content_parts.jsonl', '{"messages": [{"role": "user", "content": [{"type": "text", "text": ' + deep + '}]}]}\n')
write('deep_tools.jsonl', '{"messages": [{"role": "user", "content": "x"}], "tools": ' + deep_obj + '}\n')
write('deep_object.jsonl', deep_obj + '\n')
write('wrong_types.jsonl', '\n'.join([
    '{"messages": 5}', '{"messages": [1, 2]}', '{"messages": [{"role": 7, "content": "x"}]}',
    '{"messages": [{"role": "user", "content": {"a": 1}}]}', '{"prompt": 1, "completion": null}',
    '{"prompt": [1], "completion": [{"role": "assistant"}]}', '{"text": {"a": 1}}', '{"text": null}',
    '{"conversations": [{"from": 1, "value": []}]}', '{"instruction": [], "output": 3}',
    '{"prompt": "x", "chosen": 1, "rejected": 2}', '[]', '"just a string"', 'null', '1e999999']) + '\n')
write('preference_only.jsonl', '{"chosen": [{"role": "user", "content": "a"}], "rejected": 7}\n' * 3)
write('huge_number.jsonl', '{"messages": [{"role": "user", "content": "x"}], "n": 1' + '0' * 100000 + '}\n'
      '{"messages": [{"role": "user", "content": -1e999999}]}\n')
write('lone_surrogate.jsonl', '{"messages": [{"role": "user", "content": "\\ud800 and \\udc00\\ud800"}]}\n')
write('overlong_utf8.jsonl', b'{"messages": [{"role": "\xc0\xaf\xe0\x80\xaf", "content": "\xed\xa0\x80"}]}\n')
write('empty.jsonl', '')
write('blank_lines.jsonl', '\n   \n\t\n' * 1000)
write('bom_only.jsonl', b'\xef\xbb\xbf')
write('truncated_list.json', '[{"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": ')
write('many_bad_rows.jsonl', '{"messages": [\n' * 20000)
write('duplicate_keys.jsonl', '{"messages": [], "messages": [], "messages": 1}\n')

# Templates: every sandbox limit (loops, output, recursion, nesting, includes), cycles, bad bytes.
write('range_huge.jinja', '{% for i in range(10**12) %}{{ i }}{% endfor %}')
write('range_huge_list.jinja', '{{ range(10**12)|list|length }}')
write('string_repeat.jinja', "{{ 'a' * 10**9 }}")
write('string_repeat_negative.jinja', "{{ 'ab' * -10**18 }}{{ 'a' * 10**18 }}")
write('list_repeat.jinja', "{{ ([1] * 10**9)|length }}")
write('replace_bomb.jinja', "{{ 'aaaaaaaa'" + "|replace('a', 'aaaaaaaa')" * 12 + " }}")
write('join_bomb.jinja', "{% set s = namespace(v='x') %}{% for i in range(64) %}{% set s.v = s.v ~ s.v %}{% endfor %}{{ s.v|length }}")
write('macro_recursion.jinja', '{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}')
write('macro_mutual.jinja', '{% macro a(n) %}{{ b(n) }}{% endmacro %}{% macro b(n) %}{{ a(n) }}{% endmacro %}{{ a(0) }}')
write('macro_fanout.jinja', '{% macro f(n) %}{% if n < 40 %}{{ f(n + 1) }}{{ f(n + 1) }}{% endif %}{% endmacro %}{{ f(0) }}')
write('include.jinja', "{% include '/etc/passwd' %}")
write('import.jinja', "{% import 'other.jinja' as o %}{{ o.x }}")
write('loop_bomb.jinja', '{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}x{% endfor %}{% endfor %}{% endfor %}')
write('nested_if.jinja', '{% if 1 %}' * TEMPLATE_DEEP + 'x' + '{% endif %}' * TEMPLATE_DEEP)
write('nested_for.jinja', '{% for x in [1] %}' * 150 + 'x' + '{% endfor %}' * 150)
write('nested_parens.jinja', '{{ ' + '(' * DEEP + '1' + ')' * DEEP + ' }}')
write('nested_list_literal.jinja', '{{ ' + '[' * DEEP + ']' * DEEP + ' }}')
write('nested_dict_literal.jinja', '{{ ' + '{"a": ' * TEMPLATE_DEEP + '1' + '}' * TEMPLATE_DEEP + ' }}')
write('power_huge.jinja', '{{ 10 ** 10 ** 10 }}')
write('cyclic_list.jinja', '{% set a = [] %}{% set _ = a.append(a) %}{{ a }}{{ a|tojson }}')
write('cyclic_dict.jinja', '{% set d = {} %}{% set _ = d.update({"self": d}) %}{{ d }}{{ d|tojson }}')
write('unterminated.jinja', '{% for m in messages %}{{ m.content ' + ' ~ m.role' * 1000)
write('invalid_utf8.jinja', b'{{ "caf\xc3\x28" }}\xff\xfe{% for m in messages %}{{ m.content }}{% endfor %}')
write('nul_bytes.jinja', b'{{ "a\x00b" }}\x00{% for m in messages %}{{ m.content }}{% endfor %}')
# too_large.jinja (2 MiB, over the 1 MiB template cap) is written by tests/hostile at start.
write('format_width.jinja', "{{ '%1000000000d'|format(1) }}{{ '{:>1000000000}'.format(1) }}")
write('center_width.jinja', "{{ 'x'|center(10**12) }}")
write('indent_width.jinja', "{{ ('a\\n' * 100000)|indent(10**6) }}")
write('tokenizer_config_template/tokenizer_config.json', json.dumps(
    {"chat_template": "{% for i in range(10**12) %}{{ i }}{% endfor %}", "eos_token": "</s>"}))

# tokenizer.json: huge ids, catastrophic and broken regexes, bad bytes, absurd merges.
bpe = {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}
def tokenizer(name, **over):
    t = {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": None,
         "post_processor": None, "decoder": None, "model": dict(bpe)}
    t.update(over)
    write(name, json.dumps(t))
tokenizer('huge_id_tokenizer/tokenizer.json', model=dict(bpe, vocab={"a": 0, "b": 2147483646}))
tokenizer('huge_added_id/tokenizer.json', added_tokens=[{"id": 4294967295, "content": "<x>", "special": True}])
tokenizer('negative_id/tokenizer.json', model=dict(bpe, vocab={"a": -5, "b": 1}))
tokenizer('catastrophic_regex/tokenizer.json', pre_tokenizer={
    "type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated", "invert": False})
tokenizer('catastrophic_regex2/tokenizer.json', pre_tokenizer={
    "type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(\\w+\\w+)+\\d"},
                                           "behavior": "Removed", "invert": False}]})
tokenizer('invalid_regex/tokenizer.json', pre_tokenizer={
    "type": "Split", "pattern": {"Regex": "(unclosed[" }, "behavior": "Isolated", "invert": False})
tokenizer('bad_merges/tokenizer.json', model=dict(bpe, merges=["a", "x y", 5, ["a"], ["a", "b", "c"]]))
tokenizer('unknown_model/tokenizer.json', model={"type": "Bogus"})
tokenizer('catastrophic_normalizer/tokenizer.json', normalizer={
    "type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Replace", "pattern": {"Regex": "(a|aa)+$"}, "content": "b"}]})
# A plain dataset whose text makes the patterns above backtrack (for collate and lint).
write('backtrack_text.jsonl', json.dumps({"messages": [{"role": "user", "content": "a" * 60 + "!"},
                                                      {"role": "assistant", "content": "a" * 60 + "!"}]}) + '\n')
write('invalid_utf8_tokenizer/tokenizer.json', b'{"model": {"type": "BPE", "vocab": {"\xff\xfe": 0}, "merges": []}}')
write('nul_tokenizer/tokenizer.json', b'{"model": {"type": "BPE", "vocab": {"a\x00": 0}, "merges": []}}\x00')
write('truncated_tokenizer/tokenizer.json', json.dumps({"model": bpe})[:30])
write('garbage.model', b'\x0a\xff\xff\xff\xff\x0f' + b'\x00' * 64)

# safetensors: length prefix lies, overlapping / out-of-file / mis-sized tensors, float ids.
def safetensors(name, header, data=b'', length=None):
    h = json.dumps(header).encode()
    write(name, struct.pack('<Q', len(h) if length is None else length) + h + data)
ids8 = struct.pack('<4q', 1, 2, 3, 4)
safetensors('header_length_lie.safetensors', {}, length=(1 << 63) + 5)
safetensors('header_length_past_end.safetensors', {"input_ids": {"dtype": "I64", "shape": [1, 4], "data_offsets": [0, 32]}}, ids8, length=4096)
safetensors('header_length_short.safetensors', {"input_ids": {"dtype": "I64", "shape": [1, 4], "data_offsets": [0, 32]}}, ids8, length=10)
safetensors('overlapping.safetensors', {
    "input_ids": {"dtype": "I64", "shape": [1, 4], "data_offsets": [0, 32]},
    "labels": {"dtype": "I64", "shape": [1, 4], "data_offsets": [8, 40]}}, ids8 + ids8[:8])
safetensors('offsets_out_of_file.safetensors', {
    "input_ids": {"dtype": "I64", "shape": [1, 4], "data_offsets": [0, 32]},
    "labels": {"dtype": "I64", "shape": [1, 4], "data_offsets": [32, 1 << 40]}}, ids8)
safetensors('dtype_shape_mismatch.safetensors', {
    "input_ids": {"dtype": "I64", "shape": [2, 4], "data_offsets": [0, 32]},
    "labels": {"dtype": "I32", "shape": [1, 4], "data_offsets": [32, 64]}}, ids8 * 2)
safetensors('shape_overflow.safetensors', {
    "input_ids": {"dtype": "I64", "shape": [1 << 40, 1 << 40], "data_offsets": [0, 32]},
    "labels": {"dtype": "I64", "shape": [1, 4], "data_offsets": [0, 32]}}, ids8)
safetensors('negative_shape.safetensors', {
    "input_ids": {"dtype": "I64", "shape": [-1, 4], "data_offsets": [0, 32]},
    "labels": {"dtype": "I64", "shape": [1, 4], "data_offsets": [0, 32]}}, ids8)
nan4 = struct.pack('<4f', float('nan'), float('inf'), float('-inf'), 1e30)
safetensors('float_ids_nan.safetensors', {
    "input_ids": {"dtype": "F32", "shape": [1, 4], "data_offsets": [0, 16]},
    "labels": {"dtype": "F32", "shape": [1, 4], "data_offsets": [16, 32]}}, nan4 + nan4)
safetensors('unknown_dtype.safetensors', {
    "input_ids": {"dtype": "Q4", "shape": [1, 4], "data_offsets": [0, 32]},
    "labels": {"dtype": "I64", "shape": [1, 4], "data_offsets": [0, 32]}}, ids8)
write('header_not_json.safetensors', struct.pack('<Q', 8) + b'\xff\xfe\x00{[}]"' + ids8)
write('tiny.safetensors', b'\x05\x00')

# Batch dumps: huge and negative ids, wrong types, ragged rows, lying cu_seq_lens, bad .pt files.
write('batch_huge_ids.json', '{"input_ids": [[1, 99999999999999999999, 3]], "labels": [[1, 2, 3]]}\n')
write('batch_float_ids.json', '{"input_ids": [[1.5, NaN, 3]], "labels": [[1, 2, 3]]}\n')
write('batch_negative_ids.json', '{"input_ids": [[-7, 2, 3]], "labels": [[1, 2, 3]]}\n')
write('batch_strings.json', '{"input_ids": ["a", "b"], "labels": [1, 2]}\n')
write('batch_ragged.json', '{"input_ids": [[1, 2, 3], [1]], "labels": [[1, 2, 3], [1]]}\n')
write('batch_shape_mismatch.jsonl', '{"input_ids": [1, 2, 3], "labels": [1, 2]}\n')
write('batch_cu_seqlens_lie.json', '{"input_ids": [[1, 2, 3, 4]], "labels": [[1, 2, 3, 4]], "cu_seq_lens_q": [0, 9, 2]}\n')
write('batch_empty_rows.jsonl', '{"input_ids": [], "labels": []}\n' * 3)
write('batch_wrapped_objects.json', '{"input_ids": [{"a": 1}], "labels": [[1]]}\n')
write('batch_jsonl_truncated.jsonl', '{"input_ids": [1, 2, 3], "labels": [1, 2, 3]}\n{"input_ids": [1, 2')
write('garbage.pt', b'PK\x03\x04' + b'\xff' * 200)
write('pickle_bomb.pt', b'\x80\x02cos\nsystem\nq\x00X\x06\x00\x00\x00whoamiq\x01\x85q\x02Rq\x03.')

# Model folders: absurd sizes, missing or mismatched weights, NaN weights, deep config.
def model(name, config, tensors=None):
    write(name + '/config.json', json.dumps(config))
    if tensors is None:
        return
    header, data = {}, b''
    for tname, (shape, values) in tensors.items():
        raw = struct.pack('<%df' % len(values), *values)
        header[tname] = {"dtype": "F32", "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header).encode()
    write(name + '/model.safetensors', struct.pack('<Q', len(h)) + h + data)
llama = {"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
         "num_key_value_heads": 2, "intermediate_size": 16, "vocab_size": 16, "rms_norm_eps": 1e-6,
         "tie_word_embeddings": True, "max_position_embeddings": 64}
def tiny_weights(fill):
    t = {"model.embed_tokens.weight": ([16, 8], [fill] * 128), "model.norm.weight": ([8], [1.0] * 8)}
    p = 'model.layers.0.'
    for n, s in [('self_attn.q_proj', [8, 8]), ('self_attn.k_proj', [8, 8]), ('self_attn.v_proj', [8, 8]),
                 ('self_attn.o_proj', [8, 8]), ('mlp.gate_proj', [16, 8]), ('mlp.up_proj', [16, 8]),
                 ('mlp.down_proj', [8, 16])]:
        t[p + n + '.weight'] = (s, [fill] * (s[0] * s[1]))
    t[p + 'input_layernorm.weight'] = ([8], [1.0] * 8)
    t[p + 'post_attention_layernorm.weight'] = ([8], [1.0] * 8)
    return t
model('model_hidden_1e9', dict(llama, hidden_size=1000000000), tiny_weights(0.01))
model('model_layers_1e6', dict(llama, num_hidden_layers=1000000), tiny_weights(0.01))
model('model_vocab_huge', dict(llama, vocab_size=4000000, hidden_size=65536, num_attention_heads=512,
                               num_key_value_heads=512, intermediate_size=65536), tiny_weights(0.01))
model('model_vocab_mismatch', dict(llama, vocab_size=32), tiny_weights(0.01))
model('model_missing_weights', llama)
model('model_nan_weights', llama, tiny_weights(float('nan')))
model('model_inf_weights', llama, tiny_weights(float('inf')))
model('model_float_sizes', dict(llama, hidden_size=1e9, num_hidden_layers=1.5), tiny_weights(0.01))
model('model_unknown_type', dict(llama, model_type="gpt-evil"), tiny_weights(0.01))
write('model_deep_config/config.json', '{"model_type": "llama", "x": ' + deep + '}')
write('model_bad_index/config.json', json.dumps(llama))
write('model_bad_index/model.safetensors.index.json', json.dumps(
    {"weight_map": {"model.embed_tokens.weight": "../../../../etc/passwd", "model.norm.weight": "missing.safetensors"}}))
# A well-formed batch within the tiny model folders' 16-token vocabulary, for the NaN/Inf weights.
write('small_vocab_batch.json', '{"input_ids": [[1, 2, 3, 4]], "labels": [[1, 2, 3, 4]], "attention_mask": [[1, 1, 1, 1]]}\n')
# The conversation the template cases render (render --messages).
write('chat.json', json.dumps([{"role": "user", "content": "What does padding do?"},
                               {"role": "assistant", "content": "It makes rows the same length."}]) + '\n')
# Framework config files (YAML, read through yaml-cpp): a "billion laughs" Axolotl config whose
# aliases expand to 10^9 strings, flow lists nested 100k deep, block mappings nested 300 deep
# (yaml-cpp recurses once per level; the depth is bounded before it parses), and an alias cycle.
laughs = ['base_model: x', 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
for i in range(1, 9):
    laughs.append(f'a{i}: &a{i} [' + ', '.join([f'*a{i - 1}'] * 10) + ']')
laughs.append('datasets:\n  - path: data.jsonl\n    type: chat_template\n    roles_to_train: *a8')
write('yaml_billion_laughs.yml', '\n'.join(laughs) + '\n')
write('yaml_deep_flow.yml', 'base_model: x\ndatasets: ' + deep + '\n')
write('yaml_deep_block.yaml', ''.join(' ' * i + f'k{i}:\n' for i in range(300)))
write('yaml_alias_cycle.yml', 'base_model: x\ndatasets: &d [*d]\n')
