// Measures gpt-tokenizer's counting throughput on the fixture corpus (the
// texts of fixture.jsonl as JavaScript decodes them), as bench.sh does for
// recap, so that the two can be compared on the same machine in one run.
//
//   npm install --no-save gpt-tokenizer@4.0.0 && node bench.mjs
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const require = createRequire(import.meta.url);
const gpt = require("gpt-tokenizer/encoding/o200k_base");

const dec = new TextDecoder("utf-8", { ignoreBOM: true });
const texts = readFileSync(new URL("fixture.jsonl", import.meta.url), "utf8")
  .trim().split("\n").map((l) => dec.decode(Buffer.from(JSON.parse(l).b64, "base64")));
const bytes = texts.reduce((n, s) => n + Buffer.byteLength(s), 0);
const none = { disallowedSpecial: new Set() };
const pass = () => { let t = 0; for (const s of texts) t += gpt.countTokens(s, none); return t; };

pass(); // warm up: JIT and gpt-tokenizer's piece cache
const times = [];
let tokens = 0;
for (let i = 0; i < 5; i++) {
  const t0 = process.hrtime.bigint();
  tokens = pass();
  times.push(Number(process.hrtime.bigint() - t0) / 1e9);
}
times.sort((a, b) => a - b);
const med = times[2];
console.log(JSON.stringify({ counter: "gpt-tokenizer o200k (warm cache)", bytes, tokens, seconds: med, mbps: bytes / 1e6 / med }));
