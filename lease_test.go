package recap

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// leaseLog is a MemoryStore that records the lease calls made on it.
type leaseLog struct {
	*MemoryStore
	mu       sync.Mutex
	acquires []string // "holder ttl" of every successful AcquireLease
	releases []string // holder of every ReleaseLease
	fail     error    // returned by AcquireLease if set
	attempts atomic.Int64
}

func (s *leaseLog) AcquireLease(ctx context.Context, chatID, holder string, ttl time.Duration) error {
	s.attempts.Add(1)
	if s.fail != nil {
		return s.fail
	}
	err := s.MemoryStore.AcquireLease(ctx, chatID, holder, ttl)
	if err == nil {
		s.mu.Lock()
		s.acquires = append(s.acquires, fmt.Sprintf("%s %v", holder, ttl))
		s.mu.Unlock()
	}
	return err
}

func (s *leaseLog) ReleaseLease(ctx context.Context, chatID, holder string) error {
	s.mu.Lock()
	s.releases = append(s.releases, holder)
	s.mu.Unlock()
	return s.MemoryStore.ReleaseLease(ctx, chatID, holder)
}

// free reports whether no one holds the lease of chat.
func free(t *testing.T, st Leaser, chat string) bool {
	t.Helper()
	err := st.AcquireLease(context.Background(), chat, "probe", time.Minute)
	if err == nil {
		st.ReleaseLease(context.Background(), chat, "probe")
		return true
	}
	if !errors.Is(err, ErrLeaseHeld) {
		t.Fatal(err)
	}
	return false
}

// TestLeaseAcrossCompressors: several Compressors (standing for
// processes) share a Store that is a Leaser and get 100 concurrent calls
// for one chat over the trigger. Without WithLeaseWait exactly one calls
// the Summarizer and the others go on without summarizing, reporting
// ErrLeaseHeld; with it they wait and plan against the holder's summary.
func TestLeaseAcrossCompressors(t *testing.T) {
	for _, wait := range []time.Duration{0, time.Minute} {
		for _, procs := range []int{2, 4} {
			t.Run(fmt.Sprintf("wait=%v/procs=%d", wait, procs), func(t *testing.T) {
				const callers = 100
				st := NewMemoryStore()
				var calls atomic.Int64
				gate := make(chan struct{})
				sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
					calls.Add(1)
					<-gate
					return "summary of " + req.Messages[len(req.Messages)-1].ID, nil
				})
				// Each Compressor's lease calls go through its own
				// refusing, which says when it was first refused.
				refused := newRefusals(procs - 1)
				cs := make([]*Compressor, procs)
				for i := range cs {
					cs[i] = mustNew(t, sum, &refusing{MemoryStore: st, i: i, r: refused}, WithTriggerTokens(30), WithLeaseWait(wait))
				}
				chat := conversation(6)
				results := make([]Result, callers)
				errs := make([]error, callers)
				var wg sync.WaitGroup
				for i := 0; i < callers; i++ {
					wg.Add(1)
					go func(i int) {
						defer wg.Done()
						results[i], errs[i] = cs[i%procs].Compress(context.Background(), "c", chat)
					}(i)
				}
				// Hold the summarization until every other Compressor
				// has found the lease held: its callers then wait for
				// the holder or have given up (or, arriving later, will
				// find the holder's summary).
				select {
				case <-refused.done:
				case <-time.After(time.Minute):
					t.Fatalf("after a minute, %d Compressors have found the lease held, want %d", refused.count(), procs-1)
				}
				close(gate)
				wg.Wait()

				if n := calls.Load(); n != 1 {
					t.Errorf("Summarizer called %d times, want 1", n)
				}
				summarized, held := 0, 0
				for i, r := range results {
					switch {
					case errs[i] != nil:
						t.Fatalf("caller %d: %v", i, errs[i])
					case r.Summarized:
						summarized++
					case errors.Is(r.Err, ErrLeaseHeld):
						held++
						if wait > 0 {
							t.Errorf("caller %d gave up waiting: %v", i, r.Err)
						}
						if len(r.Payload) != len(chat) || !r.Summary.IsZero() {
							t.Errorf("caller %d: payload of %d messages on summary %+v, want the whole chat on none", i, len(r.Payload), r.Summary)
						}
					case r.Err != nil:
						t.Errorf("caller %d: %v", i, r.Err)
					default:
						if r.Summary.LastMessageID != "a5" {
							t.Errorf("caller %d: summary %+v, want the holder's (boundary a5)", i, r.Summary)
						}
					}
				}
				if summarized != 1 {
					t.Errorf("%d callers summarized, want 1", summarized)
				}
				if wait == 0 && held == 0 {
					t.Errorf("no caller reported ErrLeaseHeld")
				}
				if !free(t, st, "c") {
					t.Error("lease not released")
				}
			})
		}
	}
}

