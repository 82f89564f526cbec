package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestSummarizeRateLimit: each tenant has its own bucket; a request over
// the rate is a 429 with Retry-After, and takes no token.
func TestSummarizeRateLimit(t *testing.T) {
	keys, err := parseKeys(strings.NewReader("alice " + keyAlice + "\nbob " + keyBob + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1e9, 0)
	cfg := testConfig()
	cfg.Keys, cfg.SummarizeRate, cfg.SummarizeBurst = keys, 1.0/30, 2 // one every 30 s, two at once
	cfg.Now = func() time.Time { return now }
	h, _ := newHandlerConfig(t, nil, cfg)
	send := func(key string) *httptest.ResponseRecorder {
		r := httptest.NewRequestWithContext(context.Background(), "POST", "/api/summarize", strings.NewReader(chatJSON(t, 2)))
		r.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	tests := []struct {
		reason  string
		advance time.Duration
		key     string
		status  int
		retry   string
	}{
		{"alice's burst, first", 0, keyAlice, 200, ""},
		{"alice's burst, second", 0, keyAlice, 200, ""},
		{"alice over her rate", 0, keyAlice, 429, "30"},
		{"bob has a bucket of his own", 0, keyBob, 200, ""},
		{"a refused request took no token: 10 s later, 20 s to wait", 10 * time.Second, keyAlice, 429, "20"},
		{"a token back after 30 s", 20 * time.Second, keyAlice, 200, ""},
		{"and no more", 0, keyAlice, 429, "30"},
	}
	for _, tt := range tests {
		now = now.Add(tt.advance)
		w := send(tt.key)
		if w.Code != tt.status || w.Header().Get("Retry-After") != tt.retry {
			t.Errorf("%s: %d Retry-After %q, want %d %q: %s", tt.reason, w.Code, w.Header().Get("Retry-After"), tt.status, tt.retry, w.Body)
		}
	}
	if w := send("unknown-key-0123456789"); w.Code != http.StatusUnauthorized {
		t.Errorf("no key: %d, want 401 before the rate limit", w.Code)
	}
}
