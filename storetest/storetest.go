// Package storetest checks that a [recap.Store] implementation honours the
// contract documented on [recap.Store], the way testing/slogtest checks a
// slog.Handler.
//
// A Store's own tests call [Run] with a function that returns a new, empty
// store:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) recap.Store {
//			return mystore.New(t.TempDir())
//		})
//	}
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recapgo/recap"
)

// Racers is how many goroutines the concurrency check sets racing on one
// Save.
const Racers = 50

// Run runs the conformance suite as subtests of t. newStore must return an
// empty Store each time it is called; Run calls it once per subtest.
//
// If the Store is also a [recap.Leaser], Run checks the lease contract
// too, in subtests named Lease*. They wait for leases to expire, with
// TTLs of a few hundred milliseconds, so the Leaser must measure expiry in
// milliseconds or finer.
func Run(t *testing.T, newStore func(t *testing.T) recap.Store) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, newStore(t))
		})
	}
	if _, ok := newStore(t).(recap.Leaser); !ok {
		return
	}
	for _, c := range leaseCases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, newStore(t).(recap.Leaser))
		})
	}
}

// leaseTTL is the time-to-live of the leases that expire in the checks,
// and leaseLong that of those that must not.
const (
	leaseTTL  = 300 * time.Millisecond
	leaseLong = time.Minute
)

var leaseCases = []struct {
	name string
	run  func(t *testing.T, l recap.Leaser)
}{
	{"LeaseAcquire", func(t *testing.T, l recap.Leaser) {
		mustAcquire(t, l, "c1", "h1", leaseLong)
		wantHeld(t, l, "c1", "h2")
		mustAcquire(t, l, "c2", "h2", leaseLong) // chats are independent
		mustAcquire(t, l, "c1", "h1", leaseLong) // the holder extends it
	}},
	{"LeaseRelease", func(t *testing.T, l recap.Leaser) {
		mustAcquire(t, l, "c1", "h1", leaseLong)
		mustRelease(t, l, "c1", "h2") // not h2's: nothing happens
		wantHeld(t, l, "c1", "h2")
		mustRelease(t, l, "c1", "h1")
		mustAcquire(t, l, "c1", "h2", leaseLong)
		mustRelease(t, l, "c1", "h1") // h1's is gone: h2's stays
		wantHeld(t, l, "c1", "h1")
		mustRelease(t, l, "never", "h1") // a chat never leased
	}},
	{"LeaseExpires", func(t *testing.T, l recap.Leaser) {
		// That another holder is refused holds only while the short lease
		// lasts: on a machine too busy to ask within it, ask again with a
		// new chat, a few times.
		chat := ""
		for attempt := 0; chat == ""; attempt++ {
			c := fmt.Sprintf("c%d", attempt+1)
			start := time.Now()
			mustAcquire(t, l, c, "h1", leaseTTL)
			err := l.AcquireLease(context.Background(), c, "h2", leaseLong)
			switch {
			case time.Since(start) < leaseTTL && !errors.Is(err, recap.ErrLeaseHeld):
				t.Fatalf("AcquireLease(%q, %q) = %v within the other's lease, want ErrLeaseHeld", c, "h2", err)
			case time.Since(start) < leaseTTL:
				chat = c
			case attempt == 9:
				t.Skipf("the machine took %v or more to ask twice: a %v lease cannot be checked", leaseTTL, leaseTTL)
			}
		}
		time.Sleep(leaseTTL + 200*time.Millisecond)
		mustAcquire(t, l, chat, "h2", leaseLong)
		wantHeld(t, l, chat, "h1") // the old holder cannot take it back
		mustRelease(t, l, chat, "h1")
		wantHeld(t, l, chat, "h1")
	}},
	{"LeaseExtends", func(t *testing.T, l recap.Leaser) {
		mustAcquire(t, l, "c1", "h1", leaseTTL)
		mustAcquire(t, l, "c1", "h1", leaseLong)
		time.Sleep(leaseTTL + 200*time.Millisecond)
		wantHeld(t, l, "c1", "h2") // extended past its first TTL
	}},
	{"LeaseRace", func(t *testing.T, l recap.Leaser) {
		errs := make([]error, Racers)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				errs[i] = l.AcquireLease(context.Background(), "c1", fmt.Sprintf("h%d", i), leaseLong)
			}(i)
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Errorf("racers %d and %d both hold the lease", winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, recap.ErrLeaseHeld):
				t.Errorf("racer %d: AcquireLease = %v, want nil or ErrLeaseHeld", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no racer got the lease")
		}
		mustAcquire(t, l, "c1", fmt.Sprintf("h%d", winner), leaseLong)
	}},
	{"LeaseIndependentOfSummaries", func(t *testing.T, l recap.Leaser) {
		st, ok := l.(recap.Store)
		if !ok {
			t.Skip("not a Store")
		}
		mustAcquire(t, l, "c1", "h1", leaseLong)
		mustLoad(t, st, "c1", recap.Summary{})
		mustSave(t, st, "c1", recap.Summary{}, first)
		mustLoad(t, st, "c1", first)
		mustRelease(t, l, "c1", "h1")
		mustLoad(t, st, "c1", first)
	}},
	{"LeaseCancelled", func(t *testing.T, l recap.Leaser) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := l.AcquireLease(ctx, "c1", "h1", leaseLong); err == nil || errors.Is(err, recap.ErrLeaseHeld) {
			t.Fatalf("AcquireLease with a cancelled context = %v, want a failure other than ErrLeaseHeld", err)
		}
		mustAcquire(t, l, "c1", "h2", leaseLong) // nothing was taken
	}},
}

