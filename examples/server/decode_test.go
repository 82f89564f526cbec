package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recapgo/recap"
)

// TestRequestBounds: a body over -max-messages, or over the bound on parts
// and members, is refused before it is decoded whole.
func TestRequestBounds(t *testing.T) {
	cfg := testConfig()
	cfg.MaxMessages = 3
	h, _ := newHandlerConfig(t, nil, cfg)
	msg := func(i int, extra string) string {
		return fmt.Sprintf(`{"id":"m%d","role":"user","content":"hi"%s}`, i, extra)
	}
	tests := []struct {
		name, reason, body string
		status             int
		want               string
	}{
		{"AtMax", "3 messages are allowed", `{"messages":[` + msg(1, "") + `,` + msg(2, "") + `,` + msg(3, "") + `]}`, 200, ""},
		{"OverMax", "a fourth is not", `{"messages":[` + msg(1, "") + `,` + msg(2, "") + `,` + msg(3, "") + `,` + msg(4, "") + `]}`, 400, "messages: more than 3"},
		{"Parts", "parts count against the budget", `{"messages":[{"id":"1","role":"user","parts":[` + strings.Repeat(`{},`, 3*valuesPerMessage) + `{}]}]}`, 400, "parts and members"},
		{"Members", "so do members", `{"messages":[` + msg(1, strings.Repeat(`,"k":0`, 3*valuesPerMessage)) + `]}`, 400, "parts and members"},
		{"DeepOutput", "a tool's output is raw bytes: its values do not count", `{"messages":[{"id":"1","role":"user","content":"hi"},{"id":"2","role":"assistant","parts":[{"type":"tool-x","toolCallId":"c","state":"output-available","input":{},"output":[` + strings.Repeat(`{"a":1},`, 10*valuesPerMessage) + `{}]}]},{"id":"3","role":"user","content":"and?"}]}`, 200, ""},
		{"StringsDoNotCount", "braces in text are text", `{"messages":[` + msg(1, `,"content":"`+strings.Repeat(`{[:`, 10*valuesPerMessage)+`"`) + `]}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(h, context.Background(), "/api/chats/c/payload", tt.body)
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.want) {
				t.Errorf("%s: %d %.300s, want %d with %q", tt.reason, w.Code, w.Body, tt.status, tt.want)
			}
		})
	}
}

// TestPayloadWithoutIDs: a chat of OpenAI messages, which have no IDs, is
// accepted on both payload routes; its payload has no "id" member, the
// summary message's included, and the next turn, the payload sent back,
// keeps the summary. A UIMessage without an ID is a 400 that says where
// the AI SDK makes IDs.
func TestPayloadWithoutIDs(t *testing.T) {
	var chat []map[string]any
	chat = append(chat, map[string]any{"role": "system", "content": "You are the on-call assistant."})
	for i := 1; i <= 8; i++ {
		chat = append(chat,
			map[string]any{"role": "user", "content": fmt.Sprintf("Question %d: what should we check on the payments service after deploy number %d?", i, i*7)},
			map[string]any{"role": "assistant", "content": fmt.Sprintf("Answer %d: check the error rate, which rose to %d per minute, and roll back release v2.%d if it stays high.", i, i*13, i)})
	}
	chat = append(chat, map[string]any{"role": "user", "content": "What did we decide?"})
	body := func(id string, msgs []map[string]any) string {
		b, err := json.Marshal(map[string]any{"id": id, "messages": msgs})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	type response struct {
		Payload    []map[string]any `json:"payload"`
		Boundary   string           `json:"boundary"`
		Summarized bool             `json:"summarized"`
		Stale      bool             `json:"stale"`
		Error      string           `json:"error"`
	}
	post := func(h http.Handler, path, body string) response {
		t.Helper()
		w := serve(h, context.Background(), path, body)
		var out response
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != http.StatusOK {
			t.Fatalf("%s: %d %.300s", path, w.Code, w.Body)
		}
		for i, m := range out.Payload {
			if id, ok := m["id"]; ok {
				t.Errorf("%s: payload message %d has the id %v, which the chat did not send", path, i, id)
			}
		}
		return out
	}
	for _, path := range []string{"/api/chats/c1/payload", "/api/payload"} {
		t.Run(strings.TrimPrefix(path, "/api/"), func(t *testing.T) {
			h, _ := newHandler(t, nil, recap.WithTriggerTokens(60))
			first := post(h, path, body("c1", chat))
			if !first.Summarized || !strings.HasPrefix(first.Boundary, recap.ChainIDPrefix) || len(first.Payload) >= len(chat) {
				t.Fatalf("first turn: summarized %v, boundary %q, %d messages of %d; want a summary through a derived ID", first.Summarized, first.Boundary, len(first.Payload), len(chat))
			}
			next := append(first.Payload,
				map[string]any{"role": "assistant", "content": "We roll back v2.8 if the error rate stays high."},
				map[string]any{"role": "user", "content": "And who is on call tonight?"})
			second := post(h, path, body("c1", next))
			if second.Stale || second.Boundary == "" {
				t.Errorf("the payload sent back: stale %v, boundary %q; want the summary kept", second.Stale, second.Boundary)
			}
		})
	}

	h, _ := newHandler(t, nil)
	w := serve(h, context.Background(), "/api/chats/c2/payload", `{"messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"hi"}]},{"role":"assistant","parts":[{"type":"text","text":"hello"}]},{"id":"u2","role":"user","parts":[{"type":"text","text":"bye"}]}]}`)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `messages[1]: no ID: an AI SDK UIMessage`) || !strings.Contains(w.Body.String(), "generateId") {
		t.Errorf("a UIMessage without an ID: %d %s, want a 400 naming generateId", w.Code, w.Body)
	}
}

// TestConcurrencyLimit: beyond MaxConcurrent requests, one waits
// QueueWait for a slot, then is a 503 with Retry-After.
func TestConcurrencyLimit(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 2)
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	h := limitConcurrency(newTestLogger(&strings.Builder{}), 2, 10*time.Millisecond)(slow)
	done := make(chan int, 2)
	for range 2 {
		go func() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("POST", "/api/x", nil))
			done <- w.Code
		}()
	}
	<-entered
	<-entered
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/api/x", nil))
	if w.Code != 503 || w.Header().Get("Retry-After") != "1" {
		t.Errorf("a third request: %d Retry-After %q, want 503 1", w.Code, w.Header().Get("Retry-After"))
	}
	close(release)
	for range 2 {
		if code := <-done; code != 200 {
			t.Errorf("a request within the limit: %d", code)
		}
	}
	// A slot freed serves the next request.
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/api/x", nil))
	if w.Code != 200 {
		t.Errorf("after the slots were freed: %d", w.Code)
	}
}

