package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/gemini"
	"github.com/recapgo/recap/internal/apitest"
)

// secretBody is what a provider's error answer might hold: a key's prefix
// and the request it quotes.
const secretBody = `{"error":{"message":"Incorrect API key provided: sk-proj-SECRET123. Your prompt: I am vegetarian","type":"invalid_request_error","code":"invalid_api_key"}}`

// TestProviderErrorsNotEchoed: a provider's error body reaches neither the
// client nor the log; its status does.
func TestProviderErrorsNotEchoed(t *testing.T) {
	llm := apitest.New(t, "/chat/completions", apitest.Response{Status: 401, Body: secretBody})
	logs := newLogWriter(nil)
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test"}
	base := startServerLogs(t, env, logs, "-trigger", "100")
	status, out := post(t, base+"/api/summarize", chatJSON(t, 2))
	if status != 502 || out["error"] != "summarizer: HTTP 401 Unauthorized" {
		t.Errorf("/api/summarize: %d %v, want 502 with the status alone", status, out)
	}
	status, out = post(t, base+"/api/chats/c/payload", chatJSON(t, 8))
	if status != 200 || out["warning"] != "summarizer: HTTP 401 Unauthorized (the fallback summarized)" {
		t.Errorf("payload: %d %v, want a warning with the status alone", status, out["warning"])
	}
	for _, secret := range []string{"SECRET123", "vegetarian", "invalid_api_key"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log holds %q:\n%s", secret, logs)
		}
	}
}