func mustAcquire(t *testing.T, l recap.Leaser, chat, holder string, ttl time.Duration) {
	t.Helper()
	if err := l.AcquireLease(context.Background(), chat, holder, ttl); err != nil {
		t.Fatalf("AcquireLease(%q, %q, %v): %v", chat, holder, ttl, err)
	}
}

func wantHeld(t *testing.T, l recap.Leaser, chat, holder string) {
	t.Helper()
	if err := l.AcquireLease(context.Background(), chat, holder, leaseLong); !errors.Is(err, recap.ErrLeaseHeld) {
		t.Fatalf("AcquireLease(%q, %q) = %v, want ErrLeaseHeld", chat, holder, err)
	}
}

func mustRelease(t *testing.T, l recap.Leaser, chat, holder string) {
	t.Helper()
	if err := l.ReleaseLease(context.Background(), chat, holder); err != nil {
		t.Fatalf("ReleaseLease(%q, %q): %v", chat, holder, err)
	}
}

var (
	first  = recap.Summary{Text: "The user planned a trip to Paris.", LastMessageID: "m4", Covered: ids(1, 4), Digests: digests(1, 4)}
	second = recap.Summary{Text: "The user planned a trip to Paris, then Rome.", LastMessageID: "m8", Covered: ids(1, 8), Digests: digests(1, 8)}
	third  = recap.Summary{Text: "Paris, Rome, and a booked train.", LastMessageID: "m12", Covered: ids(1, 12), Digests: digests(1, 12)}
)

// ids returns "m<from>" to "m<to>".
func ids(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprint("m", i))
	}
	return out
}

// digests returns the stand-ins for the [recap.Digest] of messages from
// to to, parallel to ids(from, to): 8 hex digits each, with
// [recap.ContextMark] before the second's, as recap marks per-request
// context.
func digests(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		d := fmt.Sprintf("%08x", uint32(i)*2654435761)
		if i == 2 {
			d = recap.ContextMark + d
		}
		out = append(out, d)
	}
	return out
}

// withCovered returns s with Covered replaced by covered.
func withCovered(s recap.Summary, covered ...string) recap.Summary {
	s.Covered = covered
	return s
}

// withDigests returns s with Digests replaced by d.
func withDigests(s recap.Summary, d ...string) recap.Summary {
	s.Digests = d
	return s
}

