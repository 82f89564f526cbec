// Command recap compresses a chat the way a chat backend using the recap
// library would, and shows where every message goes.
//
//	recap compress [flags] CHAT.json   print the compressed payload as JSON
//	recap plan [flags] CHAT.json       dry run: a table of every message
//	recap simulate [flags] CHAT.json   replay the chat turn by turn: calls, tokens, cost
//	recap eval [flags] [CHAT|DIR]...   measure what the summaries keep of your chats' facts
//	recap recall [flags] CHAT.json Q   the excerpts the summary covers that match the query Q
//	recap help [COMMAND]               the usage of recap or of a command
//
// CHAT.json is a JSON array of Vercel AI SDK UIMessages, OpenAI chat
// messages or Anthropic Messages API messages, or an Anthropic request body
// with its "system" and "messages" (-format picks, default auto; the
// payload of an Anthropic chat is printed as a request body, its system
// and messages compressed, its other members as they came); "-" reads it from standard input
// (its chat ID is then "stdin", unless -chat names one). Flags come before
// or after it. With -store FILE the summary and its boundary are kept in
// that JSON file, so running compress again on a longer version of the
// chat continues from the stored boundary; without it they live in memory
// and are forgotten on exit.
//
// Tokens are counted with o200k_base, or -encoding (an encoding or an
// OpenAI model name), or for the chat model -model names: the exact count
// of an OpenAI model, the estimate of a Claude or Gemini model
// (tokens.EstimatorForModel), each with the tokens its family adds per
// message.
//
// Summaries are made by an LLM when RECAP_OPENAI_BASE_URL,
// RECAP_OPENAI_API_KEY and RECAP_MODEL (any OpenAI-compatible server) or
// RECAP_ANTHROPIC_API_KEY are set, with the extractive summarizer as the
// fallback; otherwise by the embedded extractive summarizer alone: offline,
// deterministic, no LLM. It keeps the most informative sentences; it does
// not paraphrase. One summarizer call is given at most -max-input tokens
// (default 32,000, as the server's): a longer part to summarize is folded
// in several calls.
//
// simulate replays a chat as a backend would, compressing it at every user
// message, and prints for each setting (one, or a grid of triggers and
// windows) the summarizer calls, the largest payload and the tokens sent
// over all turns beside the uncompressed chat's, with their cost; -plot
// draws the tokens sent per turn as an SVG chart.
//
// eval replays chats as simulate does and measures what the summaries
// keep: the facts of the retention benchmark's .chat files (its "fact"
// lines), or a proxy, the key items of a JSON chat; against the newest
// messages in the same tokens, with the Summarizer calls and tokens. With
// no chat it replays the built-in benchmark. recall prints the passages
// of the messages a chat's summary covers that match a query, as the
// recall tool gives them to a model.
//
// The options also come from the environment: RECAP_SUMMARY_TRIGGER_TOKENS
// and RECAP_SUMMARY_WINDOW_CONVERSATIONS, or VITE_SUMMARY_TRIGGER_TOKENS and
// VITE_SUMMARY_WINDOW_CONVERSATIONS, the variable names of the desktop chat
// client this design comes from. Flags win over the environment.
//
// "recap help", -h and --help print the usage on standard output. A wrong
// command line prints one line saying what was wrong and one saying where
// to read the usage, on standard error, and exits with code 2.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/setup"
	"github.com/recapgo/recap/tokens"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv))
}

// defaultMaxInput is -max-input's default, the server's
// -max-summarize-input default: the CLI sends an LLM what the server would.
const defaultMaxInput = setup.DefaultMaxSummarizeInput

const usage = `usage: recap compress [flags] CHAT.json   print the compressed payload as JSON
       recap plan [flags] CHAT.json       dry run: a table of every message
       recap simulate [flags] CHAT.json   replay the chat turn by turn: calls, tokens, cost
       recap eval [flags] [CHAT|DIR]...   measure what the summaries keep of your chats' facts
       recap recall [flags] CHAT.json Q   the excerpts the summary covers that match the query Q
       recap help [COMMAND]               this help, or a command's with its flags

CHAT.json is a JSON array of AI SDK UIMessages or OpenAI chat messages;
- reads it from standard input. Flags come before or after it.
`

// commandUsage is the usage of compress and plan, before their flags.
var commandUsage = map[string]string{
	"compress": `usage: recap compress [flags] CHAT.json

compress prints the payload to send to the LLM as JSON (or writes it to
-o FILE), and a report of what it did on standard error. CHAT.json is a
JSON array of AI SDK UIMessages or OpenAI chat messages; - reads it from
standard input. Flags come before or after it.

Flags:
`,
	"plan": `usage: recap plan [flags] CHAT.json

plan is a dry run of compress: a table of every message and where it goes
(pinned, covered by the stored summary, to summarize, window, current
turn) and whether the trigger fires. Nothing is summarized or stored.
CHAT.json is a JSON array of AI SDK UIMessages or OpenAI chat messages;
- reads it from standard input. Flags come before or after it.

Flags:
`,
}

