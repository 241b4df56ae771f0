#!/usr/bin/env python3
# Lists C++ functions longer than a limit (default 100 lines, from the line that opens the body to
# the line that closes it). CI runs it over app/ core/ engine/ ui/; exit 1 when any is too long.
# A brace-matching scanner, not a parser: good enough for this repo's clang-formatted code.
import re
import sys
from pathlib import Path

SCOPE_WORDS = re.compile(r'\b(namespace|class|struct|union|enum)\b[^;{()]*$|extern\s+"C"\s*$')


def strip(text):
    """Blanks comments, string and char literals (keeps newlines so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c); i += 1; continue
            end = ')' + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + '\n' * text.count('\n', i, j))
            i = j
        elif c in '"\'':
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                i += 1; continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c); i += 1
    return ''.join(out)


def long_functions(path, limit):
    text = strip(path.read_text(encoding='utf-8', errors='replace'))
    stack = []  # entries: 'scope' or ('func', line, name)
    line, last, results = 1, 0, []
    for i, c in enumerate(text):
        if c == '\n':
            line += 1
        elif c == '{':
            head = text[last:i]
            inside_func = any(s != 'scope' for s in stack)
            if inside_func:
                stack.append('block')
            elif SCOPE_WORDS.search(head.strip()) or re.search(r'=\s*$', head) or not re.search(r'\)', head):
                stack.append('scope')
            else:
                name = re.findall(r'([~\w:<>]+)\s*\(', head)
                stack.append(('func', line, name[0] if name else '?'))
            last = i + 1
        elif c == '}':
            top = stack.pop() if stack else 'scope'
            if isinstance(top, tuple):
                length = line - top[1] + 1
                if length > limit:
                    results.append((length, f'{path}:{top[1]}: {top[2]} is {length} lines'))
            last = i + 1
        elif c == ';':
            last = i + 1
    return results


def main(argv):
    limit = 100
    if argv and argv[0].startswith('--limit='):
        limit = int(argv.pop(0).split('=', 1)[1])
    found = []
    for root in argv or ['app', 'core', 'engine', 'ui']:
        for p in sorted(Path(root).rglob('*')):
            if p.suffix in ('.cpp', '.h', '.cc', '.hpp'):
                found += long_functions(p, limit)
    for _, msg in sorted(found, reverse=True):
        print(msg)
    if found:
        print(f'{len(found)} function(s) longer than {limit} lines', file=sys.stderr)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