var cases = []struct {
	name string
	run  func(t *testing.T, st recap.Store)
}{
	{"LoadUnknownChat", func(t *testing.T, st recap.Store) {
		mustLoad(t, st, "nobody", recap.Summary{})
	}},
	{"SaveThenLoad", func(t *testing.T, st recap.Store) {
		mustSave(t, st, "c1", recap.Summary{}, first)
		mustLoad(t, st, "c1", first)
	}},
	{"SaveChain", func(t *testing.T, st recap.Store) {
		mustSave(t, st, "c1", recap.Summary{}, first)
		mustSave(t, st, "c1", first, second)
		mustSave(t, st, "c1", second, third)
		mustLoad(t, st, "c1", third)
	}},
	{"ConflictOnStalePrev", func(t *testing.T, st recap.Store) {
		mustSave(t, st, "c1", recap.Summary{}, first)
		mustSave(t, st, "c1", first, second)
		wantConflict(t, st, "c1", first, third)
		mustLoad(t, st, "c1", second)
	}},
	{"ConflictOnZeroPrevWhenStored", func(t *testing.T, st recap.Store) {
		mustSave(t, st, "c1", recap.Summary{}, first)
		wantConflict(t, st, "c1", recap.Summary{}, second)
		mustLoad(t, st, "c1", first)
	}},
	{"ConflictOnUnknownChat", func(t *testing.T, st recap.Store) {
		wantConflict(t, st, "c1", first, second)
		mustLoad(t, st, "c1", recap.Summary{})
	}},
	{"ConflictComparesText", func(t *testing.T, st recap.Store) {
		mustSave(t, st, "c1", recap.Summary{}, first)
		wantConflict(t, st, "c1", recap.Summary{Text: first.Text + " ", LastMessageID: first.LastMessageID}, second)
		wantConflict(t, st, "c1", recap.Summary{Text: first.Text, LastMessageID: first.LastMessageID + "x"}, second)
		mustLoad(t, st, "c1", first)
	}},
	{"ConflictComparesCovered", func(t *testing.T, st recap.Store) {
		mustSave(t, st, "c1", recap.Summary{}, first)
		wantConflict(t, st, "c1", withCovered(first), second)                             // no Covered
		wantConflict(t, st, "c1", withCovered(first, first.Covered[1:]...), second)       // one ID fewer
		wantConflict(t, st, "c1", withCovered(first, append(ids(1, 3), "m5")...), second) // one ID other
		wantConflict(t, st, "c1", withCovered(first, append(ids(1, 4), "m4")...), second) // one ID more
		wantConflict(t, st, "c1", withCovered(first, "m2", "m1", "m3", "m4"), second)     // reordered
		wantConflict(t, st, "c1", withCovered(first, "m1m2", "m3", "m4"), second)         // joined
		wantConflict(t, st, "c1", withCovered(first, "m1", "m2", "m3", "m4", ""), second) // an empty ID more
		mustLoad(t, st, "c1", first)
	}},
	{"CoveredRoundTrips", func(t *testing.T, st recap.Store) {
		odd := recap.Summary{Text: "odd IDs", LastMessageID: "z", Covered: []string{
			"a,b", "c\nd", "with space", `"quoted"`, "[x]", "ünï/中", "", "a\x00b", "z",
		}}
		many := recap.Summary{Text: "many", LastMessageID: "id-9999", Covered: make([]string, 10000)}
		for i := range many.Covered {
			many.Covered[i] = fmt.Sprintf("id-%d", i)
		}
		mustSave(t, st, "odd", recap.Summary{}, odd)
		mustLoad(t, st, "odd", odd)
		mustSave(t, st, "many", recap.Summary{}, many)
		mustLoad(t, st, "many", many)
		mustSave(t, st, "odd", odd, withCovered(first))
		mustLoad(t, st, "odd", withCovered(first))
	}},
	{"ConflictComparesDigests", func(t *testing.T, st recap.Store) {
		// Only Digests differ from what is stored, so a Store that does
		// not keep them, or leaves them out of its comparison, fails here.
		mustSave(t, st, "c1", recap.Summary{}, first)
		d := first.Digests
		wantConflict(t, st, "c1", withDigests(first), second)                                                  // no Digests
		wantConflict(t, st, "c1", withDigests(first, d[:3]...), second)                                        // one digest fewer
		wantConflict(t, st, "c1", withDigests(first, append(d[:3:3], "ffffffff")...), second)                  // one digest other
		wantConflict(t, st, "c1", withDigests(first, append(d[:4:4], "")...), second)                          // an empty digest more
		wantConflict(t, st, "c1", withDigests(first, d[0], d[1][len(recap.ContextMark):], d[2], d[3]), second) // no context mark
		wantConflict(t, st, "c1", withDigests(first, d[1], d[0], d[2], d[3]), second)                          // reordered
		mustLoad(t, st, "c1", first)
		// A summary stored without Digests (saved before recap had them)
		// is not one with them.
		mustSave(t, st, "c2", recap.Summary{}, withDigests(first))
		wantConflict(t, st, "c2", first, second)
		mustSave(t, st, "c2", withDigests(first), second)
		mustLoad(t, st, "c2", second)
	}},
	{"DigestsRoundTrip", func(t *testing.T, st recap.Store) {
		odd := recap.Summary{Text: "odd digests", LastMessageID: "m5", Covered: ids(1, 5), Digests: []string{
			"", recap.ContextMark + "0a1b2c3d", "a,b", `"q"`, "ünï/中",
		}}
		short := withDigests(first, first.Digests[:2]...) // not as long as Covered: kept as it is
		many := recap.Summary{Text: "many", LastMessageID: "m10000", Covered: ids(1, 10000), Digests: digests(1, 10000)}
		for _, s := range []struct {
			chat string
			sum  recap.Summary
		}{{"odd", odd}, {"short", short}, {"many", many}} {
			mustSave(t, st, s.chat, recap.Summary{}, s.sum)
			mustLoad(t, st, s.chat, s.sum)
		}
		mustSave(t, st, "odd", odd, withDigests(odd)) // Digests removed
		mustLoad(t, st, "odd", withDigests(odd))
		mustSave(t, st, "odd", withDigests(odd), odd) // and back
		mustLoad(t, st, "odd", odd)
	}},
	{"NoSharedMemory", func(t *testing.T, st recap.Store) {
		s := recap.Summary{Text: first.Text, LastMessageID: first.LastMessageID,
			Covered: append([]string(nil), first.Covered...), Digests: append([]string(nil), first.Digests...)}
		mustSave(t, st, "c1", recap.Summary{}, s)
		s.Covered[0] = "changed by the caller after Save"
		s.Digests[0] = "changed by the caller after Save"
		mustLoad(t, st, "c1", first)
		got, err := st.Load(context.Background(), "c1")
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Covered) > 0 {
			got.Covered[0] = "changed by the caller after Load"
		}
		if len(got.Digests) > 0 {
			got.Digests[0] = "changed by the caller after Load"
		}
		mustLoad(t, st, "c1", first)
	}},
	{"ChatsAreIndependent", func(t *testing.T, st recap.Store) {
		mustSave(t, st, "c1", recap.Summary{}, first)
		mustSave(t, st, "c2", recap.Summary{}, second)
		mustSave(t, st, "c1", first, third)
		mustLoad(t, st, "c1", third)
		mustLoad(t, st, "c2", second)
		mustLoad(t, st, "c3", recap.Summary{})
	}},
	{"ValuesRoundTrip", func(t *testing.T, st recap.Store) {
		big := recap.Summary{
			Text:          "Ünïcödé, 中文, العربية, emoji 👩‍👩‍👧, quotes ' \" `, NUL-free\nnew lines\ttabs; " + strings.Repeat("long ", 20000),
			LastMessageID: "id with spaces/slashes:and'quotes\"",
		}
		mustSave(t, st, "chat with 'odd' id/🙂", recap.Summary{}, big)
		mustLoad(t, st, "chat with 'odd' id/🙂", big)
	}},
	{"CanceledContext", func(t *testing.T, st recap.Store) {
		mustSave(t, st, "c1", recap.Summary{}, first)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := st.Save(ctx, "c1", first, second)
		if err == nil {
			t.Fatalf("Save with a canceled context succeeded")
		}
		if errors.Is(err, recap.ErrConflict) {
			t.Errorf("Save with a canceled context = %v, must not match ErrConflict", err)
		}
		if _, err := st.Load(ctx, "c1"); err == nil {
			t.Errorf("Load with a canceled context succeeded")
		}
		mustLoad(t, st, "c1", first)
	}},
	{"RacingSavesOneWins", func(t *testing.T, st recap.Store) {
		mustSave(t, st, "c1", recap.Summary{}, first)
		var (
			wg        sync.WaitGroup
			start     = make(chan struct{})
			errs      = make([]error, Racers)
			summaries = make([]recap.Summary, Racers)
		)
		for i := 0; i < Racers; i++ {
			summaries[i] = recap.Summary{Text: fmt.Sprintf("summary by racer %d", i), LastMessageID: fmt.Sprintf("m%d", 100+i)}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				errs[i] = st.Save(context.Background(), "c1", first, summaries[i])
			}(i)
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Errorf("racers %d and %d both won", winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, recap.ErrConflict):
				t.Errorf("racer %d: Save = %v, want nil or ErrConflict", i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("no racer won")
		}
		mustLoad(t, st, "c1", summaries[winner])
	}},
	{"ConcurrentChats", func(t *testing.T, st recap.Store) {
		var wg sync.WaitGroup
		for i := 0; i < Racers; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				chat := fmt.Sprintf("chat-%d", i)
				prev := recap.Summary{}
				for j := 0; j < 5; j++ {
					next := recap.Summary{Text: fmt.Sprintf("%s summary %d", chat, j), LastMessageID: fmt.Sprintf("m%d", j)}
					if err := st.Save(context.Background(), chat, prev, next); err != nil {
						t.Errorf("%s: Save %d: %v", chat, j, err)
						return
					}
					prev = next
				}
			}(i)
		}
		wg.Wait()
		for i := 0; i < Racers; i++ {
			chat := fmt.Sprintf("chat-%d", i)
			mustLoad(t, st, chat, recap.Summary{Text: chat + " summary 4", LastMessageID: "m4"})
		}
	}},
}

