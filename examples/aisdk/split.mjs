// splitInstructions is the pattern the README recommends for AI SDK 7,
// which rejects system messages in `messages` unless allowSystemInMessages
// is true: the model messages of a recap payload (from
// convertToModelMessages) begin with its system messages, the pinned ones
// and recap's summary; they go to streamText's `instructions` option (a
// string, a system message or an array of them) after the route's own
// prompt, and the rest to `messages`.
//
// Only a payload whose system messages the server trusts may be split so:
// reject client messages with role "system" before calling recap, so that
// the only system message left in the payload is recap's summary.
export function splitInstructions(modelMessages, system) {
  let n = 0;
  while (n < modelMessages.length && modelMessages[n].role === 'system') n++;
  return {
    instructions: [{ role: 'system', content: system }, ...modelMessages.slice(0, n)],
    messages: modelMessages.slice(n),
  };
}
