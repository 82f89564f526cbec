package recap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// countingStore wraps a Store, counting calls and telling when the number
// of Loads reaches a mark.
type countingStore struct {
	Store
	loads, saves atomic.Int64
	mark         int64
	reached      chan struct{}
	once         sync.Once
}

func (s *countingStore) Load(ctx context.Context, chat string) (Summary, error) {
	if s.loads.Add(1) == s.mark {
		s.once.Do(func() { close(s.reached) })
	}
	return s.Store.Load(ctx, chat)
}

func (s *countingStore) Save(ctx context.Context, chat string, prev, next Summary) error {
	err := s.Store.Save(ctx, chat, prev, next)
	if err == nil {
		s.saves.Add(1)
	}
	return err
}

// savesLog records every successful Save of a Store.
type savesLog struct {
	Store
	mu   sync.Mutex // protects log
	log  []Summary
	fail func() error // injected before a Save, if set
}

func (s *savesLog) Save(ctx context.Context, chat string, prev, next Summary) error {
	if s.fail != nil {
		if err := s.fail(); err != nil {
			return err
		}
	}
	err := s.Store.Save(ctx, chat, prev, next)
	if err == nil {
		s.mu.Lock()
		s.log = append(s.log, next)
		s.mu.Unlock()
	}
	return err
}

// TestTwoCompressorsRace: two Compressors (two processes) on one Store
// race, turn after turn, on the same growing chat. The boundary never
// moves backwards and no summary is lost: each one extends the one before.
// (A request carrying an older snapshot of the chat, without the stored
// boundary, takes the summary for stale: see TestCompressStale.)
func TestTwoCompressorsRace(t *testing.T) {
	st := &savesLog{Store: NewMemoryStore()}
	a := mustNew(t, &recorder{}, st, WithTriggerTokens(30))
	b := mustNew(t, &recorder{}, st, WithTriggerTokens(30))
	for n := 1; n <= 25; n++ {
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(c *Compressor) {
				defer wg.Done()
				res, err := c.Compress(context.Background(), "c", conversation(n))
				if err != nil || res.Err != nil {
					t.Errorf("turn %d: %v %v", n, err, res.Err)
				}
			}(map[bool]*Compressor{true: a, false: b}[g%2 == 0])
		}
		wg.Wait()
	}
	index := func(id string) int {
		var n int
		fmt.Sscanf(id[1:], "%d", &n)
		return 2*n - map[byte]int{'u': 1, 'a': 0}[id[0]]
	}
	for i := 1; i < len(st.log); i++ {
		prev, next := st.log[i-1], st.log[i]
		if index(next.LastMessageID) <= index(prev.LastMessageID) {
			t.Errorf("save %d moved the boundary from %s back to %s", i, prev.LastMessageID, next.LastMessageID)
		}
		if !strings.HasPrefix(next.Text, prev.Text+"; ") {
			t.Errorf("save %d lost the summary before it:\nprev %q\nnext %q", i, prev.Text, next.Text)
		}
	}
	if len(st.log) < 3 {
		t.Errorf("only %d saves", len(st.log))
	}
}

func TestCompressPanicError(t *testing.T) {
	c := mustNew(t, SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		panic(fmt.Errorf("adapter bug"))
	}), NewMemoryStore(), WithTriggerTokens(10))
	res, err := c.Compress(context.Background(), "c", conversation(5))
	var pe *PanicError
	if err != nil || !errors.As(res.Err, &pe) || len(pe.Stack) == 0 || fmt.Sprint(pe.Value) != "adapter bug" {
		t.Fatalf("Compress = %v, Result.Err = %#v; want a *PanicError with value and stack", err, res.Err)
	}
}

func TestCompressSecondAttemptWithinMax(t *testing.T) {
	var calls atomic.Int64
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		if calls.Add(1) == 1 {
			return "far too long a summary for the budget it was given", nil
		}
		return "short summary", nil
	})
	c := mustNew(t, sum, NewMemoryStore(), WithTriggerTokens(10), WithMaxSummaryTokens(3))
	res, err := c.Compress(context.Background(), "c", conversation(5))
	if err != nil || res.Err != nil || !res.Summarized || res.Summary.Text != "short summary" {
		t.Fatalf("Compress = %v, %+v; want the second answer saved", err, res)
	}
}

// cancelingStore cancels the caller's context during Save, then fails as
// a canceled database call does.
type cancelingStore struct {
	Store
	cancel context.CancelFunc
}

func (s *cancelingStore) Save(ctx context.Context, chat string, prev, next Summary) error {
	s.cancel()
	return ctx.Err()
}

func TestCompressCanceledDuringSave(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mem := NewMemoryStore()
	c := mustNew(t, &recorder{}, &cancelingStore{Store: mem, cancel: cancel}, WithTriggerTokens(10))
	res, err := c.Compress(ctx, "c", conversation(5))
	if !errors.Is(err, context.Canceled) || res.Payload != nil {
		t.Fatalf("Compress = %+v, %v; want ctx.Err() and a zero Result", res, err)
	}
	if got, _ := mem.Load(context.Background(), "c"); !got.IsZero() {
		t.Fatalf("store holds %+v after a canceled Save", got)
	}
}

