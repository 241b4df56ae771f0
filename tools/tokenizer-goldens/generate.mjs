// Writes the tokenizer.json goldens (tests/data/tokenizer_hf/<model>.json) with the reference
// JavaScript implementation @huggingface/tokenizers: ids and tokens come from it as they are.
//
//   node tools/tokenizer-goldens/generate.mjs [cache] [outdir]
//   (cache defaults to $MASKSCOPE_TOKENIZER_CACHE or ~/.cache/maskscope/tokenizers; run
//    tools/fetch-tokenizers.sh first, which also installs @huggingface/tokenizers into <cache>/node)
//
// Offsets: tokenizers.js returns none, so this script derives them, as UTF-8 BYTE ranges into the
// input, by replaying each token's bytes against the input: the input is split at added tokens
// (leftmost-longest, as both libraries do; the split is checked against the reference's tokens),
// each section goes through the tokenizer.json normalizer with an alignment kept per normalized
// byte, and every token consumes as many normalized bytes as it stands for (byte-level tokens map
// back through the GPT-2 byte table, "<0xNN>" is one byte, anything else is its UTF-8 text).
// Alignment convention (maskscope's, see core/tokenizer/hf/NormalizedText.h): a byte the
// normalizer left unchanged maps to itself, so a token holding part of a multi-byte character
// gets exactly the bytes it holds; text a normalizer changed (NFC per grapheme cluster, Replace,
// Prepend) maps to the whole original range it came from. Tokens a post-processor adds get [0, 0].
// JS strings are UTF-16; every offset here is computed on Buffer.from(text, "utf8"), never on
// UTF-16 indices, so no UTF-16 -> UTF-8 conversion is involved.
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { createRequire } from "node:module";
import { STRINGS, WITH_SPECIAL, SPLIT_SPECIAL } from "./strings.mjs";

const cache = process.argv[2] || process.env.MASKSCOPE_TOKENIZER_CACHE ||
  path.join(os.homedir(), ".cache/maskscope/tokenizers");
const here = path.dirname(new URL(import.meta.url).pathname);
const outdir = process.argv[3] || path.resolve(here, "../../tests/data/tokenizer_hf");
const require = createRequire(path.join(cache, "node", "package.json"));
const { Tokenizer } = require("@huggingface/tokenizers");
const refVersion = JSON.parse(fs.readFileSync(
  path.join(cache, "node/node_modules/@huggingface/tokenizers/package.json"), "utf8")).version;

const MODELS = ["qwen3", "llama3", "llama2", "gemma3"];

// GPT-2's byte <-> printable unicode table.
const U2B = new Map();
{
  const bs = [];
  for (let i = 33; i <= 126; ++i) bs.push(i);
  for (let i = 161; i <= 172; ++i) bs.push(i);
  for (let i = 174; i <= 255; ++i) bs.push(i);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; ++b) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n); ++n; }
  bs.forEach((b, i) => U2B.set(String.fromCodePoint(cs[i]), b));
}

const utf8 = (s) => [...Buffer.from(s, "utf8")];
const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });

// A unit is one normalized byte: {b: byte, s, e: original byte range}.
function unitsOf(text, base) {
  const out = [];
  utf8(text).forEach((b, i) => out.push({ b, s: base + i, e: base + i + 1 }));
  return out;
}
function charsOf(units) { // groups units into characters
  const chars = [];
  for (let i = 0; i < units.length;) {
    const lead = units[i].b;
    const n = lead < 0x80 ? 1 : lead >> 5 === 6 ? 2 : lead >> 4 === 14 ? 3 : 4;
    const us = units.slice(i, i + n);
    chars.push({ text: Buffer.from(us.map((u) => u.b)).toString("utf8"), units: us });
    i += n;
  }
  return chars;
}
const span = (us) => ({ s: Math.min(...us.map((u) => u.s)), e: Math.max(...us.map((u) => u.e)) });
const emit = (text, sp) => utf8(text).map((b) => ({ b, s: sp.s, e: sp.e }));

function normalize(cfg, units) {
  if (!cfg || units.length === 0) return units;
  switch (cfg.type) {
    case "Sequence": return cfg.normalizers.reduce((u, c) => normalize(c, u), units);
    case "NFC": case "NFD": case "NFKC": case "NFKD": {
      const chars = charsOf(units);
      const text = chars.map((c) => c.text).join("");
      const out = [];
      let ci = 0;
      for (const { segment } of segmenter.segment(text)) {
        const n = [...segment].length;
        const group = chars.slice(ci, ci + n);
        ci += n;
        const us = group.flatMap((c) => c.units);
        const norm = segment.normalize(cfg.type);
        if (norm === segment) out.push(...us); else out.push(...emit(norm, span(us)));
      }
      return out;
    }
    case "Prepend": {
      const first = charsOf(units)[0];
      return [...emit(cfg.prepend, span(first.units)), ...units];
    }
    case "Replace": {
      if (!cfg.pattern.String) throw new Error("generator: only string Replace is emulated");
      const pat = utf8(cfg.pattern.String);
      const out = [];
      for (let i = 0; i < units.length;) {
        if (pat.length && i + pat.length <= units.length && pat.every((b, k) => units[i + k].b === b)) {
          out.push(...emit(cfg.content, span(units.slice(i, i + pat.length))));
          i += pat.length;
        } else out.push(units[i++]);
      }
      return out;
    }
    default: throw new Error(`generator: normalizer ${cfg.type} not emulated`);
  }
}

