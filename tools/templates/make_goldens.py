#!/usr/bin/python3
"""Golden generator for maskscope's Jinja engine. Renders chat templates and construct snippets with
Python jinja2 configured as transformers configures it (ImmutableSandboxedEnvironment, trim_blocks,
lstrip_blocks, loopcontrols, an AssistantTracker-style {% generation %} extension, its tojson
override, raise_exception, strftime_now pinned to 2024-07-26) and writes the results as JSON with
generation spans converted to UTF-8 byte offsets.
Run with Debian's python (python3-jinja2) from the repository root:
    /usr/bin/python3 tools/templates/make_goldens.py"""
import json
import os
from datetime import datetime

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NOW = datetime(2024, 7, 26)


class AssistantTracker(Extension):
    """What transformers' AssistantTracker records: (start, end) of each generation block's output."""
    tags = {"generation"}

    def __init__(self, environment):
        super().__init__(environment)
        self._rendered_blocks = None
        self._generation_indices = None

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

    @jinja2.pass_eval_context
    def _generation_support(self, context, caller):
        rv = caller()
        if self._rendered_blocks is not None:
            start = len("".join(self._rendered_blocks))
            self._generation_indices.append((start, start + len(rv)))
        return rv


def make_env():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[AssistantTracker, loopcontrols])

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def strftime_now(fmt):
        return NOW.strftime(fmt)

    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def render(env, source, variables):
    tracker = next(e for e in env.extensions.values() if isinstance(e, AssistantTracker))
    try:
        tmpl = env.from_string(source)
    except jinja2.TemplateSyntaxError as e:
        return {"error": "TemplateSyntaxError: " + str(e)}
    blocks = []
    tracker._rendered_blocks = blocks
    tracker._generation_indices = []
    try:
        for chunk in tmpl.generate(**variables):
            blocks.append(chunk)
    except jinja2.TemplateError as e:
        return {"error": type(e).__name__ + ": " + str(e)}
    except Exception as e:  # TypeError, OverflowError, ...
        return {"error": type(e).__name__ + ": " + str(e)}
    finally:
        tracker._rendered_blocks = None
    text = "".join(blocks)
    byte = lambda i: len(text[:i].encode("utf-8"))
    spans = [[byte(b), byte(e)] for b, e in tracker._generation_indices]
    return {"text": text, "spans": spans}


