// Regenerates tools.jsonl: random tool definitions and what coder's
// ai-tokenizer 1.0.6 (MIT) estimates they add to a request, for
// TestEstimatorToolTokens.
//
//   cd tokens/testdata/estimate && npm ci && node gen_tools.mjs
//
// ai-tokenizer walks the tools' zod schemas; each set is built as zod
// schemas (every property required: ai-tokenizer does not look inside
// .optional()), counted with ai-tokenizer's count() and no messages (its
// baseOverhead taken off), and written as the JSON Schema zod makes of
// them (z.toJSONSchema), in Anthropic's shape {name, description,
// input_schema}. Each line is {"model", "tools", "count"}; model
// "recap/gemini" is the configuration recap estimates every Gemini model
// with: the largest of each of ai-tokenizer's Gemini constants.
import { writeFileSync } from "node:fs";
import Tokenizer, { models } from "ai-tokenizer";
import * as claude from "ai-tokenizer/encoding/claude";
import * as o200k from "ai-tokenizer/encoding/o200k_base";
import { count } from "ai-tokenizer/sdk";
import { z } from "zod";

// A seeded generator (mulberry32), so that the fixture is reproducible.
let seed = 20261204;
function rand() {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const words = ["city", "unit", "query", "limit", "user_id", "page", "filters", "start_date", "endDate", "location",
  "temperature", "format", "items", "recipient", "subject", "body", "priority", "tags", "größe", "ville", "名前",
  "retry", "timeout_ms", "include_archived", "sort", "order", "lat", "lon", "radius_km", "currency", "amount"];
const phrases = ["The city to look up", "Maximum number of results to return", "ISO 8601 date, e.g. 2024-01-31",
  "Whether to include archived records", "Free text; the search engine ranks by relevance.", "Température en °C",
  "検索するキーワード", "One of the supported formats", "A list of {name, value} pairs", "e-mail address (RFC 5322)",
  "Priority from 1 (low) to 5 (urgent)", "    indented   text\twith tabs", "Emoji welcome 🎉 here"];
const enumValues = ["celsius", "fahrenheit", "asc", "desc", "low", "medium", "high", "json", "xml", "csv", "EUR", "USD", "日本"];

function prop(depth) {
  const k = rand();
  let s;
  if (k < 0.35) s = z.string();
  else if (k < 0.45) s = z.number();
  else if (k < 0.5) s = z.boolean();
  else if (k < 0.65) s = z.enum([...new Set(Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(enumValues)))]);
  else if (k < 0.78 && depth < 3) s = object(depth + 1);
  else if (k < 0.88 && depth < 3) s = z.array(object(depth + 1));
  else s = z.array(rand() < 0.5 ? z.string() : z.number());
  if (rand() < 0.5) s = s.describe(pick(phrases));
  return s;
}

function object(depth) {
  const shape = {};
  const n = Math.floor(rand() * (depth === 0 ? 6 : 4)) + (depth === 0 ? 0 : 1);
  for (let i = 0; i < n; i++) shape[pick(words) + (rand() < 0.3 ? `_${i}` : "")] = prop(depth);
  return z.object(shape);
}

const gemini = { tokens: {} };
for (const [name, m] of Object.entries(models)) {
  if (!name.startsWith("google/")) continue;
  for (const [k, v] of Object.entries(m.tokens)) gemini.tokens[k] = Math.max(gemini.tokens[k] ?? -Infinity, v);
}
const targets = [
  ["anthropic/claude-3-opus", models["anthropic/claude-3-opus"], new Tokenizer(claude)],
  ["anthropic/claude-sonnet-4", models["anthropic/claude-sonnet-4"], new Tokenizer(claude)],
  ["anthropic/claude-opus-4.5", models["anthropic/claude-opus-4.5"], new Tokenizer(claude)],
  ["recap/gemini", gemini, new Tokenizer(o200k)],
];

const lines = [];
for (let i = 0; i < 240; i++) {
  const [model, config, tokenizer] = targets[i % targets.length];
  const zodTools = {};
  const jsonTools = [];
  const n = Math.floor(rand() * 5); // 0 to 4 tools
  for (let j = 0; j < n; j++) {
    const name = pick(["get_weather", "search", "send_email", "create_ticket", "lookup_user", "convert_currency"]) + `_${j}`;
    const description = rand() < 0.7 ? pick(phrases) : undefined;
    const schema = object(0);
    zodTools[name] = { description, inputSchema: schema };
    const tool = { name, input_schema: z.toJSONSchema(schema) };
    if (description) tool.description = description;
    jsonTools.push(tool);
  }
  const total = count({ tokenizer, model: config, messages: [], tools: zodTools }).total - config.tokens.baseOverhead;
  lines.push(JSON.stringify({ model, tools: jsonTools, count: total }));
}
lines.push(JSON.stringify({ gemini: gemini.tokens }));
writeFileSync(new URL("tools.jsonl", import.meta.url), lines.join("\n") + "\n");
console.log(`${lines.length - 1} tool sets`);
