package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/recap/internal/chatapi"
	"github.com/recapgo/recap/examples/recap/internal/retention"
	"github.com/recapgo/recap/internal/setup"
	"github.com/recapgo/recap/tokens"
)

// Defaults of simulate's flags.
const (
	defaultPrice = 2.50 // USD per million input tokens: GPT-4o's input price
)

var (
	defaultGridTriggers = []int{500, 1000, 2000, 4000}
	defaultGridWindows  = []int{1, 2, 3}
)

// envPrefixes are the prefixes of the environment variables that set the
// options, later ones winning: those of the desktop chat client this
// design comes from, then recap's.
var envPrefixes = []string{"VITE_", "RECAP_"}

const simulateUsage = `usage: recap simulate [-trigger N | -triggers N,N...] [-window N | -windows N,N...]
                      [-grid] [-max-payload N] [-background] [-price USD]
                      [-max-turn N] [-clear-keep N] [-per-call] [-check]
                      [-model NAME | -encoding NAME] [-max-input N]
                      [-plot FILE.svg] CHAT.json

simulate replays a chat turn by turn as a chat backend would: at each user
message, the chat up to it is compressed (an in-memory store keeps the
summary from turn to turn) and the payload is what that turn sends. It
prints, for each setting and for the uncompressed chat, the summarizer
calls (in the request or in the background), the largest payload, the
tokens sent over all turns and their cost. -grid replays every trigger of
-triggers with every window of -windows; -trigger or -window fixes one
side of the grid. -per-call replays before every model call instead (after
the user's message and after each round of tool results), as an agent
loop compresses; -max-turn and -clear-keep compact long turns and clear old
tool outputs. CHAT.json is a JSON array of AI SDK UIMessages or OpenAI chat
messages; - reads it from standard input. Flags come before or after it.

Flags:
`

// setting is one configuration that simulate replays a chat with.
type setting struct {
	trigger, window int
}

func (s setting) String() string { return fmt.Sprintf("trigger %d, window %d", s.trigger, s.window) }

// A mark says where the summarizer ran during a turn (in the request or
// in the background task run after it).
type mark uint8

const (
	markRequest    mark = 1 << iota // a call ran inside the turn's Compress
	markBackground                  // a call ran in a background task after the turn
)

// replay is what replaying a chat with one setting measured.
type replay struct {
	setting      setting // zero for the uncompressed chat
	sent         []int   // tokens of each turn's payload
	marks        []mark  // where the summarizer ran, per turn
	inRequest    int     // Summarizer calls made inside a Compress
	background   int     // Summarizer calls made by background tasks
	fallbacks    int     // of those, calls of the fallback summarizer
	summarizerIn int     // input tokens of the calls of the main summarizer
	dropped      int     // turns that left messages out to fit the ceiling
	largest      int     // tokens of the largest payload
	total        int     // tokens of all payloads
}

func (r *replay) calls() int { return r.inRequest + r.background }

// simulation replays one chat; its fields are the same for every setting.
type simulation struct {
	chatID     string
	msgs       []recap.Message
	turns      []int // index in msgs of each turn's user message
	lookup     func(string) (string, bool)
	tok        *tokenizer
	budget     int // -summary-tokens; 0: by the trigger, as compress does
	maxPayload int // 0: no ceiling
	maxInput   int // -max-input; 0: one summarizer call, however large
	background bool
	check      bool      // -check
	maxTurn    int       // -max-turn; 0: turns are not compacted
	clearKeep  int       // -clear-keep; < 0: tool results are not cleared
	perCall    bool      // turns are the model calls (callsOf), not the user turns
	stderr     io.Writer // for the spinner
}

// turnsOf returns the index of each user message of msgs.
func turnsOf(msgs []recap.Message) []int { return retention.UserTurns(msgs) }

// callsOf returns the index of the last message before each model call
// of msgs: a user message or a tool result followed by an assistant
// message, and the chat's last message if it is one of those, once a user
// message has come.
func callsOf(msgs []recap.Message) []int {
	var calls []int
	asked := false
	for i, m := range msgs {
		asked = asked || m.Role == recap.RoleUser
		if !asked || (m.Role != recap.RoleUser && m.Role != recap.RoleTool) {
			continue
		}
		if i == len(msgs)-1 || msgs[i+1].Role == recap.RoleAssistant {
			calls = append(calls, i)
		}
	}
	return calls
}

