#!/usr/bin/python3
"""Tool-call goldens: rows with "tools" and assistant "tool_calls" rendered through the real built-in
templates (Qwen3, Qwen2.5, Llama 3.1, Llama 3.2, Mistral v0.3, Hermes 3 / Hermes 2 Pro tool_use) by Python jinja2 configured as
transformers' apply_chat_template configures it (make_goldens.make_env: ImmutableSandboxedEnvironment,
trim_blocks, lstrip_blocks, its tojson, raise_exception, strftime_now pinned to 2024-07-26), with
tools=row["tools"] and documents=None passed as transformers passes them.
Writes tests/data/templates/tool_goldens.json (test_tool_templates compares maskscope byte for byte).
Run with Debian's python (python3-jinja2) from the repository root:
    /usr/bin/python3 tools/templates/make_tool_goldens.py"""
import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jinja2  # noqa: E402
from make_goldens import ROOT, TOKENS, make_env, render  # noqa: E402

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Current weather in a city.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "get_time", "description": "Local time in a time zone.",
        "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}},
]


def call(name, args, cid, as_string=False):
    return {"id": cid, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False) if as_string else args}}


def assistant_calls(calls, content=""):
    return {"role": "assistant", "content": content, "tool_calls": calls}


def tool(content, cid, name):
    return {"role": "tool", "content": content, "tool_call_id": cid, "name": name}


def m(role, content):
    return {"role": role, "content": content}


def rows():
    """(name, row): rows as a dataset holds them ({"messages", "tools"}); Mistral needs 9-character ids."""
    paris = call("get_weather", {"city": "Paris", "unit": "celsius"}, "call00001")
    rome = call("get_weather", {"city": "Rome"}, "call00002")
    tokyo = call("get_time", {"zone": "Asia/Tokyo"}, "call00003")
    multi = [m("system", "You are a travel assistant."), m("user", "Weather in Paris?"),
             assistant_calls([paris]), tool('{"temp": 21, "sky": "clear"}', "call00001", "get_weather"),
             m("assistant", "21 °C and clear in Paris."), m("user", "And the time in Tokyo?"),
             assistant_calls([tokyo]), tool('{"time": "22:15"}', "call00003", "get_time"),
             m("assistant", "It is 22:15 in Tokyo.")]
    parallel = [m("user", "Weather in Paris and Rome?"), assistant_calls([paris, rome]),
                tool('{"temp": 21}', "call00001", "get_weather"), tool('{"temp": 25}', "call00002", "get_weather"),
                m("assistant", "Paris 21 °C, Rome 25 °C.")]
    error = [m("user", "Weather in Atlantis?"), assistant_calls([call("get_weather", {"city": "Atlantis"}, "call00004")]),
             tool('{"error": "unknown city: Atlantis"}', "call00004", "get_weather"),
             m("assistant", "I could not find Atlantis.")]
    as_string = copy.deepcopy(multi)
    for msg in as_string:
        for c in msg.get("tool_calls", []):
            c["function"]["arguments"] = json.dumps(c["function"]["arguments"], ensure_ascii=False)
    content_none = [m("user", "Time in Tokyo?"), assistant_calls([tokyo], content=None),
                    tool('{"time": "22:15"}', "call00003", "get_time"), m("assistant", "22:15.")]
    no_tools_column = [m("user", "Weather in Paris?"), assistant_calls([paris]),
                       tool('{"temp": 21}', "call00001", "get_weather"), m("assistant", "21 °C.")]
    return [
        ("multi_turn", {"messages": multi, "tools": TOOLS}),
        ("parallel_calls", {"messages": parallel, "tools": TOOLS}),
        ("tool_error", {"messages": error, "tools": TOOLS}),
        ("arguments_string", {"messages": as_string, "tools": TOOLS}),
        ("content_none", {"messages": content_none, "tools": TOOLS}),
        ("no_tools_column", {"messages": no_tools_column}),
    ]


TEMPLATES = [
    ("qwen3", "resources/templates/qwen3.jinja", TOKENS["qwen2.5"]),
    ("qwen3-assistant-mask", "resources/templates/qwen3-assistant-mask.jinja", TOKENS["qwen2.5"]),
    ("qwen2.5", "resources/templates/qwen2.5.jinja", TOKENS["qwen2.5"]),
    ("qwen2.5-assistant-mask", "resources/templates/qwen2.5-assistant-mask.jinja", TOKENS["qwen2.5"]),
    ("llama3", "resources/templates/llama3.jinja", TOKENS["llama3"]),
    ("llama3.2", "tests/data/templates/llama3.2.jinja", TOKENS["llama3.2"]),
    ("mistral-v0.3", "resources/templates/mistral-v0.3.jinja", TOKENS["mistral-v0.3"]),
    # NousResearch/Hermes-3-Llama-3.1-8B's tokenizer_config.json special tokens
    ("hermes3", "resources/templates/hermes3.jinja", {"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>"}),
]


def main():
    env = make_env()
    cases = []
    for name, path, tokens in TEMPLATES:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            source = f.read()
        for row_name, row in rows():
            for gen in (False, True):
                msgs = row["messages"] if not gen else row["messages"][:-1]
                variables = dict(tokens)
                variables.update({"messages": msgs, "tools": row.get("tools"), "documents": None,
                                  "add_generation_prompt": gen})
                case = {"template": name, "path": path, "row_name": row_name, "add_generation_prompt": gen,
                        "variables": tokens, "row": {"messages": msgs, **({"tools": row["tools"]} if "tools" in row else {})}}
                case.update(render(env, source, variables))
                cases.append(case)
    # a -assistant-mask variant renders the same text as its template; only the spans differ
    by_key = {(c["template"], c["row_name"], c["add_generation_prompt"]): c for c in cases}
    for (name, row_name, gen), c in by_key.items():
        if name.endswith("-assistant-mask") and "text" in c:
            assert c["text"] == by_key[(name[:-len("-assistant-mask")], row_name, gen)]["text"], (name, row_name)
    out = os.path.join(ROOT, "tests", "data", "templates", "tool_goldens.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"generator": "tools/templates/make_tool_goldens.py", "jinja2": jinja2.__version__,
                   "now": "2024-07-26", "cases": cases}, f, ensure_ascii=False, indent=1)
    errs = sum(1 for c in cases if "error" in c)
    print("tool goldens: %d cases (%d raise)" % (len(cases), errs))
    for c in cases:
        if "error" in c:
            print("  %s/%s%s: %s" % (c["template"], c["row_name"], "/gen" if c["add_generation_prompt"] else "", c["error"]))


if __name__ == "__main__":
    main()
