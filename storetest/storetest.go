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

	"github.com/recapgo/recap"
)

// Racers is how many goroutines the concurrency check sets racing on one
// Save.
const Racers = 50

// Run runs the conformance suite as subtests of t. newStore must return an
// empty Store each time it is called; Run calls it once per subtest.
func Run(t *testing.T, newStore func(t *testing.T) recap.Store) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, newStore(t))
		})
	}
}

var (
	first  = recap.Summary{Text: "The user planned a trip to Paris.", LastMessageID: "m4"}
	second = recap.Summary{Text: "The user planned a trip to Paris, then Rome.", LastMessageID: "m8"}
	third  = recap.Summary{Text: "Paris, Rome, and a booked train.", LastMessageID: "m12"}
)

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
	if got != want {
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
	return s
}
