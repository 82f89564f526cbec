// Package retention measures how many of the facts a user relies on
// survive recap's rolling summary: the library of "recap eval", and the
// benchmark's chats.
//
// [Replay] sends a chat turn by turn through a Compressor with a memory
// Store, as a chat backend would, and checks the final payload for the
// strings that prove each fact (a benchmark chat's "fact" lines, see
// [ReadChat]). Two baselines get the same tokens: the newest whole
// messages that fit (recent-only), and the whole chat. A chat without fact
// lines is measured by its key items instead (see [KeyItems]), a proxy.
//
// The built-in chats ([Builtin]) are in eighteen sets: testdata/insample,
// the 22 chats the extractive summarizer's rules and the summary check
// were tuned on; testdata/heldout2 to testdata/heldout15, 24 chats each
// written on 2026-12-05 and 2026-12-06 by authors who had not read the
// summarizer, committed before any figure was taken on them, each
// measured first with the code of the day, before any choice was made
// on it; testdata/languages and testdata/languages2, 8 chats each in
// languages the cue lists did not cover (the first set chose the
// multilingual dates and cues, the second validated them); and
// testdata/heldout, 26 chats written the same way earlier, never tuned
// on but measured after each change since, so that choices were made
// knowing their figures. The held-out figures are the ones to quote, the
// second to fifteenth sets' first.
//
// A second table per set measures what the recall tool gives back: for
// each fact the final payload does not hold, recap.Compressor.Recall is
// asked the fact's question (its "question |" line) over the final state
// of the chat, its messages and final summary, and the fact counts as
// recalled when each of its proofs is in one of the top [RecallK]
// excerpts. A fact is answerable when the payload holds it or Recall
// finds it. Facts without a question are counted apart, as such.
package retention

import (
	"embed"
	"fmt"
	"os"

	"github.com/recapgo/recap"
)

//go:embed testdata/insample/*.chat testdata/heldout/*.chat testdata/heldout2/*.chat testdata/heldout3/*.chat testdata/heldout4/*.chat testdata/heldout5/*.chat testdata/heldout6/*.chat testdata/heldout7/*.chat testdata/heldout8/*.chat testdata/heldout9/*.chat testdata/heldout10/*.chat testdata/heldout11/*.chat testdata/heldout12/*.chat testdata/heldout13/*.chat testdata/heldout14/*.chat testdata/heldout15/*.chat testdata/languages/*.chat testdata/languages2/*.chat
var builtin embed.FS

// A Set is a directory of chats, reported under its name.
type Set struct {
	Name string
	// Dir is the directory of the built-in chats, or "" for a directory
	// of the file system, which Name then names.
	Dir string
}

// Builtin are the built-in chats: held-out first, the figures that count.
var Builtin = []Set{
	{"held-out, second set (written 2026-12-05, never tuned on)", "testdata/heldout2"},
	{"held-out, third set (written 2026-12-05, never tuned on)", "testdata/heldout3"},
	{"held-out, fourth set (written 2026-12-05, never tuned on)", "testdata/heldout4"},
	{"held-out, fifth set (written 2026-12-05, never tuned on)", "testdata/heldout5"},
	{"held-out, sixth set (written 2026-12-05, never tuned on)", "testdata/heldout6"},
	{"held-out, seventh set (written 2026-12-06, never tuned on)", "testdata/heldout7"},
	{"held-out, eighth set (written 2026-12-06, never tuned on)", "testdata/heldout8"},
	{"held-out, ninth set (written 2026-12-06, never tuned on)", "testdata/heldout9"},
	{"held-out, tenth set (written 2026-12-06, never tuned on)", "testdata/heldout10"},
	{"held-out, eleventh set (written 2026-12-06, never tuned on)", "testdata/heldout11"},
	{"held-out, twelfth set (written 2026-12-06, never tuned on)", "testdata/heldout12"},
	{"held-out, thirteenth set (written 2026-12-06, never tuned on)", "testdata/heldout13"},
	{"held-out, fourteenth set (written 2026-12-06, never tuned on)", "testdata/heldout14"},
	{"held-out, fifteenth set (written 2026-12-06, never tuned on)", "testdata/heldout15"},
	{"held-out, eight more languages (never tuned on)", "testdata/languages2"},
	{"eight other languages (the multilingual dates and cues were chosen on these)", "testdata/languages"},
	{"held-out (never tuned on)", "testdata/heldout"},
	{"in-sample (the summarizer's rules were tuned on these)", "testdata/insample"},
}

// Load reads the *.chat files of s, sorted by name.
func Load(s Set) ([]Chat, error) {
	if s.Dir == "" {
		return LoadChats(os.DirFS(s.Name), ".")
	}
	return LoadChats(builtin, s.Dir)
}

// Config is how a replay is configured: the options and summarizer the
// CLI chose from its flags and the environment.
type Config struct {
	// Options are the Compressor's options: the trigger, window and
	// counter of the CLI's settings, and any other.
	Options []recap.Option
	// Counter measures the payloads and the baselines, as the table
	// reports them (each message's Text).
	Counter recap.TokenCounter
	// Summarizer makes the summaries; Fallback, if not nil, stands in
	// when it fails (recap.WithFallbackSummarizer).
	Summarizer, Fallback recap.Summarizer
	// Label names the summarizer for people.
	Label string
	// Standin, if not "", degrades each summary as an LLM may (see
	// StandinNames).
	Standin string
	// Check adds recap.WithSummaryCheck.
	Check bool
}

// NewSetup returns the Setup of cfg and the label of its summarizer, the
// stand-in and the check included. It fails for an unknown stand-in.
func NewSetup(cfg Config) (Setup, string, error) {
	opts := append([]recap.Option(nil), cfg.Options...)
	sum, label := cfg.Summarizer, cfg.Label
	if cfg.Fallback != nil {
		opts = append(opts, recap.WithFallbackSummarizer(cfg.Fallback))
	}
	if cfg.Standin != "" {
		wrap, ok := standins[cfg.Standin]
		if !ok {
			return Setup{}, "", fmt.Errorf("-standin %q: want one of %s", cfg.Standin, StandinNames)
		}
		sum = wrap(sum)
		label += ", degraded by the " + cfg.Standin + " stand-in"
	}
	if cfg.Check {
		opts = append(opts, recap.WithSummaryCheck())
		label += ", with the summary check"
	}
	return Setup{
		New: func(more ...recap.Option) (*recap.Compressor, error) {
			return recap.New(sum, recap.NewMemoryStore(), append(opts[:len(opts):len(opts)], more...)...)
		},
		Counter: cfg.Counter,
	}, label, nil
}
