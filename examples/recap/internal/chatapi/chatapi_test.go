package chatapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/setup"
)

// reply is one canned answer of the fake server.
type reply struct {
	status int
	header map[string]string
	body   string
}

// fake serves replies in order (the last one again once they run out)
// and records the requests' bodies and headers.
type fake struct {
	mu      sync.Mutex
	replies []reply
	bodies  []map[string]any
	headers []http.Header
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body)
	f.mu.Lock()
	n := len(f.bodies)
	f.bodies = append(f.bodies, body)
	f.headers = append(f.headers, r.Header.Clone())
	rep := f.replies[min(n, len(f.replies)-1)]
	f.mu.Unlock()
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	io.WriteString(w, rep.body)
}

func ok(content string) reply {
	return reply{status: 200, body: `{"choices":[{"message":{"role":"assistant","content":` + quote(content) + `},"finish_reason":"stop"}]}`}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

var req = recap.SummarizeRequest{
	Messages: []recap.Message{{ID: "1", Role: recap.RoleUser, Content: "my order is BW-58231"}},
}

// start returns a Summarizer on a fake server answering replies, whose
// waits before retries are recorded instead of slept.
func start(t *testing.T, cfg Config, replies ...reply) (*Summarizer, *fake, *[]time.Duration) {
	t.Helper()
	f := &fake{replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	if cfg.BaseURL == "" {
		cfg.BaseURL = srv.URL + "/v1"
	}
	if cfg.Model == "" {
		cfg.Model = "m"
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	s.sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return ctx.Err() }
	return s, f, &waits
}

func TestSummarize(t *testing.T) {
	s, f, _ := start(t, Config{Key: "k", MaxOutput: 300}, ok("  - User: order BW-58231\n"))
	got, err := s.Summarize(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got != "- User: order BW-58231" {
		t.Errorf("summary = %q", got)
	}
	body := f.bodies[0]
	if body["model"] != "m" || body["max_completion_tokens"] != 300.0 {
		t.Errorf("request body = %v", body)
	}
	p := recap.RenderPrompt(req, "")
	want := []any{map[string]any{"role": "system", "content": p.System}, map[string]any{"role": "user", "content": p.User}}
	if diff := cmp.Diff(want, body["messages"]); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	if h := f.headers[0].Get("Authorization"); h != "Bearer k" {
		t.Errorf("Authorization = %q", h)
	}
}

func TestOutputLimit(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		max   int
		field string
		want  float64
	}{
		{"default", Config{}, 0, "max_completion_tokens", DefaultMaxOutput},
		{"request smaller", Config{MaxOutput: 500}, 120, "max_completion_tokens", 120},
		{"request larger", Config{MaxOutput: 500}, 900, "max_completion_tokens", 500},
		{"older servers", Config{TokenField: "max_tokens"}, 0, "max_tokens", DefaultMaxOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, f, _ := start(t, tt.cfg, ok("x"))
			r := req
			r.MaxTokens = tt.max
			if _, err := s.Summarize(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			if got := f.bodies[0][tt.field]; got != tt.want {
				t.Errorf("%s = %v, want %v (body %v)", tt.field, got, tt.want, f.bodies[0])
			}
		})
	}
}

func TestNoKeyNoHeader(t *testing.T) {
	s, f, _ := start(t, Config{}, ok("x"))
	if _, err := s.Summarize(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if h, set := f.headers[0]["Authorization"]; set {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		replies []reply
		calls   int
		is      error
		code    int // of a *StatusError, or 0
		msg     string
	}{
		{"truncated", []reply{{200, nil, `{"choices":[{"message":{"content":"half"},"finish_reason":"length"}]}`}}, 1, ErrTruncated, 0, ""},
		{"refusal", []reply{{200, nil, `{"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}`}}, 1, nil, 0, "refused: no"},
		{"no choices", []reply{{200, nil, `{"choices":[]}`}}, 1, nil, 0, "no choices"},
		{"not JSON", []reply{{200, nil, `<html>`}}, 1, nil, 0, "decoding"},
		{"bad request, not retried", []reply{{400, nil, `{"error":{"message":"model not found"}}`}}, 1, nil, 400, "model not found"},
		{"unauthorized", []reply{{401, nil, `{"error":{"message":"bad key"}}`}}, 1, nil, 401, "bad key"},
		{"Gemini's error array", []reply{{404, nil, `[{"error":{"message":"no such model"}}]`}}, 1, nil, 404, "no such model"},
		{"overloaded, retried out", []reply{{503, nil, `busy`}}, 1 + DefaultRetries, nil, 503, "busy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, f, _ := start(t, Config{Retries: -1}, tt.replies...)
			_, err := s.Summarize(context.Background(), req)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want %v", err, tt.is)
			}
			var se *StatusError
			if got := errors.As(err, &se); got != (tt.code != 0) || (got && se.Code != tt.code) {
				t.Errorf("err = %#v, want a StatusError %d", err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want it to say %q", err, tt.msg)
			}
			if len(f.bodies) != tt.calls {
				t.Errorf("%d calls, want %d", len(f.bodies), tt.calls)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name    string
		retries int
		replies []reply
		calls   int
		waits   []time.Duration // exact, or nil to check only their count
		nwaits  int
		err     bool
	}{
		{"Retry-After seconds", -1, []reply{{429, map[string]string{"Retry-After": "3"}, `{}`}, ok("x")}, 2, []time.Duration{3 * time.Second}, 1, false},
		{"Retry-After-Ms", -1, []reply{{503, map[string]string{"Retry-After-Ms": "250"}, `{}`}, ok("x")}, 2, []time.Duration{250 * time.Millisecond}, 1, false},
		{"backoff", 3, []reply{{500, nil, ``}, {502, nil, ``}, ok("x")}, 3, nil, 2, false},
		{"no retries", 0, []reply{{429, nil, ``}, ok("x")}, 1, nil, 0, true},
		{"too long a wait", -1, []reply{{429, map[string]string{"Retry-After": "3600"}, ``}, ok("x")}, 1, nil, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, f, waits := start(t, Config{Retries: tt.retries}, tt.replies...)
			_, err := s.Summarize(context.Background(), req)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error: %v", err, tt.err)
			}
			if len(f.bodies) != tt.calls {
				t.Errorf("%d calls, want %d", len(f.bodies), tt.calls)
			}
			if len(*waits) != tt.nwaits {
				t.Errorf("waits %v, want %d", *waits, tt.nwaits)
			}
			if tt.waits != nil {
				if diff := cmp.Diff(tt.waits, *waits); diff != "" {
					t.Errorf("waits mismatch (-want +got):\n%s", diff)
				}
			}
			for i, w := range *waits {
				if w <= 0 || w > MaxRetryWait {
					t.Errorf("wait %d = %v", i, w)
				}
			}
		})
	}
}

// A retry that could not finish before the context's deadline is not
// waited for.
func TestRetryPastDeadline(t *testing.T) {
	s, f, waits := start(t, Config{}, reply{429, map[string]string{"Retry-After": "30"}, ``}, ok("x"))
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(10*time.Second))
	defer cancel()
	if _, err := s.Summarize(ctx, req); err == nil {
		t.Fatal("no error")
	}
	if len(f.bodies) != 1 || len(*waits) != 0 {
		t.Errorf("%d calls, waits %v; want 1 call and no wait", len(f.bodies), *waits)
	}
}

func TestCanceled(t *testing.T) {
	s, _, _ := start(t, Config{}, ok("x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Summarize(ctx, req); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestNewErrors(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{Model: "m", MaxOutput: -1},
		{Model: "m", Retries: -2},
		{Model: "m", TokenField: "tokens"},
		{Model: "m", BaseURL: "api.example.com"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
}

func TestForLLM(t *testing.T) {
	tests := []struct {
		llm   setup.LLM
		url   string
		field string
	}{
		{setup.LLM{Provider: setup.OpenAI, Model: "gpt-4o-mini", MaxRetries: -1}, DefaultBaseURL + "/chat/completions", "max_completion_tokens"},
		{setup.LLM{Provider: setup.OpenAI, Model: "llama3", BaseURL: "http://localhost:11434/v1/", MaxRetries: -1}, "http://localhost:11434/v1/chat/completions", "max_completion_tokens"},
		{setup.LLM{Provider: setup.Anthropic, Model: "claude-haiku-4-5", MaxRetries: -1}, "https://api.anthropic.com/v1/chat/completions", "max_tokens"},
		{setup.LLM{Provider: setup.Anthropic, Model: "c", BaseURL: "http://proxy.local/v1", MaxRetries: 0}, "http://proxy.local/v1/chat/completions", "max_tokens"},
		{setup.LLM{Provider: setup.Gemini, Model: "gemini-2.5-flash-lite", MaxRetries: -1}, "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions", "max_tokens"},
		{setup.LLM{Provider: setup.Gemini, Model: "g", BaseURL: "http://127.0.0.1:9/", MaxRetries: 1}, "http://127.0.0.1:9/v1beta/openai/chat/completions", "max_tokens"},
	}
	for _, tt := range tests {
		s, err := ForLLM(tt.llm)
		if err != nil {
			t.Fatal(err)
		}
		got := s.(*Summarizer)
		if got.url != tt.url || got.cfg.TokenField != tt.field {
			t.Errorf("%+v: url %s, field %s; want %s, %s", tt.llm, got.url, got.cfg.TokenField, tt.url, tt.field)
		}
		if want := tt.llm.MaxRetries; want >= 0 && got.cfg.Retries != want {
			t.Errorf("%+v: retries %d", tt.llm, got.cfg.Retries)
		}
	}
}
