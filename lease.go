package recap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand"
	"time"
)

// Leases: one summarization of a chat at a time across processes. The
// Store's compare-and-swap keeps two processes that summarize the same
// chat at once from both saving, but both pay for an LLM call; a Store
// that is also a Leaser lets only the holder of the chat's lease call the
// Summarizer.

// ErrLeaseHeld is returned by [Leaser.AcquireLease] when another holder
// has the chat's lease, and is matched by [Result.Err] when a Compress
// call did not summarize because another holder was summarizing the chat
// (see [Leaser]).
var ErrLeaseHeld = errors.New("recap: chat is being summarized by another lease holder")

// A Leaser grants per-chat summarization leases. A [Store] may implement
// it beside Load and Save; [Compressor.Compress] then takes the chat's
// lease before it calls the Summarizer, so that of several processes (or
// Compressors) sharing the Store only one summarizes a chat at a time, and
// the others do not pay for a summary that would lose the
// compare-and-swap. The lease is advisory: Save's compare-and-swap remains
// the guard of the summary, and a Leaser only saves LLM calls.
//
// Implementations must be safe for concurrent use by multiple goroutines
// and processes and must honour these rules, which
// [github.com/recapgo/recap/storetest] checks:
//
//   - AcquireLease grants the lease of chatID to holder for ttl if no other
//     holder has an unexpired lease of it, and returns nil; if holder has
//     it already, it extends it to ttl from now. Otherwise it returns an
//     error matching ErrLeaseHeld and changes nothing. Expiry is measured
//     on one clock for all callers (the database's or the Store's own).
//   - ReleaseLease ends holder's lease of chatID. A lease that holder no
//     longer has (it expired, or another holder took it) is left alone, and
//     that is not an error.
//   - A call that fails for any other reason, including ctx being done,
//     returns an error that does not match ErrLeaseHeld.
//   - Leases are independent of summaries: neither Load nor Save looks at
//     them.
//
// Holders are opaque strings of up to 64 bytes, chosen by the caller to be
// unique (the Compressor draws 32 random hex digits for each
// summarization).
type Leaser interface {
	AcquireLease(ctx context.Context, chatID, holder string, ttl time.Duration) error
	ReleaseLease(ctx context.Context, chatID, holder string) error
}

// Lease settings.
const (
	// DefaultLeaseTTL is the time-to-live of a lease without
	// WithSummarizeTimeout or WithLeaseTTL (see WithLeaseTTL).
	DefaultLeaseTTL = 5 * time.Minute
	// leaseSlack is what a lease lasts beyond the Summarizer calls it
	// covers: the Store's Save and the clock skew of its callers.
	leaseSlack = 30 * time.Second
	// leaseReleaseTimeout bounds the release of a lease, which is made
	// even when the caller's context is done.
	leaseReleaseTimeout = 10 * time.Second
	// leasePoll is the first and leasePollMax the longest interval at
	// which a call waiting for another holder's summary (WithLeaseWait)
	// loads the Store.
	leasePoll    = 50 * time.Millisecond
	leasePollMax = time.Second
)

// leaseTTL returns the time-to-live of the lease of one chunk's
// summarization: WithLeaseTTL's, or, with WithSummarizeTimeout, enough for
// the three Summarizer calls a chunk may make (the Summarizer, its second
// try after a summary over WithMaxSummaryTokens, the fallback) and
// leaseSlack, or DefaultLeaseTTL.
func (c *Compressor) leaseTTL() time.Duration {
	switch {
	case c.cfg.leaseTTL > 0:
		return c.cfg.leaseTTL
	case c.cfg.timeout > 0:
		return 3*c.cfg.timeout + leaseSlack
	}
	return DefaultLeaseTTL
}

// lease is a Compressor's hold on a chat's lease during one summarization.
// The zero lease (a Store that is no Leaser) holds nothing and does
// nothing.
type lease struct {
	l      Leaser
	chatID string
	holder string
	ttl    time.Duration
}

// newLease returns the lease a summarization of chatID takes, if the Store
// is a Leaser.
func (c *Compressor) newLease(chatID string) lease {
	l, ok := c.store.(Leaser)
	if !ok {
		return lease{}
	}
	// The runtime's random source, seeded at start: no I/O, and unique
	// enough across processes at 128 bits.
	holder := c.cfg.leaseHolder
	if holder == "" {
		holder = fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64())
	}
	return lease{l: l, chatID: chatID, holder: holder, ttl: c.leaseTTL()}
}

// acquire takes or extends the lease. A Store that is no Leaser grants it.
func (ls lease) acquire(ctx context.Context) error {
	if ls.l == nil {
		return nil
	}
	if err := ls.l.AcquireLease(ctx, ls.chatID, ls.holder, ls.ttl); err != nil {
		if errors.Is(err, ErrLeaseHeld) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("recap: lease of chat %q: %w", ls.chatID, err)
	}
	return nil
}

// release ends the lease, even if ctx is done, and logs a failure: the
// lease then ends when it expires.
func (c *Compressor) release(ctx context.Context, ls lease) {
	if ls.l == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaseReleaseTimeout)
	defer cancel()
	if err := ls.l.ReleaseLease(rctx, ls.chatID, ls.holder); err != nil {
		c.log(ctx, slog.LevelWarn, "lease release failed", ls.chatID, "err", err)
	}
}

// awaitLease is called when another holder has the lease. For up to
// WithLeaseWait it tries to take the lease at growing intervals, and
// returns nil once it has it: the other holder saved and released it, or
// its lease expired. It returns an error matching ErrLeaseHeld when the
// wait runs out (at once without WithLeaseWait), ctx.Err() when ctx is
// done, and the Store's error if AcquireLease fails otherwise. The wait is
// measured by the timers it sets, not by WithClock's clock. A background
// task does not wait.
func (c *Compressor) awaitLease(ctx context.Context, ls lease) error {
	held := fmt.Errorf("recap: summarize chat %q: %w", ls.chatID, ErrLeaseHeld)
	if ctx.Value(taskKey{}) != nil {
		return held // a background task: the next turn finds the holder's summary
	}
	interval := leasePoll
	for left := c.cfg.leaseWait; left > 0; {
		step := min(interval, left)
		t := time.NewTimer(step)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		left -= step
		interval = min(2*interval, leasePollMax)
		if err := ls.acquire(ctx); !errors.Is(err, ErrLeaseHeld) {
			return err // nil: taken
		}
	}
	return held
}