// refusing is a Leaser on a shared MemoryStore that tells r when
// AcquireLease refuses it (ErrLeaseHeld); i names it.
type refusing struct {
	*MemoryStore
	i int
	r *refusals
}

func (s *refusing) AcquireLease(ctx context.Context, chatID, holder string, ttl time.Duration) error {
	err := s.MemoryStore.AcquireLease(ctx, chatID, holder, ttl)
	if errors.Is(err, ErrLeaseHeld) {
		s.r.add(s.i)
	}
	return err
}

// refusals closes done once want distinct refusings have been refused.
type refusals struct {
	mu   sync.Mutex
	seen map[int]bool // protected by mu
	want int
	done chan struct{}
}

func newRefusals(want int) *refusals {
	return &refusals{seen: map[int]bool{}, want: want, done: make(chan struct{})}
}

func (r *refusals) add(i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.seen[i] {
		r.seen[i] = true
		if len(r.seen) == r.want {
			close(r.done)
		}
	}
}

func (r *refusals) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// TestLeaseTakeover: a holder that died keeps the lease until it expires;
// a call waiting longer than that takes it over and summarizes.
func TestLeaseTakeover(t *testing.T) {
	st := NewMemoryStore()
	if err := st.AcquireLease(context.Background(), "c", "dead", 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	c := mustNew(t, r, st, WithTriggerTokens(30), WithLeaseWait(5*time.Second))
	start := time.Now()
	res, err := c.Compress(context.Background(), "c", conversation(6))
	if err != nil || res.Err != nil || !res.Summarized {
		t.Fatalf("Compress = %+v, %v; want a summarization", res, err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("summarized after %v, before the dead holder's lease expired", d)
	}
	if r.count() != 1 || !free(t, st, "c") {
		t.Errorf("%d Summarizer calls, lease free %v; want 1 and true", r.count(), free(t, st, "c"))
	}

	// Without the wait, the same dead holder makes the call go on
	// unsummarized.
	st = NewMemoryStore()
	st.AcquireLease(context.Background(), "c", "dead", time.Minute)
	c = mustNew(t, r, st, WithTriggerTokens(30))
	res, err = c.Compress(context.Background(), "c", conversation(6))
	if err != nil || !errors.Is(res.Err, ErrLeaseHeld) || res.Summarized {
		t.Fatalf("Compress = %+v, %v; want ErrLeaseHeld absorbed", res, err)
	}
	if sum, _ := st.Load(context.Background(), "c"); !sum.IsZero() {
		t.Errorf("stored %+v while another held the lease", sum)
	}
}

// TestLeaseWaitCancelled: a call waiting for a lease returns when its
// context is done, having stored nothing.
func TestLeaseWaitCancelled(t *testing.T) {
	st := NewMemoryStore()
	st.AcquireLease(context.Background(), "c", "other", time.Minute)
	c := mustNew(t, &recorder{}, st, WithTriggerTokens(30), WithLeaseWait(time.Minute))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Compress(ctx, "c", conversation(6)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Compress = %v, want the context's deadline", err)
	}
}

// TestLeaseChunks: a backlog folded in chunks holds one lease, extended
// before each chunk after the first with the TTL derived from the
// summarize timeout, and released at the end.
func TestLeaseChunks(t *testing.T) {
	st := &leaseLog{MemoryStore: NewMemoryStore()}
	r := &recorder{reply: "short"}
	c := mustNew(t, r, st, WithTriggerTokens(30), WithMaxSummarizeInput(60), WithSummarizeTimeout(10*time.Second))
	res, err := c.Compress(context.Background(), "c", conversation(12))
	if err != nil || res.Err != nil || !res.Summarized {
		t.Fatalf("Compress = %+v, %v", res, err)
	}
	if r.count() < 3 {
		t.Fatalf("%d chunks, want a backlog of at least 3", r.count())
	}
	if len(st.acquires) != r.count() {
		t.Errorf("%d acquisitions for %d chunks: %q", len(st.acquires), r.count(), st.acquires)
	}
	want := st.acquires[0]
	if ttl := 3*10*time.Second + leaseSlack; want[len(want)-len(ttl.String()):] != ttl.String() {
		t.Errorf("lease %q, want a TTL of %v", want, ttl)
	}
	for i, a := range st.acquires {
		if a != want {
			t.Errorf("acquisition %d is %q, want %q (one holder)", i, a, want)
		}
	}
	if len(st.releases) != 1 || st.releases[0]+" "+want[len(st.releases[0])+1:] != want {
		t.Errorf("releases %q, want the holder of %q once", st.releases, want)
	}
}

// TestLeaseLostBetweenChunks: when the lease expired during a chunk and
// another holder took it, the summarization stops after saving that
// chunk, leaving the rest to the new holder.
func TestLeaseLostBetweenChunks(t *testing.T) {
	st := NewMemoryStore()
	var calls atomic.Int64
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		if calls.Add(1) == 1 {
			time.Sleep(150 * time.Millisecond) // the lease of 100 ms expires
			if err := st.AcquireLease(ctx, "c", "thief", time.Minute); err != nil {
				t.Error(err)
			}
		}
		return "short", nil
	})
	c := mustNew(t, sum, st, WithTriggerTokens(30), WithMaxSummarizeInput(60), WithLeaseTTL(100*time.Millisecond))
	res, err := c.Compress(context.Background(), "c", conversation(12))
	if err != nil || !errors.Is(res.Err, ErrLeaseHeld) || !res.Summarized {
		t.Fatalf("Compress = %+v, %v; want the first chunk saved and ErrLeaseHeld", res, err)
	}
	if calls.Load() != 1 {
		t.Errorf("%d Summarizer calls after the lease was lost, want 1", calls.Load())
	}
	stored, _ := st.Load(context.Background(), "c")
	if !stored.Equal(res.Summary) || stored.IsZero() {
		t.Errorf("stored %+v, result %+v: want the first chunk's summary in both", stored, res.Summary)
	}
	if free(t, st, "c") {
		t.Error("the thief's lease was released")
	}
}

