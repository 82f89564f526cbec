package recap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Payloads in the chat's own wire format, and what that format carries
// counted.

// roundTrip encodes msgs as a client would receive them and decodes them
// as the next request would arrive.
func roundTrip(t *testing.T, msgs []Message) ([]Message, []map[string]any) {
	t.Helper()
	data, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var wire []map[string]any
	if err := json.Unmarshal(data, &wire); err != nil {
		t.Fatal(err)
	}
	var back []Message
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return back, wire
}

// TestOpenAIEchoRounds: an OpenAI Chat Completions client (no message IDs:
// ChainIDs makes them) that keeps the payload it got as its history gets
// payloads of OpenAI messages only, the summary as {"role","content"}
// after the system prompt, and keeps what the summary covered.
func TestOpenAIEchoRounds(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStore()
	c := mustNew(t, &recorder{}, st, WithTriggerTokens(30))
	var history []Message
	if err := json.Unmarshal([]byte(`[{"role":"system","content":"You are terse."},{"role":"developer","content":"Answer in English."},{"role":"user","content":"question 1 one two three four five six seven eight"}]`), &history); err != nil {
		t.Fatal(err)
	}
	var prev Summary
	var sent [][]Message
	for turn := 1; turn <= 25; turn++ {
		sent = append(sent, ChainIDs(history))
		res, err := c.Compress(ctx, "c", ChainIDs(history))
		if err != nil || res.Err != nil || res.Stale {
			t.Fatalf("turn %d: err %v, absorbed %v, stale %v", turn, err, res.Err, res.Stale)
		}
		if !isPrefix(prev.Covered, res.Summary.Covered) {
			t.Fatalf("turn %d: summary covers less: %v, then %v", turn, prev.Covered, res.Summary.Covered)
		}
		prev = res.Summary
		back, wire := roundTrip(t, res.Payload)
		for i, m := range wire {
			if _, ok := m["id"]; ok {
				t.Fatalf("turn %d: payload message %d has an id: %v", turn, i, m)
			}
			if _, ok := m["parts"]; ok {
				t.Fatalf("turn %d: payload message %d has parts: %v", turn, i, m)
			}
		}
		if wire[0]["role"] != "system" || wire[1]["role"] != "developer" {
			t.Fatalf("turn %d: the pinned prompt is not first: %v", turn, wire[:2])
		}
		if !res.Summary.IsZero() && (wire[2]["role"] != "system" || wire[2]["content"] != res.Summary.Text || len(wire[2]) != 2) {
			t.Fatalf("turn %d: summary message %v, want {role: system, content: %q}", turn, wire[2], res.Summary.Text)
		}
		var next []Message
		if err := json.Unmarshal([]byte(fmt.Sprintf(`[{"role":"assistant","content":"answer %d one two three four five six seven eight"},{"role":"user","content":"question %d one two three four five six seven eight"}]`, turn, turn+1)), &next); err != nil {
			t.Fatal(err)
		}
		history = append(back, next...)
	}
	if !strings.Contains(prev.Text, "covers ") || len(prev.Covered) < 40 {
		t.Fatalf("after 25 rounds the summary is %q covering %d messages", prev.Text, len(prev.Covered))
	}
	// A delayed retry of any earlier request, echoed summary and all, is an
	// older snapshot: the stored summary stays.
	for i, req := range sent[:20] {
		res, err := c.Compress(ctx, "c", req)
		if err != nil || res.Stale || res.Summarized {
			t.Fatalf("retry of request %d: err %v, stale %v, summarized %v", i, err, res.Stale, res.Summarized)
		}
		if got, _ := st.Load(ctx, "c"); !got.Equal(prev) {
			t.Fatalf("retry of request %d changed the summary to cover %v", i, got.Covered)
		}
	}
}

// TestUIMessageSummary: in a UIMessage chat the summary is a UIMessage
// with one text part, never a content member.
func TestUIMessageSummary(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "uimessages.json"))
	if err != nil {
		t.Fatal(err)
	}
	var chat []Message
	if err := json.Unmarshal(data, &chat); err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(5), WithWindowConversations(1))
	res, err := c.Compress(context.Background(), "c", chat)
	if err != nil || !res.Summarized {
		t.Fatalf("err %v, summarized %v", err, res.Summarized)
	}
	back, wire := roundTrip(t, res.Payload)
	var summary map[string]any
	for _, m := range wire {
		if strings.HasPrefix(fmt.Sprint(m["id"]), SummaryIDPrefix) {
			summary = m
		}
		if _, ok := m["parts"]; !ok {
			t.Errorf("payload message %v is not a UIMessage", m)
		}
	}
	want := fmt.Sprintf(`map[id:%s parts:[map[text:%s type:text]] role:system]`, SummaryIDPrefix+res.Summary.LastMessageID, res.Summary.Text)
	if fmt.Sprint(summary) != want {
		t.Fatalf("summary message %v, want %s", summary, want)
	}
	// Echoed back, it is recognized.
	p, err := c.Plan(back, res.Summary)
	if err != nil || len(p.Echoed) != 1 || p.Stale {
		t.Fatalf("echo: err %v, echoed %d, stale %v", err, len(p.Echoed), p.Stale)
	}
}

// TestOpenAIToolCallsCounted: tool calls, tool results, content blocks and
// images of an OpenAI chat are counted, so a ceiling holds for it.
func TestOpenAIToolCallsCounted(t *testing.T) {
	big := strings.Repeat("row ", 3000)
	raw := fmt.Sprintf(`[{"role":"system","content":"Be brief."},{"role":"user","content":"Query the table."},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"sql","arguments":"{\"q\":\"select * from t\"}"}}]},
		{"role":"tool","tool_call_id":"c1","content":%q},
		{"role":"user","content":[{"type":"text","text":"And this chart?"},{"type":"image_url","image_url":{"url":"https://example.com/c.png"}}]}]`, big)
	var chat []Message
	if err := json.Unmarshal([]byte(raw), &chat); err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(100000), WithMaxPayloadTokens(2100))
	res, err := c.Compress(context.Background(), "c", ChainIDs(chat))
	if err != nil {
		t.Fatal(err)
	}
	if res.PayloadTokens > 2100 || len(res.Dropped) != 3 {
		t.Fatalf("%d tokens, dropped %v: the tool call and its 3,000-word result must be counted and left out", res.PayloadTokens, ids(res.Dropped))
	}
	p, _ := c.Plan(ChainIDs(chat), Summary{})
	if got := c.tokens(nil, p.Turn); got < DefaultMediaTokens {
		t.Fatalf("the turn with an image counts %d tokens, want at least %d", got, DefaultMediaTokens)
	}
}
