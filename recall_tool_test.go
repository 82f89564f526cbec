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

func TestRecallToolSchema(t *testing.T) {
	var schema struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
			Minimum     *int   `json:"minimum"`
			Maximum     *int   `json:"maximum"`
		} `json:"properties"`
		Required             []string `json:"required"`
		AdditionalProperties *bool    `json:"additionalProperties"`
	}
	raw := RecallToolSchema()
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	q, k := schema.Properties["query"], schema.Properties["k"]
	switch {
	case schema.Type != "object" || len(schema.Properties) != 2:
		t.Errorf("schema %s: want an object of two properties", raw)
	case q.Type != "string" || q.Description == "":
		t.Errorf("query %+v: want a described string", q)
	case k.Type != "integer" || k.Minimum == nil || *k.Minimum != 1 || k.Maximum == nil || *k.Maximum != MaxRecallToolResults || !strings.Contains(k.Description, fmt.Sprint(DefaultRecallResults)):
		t.Errorf("k %+v: want an integer from 1 to %d, its default described", k, MaxRecallToolResults)
	case !cmp.Equal(schema.Required, []string{"query"}) || schema.AdditionalProperties == nil || *schema.AdditionalProperties:
		t.Errorf("schema %s: want query required, nothing else allowed", raw)
	}
	raw[0] = 'x'
	if RecallToolSchema()[0] != '{' {
		t.Error("RecallToolSchema returned a shared slice")
	}
	if RecallToolName == "" || !strings.Contains(RecallHint, RecallToolName) || RecallToolDescription == "" {
		t.Error("the tool's name, hint and description must be set, and the hint must name the tool")
	}
}

// TestAnswerRecall: the text the model reads for each call, right or
// wrong.
func TestAnswerRecall(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStore()
	if err := st.Save(ctx, "chat", Summary{}, recallSummary); err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, SummarizerFunc(noSummary), st, WithTriggerTokens(10_000))
	const want = `"k" must be a whole number from 1 to 10; got `
	tests := []struct {
		name, input string
		want        string
		part        bool // want is a part of the answer
	}{
		{"found", `{"query":"INC-20931","k":1}`, "Found 1 passage in the earlier messages for \"INC-20931\", most relevant first:\n\n" +
			"[1] assistant, message 3 of 14:\nUnderstood: version 4.12.3, failures since 14:05, ticket INC-20931. Let's look at the ledger service first.", false},
		{"default k", `{"query":"INC-20931"}`, "Found 2 passages in the earlier messages for \"INC-20931\", most relevant first:\n\n" +
			"[1] assistant, message 3 of 14:\nUnderstood: version 4.12.3, failures since 14:05, ticket INC-20931. Let's look at the ledger service first.\n\n" +
			"[2] user, message 2 of 14:\nOur payments gateway 4.12.3 was deployed at 11:30; since 14:05 checkout fails. Ticket INC-20931.", false},
		{"k as a string", `{"query":"INC-20931","k":"1"}`, "Found 1 passage", true},
		{"k as a float", `{"query":"INC-20931","k":1.0}`, "Found 1 passage", true},
		{"k null", `{"query":"INC-20931","k":null}`, "Found 2 passages", true},
		{"nothing", `{"query":"zebra"}`, `Nothing in the earlier messages matches "zebra".`, false},
		{"not in the payload", `{"query":"rolling back"}`, `Nothing in the earlier messages matches "rolling back".`, false},
		{"not JSON", `query: INC`, `recall: the arguments must be a JSON object with a "query" string and an optional "k" number, such as {"query": "invoice number", "k": 3}; got query: INC.`, false},
		{"no query", `{"q":"INC"}`, `recall: the arguments must be a JSON object with a "query" string and an optional "k" number, such as {"query": "invoice number", "k": 3}; "query" is missing or not a string.`, false},
		{"query not a string", `{"query":42}`, `"query" is missing or not a string.`, true},
		{"empty query", `{"query":" ? "}`, "recall: the query has no words to search for; ask for the names, numbers or key words of the detail.", false},
		{"k zero", `{"query":"x","k":0}`, want + "0.", true},
		{"k too large", `{"query":"x","k":11}`, want + "11.", true},
		{"k fraction", `{"query":"x","k":2.5}`, want + "2.5.", true},
		{"k not a number", `{"query":"x","k":"three"}`, want + `"three".`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.AnswerRecall(ctx, "chat", recallChat(), json.RawMessage(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			if (tc.part && !strings.Contains(got, tc.want)) || (!tc.part && got != tc.want) {
				t.Errorf("AnswerRecall(%s) =\n%s\nwant (part %v)\n%s", tc.input, got, tc.part, tc.want)
			}
		})
	}

	if _, err := c.AnswerRecall(ctx, "chat", nil, json.RawMessage(`{"query":"x"}`)); !errors.Is(err, ErrNoMessages) {
		t.Errorf("no messages: %v, want ErrNoMessages", err)
	}
	failing := mustNew(t, SummarizerFunc(noSummary), &failingStore{loadErr: errors.New("down")})
	if _, err := failing.AnswerRecall(ctx, "chat", recallChat(), json.RawMessage(`{"query":"x"}`)); err == nil {
		t.Error("failing Store: no error")
	}
}

