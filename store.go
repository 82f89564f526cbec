package recap

import (
	"context"
	"sync"
)

// Summary is a chat's rolling summary: the summary text and the ID of the
// last message folded into it (the boundary). The zero Summary means the
// chat has no summary yet.
type Summary struct {
	Text          string `json:"text"`
	LastMessageID string `json:"lastMessageId"`
}

// IsZero reports whether s is the zero Summary.
func (s Summary) IsZero() bool { return s == Summary{} }

// Store persists one Summary per chat.
//
// Implementations must be safe for concurrent use by multiple goroutines
// and must honour these rules, which [github.com/recapgo/recap/storetest]
// checks:
//
//   - Load returns the zero Summary and a nil error for a chat it has never
//     saved.
//   - Save is an atomic compare-and-swap: it stores next only if the stored
//     summary (the zero Summary for an unknown chat) still equals prev, and
//     otherwise returns an error matching [ErrConflict] and changes nothing.
//     No reader may ever see a mix of prev and next.
//   - A Save or Load that fails for any other reason, including ctx being
//     done, changes nothing and returns an error that does not match
//     [ErrConflict].
//   - Summaries are values: a Store keeps no reference to caller memory.
type Store interface {
	Load(ctx context.Context, chatID string) (Summary, error)
	Save(ctx context.Context, chatID string, prev, next Summary) error
}

// MemoryStore is a [Store] that keeps summaries in memory, for tests and
// single-process programs. The zero MemoryStore is empty and ready to use.
// A MemoryStore is safe for concurrent use by multiple goroutines.
type MemoryStore struct {
	mu sync.Mutex         // protects m
	m  map[string]Summary // chat ID to summary
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Load returns the summary of chatID, or the zero Summary if there is none.
// It fails only if ctx is done.
func (s *MemoryStore) Load(ctx context.Context, chatID string) (Summary, error) {
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[chatID], nil
}

// Save stores next for chatID if the stored summary equals prev, and
// returns [ErrConflict] otherwise. It fails without change if ctx is done.
func (s *MemoryStore) Save(ctx context.Context, chatID string, prev, next Summary) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[chatID] != prev {
		return ErrConflict
	}
	if s.m == nil {
		s.m = make(map[string]Summary)
	}
	if next.IsZero() {
		delete(s.m, chatID)
	} else {
		s.m[chatID] = next
	}
	return nil
}
