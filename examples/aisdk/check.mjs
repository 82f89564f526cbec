// check.mjs checks that recap's payloads are valid input to the real
// Vercel AI SDK. For each chat of testdata/ (made by gen.mjs), it takes the
// payload of
//
//   - the recap CLI: recap compress -trigger 200 -window 2 testdata/CHAT.json
//   - the recap server: POST /api/payload with testdata/CHAT.body.json, the
//     exact body useChat's DefaultChatTransport posts,
//
// and checks that
//
//  1. the chat was compressed (the payload has recap's summary message);
//  2. every message has a UIMessage's shape (id, role, parts), and every
//     message but the summary is the input's message, member for member;
//  3. validateUIMessages accepts the payload with the chat's tools;
//  4. convertToModelMessages converts it;
//  5. streamText runs on it, with the route's prompt and the payload's
//     leading system messages (recap's summary) as `instructions`, as the
//     README recommends; and also with them left in `messages` and
//     allowSystemInMessages: true; while without that option AI SDK 7
//     rejects them, as documented.
//
// It ends with the line "aisdk: P passed, F failed" (payloads) and exits 1
// if any failed.
//
//	npm ci && node check.mjs [--recap BIN] [--server BIN]
//
// Without --recap or --server it builds both from ../recap and ../server
// with the go command.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { convertToModelMessages, InvalidPromptError, streamText, validateUIMessages } from 'ai';
import { answer, SYSTEM, scriptedModel, tools } from './chats.mjs';
import { splitInstructions } from './split.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const examples = join(here, '..');
const testdata = join(here, 'testdata');
const SUMMARY_PREFIX = 'recap-summary:';
const FLAGS = ['-trigger', '200', '-window', '2'];

