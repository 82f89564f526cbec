package recap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// agentChat returns a user message and n tool calls, each followed by its
// result of size words (in OpenAI form: an assistant tool call, a tool
// message), then the user's next question.
func agentChat(n, size int, tool func(i int) string) []Message {
	msgs := []Message{{ID: "u1", Role: RoleUser, Content: "investigate the outage"}}
	for i := 1; i <= n; i++ {
		cid := fmt.Sprint("call", i)
		msgs = append(msgs,
			Message{ID: fmt.Sprint("a", i), Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: cid, ToolName: tool(i), Input: json.RawMessage(`{"q":1}`)}}},
			Message{ID: fmt.Sprint("t", i), Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: cid, ToolName: tool(i),
				Output: json.RawMessage(fmt.Sprintf("%q", strings.Repeat(fmt.Sprintf("r%d ", i), size)))}}})
	}
	return append(msgs, Message{ID: "a-end", Role: RoleAssistant, Content: "found it"}, Message{ID: "u2", Role: RoleUser, Content: "and now?"})
}

func TestToolResultClearing(t *testing.T) {
	logs := func(int) string { return "logs" }
	tests := []struct {
		name    string
		reason  string
		chat    []Message
		opts    []Option
		cleared []string // call IDs
	}{
		{"Batch", "older results than the 2 kept, over 10 tokens: 9 eligible, cleared in whole batches of 4",
			agentChat(11, 50, logs), []Option{WithToolResultClearing(2, 10)}, ids8("call", 1)},
		{"BelowBatch", "3 eligible: fewer than a batch, nothing cleared yet",
			agentChat(5, 50, logs), []Option{WithToolResultClearing(2, 10)}, nil},
		{"Small", "results of minTokens or fewer stay whole",
			agentChat(11, 5, logs), []Option{WithToolResultClearing(2, 10)}, nil},
		{"Exempt", "results of exempt tools stay whole and do not count toward a batch",
			agentChat(11, 50, func(i int) string {
				if i%2 == 0 {
					return "memory"
				}
				return "logs"
			}), []Option{WithToolResultClearing(2, 10, "memory")}, []string{"call1", "call3", "call5", "call7"}},
		{"KeepAll", "keep as many as there are: nothing cleared",
			agentChat(6, 50, logs), []Option{WithToolResultClearing(6, 0)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustNew(t, &recorder{}, NewMemoryStore(), append([]Option{WithTriggerTokens(100000)}, tt.opts...)...)
			res, err := c.Compress(context.Background(), "c", tt.chat)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			saved := 0
			for _, r := range res.Cleared {
				got = append(got, r.CallID)
				saved += r.Saved
				if r.Tokens <= 10 || r.Saved <= 0 || r.ToolName != "logs" {
					t.Errorf("%s: cleared %+v", tt.reason, r)
				}
			}
			if diff := cmp.Diff(tt.cleared, got); diff != "" {
				t.Fatalf("%s: cleared calls (-want +got):\n%s", tt.reason, diff)
			}
			// The payload counts the cleared sizes; each cleared result is
			// a placeholder in the same part, its call still before it.
			full, _ := c.Plan(tt.chat, Summary{})
			if want := c.planTokens(full); res.PayloadTokens != want {
				t.Errorf("%s: PayloadTokens %d, the plan counts %d", tt.reason, res.PayloadTokens, want)
			}
			if len(tt.cleared) > 0 && res.PayloadTokens+saved != c.tokens(nil, tt.chat) {
				t.Errorf("%s: %d tokens sent + %d saved != %d in the chat", tt.reason, res.PayloadTokens, saved, c.tokens(nil, tt.chat))
			}
			if id := orphanResult(res.Payload); id != "" {
				t.Errorf("%s: orphan result %s", tt.reason, id)
			}
			for _, m := range res.Payload {
				for _, p := range m.Parts {
					text := m.Text()
					cleared := strings.Contains(text, "was cleared to save context")
					if p.Type == PartToolResult && cleared != contains(tt.cleared, p.ToolCallID) {
						t.Errorf("%s: %s reads %q", tt.reason, m.ID, text)
					}
				}
			}
		})
	}
}

