package recap

import (
	"context"
	"testing"

	"github.com/recapgo/recap/tokens"
)

// recallQueries are the benchmark's queries, in turn: words of the
// fixture's prose, code, chat and CJK texts.
var recallQueries = []string{
	"quick river trees in the morning",
	"apiVersion kind Pod nginx image",
	"tool_call search weather arguments",
	"HTTPServer items enumerate",
	"ヘザ퀓 쌈ン",
	"lazy children played chess",
}

// benchRecallChat returns BenchmarkCompress's 2,000-message chat and a
// summary that covers all of it but the last 100 messages.
func benchRecallChat(b *testing.B) ([]Message, Summary) {
	chat := longChat(b, 2000, true)
	var covered []string
	for _, m := range chat[1 : len(chat)-100] {
		covered = append(covered, m.ID)
	}
	return chat, Summary{Text: "An earlier summary.", LastMessageID: covered[len(covered)-1], Covered: covered}
}

// BenchmarkRecall measures Compressor.Recall on BenchmarkCompress's
// 2,000-message chat, 1,900 of them covered by the summary: "first" on a
// Compressor that compressed the chat but never searched it (so the index
// is built), "next" on one that searched it before, with another query
// each time, as on the model's later calls.
func BenchmarkRecall(b *testing.B) {
	chat, s := benchRecallChat(b)
	ctx := context.Background()
	tc, _ := tokens.NewTiktoken(tokens.O200kBase)
	opts := []Option{WithTriggerTokens(100_000), WithTokenCounter(tc)}
	compressed := func(b *testing.B) *Compressor {
		st := NewMemoryStore()
		if err := st.Save(ctx, "c", Summary{}, s); err != nil {
			b.Fatal(err)
		}
		c, _ := New(SummarizerFunc(noSummary), st, opts...)
		if res, err := c.Compress(ctx, "c", chat); err != nil || res.Summarized || res.Summary.LastMessageID != s.LastMessageID {
			b.Fatal(res, err)
		}
		return c
	}

	b.Run("first", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			c := compressed(b)
			b.StartTimer()
			found, err := c.Recall(ctx, "c", chat, recallQueries[i%len(recallQueries)])
			if err != nil || len(found) == 0 {
				b.Fatal(found, err)
			}
		}
	})
	b.Run("next", func(b *testing.B) {
		c := compressed(b)
		if _, err := c.Recall(ctx, "c", chat, "first query"); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			found, err := c.Recall(ctx, "c", chat, recallQueries[i%len(recallQueries)])
			if err != nil || len(found) == 0 {
				b.Fatal(found, err)
			}
		}
	})
}

// BenchmarkRecallFunc measures the pure Recall on the same chat: an index
// built for each call.
func BenchmarkRecallFunc(b *testing.B) {
	chat, s := benchRecallChat(b)
	tc, _ := tokens.NewTiktoken(tokens.O200kBase)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		found, err := Recall(chat, s, recallQueries[i%len(recallQueries)], RecallCounter(tc))
		if err != nil || len(found) == 0 {
			b.Fatal(found, err)
		}
	}
}

// BenchmarkRecallTerms measures the scanner alone, per byte of text.
func BenchmarkRecallTerms(b *testing.B) {
	chat, _ := benchRecallChat(b)
	size := 0
	for _, m := range chat {
		size += len(m.Text())
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var sc termScanner
	n := 0
	for i := 0; i < b.N; i++ {
		for _, m := range chat {
			sc.scan(m.Text(), func([]byte, termKind, int, int) { n++ })
		}
	}
	if n == 0 {
		b.Fatal("no terms")
	}
}