// run replays the chat with s: for each turn, Compress gets the chat up to
// and including the turn's user message (and so everything that came
// before, the previous turns' assistant and tool messages included), and,
// with -background, the tasks it scheduled run after it returns, in order,
// as a scheduler would run them before the next request arrives. It
// returns an error naming the turn if a Compress fails (ErrBudget
// included: the ceiling cannot hold the pinned prompt and that turn).
func (sim *simulation) run(ctx context.Context, s setting) (*replay, error) {
	opts, auto, err := settingOptions(sim.lookup, s)
	if err != nil {
		return nil, err
	}
	sum, fallback, _, err := setup.Summarizers(sim.lookup, sim.tok.counter, setup.SummaryBudget(sim.budget, auto), chatapi.ForLLM)
	if err != nil {
		return nil, err
	}
	r := &replay{setting: s, sent: make([]int, len(sim.turns)), marks: make([]mark, len(sim.turns))}
	turn := 0 // the turn being replayed, for the hook
	opts = append(opts, sim.tok.options()...)
	opts = append(opts, recap.WithHooks(recap.Hooks{
		SummarizeEnd: func(_ context.Context, e recap.SummarizeEvent) {
			// Everything runs on this goroutine: Compress, and the
			// tasks run between turns.
			if e.Background {
				r.background++
				r.marks[turn] |= markBackground
			} else {
				r.inRequest++
				r.marks[turn] |= markRequest
			}
			if e.Fallback {
				r.fallbacks++
			} else {
				r.summarizerIn += e.InputTokens
			}
		},
	}))
	if fallback != nil {
		opts = append(opts, recap.WithFallbackSummarizer(fallback))
	}
	if sim.maxPayload != 0 {
		opts = append(opts, recap.WithMaxPayloadTokens(sim.maxPayload))
	}
	if sim.maxInput != 0 {
		opts = append(opts, recap.WithMaxSummarizeInput(sim.maxInput))
	}
	if sim.maxTurn != 0 {
		opts = append(opts, recap.WithMaxTurnTokens(sim.maxTurn))
	}
	if sim.check {
		opts = append(opts, recap.WithSummaryCheck())
	}
	if sim.clearKeep >= 0 {
		opts = append(opts, recap.WithToolResultClearing(sim.clearKeep, 0))
	}
	var queue []func(context.Context) // tasks scheduled and not yet run
	if sim.background {
		opts = append(opts, recap.WithBackground(func(task func(context.Context)) { queue = append(queue, task) }))
	}
	c, err := recap.New(withSpinner(sum, sim.stderr), recap.NewMemoryStore(), opts...)
	if err != nil {
		return nil, err
	}
	err = retention.ReplayTurns(ctx, c, sim.chatID, sim.msgs, sim.turns, func(k int, res recap.Result) error {
		r.add(k, res.PayloadTokens)
		if len(res.Dropped) > 0 {
			r.dropped++
		}
		for len(queue) > 0 {
			task := queue[0]
			queue = queue[1:]
			task(ctx)
		}
		turn = k + 1 // the hook's turn, once this turn's tasks have run
		return nil
	})
	if err != nil {
		return nil, newTurnError(s.String(), err)
	}
	return r, nil
}

// uncompressed measures the chat sent whole at every turn, counted as
// Compress counts a payload.
func (sim *simulation) uncompressed(ctx context.Context) (*replay, error) {
	never := recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) {
		return "", errors.New("the uncompressed chat is never summarized")
	})
	c, err := recap.New(never, recap.NewMemoryStore(), append(sim.tok.options(), recap.WithTriggerTokens(math.MaxInt))...)
	if err != nil {
		return nil, err
	}
	r := &replay{sent: make([]int, len(sim.turns)), marks: make([]mark, len(sim.turns))}
	err = retention.ReplayTurns(ctx, c, sim.chatID, sim.msgs, sim.turns, func(k int, res recap.Result) error {
		r.add(k, res.PayloadTokens)
		return nil
	})
	if err != nil {
		return nil, newTurnError("uncompressed", err)
	}
	return r, nil
}

// turnError is the failure of a Compress in a replay.
type turnError struct {
	setting       string
	turn, message int // the turn, from 1, and the index of its user message
	err           error
}

// Error names the setting and the turn, then says what failed without the
// library's "recap: " prefix, which the CLI puts once before it all.
func (e *turnError) Error() string {
	return fmt.Sprintf("%s: turn %d (message %d): %s", e.setting, e.turn, e.message, strings.TrimPrefix(e.err.Error(), "recap: "))
}

func (e *turnError) Unwrap() error { return e.err }

