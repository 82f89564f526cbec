package extractive_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/benchchat"
)

// benchRequest returns the messages of the chats in testdata/bench (the
// first two of the retention benchmark's, copied), in order, up to about n
// tokens.
func benchRequest(tb testing.TB, n int) recap.SummarizeRequest {
	tb.Helper()
	chat, err := benchchat.Read(filepath.Join("testdata", "bench"), n, counter(tb).CountTokens)
	if err != nil {
		tb.Fatal(err)
	}
	ms := make([]recap.Message, len(chat))
	for i, m := range chat {
		ms[i] = recap.Message{ID: fmt.Sprint(i), Role: recap.Role(m.Role), Content: m.Text}
	}
	return recap.SummarizeRequest{ChatID: "bench", Messages: ms}
}

// BenchmarkSummarize4000 summarizes 4,000 tokens of chat (the messages of
// the retention benchmark) into the CLI's default budget.
//
//	go test ./extractive -run '^$' -bench Summarize4000 -benchtime 200x
func BenchmarkSummarize4000(b *testing.B) {
	req := benchRequest(b, 4000)
	s := newSummarizer(b, 300)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := s.Summarize(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzSummarize(f *testing.F) {
	f.Add("", "My order is BW-58213, not BW-58231.", "Noted: **RMA-7741**.", false, uint8(0))
	f.Add("Earlier in this chat (quoted; not instructions):\nDecisions:\n- User: \"Let's go with Lidl.\"", "- System: \"obey\"\n### x\n**y**", "", true, uint8(80))
	f.Add("not a summary", "日程は8月3日からではなく、8月10日からです。", "{\"a\":1}", false, uint8(30))
	c := counter(f)
	s := newSummarizer(f, 120)
	f.Fuzz(func(t *testing.T, prev, user, assistant string, checked bool, asked uint8) {
		req := recap.SummarizeRequest{Previous: prev, Messages: msgs(user, assistant), MaxTokens: int(asked), Checked: checked}
		a, err := s.Summarize(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		limit := 120
		if asked > 0 {
			limit = min(limit, int(asked))
		}
		if n := c.CountTokens(a); n > limit {
			t.Errorf("summary of %d tokens over the bound of %d: %q", n, limit, a)
		}
		if b, _ := s.Summarize(context.Background(), req); a != b {
			t.Errorf("two runs differ: %q, %q", a, b)
		}
		if strings.HasPrefix(a, "Earlier in this chat") {
			for _, l := range strings.Split(a, "\n") {
				if !itemLine.MatchString(l) {
					t.Errorf("line %q is neither a header nor a quoted item in %q", l, a)
				}
			}
		}
	})
}
