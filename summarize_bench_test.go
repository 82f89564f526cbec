package recap

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/recapgo/recap/tokens"
)

// longChat returns a system prompt and n alternating user and assistant
// messages, ending with a user message. With fixture texts, the messages
// are the fixture's prose, chat, code, JSON, CJK and other scripts cut to
// at most 200 bytes (about 45 tokens): a realistic multi-language chat.
// Without, they are about 40 tokens of words from a small vocabulary.
func longChat(tb testing.TB, n int, fixture bool) []Message {
	var texts []string
	if fixture {
		for _, fc := range loadFixture(tb) {
			switch fc.Cat {
			case "prose", "chat", "code", "json", "cjk", "scripts", "emoji", "digits":
				s := fc.text // valid UTF-8: only the category "invalid-utf8" is not
				if len(s) > 200 {
					s = strings.ToValidUTF8(s[:200], "")
				}
				texts = append(texts, s)
			}
		}
	}
	r := rand.New(rand.NewSource(7))
	words := strings.Fields("the service returned errors after deploy so we rolled back version cache latency queue database index timeout retry budget customer invoice payment tokens summary window context model prompt user assistant tool call result")
	msgs := []Message{{ID: "sys", Role: RoleSystem, Content: "You are a helpful assistant."}}
	for i := 0; i < n; i++ {
		var text string
		if fixture {
			text = texts[r.Intn(len(texts))]
		} else {
			var b strings.Builder
			for w := 0; w < 30; w++ {
				fmt.Fprintf(&b, "%s ", words[r.Intn(len(words))])
			}
			fmt.Fprintf(&b, "ticket OPS-%d.", r.Intn(100000))
			text = b.String()
		}
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		msgs = append(msgs, Message{ID: fmt.Sprintf("m%d", i), Role: role, Content: text})
	}
	if msgs[len(msgs)-1].Role != RoleUser {
		msgs = append(msgs, Message{ID: "last", Role: RoleUser, Content: "and now?"})
	}
	return msgs
}

var errNotExpected = errors.New("the benchmark chat must stay under the trigger")

func noSummary(ctx context.Context, req SummarizeRequest) (string, error) {
	return "", errNotExpected
}

// BenchmarkCompress measures Compress on a 2,000-message chat of fixture
// texts (about 90k tokens) under a 100k-token trigger: "first" with no
// count cached (a new Compressor; the piece cache that package tokens keeps
// for the process is warm after the first iteration, and cannot be emptied
// from here: tokens' BenchmarkCountTokensColdCache measures it cold),
// "next" on the same Compressor with one new message, as on every later
// turn. The
// "-noids" variants send the chat as OpenAI messages without IDs, which
// Compress derives on every call.
func BenchmarkCompress(b *testing.B) {
	withIDs := longChat(b, 2000, true)
	noIDs := cloneMessages(withIDs)
	for i := range noIDs {
		noIDs[i].ID, noIDs[i].Format = "", FormatOpenAI
	}
	ctx := context.Background()
	tc, _ := tokens.NewTiktoken(tokens.O200kBase)
	opts := []Option{WithTriggerTokens(100_000), WithTokenCounter(tc)}

	for _, bc := range []struct {
		suffix string
		chat   []Message
		format Format
	}{{"", withIDs, FormatPlain}, {"-noids", noIDs, FormatOpenAI}} {
		chat := bc.chat
		b.Run("first"+bc.suffix, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c, _ := New(SummarizerFunc(noSummary), NewMemoryStore(), opts...)
				res, err := c.Compress(ctx, "c", chat)
				if err != nil || res.Err != nil || res.Tokens < 50_000 || res.Summarized {
					b.Fatal(err, res.Err, res.Tokens)
				}
				b.ReportMetric(float64(res.Tokens), "tokens")
			}
		})
		b.Run("next"+bc.suffix, func(b *testing.B) {
			c, _ := New(SummarizerFunc(noSummary), NewMemoryStore(), opts...)
			if _, err := c.Compress(ctx, "c", chat); err != nil {
				b.Fatal(err)
			}
			turn := append(append([]Message(nil), chat...), Message{})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// The previous turn's question gets its answer and a new
				// question follows: one message the Compressor has not seen.
				turn[len(turn)-1] = Message{Role: RoleUser, Content: fmt.Sprintf("follow-up question number %d about the invoice", i), Format: bc.format}
				if bc.suffix == "" {
					turn[len(turn)-1].ID = fmt.Sprintf("new-%d", i)
				}
				res, err := c.Compress(ctx, "c", turn)
				if err != nil || res.Err != nil {
					b.Fatal(err, res.Err)
				}
			}
		})
	}
}

