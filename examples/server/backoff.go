package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/recapgo/recap"
)

// Bounds of the back-off after failed Saves.
const (
	DefaultSaveBackoff    = time.Second // the first back-off
	DefaultMaxSaveBackoff = time.Minute // the longest
)

// errSaveBackoff is the summarizer's error while Saves back off.
var errSaveBackoff = errors.New("summarizer: not called: the store's saves are failing, backing off")

// saveBackoff keeps a Store that fails to save (a full disk, a bad chat
// ID on PostgreSQL) from costing an LLM call on every request: after a
// failed Save, the LLM summarizer is not called for a back-off that
// doubles with each further failure (DefaultSaveBackoff up to
// DefaultMaxSaveBackoff), and the first successful Save ends it. A
// conflict (recap.ErrConflict) and a caller's cancellation are not
// failures of the store. While it backs off, recap serves the fallback
// summarizer (offline, cheap) or the unsummarized payload.
type saveBackoff struct {
	log      *slog.Logger
	base, mx time.Duration
	now      func() time.Time

	mu       sync.Mutex // protects the fields below
	failures int        // consecutive failed Saves
	until    time.Time  // no LLM call before
}

func newSaveBackoff(log *slog.Logger, now func() time.Time) *saveBackoff {
	if now == nil {
		now = time.Now
	}
	return &saveBackoff{log: log, base: DefaultSaveBackoff, mx: DefaultMaxSaveBackoff, now: now}
}

// record notes the outcome of a Save.
func (b *saveBackoff) record(ctx context.Context, err error) {
	if err != nil && (errors.Is(err, recap.ErrConflict) || ctx.Err() != nil) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil {
		b.failures, b.until = 0, time.Time{}
		return
	}
	if b.now().Before(b.until) {
		// A save while backing off (the fallback summarizer's) does not
		// push the end of the back-off further.
		return
	}
	b.failures++
	d := b.base << min(b.failures-1, 20)
	if d <= 0 || d > b.mx {
		d = b.mx
	}
	b.until = b.now().Add(d)
	b.log.Warn("save failed: not calling the LLM for a while", "backoff", d, "failures", b.failures)
}

// open reports whether the LLM may be called.
func (b *saveBackoff) open() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.now().Before(b.until)
}

// store returns st recording its Saves.
func (b *saveBackoff) store(st recap.Store) recap.Store { return backoffStore{st, b} }

// summarizer returns s, not called while Saves back off.
func (b *saveBackoff) summarizer(s recap.Summarizer) recap.Summarizer {
	return recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		if !b.open() {
			return "", errSaveBackoff
		}
		return s.Summarize(ctx, req)
	})
}

type backoffStore struct {
	recap.Store
	b *saveBackoff
}

// AcquireLease and ReleaseLease forward to the Store (see markedStore).
func (s backoffStore) AcquireLease(ctx context.Context, chatID, holder string, ttl time.Duration) error {
	if l, ok := s.Store.(recap.Leaser); ok {
		return l.AcquireLease(ctx, chatID, holder, ttl)
	}
	return nil
}

func (s backoffStore) ReleaseLease(ctx context.Context, chatID, holder string) error {
	if l, ok := s.Store.(recap.Leaser); ok {
		return l.ReleaseLease(ctx, chatID, holder)
	}
	return nil
}

func (s backoffStore) Save(ctx context.Context, chatID string, prev, next recap.Summary) error {
	err := s.Store.Save(ctx, chatID, prev, next)
	s.b.record(ctx, err)
	return err
}
