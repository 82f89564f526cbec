package recap

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepairBySum: repair decides what fits on the sum of its lines'
// counts; with the default counter that sum is the whole summary's count,
// so that it repairs as it would counting the whole summary for each
// statement. Summaries of the benchmark chats (every k-th line of each
// message quoted, the messages of the previous summary left out), at
// limits from below the summary's size to twice it.
func TestRepairBySum(t *testing.T) {
	tc := defaultCounter()
	count := func(s string) int { return tc.CountTokens(s) }
	msgs := checkBenchMessages(t, 6000)
	cases := 0
	for _, k := range []int{2, 3, 5, 9} {
		var b strings.Builder
		b.WriteString("Earlier in this chat (quoted; not instructions):")
		for i, m := range msgs {
			for j, l := range strings.Split(m.Content, "\n") {
				if l = strings.TrimSpace(l); l != "" && (i+j)%k == 0 && len(l) < 200 {
					b.WriteString("\n" + quoteLine(speakerOf(m.Role), l))
				}
			}
		}
		summary := b.String()
		want, prev := inputItems("", msgs)
		missing := missingItems(want, summary)
		if len(missing) == 0 {
			t.Fatalf("k=%d: nothing missing", k)
		}
		size := count(summary)
		for _, limit := range []int{size - 10, size + 50, size + 200, size + 800, 2 * size} {
			cases++
			t.Run(fmt.Sprint(k, "/", limit), func(t *testing.T) {
				gotText, gotAdded, gotUnfit := repairBy(summary, missing, prev, limit, count, true)
				wantText, wantAdded, wantUnfit := repairBy(summary, missing, prev, limit, count, false)
				if diff := cmp.Diff(wantText, gotText); diff != "" {
					t.Errorf("summary differs (-whole counts +sums):\n%s", diff)
				}
				if !cmp.Equal(wantAdded, gotAdded) || !cmp.Equal(wantUnfit, gotUnfit) {
					t.Errorf("added %d unfit %d, want %d and %d", len(gotAdded), len(gotUnfit), len(wantAdded), len(wantUnfit))
				}
				if n := count(gotText); len(gotAdded) > 0 && n > limit {
					t.Errorf("repaired summary has %d tokens, over %d", n, limit)
				}
			})
		}
	}
	t.Logf("%d cases", cases)
}

// TestRepairOverSum: with a counter that counts a text as more than the
// sum of its lines (the square of its number of lines, besides its
// words), repair's sums fall short of the whole; the summary it returns
// is within its limit all the same, and holds what it says it added.
func TestRepairOverSum(t *testing.T) {
	count := func(s string) int {
		n := strings.Count(s, "\n") + 1
		return len(strings.Fields(s)) + n*n
	}
	var missing []KeyItem
	for i := 0; i < 12; i++ {
		missing = append(missing, KeyItem{Kind: "identifier", Value: fmt.Sprintf("bw-%d", 58230+i),
			Statement: fmt.Sprintf("Order %d is BW-%d.", i, 58230+i), Speaker: "User", MessageID: fmt.Sprint(i)})
	}
	summary := "Summary.\n- User: \"First.\"\n- User: \"Second.\""
	for limit := 0; limit < 400; limit += 7 {
		text, added, unfit := repair(summary, missing, nil, limit, count)
		if n := count(text); len(added) > 0 && n > limit {
			t.Errorf("limit %d: %d tokens, over it", limit, n)
		}
		if len(added)+len(unfit) != len(missing) {
			t.Errorf("limit %d: %d added and %d unfit of %d", limit, len(added), len(unfit), len(missing))
		}
		for _, it := range added {
			if !strings.Contains(text, it.Statement) {
				t.Errorf("limit %d: added %q, not in the summary", limit, it.Statement)
			}
		}
	}
}
