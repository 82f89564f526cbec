package recap

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// words counts whitespace-separated words: a simple exact counter that
// keeps the numbers in these tests easy to follow.
var words = TokenCounterFunc(func(s string) int { return len(strings.Fields(s)) })

// conversation returns n conversations, user and assistant, of 10 words
// per message, with IDs u1 a1 u2 a2 ..., then the user message u<n+1>.
func conversation(n int) []Message {
	var msgs []Message
	for i := 1; i <= n; i++ {
		msgs = append(msgs,
			Message{ID: fmt.Sprintf("u%d", i), Role: RoleUser, Content: fmt.Sprintf("question %d one two three four five six seven eight", i)},
			Message{ID: fmt.Sprintf("a%d", i), Role: RoleAssistant, Content: fmt.Sprintf("answer %d one two three four five six seven eight", i)})
	}
	return append(msgs, Message{ID: fmt.Sprintf("u%d", n+1), Role: RoleUser, Content: "the current question"})
}

// recorder is a Summarizer that records its requests and answers with a
// summary naming the messages it folded in.
type recorder struct {
	mu    sync.Mutex         // protects calls
	calls []SummarizeRequest // every request, in order
	fail  error              // returned instead of a summary if set
	reply string             // returned as the summary if set
}

func (r *recorder) Summarize(ctx context.Context, req SummarizeRequest) (string, error) {
	r.mu.Lock()
	r.calls = append(r.calls, req)
	r.mu.Unlock()
	if r.fail != nil {
		return "", r.fail
	}
	if r.reply != "" {
		return r.reply, nil
	}
	ids := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		ids[i] = m.ID
	}
	s := "covers " + strings.Join(ids, ",")
	if req.Previous != "" {
		s = req.Previous + "; " + s
	}
	return s, nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

func ids(msgs []Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

// digests returns the Digests of a summary that covers msgs.
func digests(msgs []Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = Digest(m)
	}
	return out
}

