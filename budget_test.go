package recap

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompressBudget(t *testing.T) {
	chat := append([]Message{{ID: "sys", Role: RoleSystem, Content: "be brief"}}, conversation(5)...)
	boom := errors.New("down")
	failing := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) { return "", boom })
	tests := []struct {
		name    string
		reason  string
		budget  int
		want    []string
		dropped []string
		wantErr error
	}{
		{"Fits", "within budget nothing is dropped", 1000,
			[]string{"sys", "u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4", "u5", "a5", "u6"}, nil, nil},
		{"DropOldest", "the oldest conversations go first, whole", 45,
			[]string{"sys", "u4", "a4", "u5", "a5", "u6"}, []string{"u1", "a1", "u2", "a2", "u3", "a3"}, nil},
		{"OnlyTurn", "at the limit only the pinned prompt and the turn stay", 5,
			[]string{"sys", "u6"}, []string{"u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4", "u5", "a5"}, nil},
		{"Impossible", "pinned and turn alone over budget is ErrBudget", 4,
			[]string{"sys", "u6"}, []string{"u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4", "u5", "a5"}, ErrBudget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustNew(t, failing, NewMemoryStore(), WithTriggerTokens(10), WithMaxPayloadTokens(tt.budget))
			res, err := c.Compress(context.Background(), "c", chat)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("%s: err = %v, want %v", tt.reason, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, ids(res.Payload)); diff != "" {
				t.Errorf("%s: payload (-want +got):\n%s", tt.reason, diff)
			}
			if diff := cmp.Diff(tt.dropped, ids(res.Dropped), cmpEmpty); diff != "" {
				t.Errorf("%s: dropped (-want +got):\n%s", tt.reason, diff)
			}
			if tt.wantErr == nil && res.PayloadTokens > tt.budget {
				t.Errorf("%s: %d tokens over the budget of %d", tt.reason, res.PayloadTokens, tt.budget)
			}
		})
	}
}

// TestCompressBudgetDropsSummaryLast: the summary goes only after every
// conversation between it and the turn.
func TestCompressBudgetDropsSummaryLast(t *testing.T) {
	mem := NewMemoryStore()
	long := Summary{Text: strings.Repeat("context ", 30), LastMessageID: "a2"}
	if err := mem.Save(context.Background(), "c", Summary{}, long); err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, &recorder{}, mem, WithTriggerTokens(1000), WithMaxPayloadTokens(25))
	res, err := c.Compress(context.Background(), "c", conversation(4))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{SummaryIDPrefix + "a2", "u3", "a3", "u4", "a4"}, ids(res.Dropped)); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	if got, _ := mem.Load(context.Background(), "c"); !got.Equal(long) {
		t.Errorf("dropping changed the store: %+v", got)
	}
}

// TestWithReservedTokens: payloads fit the ceiling less what is reserved,
// the trigger is not changed, and New rejects a reservation without a
// ceiling or not below it.
func TestWithReservedTokens(t *testing.T) {
	ctx := context.Background()
	chat := conversation(20)
	for _, tt := range []struct{ ceiling, reserved int }{{200, 0}, {200, 50}, {200, 120}, {400, 300}} {
		// The Summarizer fails, so only the ceiling bounds the payload.
		c := mustNew(t, &recorder{fail: errors.New("down")}, NewMemoryStore(), WithTriggerTokens(1000),
			WithMaxPayloadTokens(tt.ceiling), WithReservedTokens(tt.reserved))
		res, err := c.Compress(ctx, "c", chat)
		if err != nil {
			t.Fatal(err)
		}
		if budget := tt.ceiling - tt.reserved; res.PayloadTokens > budget || res.PayloadTokens < budget-30 {
			t.Errorf("ceiling %d, reserved %d: payload %d tokens", tt.ceiling, tt.reserved, res.PayloadTokens)
		}
		if res.Tokens != mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(1000)).tokens(nil, chat[:len(chat)-3]) {
			t.Errorf("reserving changed what the trigger measures: %d", res.Tokens)
		}
	}
	// The trigger fires as without a reservation.
	a := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(100), WithMaxPayloadTokens(500), WithReservedTokens(300))
	b := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(100), WithMaxPayloadTokens(500))
	pa, _ := a.Plan(chat, Summary{})
	pb, _ := b.Plan(chat, Summary{})
	if pa.Trigger != pb.Trigger || pa.Tokens != pb.Tokens {
		t.Errorf("plans differ: %v %d, %v %d", pa.Trigger, pa.Tokens, pb.Trigger, pb.Tokens)
	}
	// ErrBudget names the reservation.
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithMaxPayloadTokens(100), WithReservedTokens(99))
	if _, err := c.Compress(ctx, "c", chat); !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "99 reserved") {
		t.Errorf("err = %v, want ErrBudget naming the reservation", err)
	}
	for _, opts := range [][]Option{
		{WithReservedTokens(-1)},
		{WithReservedTokens(10)},
		{WithMaxPayloadTokens(100), WithReservedTokens(100)},
	} {
		if _, err := New(&recorder{}, NewMemoryStore(), opts...); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("New: err = %v, want ErrInvalidOption", err)
		}
	}
}