// run is the whole program, with its environment passed in for tests. It
// returns the exit code: exitOK, exitFail or exitUsage.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	if len(args) == 0 {
		return usageError(stderr, "", errors.New("missing command: compress, plan, simulate, eval or recall"))
	}
	switch cmd := args[0]; {
	case isHelp(cmd):
		return runHelp(args[1:], stdout, stderr)
	case cmd == "simulate":
		return runSimulate(ctx, args[1:], stdin, stdout, stderr, lookup)
	case cmd == "eval":
		return runEval(ctx, args[1:], stdin, stdout, stderr, lookup)
	case cmd == "recall":
		return runRecall(ctx, args[1:], stdin, stdout, stderr, lookup)
	case cmd == "compress" || cmd == "plan":
		return runCompress(ctx, cmd, args[1:], stdin, stdout, stderr, lookup)
	case strings.HasPrefix(cmd, "-"):
		return usageError(stderr, "", fmt.Errorf("flag %s before the command: flags follow compress, plan, simulate, eval or recall", cmd))
	default:
		return usageError(stderr, "", fmt.Errorf("unknown command %q", cmd))
	}
}

// compressFlags are the flags of compress and plan.
type compressFlags struct {
	fs                                           *flag.FlagSet
	format, encoding, model, store, chat, output *string
	trigger, window, budget, ceiling, maxInput   *int
	check                                        *bool
}

func newCompressFlags(cmd string) *compressFlags {
	fs := newFlagSet(cmd)
	return &compressFlags{
		fs:       fs,
		format:   fs.String("format", "auto", "chat format: auto, ui (AI SDK UIMessages), openai or anthropic (messages or a request body)"),
		trigger:  fs.Int("trigger", 0, "summarize when the part to summarize exceeds this many tokens (default 1000, or $RECAP_/VITE_SUMMARY_TRIGGER_TOKENS)"),
		window:   fs.Int("window", 0, "conversations kept raw, counting the current turn (default 2, or $RECAP_/VITE_SUMMARY_WINDOW_CONVERSATIONS)"),
		encoding: fs.String("encoding", tokens.O200kBase, "token encoding or OpenAI model name (o200k_base, cl100k_base, gpt-4o, ...)"),
		model:    fs.String("model", "", "count tokens as the chat model `name` does: exactly for OpenAI, estimated for Claude and Gemini (tokens.EstimatorForModel), with the family's tokens per message; not with -encoding"),
		store:    fs.String("store", "", "JSON file that keeps summaries between runs (default: in memory, forgotten on exit)"),
		chat:     fs.String("chat", "", "chat ID in the store (default: the file name without extension, or stdin)"),
		output:   fs.String("o", "", "write the payload to this file instead of standard output"),
		budget:   fs.Int("summary-tokens", 0, "token budget of the extractive summary (default: half the trigger, at most 500)"),
		ceiling:  fs.Int("max-payload", 0, "hard ceiling on the payload's tokens; the oldest conversations are left out to fit (0: none)"),
		maxInput: fs.Int("max-input", defaultMaxInput, "tokens one summarizer call is given at most; a larger part to summarize is folded in several calls (recap.WithMaxSummarizeInput; 0: no bound)"),
		check:    fs.Bool("check", false, checkUsage),
	}
}

// checkUsage is the usage of -check.
const checkUsage = "check each new summary against its input and repair it (recap.WithSummaryCheck): an LLM may be asked twice; recap asks for seven tenths of the summary's bound, the rest left to the repairs"

// runCompress is the compress and plan commands (cmd): args are the
// command's flags and the chat.
func runCompress(ctx context.Context, cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	f := newCompressFlags(cmd)
	path, err := parseArgs(f.fs, args)
	if err != nil {
		return parseError(stdout, stderr, cmd, err)
	}
	if err := checkCounterFlags(f.fs); err != nil {
		return usageError(stderr, cmd, err)
	}
	chatID := *f.chat
	if chatID == "" {
		chatID = defaultChatID(path)
	}

	fail := failer(stderr)
	tok, err := newTokenizer(*f.encoding, *f.model)
	if err != nil {
		return fail(err)
	}
	msgs, detected, name, data, err := readChat(path, stdin, *f.format)
	if err != nil {
		return fail(err)
	}
	failChat := chatFailer(fail, name)

	opts, auto, err := setup.Options(lookup, envPrefixes, f.fs, f.trigger, f.window) // RECAP_ wins over VITE_
	if err != nil {
		return fail(err)
	}
	cfg, err := configure(lookup, tok, opts, auto, *f.budget, *f.ceiling, *f.maxInput, *f.check)
	if err != nil {
		return fail(err)
	}
	label := cfg.label
	c, st, err := cfg.compressor(*f.store, stderr)
	if err != nil {
		return fail(err)
	}
	existing, err := st.Load(ctx, chatID)
	if err != nil {
		return fail(err)
	}

	if cmd == "plan" {
		p, err := c.Plan(msgs, existing)
		if err != nil {
			return failChat(err)
		}
		printPlan(stdout, p, c, detected)
		return exitOK
	}

	res, budgetErr := c.Compress(ctx, chatID, msgs)
	if budgetErr != nil && !errors.Is(budgetErr, recap.ErrBudget) {
		return failChat(budgetErr)
	}
	var out []byte
	if detected == "anthropic" {
		out, err = anthropicPayload(data, res.Payload)
	} else {
		out, err = json.MarshalIndent(res.Payload, "", "  ")
	}
	if err != nil {
		return fail(err)
	}
	out = append(out, '\n')
	if *f.output != "" {
		err = os.WriteFile(*f.output, out, 0o644)
	} else {
		_, err = stdout.Write(out)
	}
	if err != nil {
		return fail(err)
	}
	report(stderr, chatID, msgs, res, c, tok, *f.store, label)
	if budgetErr != nil {
		return failChat(budgetErr) // the payload printed is the smallest possible
	}
	return exitOK
}