const { values: args } = parseArgs({ options: { recap: { type: 'string' }, server: { type: 'string' } } });
const tmp = mkdtempSync(join(tmpdir(), 'recap-aisdk-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

function build(pkg) {
  const out = join(tmp, pkg);
  const r = spawnSync('go', ['build', '-o', out, `./${pkg}`], { cwd: examples, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`go build ./${pkg} failed`);
  return out;
}

// cliPayload runs recap compress on file and returns the payload.
function cliPayload(bin, file) {
  const r = spawnSync(bin, ['compress', ...FLAGS, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`recap compress exited ${r.status}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout);
}

// startServer starts the server on a free port of 127.0.0.1 and returns its
// base URL, read from its "listening" log line, and a stop function.
async function startServer(bin) {
  // -background=false: the response carries the summary it made (by
  // default the server summarizes after answering).
  const child = spawn(bin, ['-addr', '127.0.0.1:0', '-insecure-no-auth', '-db', join(tmp, 'recap.db'), '-background=false', ...FLAGS], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const base = await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s) => {
      log += s;
      // JSON lines by default (-log-format json), logfmt with -log-format text.
      const m = log.match(/"msg":"listening","addr":"([^"]+)"/) ?? log.match(/msg=listening addr=(\S+)/);
      if (m) resolve(`http://${m[1]}`);
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}:\n${log}`)));
  });
  return { base, stop: () => child.kill('SIGTERM') };
}

async function serverPayload(base, bodyFile) {
  const res = await fetch(`${base}/api/payload`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: readFileSync(bodyFile) });
  const out = await res.json();
  if (res.status !== 200) throw new Error(`POST /api/payload: ${res.status} ${JSON.stringify(out)}`);
  return out.payload;
}

// canonical returns v as JSON with object members sorted, to compare
// messages member for member whatever their order.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

// checkShape checks steps 1 and 2: a summary, UIMessage shapes, and the
// other messages unchanged from the input. It throws at the first fault.
function checkShape(payload, input) {
  if (!Array.isArray(payload) || payload.length === 0) throw new Error('payload is not a non-empty array');
  if (!payload.some((m) => m?.id?.startsWith(SUMMARY_PREFIX))) throw new Error(`no ${SUMMARY_PREFIX} message: the chat was not compressed, nothing was checked`);
  const byID = new Map(input.map((m) => [m.id, m]));
  for (const [i, m] of payload.entries()) {
    const where = `payload[${i}] (id ${JSON.stringify(m?.id)})`;
    if (typeof m?.id !== 'string' || m.id === '') throw new Error(`${where}: no id`);
    if (!['system', 'user', 'assistant'].includes(m.role)) throw new Error(`${where}: role ${JSON.stringify(m.role)} is not a UIMessage role`);
    if (!Array.isArray(m.parts)) throw new Error(`${where}: no parts array, as a UIMessage has (members: ${Object.keys(m).join(', ')})`);
    for (const [j, p] of m.parts.entries()) {
      if (typeof p?.type !== 'string') throw new Error(`${where}: parts[${j}] has no type`);
    }
    if (m.id.startsWith(SUMMARY_PREFIX)) {
      if (!m.parts.some((p) => p.type === 'text' && p.text)) throw new Error(`${where}: the summary has no text part`);
      continue;
    }
    const orig = byID.get(m.id);
    if (!orig) throw new Error(`${where}: not in the input`);
    if (canonical(orig) !== canonical(m)) throw new Error(`${where}: differs from the input:\n  in:  ${canonical(orig)}\n  out: ${canonical(m)}`);
  }
}

// run streams one answer on a mock model with the prompt options given and
// returns the prompt the model received.
async function run(options) {
  const model = scriptedModel([answer('Noted.')]);
  let failed;
  const result = streamText({ model, tools, onError: ({ error }) => { failed = error; }, ...options });
  // A failed stream rejects result.text with NoOutputGeneratedError; the
  // cause is what onError saw.
  const text = await result.text.catch((e) => {
    throw failed ?? e;
  });
  if (failed) throw failed;
  if (text !== 'Noted.') throw new Error(`streamText answered ${JSON.stringify(text)}`);
  return model.doStreamCalls[0].prompt;
}

// brief returns an error's message without the whole value that the SDK's
// type validation errors quote, on one line.
function brief(e) {
  const msg = String(e?.message ?? e).replace(/Value: [\s\S]*?\.\nError message: /, '');
  return msg.replace(/\s+/g, ' ').slice(0, 600);
}

// checkSDK checks steps 3 to 5, each on its own, and returns the
// failures.
async function checkSDK(payload) {
  const errors = [];
  const step = async (name, f) => {
    try {
      return await f();
    } catch (e) {
      errors.push(`${name}: ${brief(e)}`);
    }
  };
  await step('validateUIMessages', () => validateUIMessages({ messages: payload, tools }));
  const modelMessages = await step('convertToModelMessages', () => convertToModelMessages(payload, { tools }));
  if (!modelMessages) return errors;
  const summaries = modelMessages.filter((m, i) => m.role === 'system' && payload[i]?.id?.startsWith(SUMMARY_PREFIX));

  // The README's way: the route's prompt and the payload's leading system
  // messages (the pinned ones and recap's summary) as instructions.
  await step('streamText with instructions', async () => {
    const { instructions, messages } = splitInstructions(modelMessages, SYSTEM);
    const prompt = await run({ instructions, messages });
    const sys = prompt.filter((m) => m.role === 'system').map((m) => m.content);
    if (sys[0] !== SYSTEM) throw new Error(`the model's first system message is ${JSON.stringify(sys[0])}, not the route's prompt`);
    if (summaries.some((m) => !sys.includes(m.content))) throw new Error('the summary did not reach the model as a system message');
  });

  // The opt-in: system messages left in messages.
  await step('streamText with allowSystemInMessages', () => run({ instructions: SYSTEM, messages: modelMessages, allowSystemInMessages: true }));

  // AI SDK 7's default: system messages in messages are rejected.
  if (modelMessages.some((m) => m.role === 'system')) {
    await step('streamText without allowSystemInMessages', async () => {
      try {
        await run({ instructions: SYSTEM, messages: modelMessages });
      } catch (e) {
        if (InvalidPromptError.isInstance(e)) return;
        throw new Error(`failed, but not with an InvalidPromptError: ${e}`);
      }
      throw new Error('accepted system messages in messages; AI SDK 7 rejects them by default: revisit the README advice');
    });
  }
  return errors;
}

const chats = readdirSync(testdata).filter((f) => f.endsWith('.json') && !f.endsWith('.body.json')).sort();
if (chats.length === 0) throw new Error(`no chats in ${testdata}: run gen.mjs`);
const recapBin = args.recap ?? build('recap');
const serverBin = args.server ?? build('server');
const server = await startServer(serverBin);
let checked = 0;
let failed = 0;
try {
  for (const file of chats) {
    const name = file.replace(/\.json$/, '');
    const input = JSON.parse(readFileSync(join(testdata, file), 'utf8'));
    const sources = {
      cli: () => cliPayload(recapBin, join(testdata, file)),
      server: () => serverPayload(server.base, join(testdata, `${name}.body.json`)),
    };
    for (const [source, get] of Object.entries(sources)) {
      checked++;
      const errors = [];
      let payload;
      try {
        payload = await get();
        checkShape(payload, input);
      } catch (e) {
        errors.push(e?.message ?? String(e));
      }
      if (payload) errors.push(...(await checkSDK(payload)));
      if (errors.length === 0) {
        console.log(`ok   ${name} (${source}): ${input.length} messages → ${payload.length}`);
        continue;
      }
      failed++;
      console.log(`FAIL ${name} (${source}):\n  ${errors.join('\n  ')}`);
    }
  }
} finally {
  server.stop();
}
console.log(`aisdk: ${checked} payloads checked with ai ${JSON.parse(readFileSync(join(here, 'node_modules/ai/package.json'), 'utf8')).version}`);
console.log(`aisdk: ${checked - failed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
