// The JavaScript reference for json-output.sh: the whole process of tokenizing a text file with
// @huggingface/tokenizers and writing {"ids", "tokens", "offsets"} as JSON, as `maskscope tokenize
// --text-file F --json` does.   node json-reference.mjs <cache> <model> <text file> <out file>
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [cache, model, textFile, outFile] = process.argv.slice(2);
const require = createRequire(path.join(cache, "node", "package.json"));
const { Tokenizer } = require("@huggingface/tokenizers");
const dir = path.join(cache, model);
const tok = new Tokenizer(JSON.parse(fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8")),
                          JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8")));
const text = fs.readFileSync(textFile, "utf8");
const e = tok.encode(text, { add_special_tokens: false });
fs.writeFileSync(outFile, JSON.stringify({ ids: e.ids, tokens: e.tokens, offsets: e.offsets ?? [] }) + "\n");
