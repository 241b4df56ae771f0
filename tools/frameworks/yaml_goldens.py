#!/usr/bin/env python3
# Regenerates tests/data/yaml/scalars.pyyaml.json and scalars.omegaconf.json: what PyYAML's
# yaml.safe_load (Axolotl reads its config with it) and OmegaConf.load (LLaMA-Factory) make of
# tests/data/yaml/scalars.yml. OmegaConf's loader is rebuilt here exactly as omegaconf/_utils.py
# get_yaml_loader builds it (a SafeLoader with one more float resolver, timestamps removed, duplicate
# keys refused), so only PyYAML is needed: /usr/bin/python3 tools/frameworks/yaml_goldens.py
import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / 'tests' / 'data' / 'yaml'


def omegaconf_loader():
    class OmegaConfLoader(yaml.SafeLoader):
        pass

    loader = OmegaConfLoader
    loader.add_implicit_resolver(
        'tag:yaml.org,2002:float',
        re.compile(
            """^(?:
         [-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |\\.[0-9_]+(?:[eE][-+][0-9]+)?
        |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*
        |[-+]?\\.(?:inf|Inf|INF)
        |\\.(?:nan|NaN|NAN))$""",
            re.X,
        ),
        list('-+0123456789.'),
    )
    loader.yaml_implicit_resolvers = {
        key: [(tag, regexp) for tag, regexp in resolvers if tag != 'tag:yaml.org,2002:timestamp']
        for key, resolvers in loader.yaml_implicit_resolvers.items()
    }
    return loader


def main():
    text = (DATA / 'scalars.yml').read_text(encoding='utf-8')
    for name, loader in (('pyyaml', yaml.SafeLoader), ('omegaconf', omegaconf_loader())):
        value = yaml.load(text, Loader=loader)
        out = DATA / f'scalars.{name}.json'
        out.write_text(json.dumps(value, indent=1, ensure_ascii=False) + '\n', encoding='utf-8')
        print('wrote', out.relative_to(ROOT))


if __name__ == '__main__':
    main()