// TestStoreErrorsNotEchoed: a Store's failure tells the client "store",
// never its host or user.
func TestStoreErrorsNotEchoed(t *testing.T) {
	st := failingStore{recap.NewMemoryStore()}
	sum := recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return "a summary", nil })
	c, err := recap.New(sum, markedStore{st}, recap.WithTriggerTokens(100))
	if err != nil {
		t.Fatal(err)
	}
	logs := newLogWriter(nil)
	h := NewServer(newTestLogger(logs), testConfig(), c, markedStore{st}, sum)
	w := serve(h, context.Background(), "/api/chats/c/payload", chatJSON(t, 8))
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"warning":"store save failed"`) || strings.Contains(w.Body.String(), "db.internal") {
		t.Errorf("payload with a failing Save: %d %s", w.Code, w.Body)
	}
}

type failingStore struct{ recap.Store }

func (failingStore) Save(context.Context, string, recap.Summary, recap.Summary) error {
	return errors.New(`failed to connect to host=db.internal user=admin database=recap: connection refused`)
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:hunter2@llm.example.com/v1", "https://user:xxxxx@llm.example.com/v1"},
		{"openai-compatible model m at https://u:p4ss@h/v1 (extractive fallback)", "openai-compatible model m at https://u:xxxxx@h/v1 (extractive fallback)"},
		{"postgres://recap:s3cret@db:5432/recap?sslmode=disable", "postgres://recap:xxxxx@db:5432/recap?sslmode=disable"},
		{"host=db user=recap password=s3cret dbname=x", "host=db user=recap password=xxxxx dbname=x"},
		{"host=db password='s3 cret' dbname=x", "host=db password=xxxxx dbname=x"},
		{"https://llm.example.com/v1", "https://llm.example.com/v1"},
	}
	for _, tt := range tests {
		if got := redact(tt.in); got != tt.want {
			t.Errorf("redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for dsn, want := range map[string]string{"postgres://u:s3cret@h/db": "s3cret", "host=h password='a b'": "a b", "host=h": ""} {
		if got := dsnPassword(dsn); got != want {
			t.Errorf("dsnPassword(%q) = %q, want %q", dsn, got, want)
		}
	}
}

// TestStartupRedacts: credentials in the LLM's base URL and the DSN reach
// neither the startup log nor the startup error.
func TestStartupRedacts(t *testing.T) {
	llm := apitest.New(t, "/chat/completions", apitest.Response{Status: 500, Body: "{}"})
	withCreds := strings.Replace(llm.URL, "http://", "http://user:hunter2@", 1)
	logs := newLogWriter(nil)
	startServerLogs(t, map[string]string{"RECAP_OPENAI_BASE_URL": withCreds}, logs)
	if strings.Contains(logs.String(), "hunter2") || !strings.Contains(logs.String(), "user:xxxxx@") {
		t.Errorf("startup log:\n%s", logs)
	}
	var stderr strings.Builder
	err := run(context.Background(), []string{"-insecure-no-auth", "-addr", "127.0.0.1:0", "-postgres", "postgres://recap:hunter2@127.0.0.1:1/recap?connect_timeout=2"},
		func(string) string { return "" }, io.Discard, &stderr, time.Now)
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(stderr.String(), "hunter2") {
		t.Errorf("startup on an unreachable PostgreSQL: %v\n%s", err, stderr.String())
	}
}

// TestBreakerServesFallback: after -breaker-failures failures of the LLM,
// it is not called for the cool-down: the fallback serves at once.
func TestBreakerServesFallback(t *testing.T) {
	llm := apitest.New(t, "/chat/completions", apitest.Response{Status: 500, Body: "{}"})
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test"}
	base := startServer(t, env, "-trigger", "100", "-breaker-failures", "2", "-breaker-cooldown", "1h")
	for i := range 5 {
		status, out := post(t, base+"/api/chats/c"+strconv.Itoa(i)+"/payload", chatJSON(t, 8))
		if status != 200 || out["summarized"] != true {
			t.Fatalf("request %d: %d %v", i, status, out)
		}
		if i >= 2 && !strings.Contains(fmt.Sprint(out["warning"]), "circuit open") {
			t.Errorf("request %d: warning %v, want the circuit open", i, out["warning"])
		}
	}
	calls := llm.Requests.Load()
	// Two failed summarizations, each tried by the SDK with its retries.
	if status, _ := post(t, base+"/api/chats/more/payload", chatJSON(t, 8)); status != 200 || llm.Requests.Load() != calls {
		t.Errorf("the LLM was called while the breaker was open: %d calls, then %d", calls, llm.Requests.Load())
	}
}

// TestBreakerHonoursRetryAfter: an LLM that answers 429 with Retry-After
// is called once, not retried by the SDK inside a request, and not called
// again until that time has passed on the breaker's clock (a fake one
// here): the fallback serves meanwhile. A request is given 30 s to
// summarize (the default -timeout's half), more than the Retry-After, so
// an SDK that waited it out would call the LLM a second time.
func TestBreakerHonoursRetryAfter(t *testing.T) {
	llm := apitest.New(t, "/chat/completions", apitest.Response{Status: 429, Header: map[string]string{"Retry-After": "20"}, Body: `{"error":{"message":"Rate limit reached"}}`})
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test"}
	clock := newFakeClock()
	base := startServerClock(t, env, newLogWriter(nil), clock.Now, "-trigger", "100")
	for i := range 5 {
		status, out := post(t, base+"/api/chats/c"+strconv.Itoa(i)+"/payload", chatJSON(t, 8))
		if status != 200 || out["summarized"] != true {
			t.Fatalf("request %d: %d %v", i, status, out)
		}
	}
	if n := llm.Requests.Load(); n != 1 {
		t.Errorf("%d LLM calls, want 1: the breaker opens for the Retry-After", n)
	}
	clock.advance(19 * time.Second)
	post(t, base+"/api/chats/c19s/payload", chatJSON(t, 8))
	if n := llm.Requests.Load(); n != 1 {
		t.Errorf("%d LLM calls 19 s after the 429, want 1", n)
	}
	clock.advance(time.Second)
	post(t, base+"/api/chats/c20s/payload", chatJSON(t, 8))
	if n := llm.Requests.Load(); n != 2 {
		t.Errorf("%d LLM calls once the Retry-After has passed, want 2 (the breaker lets one through)", n)
	}
}

// TestBreakerHonoursGeminiRetryInfo: the Gemini API says when to retry
// in a 429's RetryInfo, not in a header; the breaker opens for it too (on
// a fake clock, which does not move during the test).
func TestBreakerHonoursGeminiRetryInfo(t *testing.T) {
	llm := apitest.New(t, "/v1/models/"+gemini.DefaultModel+":generateContent", apitest.Response{Status: 429,
		Body: `{"error":{"code":429,"message":"You exceeded your current quota","status":"RESOURCE_EXHAUSTED","details":[` +
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"20s"}]}}`})
	env := map[string]string{"RECAP_GEMINI_BASE_URL": llm.URL, "RECAP_GEMINI_API_KEY": "k"}
	base := startServerClock(t, env, newLogWriter(nil), newFakeClock().Now, "-trigger", "100")
	for i := range 5 {
		status, out := post(t, base+"/api/chats/c"+strconv.Itoa(i)+"/payload", chatJSON(t, 8))
		if status != 200 || out["summarized"] != true {
			t.Fatalf("request %d: %d %v", i, status, out)
		}
	}
	if n := llm.Requests.Load(); n != 1 {
		t.Errorf("%d LLM calls, want 1: the breaker opens for the RetryInfo's delay", n)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "20"}, 20 * time.Second},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "20"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After": now.Add(time.Minute).Format(http.TimeFormat)}, time.Minute},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After": "-3"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "1e300"}, 0},
	}
	for _, tt := range tests {
		resp := &http.Response{Header: http.Header{}}
		for k, v := range tt.header {
			resp.Header.Set(k, v)
		}
		if got := retryAfter(resp, now); got != tt.want {
			t.Errorf("%v: %v, want %v", tt.header, got, tt.want)
		}
	}
	if retryAfter(nil, now) != 0 {
		t.Error("nil response")
	}
}
