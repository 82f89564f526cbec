package breaker

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/recapgo/recap"
)

// fake is a summarizer that fails while fail is set and counts its calls.
type fake struct {
	fail  bool
	calls int
}

func (f *fake) Summarize(ctx context.Context, _ recap.SummarizeRequest) (string, error) {
	f.calls++
	if f.fail {
		return "", errors.New("429")
	}
	return "summary", nil
}

func TestBreaker(t *testing.T) {
	now := time.Unix(0, 0)
	f := &fake{fail: true}
	b, err := New(f, 3, time.Minute, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	steps := []struct {
		reason    string
		advance   time.Duration
		fail      bool
		wantErr   error // nil: any error; errNone: success
		wantCalls int
		wantState State
	}{
		{"first failure", 0, true, nil, 1, Closed},
		{"second", 0, true, nil, 2, Closed},
		{"third opens it", 0, true, nil, 3, Open},
		{"open: not called", 0, true, ErrOpen, 3, Open},
		{"still open before the cool-down ends", 59 * time.Second, true, ErrOpen, 3, Open},
		{"half-open: one call, which fails and reopens", time.Second, true, nil, 4, Open},
		{"open again for a full cool-down", 30 * time.Second, false, ErrOpen, 4, Open},
		{"half-open: a success closes it", 30 * time.Second, false, errNone, 5, Closed},
		{"closed: calls go through", 0, false, errNone, 6, Closed},
		{"a failure after a success counts from one", 0, true, nil, 7, Closed},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		f.fail = s.fail
		_, err := b.Summarize(ctx, recap.SummarizeRequest{})
		switch {
		case s.wantErr == errNone && err != nil,
			s.wantErr == nil && (err == nil || errors.Is(err, ErrOpen)),
			s.wantErr == ErrOpen && !errors.Is(err, ErrOpen):
			t.Errorf("%s: error %v, want %v", s.reason, err, s.wantErr)
		}
		if f.calls != s.wantCalls || b.State() != s.wantState {
			t.Errorf("%s: %d calls, state %v; want %d, %v", s.reason, f.calls, b.State(), s.wantCalls, s.wantState)
		}
	}
}

var errNone = errors.New("no error")

// TestBreakerCallerGone: a call whose caller gave up is not a failure.
func TestBreakerCallerGone(t *testing.T) {
	s := recap.SummarizerFunc(func(ctx context.Context, _ recap.SummarizeRequest) (string, error) { return "", ctx.Err() })
	b, err := New(s, 1, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 3; i++ {
		b.Summarize(ctx, recap.SummarizeRequest{})
	}
	if b.State() != Closed {
		t.Errorf("state %v after calls whose callers left, want closed", b.State())
	}
}

func TestNewErrors(t *testing.T) {
	s := recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return "", nil })
	for _, tt := range []struct {
		reason    string
		s         recap.Summarizer
		threshold int
		cooldown  time.Duration
	}{
		{"nil summarizer", nil, 1, time.Second},
		{"zero threshold", s, 0, time.Second},
		{"zero cool-down", s, 1, 0},
	} {
		if _, err := New(tt.s, tt.threshold, tt.cooldown, nil); err == nil {
			t.Errorf("%s: no error", tt.reason)
		}
	}
}

type rateLimited struct{ after time.Duration }

func (e rateLimited) Error() string             { return "429" }
func (e rateLimited) RetryAfter() time.Duration { return e.after }

// TestBreakerRetryAfter: one failure that says when to call again opens
// the breaker at once for that long, bounded by MaxRetryAfter.
func TestBreakerRetryAfter(t *testing.T) {
	tests := []struct {
		name  string
		after time.Duration
		open  time.Duration // how long the breaker stays open
	}{
		{"Seconds", 20 * time.Second, 20 * time.Second},
		{"LongerThanCooldown", 5 * time.Minute, 5 * time.Minute},
		{"Bounded", 24 * time.Hour, MaxRetryAfter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(0, 0)
			calls := 0
			fail := true
			s := recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) {
				calls++
				if fail {
					return "", fmt.Errorf("summarizer: %w", rateLimited{tt.after})
				}
				return "summary", nil
			})
			b, err := New(s, 5, time.Minute, func() time.Time { return now })
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := b.Summarize(ctx, recap.SummarizeRequest{}); RetryAfter(err) != tt.after {
				t.Fatalf("err %v: RetryAfter %v, want %v", err, RetryAfter(err), tt.after)
			}
			if b.State() != Open {
				t.Fatalf("state %v after a Retry-After, want open", b.State())
			}
			now = now.Add(tt.open - time.Millisecond)
			if _, err := b.Summarize(ctx, recap.SummarizeRequest{}); !errors.Is(err, ErrOpen) || calls != 1 {
				t.Fatalf("just before the end: %v, %d calls", err, calls)
			}
			now = now.Add(time.Millisecond)
			fail = false
			if _, err := b.Summarize(ctx, recap.SummarizeRequest{}); err != nil || calls != 2 || b.State() != Closed {
				t.Fatalf("after it: %v, %d calls, %v", err, calls, b.State())
			}
		})
	}
	if RetryAfter(errors.New("plain")) != 0 || RetryAfter(rateLimited{-time.Second}) != 0 {
		t.Error("RetryAfter of an error without one, or negative")
	}
}

// TestBreakerDeadlineCounts: a summarizer that hangs until its deadline
// (recap.WithSummarizeTimeout) is failing: it opens the breaker.
func TestBreakerDeadlineCounts(t *testing.T) {
	s := recap.SummarizerFunc(func(ctx context.Context, _ recap.SummarizeRequest) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	b, err := New(s, 2, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		// A deadline already past: the call ends as a hung one does when
		// its deadline comes, without the test waiting for a clock.
		ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
		b.Summarize(ctx, recap.SummarizeRequest{})
		cancel()
	}
	if b.State() != Open {
		t.Errorf("state %v after two calls that hung until their deadline, want open", b.State())
	}
}