func mustNew(t *testing.T, s Summarizer, st Store, opts ...Option) *Compressor {
	t.Helper()
	c, err := New(s, st, append([]Option{WithTokenCounter(words)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompressRolls(t *testing.T) {
	ctx := context.Background()
	sum := &recorder{}
	st := NewMemoryStore()
	c := mustNew(t, sum, st, WithTriggerTokens(30), WithWindowConversations(2))

	// Turn 1: u1 a1 u2: 20 words to summarize, under the trigger.
	chat := conversation(1)
	res, err := c.Compress(ctx, "c", chat)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summarized || res.Err != nil || sum.count() != 0 {
		t.Fatalf("turn 1: Summarized=%v Err=%v calls=%d, want no summary", res.Summarized, res.Err, sum.count())
	}

	// Turn 3: u1 a1 u2 a2 u3 a3 u4: u1..a2 (40 words) exceed 30.
	chat = conversation(3)
	res, err = c.Compress(ctx, "c", chat)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{
		Payload: []Message{
			{ID: SummaryIDPrefix + "a2", Role: RoleSystem, Content: "covers u1,a1,u2,a2"},
			chat[4], chat[5], chat[6],
		},
		PayloadTokens: 25,
		Summary: Summary{Text: "covers u1,a1,u2,a2", LastMessageID: "a2", Covered: []string{"u1", "a1", "u2", "a2"},
			Digests: []string{Digest(chat[0]), Digest(chat[1]), Digest(chat[2]), Digest(chat[3])}},
		Summarized: true,
		Tokens:     40,
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Fatalf("turn 3: Compress mismatch (-want +got):\n%s", diff)
	}
	if got, _ := st.Load(ctx, "c"); !got.Equal(want.Summary) {
		t.Fatalf("turn 3: stored %+v, want %+v", got, want.Summary)
	}

	// Turn 4: the summary (2 words) and u3 a3 (20) are 22: under 30.
	chat = conversation(4)
	res, err = c.Compress(ctx, "c", chat)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{SummaryIDPrefix + "a2", "u3", "a3", "u4", "a4", "u5"}, ids(res.Payload)); diff != "" {
		t.Fatalf("turn 4: payload mismatch (-want +got):\n%s", diff)
	}
	if res.Summarized || res.Tokens != 22 {
		t.Fatalf("turn 4: Summarized=%v Tokens=%d, want false, 22", res.Summarized, res.Tokens)
	}

	// Turn 5: summary (2) + u3 a3 u4 a4 (40) exceed 30: merged recursively.
	chat = conversation(5)
	res, err = c.Compress(ctx, "c", chat)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Summarized {
		t.Fatalf("turn 5: not summarized: %+v", res)
	}
	last := sum.calls[len(sum.calls)-1]
	if last.Previous != "covers u1,a1,u2,a2" || !cmp.Equal(ids(last.Messages), []string{"u3", "a3", "u4", "a4"}) {
		t.Fatalf("turn 5: request Previous=%q Messages=%v", last.Previous, ids(last.Messages))
	}
	if want := (Summary{Text: "covers u1,a1,u2,a2; covers u3,a3,u4,a4", LastMessageID: "a4", Covered: []string{"u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4"},
		Digests: digests(chat[:8])}); !res.Summary.Equal(want) {
		t.Fatalf("turn 5: summary %+v, want %+v", res.Summary, want)
	}
	if diff := cmp.Diff([]string{SummaryIDPrefix + "a4", "u5", "a5", "u6"}, ids(res.Payload)); diff != "" {
		t.Fatalf("turn 5: payload mismatch (-want +got):\n%s", diff)
	}
}

func TestCompressDoesNotModifyInput(t *testing.T) {
	chat := conversation(6)
	chat[3].Parts = []Part{{Type: PartText, Text: "answer with parts"}, {Type: "tool-x", Input: []byte(`{"a":1}`)}}
	before := cloneMessages(chat)
	mutator := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		for i := range req.Messages {
			req.Messages[i].Content = "mutated"
			for j := range req.Messages[i].Parts {
				req.Messages[i].Parts[j].Text = "mutated"
				if len(req.Messages[i].Parts[j].Input) > 0 {
					req.Messages[i].Parts[j].Input[0] = 'X'
				}
			}
		}
		return "summary", nil
	})
	c := mustNew(t, mutator, NewMemoryStore(), WithTriggerTokens(10))
	res, err := c.Compress(context.Background(), "c", chat)
	if err != nil || !res.Summarized {
		t.Fatalf("Compress: %v, %+v", err, res)
	}
	if diff := cmp.Diff(before, chat); diff != "" {
		t.Fatalf("input modified (-before +after):\n%s", diff)
	}
	res.Payload[len(res.Payload)-1].Content = "changed by caller"
	if chat[len(chat)-1].Content == "changed by caller" {
		t.Fatalf("payload shares its backing array with the input")
	}
}

// failingStore wraps a Store with injected failures.
type failingStore struct {
	Store
	loadErr error
	saveErr error
	// beforeSave runs before each Save, such as another writer's Save.
	beforeSave func()
	saves      int
}

func (s *failingStore) Load(ctx context.Context, chat string) (Summary, error) {
	if s.loadErr != nil {
		return Summary{}, s.loadErr
	}
	return s.Store.Load(ctx, chat)
}

func (s *failingStore) Save(ctx context.Context, chat string, prev, next Summary) error {
	s.saves++
	if s.beforeSave != nil {
		f := s.beforeSave
		s.beforeSave = nil
		f()
	}
	if s.saveErr != nil {
		return s.saveErr
	}
	return s.Store.Save(ctx, chat, prev, next)
}

// TestCompressAbsorbs checks each failure that Compress absorbs: the store
// keeps its summary, Result.Err says what failed and the payload is the
// unsummarized one, usable.
func TestCompressAbsorbs(t *testing.T) {
	boom := errors.New("provider said: 500 internal error")
	stored := Summary{Text: "old summary", LastMessageID: "a1"}
	tests := []struct {
		name     string
		reason   string
		sum      Summarizer
		store    func(*failingStore)
		opts     []Option
		wantErr  error
		wantText string // in Result.Err, when set
		calls    int    // Summarizer calls expected, when set
	}{{
		name:    "SummarizerError",
		reason:  "a Summarizer error is reported, not returned",
		sum:     &recorder{fail: boom},
		wantErr: boom,
	}, {
		name:    "EmptySummary",
		reason:  "a summary of white space would drop context",
		sum:     &recorder{reply: " \n\t "},
		wantErr: ErrEmptySummary,
	}, {
		name:   "Timeout",
		reason: "WithSummarizeTimeout bounds the call; the caller's ctx is fine",
		sum: SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}),
		opts:    []Option{WithSummarizeTimeout(time.Millisecond)},
		wantErr: context.DeadlineExceeded,
	}, {
		name:    "SaveError",
		reason:  "a failed Save leaves the old summary in force",
		sum:     &recorder{},
		store:   func(s *failingStore) { s.saveErr = boom },
		wantErr: boom,
	}, {
		name:   "Panic",
		reason: "a panic is recovered and absorbed: one bad summary never breaks the chat",
		sum: SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
			panic("nil map in the adapter")
		}),
		wantErr: ErrSummarizerPanic,
	}, {
		name:   "LongerThanInput",
		reason: "a summary longer than what it summarizes is no compression",
		sum: SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
			return strings.Repeat("word ", 500), nil
		}),
		wantErr: ErrSummaryTooLong,
	}, {
		name:   "OverMaxSummaryTwice",
		reason: "over WithMaxSummaryTokens: asked again once, then rejected",
		sum: SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
			if req.MaxTokens != 5 {
				return "", fmt.Errorf("MaxTokens = %d, want 5", req.MaxTokens)
			}
			return "one two three four five six seven", nil
		}),
		opts:    []Option{WithMaxSummaryTokens(5)},
		wantErr: ErrSummaryTooLong,
		calls:   2,
	}, {
		name:   "ProviderErrorText",
		reason: "the provider's error text reaches the caller verbatim",
		sum: SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
			return "", errors.New(`openai: 429 Too Many Requests: {"error":{"message":"Rate limit reached for gpt-4o","type":"requests"}}`)
		}),
		wantText: "Rate limit reached for gpt-4o",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			mem := NewMemoryStore()
			if err := mem.Save(ctx, "c", Summary{}, stored); err != nil {
				t.Fatal(err)
			}
			st := &failingStore{Store: mem}
			if tt.store != nil {
				tt.store(st)
			}
			chat := conversation(5)
			var calls atomic.Int64
			counted := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
				calls.Add(1)
				return tt.sum.Summarize(ctx, req)
			})
			c := mustNew(t, counted, st, append([]Option{WithTriggerTokens(10)}, tt.opts...)...)
			res, err := c.Compress(ctx, "c", chat)
			if err != nil {
				t.Fatalf("%s: Compress returned %v, want the failure absorbed", tt.reason, err)
			}
			if res.Err == nil || tt.wantErr != nil && !errors.Is(res.Err, tt.wantErr) || !strings.Contains(res.Err.Error(), tt.wantText) {
				t.Errorf("%s: Result.Err = %v, want %v %q", tt.reason, res.Err, tt.wantErr, tt.wantText)
			}
			if tt.calls > 0 && calls.Load() != int64(tt.calls) {
				t.Errorf("%s: %d Summarizer calls, want %d", tt.reason, calls.Load(), tt.calls)
			}
			if res.Summarized || !res.Summary.Equal(stored) {
				t.Errorf("%s: Summarized=%v Summary=%+v, want the old summary in force", tt.reason, res.Summarized, res.Summary)
			}
			wantPayload := append([]string{SummaryIDPrefix + "a1"}, ids(chat[2:])...)
			if diff := cmp.Diff(wantPayload, ids(res.Payload)); diff != "" {
				t.Errorf("%s: payload mismatch (-want +got):\n%s", tt.reason, diff)
			}
			if got, _ := mem.Load(ctx, "c"); !got.Equal(stored) {
				t.Errorf("%s: store holds %+v, want %+v", tt.reason, got, stored)
			}
		})
	}
}

