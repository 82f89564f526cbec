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