func ids8(prefix string, from int) []string {
	var out []string
	for i := from; i < from+8; i++ {
		out = append(out, fmt.Sprint(prefix, i))
	}
	return out
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// TestToolResultClearingBatchesAreStable: as an agent loop grows by one
// result a turn, the cleared set changes once every DefaultClearBatch
// results, so the payload's prefix (and a prompt cache) holds in between.
func TestToolResultClearingBatchesAreStable(t *testing.T) {
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(100000), WithToolResultClearing(1, 10))
	changes, prev := 0, -1
	for n := 1; n <= 30; n++ {
		res, err := c.Compress(context.Background(), "c", agentChat(n, 40, func(int) string { return "logs" }))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Cleared)%DefaultClearBatch != 0 {
			t.Fatalf("%d results: %d cleared, not whole batches", n, len(res.Cleared))
		}
		if len(res.Cleared) != prev {
			changes++
			prev = len(res.Cleared)
		}
	}
	if want := 1 + (30-1)/DefaultClearBatch; changes != want {
		t.Fatalf("the cleared set changed %d times over 30 results, want %d", changes, want)
	}
}

// TestToolResultClearingBeforeTrigger: clearing makes the part to
// summarize small enough that the trigger does not fire, and the
// Summarizer, when it does run, gets full outputs.
func TestToolResultClearingBeforeTrigger(t *testing.T) {
	chat := agentChat(12, 60, func(int) string { return "logs" })
	chat = append(chat, Message{ID: "a-last", Role: RoleAssistant, Content: "ok"}, Message{ID: "u3", Role: RoleUser, Content: "thanks"})
	without := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(400))
	with := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(400), WithToolResultClearing(2, 10))
	p1, _ := without.Plan(chat, Summary{})
	p2, _ := with.Plan(chat, Summary{})
	if !p1.Trigger || p2.Trigger {
		t.Fatalf("trigger without clearing %v (%d tokens), with clearing %v (%d tokens); want it to fire only without", p1.Trigger, p1.Tokens, p2.Trigger, p2.Tokens)
	}
	var got []Message
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		got = append(got, req.Messages...)
		return "summary", nil
	})
	c := mustNew(t, sum, NewMemoryStore(), WithTriggerTokens(50), WithToolResultClearing(2, 10))
	res, err := c.Compress(context.Background(), "c", chat)
	if err != nil || !res.Summarized {
		t.Fatalf("err %v, summarized %v", err, res.Summarized)
	}
	for _, m := range got {
		if strings.Contains(m.Text(), "was cleared") {
			t.Fatalf("the Summarizer got a placeholder in %s", m.ID)
		}
	}
}

// TestToolResultClearingOverCeiling: a payload over WithMaxPayloadTokens
// whose eligible results are fewer than a batch gets them cleared before
// anything else is given up: the summary stays, and ErrBudget comes only
// when even the cleared turn does not fit.
func TestToolResultClearingOverCeiling(t *testing.T) {
	turn := agentChat(5, 50, func(int) string { return "logs" }) // one turn: 3 eligible results
	turn = turn[:len(turn)-1]
	turn[0].ID = "u2"
	chat := append([]Message{{ID: "u1", Role: RoleUser, Content: "hello"}, {ID: "a0", Role: RoleAssistant, Content: "hi"}}, turn...)
	existing := Summary{Text: "the user greeted", LastMessageID: "a0", Covered: []string{"u1", "a0"}}
	probe := mustNew(t, &recorder{}, NewMemoryStore(), WithToolResultClearing(2, 10))
	p, err := probe.Plan(chat, existing)
	if err != nil || len(p.Cleared) != 0 {
		t.Fatalf("plan: %v, cleared %v: want none, fewer than a batch", err, p.Cleared)
	}
	rest := probe.clearable(p, false)
	if len(rest) != 3 {
		t.Fatalf("%d results eligible, want 3", len(rest))
	}
	alone := probe.tokens(nil, applyClearing(p.Turn, rest)) // the smallest payload
	fits := probe.tokens(p.SummaryMessage, nil) + alone
	tests := []struct {
		name    string
		ceiling int
		summary bool // the summary message stays
		err     error
	}{
		{"Fits", fits, true, nil},
		{"WithoutSummary", fits - 1, false, nil},
		{"Over", alone - 1, false, ErrBudget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := NewMemoryStore()
			if err := st.Save(context.Background(), "c", Summary{}, existing); err != nil {
				t.Fatal(err)
			}
			c := mustNew(t, &recorder{}, st, WithToolResultClearing(2, 10), WithMaxPayloadTokens(tt.ceiling))
			res, err := c.Compress(context.Background(), "c", chat)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			var got []string
			for _, r := range res.Cleared {
				got = append(got, r.CallID)
			}
			if diff := cmp.Diff([]string{"call1", "call2", "call3"}, got); diff != "" {
				t.Fatalf("cleared (-want +got):\n%s", diff)
			}
			if m := c.Measure(res.Payload); m != res.PayloadTokens {
				t.Fatalf("PayloadTokens %d, the payload measures %d", res.PayloadTokens, m)
			}
			if tt.err == nil && res.PayloadTokens > tt.ceiling {
				t.Fatalf("payload %v of %d tokens, over %d", ids(res.Payload), res.PayloadTokens, tt.ceiling)
			}
			if kept := strings.HasPrefix(res.Payload[0].ID, SummaryIDPrefix); kept != tt.summary {
				t.Fatalf("payload %v: summary kept %v, want %v", ids(res.Payload), kept, tt.summary)
			}
			for _, m := range res.Payload {
				if m.Role == RoleTool && strings.Contains(m.Text(), "was cleared") != contains(got, m.Parts[0].ToolCallID) {
					t.Fatalf("%s reads %q", m.ID, m.Text())
				}
			}
			if id := orphanResult(res.Payload); id != "" {
				t.Fatalf("orphan result %s", id)
			}
		})
	}
}

