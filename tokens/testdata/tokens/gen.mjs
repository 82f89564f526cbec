// Regenerates fixture.jsonl: texts with their token counts from OpenAI's
// tiktoken (the npm WASM build, the reference) and from gpt-tokenizer (what
// the seed's JavaScript client uses).
//
//   cd tokens/testdata/tokens && npm install --no-save gpt-tokenizer@4.0.0 tiktoken@1.0.22 && node gen.mjs
//
// Each line is {"cat", "b64", "o200k", "o200k_gpt", "cl100k", "cl100k_gpt"}.
// b64 holds the text's raw bytes, which may be invalid UTF-8. The counts are
// of the string a JavaScript client gets from those bytes: TextDecoder
// ("utf-8", non-fatal, ignoreBOM so that a leading U+FEFF stays) replaces each maximal ill-formed subsequence with one
// U+FFFD (the WHATWG rule). Special-token look-alikes are counted as
// ordinary text (encode_ordinary; gpt-tokenizer with disallowedSpecial empty).
// The texts come from a seeded generator: the output is the same every run.
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";
const require = createRequire(import.meta.url);
const { get_encoding } = require("tiktoken");
const gptO200k = require("gpt-tokenizer/encoding/o200k_base");
const gptCl100k = require("gpt-tokenizer/encoding/cl100k_base");
const gpt4o = require("gpt-tokenizer/model/gpt-4o");