// TestLeaseFailure: a Leaser that fails is absorbed like a Save failure:
// nothing is summarized or stored and Result.Err says why.
func TestLeaseFailure(t *testing.T) {
	boom := errors.New("lease table gone")
	st := &leaseLog{MemoryStore: NewMemoryStore(), fail: boom}
	r := &recorder{}
	c := mustNew(t, r, st, WithTriggerTokens(30))
	res, err := c.Compress(context.Background(), "c", conversation(6))
	if err != nil || !errors.Is(res.Err, boom) || errors.Is(res.Err, ErrLeaseHeld) || res.Summarized {
		t.Fatalf("Compress = %+v, %v; want the lease failure absorbed", res, err)
	}
	if r.count() != 0 || len(st.releases) != 0 {
		t.Errorf("%d Summarizer calls, %d releases; want none", r.count(), len(st.releases))
	}
}

// TestLeaseReleasedOnFailure: a failed summarization releases its lease at
// once, so that another process need not wait for it to expire.
func TestLeaseReleasedOnFailure(t *testing.T) {
	st := NewMemoryStore()
	c := mustNew(t, &recorder{fail: errors.New("overloaded")}, st, WithTriggerTokens(30))
	res, err := c.Compress(context.Background(), "c", conversation(6))
	if err != nil || res.Err == nil {
		t.Fatalf("Compress = %+v, %v; want an absorbed failure", res, err)
	}
	if !free(t, st, "c") {
		t.Error("lease kept after a failed summarization")
	}
}

