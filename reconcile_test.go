package recap

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReconcile pins each case of reconcileCases: a request and the
// summary in force, the case that decides and what it decides.
func TestReconcile(t *testing.T) {
	u := func(id string) Message { return Message{ID: id, Role: RoleUser, Content: "question " + id} }
	a := func(id string) Message { return Message{ID: id, Role: RoleAssistant, Content: "answer " + id} }
	sum := Summary{Text: "the summary", LastMessageID: "a2", Covered: []string{"u1", "a1", "u2", "a2"}}
	echo := Message{ID: SummaryIDPrefix + "a2", Role: RoleSystem, Content: "the summary"}
	chat := []Message{u("u1"), a("u1"), u("u2"), a("a2"), u("u3"), a("a3"), u("u4")}
	chat[1].ID = "a1"
	// A turn compacted by WithMaxTurnTokens: the request u3 and its steps
	// s1, s2; the summary covers the request and s1.
	turnSum := Summary{Text: "the summary", LastMessageID: "s1", Covered: []string{"u1", "a1", "u3", "s1"}}
	turnChat := []Message{u("u1"), a("a1"), u("u3"), a("s1"), a("s2")}
	idless := ChainIDs([]Message{{Role: RoleUser, Content: "q1", Format: FormatOpenAI}, {Role: RoleAssistant, Content: "a1", Format: FormatOpenAI},
		{Role: RoleUser, Content: "q2", Format: FormatOpenAI}, {Role: RoleAssistant, Content: "a2", Format: FormatOpenAI}})
	idSum := Summary{Text: "s", LastMessageID: idless[1].ID, Covered: []string{idless[0].ID, idless[1].ID}}
	// The same chat echoed: the summary in place of q1, a1 changes the
	// chains of q2 and a2, not their content keys.
	echoed := ChainIDs([]Message{{Role: RoleSystem, Content: "s", Format: FormatOpenAI}, {Role: RoleUser, Content: "q2", Format: FormatOpenAI},
		{Role: RoleAssistant, Content: "a2", Format: FormatOpenAI}, {Role: RoleUser, Content: "q3", Format: FormatOpenAI}})
	// A summary saved from the echoed payload covers q2 and a2 under
	// their echoed chains; the full history sent next has other ones.
	mixedSum := Summary{Text: "s", LastMessageID: echoed[2].ID, Covered: []string{idless[0].ID, idless[1].ID, echoed[1].ID, echoed[2].ID}}
	full := ChainIDs(append(append([]Message(nil), idless...), Message{Role: RoleUser, Content: "q3", Format: FormatOpenAI}))
	idSumLater := Summary{Text: "s", LastMessageID: idless[3].ID, Covered: []string{idless[0].ID, idless[1].ID, idless[2].ID, idless[3].ID}}

	tests := []struct {
		name    string
		msgs    []Message
		s       Summary
		turn    int
		echoEnd int
		want    reconciliation
	}{
		{"by ID", chat, sum, 6, -1, reconciliation{rule: "boundary or echo before the current turn", boundary: 3, inTurn: -1}},
		{"by echo", append([]Message{echo}, chat[4:]...), sum, 3, 0, reconciliation{rule: "boundary or echo before the current turn", boundary: 0, inTurn: -1}},
		{"compacted turn, a later step", turnChat, turnSum, 2, -1, reconciliation{rule: "boundary inside the current turn", boundary: 3, inTurn: 3}},
		{"compacted turn, no later step", turnChat[:4], turnSum, 2, -1, reconciliation{rule: "compacted turn already covered", boundary: -1, inTurn: -1, older: true}},
		{"by echo without IDs", echoed, idSum, 3, 0, reconciliation{rule: "boundary or echo before the current turn", boundary: 0, inTurn: -1}},
		{"by content", full, mixedSum, 4, -1, reconciliation{rule: "walked by content", boundary: 3, inTurn: -1}},
		{"older snapshot", idless[:3], idSumLater, 2, -1, reconciliation{rule: "walked by content", boundary: -1, inTurn: -1, older: true}},
		{"edited", []Message{u("u1"), a("a1"), u("u2"), a("a2-edited"), u("u3")}, sum, 4, -1, reconciliation{rule: "stale", boundary: -1, inTurn: -1, stale: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := index(tt.msgs)
			if err != nil {
				t.Fatal(err)
			}
			got := reconcile(request{msgs: ch.msgs, ix: ch.ix, s: tt.s, turn: tt.turn, echoEnd: tt.echoEnd})
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(reconciliation{})); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEchoOnlyInPlace: without IDs, the summary's text is an echo only in
// the summary's place; a user who says the same later (a one-word summary)
// or pastes the summary mid-chat sends an ordinary message, which stays in
// the payload, and nothing between is lost.
func TestEchoOnlyInPlace(t *testing.T) {
	for _, summary := range []string{"Yes.", "Summary so far: the user wants a refund for order BW-58231."} {
		t.Run(summary, func(t *testing.T) {
			ctx := context.Background()
			sum := SummarizerFunc(func(context.Context, SummarizeRequest) (string, error) { return summary, nil })
			c := mustNew(t, sum, NewMemoryStore(), WithTriggerTokens(8), WithWindowConversations(1))
			m := func(r Role, text string) Message { return Message{Role: r, Content: text, Format: FormatOpenAI} }
			chat := []Message{m(RoleSystem, "You help with orders."),
				m(RoleUser, "my order arrived broken"), m(RoleAssistant, "sorry, which order is it"),
				m(RoleUser, "order BW-58231, bought in May"), m(RoleAssistant, "thanks, I will look it up")}
			res, err := c.Compress(ctx, "c", append(chat, m(RoleUser, "any news")))
			if err != nil || !res.Summarized {
				t.Fatalf("first turn: %v, summarized %v", err, res.Summarized)
			}
			// Later turns: the user says the summary's text, then more
			// follows. The full history is sent each time.
			chat = append(chat, m(RoleUser, "any news"), m(RoleAssistant, "the courier has it"),
				m(RoleUser, summary), m(RoleAssistant, "noted"), m(RoleUser, "when does it arrive"))
			p, err := c.Plan(chat, res.Summary)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Echoed) != 0 || p.Stale {
				t.Fatalf("the user's message was taken for an echo: Echoed %d, Stale %v", len(p.Echoed), p.Stale)
			}
			res2, err := c.Compress(ctx, "c", chat)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, pm := range res2.Payload {
				seen[pm.Content]++
			}
			covered := len(res2.Summary.Covered)
			for _, msg := range chat[1:] {
				if seen[msg.Content] == 0 && covered == 0 {
					t.Errorf("message %q is in neither the payload nor the summary", msg.Content)
				}
			}
			if n := seen[summary]; n < 1 && !res2.Summarized {
				t.Errorf("the user's message %q is not in the payload:\n%v", summary, res2.Payload)
			}
		})
	}
}