let seed = 20261202;
function rnd() { // mulberry32
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = (a) => a[Math.floor(rnd() * a.length)];
const rep = (n, f) => Array.from({ length: n }, f);
const cp = (lo, hi) => String.fromCodePoint(int(lo, hi));

const cases = []; // [cat, Uint8Array]
const enc = new TextEncoder();
const add = (cat, s) => cases.push([cat, typeof s === "string" ? enc.encode(s) : s]);

// English prose, with contractions in several cases.
const words = "the quick brown fox jumps over lazy dog and then we went to market because it was raining heavily in London yesterday morning while children played chess under old oak trees near river banks".split(" ");
const contr = ["don't", "I'm", "we'll", "they're", "you've", "she'd", "it's", "DON'T", "I'M", "WE'LL", "THEY'RE", "You'Ve", "it'S", "O'Brien", "rock'n'roll", "'tis", "y'all"];
for (let i = 0; i < 300; i++) {
  const n = int(1, 60);
  let s = rep(n, () => (rnd() < 0.1 ? pick(contr) : pick(words))).join(" ");
  if (rnd() < 0.5) s = s[0].toUpperCase() + s.slice(1) + pick([".", "!", "?", "...", "", ";"]);
  if (rnd() < 0.2) s = s.toUpperCase();
  if (rnd() < 0.2) s = s.replace(/ /g, () => pick([" ", "  ", "\n", ", "]));
  add("prose", s);
}

// Code in several languages.
const ident = () => pick(["ctx", "userID", "maxTokens", "HTTPServer", "parse_json", "__init__", "fooBar2", "x", "_tmp", "κόσμος", "dataFrame", "i18n"]);
const snippets = [
  () => `func ${ident()}(ctx context.Context, n int) (string, error) {\n\tif n <= 0 {\n\t\treturn "", fmt.Errorf("bad n: %d", n)\n\t}\n\treturn strings.Repeat("${ident()}", n), nil\n}\n`,
  () => `def ${ident()}(self, items: list[int]) -> dict:\n    """Docstring with 'quotes'."""\n    return {k: v ** 2 for k, v in enumerate(items) if v % ${int(2, 9)} == 0}\n`,
  () => `const ${ident()} = async (req, res) => {\n  const { id } = req.params;\n  await db.query(\`SELECT * FROM users WHERE id = \${id}\`);\n  res.json({ ok: true, id });\n};\n`,
  () => `fn ${ident()}<'a>(s: &'a str) -> Option<&'a str> {\n    s.split_once("::").map(|(a, _)| a)\n}\n`,
  () => `#include <stdio.h>\nint main(int argc, char **argv) {\n    for (int i = 0; i < ${int(1, 999)}; ++i) printf("%d\\n", i);\n    return 0;\n}\n`,
  () => `SELECT u.id, COUNT(o.id) AS n\nFROM users u LEFT JOIN orders o ON o.user_id = u.id\nWHERE u.created_at > '2024-0${int(1, 9)}-01'\nGROUP BY u.id HAVING COUNT(o.id) > ${int(1, 50)};\n`,
  () => `#!/bin/sh\nset -eu\nfor f in ./*.log; do\n  grep -c 'ERROR' "$f" || true\ndone | sort -n | tail -${int(1, 20)}\n`,
  () => `<div class="card ${ident()}">\n  <h2>Title &amp; more</h2>\n  <a href="https://example.com/path?q=${int(1, 99999)}&x=1">link</a>\n</div>\n`,
  () => `.btn:hover { color: #${int(0, 0xffffff).toString(16)}; margin: 0 ${int(0, 20)}px; }\n`,
  () => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${ident().toLowerCase()}\nspec:\n  containers:\n    - image: "nginx:1.${int(10, 27)}"\n`,
];
for (let i = 0; i < 250; i++) {
  let s = rep(int(1, 4), () => pick(snippets)()).join("\n");
  if (rnd() < 0.3) s = s.replace(/\n/g, "\r\n");
  if (rnd() < 0.2) s = s.replace(/\t/g, "    ");
  add("code", s);
}

// JSON.
function jv(d) {
  const r = rnd();
  if (d > 3 || r < 0.3) return pick([int(-1e6, 1e6), rnd() * 1000, true, false, null, "str" + int(0, 99), "Ünïcødé ✓", "", "line\nbreak"]);
  if (r < 0.65) return rep(int(0, 5), () => jv(d + 1));
  const o = {};
  for (let k = 0; k < int(0, 6); k++) o[pick(["id", "name", "toolCallId", "input", "output", "createdAt", "x_y", "données"])] = jv(d + 1);
  return o;
}
for (let i = 0; i < 150; i++) add("json", JSON.stringify(jv(0), null, pick([0, 0, 1, 2, "\t"])));

// CJK.
const cjk = [[0x4e00, 0x9fff], [0x3040, 0x309f], [0x30a0, 0x30ff], [0xac00, 0xd7a3], [0x3000, 0x303f], [0xff01, 0xff5e]];
for (let i = 0; i < 100; i++) {
  add("cjk", rep(int(1, 120), () => (rnd() < 0.08 ? pick([" ", "，", "。", "\n", "、", "「", "」", "123"]) : cp(...pick(cjk)))).join(""));
}
add("cjk", "我也想给我的朋友买一本关于园艺的书，你有什么推荐吗？");
add("cjk", "お誕生日おめでとうございます！東京タワーは３３３メートルです。");
add("cjk", "안녕하세요, 오늘 날씨가 정말 좋네요. 서울에서 부산까지 KTX로 2시간 30분 걸립니다.");

// Other scripts, with their combining signs.
const scripts = { arabic: [0x0621, 0x064a], arabicMarks: [0x064b, 0x0652], hebrew: [0x05d0, 0x05ea], devanagari: [0x0905, 0x0939], devSigns: [0x093e, 0x094d], thai: [0x0e01, 0x0e2e], thaiMarks: [0x0e31, 0x0e3a], cyrillic: [0x0410, 0x044f], greek: [0x0391, 0x03c9], bengali: [0x0985, 0x09b9], tamil: [0x0b85, 0x0b9f] };
const sk = Object.keys(scripts);
for (let i = 0; i < 150; i++) {
  const a = pick(sk);
  add("scripts", rep(int(1, 80), () => (rnd() < 0.15 ? pick([" ", " ", "، ", ". ", "\n", "؟", "।"]) : cp(...scripts[rnd() < 0.3 ? pick(sk) : a]))).join(""));
}
add("scripts", "مرحبا، هل يمكنك كتابة بطاقة تهنئة قصيرة بالعربية؟");
add("scripts", "क्या आप इसे हिंदी में भी लिख सकते हैं? जन्मदिन मुबारक हो दादी।");
add("scripts", "Привет, как дела? Ελληνικά κείμενα. שלום עולם. สวัสดีครับ");

// Emoji: ZWJ sequences, skin tones, flags, keycaps, variation selectors.
const emo = ["👩‍👩‍👧", "👨🏽‍💻", "🧑🏿‍🚀", "👍🏻", "👍🏿", "🏳️‍🌈", "🇫🇷", "🇯🇵", "🇺🇸", "1️⃣", "#️⃣", "❤️", "❤", "😀", "🤦‍♀️", "🫶🏼", "🐈‍⬛", "👁️‍🗨️", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "☺︎"];
for (let i = 0; i < 100; i++) add("emoji", rep(int(1, 30), () => (rnd() < 0.3 ? pick([" ", "ok ", "!", "\n", "a"]) : pick(emo))).join(""));

// Combining marks, alone and stacked.
for (let i = 0; i < 80; i++) {
  let s = "";
  for (let k = 0; k < int(1, 40); k++) {
    s += rnd() < 0.2 ? pick([" ", "1", "!", "\n", "É", "ǅ", "ʰ"]) : pick(["a", "e", "o", "Z", "n", "ı", "i"]);
    for (let m = 0; m < int(0, rnd() < 0.1 ? 12 : 3); m++) s += cp(0x0300, 0x036f);
  }
  if (rnd() < 0.3) s = cp(0x0300, 0x036f) + s;
  add("marks", s.normalize(pick(["NFC", "NFD", "NFKC"])));
}

// Whitespace runs, Unicode spaces, and the known differences (U+FEFF, U+0085).
const spaces = [" ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u2003", "\u3000", "\u2028", "\u202f", "\u000b", "\u000c"];
for (let i = 0; i < 150; i++) {
  const n = pick([1, 2, 3, 7, 16, 100, 1000, int(1, 3000)]);
  let s = rep(pick([1, 1, 2]), () => pick(spaces).repeat(n)).join("");
  if (rnd() < 0.6) s = pick(["", "a", "word", "x.", "}"]) + s + pick(["", "b", "end", "\n", " z"]);
  add("whitespace", s);
}
const kd = ["\u0085", "\uFEFF", " ", "a", "\n", "!", "1", "\t", "é"];
for (let i = 0; i < 100; i++) add("known-diff", rep(int(2, 9), () => pick(kd)).join("") + pick(["\u0085", "\uFEFF"]));
for (const t of ["a\uFEFF b", "  \uFEFF  a", "\uFEFFhello", "x\u0085y", "line\u0085\u0085next", " \u0085 ", "\uFEFF\uFEFF", "a \uFEFF\n b", "text\u0085", "\u0085"]) add("known-diff", t);

// Digits and numbers.
for (let i = 0; i < 80; i++) {
  add("digits", pick([
    () => String(int(0, 9)).repeat(int(1, 500)),
    () => rep(int(1, 20), () => int(0, 1e9)).join(pick([",", " ", ".", ""])),
    () => "٠١٢٣٤٥٦٧٨٩".repeat(int(1, 5)) + " ١٢٣",
    () => "०१२३४५६७८९ ¹²³ ½ Ⅻ ⅷ ①②③ １２３４",
    () => `${int(0, 99)}.${int(0, 99)}% of $${int(0, 99999)}.${int(0, 99)} in 2026-12-0${int(1, 9)}T0${int(0, 9)}:30:00Z`,
  ])());
}

// Very long words and blobs.
const b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
for (let i = 0; i < 80; i++) {
  add("long", pick([
    () => pick(["a", "x", "Z", "é", "я", "字"]).repeat(int(100, 5000)),
    () => "Supercalifragilisticexpialidocious".repeat(int(1, 50)),
    () => rep(int(100, 4000), () => pick(b64chars)).join("") + "==",
    () => rep(int(100, 2000), () => pick("0123456789abcdef")).join(""),
    () => "https://example.com/" + rep(int(10, 300), () => pick(b64chars)).join("") + "?utm_source=x&y=%20z",
    () => "Pneumonoultramicroscopicsilicovolcanoconiosis and antidisestablishmentarianism",
    () => "!".repeat(int(100, 3000)),
    () => "-=".repeat(int(50, 1000)) + "\n",
  ])());
}

// Special-token look-alikes: user text, never special.
const specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>", "<|im_sep|>", "<|endof", "|>", "<|"];
for (let i = 0; i < 80; i++) add("specials", rep(int(1, 12), () => (rnd() < 0.5 ? pick(specials) : pick(["user\n", "Hello ", "system", " ", "\n", "assistant: hi"]))).join(""));

// Invalid UTF-8, as bytes.
const bad = [[0x80], [0xbf], [0xc0, 0x80], [0xc1, 0xbf], [0xe2, 0x82], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0xf4, 0x90, 0x80, 0x80], [0xf5], [0xff], [0xfe], [0xf0, 0x80], [0xe1, 0x80, 0x41], [0xc2]];
for (let i = 0; i < 150; i++) {
  const parts = [];
  for (let k = 0; k < int(1, 20); k++) {
    if (rnd() < 0.5) parts.push(...pick(bad));
    else if (rnd() < 0.3) parts.push(...rep(int(1, 8), () => int(0, 255)));
    else parts.push(...enc.encode(pick(["abc", " ", "é", "😀", "中", "\n", "word ", "'s"])));
  }
  add("invalid-utf8", Uint8Array.from(parts));
}

// Chat-shaped texts.
const lines = ["User: Can you help me?", "Assistant: Of course! What do you need?", "System: You are helpful.", "- item one\n- item two", "| a | b |\n|---|---|\n| 1 | 2 |", "**bold** and _italic_ and `code`", "> quoted reply", "```json\n{\"a\": 1}\n```", "1. First\n2. Second", "Thanks!!! 🙏", "tool_call: {\"name\":\"search\",\"arguments\":{\"q\":\"weather\"}}"];
for (let i = 0; i < 150; i++) add("chat", rep(int(1, 15), () => pick(lines)).join(pick(["\n", "\n\n", " "])));

// Case-folding and letter-class edge cases.
for (const t of ["it'ſ", "IT'ſ", "we'LL", "we'Ll", "they'RE", "I'D", "x'S", "'s", "'S'S", "İstanbul ıi", "K Kelvin", "ǅemal ǈ ǋ", "ʰʲʷ modifier", "ª º", "ﬁ ﬂ ligatures", "ΣΑΣ σας", "straße STRASSE", "ǰ̌", "Ⅷ ⅷ", "DŽungla"]) add("casefold", t);
for (let i = 0; i < 30; i++) add("casefold", rep(int(1, 10), () => pick(["'", "'s", "'S", "'ſ", "'T", "'rE", "'Ve", "'M", "'lL", "'D", "a", "B", "ǅ", "ʰ", " "])).join(""));

// Random Unicode soup from assigned ranges.
const ranges = [[0x20, 0x7e], [0xa0, 0x24f], [0x370, 0x3ff], [0x400, 0x4ff], [0x590, 0x5ff], [0x600, 0x6ff], [0x900, 0x97f], [0xe00, 0xe5b], [0x1e00, 0x1eff], [0x2000, 0x206f], [0x20a0, 0x20c0], [0x2100, 0x214f], [0x2190, 0x23ff], [0x2500, 0x27bf], [0x3000, 0x303f], [0x4e00, 0x4fff], [0xac00, 0xad00], [0xff00, 0xffef], [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x0300, 0x036f]];
for (let i = 0; i < 300; i++) add("soup", rep(int(1, 100), () => cp(...pick(ranges))).join(""));

const te = get_encoding("o200k_base"), tc = get_encoding("cl100k_base");
const dec = new TextDecoder("utf-8", { ignoreBOM: true }); // keep a leading U+FEFF: it is text here
const none = { disallowedSpecial: new Set() };
const out = cases.map(([cat, bytes]) => {
  const s = dec.decode(bytes);
  return JSON.stringify({
    cat, b64: Buffer.from(bytes).toString("base64"),
    o200k: te.encode_ordinary(s).length, o200k_gpt: gptO200k.countTokens(s, none),
    cl100k: tc.encode_ordinary(s).length, cl100k_gpt: gptCl100k.countTokens(s, none),
  });
});
writeFileSync("fixture.jsonl", out.join("\n") + "\n");
const diff = (k) => out.map(JSON.parse).filter((r) => r[k] !== r[k + "_gpt"]).length;
console.log(`${out.length} texts; gpt-tokenizer differs from tiktoken on ${diff("o200k")} (o200k) and ${diff("cl100k")} (cl100k)`);

// chats.json: chats (without names) with gpt-tokenizer's encodeChat length
// for gpt-4o, which frames each message as <|im_start|>role<|im_sep|>
// content<|im_end|> and primes the reply with 3 more tokens.
const roles = ["system", "user", "assistant", "user", "assistant", "tool"];
const chats = [];
for (let i = 0; i < 40; i++) {
  const msgs = rep(int(1, 12), (_, k) => ({ role: k === 0 && rnd() < 0.5 ? "system" : pick(roles.slice(1)), content: dec.decode(pick(cases)[1]).slice(0, 300) }));
  chats.push({ messages: msgs, encodeChat: gpt4o.encodeChat(msgs, undefined, none).length });
}
writeFileSync("chats.json", JSON.stringify(chats, null, 1) + "\n");