func TestCompressReturns(t *testing.T) {
	boom := errors.New("disk on fire")
	canceled := func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx
	}
	tests := []struct {
		name    string
		reason  string
		ctx     func() context.Context
		sum     func(cancel context.CancelFunc) Summarizer
		store   *failingStore
		msgs    []Message
		wantErr error
	}{{
		name:    "LoadError",
		reason:  "a Load error is returned, wrapped",
		store:   &failingStore{Store: NewMemoryStore(), loadErr: boom},
		wantErr: boom,
	}, {
		name:    "CanceledBefore",
		reason:  "a done ctx returns ctx.Err() before any work",
		ctx:     canceled,
		wantErr: context.Canceled,
	}, {
		name:   "CanceledDuringSummarize",
		reason: "the caller canceling while the summary is made returns ctx.Err() and stores nothing",
		sum: func(cancel context.CancelFunc) Summarizer {
			return SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
				cancel()
				return "a summary that arrives too late", nil
			})
		},
		wantErr: context.Canceled,
	}, {
		name:    "InvalidMessages",
		reason:  "invalid input is returned before the Store is asked",
		store:   &failingStore{Store: NewMemoryStore(), loadErr: boom},
		msgs:    []Message{{ID: "x", Role: "robot", Content: "hi"}},
		wantErr: ErrInvalidMessage,
	}, {
		name:    "NoMessages",
		reason:  "an empty chat is an error",
		msgs:    []Message{},
		wantErr: ErrNoMessages,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.ctx != nil {
				ctx = tt.ctx()
			}
			var sum Summarizer = &recorder{}
			if tt.sum != nil {
				sum = tt.sum(cancel)
			}
			st := tt.store
			if st == nil {
				st = &failingStore{Store: NewMemoryStore()}
			}
			msgs := tt.msgs
			if msgs == nil {
				msgs = conversation(5)
			}
			c := mustNew(t, sum, st, WithTriggerTokens(10))
			res, err := c.Compress(ctx, "c", msgs)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("%s: Compress error = %v, want %v", tt.reason, err, tt.wantErr)
			}
			if diff := cmp.Diff(Result{}, res, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("%s: want a zero Result (-want +got):\n%s", tt.reason, diff)
			}
			if st.saves != 0 {
				t.Errorf("%s: Save called %d times, want 0", tt.reason, st.saves)
			}
		})
	}
}