// TestRecallHint: the hint follows the summary in the payload only, and an
// echo of the summary message is recognized with it, or without it (a
// payload made before the option).
func TestRecallHint(t *testing.T) {
	ctx := context.Background()
	if _, err := New(nil, nil, WithRecallHint(" \n")); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("blank hint: %v, want ErrInvalidOption", err)
	}
	rec := &recorder{}
	st := NewMemoryStore()
	c := mustNew(t, rec, st, WithTriggerTokens(25), WithRecallHint(RecallHint))
	res, err := c.Compress(ctx, "c", conversation(4))
	if err != nil || !res.Summarized {
		t.Fatalf("Compress = %+v, %v", res, err)
	}
	var sm Message
	for _, m := range res.Payload {
		if strings.HasPrefix(m.ID, SummaryIDPrefix) {
			sm = m
		}
	}
	if want := res.Summary.Text + "\n\n" + RecallHint; sm.Content != want {
		t.Errorf("summary message %q, want %q", sm.Content, want)
	}
	stored, _ := st.Load(ctx, "c")
	if strings.Contains(stored.Text, RecallHint) || strings.Contains(res.Summary.Text, RecallHint) {
		t.Errorf("the hint is in the summary: stored %q, result %q", stored.Text, res.Summary.Text)
	}

	// The same chat, grown: the summary message of the plan has the hint,
	// and the Summarizer is given the summary without it.
	grown := conversation(8)
	p, err := c.Plan(grown, stored)
	if err != nil || p.SummaryMessage == nil || !strings.HasSuffix(p.SummaryMessage.Content, "\n\n"+RecallHint) {
		t.Fatalf("Plan: %v, summary message %v", err, p.SummaryMessage)
	}
	if _, err := c.Compress(ctx, "c", grown); err != nil {
		t.Fatal(err)
	}
	if n := rec.count(); n != 2 || rec.calls[1].Previous != stored.Text {
		t.Errorf("%d Summarizer calls, the second given %q; want 2, given %q", n, rec.calls[len(rec.calls)-1].Previous, stored.Text)
	}

	// An echo, with the hint or without it, stands for the summary.
	stored, _ = st.Load(ctx, "c")
	for _, hint := range []string{RecallHint, ""} {
		echo := NewTextMessage(FormatPlain, SummaryIDPrefix+stored.LastMessageID, RoleSystem, summaryMessageText(stored, hint))
		msgs := append([]Message{echo}, grown[len(grown)-3:]...)
		p, err := c.Plan(msgs, stored)
		if err != nil || len(p.Echoed) != 1 || p.Stale || p.SummaryMessage == nil {
			t.Errorf("echo with hint %q: err %v, echoed %d, stale %v", hint, err, len(p.Echoed), p.Stale)
		}
	}
	// Another hint is not the summary.
	echo := NewTextMessage(FormatPlain, SummaryIDPrefix+stored.LastMessageID, RoleSystem, summaryMessageText(stored, "Ask the archive tool."))
	if p, _ := c.Plan(append([]Message{echo}, grown[len(grown)-3:]...), stored); len(p.Echoed) != 0 {
		t.Errorf("an echo with another hint was taken for the summary")
	}
}

