// Package recap keeps the payload a chat backend sends to an LLM bounded, by
// rolling the older part of a chat into a summary.
//
// A chat backend that sends the whole conversation on every turn pays for it
// in cost and latency until the model's context overflows. Once the older
// part of a chat (everything before the recent window) exceeds a token
// threshold, a [Compressor] has a [Summarizer] fold it, together with the
// previous summary, into a new summary, so older context is never lost. The
// payload becomes
//
//	[pinned system prompt][summary][last N conversations, raw][current turn]
//
// The summary and its boundary (the ID of the last message folded into it)
// are persisted through a [Store] with a compare-and-swap, so the next turn
// starts from there and two writers cannot overwrite each other.
//
// Usage:
//
//	c, err := recap.New(mySummarizer, recap.NewMemoryStore(),
//		recap.WithTriggerTokens(4000),
//		recap.WithWindowConversations(3))
//	if err != nil {
//		return err
//	}
//	res, err := c.Compress(ctx, chatID, messages)
//	if err != nil {
//		return err // invalid messages, a failed Load, or ctx is done
//	}
//	if res.Err != nil {
//		log.Printf("summary not updated: %v", res.Err) // absorbed; payload still usable
//	}
//	send(res.Payload)
//
// [Compressor.Plan] is the pure part: it splits a chat into pinned, summary,
// to-summarize, window and current turn, and measures the tokens, without a
// Summarizer or a Store.
//
// A chat must never break because its summary could not be made: a
// Summarizer that fails, times out, panics or returns an empty or over-long
// summary is reported in [Result.Err] while the payload stays usable, and
// the Store keeps its last good summary. Summarized context is never lost:
// a client that echoes back the payload it got keeps it, and an older
// snapshot of a chat (a delayed retry) never makes the stored summary cover
// less ([Summary.Covered], [Plan.Older]). No cut recap makes falls between
// a tool call and its results. Concurrent calls for one chat share
// one summarization, and across processes a Store that is also a [Leaser]
// lets only one of them call the Summarizer; a backlog too large for the summarizer is folded in
// chunks ([WithMaxSummarizeInput]); [WithMaxPayloadTokens] puts a hard
// ceiling on the payload. [RenderPrompt] renders a request for an LLM with
// the transcript delimited as data.
//
// [WithSummaryCheck] checks each new summary against its input's key items
// (identifiers, numbers with their units, dates, names, statements of
// constraints and decisions) and repairs what it left out. [Recall] and
// [Compressor.Recall] search what the summary covers, and the recall tool
// ([RecallToolSchema], [Compressor.AnswerRecall]) lets the model look up a
// detail the summary dropped.
//
// Off the request path, [WithBackground] hands summarizations to the
// caller's scheduler while the payload still fits the ceiling, and
// [WithToolResultClearing] replaces old tool outputs by placeholders, in
// batches, before the trigger is checked.
//
// A [Message] decodes from a Vercel AI SDK UIMessage, an OpenAI Chat
// Completions message, an Anthropic Messages API message ([DecodeAnthropic]
// reads a whole request, its system included) or recap's own {id, role,
// content}, and encodes back in its own format ([Message.Format]); the
// summary message takes the chat's format. A block of a type recap does
// not know is kept and counted as its JSON, and a tool result whose call
// is not before it is an [ErrInvalidMessage]. Messages need no IDs: Compress and Plan give a message
// without one a stable ID derived from its content and the messages
// before it, as [ChainIDs] does, and hand it back without it, so that a
// payload never gains an "id" its input did not have. Only AI SDK
// UIMessages, which always carry an ID, must have theirs.
//
// Tokens are counted exactly as OpenAI's tiktoken counts them, with the
// o200k_base vocabulary of GPT-4o by default ([WithTokenCounter] takes any
// [TokenCounter]). Counting is package [github.com/recapgo/recap/tokens]:
// the exact counters of OpenAI's encodings, embedded in the binary, and
// estimates that err high for Claude and Gemini, whose tokenizers are not
// public. A [Calibrator] corrects any counter from the usage a provider
// reports.
//
// # Reading the code
//
// A request goes through these steps, each in files of its own that call
// only into the steps before it (a test, TestLayers, enforces it):
//
//  1. formats (message.go, message_text.go, message_openai.go,
//     message_anthropic.go, media.go, pairs.go, ids.go): what a message
//     is, its text, its wire format, its tool calls' pairing, its IDs;
//  2. reconcile (reconcile.go): how the request relates to the summary in
//     force (echoes, older snapshots, stale summaries), one table of cases;
//  3. plan (window.go, clearing.go, turn.go): the pinned prompt, the
//     window, the current turn, cleared tool outputs, folds of a long
//     turn, what to summarize;
//  4. budget (budget.go): the payload's ceiling;
//  5. summarize (summarize.go, chunk.go, prompt.go, check.go, flight.go,
//     lease.go): the Summarizer calls, one chat at a time;
//  6. save (store.go): the Store's compare-and-swap;
//  7. after a request (recall*.go, calibrate.go): recall of what a summary
//     covers, calibration from reported usage.
//
// The Compressor (compressor.go) runs them in turn; options.go, errors.go,
// summary.go and tokens.go hold what every step uses.
//
// recap is a pure library: it does no network or file I/O, reads no
// environment ([OptionsFromEnv] takes a lookup function), starts no
// goroutines and logs nothing. Everything that talks to the world is one of
// the interfaces the caller passes in.
package recap
