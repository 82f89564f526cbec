package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHostCheck: only loopback names and -allowed-hosts, on any port, may
// be the Host of a request (DNS rebinding); /healthz answers any.
func TestHostCheck(t *testing.T) {
	cfg := testConfig()
	cfg.AllowedHosts = []string{"recap.example.com"}
	h, _ := newHandlerConfig(t, nil, cfg)
	tests := []struct {
		reason, host, path string
		status             int
	}{
		{"localhost on any port", "localhost:9999", "/api/chats/c/summary", 404},
		{"127.0.0.1", "127.0.0.1:8080", "/api/chats/c/summary", 404},
		{"[::1]", "[::1]:8080", "/api/chats/c/summary", 404},
		{"an allowed name, any case, no port", "Recap.Example.com", "/api/chats/c/summary", 404},
		{"a rebound name", "evil.example.net:8080", "/api/chats/c/summary", 403},
		{"another address", "10.0.0.1:8080", "/api/chats/c/summary", 403},
		{"a name ending like an allowed one", "xrecap.example.com", "/api/chats/c/summary", 403},
		{"probes may use any host", "10.0.0.1:8080", "/healthz", 200},
	}
	for _, tt := range tests {
		r := httptest.NewRequestWithContext(context.Background(), "GET", tt.path, nil)
		r.Host = tt.host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tt.status {
			t.Errorf("%s (Host %s): %d %s, want %d", tt.reason, tt.host, w.Code, w.Body, tt.status)
		}
	}
}

// TestCORS: a configured origin gets its preflight answered (before
// authentication) and its answers readable; any other origin gets no CORS
// header, and its preflight a 403.
func TestCORS(t *testing.T) {
	keys, err := parseKeys(strings.NewReader("alice " + keyAlice + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Keys = keys
	cfg.CORSOrigins = []string{"https://app.example.com"}
	h, _ := newHandlerConfig(t, nil, cfg)
	send := func(method, origin string, preflight bool, key string) *httptest.ResponseRecorder {
		var body *strings.Reader
		if method == "POST" {
			body = strings.NewReader(chatJSON(t, 2))
		} else {
			body = strings.NewReader("")
		}
		r := httptest.NewRequestWithContext(context.Background(), method, "/api/summarize", body)
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if preflight {
			r.Header.Set("Access-Control-Request-Method", "POST")
			r.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		}
		if key != "" {
			r.Header.Set("Authorization", "Bearer "+key)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	app := "https://app.example.com"
	w := send("OPTIONS", app, true, "")
	if w.Code != 204 || w.Header().Get("Access-Control-Allow-Origin") != app ||
		!strings.Contains(w.Header().Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(w.Header().Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight of the app: %d %v", w.Code, w.Header())
	}
	if w := send("POST", app, false, keyAlice); w.Code != 200 || w.Header().Get("Access-Control-Allow-Origin") != app || w.Header().Get("Vary") != "Origin" {
		t.Errorf("POST of the app: %d %v", w.Code, w.Header())
	}
	if w := send("POST", app, false, ""); w.Code != 401 || w.Header().Get("Access-Control-Allow-Origin") != app {
		t.Errorf("POST of the app without a key: %d %v, want a 401 the app can read", w.Code, w.Header())
	}
	if w := send("OPTIONS", "https://evil.example.net", true, ""); w.Code != 403 || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight of another origin: %d %v", w.Code, w.Header())
	}
	if w := send("POST", "https://evil.example.net", false, keyAlice); w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("POST of another origin: %d %v, want no CORS header", w.Code, w.Header())
	}
}
