package storetest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/storetest"
)

// broken stores, each wrong in one way the suite must catch.
type lastWriterWins struct{ *recap.MemoryStore } // Save ignores prev

func (s lastWriterWins) Save(ctx context.Context, chat string, prev, next recap.Summary) error {
	cur, _ := s.MemoryStore.Load(ctx, chat)
	return s.MemoryStore.Save(ctx, chat, cur, next)
}

type errorOnUnknown struct{ *recap.MemoryStore } // Load fails for a new chat

func (s errorOnUnknown) Load(ctx context.Context, chat string) (recap.Summary, error) {
	sum, err := s.MemoryStore.Load(ctx, chat)
	if err == nil && sum.IsZero() {
		return sum, os.ErrNotExist
	}
	return sum, err
}

type ignoresContext struct { // never looks at ctx
	mu sync.Mutex
	m  map[string]recap.Summary
}

func (s *ignoresContext) Load(_ context.Context, chat string) (recap.Summary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[chat], nil
}

func (s *ignoresContext) Save(_ context.Context, chat string, prev, next recap.Summary) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]recap.Summary{}
	}
	if !s.m[chat].Equal(prev) {
		return recap.ErrConflict
	}
	s.m[chat] = next
	return nil
}

// textAndBoundaryOnly compares and keeps only Text and LastMessageID, as a
// store written before Summary.Covered would.
type textAndBoundaryOnly struct{ *recap.MemoryStore }

func (s textAndBoundaryOnly) Load(ctx context.Context, chat string) (recap.Summary, error) {
	sum, err := s.MemoryStore.Load(ctx, chat)
	sum.Covered = nil
	return sum, err
}

func (s textAndBoundaryOnly) Save(ctx context.Context, chat string, prev, next recap.Summary) error {
	cur, _ := s.MemoryStore.Load(ctx, chat)
	if cur.Text != prev.Text || cur.LastMessageID != prev.LastMessageID {
		return recap.ErrConflict
	}
	return s.MemoryStore.Save(ctx, chat, cur, next)
}

// sharesCovered keeps the caller's Covered slice instead of a copy.
type sharesCovered struct {
	mu sync.Mutex
	m  map[string]recap.Summary
}

func (s *sharesCovered) Load(ctx context.Context, chat string) (recap.Summary, error) {
	if err := ctx.Err(); err != nil {
		return recap.Summary{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[chat], nil
}

func (s *sharesCovered) Save(ctx context.Context, chat string, prev, next recap.Summary) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]recap.Summary{}
	}
	if !s.m[chat].Equal(prev) {
		return recap.ErrConflict
	}
	s.m[chat] = next
	return nil
}

// dropsDigests keeps and compares Text, LastMessageID and Covered, but not
// Digests, as a store written before Summary.Digests would.
type dropsDigests struct{ *recap.MemoryStore }

func (s dropsDigests) Save(ctx context.Context, chat string, prev, next recap.Summary) error {
	prev.Digests, next.Digests = nil, nil
	return s.MemoryStore.Save(ctx, chat, prev, next)
}

// digestsOutOfCAS keeps Digests but leaves them out of its
// compare-and-swap.
type digestsOutOfCAS struct{ *recap.MemoryStore }

func (s digestsOutOfCAS) Save(ctx context.Context, chat string, prev, next recap.Summary) error {
	cur, err := s.MemoryStore.Load(ctx, chat)
	if err != nil {
		return err
	}
	if prev.Digests = cur.Digests; !cur.Equal(prev) {
		return recap.ErrConflict
	}
	return s.MemoryStore.Save(ctx, chat, cur, next)
}

// sharesDigests copies Covered but keeps the caller's Digests slice.
type sharesDigests struct{ sharesCovered }

func (s *sharesDigests) Save(ctx context.Context, chat string, prev, next recap.Summary) error {
	next.Covered = append([]string(nil), next.Covered...)
	return s.sharesCovered.Save(ctx, chat, prev, next)
}

func (s *sharesDigests) Load(ctx context.Context, chat string) (recap.Summary, error) {
	sum, err := s.sharesCovered.Load(ctx, chat)
	sum.Covered = append([]string(nil), sum.Covered...)
	return sum, err
}