// newTurnError returns the error of ReplayTurns with setting's name: a
// turnError for a *retention.TurnError, else err.
func newTurnError(setting string, err error) error {
	var te *retention.TurnError
	if !errors.As(err, &te) {
		return err
	}
	return &turnError{setting: setting, turn: te.Turn, message: te.Message, err: te.Err}
}

func (r *replay) add(turn, tokens int) {
	r.sent[turn] = tokens
	r.total += tokens
	r.largest = max(r.largest, tokens)
}

// settingOptions returns the options of s and the extractive summary's
// budget for its trigger, as compress chooses them: from the environment
// with the flags winning, s playing the flags.
func settingOptions(lookup func(string) (string, bool), s setting) ([]recap.Option, int, error) {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	trigger := fs.Int("trigger", 0, "")
	window := fs.Int("window", 0, "")
	fs.Set("trigger", strconv.Itoa(s.trigger)) // an int's decimal form: cannot fail
	fs.Set("window", strconv.Itoa(s.window))
	return setup.Options(lookup, envPrefixes, fs, trigger, window)
}

// envInt returns the value of the last of prefixes+name that is set and
// an integer, or def.
func envInt(lookup func(string) (string, bool), name string, def int) int {
	for _, p := range envPrefixes {
		if v, ok := lookup(p + name); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				def = n
			}
		}
	}
	return def
}

// intList is a flag of comma-separated integers.
type intList []int

func (l *intList) String() string {
	if l == nil {
		return ""
	}
	s := make([]string, len(*l))
	for i, n := range *l {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(v string) error {
	var out intList
	seen := map[int]bool{}
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("%q is not an integer", strings.TrimSpace(f))
		}
		if seen[n] {
			return fmt.Errorf("%d is repeated", n)
		}
		seen[n] = true
		out = append(out, n)
	}
	*l = out
	return nil
}

// gridFlags are the flags that choose the settings a chat is replayed
// with, one or a grid: simulate's and eval's.
type gridFlags struct {
	triggers, windows intList
	trigger, window   *int
	grid              *bool
}

func newGridFlags(fs *flag.FlagSet) *gridFlags {
	g := &gridFlags{
		trigger: fs.Int("trigger", 0, "summarize when the part to summarize exceeds this many tokens (default 1000, or $RECAP_/VITE_SUMMARY_TRIGGER_TOKENS)"),
		window:  fs.Int("window", 0, "conversations kept raw, counting the current turn (default 2, or $RECAP_/VITE_SUMMARY_WINDOW_CONVERSATIONS)"),
		grid:    fs.Bool("grid", false, "replay every trigger of -triggers with every window of -windows"),
	}
	fs.Var(&g.triggers, "triggers", "comma-separated `list` of the grid's triggers (default "+(*intList)(&defaultGridTriggers).String()+")")
	fs.Var(&g.windows, "windows", "comma-separated `list` of the grid's windows (default "+(*intList)(&defaultGridWindows).String()+")")
	return g
}

// check returns the usage error of the grid flags set (set: the names of
// the flags on the command line), or nil.
func (g *gridFlags) check(set map[string]bool) error {
	switch {
	case set["trigger"] && set["triggers"]:
		return errors.New("-trigger and -triggers are exclusive")
	case set["window"] && set["windows"]:
		return errors.New("-window and -windows are exclusive")
	case (set["triggers"] || set["windows"]) && !*g.grid:
		return errors.New("-triggers and -windows set the grid: add -grid")
	}
	return nil
}

// settings returns the settings to replay, every trigger of ts with every
// window of ws: the flags' (-trigger or -window fixes one side of a grid),
// else the grid's defaults with -grid, else the environment's or recap's
// defaults.
func (g *gridFlags) settings(set map[string]bool, lookup func(string) (string, bool)) (settings []setting, ts, ws []int) {
	ts, ws = []int(g.triggers), []int(g.windows)
	switch {
	case set["trigger"]:
		ts = []int{*g.trigger}
	case len(ts) == 0 && *g.grid:
		ts = defaultGridTriggers
	case len(ts) == 0:
		ts = []int{envInt(lookup, recap.EnvTriggerTokens, recap.DefaultTriggerTokens)}
	}
	switch {
	case set["window"]:
		ws = []int{*g.window}
	case len(ws) == 0 && *g.grid:
		ws = defaultGridWindows
	case len(ws) == 0:
		ws = []int{envInt(lookup, recap.EnvWindowConversations, recap.DefaultWindowConversations)}
	}
	for _, t := range ts {
		for _, w := range ws {
			settings = append(settings, setting{trigger: t, window: w})
		}
	}
	return settings, ts, ws
}

