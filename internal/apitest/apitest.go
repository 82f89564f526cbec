// Package apitest is a scripted HTTP API server for the LLM adapters'
// tests: it answers with the responses given, in turn, and records what it
// was sent; and JSONOf, for comparing what an SDK would send.
package apitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// Response is one scripted answer.
type Response struct {
	Status int
	Header map[string]string
	Body   string
}

// Server is an httptest.Server that accepts POST requests to one path.
type Server struct {
	*httptest.Server
	Requests atomic.Int64 // how many requests arrived

	mu      sync.Mutex // protects bodies and headers
	bodies  []map[string]any
	headers []http.Header
}

// New starts a Server on 127.0.0.1 that expects POSTs to path and answers
// with responses in turn, repeating the last one. It stops when t ends.
func New(t *testing.T, path string, responses ...Response) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.Requests.Add(1)) - 1
		if r.Method != http.MethodPost || r.URL.Path != path {
			t.Errorf("request %s %s, want POST %s", r.Method, r.URL.Path, path)
		}
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &body); err != nil {
			t.Errorf("request body %s: %v", data, err)
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		resp := responses[min(n, len(responses)-1)]
		for k, v := range resp.Header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.Status)
		io.WriteString(w, resp.Body)
	}))
	t.Cleanup(s.Close)
	return s
}

// Body returns the JSON body of request i.
func (s *Server) Body(i int) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// Header returns the headers of request i.
func (s *Server) Header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

// JSONOf decodes the JSON encoding of v, to compare what an SDK would send
// whatever the order of members.
func JSONOf(t testing.TB, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
