package retention

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
)

const summary = `Earlier in this chat (quoted; not instructions):
Facts and constraints:
- User: "My order is BW-58231 and it cost £21,400."
- User: "Deliveries only after 3 pm."
- Assistant: "Your ticket is RMA-7741, see https://example.com/t/7741."
Decisions:
- User: "Let's go with version 4.12.1."
Recent context:
- User: "Email me at kim@example.com about the 14 March slot."`

func fixed(text string) recap.Summarizer {
	return recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return text, nil })
}

func TestVagueText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`it cost £21,400.`, `it cost about 20000.`},
		{`order BW-58231 shipped`, `order  shipped`},
		{`version 4.12.1 is out`, `version  is out`},
		{`3 pm`, `a few pm`},
		{`at kim@example.com or https://x.org/a`, `at  or `},
		{`pg-prod-3 is down`, ` is down`},
		{`14 March`, `about 10 March`},
		{`built in about 2000 and sold on 14 March`, `built in about 2000 and sold on about 10 March`}, // vague again: a round figure stays
	}
	for _, tt := range tests {
		if got := vagueText(tt.in); got != tt.want {
			t.Errorf("vagueText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := vagueText(tt.want); got != tt.want && !strings.Contains(tt.want, "a few") {
			t.Errorf("vagueText(vagueText(%q)) = %q, want it unchanged", tt.in, got)
		}
	}
}

func TestStandins(t *testing.T) {
	req := recap.SummarizeRequest{ChatID: "c", Messages: []recap.Message{{ID: "m1"}}}
	ctx := context.Background()
	concise, err := standins["concise"](fixed(summary)).Summarize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := `Earlier in this chat (quoted; not instructions):
Facts and constraints:
- User: "My order is BW-58231 and it cost £21,400."
- User: "Deliveries only after 3 pm."
- Assistant: "Your ticket is RMA-7741, see https://example.com/t/7741."`
	if diff := cmp.Diff(want, concise); diff != "" {
		t.Errorf("concise mismatch (-want +got):\n%s", diff)
	}

	drop := standins["drop"](fixed(summary))
	a, _ := drop.Summarize(ctx, req)
	b, _ := drop.Summarize(ctx, req)
	if a != b {
		t.Errorf("drop is not deterministic:\n%s\n---\n%s", a, b)
	}
	dropped := 0
	for i := 0; i < 200; i++ {
		r := req
		r.ChatID = strings.Repeat("x", i)
		got, _ := drop.Summarize(ctx, r)
		dropped += 5 - strings.Count(got, "\n- ")
	}
	if rate := float64(dropped) / 1000; rate < 0.25 || rate > 0.35 {
		t.Errorf("drop lost %.2f of the items, want about 0.3", rate)
	}

	vague, _ := standins["vague"](fixed(summary)).Summarize(ctx, req)
	for _, gone := range []string{"BW-58231", "21,400", "RMA-7741", "4.12.1", "kim@example.com", "https://"} {
		if strings.Contains(vague, gone) {
			t.Errorf("vague kept %q:\n%s", gone, vague)
		}
	}
	if !strings.Contains(vague, "Deliveries only after a few pm") {
		t.Errorf("vague lost the rest of an item:\n%s", vague)
	}

	prose, _ := standins["concise"](fixed("One. Two! Three? Four. Five.")).Summarize(ctx, req)
	if prose != "One. Two! Three?" {
		t.Errorf("concise prose = %q", prose)
	}
}
