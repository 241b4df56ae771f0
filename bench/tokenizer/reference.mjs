// The JavaScript reference for bench_tokenizer_hf: encodes a text file with @huggingface/tokenizers
// and prints {"model", "mb_per_s" (wall clock), "cpu_mb_per_s" (CPU time), "tokens"} per model as JSON lines.
//   node reference.mjs <cache> <text file> <model>...
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [cache, textFile, ...models] = process.argv.slice(2);
const require = createRequire(path.join(cache, "node", "package.json"));
const { Tokenizer } = require("@huggingface/tokenizers");
const text = fs.readFileSync(textFile, "utf8");
const bytes = Buffer.byteLength(text, "utf8");
// Encode line by line in chunks, as a data pipeline would (one huge string is unfair to any BPE).
const chunks = text.split(/(?<=\n)/);
for (const model of models) {
  const dir = path.join(cache, model);
  const tok = new Tokenizer(JSON.parse(fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8")),
                            JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8")));
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let n = 0;
  for (const c of chunks) n += tok.encode(c, { add_special_tokens: false }).ids.length;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const cu = process.cpuUsage(c0);
  const cpu = (cu.user + cu.system) / 1e6; // all of node's threads (GC helpers included)
  console.log(JSON.stringify({ model, mb_per_s: bytes / 1e6 / s, cpu_mb_per_s: bytes / 1e6 / cpu, tokens: n, seconds: s }));
}
