package recap

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// recordingSummarizer is a factSummarizer that keeps every request's
// previous summary and texts.
type recordingSummarizer struct {
	factSummarizer
	seen []string
}

func (r *recordingSummarizer) Summarize(ctx context.Context, req SummarizeRequest) (string, error) {
	r.seen = append(r.seen, req.Previous)
	for _, m := range req.Messages {
		r.seen = append(r.seen, m.Text())
	}
	return r.factSummarizer.Summarize(ctx, req)
}

// TestForget: a client that keeps its payloads as its history deletes a
// covered message. After Forget, nothing the withdrawn summary said
// reaches a payload or the Summarizer, over later turns; with IDs and
// without (OpenAI messages, the echo known by its text).
func TestForget(t *testing.T) {
	for _, idless := range []bool{false, true} {
		t.Run(fmt.Sprint("idless ", idless), func(t *testing.T) {
			r := &recordingSummarizer{}
			st := NewMemoryStore()
			c, err := New(r, st, WithTokenCounter(words), WithTriggerTokens(40), WithWindowConversations(1))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			send := func(msgs []Message) Result {
				t.Helper()
				if idless {
					msgs = withoutIDs(msgs, FormatOpenAI)
				}
				res, err := c.Compress(ctx, "c", msgs)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			chat := append([]Message{{ID: "sys", Role: RoleSystem, Content: "be brief"}}, factChat(13)...)
			res := send(chat)
			if !res.Summarized || !slices.Contains(res.Summary.Covered, chat[4].ID) && !idless {
				t.Fatalf("first request: %+v", res.Summary)
			}
			old := res.Summary.Text
			history := res.Payload // the client keeps the payload
			covered := res.Summary.Covered[2]
			ok, err := c.Forget(ctx, "c", covered)
			if err != nil || !ok {
				t.Fatalf("Forget(%s) = %v, %v; want true", covered, ok, err)
			}
			seen := len(r.seen)
			for i := 0; i < 12; i++ {
				history = append(history, Message{ID: fmt.Sprint("n", i), Role: []Role{RoleAssistant, RoleUser}[i%2], Content: fmt.Sprintf("fact%d0 more words to fold", i+20)})
				if history[len(history)-1].Role != RoleUser {
					continue
				}
				res := send(history)
				for _, m := range res.Payload {
					if strings.Contains(m.Text(), old) {
						t.Fatalf("turn %d: the withdrawn summary %q is in the payload", i, old)
					}
				}
				if res.Stale {
					t.Errorf("turn %d: stale", i)
				}
				history = res.Payload
			}
			for _, text := range r.seen[seen:] {
				if strings.Contains(text, old) {
					t.Fatalf("the Summarizer was given the withdrawn summary: %q", text)
				}
			}
			if len(r.seen) == seen {
				t.Fatalf("no summarization after Forget: the test proves nothing")
			}
			if stored, _ := st.Load(ctx, "c"); !strings.Contains(stored.Text, ForgottenText) || len(stored.Forgotten) != 1 {
				t.Errorf("stored after Forget and later folds: %+v", stored)
			}
		})
	}
}

// TestForgetFullHistory: a client that sends its full history may call
// Forget too: the history without the message is folded again from its
// messages (not left at ForgottenText), and the deleted fact is gone.
func TestForgetFullHistory(t *testing.T) {
	c, _, _ := newFactCompressor(t, 1)
	ctx := context.Background()
	chat := factChat(13)
	if _, err := c.Compress(ctx, "c", chat); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Forget(ctx, "c", "m4"); err != nil || !ok {
		t.Fatalf("Forget = %v, %v", ok, err)
	}
	res, err := c.Compress(ctx, "c", slices.Delete(cloneMessages(chat), 4, 5))
	if err != nil {
		t.Fatal(err)
	}
	facts := factsOf(res.Summary)
	if !res.Stale || slices.Contains(facts, "fact4") || !slices.Contains(facts, "fact3") || strings.Contains(res.Summary.Text, ForgottenText) {
		t.Fatalf("after Forget, the full history gave stale %v, summary %q", res.Stale, res.Summary.Text)
	}
}

// saveErrStore fails every Save with err.
type saveErrStore struct {
	*MemoryStore
	err error
}

func (f saveErrStore) Save(ctx context.Context, chatID string, prev, next Summary) error {
	return f.err
}

func TestForgetErrors(t *testing.T) {
	ctx := context.Background()
	c, _, st := newFactCompressor(t, 1)
	if _, err := c.Compress(ctx, "c", factChat(13)); err != nil {
		t.Fatal(err)
	}
	before, _ := st.Load(ctx, "c")
	if ok, err := c.Forget(ctx, "c", "m12", "nope"); ok || err != nil {
		t.Errorf("Forget of messages no summary covers = %v, %v; want false, nil", ok, err)
	}
	if ok, err := c.Forget(ctx, "other", "m1"); ok || err != nil {
		t.Errorf("Forget in a chat without a summary = %v, %v; want false, nil", ok, err)
	}
	if after, _ := st.Load(ctx, "c"); !after.Equal(before) {
		t.Errorf("the summary changed: %+v", after)
	}
	boom := errors.New("disk full")
	for _, tt := range []struct {
		err  error
		want error
	}{{boom, boom}, {ErrConflict, ErrConflict}} {
		fc, err := New(SummarizerFunc(noSummary), saveErrStore{st, tt.err})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := fc.Forget(ctx, "c", "m1"); ok || !errors.Is(err, tt.want) {
			t.Errorf("Forget with a Store failing with %v = %v, %v", tt.err, ok, err)
		}
	}
	if after, _ := st.Load(ctx, "c"); !after.Equal(before) {
		t.Errorf("the summary changed: %+v", after)
	}
	if _, err := (&Compressor{}).Forget(ctx, "c", "m1"); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("Forget without a Store: %v", err)
	}
}
