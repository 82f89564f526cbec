package recap

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap/tokens"
)

// TestCompressBacklog: a 500-message backlog with a Summarizer that
// rejects inputs over n tokens drains, chunk by chunk, to one summary and
// a bounded payload.
func TestCompressBacklog(t *testing.T) {
	const limit = 200
	var calls atomic.Int64
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		calls.Add(1)
		in := len(strings.Fields(req.Previous))
		for _, m := range req.Messages {
			in += len(strings.Fields(m.Text()))
		}
		if in > limit {
			return "", fmt.Errorf("context length exceeded: %d tokens", in)
		}
		return fmt.Sprintf("summary through %s", req.Messages[len(req.Messages)-1].ID), nil
	})
	st := &savesLog{Store: NewMemoryStore()}
	c := mustNew(t, sum, st, WithTriggerTokens(100), WithMaxSummarizeInput(limit))
	chat := conversation(250) // 501 messages, about 5,000 tokens to summarize
	res, err := c.Compress(context.Background(), "c", chat)
	if err != nil || res.Err != nil || !res.Summarized {
		t.Fatalf("Compress = %v, %+v", err, res.Err)
	}
	if res.Summary.LastMessageID != "a249" || len(res.Payload) != 4 {
		t.Fatalf("summary %+v, payload %v; want boundary a249 and [summary u250 a250 u251]", res.Summary, ids(res.Payload))
	}
	if calls.Load() < 25 || len(st.log) != int(calls.Load()) {
		t.Fatalf("%d Summarizer calls, %d saves: want one save per chunk, at least 25 chunks", calls.Load(), len(st.log))
	}
	if res.PayloadTokens > 100 {
		t.Fatalf("payload has %d tokens", res.PayloadTokens)
	}
}

// TestCompressBacklogProgressSurvives: a failure midway keeps the chunks
// saved before it, and the payload is built on them.
func TestCompressBacklogProgressSurvives(t *testing.T) {
	var calls atomic.Int64
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		if calls.Add(1) == 3 {
			return "", errors.New("outage")
		}
		return "s" + req.Messages[len(req.Messages)-1].ID, nil
	})
	mem := NewMemoryStore()
	c := mustNew(t, sum, mem, WithTriggerTokens(10), WithMaxSummarizeInput(45))
	chat := conversation(10)
	res, err := c.Compress(context.Background(), "c", chat)
	if err != nil || res.Err == nil || !res.Summarized {
		t.Fatalf("Compress = %v, %+v; want progress saved and the outage reported", err, res)
	}
	got, _ := mem.Load(context.Background(), "c")
	if !got.Equal(res.Summary) || got.LastMessageID == "" {
		t.Fatalf("store %+v, result %+v", got, res.Summary)
	}
	// Payload: the summary, then every message after its boundary.
	var after []string
	seen := false
	for _, m := range chat {
		if seen {
			after = append(after, m.ID)
		}
		seen = seen || m.ID == got.LastMessageID
	}
	if diff := cmp.Diff(append([]string{SummaryIDPrefix + got.LastMessageID}, after...), ids(res.Payload)); diff != "" {
		t.Fatalf("payload (-want +got):\n%s", diff)
	}
}

func TestCompressTruncatesHugeMessage(t *testing.T) {
	var got []Message
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		got = append(got, req.Messages...)
		return "ok", nil
	})
	chat := conversation(3)
	chat[1].Content = strings.Repeat("blob ", 1000)
	c := mustNew(t, sum, NewMemoryStore(), WithTriggerTokens(10), WithMaxSummarizeInput(50))
	res, err := c.Compress(context.Background(), "c", chat)
	if err != nil || res.Err != nil || !res.Summarized {
		t.Fatalf("Compress = %v, %+v", err, res)
	}
	var blob *Message
	for i := range got {
		if got[i].ID == "a1" {
			blob = &got[i]
		}
	}
	if blob == nil || !strings.Contains(blob.Content, "[recap: message truncated for the summarizer, 1000 tokens in all]") || words(blob.Content) > 50 {
		t.Fatalf("huge message given to the summarizer as %+v", blob)
	}
}

func TestTruncateFitsWithRealCounter(t *testing.T) {
	tc, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{strings.Repeat("!", 5000), strings.Repeat("word ", 3000), strings.Repeat("字", 4000), strings.Repeat("a.\n", 2000),
		strings.Repeat("The deploy failed twice; we rolled back to v1.4.2 and paged the on-call. ", 300)} {
		for _, budget := range []int{30, 100, 333} {
			total := tc.CountTokens(text)
			m := truncate(Message{ID: "x", Role: RoleUser, Content: text}, budget, total, tc)
			if n := tc.CountTokens(m.Content); n > budget || !strings.Contains(m.Content, "[recap: message truncated") {
				t.Errorf("%.10q... in %d tokens: %d tokens %q", text, budget, n, m.Content)
			}
			// The cut is at a token boundary (tokens.Truncate's): the kept
			// text encodes to a prefix of the text's tokens, and fills the
			// room the marker leaves but for a few tokens.
			marker := truncationMarker(total)
			cut := strings.TrimSuffix(m.Content, marker)
			ids, all := tc.Encode(cut), tc.Encode(text)
			if len(ids) > len(all) || !slices.Equal(ids, all[:len(ids)]) {
				t.Errorf("%.10q... in %d tokens: the cut %q ends inside a token", text, budget, cut)
			}
			if room := budget - tc.CountTokens(marker); len(ids) < room-3 {
				t.Errorf("%.10q... in %d tokens: kept %d tokens of text in a room of %d", text, budget, len(ids), room)
			}
		}
	}
}
