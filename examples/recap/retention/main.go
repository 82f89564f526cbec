// Command retention measures how many of the facts a user relies on survive
// recap's rolling summary. It replays each benchmark chat turn by turn
// through a Compressor with a memory Store, as a chat backend would, with
// the recap CLI's settings (trigger 1000 tokens, window 2, the extractive
// summary budget of 300 tokens), and checks the final payload for the
// strings that prove each fact. Two baselines get the same tokens: the
// newest whole messages that fit (recent-only), and the whole chat.
//
//	go run ./examples/recap/retention            # the tables: held-out, then in-sample
//	go run ./examples/recap/retention -v         # plus each chat's summary and facts
//	go run ./examples/recap/retention -chats DIR # your own *.chat files
//
// The built-in chats are in two sets: testdata/insample, the 12 chats the
// extractive summarizer's rules were tuned on, and testdata/heldout, chats
// written later by authors who had not read the summarizer, never tuned on.
// The held-out figure is the one to quote.
//
// The summarizer is chosen from the environment as the CLI chooses it
// (RECAP_OPENAI_BASE_URL, RECAP_OPENAI_API_KEY, RECAP_MODEL or
// RECAP_ANTHROPIC_API_KEY for an LLM, with the extractive one as its
// fallback; otherwise the extractive one alone), so an LLM summarizer is
// measured by the same command. The -trigger, -window and -summary-tokens
// flags and the RECAP_SUMMARY_* variables work as in the CLI.
//
// A second table per set measures what the recall tool gives back: for
// each fact the final payload does not hold, recap.Compressor.Recall is
// asked the fact's question (its "question |" line) over the final state
// of the chat, its messages and final summary, and the fact counts as
// recalled when each of its proofs is in one of the top 3 excerpts. A
// fact is answerable when the payload holds it or Recall finds it. Facts
// without a question are counted apart, as such.
//
// The chat file format is documented on ReadChat.
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/recap/internal/chatapi"
	"github.com/recapgo/recap/internal/setup"
	"github.com/recapgo/recap/tokens"
)

//go:embed testdata/insample/*.chat testdata/heldout/*.chat
var builtin embed.FS

// A set is a directory of the built-in chats.
type set struct{ name, dir string }

// sets are the built-in chats: held-out first, the figure that counts.
var sets = []set{
	{"held-out (never tuned on)", "testdata/heldout"},
	{"in-sample (the summarizer's rules were tuned on these)", "testdata/insample"},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv))
}

// run is the whole program, with its environment passed in for tests. It
// returns the exit code: 0 on success, 1 on failure, 2 on bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	fs := flag.NewFlagSet("retention", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		dir     = fs.String("chats", "", "directory of *.chat files (default: the built-in benchmark)")
		trigger = fs.Int("trigger", 0, "summarize when the part to summarize exceeds this many tokens (default 1000)")
		window  = fs.Int("window", 0, "conversations kept raw, counting the current turn (default 2)")
		budget  = fs.Int("summary-tokens", 0, "token budget of the extractive summary (default: half the trigger, at most 300)")
		verbose = fs.Bool("v", false, "print each chat's final summary and the fate of each fact")
		standin = fs.String("standin", "", "degrade each summary as an LLM may: "+standinNames+" (see standins.go)")
		check   = fs.Bool("check", false, "check each summary against its input and repair it (recap.WithSummaryCheck)")
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "retention: %v\n", err)
		return 1
	}
	todo := sets
	if *dir != "" {
		todo = []set{{*dir, ""}}
	}
	s, label, err := newSetup(lookup, fs, trigger, window, *budget, *standin, *check)
	if err != nil {
		return fail(err)
	}
	for i, st := range todo {
		chats, err := load(st)
		if err != nil {
			return fail(err)
		}
		var outs []Outcome
		for _, c := range chats {
			o, err := Replay(ctx, s, c)
			if err != nil {
				return fail(err)
			}
			outs = append(outs, o)
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "## %s\n\nFacts kept by the final payload of %d chats replayed with %s:\n\n", st.name, len(chats), label)
		WriteTable(stdout, outs)
		fmt.Fprintf(stdout, "\nFacts the final payload does not hold, recalled by recap.Compressor.Recall: the top %d excerpts for the fact's question, over the final messages and summary, hold every proof:\n\n", RecallK)
		WriteRecallTable(stdout, outs)
		if *verbose {
			WriteDetails(stdout, outs)
		}
	}
	return 0
}

// load reads the chats of st: a built-in set, or a directory of the
// file system when st.dir is "" (st.name is then the directory).
func load(st set) ([]Chat, error) {
	if st.dir == "" {
		return LoadChats(os.DirFS(st.name), ".")
	}
	return LoadChats(builtin, st.dir)
}

// newSetup configures the replay as the CLI configures itself: options
// from the environment and flags, the summarizer from the environment.
func newSetup(lookup func(string) (string, bool), fs *flag.FlagSet, trigger, window *int, budget int, standin string, check bool) (Setup, string, error) {
	counter, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil {
		return Setup{}, "", err
	}
	opts, auto, err := setup.Options(lookup, []string{"VITE_", "RECAP_"}, fs, trigger, window)
	if err != nil {
		return Setup{}, "", err
	}
	opts = append(opts, recap.WithTokenCounter(counter))
	if budget == 0 {
		budget = auto
	}
	sum, fallback, label, err := setup.Summarizers(lookup, counter, budget, chatapi.ForLLM)
	if err != nil {
		return Setup{}, "", err
	}
	if fallback != nil {
		opts = append(opts, recap.WithFallbackSummarizer(fallback))
	}
	if standin != "" {
		wrap, ok := standins[standin]
		if !ok {
			return Setup{}, "", fmt.Errorf("-standin %q: want one of %s", standin, standinNames)
		}
		sum = wrap(sum)
		label += ", degraded by the " + standin + " stand-in"
	}
	if check {
		opts = append(opts, recap.WithSummaryCheck())
		label += ", with the summary check"
	}
	return Setup{
		New:     func() (*recap.Compressor, error) { return recap.New(sum, recap.NewMemoryStore(), opts...) },
		Counter: counter,
	}, label, nil
}
