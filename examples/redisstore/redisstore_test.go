package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/redisstore"
	"github.com/recapgo/recap/storetest"
	"github.com/redis/go-redis/v9"
)

// redisAddr returns the address of the test Redis server, from
// RECAP_TEST_REDIS_ADDR (.ci/run starts a server and sets it). Without it
// the test is skipped, except under CI=true, where it fails.
func redisAddr(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("RECAP_TEST_REDIS_ADDR")
	if addr == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but RECAP_TEST_REDIS_ADDR is not set: .ci/run must start Redis")
		}
		t.Skip("RECAP_TEST_REDIS_ADDR is not set; run .ci/redis.sh to start a server")
	}
	return addr
}

// newClient returns a client of the test server, closed at the end.
func newClient(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: redisAddr(t)})
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("ping %s: %v", redisAddr(t), err)
	}
	return c
}

var prefixSeq atomic.Int64

// newPrefix returns a key prefix that no other test uses, and deletes its
// keys at the end.
func newPrefix(t *testing.T, c *redis.Client) string {
	prefix := fmt.Sprintf("recap-test:%d:%d:", os.Getpid(), prefixSeq.Add(1))
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return prefix
}

// newStore returns a Store on c with a prefix of its own.
func newStore(t *testing.T, c *redis.Client, opts ...redisstore.Option) *redisstore.Store {
	t.Helper()
	st, err := redisstore.New(c, append([]redisstore.Option{redisstore.WithKeyPrefix(newPrefix(t, c)), redisstore.WithLeaseKeyPrefix(newPrefix(t, c))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestConformance(t *testing.T) {
	c := newClient(t)
	storetest.Run(t, func(t *testing.T) recap.Store { return newStore(t, c) })
}

func TestConformanceWithTTL(t *testing.T) {
	c := newClient(t)
	storetest.Run(t, func(t *testing.T) recap.Store { return newStore(t, c, redisstore.WithTTL(time.Hour)) })
}

var (
	first  = recap.Summary{Text: "The user planned a trip to Paris.", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
	second = recap.Summary{Text: "Paris, then Rome.", LastMessageID: "m4", Covered: []string{"m1", "m2", "m3", "m4"}}
)

func save(t *testing.T, st *redisstore.Store, chat string, prev, next recap.Summary) {
	t.Helper()
	if err := st.Save(context.Background(), chat, prev, next); err != nil {
		t.Fatalf("Save(%q): %v", chat, err)
	}
}

func load(t *testing.T, st *redisstore.Store, chat string, want recap.Summary) {
	t.Helper()
	got, err := st.Load(context.Background(), chat)
	if err != nil {
		t.Fatalf("Load(%q): %v", chat, err)
	}
	if !got.Equal(want) {
		t.Fatalf("Load(%q) mismatch (-want +got):\n%s", chat, cmp.Diff(want, got))
	}
}

// TestKeyLayout pins what a chat's key holds, as the package
// documentation describes it.
func TestKeyLayout(t *testing.T) {
	c := newClient(t)
	prefix := newPrefix(t, c)
	st, err := redisstore.New(c, redisstore.WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	chat := "chat {1}/ü\x00\xff" // verbatim in the key, invalid UTF-8 included
	if got, want := st.Key(chat), prefix+chat; got != want {
		t.Errorf("Key(%q) = %q, want %q", chat, got, want)
	}
	sum := recap.Summary{Text: "Plans <&>", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
	save(t, st, chat, recap.Summary{}, sum)
	got, err := c.HGetAll(ctx, prefix+chat).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"summary": `{"text":"Plans <&>","lastMessageId":"m2","covered":["m1","m2"]}`,
		"digest":  got["digest"],
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored hash mismatch (-want +got):\n%s", diff)
	}
	if d := got["digest"]; len(d) != 64 || strings.Trim(d, "0123456789abcdef") != "" {
		t.Errorf("digest field = %q, want 64 lower-case hex digits", d)
	}
	load(t, st, chat, sum)

	def, err := redisstore.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := def.Key("c1"), redisstore.DefaultKeyPrefix+"c1"; got != want {
		t.Errorf("Key with the default prefix = %q, want %q", got, want)
	}

	save(t, st, chat, sum, recap.Summary{})
	if n, err := c.Exists(ctx, prefix+chat).Result(); err != nil || n != 0 {
		t.Errorf("after saving the zero Summary, EXISTS = %d, %v; want 0: the key is deleted", n, err)
	}
}

// TestHashWithoutDigests: a hash written by the redisstore before
// Summary.Digests (its summary field and digest as that version wrote
// them, pinned here) loads with no Digests, and the compare-and-swap
// against it works: it takes the loaded summary as prev, and refuses one
// with Digests.
func TestHashWithoutDigests(t *testing.T) {
	c := newClient(t)
	st := newStore(t, c)
	ctx := context.Background()
	if err := c.HSet(ctx, st.Key("old"),
		"summary", `{"text":"text","lastMessageId":"m2","covered":["m1","m2"]}`,
		"digest", "2804cf9365944a27c307c7df00f1e3efeaa057134dd78ead87f551099522839f").Err(); err != nil {
		t.Fatal(err)
	}
	old := recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
	got, err := st.Load(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(old, got); diff != "" {
		t.Fatalf("Load mismatch (-want +got):\n%s", diff)
	}
	withDigests := old
	withDigests.Digests = []string{"0a1b2c3d", "~4e5f6a7b"}
	next := recap.Summary{Text: "text, more", LastMessageID: "m3", Covered: []string{"m1", "m2", "m3"}, Digests: []string{"0a1b2c3d", "~4e5f6a7b", "8c9d0e1f"}}
	if err := st.Save(ctx, "old", withDigests, next); !errors.Is(err, recap.ErrConflict) {
		t.Errorf("Save with Digests the stored summary lacks = %v, want ErrConflict", err)
	}
	load(t, st, "old", old)
	save(t, st, "old", got, next)
	load(t, st, "old", next)
	if f, err := c.HGet(ctx, st.Key("old"), "summary").Result(); err != nil || !strings.Contains(f, `"digests":["0a1b2c3d","~4e5f6a7b","8c9d0e1f"]`) {
		t.Errorf("summary field = %s, %v; want it to hold the digests", f, err)
	}
}

// TestTwoClientsRace: Racers goroutines on two clients (two processes)
// race on one chat for several rounds, each round from the summary the
// last one stored; exactly one wins each round.
func TestTwoClientsRace(t *testing.T) {
	const rounds = 10
	ca, cb := newClient(t), newClient(t)
	a := newStore(t, ca)
	b, err := redisstore.New(cb, redisstore.WithKeyPrefix(strings.TrimSuffix(a.Key("x"), "x")))
	if err != nil {
		t.Fatal(err)
	}
	stores := []*redisstore.Store{a, b}
	prev := recap.Summary{}
	for round := range rounds {
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			errs  = make([]error, storetest.Racers)
			nexts = make([]recap.Summary, storetest.Racers)
		)
		for i := range storetest.Racers {
			nexts[i] = recap.Summary{
				Text:          fmt.Sprintf("round %d, racer %d", round, i),
				LastMessageID: fmt.Sprintf("m%d", round),
				Covered:       []string{fmt.Sprintf("m%d", round), fmt.Sprint("racer-", i)},
			}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				errs[i] = stores[i%2].Save(context.Background(), "c", prev, nexts[i])
			}(i)
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Errorf("round %d: racers %d and %d both won", round, winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, recap.ErrConflict):
				t.Errorf("round %d: racer %d: Save = %v, want nil or ErrConflict", round, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no racer won", round)
		}
		load(t, stores[(winner+1)%2], "c", nexts[winner]) // seen through the other client
		prev = nexts[winner]
	}
}

// TestTTL: with WithTTL each Save sets the expiry anew; a conflict leaves
// it; without WithTTL a Save removes it. It reads PTTL and never waits for
// an expiry.
func TestTTL(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	st := newStore(t, c, redisstore.WithTTL(time.Hour))
	key := st.Key("c")
	pttl := func() time.Duration {
		t.Helper()
		d, err := c.PTTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	save(t, st, "c", recap.Summary{}, first)
	if d := pttl(); d <= 59*time.Minute || d > time.Hour {
		t.Errorf("after Save with WithTTL(1h), PTTL = %v, want about an hour", d)
	}

	// 30 minutes, not seconds: the key must not expire before the next
	// Save, however slowly the test runs.
	if err := c.PExpire(ctx, key, 30*time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if err := st.Save(ctx, "c", second, second); !errors.Is(err, recap.ErrConflict) {
		t.Fatalf("Save with a stale prev = %v, want ErrConflict", err)
	}
	if d := pttl(); d > 30*time.Minute {
		t.Errorf("after a conflict, PTTL = %v, want at most 30m: a conflict changes nothing", d)
	}
	save(t, st, "c", first, second)
	if d := pttl(); d <= 59*time.Minute {
		t.Errorf("after a second Save, PTTL = %v, want about an hour: each Save refreshes it", d)
	}

	plain, err := redisstore.New(c, redisstore.WithKeyPrefix(strings.TrimSuffix(key, "c")))
	if err != nil {
		t.Fatal(err)
	}
	save(t, plain, "c", second, first)
	if d := pttl(); d != -1 {
		t.Errorf("after a Save without a TTL, PTTL = %v, want -1ns (no expiry)", d)
	}
}

// hook records the commands a client sends.
type hook struct {
	mu    sync.Mutex // protects names
	names []string
}

func (h *hook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *hook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		h.names = append(h.names, strings.ToLower(cmd.Name()))
		h.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (h *hook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.mu.Lock()
		for _, cmd := range cmds {
			h.names = append(h.names, "pipelined "+strings.ToLower(cmd.Name()))
		}
		h.mu.Unlock()
		return next(ctx, cmds)
	}
}

// take returns the commands recorded so far and forgets them.
func (h *hook) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	names := h.names
	h.names = nil
	return names
}

// TestRoundTrips: a Save is one command, EVALSHA, and a Load one HMGET;
// after the server forgot its scripts, a Save is EVALSHA, refused with
// NOSCRIPT, then EVAL.
func TestRoundTrips(t *testing.T) {
	c := newClient(t)
	h := &hook{}
	c.AddHook(h)
	st := newStore(t, c)
	ctx := context.Background()

	save(t, st, "c", recap.Summary{}, first) // loads the script if the server lacks it
	h.take()
	save(t, st, "c", first, second)
	if diff := cmp.Diff([]string{"evalsha"}, h.take()); diff != "" {
		t.Errorf("Save's commands mismatch (-want +got):\n%s", diff)
	}
	if err := st.Save(ctx, "c", first, second); !errors.Is(err, recap.ErrConflict) {
		t.Fatalf("Save with a stale prev = %v, want ErrConflict", err)
	}
	if diff := cmp.Diff([]string{"evalsha"}, h.take()); diff != "" {
		t.Errorf("a conflicting Save's commands mismatch (-want +got):\n%s", diff)
	}
	load(t, st, "c", second)
	if diff := cmp.Diff([]string{"hmget"}, h.take()); diff != "" {
		t.Errorf("Load's commands mismatch (-want +got):\n%s", diff)
	}

	if err := newClient(t).ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	save(t, st, "c", second, first)
	if diff := cmp.Diff([]string{"evalsha", "eval"}, h.take()); diff != "" {
		t.Errorf("Save after SCRIPT FLUSH: commands mismatch (-want +got):\n%s", diff)
	}
	load(t, st, "c", first)
}

// TestSaveRejectsInvalidUTF8: JSON cannot hold invalid UTF-8, so Save
// says so, sends nothing, and is not a conflict.
func TestSaveRejectsInvalidUTF8(t *testing.T) {
	c := newClient(t)
	h := &hook{}
	c.AddHook(h)
	st := newStore(t, c)
	save(t, st, "c", recap.Summary{}, first)
	h.take()
	for _, next := range []recap.Summary{
		{Text: "bad\xff", LastMessageID: "m3"},
		{Text: "t", LastMessageID: "m3\xc3"},
		{Text: "t", LastMessageID: "m3", Covered: []string{"m1", "m2\xed\xa0\x80", "m3"}},
	} {
		err := st.Save(context.Background(), "c", first, next)
		if err == nil || errors.Is(err, recap.ErrConflict) || !strings.Contains(err.Error(), "UTF-8") || !strings.HasPrefix(err.Error(), "redisstore: ") {
			t.Errorf("Save(%+q) = %v, want a redisstore error about UTF-8", next, err)
		}
	}
	if sent := h.take(); len(sent) != 0 {
		t.Errorf("rejected Saves sent %q, want nothing", sent)
	}
	load(t, st, "c", first)
}

// TestForeignValues: a key that redisstore did not write is an error for
// Load and Save, never a summary, a conflict, or overwritten.
func TestForeignValues(t *testing.T) {
	c := newClient(t)
	st := newStore(t, c)
	ctx := context.Background()
	save(t, st, "tampered", recap.Summary{}, first)
	if err := c.HSet(ctx, st.Key("tampered"), "summary", `{"text":"changed","lastMessageId":"m2","covered":["m1","m2"]}`).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, st.Key("string"), "not a hash", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.HSet(ctx, st.Key("nodigest"), "summary", `{"text":"t","lastMessageId":"m1","covered":["m1"]}`).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		chat string
		want string // in Load's error
	}{
		{"tampered", "digest does not match"},
		{"string", "WRONGTYPE"},
		{"nodigest", "lacks the digest"},
	} {
		t.Run(tc.chat, func(t *testing.T) {
			before, err := c.Dump(ctx, st.Key(tc.chat)).Result()
			if err != nil {
				t.Fatal(err)
			}
			if got, err := st.Load(ctx, tc.chat); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load = %+v, %v; want an error with %q", got, err, tc.want)
			}
			for _, prev := range []recap.Summary{{}, first} {
				err := st.Save(ctx, tc.chat, prev, second)
				if tc.chat == "tampered" {
					// Its digest is still first's: the script cannot tell.
					continue
				}
				if err == nil || errors.Is(err, recap.ErrConflict) {
					t.Errorf("Save(prev %+v) = %v, want an error other than ErrConflict", prev, err)
				}
			}
			if tc.chat == "tampered" {
				return
			}
			if after, err := c.Dump(ctx, st.Key(tc.chat)).Result(); err != nil || after != before {
				t.Errorf("the failed Saves changed the key")
			}
		})
	}
}

// TestCanceledContextSendsNothing: a done ctx is reported as such, never
// as a conflict, and nothing reaches the server.
func TestCanceledContextSendsNothing(t *testing.T) {
	c := newClient(t)
	h := &hook{}
	c.AddHook(h)
	st := newStore(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Save(ctx, "c", first, second); !errors.Is(err, context.Canceled) || errors.Is(err, recap.ErrConflict) {
		t.Errorf("Save with a canceled ctx = %v, want context.Canceled and not ErrConflict", err)
	}
	if _, err := st.Load(ctx, "c"); !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a canceled ctx = %v, want context.Canceled", err)
	}
	if sent := h.take(); len(sent) != 0 {
		t.Errorf("with a canceled ctx, sent %q; want nothing", sent)
	}
}

// TestLeaseKeyLayout pins the lease key: a string at the lease prefix plus
// the chat ID, holding the holder, expiring on the server after the TTL,
// deleted by its holder's release; the summary's key is not touched.
func TestLeaseKeyLayout(t *testing.T) {
	c := newClient(t)
	st := newStore(t, c)
	ctx := context.Background()
	save(t, st, "c1", recap.Summary{}, first)
	// An hour and a half-second: a TTL in milliseconds, not rounded up to
	// whole seconds, and far from expiring while the test runs.
	const ttl = time.Hour + 500*time.Millisecond
	if err := st.AcquireLease(ctx, "c1", "holder-1", ttl); err != nil {
		t.Fatal(err)
	}
	key := st.LeaseKey("c1")
	if v, err := c.Get(ctx, key).Result(); err != nil || v != "holder-1" {
		t.Fatalf("GET %s = %q, %v; want holder-1", key, v, err)
	}
	if got, err := c.PTTL(ctx, key).Result(); err != nil || got <= 0 || got > ttl {
		t.Errorf("PTTL %s = %v, %v; want at most %v", key, got, err, ttl)
	}
	if err := st.AcquireLease(ctx, "c1", "holder-2", time.Minute); !errors.Is(err, recap.ErrLeaseHeld) {
		t.Errorf("second holder: %v, want ErrLeaseHeld", err)
	}
	if err := st.ReleaseLease(ctx, "c1", "holder-1"); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Exists(ctx, key).Result(); n != 0 {
		t.Errorf("lease key still exists after release")
	}
	load(t, st, "c1", first)
	if err := st.AcquireLease(ctx, "c1", "h", 0); err == nil {
		t.Error("a zero TTL was accepted")
	}
}

// TestLeaseAcrossClients: 2 and 4 Compressors, each with a Redis client of
// its own (as separate processes would have), share the store and get 100
// concurrent calls for one chat over the trigger: one LLM call, and every
// call that waited answers on its summary.
func TestLeaseAcrossClients(t *testing.T) {
	prefix, leases := newPrefix(t, newClient(t)), newPrefix(t, newClient(t))
	for _, procs := range []int{2, 4} {
		t.Run(fmt.Sprint(procs), func(t *testing.T) {
			var calls atomic.Int64
			sum := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
				calls.Add(1)
				time.Sleep(200 * time.Millisecond) // a latency, so that the calls meet the holder's; the assertions hold for any interleaving
				return "The user planned a trip to Paris.", nil
			})
			cs := make([]*recap.Compressor, procs)
			for i := range cs {
				st, err := redisstore.New(newClient(t), redisstore.WithKeyPrefix(prefix), redisstore.WithLeaseKeyPrefix(leases))
				if err != nil {
					t.Fatal(err)
				}
				if cs[i], err = recap.New(sum, st, recap.WithTriggerTokens(20), recap.WithLeaseWait(time.Hour)); err != nil { // as long as the holder takes
					t.Fatal(err)
				}
			}
			var msgs []recap.Message
			for i := 1; i <= 6; i++ {
				msgs = append(msgs, recap.Message{ID: fmt.Sprintf("u%d", i), Role: recap.RoleUser, Content: "Where should I go in Paris on the first days of the trip?"},
					recap.Message{ID: fmt.Sprintf("a%d", i), Role: recap.RoleAssistant, Content: "The Louvre, then a walk along the Seine at dusk."})
			}
			msgs = append(msgs, recap.Message{ID: "u7", Role: recap.RoleUser, Content: "And then?"})
			chat := fmt.Sprintf("lease-%d", procs)
			var wg sync.WaitGroup
			errs := make([]error, 100)
			results := make([]recap.Result, 100)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i], errs[i] = cs[i%procs].Compress(context.Background(), chat, msgs)
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil || results[i].Err != nil || results[i].Summary.IsZero() {
					t.Fatalf("call %d: %v %v, summary %+v", i, err, results[i].Err, results[i].Summary)
				}
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("%d LLM calls, want 1", n)
			}
		})
	}
}
