package recap

import (
	"context"
	"sync"
	"time"
)

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
