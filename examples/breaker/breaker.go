// Package breaker is a circuit breaker for a [recap.Summarizer]: after a
// number of consecutive failures it stops calling the summarizer for a
// cool-down, so that an LLM that is down, rate-limited or hung costs
// neither calls nor the requests' time, and recap serves its fallback (see
// [recap.WithFallbackSummarizer]) or the unsummarized payload at once.
//
// A failure that says when to call again (a rate limit's Retry-After: an
// error with a RetryAfter() time.Duration method, see [RetryAfter]) opens
// the breaker at once for that long, up to [MaxRetryAfter].
//
// After the cool-down one call is let through (half-open): its success
// closes the breaker, its failure opens it for another cool-down. A call
// that ends because its caller cancelled its context is not the
// summarizer's failure and does not count; one whose deadline passed (a
// hung or too slow summarizer, cut by recap.WithSummarizeTimeout) does.
package breaker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/recapgo/recap"
)

// Defaults of New's arguments as the server uses them.
const (
	DefaultThreshold = 5                // consecutive failures that open the breaker
	DefaultCooldown  = 30 * time.Second // how long it stays open
)

// MaxRetryAfter bounds how long a Retry-After keeps the breaker open, so
// that a wrong or hostile header cannot stop the summarizer for good.
const MaxRetryAfter = 10 * time.Minute

// RetryAfter returns how long err asks its caller to wait before calling
// again: the RetryAfter() of the first error in err's tree that has that
// method, or 0.
func RetryAfter(err error) time.Duration {
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) {
		return max(ra.RetryAfter(), 0)
	}
	return 0
}

// ErrOpen is the error of a call the breaker refused: the summarizer was
// not called.
var ErrOpen = errors.New("breaker: open, summarizer not called")

// State is a breaker's state.
type State int

// The states of a breaker.
const (
	Closed   State = iota // calls go through
	Open                  // calls are refused until the cool-down ends
	HalfOpen              // one call is going through to test the summarizer
)

func (s State) String() string {
	return [...]string{"closed", "open", "half-open"}[s]
}

// Breaker is a recap.Summarizer that guards another. It is safe for
// concurrent use by multiple goroutines; it calls the summarizer with no
// lock held.
type Breaker struct {
	s         recap.Summarizer
	threshold int
	cooldown  time.Duration
	now       func() time.Time

	mu        sync.Mutex // protects the fields below
	failures  int        // consecutive failures while closed
	openUntil time.Time  // when open: the end of the cool-down
	state     State
}

// New returns a Breaker that opens after threshold consecutive failures
// of s and stays open for cooldown. now is its clock (nil: time.Now).
// threshold and cooldown must be positive.
func New(s recap.Summarizer, threshold int, cooldown time.Duration, now func() time.Time) (*Breaker, error) {
	switch {
	case s == nil:
		return nil, errors.New("breaker: nil Summarizer")
	case threshold < 1:
		return nil, fmt.Errorf("breaker: threshold %d is not positive", threshold)
	case cooldown <= 0:
		return nil, fmt.Errorf("breaker: cool-down %v is not positive", cooldown)
	}
	if now == nil {
		now = time.Now
	}
	return &Breaker{s: s, threshold: threshold, cooldown: cooldown, now: now}, nil
}

// Summarize calls the guarded summarizer unless the breaker is open (or
// half-open with its one call in flight), in which case it returns
// ErrOpen at once.
func (b *Breaker) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	if !b.allow() {
		return "", ErrOpen
	}
	text, err := b.s.Summarize(ctx, req)
	// A caller that cancelled is not the summarizer's failure; a deadline
	// that passed (recap.WithSummarizeTimeout, the request's time limit)
	// is: a hung LLM must open the breaker.
	b.record(err == nil, err != nil && errors.Is(ctx.Err(), context.Canceled), RetryAfter(err))
	return text, err
}

// State returns the breaker's state now.
func (b *Breaker) State() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == Open && !b.now().Before(b.openUntil) {
		return HalfOpen // the next call goes through
	}
	return b.state
}

func (b *Breaker) allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case Open:
		if b.now().Before(b.openUntil) {
			return false
		}
		b.state = HalfOpen
		return true
	case HalfOpen:
		return false // its one call is in flight
	}
	return true
}

func (b *Breaker) record(ok, callerGone bool, retryAfter time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case callerGone:
		if b.state == HalfOpen {
			b.state, b.openUntil = Open, b.now() // let the next call test it
		}
	case ok:
		b.state, b.failures = Closed, 0
	case retryAfter > 0:
		b.state, b.openUntil, b.failures = Open, b.now().Add(min(retryAfter, MaxRetryAfter)), 0
	case b.state == HalfOpen:
		b.state, b.openUntil = Open, b.now().Add(b.cooldown)
	default:
		if b.failures++; b.failures >= b.threshold {
			b.state, b.openUntil, b.failures = Open, b.now().Add(b.cooldown), 0
		}
	}
}