// TestToolResultClearingFormats: the placeholder stays in the chat's own
// format: an OpenAI tool message's content string, an AI SDK part's output.
func TestToolResultClearingFormats(t *testing.T) {
	var chat []Message
	raw := `[{"role":"user","content":"go"}`
	for i := 1; i <= 5; i++ {
		raw += fmt.Sprintf(`,{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"fetch","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c%d","content":"{\"rows\": \"%s\"}"}`, i, i, strings.Repeat("x ", 40))
	}
	raw += `,{"role":"user","content":"next"}]`
	if err := json.Unmarshal([]byte(raw), &chat); err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(100000), WithToolResultClearing(1, 5))
	res, err := c.Compress(context.Background(), "c", ChainIDs(chat))
	if err != nil || len(res.Cleared) != 4 {
		t.Fatalf("err %v, cleared %d", err, len(res.Cleared))
	}
	out, _ := json.Marshal(res.Payload)
	var wire []map[string]any
	json.Unmarshal(out, &wire)
	if content := fmt.Sprint(wire[2]["content"]); !strings.HasPrefix(content, `[recap: the output of fetch (call c1, 41 tokens) was cleared to save context; ref `) || wire[2]["tool_call_id"] != "c1" {
		t.Fatalf("cleared OpenAI tool message: %v", wire[2])
	}
	if !strings.Contains(fmt.Sprint(wire[10]["content"]), "rows") {
		t.Fatalf("the kept result: %v", wire[10])
	}

	ui := []Message{{ID: "u1", Role: RoleUser, Format: FormatUI, Parts: []Part{{Type: PartText, Text: "go"}}}}
	for i := 1; i <= 5; i++ {
		ui = append(ui, Message{ID: fmt.Sprint("a", i), Role: RoleAssistant, Format: FormatUI, Parts: []Part{{Type: "tool-fetch", ToolCallID: fmt.Sprint("c", i), State: "output-available",
			Input: json.RawMessage(`{}`), Output: json.RawMessage(fmt.Sprintf(`{"rows":%q}`, strings.Repeat("x ", 40)))}}})
	}
	ui = append(ui, Message{ID: "u2", Role: RoleUser, Format: FormatUI, Parts: []Part{{Type: PartText, Text: "next"}}})
	res, err = c.Compress(context.Background(), "ui", ui)
	if err != nil || len(res.Cleared) != 4 {
		t.Fatalf("UI: err %v, cleared %d", err, len(res.Cleared))
	}
	out, _ = json.Marshal(res.Payload[1])
	if !strings.Contains(string(out), `"type":"tool-fetch","state":"output-available","toolCallId":"c1","input":{},"output":"[recap: the output of fetch (call c1, 41 tokens) was cleared to save context]"`) {
		t.Fatalf("cleared UI part: %s", out)
	}
}
