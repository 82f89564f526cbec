// The tools and the scripted conversations that gen.mjs plays through the
// AI SDK, and that check.mjs validates recap's payloads against.
import { tool, simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

// SYSTEM is the pinned system prompt a chat route passes as `instructions`.
export const SYSTEM =
  'You are Atlas, a careful travel and operations assistant. Answer concisely, cite concrete numbers, and use the tools instead of guessing.';

const forecasts = {
  Lisbon: { Sat: { tempC: 21, sky: 'sunny', windKmh: 12 }, Sun: { tempC: 19, sky: 'cloudy', windKmh: 25 } },
  Porto: { Sat: { tempC: 17, sky: 'rain', windKmh: 30 }, Sun: { tempC: 18, sky: 'cloudy', windKmh: 18 } },
  Kyoto: { Sat: { tempC: 14, sky: 'sunny', windKmh: 8 }, Sun: { tempC: 16, sky: 'sunny', windKmh: 6 } },
  Oslo: { Sat: { tempC: -3, sky: 'snow', windKmh: 20 }, Sun: { tempC: -5, sky: 'clear', windKmh: 10 } },
};

// tools are the chats' tools, each with an execute function, so that
// streamText runs them between the model's steps.
export const tools = {
  getWeather: tool({
    description: 'Weather forecast for a city, by day.',
    inputSchema: z.object({ city: z.string(), days: z.array(z.enum(['Sat', 'Sun'])) }),
    outputSchema: z.record(z.string(), z.object({ tempC: z.number(), sky: z.string(), windKmh: z.number() })),
    execute: async ({ city, days }) => {
      const f = forecasts[city];
      if (!f) throw new Error(`no forecast for ${city}`);
      return Object.fromEntries(days.map((d) => [d, f[d]]));
    },
  }),
  searchHotels: tool({
    description: 'Hotels in a city under a nightly budget in euros.',
    inputSchema: z.object({ city: z.string(), maxEur: z.number() }),
    execute: async ({ city, maxEur }) =>
      [
        { name: `${city} Riverside`, eur: Math.round(maxEur * 0.8), rating: 4.4, note: 'quiet rooms facing the river, breakfast included' },
        { name: `Casa ${city}`, eur: Math.round(maxEur * 0.95), rating: 4.7, note: 'family run, ten minutes from the old town on foot' },
      ],
  }),
  getLogs: tool({
    description: 'Recent log lines of a service.',
    inputSchema: z.object({ service: z.string(), level: z.enum(['error', 'warn', 'info']), lines: z.number().int() }),
    execute: async ({ service, level, lines }) => ({
      service,
      level,
      lines: Array.from({ length: lines }, (_, i) =>
        `06:${String(14 + i).padStart(2, '0')}:02 ${level} ${service}: upstream connect error or disconnect/reset before headers, reset reason: connection termination (attempt ${i + 1})`),
    }),
  }),
  listDeploys: tool({
    description: 'The last deployments of a service.',
    inputSchema: z.object({ service: z.string(), last: z.number().int() }),
    execute: async ({ service, last }) =>
      Array.from({ length: last }, (_, i) => ({ version: `v2.${41 - i}.0`, at: `2026-12-02T0${6 - i}:12:30Z`, by: ['deploy-bot', 'maria', 'deploy-bot'][i % 3], service })),
  }),
  rollback: tool({
    description: 'Roll a service back to a version.',
    inputSchema: z.object({ service: z.string(), to: z.string() }),
    execute: async ({ service, to }) => {
      if (to === 'v1.0.0') throw new Error(`${service} has no release ${to} in the registry`);
      return { ok: true, service, version: to, healthyPods: '6/6' };
    },
  }),
  searchDocs: tool({
    description: 'Search the engineering handbook.',
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => ({
      query,
      results: [1, 2, 3].map((n) => ({
        title: `Handbook ${n}: ${query}`,
        excerpt: `Section ${n} on ${query}. Keep the blast radius small: roll out to one region first, watch the error budget for thirty minutes, and keep the previous release warm so that a rollback takes under five minutes. Record every decision in the incident channel with a timestamp.`,
      })),
    }),
  }),
};

// A step of the scripted model: reasoning, tool calls, sources and text.
// call(name, input) and answer(text) build steps.
export const call = (...calls) => ({ calls });
export const answer = (text, extra = {}) => ({ text, ...extra });

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 40, text: 40, reasoning: undefined },
};