// neverExpires keeps a lease until it is released, whatever its TTL.
type neverExpires struct{ *recap.MemoryStore }

func (s neverExpires) AcquireLease(ctx context.Context, chat, holder string, ttl time.Duration) error {
	return s.MemoryStore.AcquireLease(ctx, chat, holder, 24*time.Hour)
}

// releasesAnyone's ReleaseLease ends the lease whoever holds it.
type releasesAnyone struct {
	*recap.MemoryStore
	mu      sync.Mutex
	holders map[string]string
}

func (s *releasesAnyone) AcquireLease(ctx context.Context, chat, holder string, ttl time.Duration) error {
	err := s.MemoryStore.AcquireLease(ctx, chat, holder, ttl)
	if err == nil {
		s.mu.Lock()
		if s.holders == nil {
			s.holders = map[string]string{}
		}
		s.holders[chat] = holder
		s.mu.Unlock()
	}
	return err
}

func (s *releasesAnyone) ReleaseLease(ctx context.Context, chat, _ string) error {
	s.mu.Lock()
	holder := s.holders[chat]
	s.mu.Unlock()
	return s.MemoryStore.ReleaseLease(ctx, chat, holder)
}

// noExtension refuses a holder its own lease until it expires.
type noExtension struct{ *recap.MemoryStore }

func (s noExtension) AcquireLease(ctx context.Context, chat, holder string, ttl time.Duration) error {
	if err := s.MemoryStore.AcquireLease(ctx, chat, "someone", 0); err != nil {
		return err // held, by anyone
	}
	return s.MemoryStore.AcquireLease(ctx, chat, holder, ttl)
}

var brokenStores = map[string]struct {
	new     func() recap.Store
	catches string // the subtest that must fail
}{
	"lastWriterWins":      {func() recap.Store { return lastWriterWins{recap.NewMemoryStore()} }, "ConflictOnStalePrev"},
	"errorOnUnknown":      {func() recap.Store { return errorOnUnknown{recap.NewMemoryStore()} }, "LoadUnknownChat"},
	"ignoresContext":      {func() recap.Store { return &ignoresContext{} }, "CanceledContext"},
	"textAndBoundaryOnly": {func() recap.Store { return textAndBoundaryOnly{recap.NewMemoryStore()} }, "ConflictComparesCovered"},
	"sharesCovered":       {func() recap.Store { return &sharesCovered{} }, "NoSharedMemory"},
	"dropsDigests":        {func() recap.Store { return dropsDigests{recap.NewMemoryStore()} }, "DigestsRoundTrip"},
	"digestsOutOfCAS":     {func() recap.Store { return digestsOutOfCAS{recap.NewMemoryStore()} }, "ConflictComparesDigests"},
	"sharesDigests":       {func() recap.Store { return &sharesDigests{} }, "NoSharedMemory"},
	"neverExpires":        {func() recap.Store { return neverExpires{recap.NewMemoryStore()} }, "LeaseExpires"},
	"releasesAnyone":      {func() recap.Store { return &releasesAnyone{MemoryStore: recap.NewMemoryStore()} }, "LeaseRelease"},
	"noExtension":         {func() recap.Store { return noExtension{recap.NewMemoryStore()} }, "LeaseAcquire"},
}

// TestBrokenStoreHelper runs the suite on the broken store named by
// STORETEST_BROKEN; it is run by TestSuiteCatchesBrokenStores, in a child
// process, and skipped otherwise.
func TestBrokenStoreHelper(t *testing.T) {
	b, ok := brokenStores[os.Getenv("STORETEST_BROKEN")]
	if !ok {
		t.Skip("run by TestSuiteCatchesBrokenStores")
	}
	storetest.Run(t, func(t *testing.T) recap.Store { return b.new() })
}

// TestSuiteCatchesBrokenStores checks that the suite can fail: each broken
// store makes the subtest aimed at its fault fail.
func TestSuiteCatchesBrokenStores(t *testing.T) {
	for name, b := range brokenStores {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenStoreHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "STORETEST_BROKEN="+name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a store that is %s:\n%s", name, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestBrokenStoreHelper/"+b.catches) {
				t.Errorf("subtest %s did not fail for %s:\n%s", b.catches, name, out)
			}
		})
	}
}