func mustLoad(t *testing.T, st recap.Store, chat string, want recap.Summary) {
	t.Helper()
	got, err := st.Load(context.Background(), chat)
	if err != nil {
		t.Fatalf("Load(%q): %v", chat, err)
	}
	if !got.Equal(want) {
		t.Fatalf("Load(%q) = %+v, want %+v", chat, abbrev(got), abbrev(want))
	}
}

func mustSave(t *testing.T, st recap.Store, chat string, prev, next recap.Summary) {
	t.Helper()
	if err := st.Save(context.Background(), chat, prev, next); err != nil {
		t.Fatalf("Save(%q, %+v, %+v): %v", chat, abbrev(prev), abbrev(next), err)
	}
}

func wantConflict(t *testing.T, st recap.Store, chat string, prev, next recap.Summary) {
	t.Helper()
	err := st.Save(context.Background(), chat, prev, next)
	if !errors.Is(err, recap.ErrConflict) {
		t.Fatalf("Save(%q, %+v, %+v) = %v, want ErrConflict", chat, abbrev(prev), abbrev(next), err)
	}
}

// abbrev shortens a summary's text for a failure message.
func abbrev(s recap.Summary) recap.Summary {
	if len(s.Text) > 80 {
		s.Text = s.Text[:80] + fmt.Sprintf("...(%d bytes)", len(s.Text))
	}
	if len(s.Covered) > 8 {
		s.Covered = append(s.Covered[:4:4], fmt.Sprintf("...(%d IDs)", len(s.Covered)))
	}
	if len(s.Digests) > 8 {
		s.Digests = append(s.Digests[:4:4], fmt.Sprintf("...(%d digests)", len(s.Digests)))
	}
	return s
}