// chunks turns a step into the stream parts of a language model, as a
// provider streams them: reasoning, then sources, then text in a few
// deltas, then tool calls, then the finish.
function chunks(step, n) {
  const out = [{ type: 'stream-start', warnings: [] }];
  if (step.reasoning) {
    out.push({ type: 'reasoning-start', id: `r${n}` }, { type: 'reasoning-delta', id: `r${n}`, delta: step.reasoning }, { type: 'reasoning-end', id: `r${n}` });
  }
  for (const [i, s] of (step.sources ?? []).entries()) {
    out.push({ type: 'source', sourceType: 'url', id: `src-${n}-${i}`, url: s.url, title: s.title });
  }
  if (step.text) {
    out.push({ type: 'text-start', id: `t${n}` });
    for (const piece of step.text.match(/.{1,40}(\s|$)|.+/gs)) {
      out.push({ type: 'text-delta', id: `t${n}`, delta: piece });
    }
    out.push({ type: 'text-end', id: `t${n}` });
  }
  for (const [i, [toolName, input]] of (step.calls ?? []).entries()) {
    out.push({ type: 'tool-call', toolCallId: `call_${n}_${i}`, toolName, input: JSON.stringify(input) });
  }
  out.push({ type: 'finish', finishReason: { unified: step.calls ? 'tool-calls' : 'stop', raw: undefined }, usage });
  return out;
}

