// gen.mjs plays the scripted conversations of chats.mjs through the real
// Vercel AI SDK and writes each chat as useChat holds it, to
// testdata/CHAT.json, and the request body useChat's DefaultChatTransport
// posts for its last turn, to testdata/CHAT.body.json.
//
// Each turn runs the way a chat route does: the UIMessages so far go
// through convertToModelMessages into streamText, on a mock language model
// that streams scripted steps (reasoning, tool calls, sources, text); the
// tools execute between steps (stopWhen: stepCountIs(5)); and the
// response's UI message stream is read back with readUIMessageStream, as
// useChat reads it. IDs come from a seeded generator shaped like the
// SDK's generateId, so the output is the same on every run.
//
//	npm ci && node gen.mjs
import { mkdir, writeFile } from 'node:fs/promises';
import { convertToModelMessages, DefaultChatTransport, readUIMessageStream, stepCountIs, streamText } from 'ai';
import { conversations, SYSTEM, scriptedModel, tools } from './chats.mjs';
import { splitInstructions } from './split.mjs';

// idGenerator returns a deterministic stand-in for the SDK's generateId:
// 16 characters of [0-9A-Za-z], from a seeded PRNG (mulberry32).
function idGenerator(seed) {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Array.from({ length: 16 }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}

// A 1×1 PNG, as useChat sends an attached image: a data URL in a file part.
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

// transportBody returns the JSON body DefaultChatTransport posts for
// messages, captured by a fetch that answers with an empty stream.
async function transportBody(chatId, messages) {
  let body;
  const transport = new DefaultChatTransport({
    api: '/api/chat',
    body: { userTimezone: 'Europe/Lisbon' }, // a body option's fields travel along
    fetch: async (_url, init) => {
      body = init.body;
      return new Response('data: [DONE]\n\n', { headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' } });
    },
  });
  const stream = await transport.sendMessages({ chatId, messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
  for await (const _ of stream); // drain
  return JSON.parse(body);
}

async function generate(name, chat, seed) {
  const id = idGenerator(seed);
  const chatId = id();
  const messages = [];
  if (chat.system) {
    messages.push({ id: id(), role: 'system', parts: [{ type: 'text', text: "This chat is the incident channel of INC-2041; the user is the on-call engineer for checkout and payments-api." }] });
  }
  for (const [i, turn] of chat.turns.entries()) {
    const parts = [{ type: 'text', text: turn.user }];
    if (turn.file) parts.unshift({ type: 'file', mediaType: 'image/png', filename: 'rollout-draft.png', url: PNG });
    messages.push({ id: id(), role: 'user', parts });

    const prompt = splitInstructions(await convertToModelMessages(messages, { tools }), SYSTEM);
    const result = streamText({
      model: scriptedModel(turn.steps, i * 10),
      instructions: prompt.instructions,
      messages: prompt.messages,
      tools,
      stopWhen: stepCountIs(5),
    });
    const stream = result.toUIMessageStream({
      originalMessages: messages,
      generateMessageId: id,
      sendReasoning: true,
      sendSources: true,
      messageMetadata: ({ part }) => (part.type === 'finish' ? { model: 'atlas-mock-1', finishReason: part.finishReason } : undefined),
    });
    let last;
    let failed;
    for await (const m of readUIMessageStream({ stream, onError: (e) => { failed = e; }, terminateOnError: true })) last = m;
    if (failed) throw failed;
    if (!last || last.role !== 'assistant') throw new Error(`${name} turn ${i}: no assistant message`);
    messages.push(structuredClone(last));
  }
  return { chatId, messages };
}

await mkdir(new URL('./testdata/', import.meta.url), { recursive: true });
let seed = 1;
for (const [name, chat] of Object.entries(conversations)) {
  const { chatId, messages } = await generate(name, chat, seed++);
  const body = await transportBody(chatId, messages);
  await writeFile(new URL(`./testdata/${name}.json`, import.meta.url), JSON.stringify(messages, null, 1) + '\n');
  await writeFile(new URL(`./testdata/${name}.body.json`, import.meta.url), JSON.stringify(body) + '\n');
  const tools = messages.flatMap((m) => m.parts).filter((p) => p.type.startsWith('tool-')).length;
  console.log(`gen: testdata/${name}.json: ${messages.length} messages, ${tools} tool parts`);
}