func TestCompressFallback(t *testing.T) {
	boom := errors.New("primary down")
	primary := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) { return "", boom })
	var fallbackReq SummarizeRequest
	fallback := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		fallbackReq = req
		return "extractive summary", nil
	})
	mem := NewMemoryStore()
	c := mustNew(t, primary, mem, WithTriggerTokens(10), WithFallbackSummarizer(fallback))
	res, err := c.Compress(context.Background(), "c", conversation(5))
	if err != nil || !res.Summarized || !res.Fallback || !errors.Is(res.Err, boom) {
		t.Fatalf("Compress = %v, %+v; want the fallback's summary saved and the primary's failure reported", err, res)
	}
	if got, _ := mem.Load(context.Background(), "c"); got.Text != "extractive summary" || got.LastMessageID != "a4" {
		t.Fatalf("store holds %+v", got)
	}
	if len(fallbackReq.Messages) != 8 {
		t.Fatalf("fallback got %d messages, want 8", len(fallbackReq.Messages))
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })

func TestCompressEchoedSummary(t *testing.T) {
	ctx := context.Background()
	sum := &recorder{}
	c := mustNew(t, sum, NewMemoryStore(), WithTriggerTokens(30))
	res, err := c.Compress(ctx, "c", conversation(3))
	if err != nil || !res.Summarized {
		t.Fatal(err, res)
	}
	// The client sends back the payload it got, plus the answer and a new
	// question: recap's summary message is recognized, not history.
	echo := append(append([]Message(nil), res.Payload...),
		Message{ID: "a4", Role: RoleAssistant, Content: "answer"}, Message{ID: "u5", Role: RoleUser, Content: "next"})
	full := append(conversation(3), echo[len(echo)-2:]...)
	withEcho := append(append([]Message(nil), full[:4]...), res.Payload[0])
	withEcho = append(withEcho, full[4:]...)
	p, err := c.Plan(withEcho, res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Echoed) != 1 || p.Echoed[0].ID != res.Payload[0].ID {
		t.Fatalf("Echoed = %v", ids(p.Echoed))
	}
	if n := strings.Count(strings.Join(ids(p.Payload()), " "), SummaryIDPrefix); n != 1 {
		t.Fatalf("payload %v has %d summary messages, want 1", ids(p.Payload()), n)
	}
	for _, m := range append(p.Summarize, p.Window...) {
		if strings.HasPrefix(m.ID, SummaryIDPrefix) {
			t.Fatalf("echoed summary taken for history: %v", ids(p.Summarize))
		}
	}
}

func TestHooksAndLogger(t *testing.T) {
	var events []string
	clock := time.Unix(0, 0)
	var logs bytes.Buffer
	type spanKey struct{}
	spans := 0
	hooks := Hooks{
		SummarizeStart: func(ctx context.Context, e SummarizeEvent) context.Context {
			spans++
			events = append(events, fmt.Sprintf("start %s %d msgs %d in span %d", e.ChatID, e.Messages, e.InputTokens, spans))
			return context.WithValue(ctx, spanKey{}, spans)
		},
		SummarizeEnd: func(ctx context.Context, e SummarizeEvent) {
			events = append(events, fmt.Sprintf("end span %v %d out %v fallback=%v err=%v", ctx.Value(spanKey{}), e.OutputTokens, e.Duration, e.Fallback, e.Err))
		},
	}
	tick := func() time.Time { clock = clock.Add(250 * time.Millisecond); return clock }
	boom := errors.New("boom")
	failing := SummarizerFunc(func(ctx context.Context, _ SummarizeRequest) (string, error) {
		events = append(events, fmt.Sprintf("summarizer in span %v", ctx.Value(spanKey{})))
		return "", boom
	})
	c := mustNew(t, failing, NewMemoryStore(), WithTriggerTokens(10), WithHooks(hooks), WithClock(tick),
		WithFallbackSummarizer(SummarizerFunc(func(context.Context, SummarizeRequest) (string, error) { return "fallback summary", nil })),
		WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))))
	if _, err := c.Compress(context.Background(), "chat-7", conversation(3)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"start chat-7 4 msgs 40 in span 1",
		"summarizer in span 1",
		"end span 1 0 out 250ms fallback=false err=recap: summarize chat \"chat-7\": boom",
		"start chat-7 4 msgs 40 in span 2",
		"end span 2 2 out 250ms fallback=true err=<nil>",
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("hook events (-want +got):\n%s", diff)
	}
	for _, line := range []string{`level=INFO msg="recap: summarized" chat=chat-7 messages=4 boundary=a2 fallback=true`, `level=WARN msg="recap: summarizer failure absorbed" chat=chat-7`} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, logs.String())
		}
	}
}

func checkDelimited(t *testing.T, p Prompt, req SummarizeRequest) {
	t.Helper()
	open, close := "<"+p.Tag+">", "</"+p.Tag+">"
	if strings.Count(p.User, open) != 1 || strings.Count(p.User, close) != 1 {
		t.Fatalf("delimiters appear %d and %d times in\n%s", strings.Count(p.User, open), strings.Count(p.User, close), p.User)
	}
	inside := p.User[strings.Index(p.User, open)+len(open) : strings.Index(p.User, close)]
	nonce := strings.TrimPrefix(p.Tag, "transcript-")
	for _, m := range req.Messages {
		if !strings.Contains(inside, m.Text()) {
			t.Fatalf("message %q is not inside the delimiters", m.Text())
		}
		if strings.Contains(m.Text(), nonce) {
			t.Fatalf("message text contains the nonce")
		}
	}
	// Each message's own markers appear once per message, never forged.
	if n := strings.Count(inside, "<message-"+nonce+" "); n != len(req.Messages) {
		t.Fatalf("%d message markers for %d messages", n, len(req.Messages))
	}
}
