package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/recapgo/recap/examples/recap/internal/retention"
	"github.com/recapgo/recap/internal/setup"
	"github.com/recapgo/recap/tokens"
)

const evalUsage = `usage: recap eval [-trigger N | -triggers N,N...] [-window N | -windows N,N...]
                  [-grid] [-check] [-standin NAME] [-v] [-max-payload N]
                  [-model NAME | -encoding NAME] [-max-input N]
                  [-plot FILE.svg] [CHAT.json | CHAT.chat | DIR]...

eval measures what your summarizer keeps of your chats. It replays each
chat turn by turn as simulate does (at each user message the chat up to
it goes through Compress, an in-memory store keeping the summary) with
your settings and summarizer (the extractive one, or an LLM from the
environment as compress chooses it), and checks the final payload for
the facts of the chat's "fact" lines (a .chat file, the format of the
retention benchmark: see docs/retention.md). It prints, per chat and in
total: the facts kept; those the newest whole messages in the same
tokens keep (recent-only); the payload's share of the chat; the dropped
facts that Recall finds from their "question" lines; the same sums by
the chats' language, by who stated the facts, and for the corrected
ones; the Summarizer calls, their input tokens and the tokens sent over
all turns. A chat without fact lines (a JSON chat, as compress reads it,
up to its last user message) is measured by its key items instead, a
proxy labelled as such: identifiers, numbers with their units, dates and
times, quoted titles, URLs and e-mail addresses.

Each DIR (its *.chat and *.json files) is reported apart, the chat files
given one by one together; with no argument, eval replays the built-in
benchmark: its held-out sets (the clean ones first, then those in other
languages and the first one), then its in-sample one. -grid replays
every trigger of -triggers with every window of -windows, as simulate
does. -plot draws the facts kept at each turn, summed over the chats,
for each setting. Flags come before or after the chats.

Flags:
`

// evalFlags are the flags of eval.
type evalFlags struct {
	fs *flag.FlagSet
	*gridFlags
	format, encoding, model, plot, standin *string
	budget, ceiling, maxInput              *int
	check, verbose                         *bool
}

func newEvalFlags() *evalFlags {
	fs := newFlagSet("eval")
	return &evalFlags{
		fs:        fs,
		gridFlags: newGridFlags(fs),
		format:    fs.String("format", "auto", "format of the JSON chats: auto, ui (AI SDK UIMessages), openai or anthropic"),
		encoding:  fs.String("encoding", tokens.O200kBase, "token encoding or OpenAI model name (o200k_base, cl100k_base, gpt-4o, ...)"),
		model:     fs.String("model", "", "count tokens as the chat model `name` does: exactly for OpenAI, estimated for Claude and Gemini (tokens.EstimatorForModel), with the family's tokens per message; not with -encoding"),
		budget:    fs.Int("summary-tokens", 0, "token budget of the extractive summary (default: half the trigger, at most 500)"),
		ceiling:   fs.Int("max-payload", 0, "hard ceiling on the payload's tokens; the oldest conversations are left out to fit (0: none)"),
		maxInput:  fs.Int("max-input", defaultMaxInput, "tokens one summarizer call is given at most; a larger part to summarize is folded in several calls (recap.WithMaxSummarizeInput; 0: no bound)"),
		check:     fs.Bool("check", false, checkUsage),
		standin:   fs.String("standin", "", "degrade each summary as an LLM may: "+retention.StandinNames+" (a stand-in for measuring -check)"),
		verbose:   fs.Bool("v", false, "print each chat's final summary and the fate of each fact (or key item)"),
		plot:      fs.String("plot", "", "write an SVG chart of the facts kept at each turn, per setting, to this file"),
	}
}

// An evalSet is chats reported together under a name.
type evalSet struct {
	name  string
	chats []retention.Chat
}

