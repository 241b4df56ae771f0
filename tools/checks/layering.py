#!/usr/bin/env python3
# Fails when an include crosses the layering: core includes no Qt Gui/Widgets, torch, ui/ or engine/;
# ui includes no engine/ or torch; engine (the LibTorch module) includes no Qt, ui/ or app/, and from
# core only core/forward/ (its interface, ModelConfig) and core/util/ (the torch-free helpers it links).
# (app -> ui -> core; engine -> core interfaces.) CI runs it via ctest (label style).
import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
RULES = {
    'core': [r'^Qt(Gui|Widgets|Svg|OpenGL)/', r'^Q(Widget|Painter|Image|Color|Font|Pixmap|Application)\b',
             r'^torch/', r'^ATen/', r'^c10/', r'^ui/', r'^engine/', r'^app/'],
    'ui': [r'^torch/', r'^ATen/', r'^c10/', r'^engine/', r'^app/'],
    'engine': [r'^ui/', r'^app/', r'^Qt', r'^core/(?!forward/|util/)'],
}
# Arrows inside core: core/frameworks sits above collate, template, tokenizer, mask and data (it
# reproduces trainers' batches with them) and below lint and commands, which judge and print them.
CORE_BELOW_FRAMEWORKS = ['util', 'resources', 'data', 'media', 'tokenizer', 'template', 'collate', 'mask', 'batchio', 'table']


def main():
    root = Path(__file__).resolve().parents[2]
    bad = []
    for layer, forbidden in RULES.items():
        for p in sorted((root / layer).rglob('*')):
            if p.suffix not in ('.cpp', '.h'):
                continue
            for m in INCLUDE.finditer(p.read_text(encoding='utf-8', errors='replace')):
                inc = m.group(1)
                if any(re.search(f, inc) for f in forbidden):
                    line = p.read_text(encoding='utf-8', errors='replace').count('\n', 0, m.start()) + 1
                    bad.append(f'{p.relative_to(root)}:{line}: {layer}/ must not include <{inc}>')
    for concern in CORE_BELOW_FRAMEWORKS:
        for p in sorted((root / 'core' / concern).rglob('*')):
            if p.suffix not in ('.cpp', '.h'):
                continue
            text = p.read_text(encoding='utf-8', errors='replace')
            for m in INCLUDE.finditer(text):
                if m.group(1).startswith('core/frameworks/'):
                    line = text.count('\n', 0, m.start()) + 1
                    bad.append(f'{p.relative_to(root)}:{line}: core/{concern}/ must not include <{m.group(1)}>')
    for b in bad:
        print(b)
    print(f'layering: {len(bad)} forbidden include(s)' if bad else 'layering: clean')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
