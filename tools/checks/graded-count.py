#!/usr/bin/env python3
# "Graded" has one definition (core/mask: gradedAt / gradedInRow / gradedLabel, labels[t] !=
# -100 with t >= 1). Lists the lines under the given folders (CI: app/ core/ engine/ ui/) that test a
# label against the ignore index themselves, outside core/mask/ and engine/ (the loss): a second
# definition, such as a count that forgets t = 0. Exit 1 when any is found: call gradedAt instead.
#
# Flagged, in code (comments and string literals are ignored):
#   - `x != kIgnoreIndex` / `!= -100` (either side): "is graded" written again;
#   - `x == kIgnoreIndex` on a line that counts or skips (`+=`, `++`, `continue`, count_if, all_of, any_of,
#     none_of): counting the ungraded positions, the same definition by its complement.
# A line that is not a graded count (a range check, a framework's own rule replayed as written) says so
# with a comment `graded-count: ok (<why>)` on that line or one of the two above it (a statement's start).
import re
import sys
from pathlib import Path

ALLOWED = ('core/mask/', 'engine/')
IGNORE = r'(?:kIgnoreIndex|kIgnore|-\s*100)\b'
NOT_EQUAL = re.compile(r'!=\s*' + IGNORE + r'|' + IGNORE + r'\s*!=')
EQUAL = re.compile(r'==\s*' + IGNORE + r'|' + IGNORE + r'\s*==')
COUNTING = re.compile(r'\+=|\+\+|\bcontinue\b|\bcount_if\b|\ball_of\b|\bany_of\b|\bnone_of\b')
OK = re.compile(r'graded-count:\s*ok\s*\(\S[^)]*\)')


def code_only(line):
    """The line without string/char literals and // comments (block comments are rare here)."""
    out, i, quote = [], 0, None
    while i < len(line):
        c = line[i]
        if quote:
            if c == '\\':
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        if c in '"\'':
            quote = c
            out.append(' ')
        elif line.startswith('//', i):
            break
        else:
            out.append(c)
        i += 1
    return ''.join(out)


def findings_in(path, rel):
    lines = path.read_text(encoding='utf-8', errors='replace').split('\n')
    found = []
    for n, line in enumerate(lines):
        code = code_only(line)
        hit = NOT_EQUAL.search(code) or (EQUAL.search(code) and COUNTING.search(code))
        if not hit:
            continue
        if any(OK.search(lines[k]) for k in range(max(0, n - 2), n + 1)):
            continue
        found.append(f'{rel}:{n + 1}: {line.strip()}')
    return found


def main(argv):
    roots = argv or ['app', 'core', 'engine', 'ui']
    found = []
    for root in roots:
        for p in sorted(Path(root).rglob('*')):
            if p.suffix not in ('.cpp', '.h', '.cc', '.hpp') or not p.is_file():
                continue
            rel = p.as_posix()
            if rel.startswith(ALLOWED):
                continue
            found += findings_in(p, rel)
    for msg in found:
        print(msg)
    if found:
        print(f'{len(found)} line(s) test a label against -100 outside core/mask and engine/: count graded '
              'positions with gradedAt / gradedInRow (core/mask/RowFacts.h), gradedLabel / gradedInBatch (GradedPositions.h), or mark a line that '
              'is no graded count with "// graded-count: ok (why)"', file=sys.stderr)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