// defaultChatID is the chat ID of the chat file path when -chat is not
// given: its name without extension, or "stdin" for standard input.
func defaultChatID(path string) string {
	if path == stdinFile {
		return "stdin"
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// report writes the human summary of a Compress to w, the tokens as c
// measures a payload.
func report(w io.Writer, chat string, msgs []recap.Message, res recap.Result, c *recap.Compressor, tok *tokenizer, store, summarizer string) {
	fmt.Fprintf(w, "recap: chat %q: %d messages, %d tokens before, %d messages, %d tokens after (%s)\n",
		chat, len(msgs), c.Measure(msgs), len(res.Payload), c.Measure(res.Payload), tok.name)
	if res.Stale {
		fmt.Fprintf(w, "recap: the stored summary's boundary is no longer in the chat; it was dropped\n")
	}
	switch {
	case res.Summarized:
		by := summarizer
		if res.Fallback {
			by = "the extractive fallback (offline, no LLM)"
		}
		fmt.Fprintf(w, "recap: summarized %d tokens (old summary + new messages) into %d tokens with %s\n",
			res.Tokens, tok.counter.CountTokens(res.Summary.Text), by)
		fmt.Fprintf(w, "recap: new boundary: %s\n", res.Summary.LastMessageID)
		if chk := res.Check; chk != nil {
			fmt.Fprintf(w, "recap: summary check: %d key items missing", len(chk.Missing))
			if chk.Retried {
				fmt.Fprintf(w, " after asking again")
			}
			fmt.Fprintf(w, ", %d repaired, %d did not fit\n", len(chk.Repaired), len(chk.Unfit))
		}
	case res.Err != nil:
		fmt.Fprintf(w, "recap: summarizing failed, payload left uncompressed: %v\n", res.Err)
	default:
		fmt.Fprintf(w, "recap: %d tokens to summarize, within the trigger: nothing summarized\n", res.Tokens)
		if !res.Summary.IsZero() {
			fmt.Fprintf(w, "recap: boundary: %s\n", res.Summary.LastMessageID)
		}
	}
	if len(res.Dropped) > 0 {
		ids := make([]string, len(res.Dropped))
		for i, m := range res.Dropped {
			ids[i] = m.ID
		}
		fmt.Fprintf(w, "recap: left out to fit -max-payload: %s\n", strings.Join(ids, " "))
	}
	if store != "" && res.Summarized {
		fmt.Fprintf(w, "recap: summary stored in %s\n", store)
	}
}

// printPlan writes the plan as a table, one row per message, each with
// its tokens as c measures them in a payload.
func printPlan(w io.Writer, p recap.Plan, c *recap.Compressor, format string) {
	size := func(m recap.Message) int { return c.Measure([]recap.Message{m}) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tID\tROLE\tTOKENS\tWHERE\tTEXT")
	n := 0
	row := func(where string, m recap.Message) {
		n++
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", n, m.ID, m.Role, size(m), where, preview(m.Text()))
	}
	for _, m := range p.Pinned {
		row("pinned", m)
	}
	for _, m := range p.Covered {
		row("covered", m)
	}
	if p.SummaryMessage != nil {
		fmt.Fprintf(tw, "-\t%s\t%s\t%d\tsummary\t%s\n", p.SummaryMessage.ID, p.SummaryMessage.Role,
			size(*p.SummaryMessage), preview(p.SummaryMessage.Content))
	}
	where := "history"
	if p.Trigger {
		where = "summarize"
	}
	for _, m := range p.Summarize {
		row(where, m)
	}
	for _, m := range p.Window {
		row("window", m)
	}
	for _, m := range p.Turn {
		row("turn", m)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nformat %s; %d tokens to summarize; trigger fires: %v", format, p.Tokens, p.Trigger)
	if p.Trigger {
		fmt.Fprintf(w, "; new boundary would be %s", p.Boundary())
	}
	if p.Stale {
		fmt.Fprint(w, "; stored summary is stale and dropped")
	}
	fmt.Fprintln(w)
}

// preview returns the first 60 characters of s on one line.
func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}
