// Tokenizes text with the reference implementation @huggingface/tokenizers, for the framework goldens
// (tools/frameworks/*.py): reads JSON lines {"model": "llama3", "text": "...", "add_special_tokens":
// false} on stdin and writes one JSON list of ids per line. Models come from the tokenizer cache
// ($MASKSCOPE_TOKENIZER_CACHE or ~/.cache/maskscope/tokenizers; tools/fetch-tokenizers.sh fills it).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { createRequire } from "node:module";

const cache = process.env.MASKSCOPE_TOKENIZER_CACHE || path.join(os.homedir(), ".cache/maskscope/tokenizers");
const require = createRequire(path.join(cache, "node", "package.json"));
const { Tokenizer } = require("@huggingface/tokenizers");

const loaded = new Map();
function tokenizer(model) {
  if (!loaded.has(model)) {
    const read = (f) => JSON.parse(fs.readFileSync(path.join(cache, model, f), "utf8"));
    loaded.set(model, new Tokenizer(read("tokenizer.json"), read("tokenizer_config.json")));
  }
  return loaded.get(model);
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const q = JSON.parse(line);
  const ids = tokenizer(q.model).encode(q.text, { add_special_tokens: !!q.add_special_tokens }).ids;
  process.stdout.write(JSON.stringify(ids) + "\n");
}