// TestAnthropicBody: an Anthropic Messages API request body is accepted:
// its system prompt is pinned before its messages, its tool_use and
// tool_result blocks are counted and kept, and the payload sent back as
// the next turn's messages keeps the summary. A tool result whose call is
// not in the chat, a chat that mixes formats and a system of the wrong
// type are 400s that say so.
func TestAnthropicBody(t *testing.T) {
	var msgs []map[string]any
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs,
			map[string]any{"role": "user", "content": fmt.Sprintf("Question %d: what is the error rate of the payments service after deploy %d?", i, i*7)},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": "Checking."},
				map[string]any{"type": "tool_use", "id": id, "name": "metrics", "input": map[string]any{"deploy": i * 7}}}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": id, "content": fmt.Sprintf("error rate %d per minute on release v2.%d", i*13, i)}}},
			map[string]any{"role": "assistant", "content": fmt.Sprintf("Answer %d: the rate is %d per minute; roll back v2.%d if it stays high.", i, i*13, i)})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": "What did we decide?"})
	system := []any{map[string]any{"type": "text", "text": "You are the on-call assistant.", "cache_control": map[string]any{"type": "ephemeral"}}}
	type answer struct {
		Payload    []map[string]any `json:"payload"`
		System     []map[string]any `json:"system"`
		Messages   []map[string]any `json:"messages"`
		Summarized bool             `json:"summarized"`
		Stale      bool             `json:"stale"`
		Boundary   string           `json:"boundary"`
		Summary    recap.Summary    `json:"summary"`
	}
	post := func(h http.Handler, body any) (int, string, answer) {
		t.Helper()
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		w := serve(h, context.Background(), "/api/chats/a1/payload", string(b))
		var out answer
		_ = json.Unmarshal(w.Body.Bytes(), &out)
		return w.Code, w.Body.String(), out
	}
	h, _ := newHandler(t, nil, recap.WithTriggerTokens(80))
	code, resp, out := post(h, map[string]any{"model": "claude-sonnet-4-5", "system": system, "messages": msgs})
	if code != http.StatusOK || !out.Summarized {
		t.Fatalf("Anthropic body: %d %.500s", code, resp)
	}
	// Answered as an Anthropic request: "system" (the prompt's block as
	// it came, then the summary) and "messages", no "payload".
	if out.Payload != nil || len(out.System) != 2 || len(out.Messages) == 0 {
		t.Fatalf("want system (2 blocks) and messages, no payload: %.500s", resp)
	}
	first, _ := json.Marshal(out.System[0])
	if string(first) != `{"cache_control":{"type":"ephemeral"},"text":"You are the on-call assistant.","type":"text"}` {
		t.Errorf("the system block is not pinned first: %s", first)
	}
	if out.System[1]["type"] != "text" || out.System[1]["text"] != out.Summary.Text {
		t.Errorf("the summary is not the last system block: %v", out.System[1])
	}
	for _, m := range out.Messages {
		if m["role"] != "user" && m["role"] != "assistant" {
			t.Errorf("a message of the role %v in an Anthropic request's messages: %v", m["role"], m)
		}
	}
	if all, _ := json.Marshal(out.Messages); !strings.Contains(string(all), `"tool_use"`) || !strings.Contains(string(all), `"tool_result"`) {
		t.Errorf("the payload lost the tool blocks: %s", all)
	}
	// The answer, sent back as the request with the next turn: the
	// summary known again (summarized anew only if the new turn pushes
	// the history over the trigger, from the boundary on).
	next := append(out.Messages,
		map[string]any{"role": "assistant", "content": "We roll back v2.6 if the rate stays high."},
		map[string]any{"role": "user", "content": "Who is on call tonight?"})
	code, resp, again := post(h, map[string]any{"system": out.System, "messages": next})
	if code != http.StatusOK || again.Stale || (!again.Summarized && again.Boundary != out.Boundary) || len(again.System) != 2 ||
		len(again.Summary.Covered) < len(out.Summary.Covered) {
		t.Errorf("the answer sent back: %d stale %v summarized %v boundary %q (was %q) %d system blocks; want the summary kept", code, again.Stale, again.Summarized, again.Boundary, out.Boundary, len(again.System))
	}

	tests := []struct {
		name, reason string
		body         any
		want         string
	}{
		{"Orphan", "a tool_result whose tool_use is not in the chat",
			map[string]any{"system": "Be brief.", "messages": []any{msgs[0], msgs[2]}},
			`messages[1]: a tool result for call \"toolu_1\", whose tool call (tool_use) is not before it`},
		{"OrphanNoSystem", "the same without a system: recap finds it",
			map[string]any{"messages": []any{msgs[0], msgs[2]}},
			`messages[1]: a tool result for call \"toolu_1\", whose tool call (tool_use) is not before it`},
		{"Mixed", "an OpenAI tool message in an Anthropic request",
			map[string]any{"system": "Be brief.", "messages": []any{msgs[0], map[string]any{"role": "tool", "tool_call_id": "c", "content": "r"}}},
			"messages[1]: not an Anthropic message (openai format) in an Anthropic request"},
		{"DuplicateAfterSystem", "recap's positions count the system blocks; the answer names the body's",
			map[string]any{"system": []any{map[string]any{"type": "text", "text": "A"}, map[string]any{"type": "text", "text": "B"}},
				"messages": []any{map[string]any{"id": "m", "role": "user", "content": "x"}, map[string]any{"id": "m", "role": "assistant", "content": "y"}}},
			"messages[1]: same ID as messages[0]"},
		{"UnknownRole", "a role recap does not know, after a system",
			map[string]any{"system": "Be brief.", "messages": []any{msgs[0], map[string]any{"role": "critic", "content": "y"}}},
			`messages[1]: unknown role \"critic\"`},
		{"SystemNumber", "a system that is neither a string nor blocks",
			map[string]any{"system": 7, "messages": msgs[:1]},
			"system: want a string or an array of blocks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, resp, _ := post(h, tt.body)
			if code != http.StatusBadRequest || !strings.Contains(resp, tt.want) {
				t.Errorf("%s: %d %s, want a 400 with %q", tt.reason, code, resp, tt.want)
			}
		})
	}
}