# Special tokens per template family (what the built-in loader uses without a tokenizer).
TOKENS = {
    "chatml": {"bos_token": "<s>", "eos_token": "<|im_end|>", "pad_token": "<pad>", "unk_token": "<unk>"},
    "llama2": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    "llama3": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "llama3.2": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "mistral": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    "mistral-v0.3": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    "gemma": {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>", "unk_token": "<unk>"},
    "phi3": {"bos_token": "<s>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>", "unk_token": "<unk>"},
    "zephyr": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    "qwen2.5": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
}

TEMPLATES = []
for fam in ["chatml", "llama2", "llama3", "mistral", "mistral-v0.3", "gemma", "phi3", "zephyr", "qwen2.5"]:
    TEMPLATES.append((fam, "resources/templates/%s.jinja" % fam, TOKENS[fam]))
    TEMPLATES.append((fam + "-assistant-mask", "resources/templates/%s-assistant-mask.jinja" % fam, TOKENS[fam]))
TEMPLATES.append(("llama3.2", "tests/data/templates/llama3.2.jinja", TOKENS["llama3.2"]))

U, A, S = "user", "assistant", "system"
def m(role, content):
    return {"role": role, "content": content}

CONVERSATIONS = {
    "single_turn": [m(U, "Hello!"), m(A, "Hi, how can I help?")],
    "system_multi_turn": [m(S, "You are terse."), m(U, "What is 2+2?"), m(A, "4."), m(U, "And 3+3?"), m(A, "6.")],
    "no_system_open_question": [m(U, "First?"), m(A, "One."), m(U, "Second?"), m(A, "Two."), m(U, "Third?")],
    "unicode": [m(U, "Grüße, 你好, مرحبا 👋🏽 — ok?"), m(A, "Ça va ✓ — ñandú, 日本語, 🎉")],
    "whitespace_edges": [m(U, "  padded question \n\n"), m(A, "\n  answer with spaces  \t\n")],
    "empty_reply": [m(U, "Say nothing."), m(A, "")],
    "special_chars": [m(U, "Quote ' and \" and \\ backslash {{ braces }} {% tag %} <|im_end|> </s>"), m(A, "Literal {# not a comment #} & <b>html</b>")],
    "consecutive_users": [m(U, "one"), m(U, "two"), m(A, "three")],
    "system_only_user": [m(S, "System rules."), m(U, "Question without answer yet")],
}


def construct_cases():
    """Small templates exercising one construct each: (name, template, variables)."""
    msgs = [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    C = [
        ("text_only", "plain text", {}),
        ("print_var", "{{ x }}", {"x": "v"}),
        ("print_int_float_bool_none", "{{ 1 }} {{ 1.0 }} {{ 2.5e-5 }} {{ 1e16 }} {{ true }} {{ none }} {{ 0.1 + 0.2 }}", {}),
        ("print_list_dict_repr", "{{ [1, 'a', none, true, 1.5, ('t',), {'k': \"it's\"}] }}", {}),
        ("undefined_prints_empty", "[{{ nope }}]", {}),
        ("comment", "a{# c #}b", {}),
        ("whitespace_dash", "a  {{- 'b' -}}  c", {}),
        ("trim_blocks", "{% if true %}\nx\n{% endif %}\ny", {}),
        ("lstrip_blocks", "  {% if true %}\n  x\n  {% endif %}\n", {}),
        ("lstrip_not_var", "  {{ 'x' }}\n", {}),
        ("plus_disables_lstrip", "  {%+ if true %}x{% endif %}", {}),
        ("trailing_newline_dropped", "x\n", {}),
        ("for_loop_vars", "{% for i in [10, 20, 30] %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %}", {}),
        ("for_previtem_nextitem", "{% for i in [1, 2, 3] %}{{ loop.previtem }}-{{ loop.nextitem }},{% endfor %}", {}),
        ("for_filtered", "{% for m in messages if m.role != 'system' %}{{ loop.index }}:{{ m.content }}/{{ loop.length }} {% endfor %}", {"messages": msgs}),
        ("for_else", "{% for x in [] %}{{ x }}{% else %}empty{% endfor %}", {}),
        ("for_unpack_items", "{% for k, v in {'a': 1, 'b': 2}|items %}{{ k }}={{ v }};{% endfor %}", {}),
        ("for_dict_items_method", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", {"d": {"z": 1, "a": [1]}}),
        ("for_scope_per_iteration", "{% set x = 0 %}{% for i in range(3) %}{% if i == 1 %}{% set x = 5 %}{% endif %}{{ x }}{% endfor %}{{ x }}", {}),
        ("break_continue", "{% for i in range(10) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 5 %}{% break %}{% endif %}{{ i }}{% endfor %}", {}),
        ("if_elif_else", "{% for v in [1, 2, 3] %}{% if v == 1 %}a{% elif v == 2 %}b{% else %}c{% endif %}{% endfor %}", {}),
        ("set_block", "{% set s %}inner {{ 1 + 1 }}{% endset %}[{{ s }}]", {}),
        ("namespace", "{% set ns = namespace(n=0, seen=false) %}{% for i in range(4) %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }} {{ ns.seen }}", {}),
        ("macro_defaults_kwargs", "{% macro f(a, b='B') %}<{{ a }}|{{ b }}>{% endmacro %}{{ f(1) }}{{ f(2, b=3) }}{{ f(a=4) }}", {}),
        ("macro_sees_toplevel_at_call", "{% macro m(a) %}[{{ a }}{{ y }}]{% endmacro %}{% set y = 1 %}{{ m(2) }}{% set y = 3 %}{{ m(4) }}", {}),
        ("call_block", "{% macro wrap() %}({{ caller() }}){% endmacro %}{% call wrap() %}inside{% endcall %}", {}),
        ("arithmetic", "{{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 4 / 2 }} {{ 2 ** 10 }} {{ 'ab' * 2 }} {{ 1 + 2 * 3 - 4 }} {{ 1 ~ 2 ~ 'x' }}", {}),
        ("comparisons", "{{ 1 < 2 }} {{ 'a' < 'b' }} {{ 1 == 1.0 }} {{ [1, 2] == [1, 2] }} {{ 1 != 2 }} {{ 3 >= 3 }} {{ 1 < 2 < 3 }}", {}),
        ("logic", "{{ true and 'x' }} {{ false or 'y' }} {{ not none }} {{ none or [] }}", {}),
        ("in_operator", "{{ 'a' in 'cab' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 'z' not in 'abc' }} {{ 'tool_calls' in m }}", {"m": {"role": "user"}}),
        ("inline_if", "{{ 'yes' if 1 else 'no' }} [{{ 'x' if false }}]", {}),
        ("subscript_slice", "{{ 'hello'[1:3] }} {{ 'hello'[::-1] }} {{ [1, 2, 3, 4][1:] }} {{ [1, 2, 3][-1] }} {{ 'héllo'[1:3] }} {{ [1, 2, 3, 4, 5][::2] }}", {}),
        ("messages_slice", "{% for m in messages[1:] %}{{ m['role'] }},{% endfor %}{{ messages[-1].content }}", {"messages": msgs}),
        ("attr_vs_item", "{{ d.a }} {{ d['a'] }} {{ d.missing }} {{ d.get('missing', 'dflt') }} {{ d.get('a') }}", {"d": {"a": 1}}),
        ("tests", "{{ x is defined }} {{ y is undefined }} {{ none is none }} {{ 's' is string }} {{ {} is mapping }} {{ [] is iterable }} {{ 's' is sequence }} {{ 1 is number }} {{ 1 is integer }} {{ 1.0 is float }} {{ true is boolean }} {{ true is true }} {{ false is false }} {{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby 3 }} {{ 'a' is equalto 'a' }} {{ 1 is not none }}", {"x": 1}),
        ("filters_string", "{{ '  x  '|trim }}|{{ 'xxaxx'|trim('x') }}|{{ 'Ab'|upper }}|{{ 'Ab'|lower }}|{{ 'hello world'|capitalize }}|{{ 'hello wORLD-foo'|title }}|{{ 'a-b-c'|replace('-', '+') }}|{{ '<&>'|e }}|{{ 3|string }}", {}),
        ("filters_list", "{{ [3, 1, 2]|length }} {{ [3, 1, 2]|first }} {{ [3, 1, 2]|last }} {{ [3, 1, 2]|sort }} {{ [3, 1, 2]|join(',') }} {{ [1, 2]|reverse|list }} {{ ['B', 'a', 'b']|unique|list }} {{ [1, 2, 3]|sum }} {{ [1, 5, 2]|max }} {{ [1, 5, 2]|min }}", {}),
        ("filters_select_map", "{{ messages|selectattr('role', 'equalto', 'user')|list|length }} {{ messages|rejectattr('role', 'equalto', 'user')|map(attribute='content')|join('+') }} {{ [1, 2, 3, 4]|select('odd')|list }} {{ [1, 2, 3, 4]|reject('even')|list }} {{ ['a', 'b']|map('upper')|list }} {{ messages|map(attribute='role')|list }}", {"messages": msgs}),
        ("filters_default", "{{ nope|default('d') }} {{ ''|default('e', true) }} {{ none|default('n') }} {{ nope|d('dd') }}", {}),
        ("filters_numbers", "{{ 3|round }} {{ 2.567|round(2) }} {{ '12'|int + 1 }} {{ 'x'|int }} {{ 1.9|int }} {{ '3.5'|float }} {{ -3|abs }} {{ 2.5|round }} {{ 3.7|round(0, 'floor') }}", {}),
        ("filter_dictsort_items", "{{ {'b': 1, 'a': 2}|dictsort }} {{ {'b': 1}|items|list }}", {}),
        ("filter_indent", "{{ 'a\nb\n\nc'|indent(2) }}|{{ 'a\nb'|indent(2, true) }}", {}),
        ("tojson", "{{ d|tojson }} {{ [1, 2]|tojson(indent=2) }} {{ {}|tojson(indent=2) }} {{ 'é\"\\n'|tojson }} {{ 1.0|tojson }}", {"d": {"b": 1.5, "a": [1, "x\"y", None, True], "u": "ünï", "n": {"k": []}}}),
        ("tojson_indent_nested", "{{ d|tojson(indent=4) }}", {"d": {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}}}),
        ("string_methods", "{{ '  a b  '.strip() }}|{{ 'xxhixx'.strip('x') }}|{{ '  a'.lstrip() }}|{{ 'a  '.rstrip() }}|{{ 'a,b,,c'.split(',') }}|{{ ' a  b '.split() }}|{{ 'a-b-c'.split('-', 1) }}|{{ 'abc'.startswith('a') }}|{{ 'abc'.endswith(('x', 'c')) }}|{{ 'aXa'.replace('a', 'b') }}|{{ 'Ab'.upper() }}{{ 'Ab'.lower() }}|{{ 'hello world'.title() }}|{{ 'abc'.find('c') }}|{{ 'aaa'.count('a') }}|{{ ', '.join(['x', 'y']) }}", {}),
        ("unicode_methods", "{{ 'héllo wörld'|upper }} {{ 'ÀÉÎ'|lower }} {{ '日本語'|length }} {{ '日本語'[1] }} {{ ' ü '|trim }}", {}),
        ("dict_literal_and_dict_global", "{% set d = {'a': 1, 'b': [1, 2]} %}{{ d }} {{ dict(x=1, y='z') }}", {}),
        ("range_variants", "{{ range(3)|list }} {{ range(1, 7, 2)|list }} {{ range(5, 0, -2)|list }}", {}),
        ("raise_exception", "{{ raise_exception('Bad roles: ' ~ 3) }}", {}),
        ("strftime_now", "{{ strftime_now('%d %b %Y') }} | {{ strftime_now('%Y-%m-%d %A %B %j') }}", {}),
        ("generation_spans", "a{% generation %}bé{{ x }}{% endgeneration %}c{% generation %}{% endgeneration %}d", {"x": "🎉"}),
        ("generation_in_loop", "{% for m in messages %}<{{ m.role }}>{% if m.role == 'assistant' %}{% generation %}{{ m.content }}</s>{% endgeneration %}{% else %}{{ m.content }}{% endif %}\n{% endfor %}", {"messages": msgs}),
        ("raw_block", "{% raw %}{{ not evaluated }}{% endraw %}", {}),
        ("filter_block", "{% filter upper %}shout {{ 'it' }}{% endfilter %}", {}),
        ("string_escapes", "{{ 'a\\tb\\nc\\u00e9\\x41' }}|{{ \"dq 'x'\" }}|{{ 'ad' 'jacent' }}", {}),
        ("not_precedence", "{{ not x is defined }} {{ not 1 == 2 }} {{ -2|abs }}", {}),
        ("nested_data", "{% for tc in m.tool_calls %}{{ tc.function.name }}({{ tc.function.arguments|tojson }}){% endfor %}", {"m": {"tool_calls": [{"function": {"name": "get", "arguments": {"city": "Paris", "n": 2}}}]}}),
        ("content_none", "[{{ m.content }}] {{ m.content is none }} {{ m.content|trim }}", {"m": {"content": None}}),
        # Errors: the C++ engine must fail where jinja2 fails.
        ("err_undefined_attr_chain", "{{ nope.attr }}", {}),
        ("err_dict_missing_chain", "{{ d.a.b }}", {"d": {}}),
        ("err_list_append_sandbox", "{% set l = [] %}{{ l.append(1) }}", {}),
        ("err_str_plus_int", "{{ 'a' + 1 }}", {}),
        ("err_range_too_big", "{{ range(200000)|length }}", {}),
        ("err_unknown_tag", "{% frobnicate %}", {}),
        ("err_unclosed_block", "{% if true %}never closed", {}),
        ("err_iterate_none", "{% for x in none %}{% endfor %}", {}),
        ("err_div_zero", "{{ 1 / 0 }}", {}),
        ("unsafe_attr_renders_empty", "[{{ 'x'.__class__ }}]", {}),
        ("err_unsafe_attr_chain", "{{ 'x'.__class__.__mro__ }}", {}),
    ]
    return C


def main():
    env = make_env()
    out_dir = os.path.join(ROOT, "tests", "data", "templates")
    os.makedirs(out_dir, exist_ok=True)

    goldens = []
    for name, path, tokens in TEMPLATES:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            source = f.read()
        for conv_name, msgs in CONVERSATIONS.items():
            for gen in (False, True):
                variables = dict(tokens)
                variables.update({"messages": msgs, "tools": None, "documents": None, "add_generation_prompt": gen})
                r = render(env, source, variables)
                case = {"template": name, "path": path, "conversation": conv_name, "add_generation_prompt": gen,
                        "variables": tokens, "messages": msgs}
                case.update(r)
                goldens.append(case)
    with open(os.path.join(out_dir, "goldens.json"), "w", encoding="utf-8") as f:
        json.dump({"generator": "tools/templates/make_goldens.py", "jinja2": jinja2.__version__,
                   "now": "2024-07-26", "cases": goldens}, f, ensure_ascii=False, indent=1)

    constructs = []
    for name, source, variables in construct_cases():
        r = render(env, source, variables)
        case = {"name": name, "template": source, "variables": variables}
        case.update(r)
        constructs.append(case)
    with open(os.path.join(out_dir, "constructs.json"), "w", encoding="utf-8") as f:
        json.dump({"generator": "tools/templates/make_goldens.py", "jinja2": jinja2.__version__,
                   "now": "2024-07-26", "cases": constructs}, f, ensure_ascii=False, indent=1)
    errs = sum(1 for g in goldens if "error" in g)
    print("goldens: %d cases (%d raise), constructs: %d" % (len(goldens), errs, len(constructs)))


if __name__ == "__main__":
    main()
