#!/usr/bin/python3
"""Writes the plain-English pretraining corpus of builtin:tiny from free text that Debian 12 ships,
one paragraph per line, to ~/.cache/maskscope/corpus/ (outside the repository: it is 20 MB, and the
packages below regenerate it byte for byte). tools/model/train_tiny.py reads it.

Sources (install with `apt-get install wordnet-base python3.11-doc debian-handbook`; the versions the
committed model was trained on are in SOURCES, and the script refuses others unless
MASKSCOPE_CORPUS_ANY_VERSION=1):
- wordnet-base 1:3.0-37 (WordNet 3.0 licence: free use, copy and distribution with its notice):
  every synset's gloss as "lemma: definition." and its quoted example sentences, in the order of
  data.noun, data.verb, data.adj, data.adv. Everyday English vocabulary in short plain sentences.
- python3.11-doc 3.11.2 (PSF licence): the reST sources of the Tutorial, the FAQ, the HOWTOs, the
  glossary and the library reference, markup stripped, code blocks kept as their lines between ```
  fences and inline literals in backticks, as chats write code (the demo conversations include some).
- debian-handbook 11.20220922 (GPL-2+ or CC-BY-SA-3.0): The Debian Administrator's Handbook, its
  paragraphs as text, each once: all of en-US, and the first 300,000 characters of its es-ES, fr-FR,
  de-DE, ja-JP and zh-CN translations (the languages the demo conversations also use).
Never the demo conversations: train_tiny.py leaves out any line sharing an 8-word sequence with one.
"""
import glob
import gzip
import hashlib
import html
import os
import re
import subprocess
import sys

SOURCES = {"wordnet-base": "1:3.0-37", "python3.11-doc": "3.11.2-6+deb12u9", "debian-handbook": "11.20220922"}
OUT_DIR = os.path.join(os.path.expanduser("~"), ".cache", "maskscope", "corpus")
OUT = os.path.join(OUT_DIR, "pretrain-debian.txt")
PY_DOCS = "/usr/share/doc/python3.11/html/_sources"
PY_PARTS = ["tutorial", "faq", "howto", "glossary.rst.txt", "library"]
HANDBOOK = "/usr/share/doc/debian-handbook/html"
# The demo conversations (and so the demo tokenizer) also speak Spanish, French, German, Japanese and
# Chinese: the handbook's translations give those pieces real text, a little of each.
TRANSLATIONS = ["es-ES", "fr-FR", "de-DE", "ja-JP", "zh-CN"]
TRANSLATION_CAP = 300_000  # characters per translation
WORDNET = "/usr/share/wordnet"
MAX_LINE = 2000  # characters: a longer paragraph is split at sentence ends


def installed_version(package):
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True,
                              check=True).stdout.strip()
    except subprocess.CalledProcessError:
        return None


def check_sources():
    for package, version in SOURCES.items():
        have = installed_version(package)
        if have is None:
            sys.exit(f"{package} is not installed: apt-get install {' '.join(SOURCES)}")
        if have != version and os.environ.get("MASKSCOPE_CORPUS_ANY_VERSION") != "1":
            sys.exit(f"{package} is {have}, the committed model was trained on {version} "
                     "(MASKSCOPE_CORPUS_ANY_VERSION=1 to go on with it)")


def sentence(text):
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def wordnet_lines():
    for pos in ["noun", "verb", "adj", "adv"]:
        with open(os.path.join(WORDNET, "data." + pos), encoding="latin-1") as f:
            for line in f:
                if line.startswith("  ") or "|" not in line:
                    continue  # the licence header
                fields, gloss = line.split("|", 1)
                parts = fields.split()
                lemmas = [parts[4 + 2 * i].replace("_", " ") for i in range(int(parts[3], 16))]
                lemma = re.sub(r"\(\w+\)$", "", lemmas[0])
                examples = re.findall(r'"([^"]+)"', gloss)
                definition = re.sub(r'"[^"]*"', "", gloss).strip(" ;\n")
                text = [f"{lemma}: {definition}." if definition else ""]
                text += [sentence(e) for e in examples]
                line_text = " ".join(t for t in text if t)
                if line_text:
                    yield line_text