func TestLeaseOptions(t *testing.T) {
	for _, o := range []Option{WithLeaseTTL(-time.Second), WithLeaseWait(-time.Second)} {
		if _, err := New(nil, nil, o); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("New = %v, want ErrInvalidOption", err)
		}
	}
	for _, tc := range []struct {
		opts []Option
		want time.Duration
	}{
		{nil, DefaultLeaseTTL},
		{[]Option{WithSummarizeTimeout(time.Minute)}, 3*time.Minute + leaseSlack},
		{[]Option{WithSummarizeTimeout(time.Minute), WithLeaseTTL(time.Hour)}, time.Hour},
	} {
		c, err := New(nil, nil, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.leaseTTL(); got != tc.want {
			t.Errorf("lease TTL %v, want %v", got, tc.want)
		}
	}
}

// TestLeaseBackgroundDoesNotWait: a background task that finds the lease
// held ends at once, whatever WithLeaseWait says; the request that
// scheduled it got the unsummarized payload.
func TestLeaseBackgroundDoesNotWait(t *testing.T) {
	st := &leaseLog{MemoryStore: NewMemoryStore()}
	st.MemoryStore.AcquireLease(context.Background(), "c", "other", time.Minute)
	var tasks []func(context.Context)
	r := &recorder{}
	c := mustNew(t, r, st, WithTriggerTokens(30), WithLeaseWait(time.Minute),
		WithBackground(func(task func(context.Context)) { tasks = append(tasks, task) }))
	res, err := c.Compress(context.Background(), "c", conversation(6))
	if err != nil || !res.Scheduled || len(tasks) != 1 {
		t.Fatalf("Compress = %+v, %v, %d tasks; want one scheduled", res, err, len(tasks))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	tasks[0](ctx)
	if n := st.attempts.Load(); n != 1 || ctx.Err() != nil || r.count() != 0 {
		t.Errorf("task tried the lease %d times (ctx %v), %d Summarizer calls; want 1 try, no wait, no call", n, ctx.Err(), r.count())
	}
}

// chaosLeaser is a MemoryStore whose lease calls fail at random: an
// error, a spurious ErrLeaseHeld, a release that does not happen.
type chaosLeaser struct {
	*savesLog
	mem *MemoryStore
	mu  sync.Mutex
	rng *rand.Rand
}

func (s *chaosLeaser) roll() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Intn(10)
}

func (s *chaosLeaser) AcquireLease(ctx context.Context, chatID, holder string, ttl time.Duration) error {
	switch s.roll() {
	case 0:
		return errors.New("flaky lease table")
	case 1:
		return ErrLeaseHeld
	}
	return s.mem.AcquireLease(ctx, chatID, holder, ttl)
}

func (s *chaosLeaser) ReleaseLease(ctx context.Context, chatID, holder string) error {
	if s.roll() == 0 {
		return errors.New("release lost") // the lease stays until it expires
	}
	return s.mem.ReleaseLease(ctx, chatID, holder)
}

