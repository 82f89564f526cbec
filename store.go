package recap

import (
	"context"
	"sync"
	"time"
)

// Summary is a chat's rolling summary: the summary text, the ID of the
// last message folded into it (the boundary) and the IDs of every message
// it covers. The zero Summary means the chat has no summary yet.
//
// Covered is what lets recap tell an older snapshot of a chat (a delayed
// retry that carries a prefix of what the summary already covers) from an
// edit (new IDs from the edited message on): a history whose messages up to
// its current turn all appear, in order, among Covered is older than the
// summary, and the summary is kept; any other history that lacks the
// boundary is an edit, and the summary is stale. Covered costs the sum of
// the covered IDs' lengths (about 20 KB for 1,000 messages with 20-byte
// IDs), stored and compared with every Save. A Summary saved by a recap
// version without Covered (nil) still works, but cannot prove an older
// snapshot until its next save.
//
// Covered lists the covered messages oldest first, ending with
// LastMessageID; the pinned system messages are never covered. When
// WithMaxTurnTokens compacted a long turn, LastMessageID is a step of that
// turn and Covered lists the turn's request before it: a boundary after
// the current turn's request, with the request covered, continues the
// turn. An echoed
// summary message that stood for covered messages is listed too (its ID,
// where the client assigned one), so that an older payload echoed back is
// recognized as well.
type Summary struct {
	Text          string   `json:"text"`
	LastMessageID string   `json:"lastMessageId"`
	Covered       []string `json:"covered,omitempty"`
}

// IsZero reports whether s is the zero Summary (a nil or empty Covered
// alike).
func (s Summary) IsZero() bool { return s.Text == "" && s.LastMessageID == "" && len(s.Covered) == 0 }

// Equal reports whether s and t are the same summary: the same Text,
// LastMessageID and Covered. A nil and an empty Covered are equal. This is
// the comparison of [Store.Save]'s compare-and-swap.
func (s Summary) Equal(t Summary) bool {
	if s.Text != t.Text || s.LastMessageID != t.LastMessageID || len(s.Covered) != len(t.Covered) {
		return false
	}
	for i := range s.Covered {
		if s.Covered[i] != t.Covered[i] {
			return false
		}
	}
	return true
}

// clone returns s with a Covered slice of its own.
func (s Summary) clone() Summary {
	if s.Covered != nil {
		s.Covered = append([]string(nil), s.Covered...)
	}
	return s
}

// Store persists one Summary per chat.
//
// Implementations must be safe for concurrent use by multiple goroutines
// and must honour these rules, which [github.com/recapgo/recap/storetest]
// checks:
//
//   - Load returns the zero Summary and a nil error for a chat it has never
//     saved.
//   - Save is an atomic compare-and-swap: it stores next only if the stored
//     summary (the zero Summary for an unknown chat) still equals prev (see
//     [Summary.Equal]: Text, LastMessageID and every Covered ID), and
//     otherwise returns an error matching [ErrConflict] and changes nothing.
//     No reader may ever see a mix of prev and next.
//   - A Save or Load that fails for any other reason, including ctx being
//     done, changes nothing and returns an error that does not match
//     [ErrConflict].
//   - Load returns what Save stored, Covered included, in order (a nil
//     and an empty Covered may come back as either).
//   - Summaries are values: a Store keeps no reference to caller memory,
//     and the caller may modify what Load returned.
type Store interface {
	Load(ctx context.Context, chatID string) (Summary, error)
	Save(ctx context.Context, chatID string, prev, next Summary) error
}

// MemoryStore is a [Store] that keeps summaries in memory, for tests and
// single-process programs. It is also a [Leaser], for several Compressors
// sharing it, with leases on the time.Now clock. The zero MemoryStore is
// empty and ready to use. A MemoryStore is safe for concurrent use by
// multiple goroutines.
type MemoryStore struct {
	mu     sync.Mutex          // protects m and leases
	m      map[string]Summary  // chat ID to summary
	leases map[string]memLease // chat ID to its lease, expired ones included
}

// memLease is a MemoryStore's lease of a chat.
type memLease struct {
	holder  string
	expires time.Time
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
	return s.m[chatID].clone(), nil
}

// Save stores next for chatID if the stored summary equals prev, and
// returns [ErrConflict] otherwise. It fails without change if ctx is done.
func (s *MemoryStore) Save(ctx context.Context, chatID string, prev, next Summary) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.m[chatID].Equal(prev) {
		return ErrConflict
	}
	if s.m == nil {
		s.m = make(map[string]Summary)
	}
	if next.IsZero() {
		delete(s.m, chatID)
	} else {
		s.m[chatID] = next.clone()
	}
	return nil
}

// AcquireLease grants the lease of chatID to holder for ttl, or extends
// holder's lease, unless another holder's lease has not expired, which is
// [ErrLeaseHeld]. It fails without change if ctx is done.
func (s *MemoryStore) AcquireLease(ctx context.Context, chatID, holder string, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.leases[chatID]; ok && l.holder != holder && now.Before(l.expires) {
		return ErrLeaseHeld
	}
	if s.leases == nil {
		s.leases = make(map[string]memLease)
	}
	s.leases[chatID] = memLease{holder: holder, expires: now.Add(ttl)}
	return nil
}

// ReleaseLease ends holder's lease of chatID, if holder has it. It fails
// without change if ctx is done.
func (s *MemoryStore) ReleaseLease(ctx context.Context, chatID, holder string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.leases[chatID]; ok && l.holder == holder {
		delete(s.leases, chatID)
	}
	return nil
}
