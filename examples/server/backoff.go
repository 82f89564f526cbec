package main

import (
	"context"
	"errors"
	"fmt"
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
var errSaveBackoff = errors.New("summarizer: not called: saves of this chat are failing, backing off")

// saveBackoff keeps a Store that fails to save (a full disk, a database
// that is down, a chat that cannot be stored) from costing an LLM call on
// every request: after a failed Save of a chat, the LLM summarizer is not
// called for that chat for a back-off that doubles with each further
// failure (DefaultSaveBackoff up to DefaultMaxSaveBackoff), and its first
// successful Save ends it. When the saves of globalBackoffChats different
// chats fail in a row, with no success between them, the store itself is
// failing: the LLM is not called for any chat, with the same doubling,
// until a Save succeeds. So one tenant's chat that can never be saved
// backs off alone, and other tenants' successful saves do not make it
// cost an LLM call again (issue 23, F5). A conflict (recap.ErrConflict)
// and a caller's cancellation are not failures of the store. While it
// backs off, recap serves the fallback summarizer (offline, cheap) or the
// unsummarized payload. At most maxBackoffChats chats are remembered.
type saveBackoff struct {
	log       *slog.Logger
	base, mx  time.Duration
	now       func() time.Time
	maxStored int // bytes a chat's summary may store (see backoffStore.Save); 0: no bound

	mu     sync.Mutex // protects the fields below
	global backoffState
	chats  map[string]*backoffState
	failed map[string]bool // the chats whose saves failed since the last success
}

// backoffState is a back-off: consecutive failures, and no LLM call
// before until.
type backoffState struct {
	failures int
	until    time.Time
}

// Bounds of the per-chat back-off.
const (
	globalBackoffChats = 3
	maxBackoffChats    = 4096
)

func newSaveBackoff(log *slog.Logger, now func() time.Time) *saveBackoff {
	if now == nil {
		now = time.Now
	}
	return &saveBackoff{log: log, base: DefaultSaveBackoff, mx: DefaultMaxSaveBackoff, now: now,
		chats: map[string]*backoffState{}, failed: map[string]bool{}}
}

// fail extends bs after a failure, unless it is backing off already (a
// save while backing off, the fallback summarizer's, does not push its
// end further), and reports the back-off, or 0.
func (b *saveBackoff) fail(bs *backoffState) time.Duration {
	if b.now().Before(bs.until) {
		return 0
	}
	bs.failures++
	d := b.base << min(bs.failures-1, 20)
	if d <= 0 || d > b.mx {
		d = b.mx
	}
	bs.until = b.now().Add(d)
	return d
}

// record notes the outcome of a Save of chatID.
func (b *saveBackoff) record(ctx context.Context, chatID string, err error) {
	if err != nil && (errors.Is(err, recap.ErrConflict) || ctx.Err() != nil) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil {
		delete(b.chats, chatID)
		clear(b.failed)
		b.global = backoffState{}
		return
	}
	bs := b.chats[chatID]
	if bs == nil {
		if len(b.chats) >= maxBackoffChats {
			for k := range b.chats { // forget one: at worst an LLM call more
				delete(b.chats, k)
				break
			}
		}
		bs = &backoffState{}
		b.chats[chatID] = bs
	}
	if d := b.fail(bs); d > 0 {
		b.log.Warn("save failed: not calling the LLM for this chat for a while", "backoff", d, "failures", bs.failures)
	}
	if len(b.failed) < globalBackoffChats {
		b.failed[chatID] = true
	}
	if len(b.failed) >= globalBackoffChats {
		if d := b.fail(&b.global); d > 0 {
			b.log.Warn("saves of several chats failed: not calling the LLM for any chat for a while", "backoff", d, "failures", b.global.failures)
		}
	}
}

// open reports whether the LLM may be called for chatID.
func (b *saveBackoff) open(chatID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if now.Before(b.global.until) {
		return false
	}
	bs := b.chats[chatID]
	return bs == nil || !now.Before(bs.until)
}

// store returns st recording its Saves.
func (b *saveBackoff) store(st recap.Store) recap.Store { return backoffStore{st, b} }

// summarizer returns s, not called while Saves back off.
func (b *saveBackoff) summarizer(s recap.Summarizer) recap.Summarizer {
	return recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		if !b.open(req.ChatID) {
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
	var err error
	if n := storedBytes(next); s.b.maxStored > 0 && n > s.b.maxStored {
		err = fmt.Errorf("%w: %d bytes, more than -max-stored-bytes %d", errStoredTooLarge, n, s.b.maxStored)
	} else {
		err = s.Store.Save(ctx, chatID, prev, next)
	}
	s.b.record(ctx, chatID, err)
	return err
}

// DefaultMaxStoredBytes bounds what a chat's summary stores
// (-max-stored-bytes): its text, boundary, covered IDs and digests.
const DefaultMaxStoredBytes = 256 << 10

// errStoredTooLarge refuses the Save of a summary larger than
// -max-stored-bytes: the chat then backs off (see saveBackoff), and its
// requests are answered with the stored summary and a warning.
var errStoredTooLarge = errors.New("summary too large to store")

// storedBytes is about what sum takes in a store: its strings, and a few
// bytes of JSON for each covered ID and digest.
func storedBytes(sum recap.Summary) int {
	n := len(sum.Text) + len(sum.LastMessageID)
	for _, id := range sum.Covered {
		n += len(id) + 3
	}
	for _, d := range sum.Digests {
		n += len(d) + 3
	}
	for _, d := range sum.Forgotten {
		n += len(d) + 3
	}
	return n
}