// runEval is the eval command: args are its flags and the chats.
func runEval(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	f := newEvalFlags()
	paths, err := parseArgsList(f.fs, args)
	if err != nil {
		return parseError(stdout, stderr, "eval", err)
	}
	set := flagsSet(f.fs)
	if err := f.gridFlags.check(set); err != nil {
		return usageError(stderr, "eval", err)
	}
	if err := checkCounterFlags(f.fs); err != nil {
		return usageError(stderr, "eval", err)
	}
	switch {
	case *f.plot != "" && !strings.EqualFold(filepath.Ext(*f.plot), ".svg"):
		return usageError(stderr, "eval", fmt.Errorf("-plot %s: the chart is SVG: name a .svg file (rsvg-convert makes a PNG of it)", *f.plot))
	case *f.standin != "" && !retention.IsStandin(*f.standin):
		return usageError(stderr, "eval", fmt.Errorf("-standin %q: want one of %s", *f.standin, retention.StandinNames))
	}
	fail := failer(stderr)
	tok, err := newTokenizer(*f.encoding, *f.model)
	if err != nil {
		return fail(err)
	}
	// The environment's options are checked once here, with errors that
	// name the variable.
	if _, _, err := setup.Options(lookup, envPrefixes, f.fs, f.trigger, f.window); err != nil {
		return fail(err)
	}
	sets, err := evalSets(paths, stdin, *f.format)
	if err != nil {
		return fail(err)
	}

	settings, ts, ws := f.gridFlags.settings(set, lookup)
	var (
		curves  []*replay // per setting: facts kept at each turn, summed
		stated  *replay   // facts stated so far at each turn, summed
		plotted string    // what the curves count
		label   string
		nChats  int
	)
	for i, s := range settings {
		st, l, err := evalSetup(lookup, tok, s, f, stderr)
		if err != nil {
			return fail(err)
		}
		label = l
		var all []retention.Outcome
		for j, es := range sets {
			var outs []retention.Outcome
			for _, c := range es.chats {
				o, err := retention.Replay(ctx, st, c)
				if err != nil {
					return fail(err)
				}
				outs = append(outs, o)
			}
			if i > 0 || j > 0 {
				fmt.Fprintln(stdout)
			}
			name := es.name
			if len(settings) > 1 {
				name += ": " + s.String()
			}
			writeEvalSection(stdout, name, label, outs, *f.verbose)
			all = append(all, outs...)
		}
		var curve *replay
		curve, stated, plotted, nChats = turnCurves(s, all)
		curves = append(curves, curve)
	}
	if *f.plot != "" {
		title := fmt.Sprintf("%s kept at each turn, summed over %d chats", plotted, nChats)
		labels := chartLabels{x: "turn (user message)", y: plotted + " kept", base: "stated so far"}
		if err := os.WriteFile(*f.plot, drawChart(title, labels, 0, stated, curves, ts, ws), 0o644); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stderr, "recap: chart written to %s\n", *f.plot)
	}
	return exitOK
}

// evalSetup returns the Setup that replays chats with setting s and the
// flags, and the label of its summarizer, as simulate configures a
// replay.
func evalSetup(lookup func(string) (string, bool), tok *tokenizer, s setting, f *evalFlags, stderr io.Writer) (retention.Setup, string, error) {
	opts, auto, err := settingOptions(lookup, s)
	if err != nil {
		return retention.Setup{}, "", err
	}
	cfg, err := configure(lookup, tok, opts, auto, *f.budget, *f.ceiling, *f.maxInput, *f.check)
	if err != nil {
		return retention.Setup{}, "", err
	}
	return retention.NewSetup(retention.Config{Options: cfg.opts, Counter: tok.counter, Summarizer: withSpinner(cfg.sum, stderr),
		Fallback: cfg.fallback, Label: cfg.label, Standin: *f.standin, Check: *f.check})
}

// writeEvalSection writes the tables of one set's outcomes under its name:
// the facts kept and recalled (the retention benchmark's tables, and
// their sums by language, speaker and correction), the key
// items kept of the chats without facts, the Summarizer calls and tokens,
// and with verbose each chat's summary and facts.
func writeEvalSection(w io.Writer, name, label string, outs []retention.Outcome, verbose bool) {
	var facts, proxy []retention.Outcome
	for _, o := range outs {
		if o.Proxy() {
			proxy = append(proxy, o)
		} else {
			facts = append(facts, o)
		}
	}
	fmt.Fprintf(w, "## %s\n\n", name)
	if len(facts) > 0 {
		fmt.Fprintf(w, "Facts kept by the final payload of %d chats replayed with %s:\n\n", len(facts), label)
		retention.WriteTable(w, facts)
		fmt.Fprintf(w, "\nFacts the final payload does not hold, recalled by recap.Compressor.Recall: the top %d excerpts for the fact's question, over the final messages and summary, hold every proof:\n\n", retention.RecallK)
		retention.WriteRecallTable(w, facts)
		fmt.Fprint(w, "\nThe same facts by the chats' language, by who stated them, and those corrected in the chat:\n\n")
		retention.WriteGroupTable(w, facts)
	}
	if len(proxy) > 0 {
		if len(facts) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "Key items kept by the final payload of %d chats without fact lines, replayed with %s; %s:\n\n", len(proxy), label, retention.KeyItemsLabel)
		retention.WriteItemsTable(w, proxy)
	}
	fmt.Fprint(w, "\nSummarizer calls and tokens over the replays (tokens sent: every turn's payload; uncompressed: the chat up to every turn; saved counts the summarizer's input as sent):\n\n")
	retention.WriteCallsTable(w, outs)
	if verbose {
		retention.WriteDetails(w, facts)
		retention.WriteItemDetails(w, proxy)
	}
}