// simulateFlags are the flags of simulate.
type simulateFlags struct {
	fs *flag.FlagSet
	*gridFlags
	format, encoding, model, plot      *string
	budget, ceiling, maxInput, maxTurn *int
	clearKeep                          *int
	background, perCall, check         *bool
	price                              *float64
}

func newSimulateFlags() *simulateFlags {
	fs := newFlagSet("simulate")
	f := &simulateFlags{
		fs:         fs,
		gridFlags:  newGridFlags(fs),
		format:     fs.String("format", "auto", "chat format: auto, ui (AI SDK UIMessages) or openai"),
		encoding:   fs.String("encoding", tokens.O200kBase, "token encoding or OpenAI model name (o200k_base, cl100k_base, gpt-4o, ...)"),
		model:      fs.String("model", "", "count tokens as the chat model `name` does: exactly for OpenAI, estimated for Claude and Gemini (tokens.EstimatorForModel), with the family's tokens per message; not with -encoding"),
		budget:     fs.Int("summary-tokens", 0, "token budget of the extractive summary (default: half the trigger, at most 500)"),
		ceiling:    fs.Int("max-payload", 0, "hard ceiling on the payload's tokens; the oldest conversations are left out to fit (0: none)"),
		maxInput:   fs.Int("max-input", defaultMaxInput, "tokens one summarizer call is given at most; a larger part to summarize is folded in several calls (recap.WithMaxSummarizeInput; 0: no bound)"),
		background: fs.Bool("background", false, "summarize in the background (recap.WithBackground), the tasks running after each turn"),
		maxTurn:    fs.Int("max-turn", 0, "compact a current turn over this many tokens (recap.WithMaxTurnTokens; 0: never)"),
		clearKeep:  fs.Int("clear-keep", -1, "clear tool outputs older than the N most recent (recap.WithToolResultClearing; -1: never)"),
		perCall:    fs.Bool("per-call", false, "replay before every model call (after each round of tool results too), not once per user turn"),
		check:      fs.Bool("check", false, checkUsage),
		price:      fs.Float64("price", defaultPrice, "`USD` per million input tokens (2.50 is GPT-4o's input price)"),
		plot:       fs.String("plot", "", "write an SVG chart of the tokens sent per turn to this file"),
	}
	return f
}

// runSimulate is the simulate command: args are its flags and the chat.
func runSimulate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	f := newSimulateFlags()
	path, err := parseArgs(f.fs, args)
	if err != nil {
		return parseError(stdout, stderr, "simulate", err)
	}
	set := flagsSet(f.fs)
	usageErr := func(format string, args ...any) int {
		return usageError(stderr, "simulate", fmt.Errorf(format, args...))
	}
	if err := f.gridFlags.check(set); err != nil {
		return usageError(stderr, "simulate", err)
	}
	switch {
	case *f.price < 0 || math.IsNaN(*f.price) || math.IsInf(*f.price, 0):
		return usageErr("-price %v is not a price", *f.price)
	case *f.maxTurn < 0:
		return usageErr("-max-turn %d is negative", *f.maxTurn)
	case *f.clearKeep < -1:
		return usageErr("-clear-keep %d: give a count, or -1 for none", *f.clearKeep)
	case *f.plot != "" && !strings.EqualFold(filepath.Ext(*f.plot), ".svg"):
		return usageErr("-plot %s: the chart is SVG: name a .svg file (rsvg-convert makes a PNG of it)", *f.plot)
	}
	if err := checkCounterFlags(f.fs); err != nil {
		return usageError(stderr, "simulate", err)
	}
	fail := failer(stderr)
	tok, err := newTokenizer(*f.encoding, *f.model)
	if err != nil {
		return fail(err)
	}
	msgs, detected, name, _, err := readChat(path, stdin, *f.format)
	if err != nil {
		return fail(err)
	}
	failChat := chatFailer(fail, name)
	// The environment's options are checked once here, with errors that
	// name the variable.
	if _, _, err := setup.Options(lookup, envPrefixes, f.fs, f.trigger, f.window); err != nil {
		return fail(err)
	}
	_, _, label, err := setup.Summarizers(lookup, tok.counter, 1, chatapi.ForLLM) // the label only
	if err != nil {
		return fail(err)
	}

	settings, ts, ws := f.gridFlags.settings(set, lookup)

	sim := &simulation{chatID: defaultChatID(path), msgs: msgs, turns: turnsOf(msgs), lookup: lookup, tok: tok,
		budget: *f.budget, maxPayload: *f.ceiling, maxInput: *f.maxInput, background: *f.background, check: *f.check,
		maxTurn: *f.maxTurn, clearKeep: *f.clearKeep, stderr: stderr}
	if *f.perCall {
		sim.turns, sim.perCall = callsOf(msgs), true
	}
	if len(sim.turns) == 0 {
		return failChat(errors.New("no user message: nothing to replay"))
	}
	base, err := sim.uncompressed(ctx)
	if err != nil {
		return failChat(err)
	}
	var replays []*replay
	for _, s := range settings {
		r, err := sim.run(ctx, s)
		if err != nil {
			return failChat(err)
		}
		replays = append(replays, r)
	}
	printSimulation(stdout, sim, detected, label, *f.price, base, replays)
	if *f.plot != "" {
		title := fmt.Sprintf("%s: tokens sent per turn (%d messages, %d turns)", filepath.Base(name), len(msgs), len(sim.turns))
		if err := os.WriteFile(*f.plot, plotSVG(title, *f.ceiling, base, replays, ts, ws), 0o644); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stderr, "recap: chart written to %s\n", *f.plot)
	}
	return exitOK
}