// scriptedModel returns a mock language model that streams the steps in
// turn, one per call, and records the prompts it was given.
export function scriptedModel(steps, first = 0) {
  let i = 0;
  return new MockLanguageModelV4({
    provider: 'mock',
    modelId: 'atlas-mock-1',
    doStream: async () => {
      const step = steps[Math.min(i, steps.length - 1)];
      i++;
      return { stream: simulateReadableStream({ chunks: chunks(step, first + i), initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
}

const lorem = (topic) =>
  `Here is the longer version on ${topic}. First, the constraints: the budget, the dates and what cannot move. ` +
  `Second, the options that fit them, each with its cost and its risk, in numbers rather than adjectives. ` +
  `Third, what I would do and why, and what would change my mind. I checked each figure against the tool output above; ` +
  `where a tool gave nothing I say so instead of guessing.`;

// conversations: each chat is a list of turns; a turn is the user's text
// (and optional file parts) and the model's steps for it.
export const conversations = {
  travel: {
    system: false,
    turns: [
      { user: "What's the weather in Lisbon this weekend, and is it good for the beach?", steps: [
        call(['getWeather', { city: 'Lisbon', days: ['Sat', 'Sun'] }]),
        answer('Saturday is the beach day: 21 °C, sunny, light wind (12 km/h). Sunday turns cloudy at 19 °C with 25 km/h wind.', { reasoning: 'Need the Lisbon forecast for both days.' })] },
      { user: 'And Porto, in case we drive north?', steps: [
        call(['getWeather', { city: 'Porto', days: ['Sat', 'Sun'] }]),
        answer('Porto is worse: rain and 30 km/h wind on Saturday at 17 °C, cloudy on Sunday at 18 °C. Stay in Lisbon for the beach.')] },
      { user: 'Find us a hotel in Lisbon under 150 euros a night.', steps: [
        call(['searchHotels', { city: 'Lisbon', maxEur: 150 }]),
        answer('Two fit: Lisbon Riverside at 120 € (4.4, breakfast included) and Casa Lisbon at 143 € (4.7, ten minutes from the old town). ' + lorem('the two hotels'))] },
      { user: 'We prefer the family-run one. Is it close to the train to Cascais?', steps: [
        answer('Casa Lisbon is about fifteen minutes on foot from Cais do Sodré, where the Cascais line starts; trains run every 20 minutes and take 40 minutes.')] },
      { user: 'Compare the weather in Kyoto and Oslo for a trip in two weeks, just out of curiosity.', steps: [
        call(['getWeather', { city: 'Kyoto', days: ['Sat', 'Sun'] }], ['getWeather', { city: 'Oslo', days: ['Sat', 'Sun'] }]),
        answer('Kyoto: sunny, 14–16 °C, almost no wind. Oslo: snow on Saturday at −3 °C, clear and −5 °C on Sunday. Kyoto wins unless you want snow.')] },
      { user: 'What about Reykjavik?', steps: [
        call(['getWeather', { city: 'Reykjavik', days: ['Sat'] }]),
        answer('The forecast service has nothing for Reykjavik, so I cannot tell you; I would not guess for Iceland in winter.')] },
      { user: 'Back to Lisbon: plan Saturday for us, beach in the afternoon.', steps: [
        answer('Morning: pastries at Manteigaria and the Alfama walk (2 h). 13:00 lunch in Cais do Sodré, 14:00 train to Cascais, beach at Praia da Rainha until 18:00, dinner back in Lisbon. ' + lorem('the Saturday plan'))] },
      { user: 'Add a backup plan if the wind picks up.', steps: [
        answer('If the wind passes 25 km/h, swap the beach for the Gulbenkian museum (2 h, 10 €) and the LX Factory market; the train tickets stay valid all day.')] },
      { user: 'How much will the weekend cost for two, roughly?', steps: [
        call(['searchHotels', { city: 'Lisbon', maxEur: 150 }]),
        answer('About 620 € for two: 286 € for two nights at Casa Lisbon, 180 € for food, 24 € for trains, 20 € for the museum and 110 € of margin. ' + lorem('the budget'), { reasoning: 'Two nights at 143 € plus food, trains and a museum.' })] },
      { user: 'Write it all up as a short checklist.', steps: [
        answer('- Book Casa Lisbon, 2 nights, 143 €/night\n- Saturday: Alfama, lunch at Cais do Sodré, 14:00 train, Praia da Rainha\n- Wind over 25 km/h: Gulbenkian + LX Factory\n- Sunday: cloudy, 19 °C: city day\n- Budget: about 620 € for two')] },
      { user: 'Thanks! One more: is Sunday ok for a boat tour?', steps: [
        call(['getWeather', { city: 'Lisbon', days: ['Sun'] }]),
        answer('Sunday has 25 km/h wind, at the limit most Tagus tours accept; book one you can cancel the same morning.')] },
      { user: 'Great. What did we decide about the hotel and the beach day?', steps: [
        answer('Casa Lisbon at 143 € a night, and Saturday as the beach day at Praia da Rainha, with the museum as the windy-day backup.')] },
    ],
  },
  incident: {
    system: true,
    turns: [
      { user: 'Our checkout service is returning 502s since this morning. Can you look?', steps: [
        call(['getLogs', { service: 'checkout', level: 'error', lines: 4 }]),
        answer('checkout cannot reach its upstream: every error is "upstream connect error … connection termination" since 06:14. ' + lorem('the log lines'), { reasoning: 'Start with the error logs.' })] },
      { user: 'Which upstream? payments-api?', steps: [
        call(['getLogs', { service: 'payments-api', level: 'warn', lines: 3 }]),
        answer('Yes: payments-api logs the same resets from 06:14. Its pods accept connections and then drop them.')] },
      { user: 'Check the deployment history.', steps: [
        call(['listDeploys', { service: 'payments-api', last: 3 }]),
        answer('payments-api v2.41.0 went out at 06:12:30, two minutes before the first error. v2.40.0 before it ran for a day without resets.')] },
      { user: 'Roll back to v1.0.0, the last one I trust.', steps: [
        call(['rollback', { service: 'payments-api', to: 'v1.0.0' }]),
        answer('The rollback failed: the registry has no v1.0.0 for payments-api. The newest release before the incident is v2.40.0.')] },
      { user: 'Ok, v2.40.0 then.', steps: [
        call(['rollback', { service: 'payments-api', to: 'v2.40.0' }]),
        answer('Rolled back to v2.40.0; 6 of 6 pods are healthy.')] },
      { user: 'Are the 502s gone?', steps: [
        call(['getLogs', { service: 'checkout', level: 'error', lines: 1 }]),
        answer('One more error at 06:14 in the buffer, none since the rollback. I would watch for 30 minutes before closing.')] },
      { user: 'What does the handbook say about rollbacks during an incident?', steps: [
        call(['searchDocs', { query: 'rollback during an incident' }]),
        answer('Keep the blast radius small, watch the error budget for thirty minutes, keep the previous release warm, and log each decision with a timestamp. ' + lorem('the handbook'), {
          sources: [{ url: 'https://handbook.example.com/incidents/rollback', title: 'Rollback during an incident' }] })] },
      { user: 'Draft the status page update.', steps: [
        answer('Investigating → Resolved: "Between 06:14 and 06:41 UTC some checkouts failed with an error. We rolled back a faulty release of our payments service; checkout works normally again. No payment was charged twice."')] },
      { user: 'Who deployed v2.41.0?', steps: [
        call(['listDeploys', { service: 'payments-api', last: 1 }]),
        answer('deploy-bot, from the release pipeline, at 06:12:30.')] },
      { user: 'What changed in v2.41.0?', steps: [
        call(['searchDocs', { query: 'payments-api v2.41.0 changelog' }]),
        answer('The changelog entry is not in the handbook; the search returned only general rollout guidance. Ask the payments team for the diff.')] },
      { user: 'Add a follow-up: alert on upstream resets above 1%.', steps: [
        answer('Follow-up added: alert when upstream resets from checkout to payments-api exceed 1% of requests over 5 minutes, paging the payments on-call.')] },
      { user: 'Summarize the timeline.', steps: [
        answer('06:12:30 payments-api v2.41.0 deployed by deploy-bot. 06:14 first 502s in checkout. 06:38 rollback to v1.0.0 failed (no such release). 06:41 rolled back to v2.40.0, 6/6 pods healthy, errors stopped. ' + lorem('the timeline'))] },
      { user: 'Write the incident summary for the postmortem.', steps: [
        answer('Summary: a faulty payments-api release (v2.41.0) made its pods drop connections, so checkout returned 502s for 27 minutes. Rolling back to v2.40.0 fixed it. Follow-ups: alert on upstream resets over 1%, get the v2.41.0 diff from the payments team, and keep the handbook rule of one region first.')] },
    ],
  },
  research: {
    system: false,
    turns: [
      { user: 'I am writing a rollout policy. What should the first stage be?', steps: [
        call(['searchDocs', { query: 'first rollout stage' }]),
        answer('One region first, with the previous release kept warm. ' + lorem('the first stage'), { reasoning: 'Look up the handbook before answering.' })] },
      { user: 'Here is our current draft.', file: true, steps: [
        answer('I cannot read the image itself, but going by its name it is your draft. Paste the text and I will mark what to change.')] },
      { user: 'Stage one: 5% of traffic in eu-west for 30 minutes. Stage two: all of eu. Stage three: everywhere.', steps: [
        answer('Good shape. Add an explicit gate between stages: error rate under 0.5% and p99 latency under 400 ms for the whole window, or the rollout stops. ' + lorem('the gates'))] },
      { user: 'How long should each stage last?', steps: [
        call(['searchDocs', { query: 'stage duration error budget' }]),
        answer('Thirty minutes for the first, as the handbook says, and at least one traffic peak for the second: for you, 2 to 4 hours.')] },
      { user: 'Who may skip a stage?', steps: [
        answer('Only the incident commander during an incident, and only to roll back, never to roll forward faster. Write that down verbatim.')] },
      { user: 'What about database migrations?', steps: [
        call(['searchDocs', { query: 'database migrations rollout' }]),
        answer('Expand, then migrate, then contract, each in its own release, so that every release can be rolled back on its own. ' + lorem('migrations'), {
          sources: [{ url: 'https://handbook.example.com/db/expand-contract', title: 'Expand and contract' }] })] },
      { user: 'Give me the policy as a numbered list.', steps: [
        answer('1. 5% of eu-west for 30 minutes.\n2. Gate: error rate < 0.5%, p99 < 400 ms.\n3. All of eu for 2–4 hours, through one peak.\n4. Same gate.\n5. Everywhere.\n6. Only the incident commander may skip a stage, and only to roll back.\n7. Schema changes: expand, migrate, contract, in three releases.')] },
      { user: 'Is 0.5% too strict for a low-traffic service?', steps: [
        answer('Yes: with 200 requests in 30 minutes, one error is 0.5%. Use an absolute floor too: at least 5 errors and over 0.5%.')] },
      { user: 'Add that.', steps: [
        answer('Done: gate = error rate over 0.5% and at least 5 errors in the window, or p99 over 400 ms. ' + lorem('the revised gate'))] },
      { user: 'Check the handbook for anything we missed.', steps: [
        call(['searchDocs', { query: 'rollout checklist' }], ['searchDocs', { query: 'feature flags' }]),
        answer('Two things: keep the previous release warm so a rollback takes under five minutes, and record every decision in the incident channel with a timestamp.')] },
      { user: 'Final version please, short.', steps: [
        answer('1. 5% of eu-west, 30 min. 2. Gate: >0.5% errors with ≥5 errors, or p99 >400 ms, stops it. 3. All eu through one peak. 4. Gate. 5. Everywhere. 6. Previous release warm. 7. Skips: incident commander, rollback only. 8. Schema: expand, migrate, contract.')] },
      { user: 'What did we settle for the gate?', steps: [
        answer('Over 0.5% errors with at least 5 errors in the window, or p99 over 400 ms: either one stops the rollout.')] },
    ],
  },
};