// TestRecallHintEchoRounds: an OpenAI client without message IDs that
// keeps the payloads it got, hint and all, as its history: the summary is
// never taken for stale, never covers less, and the hint is never folded
// into it.
func TestRecallHintEchoRounds(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	c := mustNew(t, rec, NewMemoryStore(), WithTriggerTokens(30), WithRecallHint(RecallHint))
	var history []Message
	if err := json.Unmarshal([]byte(`[{"role":"system","content":"You are terse."},{"role":"user","content":"question 1 one two three four five six seven eight"}]`), &history); err != nil {
		t.Fatal(err)
	}
	var prev Summary
	summarized := 0
	for turn := 1; turn <= 15; turn++ {
		res, err := c.Compress(ctx, "c", ChainIDs(history))
		if err != nil || res.Err != nil || res.Stale {
			t.Fatalf("turn %d: err %v, absorbed %v, stale %v", turn, err, res.Err, res.Stale)
		}
		if !isPrefix(prev.Covered, res.Summary.Covered) {
			t.Fatalf("turn %d: summary covers less: %v, then %v", turn, prev.Covered, res.Summary.Covered)
		}
		if res.Summarized {
			summarized++
		}
		prev = res.Summary
		back, wire := roundTrip(t, res.Payload)
		if !prev.IsZero() && wire[1]["content"] != prev.Text+"\n\n"+RecallHint {
			t.Fatalf("turn %d: summary message %v, want the summary and the hint", turn, wire[1])
		}
		var next []Message
		if err := json.Unmarshal([]byte(fmt.Sprintf(`[{"role":"assistant","content":"answer %d one two three four five six seven eight"},{"role":"user","content":"question %d one two three four five six seven eight"}]`, turn, turn+1)), &next); err != nil {
			t.Fatal(err)
		}
		history = append(back, next...)
	}
	if summarized < 3 {
		t.Errorf("%d summarizations in 15 turns", summarized)
	}
	for _, call := range rec.calls {
		for _, m := range call.Messages {
			if strings.Contains(call.Previous, RecallHint) || strings.Contains(m.Text(), RecallHint) {
				t.Fatalf("the hint reached the Summarizer: %+v", call)
			}
		}
	}
}

// TestRecallToolPairsAreOrdinary: the recall tool's calls and results in a
// chat are tool pairs like any other: cleared by WithToolResultClearing,
// and folded into the summary together, a chunk never ending between a
// call and its result.
func TestRecallToolPairsAreOrdinary(t *testing.T) {
	ctx := context.Background()
	recall := func(int) string { return RecallToolName }
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(100_000), WithToolResultClearing(2, 10))
	res, err := c.Compress(ctx, "c", agentChat(11, 50, recall))
	if err != nil {
		t.Fatal(err)
	}
	var cleared []string
	for _, r := range res.Cleared {
		if r.ToolName != RecallToolName {
			t.Errorf("cleared %+v: want the recall tool's", r)
		}
		cleared = append(cleared, r.CallID)
	}
	if diff := cmp.Diff(ids8("call", 1), cleared); diff != "" {
		t.Errorf("cleared mismatch (-want +got):\n%s", diff)
	}

	rec := &recorder{}
	c = mustNew(t, rec, NewMemoryStore(), WithTriggerTokens(50), WithWindowConversations(1), WithMaxSummarizeInput(80))
	chat := agentChat(6, 20, recall)
	res, err = c.Compress(ctx, "c", chat)
	if err != nil || !res.Summarized {
		t.Fatalf("Compress = %+v, %v", res, err)
	}
	folded := 0
	for _, call := range rec.calls {
		calls := map[string]bool{}
		for _, m := range call.Messages {
			for _, p := range m.Parts {
				switch p.Type {
				case PartToolCall:
					calls[p.ToolCallID] = true
				case PartToolResult:
					if !calls[p.ToolCallID] {
						t.Errorf("the result of %s reached the Summarizer without its call: %v", p.ToolCallID, ids(call.Messages))
					}
					folded++
				}
			}
		}
	}
	if len(rec.calls) < 2 || folded != 6 {
		t.Errorf("%d Summarizer calls folded %d results; want chunks folding all 6", len(rec.calls), folded)
	}
}
