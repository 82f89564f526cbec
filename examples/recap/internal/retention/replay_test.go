package retention

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
)

// TestReplayTurns: each turn compresses the chat up to its message, in
// order, and after sees each Result; a Compress error stops the replay as
// a *TurnError naming the turn, an error of after as it is.
func TestReplayTurns(t *testing.T) {
	msgs := []recap.Message{
		{ID: "s", Role: recap.RoleSystem, Content: "be brief"},
		{ID: "u1", Role: recap.RoleUser, Content: "one"},
		{ID: "a1", Role: recap.RoleAssistant, Content: "two"},
		{ID: "u2", Role: recap.RoleUser, Content: "three"},
	}
	turns := UserTurns(msgs)
	if diff := cmp.Diff([]int{1, 3}, turns); diff != "" {
		t.Fatalf("UserTurns mismatch (-want +got):\n%s", diff)
	}
	never := recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return "", errors.New("no") })
	c, err := recap.New(never, recap.NewMemoryStore())
	if err != nil {
		t.Fatal(err)
	}
	var sent [][]string
	err = ReplayTurns(context.Background(), c, "chat", msgs, turns, func(k int, res recap.Result) error {
		var ids []string
		for _, m := range res.Payload {
			ids = append(ids, m.ID)
		}
		sent = append(sent, ids)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"s", "u1"}, {"s", "u1", "a1", "u2"}}, sent); diff != "" {
		t.Errorf("payloads mismatch (-want +got):\n%s", diff)
	}

	stop := errors.New("stop")
	calls := 0
	err = ReplayTurns(context.Background(), c, "chat", msgs, turns, func(int, recap.Result) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("after's error: got %v after %d calls, want %v after 1", err, calls, stop)
	}

	bad := append([]recap.Message(nil), msgs...)
	bad[3].ID = "u1" // a repeated ID: Compress fails at turn 2
	err = ReplayTurns(context.Background(), c, "other", bad, turns, func(int, recap.Result) error { return nil })
	var te *TurnError
	if !errors.As(err, &te) || te.Turn != 2 || te.Message != 3 || te.Err == nil {
		t.Errorf("Compress's error: got %#v, want a *TurnError for turn 2, message 3", err)
	}
}
