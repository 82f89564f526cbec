package recap

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCompressSingleFlight fires 100 concurrent calls at a chat over the
// trigger: one summarizes while the others wait for it, so the Summarizer
// is called once, the Store saved once, and all payloads agree.
func TestCompressSingleFlight(t *testing.T) {
	const callers = 100
	st := &countingStore{Store: NewMemoryStore()}
	var calls atomic.Int64
	gate := make(chan struct{})
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		calls.Add(1)
		<-gate // hold the flight open until every caller has loaded
		return "summary of " + req.Messages[len(req.Messages)-1].ID, nil
	})
	c := mustNew(t, sum, st, WithTriggerTokens(30))
	chat := conversation(6)

	results := make([]Result, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := 0; i < callers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = c.Compress(context.Background(), "c", chat)
		}(i)
	}
	awaitWaiters(t, c, "c", callers-1)
	close(gate)
	wg.Wait()

	if n := calls.Load(); n != 1 {
		t.Errorf("Summarizer called %d times, want 1", n)
	}
	if n := st.saves.Load(); n != 1 {
		t.Errorf("Store saved %d times, want 1", n)
	}
	summarized := 0
	for i := range results {
		if errs[i] != nil || results[i].Err != nil {
			t.Fatalf("caller %d: %v %v", i, errs[i], results[i].Err)
		}
		if results[i].Summarized {
			summarized++
		}
		if diff := cmp.Diff(results[0].Payload, results[i].Payload); diff != "" {
			t.Fatalf("caller %d's payload differs from caller 0's (-0 +%d):\n%s", i, i, diff)
		}
	}
	if summarized != 1 || results[0].Summary.LastMessageID != "a5" {
		t.Errorf("%d callers report a summarization, summary %+v; want 1 and boundary a5", summarized, results[0].Summary)
	}
}

// TestCompressSingleFlightSharesFailure: when the summarization that
// others wait for fails, they report its failure instead of each trying
// again.
func TestCompressSingleFlightSharesFailure(t *testing.T) {
	const callers = 20
	st := NewMemoryStore()
	var calls atomic.Int64
	gate := make(chan struct{})
	boom := errors.New("model overloaded")
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		calls.Add(1)
		<-gate
		return "", boom
	})
	c := mustNew(t, sum, st, WithTriggerTokens(30))
	var wg sync.WaitGroup
	var absorbed atomic.Int64
	for i := 0; i < callers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.Compress(context.Background(), "c", conversation(6))
			if err == nil && errors.Is(res.Err, boom) && len(res.Payload) == 13 {
				absorbed.Add(1)
			}
		}()
	}
	awaitWaiters(t, c, "c", callers-1)
	close(gate)
	wg.Wait()
	if calls.Load() != 1 || absorbed.Load() != callers {
		t.Errorf("Summarizer called %d times, %d of %d callers got the failure absorbed; want 1 and all", calls.Load(), absorbed.Load(), callers)
	}
}

// awaitWaiters blocks until n calls wait for the flight in progress of
// chatID, so that a test releases the flight's Summarizer only when the
// calls it races have joined it (counting Loads cannot tell a call that
// loaded from one that joined). It fails the test after a minute.
func awaitWaiters(t *testing.T, c *Compressor, chatID string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for c.flights.waiting(chatID) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls wait for chat %q's flight after a minute, want %d", c.flights.waiting(chatID), chatID, n)
		}
		time.Sleep(time.Millisecond)
	}
}
