#!/usr/bin/python3
"""Independent check of a training template written by `maskscope patch-template`: renders probe conversations
through the original and the patched template with Python jinja2 configured as transformers does
(make_goldens.make_env: trim_blocks, lstrip_blocks, loopcontrols and an AssistantTracker-style
{% generation %} extension that renders its body), checks the texts are identical and writes each
probe with the patched template's generation spans (UTF-8 byte offsets) as JSON.
Exit status 1 when any probe renders differently.
Run with Debian's python from the repository root:
    /usr/bin/python3 tools/templates/check_training_template.py ORIGINAL PATCHED.jinja OUT.json
ORIGINAL is a tokenizer_config.json (its chat_template and special tokens) or a .jinja file."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_goldens import make_env, render  # noqa: E402


def m(role, content, **extra):
    return dict(role=role, content=content, **extra)


def probes():
    plain = [m("user", "Probe question one?"), m("assistant", "Probe answer one."),
             m("user", "Probe question two?"), m("assistant", "Probe answer two.")]
    call = m("assistant", "", tool_calls=[{"type": "function", "id": "call00001",
                                           "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}])
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
                                               "parameters": {"type": "object",
                                                              "properties": {"city": {"type": "string"}},
                                                              "required": ["city"]}}}]
    with_tools = [m("user", "Weather in Paris?"), call,
                  m("tool", "{\"temperature\": 20}", tool_call_id="call00001"), m("assistant", "It is 20 degrees.")]
    reasoning = [m("user", "Probe question one?"),
                 m("assistant", "Probe answer one.", reasoning_content="Probe thought."),
                 m("user", "Probe question two?"),
                 m("assistant", "<think>\nProbe thought two.\n</think>\n\nProbe answer two.")]
    out = []
    for gen in (False, True):
        g = " +generation prompt" if gen else ""
        out.append(("plain" + g, plain, None, {}, gen))
        out.append(("system" + g, [m("system", "Probe system prompt.")] + plain, None, {}, gen))
        out.append(("tools" + g, with_tools, tools, {}, gen))
        out.append(("reasoning" + g, reasoning, None, {}, gen))
        for thinking in (False, True):
            out.append(("reasoning enable_thinking=%s%s" % (str(thinking).lower(), g), reasoning, None,
                        {"enable_thinking": thinking}, gen))
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    original_path, patched_path, out_path = sys.argv[1:]
    tokens = {}
    if original_path.endswith(".json"):
        config = json.load(open(original_path, encoding="utf-8"))
        original = config["chat_template"]
        for k in ("bos_token", "eos_token", "pad_token", "unk_token"):
            v = config.get(k)
            v = v.get("content") if isinstance(v, dict) else v
            if isinstance(v, str):
                tokens[k] = v
    else:
        original = open(original_path, encoding="utf-8").read()
    patched = open(patched_path, encoding="utf-8").read()
    env = make_env()
    results, failures = [], 0
    for name, messages, tools, extra, gen in probes():
        variables = dict(tokens, messages=messages, tools=tools, add_generation_prompt=gen, **extra)
        want = render(env, original, variables)
        got = render(env, patched, variables)
        if "error" in want:
            continue  # the original rejects this probe
        same = got.get("text") == want["text"]
        failures += 0 if same else 1
        text = want["text"].encode("utf-8")
        results.append({"probe": name, "messages": messages, "tools": tools, "extra": extra,
                        "add_generation_prompt": gen, "identical": same, "text": want["text"],
                        "generation_spans": got.get("spans"),
                        "generation_text": [text[b:e].decode("utf-8") for b, e in got.get("spans", [])]})
        print("%-45s %s, %d generation spans" % (name, "identical" if same else "DIFFERENT",
                                                 len(got.get("spans", []))))
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(results, f, ensure_ascii=False, indent=1)
        f.write("\n")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
