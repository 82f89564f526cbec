package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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
