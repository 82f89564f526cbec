package recap

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// flaky is a Summarizer that fails while failing reports true, and counts
// its calls.
type flaky struct {
	calls   atomic.Int64
	failing func(call int) bool
}

func (f *flaky) Summarize(_ context.Context, req SummarizeRequest) (string, error) {
	n := int(f.calls.Add(1))
	if f.failing(n) {
		return "", errors.New("llm down")
	}
	return "summary through " + req.Messages[len(req.Messages)-1].ID, nil
}

func TestBackoff(t *testing.T) {
	ctx := context.Background()
	t.Run("always failing", func(t *testing.T) {
		f := &flaky{failing: func(int) bool { return true }}
		c := mustNew(t, f, NewMemoryStore(), WithTriggerTokens(20), WithMaxPayloadTokens(150))
		backedOff := 0
		for turn := 1; turn <= 100; turn++ {
			res, err := c.Compress(ctx, "c", conversation(turn+1))
			if err != nil && !errors.Is(err, ErrBudget) {
				t.Fatalf("turn %d: %v", turn, err)
			}
			if res.PayloadTokens > 150 || len(res.Payload) == 0 {
				t.Fatalf("turn %d: payload of %d tokens", turn, res.PayloadTokens)
			}
			if errors.Is(res.Err, ErrBackoff) {
				backedOff++
			}
		}
		if n := f.calls.Load(); n > 10 {
			t.Errorf("%d Summarizer calls over 100 turns, want at most 10", n)
		}
		if backedOff < 80 {
			t.Errorf("%d of 100 results say the Summarizer sat out", backedOff)
		}
	})
	t.Run("recovering", func(t *testing.T) {
		turn := 0
		f := &flaky{}
		f.failing = func(int) bool { return turn <= 50 }
		c := mustNew(t, f, NewMemoryStore(), WithTriggerTokens(20))
		for turn = 1; turn <= 60; turn++ {
			res, err := c.Compress(ctx, "c", conversation(turn+1))
			if err != nil {
				t.Fatal(err)
			}
			if res.Summarized {
				if turn > 55 {
					t.Errorf("summarized again at turn %d, more than 5 turns after the Summarizer recovered (turn 51)", turn)
				}
				return
			}
		}
		t.Error("never summarized after the Summarizer recovered")
	})
	t.Run("the fallback runs while backed off", func(t *testing.T) {
		f := &flaky{failing: func(int) bool { return true }}
		c := mustNew(t, f, NewMemoryStore(), WithTriggerTokens(20), WithFallbackSummarizer(&flaky{failing: func(int) bool { return false }}))
		for turn := 1; turn <= 6; turn++ {
			res, err := c.Compress(ctx, "c", conversation(turn+1))
			if err != nil {
				t.Fatal(err)
			}
			if res.Summarized && res.Fallback && errors.Is(res.Err, ErrBackoff) {
				return
			}
		}
		t.Error("no turn was summarized by the fallback while the main Summarizer sat out")
	})
}

// TestVerbatimSummaryRejected: a Summarizer that returns its input, as it
// came, makes no summary (not shorter than what it replaces) and is backed
// off: few calls over 40 turns, the payload unsummarized and whole.
func TestVerbatimSummaryRejected(t *testing.T) {
	var calls int
	verbatim := SummarizerFunc(func(_ context.Context, req SummarizeRequest) (string, error) {
		calls++
		var b strings.Builder
		b.WriteString(req.Previous)
		for _, m := range req.Messages {
			b.WriteString("\n" + m.Text())
		}
		return b.String(), nil
	})
	st := NewMemoryStore()
	c := mustNew(t, verbatim, st, WithTriggerTokens(100))
	// Messages of 40 words: every input is over the small-input allowance.
	long := func(n int) []Message {
		msgs := conversation(n)
		for i := range msgs {
			msgs[i].Content = strings.Repeat(msgs[i].Content+" ", 4)
		}
		return msgs
	}
	tooLong := 0
	for turn := 1; turn <= 40; turn++ {
		res, err := c.Compress(context.Background(), "c", long(turn+1))
		if err != nil {
			t.Fatal(err)
		}
		if res.Summarized {
			t.Fatalf("turn %d: a verbatim summary was saved", turn)
		}
		if errors.Is(res.Err, ErrSummaryTooLong) {
			tooLong++
		}
	}
	if tooLong == 0 {
		t.Error("no result said the summary was too long")
	}
	if calls > 8 {
		t.Errorf("%d Summarizer calls over 40 turns, want the back-off to keep it under 9", calls)
	}
}

// TestLateSummaryDiscarded: a Summarizer that ignores ctx and answers
// after WithSummarizeTimeout is a timeout: nothing saved.
func TestLateSummaryDiscarded(t *testing.T) {
	late := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		<-ctx.Done()
		return "a late summary", nil
	})
	st := NewMemoryStore()
	c := mustNew(t, late, st, WithTriggerTokens(20), WithSummarizeTimeout(1))
	res, err := c.Compress(context.Background(), "c", conversation(4))
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Err, context.DeadlineExceeded) || res.Summarized {
		t.Errorf("Err = %v, Summarized %v; want a timeout and nothing saved", res.Err, res.Summarized)
	}
	if s, _ := st.Load(context.Background(), "c"); !s.IsZero() {
		t.Errorf("saved %+v", s)
	}
}
