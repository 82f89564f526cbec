package retention

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/recapgo/recap/internal/keyitems"
)

// TestCueAudit checks the rule that no rule of the extractive
// summarizer gets its effect from a term found in only one benchmark
// chat: each cue phrase found in exactly one chat of the benchmark (the
// in-sample and held-out sets) is taken out of the lexicon, the in-sample
// set (the one the cues were tuned on) is replayed, and the test fails if
// the facts kept change. A phrase found in several chats, or in none, is
// a general rule or no rule for the benchmark.
//
// It replays the set once per such phrase (a minute or two): it runs with
// RECAP_TEST_LONG=1.
func TestCueAudit(t *testing.T) {
	if os.Getenv("RECAP_TEST_LONG") != "1" {
		t.Skip("a long run: set RECAP_TEST_LONG=1")
	}
	chats, err := Load(Set{"testdata/insample", "testdata/insample"})
	if err != nil {
		t.Fatal(err)
	}
	heldout, err := Load(Set{"testdata/heldout", "testdata/heldout"})
	if err != nil {
		t.Fatal(err)
	}
	all := append(slices.Clone(chats), heldout...) // where a phrase is counted
	texts := make([][]string, len(all))            // each chat's words, normalized as cues match them
	joined := make([]string, len(all))
	for i, c := range all {
		var b strings.Builder
		for _, m := range c.Messages {
			b.WriteString(m.Text())
			b.WriteString("\n")
		}
		joined[i] = strings.ToLower(b.String())
		texts[i] = keyitems.Normalized(b.String())
	}
	found := func(i int, phrase string) bool {
		if r := []rune(phrase); len(r) > 0 && keyitems.IsCJK(r[0]) {
			return strings.Contains(joined[i], phrase)
		}
		ws := keyitems.Normalized(phrase)
		for j := 0; j+len(ws) <= len(texts[i]); j++ {
			if slices.Equal(texts[i][j:j+len(ws)], ws) {
				return true
			}
		}
		return false
	}
	kept := func() int {
		s := newSetup(t, "", false)
		n := 0
		for _, c := range chats {
			o, err := Replay(context.Background(), s, c)
			if err != nil {
				t.Fatal(err)
			}
			n += Sum([]Outcome{o}).Kept
		}
		return n
	}
	base := kept()
	var single []string
	for _, p := range keyitems.Phrases() {
		n := 0
		for i := range all {
			if found(i, p) {
				n++
			}
		}
		if n == 1 {
			single = append(single, p)
		}
	}
	slices.Sort(single)
	t.Logf("%d of %d cue phrases are in exactly one of the %d benchmark chats; %d in-sample facts kept with all of them", len(single), len(keyitems.Phrases()), len(all), base)
	for _, p := range single {
		restore := keyitems.WithoutPhrase(p)
		got := kept()
		restore()
		if got != base {
			t.Errorf("cue %q, found in one benchmark chat only, changes the in-sample facts kept: %d without it, %d with it", p, got, base)
		}
	}
}
