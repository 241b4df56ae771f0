#!/usr/bin/env python3
# Lists C++ files longer than a limit (default 700 lines) under the given folders (CI: app/ core/
# engine/ ui/), except the paths given with --except= (the Jinja engine, core/template/jinja/, whose
# interpreter follows jinja2's own structure). Exit 1 when any file is too long: split it at its seams.
import sys
from pathlib import Path


def main(argv):
    limit, exempt, roots = 700, [], []
    for a in argv:
        if a.startswith('--limit='):
            limit = int(a.split('=', 1)[1])
        elif a.startswith('--except='):
            exempt.append(Path(a.split('=', 1)[1]))
        else:
            roots.append(a)
    found = []
    for root in roots or ['app', 'core', 'engine', 'ui']:
        for p in sorted(Path(root).rglob('*')):
            if p.suffix not in ('.cpp', '.h', '.cc', '.hpp') or any(p.is_relative_to(e) for e in exempt):
                continue
            lines = p.read_text(encoding='utf-8', errors='replace').count('\n')
            if lines > limit:
                found.append((lines, f'{p}: {lines} lines'))
    for _, msg in sorted(found, reverse=True):
        print(msg)
    if found:
        print(f'{len(found)} file(s) longer than {limit} lines', file=sys.stderr)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