// printSimulation writes the table of replays, the uncompressed chat
// first, with a header saying what was replayed and how.
func printSimulation(w io.Writer, sim *simulation, format, summarizer string, price float64, base *replay, replays []*replay) {
	unit := "turns"
	if sim.perCall {
		unit = "model calls"
	}
	fmt.Fprintf(w, "chat %q: %d messages, %d %s, format %s, %s; summaries by %s\n",
		sim.chatID, len(sim.msgs), len(sim.turns), unit, format, sim.tok.name, summarizer)
	ceiling := "no ceiling"
	if sim.maxPayload != 0 {
		ceiling = "ceiling " + group(sim.maxPayload) + " tokens"
	}
	if sim.maxTurn != 0 {
		ceiling += "; turns over " + group(sim.maxTurn) + " tokens compacted"
	}
	if sim.clearKeep >= 0 {
		ceiling += fmt.Sprintf("; tool outputs older than the %d most recent cleared", sim.clearKeep)
	}
	where := "summarizing inside the request"
	if sim.background {
		where = "summarizing in the background, tasks run after each turn"
	}
	fmt.Fprintf(w, "%s; %s\n\n", ceiling, where)

	cost := func(r *replay) float64 { return float64(r.total+r.summarizerIn) * price / 1e6 }
	prec := 2
	if cost(base) < 1 {
		prec = 4
	}
	// Numbers align right. Each cell after the setting starts with the
	// gap before it, so that the setting, padded to one width, starts the
	// line.
	width := len("uncompressed")
	for _, r := range replays {
		width = max(width, len(r.setting.String()))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 0, ' ', tabwriter.AlignRight)
	cells := func(label string, c ...string) {
		fmt.Fprintf(tw, "%-*s\t", width, label)
		for _, s := range c {
			fmt.Fprintf(tw, "  %s\t", s)
		}
		fmt.Fprintln(tw)
	}
	head := []string{"CALLS", "IN REQUEST", "IN BACKGROUND", "LARGEST", "TOTAL SENT", "SUMMARIZER IN", "COST", "SAVED"}
	if sim.maxPayload != 0 {
		head = append(head, "DROPPED")
	}
	cells("SETTING", head...)
	row := func(label string, r *replay, saved string) {
		c := []string{strconv.Itoa(r.calls()), strconv.Itoa(r.inRequest), strconv.Itoa(r.background),
			group(r.largest), group(r.total), group(r.summarizerIn), fmt.Sprintf("$%.*f", prec, cost(r)), saved}
		if sim.maxPayload != 0 {
			c = append(c, strconv.Itoa(r.dropped))
		}
		cells(label, c...)
	}
	row("uncompressed", base, "-")
	fallbacks := 0
	for _, r := range replays {
		saved := "-"
		if c := cost(base); c > 0 {
			saved = fmt.Sprintf("%.0f%%", 100*(1-cost(r)/c))
		}
		row(r.setting.String(), r, saved)
		fallbacks += r.fallbacks
	}
	tw.Flush()
	fmt.Fprintf(w, "\nCOST: the payloads and the summarizer's input at $%.2f per million input tokens\n(the summaries' output is not counted).\n", price)
	if sim.maxPayload != 0 {
		fmt.Fprintln(w, "DROPPED: turns whose payload left the oldest conversations out to fit the ceiling.")
	}
	if fallbacks > 0 {
		fmt.Fprintf(w, "%d of the calls were the extractive fallback's, after the LLM failed.\n", fallbacks)
	}
}

// group writes n with commas between groups of three digits.
func group(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
