package recap

import (
	"fmt"
	"sync"
)

// A chat whose summarization failed (the Summarizer erred, timed out,
// panicked, or returned an empty, too long or not shorter summary) is not
// sent to the Summarizer again on every request: after n failures in a row
// it sits out the next min(2^(n-1), maxBackoffSkips) requests that would
// summarize it (the fallback Summarizer, if any, still runs on them), then
// is tried again; a success ends the back-off. A Summarizer that always
// fails is so called 9 times over 100 requests that would summarize; one
// that recovers is called again within maxBackoffSkips+1 of them. The
// state is per Compressor, in memory, for at most maxBackoffChats chats.

const (
	maxBackoffSkips = 16
	maxBackoffChats = 4096
)

// backoffs holds the failures of the chats whose Summarizer failed last.
type backoffs struct {
	mu sync.Mutex // protects m
	m  map[string]*backoff
}

type backoff struct {
	failures int   // in a row
	skip     int   // requests still to sit out
	last     error // the last failure
}

// skip reports whether the Summarizer sits out this request of chatID,
// counting it, and if so the error that says why.
func (b *backoffs) skip(chatID string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.m[chatID]
	if e == nil || e.skip == 0 {
		return nil
	}
	e.skip--
	return fmt.Errorf("%w: %d failures in a row (the last: %v), %d more requests to sit out", ErrBackoff, e.failures, e.last, e.skip)
}

// record records the outcome of a Summarizer call for chatID: err nil for a
// success.
func (b *backoffs) record(chatID string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil {
		delete(b.m, chatID)
		return
	}
	e := b.m[chatID]
	if e == nil {
		if b.m == nil {
			b.m = map[string]*backoff{}
		}
		if len(b.m) >= maxBackoffChats {
			for k := range b.m { // forget one chat: it is tried again at once
				delete(b.m, k)
				break
			}
		}
		e = &backoff{}
		b.m[chatID] = e
	}
	e.failures++
	e.skip = min(1<<min(e.failures-1, 30), maxBackoffSkips)
	e.last = err
}
