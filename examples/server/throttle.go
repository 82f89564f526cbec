package main

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Bounds of the log lines about rejected requests (see throttle).
const (
	rejectLogBurst = 50 // lines at once
	rejectLogRate  = 10 // lines a second, on average
)

// throttledMessages are the log lines a client can cause at will, one per
// request it sends: a flood of them must not flood the log (issue 23, F8).
var throttledMessages = map[string]bool{"request rejected": true, "client gone": true}

// throttle is a slog.Handler that passes the lines of throttledMessages
// at most rejectLogRate a second (rejectLogBurst at once), counts those it
// drops, and adds the count ("suppressed") to the next line it passes; it
// passes every other line. Its handlers derived by WithAttrs and WithGroup
// share one budget.
type throttle struct {
	slog.Handler
	b *logBudget
}

// logBudget is a token bucket of log lines.
type logBudget struct {
	now func() time.Time

	mu         sync.Mutex // protects the fields below
	tokens     float64
	last       time.Time
	suppressed int
}

func newThrottle(h slog.Handler, now func() time.Time) throttle {
	return throttle{h, &logBudget{now: now, tokens: rejectLogBurst, last: now()}}
}

// take reports whether a line may pass, and how many were dropped since
// the last that passed.
func (b *logBudget) take() (bool, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.tokens = min(rejectLogBurst, b.tokens+now.Sub(b.last).Seconds()*rejectLogRate)
	b.last = now
	if b.tokens < 1 {
		b.suppressed++
		return false, 0
	}
	b.tokens--
	n := b.suppressed
	b.suppressed = 0
	return true, n
}

func (t throttle) Handle(ctx context.Context, r slog.Record) error {
	if !throttledMessages[r.Message] {
		return t.Handler.Handle(ctx, r)
	}
	ok, dropped := t.b.take()
	if !ok {
		return nil
	}
	if dropped > 0 {
		r.AddAttrs(slog.Int("suppressed", dropped))
	}
	return t.Handler.Handle(ctx, r)
}

func (t throttle) WithAttrs(attrs []slog.Attr) slog.Handler {
	return throttle{t.Handler.WithAttrs(attrs), t.b}
}

func (t throttle) WithGroup(name string) slog.Handler {
	return throttle{t.Handler.WithGroup(name), t.b}
}