def rst_lines(path):
    """Paragraphs of one reST file as Markdown-like text: roles reduced to their text, ``literals`` as
    `literals`, directive lines, headings and tables left out, the literal block after a paragraph
    ending in "::" and doctest lines kept line by line between ``` fences (how code is written in the
    chats people fine-tune on)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    para, para_indent, code_indent, code_base, doctest = [], 0, None, None, False
    for raw in text.split("\n"):
        line = raw.rstrip()
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if code_indent is not None:
            if not stripped:
                continue
            if indent > code_indent:
                if code_base is None:
                    yield "```"
                code_base = indent if code_base is None else min(code_base, indent)
                yield line[code_base:]  # a line of the literal block, its own indentation kept
                continue
            if code_base is not None:
                yield "```"
            code_indent = code_base = None
        if doctest and not stripped.startswith((">>>", "... ")) and (not stripped or para or indent == 0):
            yield "```"
            doctest = False
        if not stripped or re.match(r"^(\.\. |[=\-~^*#+`'\"]{3,}$|\+[-=+]+\+$|\|)", stripped):
            if para:
                if para[-1].endswith("::"):
                    code_indent = para_indent
                yield " ".join(para).replace("::", ":")
                para = []
            continue
        if stripped.startswith((">>>", "... ")) or doctest:
            if para:
                yield " ".join(para).replace("::", ":")
                para = []
            if not doctest:
                yield "```"
                doctest = True
            yield stripped
            continue
        stripped = re.sub(r":[\w:+.-]+:`[~!]?([^`<]*?)(?: <[^>]*>)?`", r"`\1`", stripped)
        if not para:
            para_indent = indent
        para.append(stripped.replace("``", "`").replace("**", ""))
    if para:
        yield " ".join(para).replace("::", ":")
    if code_base is not None or doctest:
        yield "```"


def python_doc_lines():
    for part in PY_PARTS:
        root = os.path.join(PY_DOCS, part)
        files = [root] if root.endswith(".txt") else sorted(glob.glob(os.path.join(root, "**", "*.rst.txt"),
                                                                       recursive=True))
        for path in files:
            yield from rst_lines(path)


def handbook_lines(language, cap):
    """The handbook's paragraphs in one language, each once, up to cap characters (pages in name order)."""
    seen, size = set(), 0
    for path in sorted(glob.glob(os.path.join(HANDBOOK, language, "*.html"))):
        with open(path, encoding="utf-8") as f:
            page = f.read()
        for block in re.findall(r'<div class="para">(.*?)(?=<div|</div>)', page, flags=re.S):
            text = html.unescape(re.sub(r"<[^>]+>", "", block))
            text = re.sub(r"\s+", " ", text).strip()
            digest = hashlib.sha1(text.encode()).digest()
            if len(text) < 20 or digest in seen:
                continue
            seen.add(digest)
            size += len(text)
            if size > cap:
                return
            yield text


def split_long(line):
    while len(line) > MAX_LINE:
        cut = line.rfind(". ", 0, MAX_LINE)
        cut = cut + 1 if cut > 0 else MAX_LINE
        yield line[:cut].strip()
        line = line[cut:].strip()
    if line:
        yield line


def main():
    check_sources()
    os.makedirs(OUT_DIR, exist_ok=True)
    counts = {}
    with open(OUT, "w", encoding="utf-8") as out:
        sources = [("wordnet-base", wordnet_lines()), ("python3.11-doc", python_doc_lines()),
                   ("debian-handbook en-US", handbook_lines("en-US", 10**9))]
        sources += [(f"debian-handbook {lang}", handbook_lines(lang, TRANSLATION_CAP)) for lang in TRANSLATIONS]
        for name, lines in sources:
            n = 0
            for line in lines:
                for piece in split_long(line.replace("\u00a0", " ")):
                    out.write(piece + "\n")
                    n += len(piece) + 1
            counts[name] = n
    with open(OUT, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    for name, n in counts.items():
        print(f"{name}: {n / 1e6:.1f} MB")
    print(f"wrote {OUT} sha256 {digest}")


if __name__ == "__main__":
    main()
