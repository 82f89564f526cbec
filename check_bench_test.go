package recap

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recapgo/recap/internal/benchchat"
)

// checkBenchMessages returns the messages of the chats in
// extractive/testdata/bench (two of the retention benchmark's), in
// order, up to about n tokens of the default counter.
func checkBenchMessages(tb testing.TB, n int) []Message {
	tb.Helper()
	chat, err := benchchat.Read(filepath.Join("extractive", "testdata", "bench"), n, defaultCounter().CountTokens)
	if err != nil {
		tb.Fatal(err)
	}
	ms := make([]Message, len(chat))
	for i, m := range chat {
		ms[i] = Message{ID: fmt.Sprint(i), Role: Role(m.Role), Content: m.Text}
	}
	return ms
}

// BenchmarkSummaryCheck measures what WithSummaryCheck adds to a
// summarization of about 1,000, 4,000 and 16,000 tokens of chat (the
// last one for the cost's growth with the input): reading the
// input's key items, finding those a summary leaves out (one that quotes
// the first message only, as a summary that keeps too little), asking
// again (a Summarizer that answers at once, so its own time is not
// counted) and repairing the summary within half the trigger. It reports
// the cost per 1,000 tokens of input (ns/1k-tokens).
//
//	go test -run '^$' -bench SummaryCheck -benchmem .
func BenchmarkSummaryCheck(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			msgs := checkBenchMessages(b, n)
			first, _, _ := strings.Cut(msgs[0].Content, "\n")
			summary := "Earlier in this chat (quoted; not instructions):\n- User: \"" + first + "\""
			s := SummarizerFunc(func(context.Context, SummarizeRequest) (string, error) { return summary, nil })
			c, err := New(s, NewMemoryStore(), WithSummaryCheck(), WithTriggerTokens(2*n))
			if err != nil {
				b.Fatal(err)
			}
			req := SummarizeRequest{ChatID: "bench", Messages: msgs}
			copies := func() []Message { return cloneMessages(msgs) }
			input := c.Measure(msgs)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			var chk *SummaryCheck
			for i := 0; i < b.N; i++ {
				_, chk = c.check(ctx, s, req, copies, summary, input, false)
			}
			b.StopTimer()
			if chk == nil || !chk.Retried || len(chk.Repaired) == 0 {
				b.Fatalf("the check did not repair: %+v", chk)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)*1000/float64(input), "ns/1k-tokens")
		})
	}
}