// turnCurves returns, for the chart, the facts the payloads of outs kept
// at each turn and those stated so far, each summed over the chats (a
// chat that has ended counts its last turn's), as replays of setting s;
// what they count ("facts", or the proxy's "key items" when no chat has
// facts); and the number of chats summed.
func turnCurves(s setting, outs []retention.Outcome) (kept, stated *replay, what string, n int) {
	what = "facts"
	var use []retention.Outcome
	for _, o := range outs {
		if !o.Proxy() {
			use = append(use, o)
		}
	}
	if len(use) == 0 {
		what, use = "key items (proxy)", outs
	}
	turns := 0
	for _, o := range use {
		turns = max(turns, len(o.KeptByTurn))
	}
	kept = &replay{setting: s, sent: make([]int, turns)}
	stated = &replay{sent: make([]int, turns)}
	for _, o := range use {
		if len(o.KeptByTurn) == 0 {
			continue
		}
		for k := 0; k < turns; k++ {
			last := min(k, len(o.KeptByTurn)-1)
			kept.sent[k] += o.KeptByTurn[last]
			stated.sent[k] += o.StatedByTurn[last]
		}
	}
	for k := range kept.sent {
		kept.largest = max(kept.largest, kept.sent[k])
		stated.largest = max(stated.largest, stated.sent[k])
	}
	return kept, stated, what, len(use)
}

// evalSets returns the chats of paths: each directory a set of its *.chat
// and *.json files, the files given one by one a set together (at the
// place of the first), or the built-in benchmark when paths is empty.
func evalSets(paths []string, stdin io.Reader, format string) ([]evalSet, error) {
	var sets []evalSet
	if len(paths) == 0 {
		for _, s := range retention.Builtin {
			chats, err := retention.Load(s)
			if err != nil {
				return nil, err
			}
			sets = append(sets, evalSet{s.Name, chats})
		}
		return sets, nil
	}
	files := -1 // the index in sets of the files given one by one
	var names []string
	for _, p := range paths {
		if fi, err := os.Stat(p); p != stdinFile && err == nil && fi.IsDir() {
			chats, err := loadDir(p, format)
			if err != nil {
				return nil, err
			}
			sets = append(sets, evalSet{p, chats})
			continue
		}
		c, err := loadChat(p, stdin, format)
		if err != nil {
			return nil, err
		}
		if files < 0 {
			files = len(sets)
			sets = append(sets, evalSet{})
		}
		sets[files].chats = append(sets[files].chats, c)
		names = append(names, p)
	}
	if files >= 0 {
		sets[files].name = strings.Join(names, ", ")
	}
	return sets, nil
}

// loadDir reads the *.chat and *.json files of dir, sorted by name.
func loadDir(dir, format string) ([]retention.Chat, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, err
	}
	var chats []retention.Chat
	for _, e := range entries {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".chat") || strings.HasSuffix(e.Name(), ".json")) {
			continue
		}
		c, err := loadChat(filepath.Join(dir, e.Name()), nil, format)
		if err != nil {
			return nil, err
		}
		chats = append(chats, c)
	}
	if len(chats) == 0 {
		return nil, fmt.Errorf("no *.chat or *.json file in %s", dir)
	}
	return chats, nil
}

// loadChat reads a chat file: a .chat file of the retention benchmark,
// with its facts, or a JSON chat (or standard input, for "-") in format,
// without facts, cut after its last user message, the last turn replayed.
func loadChat(path string, stdin io.Reader, format string) (retention.Chat, error) {
	if strings.HasSuffix(path, ".chat") {
		base := filepath.Base(path)
		c, err := retention.ReadChat(os.DirFS(filepath.Dir(path)), base)
		if err != nil {
			// ReadChat names the file as it was given it, after its
			// package: "retention: x.chat:12: ...".
			return retention.Chat{}, errors.New(strings.Replace(err.Error(), "retention: "+base, path, 1))
		}
		return c, nil
	}
	msgs, _, name, _, err := readChat(path, stdin, format)
	if err != nil {
		return retention.Chat{}, err
	}
	turns := retention.UserTurns(msgs)
	if len(turns) == 0 {
		return retention.Chat{}, fmt.Errorf("%s: %w", name, errors.New("no user message: nothing to replay"))
	}
	return retention.Chat{Name: defaultChatID(path), Messages: msgs[:turns[len(turns)-1]+1]}, nil
}