// TestCompressConflict: another writer saves between our Load and Save.
// Compress reloads, plans against the winner's summary and returns its
// payload without summarizing twice what the winner covered.
func TestCompressConflict(t *testing.T) {
	ctx := context.Background()
	mem := NewMemoryStore()
	chat := conversation(5)
	winner := Summary{Text: "the winner's summary", LastMessageID: "a3"}
	st := &failingStore{Store: mem, beforeSave: func() {
		if err := mem.Save(ctx, "c", Summary{}, winner); err != nil {
			t.Error(err)
		}
	}}
	sum := &recorder{}
	c := mustNew(t, sum, st, WithTriggerTokens(30))
	res, err := c.Compress(ctx, "c", chat)
	if err != nil {
		t.Fatal(err)
	}
	// After the winner: summary (3 words) + u4 a4 (20) = 23, under 30.
	if res.Err != nil || res.Summarized || !res.Summary.Equal(winner) {
		t.Fatalf("Compress after conflict: %+v, want the winner's summary in force", res)
	}
	if diff := cmp.Diff([]string{SummaryIDPrefix + "a3", "u4", "a4", "u5", "a5", "u6"}, ids(res.Payload)); diff != "" {
		t.Fatalf("payload mismatch (-want +got):\n%s", diff)
	}
	if got, _ := mem.Load(ctx, "c"); !got.Equal(winner) {
		t.Fatalf("store holds %+v, want the winner's %+v", got, winner)
	}
}

// TestCompressConflictEveryTime: a Store that reports a conflict on every
// Save makes Compress give up after maxAttempts, absorbing ErrConflict.
func TestCompressConflictEveryTime(t *testing.T) {
	ctx := context.Background()
	st := &failingStore{Store: NewMemoryStore(), saveErr: fmt.Errorf("row changed: %w", ErrConflict)}
	sum := &recorder{}
	c := mustNew(t, sum, st, WithTriggerTokens(10))
	res, err := c.Compress(ctx, "c", conversation(5))
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Err, ErrConflict) || res.Summarized {
		t.Fatalf("Result = %+v, want ErrConflict absorbed", res)
	}
	if st.saves != maxAttempts || sum.count() != maxAttempts {
		t.Fatalf("saves=%d summarize calls=%d, want %d of each", st.saves, sum.count(), maxAttempts)
	}
}

func TestCompressStale(t *testing.T) {
	ctx := context.Background()
	mem := NewMemoryStore()
	stale := Summary{Text: "about deleted messages", LastMessageID: "gone"}
	if err := mem.Save(ctx, "c", Summary{}, stale); err != nil {
		t.Fatal(err)
	}
	sum := &recorder{}
	c := mustNew(t, sum, mem, WithTriggerTokens(30))
	res, err := c.Compress(ctx, "c", conversation(3))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stale || !res.Summarized || res.Summary.LastMessageID != "a2" {
		t.Fatalf("Result = %+v, want the stale summary replaced", res)
	}
	if sum.calls[0].Previous != "" {
		t.Fatalf("stale summary passed as Previous: %q", sum.calls[0].Previous)
	}
}

func TestCompressNeedsCollaborators(t *testing.T) {
	c, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compress(context.Background(), "c", conversation(1)); !errors.Is(err, ErrInvalidOption) {
		t.Fatalf("Compress without Summarizer and Store = %v, want ErrInvalidOption", err)
	}
}

// TestCompressConcurrent runs many chats at once on one Compressor, for
// the race detector and for per-chat consistency.
func TestCompressConcurrent(t *testing.T) {
	ctx := context.Background()
	sum := &recorder{}
	st := NewMemoryStore()
	c := mustNew(t, sum, st, WithTriggerTokens(30))
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			chat := fmt.Sprintf("chat-%d", i)
			for n := 1; n <= 8; n++ {
				res, err := c.Compress(ctx, chat, conversation(n))
				if err != nil || res.Err != nil {
					t.Errorf("%s turn %d: %v %v", chat, n, err, res.Err)
					return
				}
				if got := res.Payload[len(res.Payload)-1].ID; got != fmt.Sprintf("u%d", n+1) {
					t.Errorf("%s turn %d: payload ends with %s", chat, n, got)
				}
			}
		}(i)
	}
	wg.Wait()
}
