// Generates fixture.jsonl: Chat Completions requests with function
// definitions (nested objects, enums, arrays, anyOf, descriptions,
// required and optional properties) and the prompt tokens that the npm
// package openai-chat-tokens (cl100k_base, rules inferred from the OpenAI
// API by its authors) estimates for each. recap's TestOpenAIRequestParity
// matches them exactly. Deterministic: node gen.mjs > fixture.jsonl
import { promptTokensEstimate, functionsTokensEstimate } from "openai-chat-tokens";
import { writeFileSync } from "node:fs";

let seed = 20261203;
const rnd = () => {
  // mulberry32
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (n) => Math.floor(rnd() * n);
const pick = (a) => a[int(a.length)];

const words = ["city", "date", "unit", "query", "limit", "user_id", "amount", "currency", "path", "recursive",
  "timeout", "tags", "priority", "format", "lang", "radius", "temperature", "dry-run", "über", "名前", "offset"];
const descs = ["The city and state, e.g. San Francisco, CA", "How many results to return.", "ISO 8601 date",
  "Whether to include archived items", "Currency code (ISO 4217).", "A free-form search query.", "Émoji allowed 🎉",
  "Path relative to the repository root", "", "Maximum time in seconds.", "Sort order: newest first."];

function schema(depth) {
  const kind = pick(["string", "string", "number", "integer", "boolean", "enum", "numenum", "array", "object",
    "anyof", "null", "untyped"]);
  const s = {};
  if (rnd() < 0.5) s.description = pick(descs);
  switch (kind) {
    case "enum": s.type = "string"; s.enum = Array.from({ length: 1 + int(4) }, () => pick(words)); break;
    case "numenum": s.type = pick(["number", "integer"]); s.enum = Array.from({ length: 1 + int(4) }, () => pick([0, 1, 2.5, -3, 100, 1e-7, 1e21, 0.1])); break;
    case "array": s.type = "array"; if (rnd() < 0.85) s.items = depth < 3 ? schema(depth + 1) : { type: "string" }; break;
    case "object": if (depth < 3) { Object.assign(s, object(depth + 1)); } else { s.type = "object"; } break;
    case "anyof": s.anyOf = [schema(depth + 1), { type: "null" }]; break;
    case "untyped": break;
    default: s.type = kind;
  }
  return s;
}

function object(depth) {
  const o = { type: "object", properties: {} };
  const n = int(depth === 0 ? 6 : 4);
  for (let i = 0; i < n; i++) o.properties[pick(words) + (rnd() < 0.3 ? i : "")] = schema(depth);
  const keys = Object.keys(o.properties);
  if (keys.length && rnd() < 0.7) o.required = keys.filter(() => rnd() < 0.5);
  return o;
}

function fn(i) {
  const f = { name: pick(["get_weather", "search", "create_invoice", "read_file", "list_users", "send_email"]) + "_" + i };
  if (rnd() < 0.8) f.description = pick(descs.filter((d) => d)) + (rnd() < 0.3 ? " Use it sparingly." : "");
  f.parameters = object(0);
  return f;
}

const systems = ["You are a helpful assistant.", "You are a coding agent. Answer tersely.\n", "Système : réponds en français.", ""];
const lines = [];
for (let c = 0; c < 400; c++) {
  const functions = Array.from({ length: 1 + int(5) }, (_, i) => fn(i));
  const messages = [];
  if (rnd() < 0.7) messages.push({ role: "system", content: pick(systems) || "Be brief." });
  const turns = 1 + int(3);
  for (let t = 0; t < turns; t++) {
    const u = { role: "user", content: pick(["What's the weather in Paris?", "Find invoices over 100 EUR", "Lies die Datei README.md", "列出所有用户"]) };
    if (rnd() < 0.2) u.name = "alice";
    messages.push(u);
    if (t < turns - 1) messages.push({ role: "assistant", content: pick(["Sure.", "Here you go: 42.", "Done — 3 files."]) });
  }
  let function_call;
  const r = rnd();
  if (r < 0.15) function_call = "none";
  else if (r < 0.3) function_call = "auto";
  else if (r < 0.45) function_call = { name: functions[0].name };
  const body = { model: "gpt-4", messages };
  // Half the requests as tools (OpenAI renders them as functions), half
  // with the legacy functions parameter.
  if (c % 2 === 0) {
    body.tools = functions.map((f) => ({ type: "function", function: f }));
    if (function_call !== undefined) body.tool_choice = typeof function_call === "string" ? function_call : { type: "function", function: function_call };
  } else {
    body.functions = functions;
    if (function_call !== undefined) body.function_call = function_call;
  }
  const prompt = promptTokensEstimate({ messages, functions, function_call });
  const defs = functionsTokensEstimate(functions);
  lines.push(JSON.stringify({ body, prompt_tokens: prompt, functions_tokens: defs }));
}
writeFileSync(new URL("fixture.jsonl", import.meta.url), lines.join("\n") + "\n");
console.log(`fixture.jsonl: ${lines.length} requests`);
