package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/setup"
	"github.com/recapgo/recap/tokens"
)

const recallUsage = `usage: recap recall [-k N] [-store FILE] [-chat ID] [flags] CHAT.json|CHAT.chat "QUERY"

recall prints the passages of the messages the chat's summary covers
that match QUERY best, as the recall tool gives them to a model
(recap.Compressor.Recall): the payload no longer sends those messages,
and a detail the summary lost is found there. Each excerpt is printed
with its message's position in the chat (# from 1, as plan numbers
messages), ID and role, its score, and its text; the best first, at most
-k of them. The summary is the one -store FILE holds for the chat (the
JSON file compress keeps); without -store, the chat is compressed afresh
with the flags and the CLI's defaults, as compress without -store would,
and its summary searched. CHAT.json is a JSON array of AI SDK UIMessages,
OpenAI or Anthropic messages; - reads it from standard input; a .chat
file of the retention benchmark (see eval) is read as eval reads it.
Flags come before or after the chat and the query.

Flags:
`

// recallFlags are the flags of recall.
type recallFlags struct {
	fs                                   *flag.FlagSet
	format, encoding, model, store, chat *string
	k, trigger, window, budget, ceiling  *int
	maxInput                             *int
}

func newRecallFlags() *recallFlags {
	fs := newFlagSet("recall")
	return &recallFlags{
		fs:       fs,
		k:        fs.Int("k", recap.DefaultRecallResults, "excerpts to print at most (recap.RecallResults)"),
		store:    fs.String("store", "", "JSON file of compress -store to read the chat's summary from (default: compress the chat afresh, in memory)"),
		chat:     fs.String("chat", "", "chat ID in the store (default: the file name without extension, or stdin)"),
		format:   fs.String("format", "auto", "chat format: auto, ui (AI SDK UIMessages), openai or anthropic (messages or a request body)"),
		trigger:  fs.Int("trigger", 0, "summarize when the part to summarize exceeds this many tokens (default 1000, or $RECAP_/VITE_SUMMARY_TRIGGER_TOKENS)"),
		window:   fs.Int("window", 0, "conversations kept raw, counting the current turn (default 2, or $RECAP_/VITE_SUMMARY_WINDOW_CONVERSATIONS)"),
		encoding: fs.String("encoding", tokens.O200kBase, "token encoding or OpenAI model name (o200k_base, cl100k_base, gpt-4o, ...)"),
		model:    fs.String("model", "", "count tokens as the chat model `name` does: exactly for OpenAI, estimated for Claude and Gemini (tokens.EstimatorForModel), with the family's tokens per message; not with -encoding"),
		budget:   fs.Int("summary-tokens", 0, "token budget of the extractive summary (default: half the trigger, at most 500)"),
		ceiling:  fs.Int("max-payload", 0, "hard ceiling on the payload's tokens; the messages it leaves out are searched too (0: none)"),
		maxInput: fs.Int("max-input", defaultMaxInput, "tokens one summarizer call is given at most (recap.WithMaxSummarizeInput; 0: no bound)"),
	}
}

// runRecall is the recall command: args are its flags, the chat and the
// query.
func runRecall(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	f := newRecallFlags()
	pos, err := parseArgsList(f.fs, args)
	if err != nil {
		return parseError(stdout, stderr, "recall", err)
	}
	switch {
	case len(pos) == 0:
		return usageError(stderr, "recall", errors.New("missing chat file (a JSON file, or - for standard input) and query"))
	case len(pos) == 1:
		return usageError(stderr, "recall", fmt.Errorf("missing query after the chat file %q", pos[0]))
	case len(pos) > 2:
		return usageError(stderr, "recall", fmt.Errorf("one chat file and one query, got %d arguments: quote the query", len(pos)))
	case *f.k < 1:
		return usageError(stderr, "recall", fmt.Errorf("-k %d: give at least 1", *f.k))
	}
	if err := checkCounterFlags(f.fs); err != nil {
		return usageError(stderr, "recall", err)
	}
	path, query := pos[0], pos[1]
	chatID := *f.chat
	if chatID == "" {
		chatID = defaultChatID(path)
	}
	fail := failer(stderr)
	tok, err := newTokenizer(*f.encoding, *f.model)
	if err != nil {
		return fail(err)
	}
	var (
		msgs []recap.Message
		name string
	)
	if strings.HasSuffix(path, ".chat") {
		// A chat of the retention benchmark, as eval reads it: its facts'
		// questions are queries to try.
		c, err := loadChat(path, stdin, *f.format)
		if err != nil {
			return fail(err)
		}
		msgs, name = c.Messages, path
	} else if msgs, _, name, _, err = readChat(path, stdin, *f.format); err != nil {
		return fail(err)
	}
	failChat := chatFailer(fail, name)
	opts, auto, err := setup.Options(lookup, envPrefixes, f.fs, f.trigger, f.window)
	if err != nil {
		return fail(err)
	}
	cfg, err := configure(lookup, tok, opts, auto, *f.budget, *f.ceiling, *f.maxInput, false) // recall makes no summary
	if err != nil {
		return fail(err)
	}
	c, st, err := cfg.compressor(*f.store, stderr)
	if err != nil {
		return fail(err)
	}
	if *f.store == "" {
		// The summary compress would make, kept in memory for Recall.
		if _, err := c.Compress(ctx, chatID, msgs); err != nil && !errors.Is(err, recap.ErrBudget) {
			return failChat(err)
		}
	}
	s, err := st.Load(ctx, chatID)
	if err != nil {
		return fail(err)
	}
	p, err := c.Plan(msgs, s)
	if err != nil {
		return failChat(err)
	}
	found, err := c.Recall(ctx, chatID, msgs, query, recap.RecallResults(*f.k))
	if err != nil {
		return failChat(err)
	}
	from := "made afresh, in memory, as compress without -store makes it"
	if *f.store != "" {
		from = "in " + *f.store
	}
	switch {
	case s.IsZero() && *f.store != "":
		fmt.Fprintf(stderr, "recap: chat %q has no summary in %s: no message to search\n", chatID, *f.store)
	case s.IsZero():
		fmt.Fprintf(stderr, "recap: chat %q has no summary: its %d tokens to summarize are within the trigger (%s): no message to search\n", chatID, p.Tokens, from)
	case p.Stale:
		fmt.Fprintf(stderr, "recap: the summary of chat %q (%s) is stale, its boundary no longer in the chat: no message to search\n", chatID, from)
	default:
		fmt.Fprintf(stderr, "recap: chat %q: the summary (%s) covers %d of %d messages, up to %s; %s for %q\n",
			chatID, from, len(p.Covered), len(msgs), s.LastMessageID, plural(len(found), "excerpt"), query)
	}
	printExcerpts(stdout, found)
	return exitOK
}

// printExcerpts writes each excerpt: a line with its message's position
// (from 1), ID, role and score, then its text indented, then a blank line.
func printExcerpts(w io.Writer, found []recap.Excerpt) {
	for i, e := range found {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "#%d %s %s (score %.2f)\n", e.Position+1, e.MessageID, e.Role, e.Score)
		for _, line := range strings.Split(e.Text, "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
}

// plural returns n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