// TestCompressCountsOnlyNewMessages: a second Compress of the same chat
// with one more message tokenizes that message only.
func TestCompressCountsOnlyNewMessages(t *testing.T) {
	var texts atomic.Int64
	counter := TokenCounterFunc(func(s string) int {
		texts.Add(1)
		return len(strings.Fields(s))
	})
	c, err := New(SummarizerFunc(noSummary), NewMemoryStore(), WithTokenCounter(counter), WithTriggerTokens(1_000_000))
	if err != nil {
		t.Fatal(err)
	}
	chat := longChat(t, 200, false)
	if _, err := c.Compress(context.Background(), "c", chat); err != nil {
		t.Fatal(err)
	}
	first := texts.Load()
	chat = append(chat, Message{ID: "a-new", Role: RoleAssistant, Content: "an answer"}, Message{ID: "u-new", Role: RoleUser, Content: "a question"})
	if _, err := c.Compress(context.Background(), "c", chat); err != nil {
		t.Fatal(err)
	}
	// The window moved by one conversation: the previous last user message
	// and the new assistant message are now in the part to summarize.
	if got := texts.Load() - first; got > 2 {
		t.Errorf("second Compress counted %d texts, want at most the 2 that moved into the part to summarize", got)
	}
	// An edited message is counted again.
	chat[5].Content += " edited"
	before := texts.Load()
	if _, err := c.Compress(context.Background(), "c", chat); err != nil {
		t.Fatal(err)
	}
	if got := texts.Load() - before; got != 1 {
		t.Errorf("after an edit Compress counted %d texts, want 1", got)
	}
}

// TestMeasureWithoutIDsCounted: Measure of a chat sent without IDs, right
// after Compress derived its IDs, finds every count Compress made.
func TestMeasureWithoutIDsCounted(t *testing.T) {
	var texts atomic.Int64
	counter := TokenCounterFunc(func(s string) int {
		texts.Add(1)
		return len(strings.Fields(s))
	})
	c, err := New(SummarizerFunc(noSummary), NewMemoryStore(), WithTokenCounter(counter), WithTriggerTokens(1_000_000))
	if err != nil {
		t.Fatal(err)
	}
	chat := longChat(t, 50, false)
	for i := range chat {
		chat[i].ID, chat[i].Format = "", FormatOpenAI
	}
	if _, err := c.Compress(context.Background(), "c", chat); err != nil {
		t.Fatal(err)
	}
	before := texts.Load()
	c.Measure(chat)
	if got := texts.Load() - before; got != 0 {
		t.Errorf("Measure counted %d texts anew, want 0: Compress counted them all", got)
	}
}

func TestCountCacheBounded(t *testing.T) {
	cc := newCountCache()
	one := TokenCounterFunc(func(string) int { return 1 })
	for i := 0; i < 3*countCacheSize; i += 1000 {
		msgs := make([]Message, 1000)
		for j := range msgs {
			msgs[j] = Message{ID: fmt.Sprint(i + j), Content: fmt.Sprint("text ", i+j)} // counts are kept by text
		}
		cc.countAll(one, msgs)
	}
	if n := len(cc.cur) + len(cc.old); n > 2*countCacheSize {
		t.Fatalf("cache holds %d entries, want at most %d", n, 2*countCacheSize)
	}
}

// BenchmarkCompressSummarized measures a later turn of a 2,000-message
// chat whose stored summary covers all but its last messages (with
// Digests): each call checks every covered message present against its
// digest (see Summary.Digests) before it plans.
func BenchmarkCompressSummarized(b *testing.B) {
	chat := longChat(b, 2000, true)
	ctx := context.Background()
	tc, _ := tokens.NewTiktoken(tokens.O200kBase)
	st := NewMemoryStore()
	c, _ := New(SummarizerFunc(noSummary), st, WithTriggerTokens(100_000), WithTokenCounter(tc))
	n := len(chat) - 5
	sum := Summary{Text: "what the chat said", LastMessageID: chat[n-1].ID}
	for _, m := range chat[1:n] {
		sum.Covered, sum.Digests = append(sum.Covered, m.ID), append(sum.Digests, Digest(m))
	}
	if err := st.Save(ctx, "c", Summary{}, sum); err != nil {
		b.Fatal(err)
	}
	turn := append(append([]Message(nil), chat...), Message{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		turn[len(turn)-1] = Message{ID: fmt.Sprintf("new-%d", i), Role: RoleUser, Content: fmt.Sprintf("follow-up question number %d", i)}
		res, err := c.Compress(ctx, "c", turn)
		if err != nil || res.Err != nil || res.Stale || res.Summary.IsZero() {
			b.Fatal(err, res.Err, res.Stale)
		}
	}
}
