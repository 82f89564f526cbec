// Regenerates ids.jsonl: for each text of fixture.jsonl, in order, a
// digest of the token IDs that OpenAI's tiktoken (the npm WASM build, the
// reference) gives it with encode_ordinary, in each encoding.
//
//   cd tokens/testdata/tokens && npm install --no-save tiktoken@1.0.22 && node gen_ids.mjs
//
// Each line is {"o200k", "cl100k", "p50k", "r50k"}: the first 16 hex digits
// of the SHA-256 of the IDs written in decimal, joined by commas ("" for
// none). The text is decoded from its bytes as gen.mjs decodes it.
import { createRequire } from "node:module";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
const require = createRequire(import.meta.url);
const { get_encoding } = require("tiktoken");

const encodings = { o200k: "o200k_base", cl100k: "cl100k_base", p50k: "p50k_base", r50k: "r50k_base" };
const enc = Object.fromEntries(Object.entries(encodings).map(([k, name]) => [k, get_encoding(name)]));
const dec = new TextDecoder("utf-8", { ignoreBOM: true });
const digest = (ids) => createHash("sha256").update(Array.from(ids).join(",")).digest("hex").slice(0, 16);

const lines = readFileSync("fixture.jsonl", "utf8").trim().split("\n");
const out = lines.map((line) => {
  const s = dec.decode(Buffer.from(JSON.parse(line).b64, "base64"));
  return JSON.stringify(Object.fromEntries(Object.keys(encodings).map((k) => [k, digest(enc[k].encode_ordinary(s))])));
});
writeFileSync("ids.jsonl", out.join("\n") + "\n");
console.log(`ids.jsonl: ${out.length} texts`);
