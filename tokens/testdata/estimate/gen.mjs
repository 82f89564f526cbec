// Regenerates fixture.jsonl: for each text of ../tokens/fixture.jsonl, its
// count in the "claude" encoding of coder's ai-tokenizer 1.0.6 (MIT), the
// encoding that package estimates Claude models with (times its
// contentMultiplier of 1.1), and the counts of the role names; and
// ../../internal/bpe/testdata/claude.tiktoken, that encoding's ranks in the
// .tiktoken format (base64 of the token's bytes, space, rank; the five
// special tokens, ranks 0 to 4, left out), from which internal/bpe
// generates recap's table.
//
//   cd tokens/testdata/estimate && npm ci && node gen.mjs
//
// Each line is {"i": the line of ../tokens/fixture.jsonl, "claude": count};
// the last line is {"roles": {"user": n, "assistant": n, "system": n}}.
// A text is the string a JavaScript client gets from the b64 bytes
// (TextDecoder "utf-8", non-fatal, ignoreBOM), as in ../tokens/gen.mjs.
import { readFileSync, writeFileSync } from "node:fs";
import Tokenizer from "ai-tokenizer";
import * as claude from "ai-tokenizer/encoding/claude";

const tok = new Tokenizer(claude);
const dec = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const lines = readFileSync(new URL("../tokens/fixture.jsonl", import.meta.url), "utf8").trim().split("\n");
const out = lines.map((line, i) => {
  const { b64 } = JSON.parse(line);
  const text = dec.decode(Buffer.from(b64, "base64"));
  return JSON.stringify({ i, claude: tok.encodeOrdinary(text).length });
});
const roles = Object.fromEntries(["user", "assistant", "system"].map((r) => [r, tok.encodeOrdinary(r).length]));
out.push(JSON.stringify({ roles }));
writeFileSync(new URL("fixture.jsonl", import.meta.url), out.join("\n") + "\n");
console.log(`${lines.length} texts`);

// The vocabulary: string tokens by their UTF-8 bytes, binary ones (not
// valid UTF-8 alone) as they are.
const ranks = new Map();
for (const [token, rank] of Object.entries(claude.stringEncoder)) ranks.set(rank, Buffer.from(token, "utf8"));
for (const [bytes, rank] of claude.binaryEncoder) ranks.set(rank, Buffer.from(bytes));
const special = new Set(Object.values(claude.special_tokens));
const vocab = [...ranks.keys()].filter((r) => !special.has(r)).sort((a, b) => a - b)
  .map((r) => `${ranks.get(r).toString("base64")} ${r}`);
writeFileSync(new URL("../../internal/bpe/testdata/claude.tiktoken", import.meta.url), vocab.join("\n") + "\n");
console.log(`${vocab.length} tokens`);