// Leftmost-longest split of text at added-token contents (UTF-8 byte positions).
function splitAdded(bytes, contents) {
  const pats = contents.map((c) => Buffer.from(c, "utf8"));
  const parts = [];
  let start = 0;
  for (let i = 0; i < bytes.length;) {
    let best = null;
    for (const p of pats)
      if (p.length && (!best || p.length > best.length) && i + p.length <= bytes.length &&
          bytes.subarray(i, i + p.length).equals(p)) best = p;
    if (best) {
      if (i > start) parts.push({ added: false, s: start, e: i });
      parts.push({ added: true, s: i, e: i + best.length, content: best.toString("utf8") });
      i += best.length; start = i;
    } else ++i;
  }
  if (start < bytes.length) parts.push({ added: false, s: start, e: bytes.length });
  return parts;
}

function tokenBytes(tok, byteLevel) {
  if (byteLevel) return [...tok].map((c) => {
    if (!U2B.has(c)) throw new Error(`generator: token ${tok} is not byte-level`);
    return U2B.get(c);
  });
  const m = /^<0x([0-9A-Fa-f]{2})>$/.exec(tok);
  return m ? [parseInt(m[1], 16)] : utf8(tok);
}

function offsetsFor(json, text, tokens, addedContents) {
  const bytes = Buffer.from(text, "utf8");
  const byteLevel = JSON.stringify(json.decoder ?? {}).includes("ByteLevel");
  const parts = splitAdded(bytes, addedContents);
  const offsets = [];
  let ti = 0;
  for (const part of parts) {
    if (part.added) {
      if (tokens[ti] !== part.content)
        throw new Error(`generator: expected added token ${part.content}, reference gave ${tokens[ti]}`);
      offsets.push([part.s, part.e]); ++ti; continue;
    }
    const units = normalize(json.normalizer, unitsOf(bytes.subarray(part.s, part.e).toString("utf8"), part.s));
    let ui = 0;
    while (ui < units.length) {
      if (ti >= tokens.length) throw new Error(`generator: tokens ran out in ${JSON.stringify(text)}`);
      const tb = tokenBytes(tokens[ti], byteLevel);
      const us = units.slice(ui, ui + tb.length);
      if (us.length !== tb.length || us.some((u, k) => u.b !== tb[k]))
        throw new Error(`generator: token ${JSON.stringify(tokens[ti])} does not match the text at ${ui} in ${JSON.stringify(text)}`);
      const sp = span(us);
      offsets.push([sp.s, sp.e]);
      ui += tb.length; ++ti;
    }
  }
  if (ti !== tokens.length) throw new Error(`generator: ${tokens.length - ti} tokens left over in ${JSON.stringify(text)}`);
  return offsets;
}

fs.mkdirSync(outdir, { recursive: true });
for (const model of MODELS) {
  const dir = path.join(cache, model);
  const json = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8"));
  const config = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8"));
  const tok = new Tokenizer(json, config);
  const splitJson = { ...json, added_tokens: json.added_tokens.filter((t) => !t.special) };
  const splitTok = new Tokenizer(splitJson, config);
  const allAdded = json.added_tokens.map((t) => t.content);
  const nonSpecialAdded = splitJson.added_tokens.map((t) => t.content);
  const cases = [];
  const add = (i, addSpecial, splitSpecial) => {
    const text = STRINGS[i];
    const t = splitSpecial ? splitTok : tok;
    const contents = splitSpecial ? nonSpecialAdded : allAdded;
    const plain = t.encode(text, { add_special_tokens: false });
    let { ids, tokens } = plain;
    let offsets = offsetsFor(json, text, tokens, contents);
    if (addSpecial) {
      const full = t.encode(text, { add_special_tokens: true });
      let k = 0;
      while (k + plain.ids.length <= full.ids.length &&
             !plain.ids.every((id, j) => full.ids[k + j] === id)) ++k;
      if (k + plain.ids.length > full.ids.length) throw new Error("generator: post-processor reordered tokens");
      offsets = full.ids.map((_, j) => (j >= k && j < k + plain.ids.length ? offsets[j - k] : [0, 0]));
      ({ ids, tokens } = full);
    }
    cases.push({ name: `s${String(i).padStart(2, "0")}${addSpecial ? "_special" : ""}${splitSpecial ? "_split" : ""}`,
      text, add_special_tokens: addSpecial, split_special_tokens: splitSpecial, ids, tokens, offsets });
  };
  STRINGS.forEach((_, i) => add(i, false, false));
  WITH_SPECIAL.forEach((i) => add(i, true, false));
  SPLIT_SPECIAL.forEach((i) => add(i, false, true));
  const out = {
    model, folder: fs.realpathSync(dir).split(path.sep).pop(),
    reference: `@huggingface/tokenizers@${refVersion}`,
    offsets: "UTF-8 byte ranges into text; see tools/tokenizer-goldens/generate.mjs",
    cases,
  };
  const file = path.join(outdir, `${model}.json`);
  fs.writeFileSync(file, JSON.stringify(out, null, 0).replace(/\{"name"/g, '\n{"name"') + "\n");
  console.log(`wrote ${file}: ${cases.length} cases`);
}
