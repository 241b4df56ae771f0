#!/usr/bin/env python3
# Checks that each core library links exactly the core libraries its sources include: for every
# core/<concern>/ (one maskscope_<concern> library, core/CMakeLists.txt), the set of other concerns
# whose headers its .cpp/.h files include equals the core libraries its target_link_libraries names.
# A library linked but not included is a false dependency (it drags the other library into every
# test that links this one); one included but not linked works only through another library's link.
import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s*"core/([a-z_]+)/', re.M)
LINK = re.compile(r'target_link_libraries\(\s*(maskscope_[a-z_]+)\s+([^)]*)\)', re.S)


def linked(cmake_text, library):
    libs = set()
    for m in LINK.finditer(cmake_text):
        if m.group(1) == library:
            libs |= {w[len('maskscope_'):] for w in m.group(2).split() if w.startswith('maskscope_')}
    libs.discard('settings')
    return libs


def main():
    root = Path(__file__).resolve().parents[2]
    bad = []
    for d in sorted(p for p in (root / 'core').iterdir() if (p / 'CMakeLists.txt').exists()):
        concern = d.name
        included = {}
        for f in sorted(d.rglob('*')):
            if f.suffix in ('.cpp', '.h'):
                for m in INCLUDE.finditer(f.read_text(encoding='utf-8', errors='replace')):
                    if m.group(1) != concern:
                        included.setdefault(m.group(1), f.relative_to(root))
        links = linked((d / 'CMakeLists.txt').read_text(encoding='utf-8'), 'maskscope_' + concern)
        for c in sorted(set(included) - links):
            bad.append(f'core/{concern}/CMakeLists.txt: maskscope_{concern} does not link maskscope_{c} '
                       f'({included[c]} includes core/{c}/)')
        for c in sorted(links - set(included)):
            bad.append(f'core/{concern}/CMakeLists.txt: maskscope_{concern} links maskscope_{c}, '
                       f'but nothing in core/{concern}/ includes core/{c}/')
    for b in bad:
        print(b)
    print(f'link-deps: {len(bad)} mismatch(es)' if bad else 'link-deps: every core library links what it includes')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
