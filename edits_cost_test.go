package recap_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/extractive"
	"github.com/recapgo/recap/tokens"
)

// countingSummarizer counts the calls to s and the tokens they are given
// (the previous summary and the messages' texts).
type countingSummarizer struct {
	s      recap.Summarizer
	count  func(string) int
	calls  int
	tokens int
}

func (c *countingSummarizer) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	c.calls++
	c.tokens += c.count(req.Previous)
	for _, m := range req.Messages {
		c.tokens += c.count(m.Text())
	}
	return c.s.Summarize(ctx, req)
}

// costChat returns a 500-message chat whose messages say different things.
func costChat() []recap.Message {
	topics := []string{"the deployment", "the invoice", "the database migration", "the onboarding flow", "the billing API"}
	msgs := make([]recap.Message, 500)
	for i := range msgs {
		topic := topics[i/2%len(topics)]
		if i%2 == 0 {
			msgs[i] = recap.Message{ID: fmt.Sprint("m", i), Role: recap.RoleUser,
				Content: fmt.Sprintf("Question %d: what is the status of %s? We agreed on deadline %d and owner user%d.", i, topic, 1000+i, i%17)}
		} else {
			msgs[i] = recap.Message{ID: fmt.Sprint("m", i), Role: recap.RoleAssistant,
				Content: fmt.Sprintf("Answer %d: %s is on track; the next step is review %d, then a rollout to region eu-%d. The risk is latency.", i, topic, i*3, i%5)}
		}
	}
	return msgs
}

// TestEditCost measures what an edit, a deletion or an insertion at
// message k of a 500-message chat costs the next request (trigger 1000,
// window 2, the extractive summarizer), as docs/usage.md reports it: the
// chat is grown turn by turn, then changed at k and sent once more. An
// earlier summary that covers only messages before k is reused (see
// Result.Summary); without one, the history is folded again from the
// start, in chunks of WithMaxSummarizeInput. Run with -v for the figures.
func TestEditCost(t *testing.T) {
	counter, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := extractive.New(counter, 400)
	if err != nil {
		t.Fatal(err)
	}
	changes := []struct {
		name   string
		change func(msgs []recap.Message, k int) []recap.Message
	}{
		{"edit", func(msgs []recap.Message, k int) []recap.Message {
			msgs[k].Content = "Edited: the deadline moved to " + fmt.Sprint(9000+k) + "."
			return msgs
		}},
		{"delete", func(msgs []recap.Message, k int) []recap.Message {
			return append(msgs[:k:k], msgs[k+1:]...)
		}},
		{"insert", func(msgs []recap.Message, k int) []recap.Message {
			ins := recap.Message{ID: "inserted", Role: recap.RoleUser, Content: "An inserted note: the budget is 40k."}
			return append(append(msgs[:k:k], ins), msgs[k:]...)
		}},
	}
	type cost struct{ calls, tokens int }
	var grown cost
	results := map[string]cost{}
	for _, ch := range changes {
		for _, k := range []int{10, 250, 490} {
			cs := &countingSummarizer{s: ex, count: counter.CountTokens}
			c, err := recap.New(cs, recap.NewMemoryStore(), recap.WithTokenCounter(counter), recap.WithTriggerTokens(1000), recap.WithWindowConversations(2))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			chat := costChat()
			for n := 2; n <= len(chat); n += 2 { // a user message and its reply a turn
				if _, err := c.Compress(ctx, "c", chat[:n-1]); err != nil {
					t.Fatal(err)
				}
			}
			grown = cost{cs.calls, cs.tokens}
			changed := ch.change(append([]recap.Message(nil), chat...), k)
			changed = append(changed, recap.Message{ID: "next", Role: recap.RoleUser, Content: "And now?"})
			cs.calls, cs.tokens = 0, 0
			res, err := c.Compress(ctx, "c", changed)
			if err != nil {
				t.Fatal(err)
			}
			if res.Err != nil || res.Summary.IsZero() {
				t.Fatalf("%s at %d: err %v, summary in force %+v", ch.name, k, res.Err, res.Summary)
			}
			results[fmt.Sprint(ch.name, k)] = cost{cs.calls, cs.tokens}
			t.Logf("%-6s at k=%3d: %2d Summarizer calls, %6d input tokens (stale %v)", ch.name, k, cs.calls, cs.tokens, res.Stale)
		}
	}
	t.Logf("growing the chat to 500 messages took %d calls, %d input tokens", grown.calls, grown.tokens)
	for _, ch := range changes {
		near, far := results[ch.name+"490"], results[ch.name+"10"]
		if mid := results[ch.name+"250"]; near.tokens*4 > far.tokens || mid.tokens >= far.tokens || far.calls == 0 {
			t.Errorf("%s at 490 cost %d tokens, at 10 %d: an earlier summary should have been reused", ch.name, near.tokens, far.tokens)
		}
	}
}