// TestLeaseChaos: 2 to 4 Compressors share a Store whose leases fail at
// random, with random waits, chunking and summarizer latencies, and get
// concurrent calls for a growing chat. Whatever happens, no call fails,
// every payload holds each message once (raw or under its summary), the
// stored summary only ever grows (no save drops what an earlier one
// covered), and once the faults stop the summary catches up.
func TestLeaseChaos(t *testing.T) {
	for seed := 1; seed <= 30; seed++ {
		rng := rand.New(rand.NewSource(int64(seed)))
		mem := NewMemoryStore()
		st := &chaosLeaser{savesLog: &savesLog{Store: mem}, mem: mem, rng: rand.New(rand.NewSource(int64(seed) + 1000))}
		var delay atomic.Int64
		sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
			time.Sleep(time.Duration(delay.Load()))
			s := "covers " + strings.Join(ids(req.Messages), ",")
			if req.Previous != "" {
				s = req.Previous + "; " + s
			}
			return s, nil
		})
		procs := 2 + rng.Intn(3)
		cs := make([]*Compressor, procs)
		for i := range cs {
			opts := []Option{WithTriggerTokens(30 + rng.Intn(40)), WithLeaseTTL(30 * time.Millisecond)}
			if rng.Intn(2) == 0 {
				opts = append(opts, WithLeaseWait(time.Duration(rng.Intn(100))*time.Millisecond))
			}
			if rng.Intn(2) == 0 {
				opts = append(opts, WithMaxSummarizeInput(80))
			}
			cs[i] = mustNew(t, sum, st, opts...)
		}
		for n := 1; n <= 14; n++ {
			chat := conversation(n)
			delay.Store(int64(rng.Intn(5)) * int64(time.Millisecond))
			var wg sync.WaitGroup
			for g := 0; g < 6; g++ {
				c := cs[rng.Intn(procs)]
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := c.Compress(context.Background(), "c", chat)
					if err != nil {
						t.Errorf("seed %d turn %d: %v", seed, n, err)
						return
					}
					if res.Err != nil && !errors.Is(res.Err, ErrLeaseHeld) && !strings.Contains(res.Err.Error(), "flaky lease table") {
						t.Errorf("seed %d turn %d: absorbed %v", seed, n, res.Err)
					}
					checkOnce(t, chat, res)
				}()
			}
			wg.Wait()
		}
		st.mu.Lock()
		log := append([]Summary(nil), st.log...)
		st.mu.Unlock()
		for i := 1; i < len(log); i++ {
			if !strings.HasPrefix(log[i].Text, log[i-1].Text+"; ") || len(log[i].Covered) <= len(log[i-1].Covered) {
				t.Fatalf("seed %d: save %d does not extend the one before:\nprev %q\nnext %q", seed, i, log[i-1].Text, log[i].Text)
			}
		}
		// The faults stop: a Compressor on the plain store catches up.
		time.Sleep(40 * time.Millisecond) // leases whose release was lost expire
		final := mustNew(t, sum, mem, WithTriggerTokens(30))
		res, err := final.Compress(context.Background(), "c", conversation(14))
		if err != nil || res.Err != nil {
			t.Errorf("seed %d: after the faults: %v %v", seed, err, res.Err)
			continue
		}
		stored, _ := mem.Load(context.Background(), "c")
		if p, err := final.Plan(conversation(14), stored); err != nil || p.Trigger || p.Stale {
			t.Errorf("seed %d: after the faults the stored summary (boundary %s) has not caught up: trigger %v, stale %v, %v",
				seed, stored.LastMessageID, p.Trigger, p.Stale, err)
		}
	}
}

// checkOnce checks that a payload of chat holds each of its messages once:
// raw, or covered by the summary in it.
func checkOnce(t *testing.T, chat []Message, res Result) {
	t.Helper()
	seen := map[string]int{}
	for _, m := range res.Payload {
		if !strings.HasPrefix(m.ID, SummaryIDPrefix) {
			seen[m.ID]++
		}
	}
	for _, id := range res.Summary.Covered {
		seen[id]++
	}
	for _, m := range chat {
		if seen[m.ID] != 1 {
			t.Errorf("message %s is in the payload %d times (raw or covered)", m.ID, seen[m.ID])
		}
	}
}

// TestLeaseHolder: a Compressor with WithLeaseHolder takes over at once a
// lease that its holder already has (a previous incarnation that died
// holding it) and summarizes; one with a random holder finds the lease
// held and leaves the chat to the holder until the lease expires.
func TestLeaseHolder(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		opts       []Option
		summarized bool
	}{
		{"same holder", []Option{WithLeaseHolder("replica-1")}, true},
		{"random holder", nil, false},
		{"another holder", []Option{WithLeaseHolder("replica-2")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := NewMemoryStore()
			if err := st.AcquireLease(ctx, "c", "replica-1", time.Hour); err != nil { // held when it died
				t.Fatal(err)
			}
			c, err := New(SummarizerFunc(func(context.Context, SummarizeRequest) (string, error) { return "a summary", nil }), st,
				append([]Option{WithTokenCounter(words), WithTriggerTokens(10), WithWindowConversations(1)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Compress(ctx, "c", factChat(13))
			if err != nil {
				t.Fatal(err)
			}
			if res.Summarized != tc.summarized || !tc.summarized && !errors.Is(res.Err, ErrLeaseHeld) {
				t.Fatalf("summarized %v, err %v; want summarized %v", res.Summarized, res.Err, tc.summarized)
			}
		})
	}
	if _, err := New(nil, nil, WithLeaseHolder("")); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("WithLeaseHolder(\"\"): %v", err)
	}
}
