#!/usr/bin/env python3
# tools/checks/graded-count.py must fail on a second definition of "graded": plants label counts in a
# scratch tree (core/commands, ui/) and checks each is named, while core/mask/, engine/, a gradedAt call,
# "-100" in a string and a line marked "graded-count: ok (why)" pass. Exit 1 on any mismatch.
import subprocess
import sys
import tempfile
from pathlib import Path

CHECK = Path(__file__).resolve().parents[2] / 'tools' / 'checks' / 'graded-count.py'

PLANTED = {  # file -> a line the check must name
    'core/commands/Planted.cpp': 'for (int64_t t = 0; t < T; ++t) graded += b.labels.at(r, t) != kIgnoreIndex;',
    'ui/shell/Planted.cpp': 'for (int64_t v : b.labels.values) n += v != -100;',
    'core/lint/Planted.cpp': 'if (b.labels.at(r, t) == kIgnoreIndex) continue;',
    'core/table/Planted.h': 'return std::count_if(l.begin(), l.end(), [](int64_t v) { return kIgnoreIndex != v; });',
}
CLEAN = {  # file -> a line the check must let pass
    'core/mask/Allowed.cpp': 'n += b.labels.at(r, t) != kIgnoreIndex;',
    'engine/Allowed.cpp': 'if (labels[t] == kIgnoreIndex) continue;',
    'core/commands/Routed.cpp': 'graded += gradedAt(b, r, t); // "!= -100" in a comment',
    'core/lint/Message.cpp': 'msg += "labels != -100";',
    'core/lint/Marked.cpp': 'if (l != kIgnoreIndex && l >= bound) ++bad; // graded-count: ok (a range check)',
}


def run(tree):
    return subprocess.run([sys.executable, str(CHECK)], cwd=tree, capture_output=True, text=True)


def plant(root, files):
    for rel, line in files.items():
        p = Path(root) / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text('// planted\nvoid f() {\n  ' + line + '\n}\n')


def main():
    failures = []
    with tempfile.TemporaryDirectory() as clean:
        plant(clean, CLEAN)
        r = run(clean)
        if r.returncode != 0:
            failures.append('clean tree flagged:\n' + r.stdout)
    for rel, line in PLANTED.items():
        with tempfile.TemporaryDirectory() as tree:
            plant(tree, {**CLEAN, rel: line})
            r = run(tree)
            if r.returncode != 1 or f'{rel}:3:' not in r.stdout:
                failures.append(f'planted {rel} not found (exit {r.returncode}):\n{r.stdout}{r.stderr}')
    for f in failures:
        print(f)
    print('graded-count planted: ' + ('FAILED' if failures else f'{len(PLANTED)} planted counts named, clean tree passes'))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
