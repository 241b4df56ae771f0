#!/usr/bin/env python3
# Writes tests/data/lint/audit/audit.jsonl, the dataset test_audit_report audits: clean chat rows and
# rows planted for the report's sections (empty replies, a hostile HTML row, a ShareGPT role, a reply
# longer than trl's max_length 1024, a duplicate, an unreadable line).
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "..", "tests", "data", "lint", "audit", "audit.jsonl")


def row(user, reply, role="assistant"):
    return json.dumps({"messages": [{"role": "user", "content": user}, {"role": role, "content": reply}]})


questions = ["Name a colour.", "What is two plus two?", "Say hello in French.", "Name a planet.",
             "What is the capital of Italy?", "Give a synonym of quick."]
answers = ["Blue.", "Four.", "Bonjour.", "Mars.", "Rome.", "Fast."]
lines = [row(q, a) for q, a in zip(questions, answers)]
lines += [row("Tell me something (%d)." % i, "") for i in range(4)]  # empty-reply, no-graded-tokens x4
lines.append(row("</script><img src=x onerror=alert(1)> & \"quotes\" 'too'", "I will not run <b>that</b>."))
lines.append(row("What colour is grass?", "Green.", role="gpt"))  # ShareGPT role in a messages row
long_words = " ".join(["the river ran past old mills and quiet fields of barley"] * 150)
lines.append(row("Write a long story.", long_words))  # > 1024 tokens: reply-truncated
lines.append(row("Name  a colour. ", "Blue."))  # duplicate-row of line 1
lines.append('{"messages": [{"role": "user", "content": "broken"')  # row-skipped
lines.append(row("Last question?", "Last answer."))

os.makedirs(os.path.dirname(out), exist_ok=True)
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print(out, len(lines), "lines")
