package storetest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

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

var brokenStores = map[string]struct {
	new     func() recap.Store
	catches string // the subtest that must fail
}{
	"lastWriterWins":      {func() recap.Store { return lastWriterWins{recap.NewMemoryStore()} }, "ConflictOnStalePrev"},
	"errorOnUnknown":      {func() recap.Store { return errorOnUnknown{recap.NewMemoryStore()} }, "LoadUnknownChat"},
	"ignoresContext":      {func() recap.Store { return &ignoresContext{} }, "CanceledContext"},
	"textAndBoundaryOnly": {func() recap.Store { return textAndBoundaryOnly{recap.NewMemoryStore()} }, "ConflictComparesCovered"},
	"sharesCovered":       {func() recap.Store { return &sharesCovered{} }, "NoSharedMemory"},
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
