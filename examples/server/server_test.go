package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/setup"
	"github.com/recapgo/recap/tokens"
)

// startServer runs the program on 127.0.0.1 with a fresh SQLite file and
// returns its base URL, read from its "listening" log line; the server
// shuts down when the test ends, and the test checks that it exits cleanly.
func startServer(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	return startServerLogs(t, env, newLogWriter(nil), args...)
}

// startServerLogs is startServer logging to logs.
func startServerLogs(t *testing.T, env map[string]string, logs *logWriter, args ...string) string {
	t.Helper()
	return startServerClock(t, env, logs, time.Now, args...)
}

// startServerClock is startServerLogs with now as the clock of the
// breaker, the save back-off and the rate limits (see run).
func startServerClock(t *testing.T, env map[string]string, logs *logWriter, now func() time.Time, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	auth := []string{"-insecure-no-auth"}
	for _, a := range args {
		if a == "-api-keys" {
			auth = nil
		}
	}
	// In the request unless a test says otherwise, so that a response
	// shows the summary it made; a later -background wins.
	args = append(append([]string{"-addr", "127.0.0.1:0", "-db", filepath.Join(t.TempDir(), "recap.db"), "-background=false", "-log-format=text"}, auth...), args...)
	getenv := func(k string) string { return env[k] }
	go func() { done <- run(ctx, args, getenv, io.Discard, logs, now) }()
	var base string
	select {
	case a := <-logs.addr:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("server exited: %v\n%s", err, logs)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server exited: %v\n%s", err, logs)
		}
	})
	return base
}

// hangGuard bounds every wait of the tests for an event (an LLM call, a
// log line, a process that starts). It measures nothing: a wait ends on
// its event, however busy the machine, and the guard only turns an event
// that never comes into a failure instead of a hang.
const hangGuard = 2 * time.Minute

// events counts occurrences of something that tests wait for, such as the
// calls of a fake LLM or the writes of a log, and wakes the waiters on
// each. The zero events is ready to use; it is safe for concurrent use by
// multiple goroutines.
type events struct {
	mu   sync.Mutex    // protects n and next
	n    int           // occurrences so far
	next chan struct{} // closed on the next occurrence; nil while nobody waits
}

// add records an occurrence and returns how many there have been.
func (e *events) add() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	if e.next != nil {
		close(e.next)
		e.next = nil
	}
	return e.n
}

// count returns how many occurrences there have been.
func (e *events) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.n
}

// wait blocks until there have been n occurrences; it fails the test
// after hangGuard.
func (e *events) wait(t testing.TB, n int, what string) {
	t.Helper()
	e.waitFunc(t, what, func() bool { return e.count() >= n })
}

// waitFunc blocks until cond, checked at once and after each occurrence,
// holds; it fails the test, naming what it waited for, after hangGuard.
func (e *events) waitFunc(t testing.TB, what string, cond func() bool) {
	t.Helper()
	guard := time.NewTimer(hangGuard)
	defer guard.Stop()
	for {
		e.mu.Lock()
		if e.next == nil {
			e.next = make(chan struct{})
		}
		next := e.next // taken before cond: an occurrence after cond closes it
		e.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-next:
		case <-guard.C:
			t.Fatalf("still waiting for %s after %v", what, hangGuard)
		}
	}
}

// received waits for a value from ch, or for ch to be closed; it fails the
// test after hangGuard.
func received[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("still waiting for %s after %v", what, hangGuard)
	}
	var zero T
	return zero
}

// logWriter keeps a server's log and sends the address of its first
// "listening" line on addr. Each write is an occurrence of writes, so that
// a test can wait for a line (see waitLog).
type logWriter struct {
	mu     sync.Mutex // protects buf and sent
	buf    bytes.Buffer
	sent   bool
	addr   chan string
	writes *events
}

// newLogWriter returns a logWriter whose writes are occurrences of writes,
// which several logWriters may share (nil: its own).
func newLogWriter(writes *events) *logWriter {
	if writes == nil {
		writes = new(events)
	}
	return &logWriter{addr: make(chan string, 1), writes: writes}
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.buf.Write(p)
	if !l.sent {
		if _, rest, ok := strings.Cut(l.buf.String(), "msg=listening addr="); ok { // -log-format text
			addr, _, _ := strings.Cut(rest, " ")
			l.addr <- addr
			l.sent = true
		} else if _, rest, ok := strings.Cut(l.buf.String(), `"msg":"listening","addr":"`); ok { // json
			addr, _, _ := strings.Cut(rest, `"`)
			l.addr <- addr
			l.sent = true
		}
	}
	l.mu.Unlock()
	l.writes.add()
	return len(p), nil
}

func (l *logWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// lines returns how many lines of the log contain s.
func (l *logWriter) lines(s string) int {
	n := 0
	for _, line := range strings.Split(l.String(), "\n") {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// waitLog blocks until n lines of the log contain s; it fails the test
// after hangGuard.
func (l *logWriter) waitLog(t testing.TB, s string, n int) {
	t.Helper()
	l.writes.waitFunc(t, fmt.Sprintf("%d log lines with %q", n, s), func() bool { return l.lines(s) >= n })
}

// fakeClock is a clock that moves only when a test advances it. It is
// safe for concurrent use by multiple goroutines.
type fakeClock struct {
	mu  sync.Mutex // protects now
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("response %d is not JSON: %s", resp.StatusCode, data)
	}
	return resp.StatusCode, out
}

func chatJSON(t *testing.T, n int) string {
	t.Helper()
	var msgs []recap.Message
	for i := 1; i <= n; i++ {
		msgs = append(msgs,
			recap.Message{ID: fmt.Sprintf("u%d", i), Role: recap.RoleUser, Content: fmt.Sprintf("Question %d: what should we check on the payments service after deploy number %d?", i, i*7)},
			recap.Message{ID: fmt.Sprintf("a%d", i), Role: recap.RoleAssistant, Content: fmt.Sprintf("Answer %d: check the error rate, which rose to %d per minute, and roll back release v2.%d if it stays high.", i, i*13, i)})
	}
	msgs = append(msgs, recap.Message{ID: "now", Role: recap.RoleUser, Content: "What did we decide?"})
	b, err := json.Marshal(map[string]any{"messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPayloadEndToEnd(t *testing.T) {
	base := startServer(t, nil, "-trigger", "100")
	status, out := post(t, base+"/api/chats/chat-1/payload", chatJSON(t, 8))
	// 8 conversations and a question, window 2: u1..a7 are summarized.
	if status != 200 || out["summarized"] != true || out["boundary"] != "a7" {
		t.Fatalf("first payload: %d %v", status, out)
	}
	payload := out["payload"].([]any)
	if first := payload[0].(map[string]any); first["id"] != recap.SummaryIDPrefix+"a7" || first["role"] != "user" || len(payload) != 4 {
		t.Fatalf("payload %v", payload)
	}
	// The next turn continues from the stored boundary: the summary and
	// u8 a8 are under the trigger, so nothing new is summarized.
	status, out = post(t, base+"/api/chats/chat-1/payload", chatJSON(t, 9))
	if status != 200 || out["boundary"] != "a7" || out["summarized"] != false || len(out["payload"].([]any)) != 6 {
		t.Fatalf("second payload: %d %v", status, out)
	}
	// Another chat is independent.
	status, out = post(t, base+"/api/chats/other/payload", chatJSON(t, 1))
	if status != 200 || out["summarized"] != false || out["boundary"] != "" {
		t.Fatalf("other chat: %d %v", status, out)
	}
}

func TestSummarizeEndpoint(t *testing.T) {
	base := startServer(t, nil)
	body := `{"messages":[
		{"id":"s","role":"system","content":"The user is planning a trip to Japan in April with 2000 euros."},
		{"id":"u3","role":"user","content":"I am vegetarian. Where should I eat in Kyoto?"},
		{"id":"a3","role":"assistant","content":"Try shojin ryori at Shigetsu in Tenryu-ji; it costs about 4000 yen."}]}`
	status, out := post(t, base+"/api/summarize", body)
	summary, _ := out["summary"].(string)
	if status != 200 || !strings.Contains(summary, "Japan") || !strings.Contains(summary, "vegetarian") {
		t.Fatalf("summarize: %d %v", status, out)
	}
}

func TestBadRequests(t *testing.T) {
	base := startServer(t, nil)
	big := `{"messages":[{"id":"1","role":"user","content":"` + strings.Repeat("x", MaxBodyBytes) + `"}]}`
	tests := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"NotJSON", "/api/chats/c/payload", `{"messages": [`, 400, "body: invalid JSON"},
		{"BadSyntax", "/api/chats/c/payload", `{"messages": [}`, 400, "body: invalid JSON at byte"},
		{"Empty", "/api/chats/c/payload", ``, 400, "body: empty"},
		{"NoMessages", "/api/chats/c/payload", `{}`, 400, "messages: required"},
		{"EmptyMessages", "/api/chats/c/payload", `{"messages":[]}`, 400, "messages: must not be empty"},
		{"WrongType", "/api/chats/c/payload", `{"messages":"hi"}`, 400, "messages: expected"},
		{"UnknownFieldIgnored", "/api/chats/c/payload", `{"mesages":[{"id":"1","role":"user","content":"a"}]}`, 400, "messages: required"},
		{"MissingUIMessageID", "/api/chats/c/payload", `{"messages":[{"role":"user","parts":[{"type":"text","text":"hi"}]}]}`, 400, "messages[0]: no ID: an AI SDK UIMessage carries its own \"id\", made by generateId"},
		{"DuplicateID", "/api/chats/c/payload", `{"messages":[{"id":"1","role":"user","content":"a"},{"id":"1","role":"assistant","content":"b"}]}`, 400, "messages[1]: same ID as messages[0]"},
		{"BadRole", "/api/chats/c/payload", `{"messages":[{"id":"1","role":"wizard","content":"a"}]}`, 400, `messages[0]: unknown role "wizard"`},
		{"NoUser", "/api/chats/c/payload", `{"messages":[{"id":"1","role":"system","content":"a"}]}`, 400, "no user message"},
		{"TooLarge", "/api/chats/c/payload", big, 413, "body: larger than"},
		{"SummarizeBadRole", "/api/summarize", `{"messages":[{"id":"1","role":"wizard","content":"a"}]}`, 400, "messages[0]: role"},
		{"SummarizeOnlyPrevious", "/api/summarize", `{"messages":[{"id":"1","role":"system","content":"a"}]}`, 400, "nothing to summarize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := post(t, base+tt.path, tt.body)
			if status != tt.status || !strings.Contains(fmt.Sprint(out["error"]), tt.want) {
				t.Errorf("%s: %d %v, want %d with %q", tt.name, status, out, tt.status, tt.want)
			}
		})
	}
	resp, err := http.Get(base + "/api/chats/c/payload")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET payload: %d, want 405", resp.StatusCode)
	}
	resp, err = http.Post(base+"/api/chats/c/payload", "text/plain", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d, want 415", resp.StatusCode)
	}
}

func TestConcurrentRequests(t *testing.T) {
	base := startServer(t, nil, "-trigger", "100")
	body := chatJSON(t, 10)
	var wg sync.WaitGroup
	boundaries := make([]string, 20)
	for i := range boundaries {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			status, out := post(t, base+"/api/chats/shared/payload", body)
			if status != 200 {
				t.Errorf("request %d: %d %v", i, status, out)
				return
			}
			boundaries[i], _ = out["boundary"].(string)
		}(i)
	}
	wg.Wait()
	for i, b := range boundaries {
		if b != "a9" {
			t.Errorf("request %d saw boundary %q, want a9", i, b)
		}
	}
}

func TestBadFlags(t *testing.T) {
	noEnv := func(string) string { return "" }
	if err := run(context.Background(), []string{"-nope"}, noEnv, io.Discard, io.Discard, time.Now); !errors.Is(err, errUsage) {
		t.Errorf("bad flag: %v, want errUsage", err)
	}
	env := func(k string) string {
		if k == "RECAP_SUMMARY_TRIGGER_TOKENS" {
			return "lots"
		}
		return ""
	}
	err := run(context.Background(), []string{"-insecure-no-auth", "-addr", "127.0.0.1:0", "-db", filepath.Join(t.TempDir(), "x.db")}, env, io.Discard, io.Discard, time.Now)
	if err == nil || !strings.Contains(err.Error(), "RECAP_SUMMARY_TRIGGER_TOKENS") {
		t.Errorf("bad env: %v, want an error naming the variable", err)
	}
}

func TestPostgresBackend(t *testing.T) {
	dsn := postgresDSN(t)
	base := startServer(t, nil, "-postgres", dsn, "-trigger", "100")
	chat := fmt.Sprintf("pg-%d", os.Getpid())
	status, out := post(t, base+"/api/chats/"+chat+"/payload", chatJSON(t, 8))
	if status != 200 || out["boundary"] != "a7" {
		t.Fatalf("payload on postgres: %d %v", status, out)
	}
}

// newHandler returns the service's handler on a memory store, with the
// extractive summarizer unless sum is given, and the buffer it logs to.
func newHandler(t *testing.T, sum recap.Summarizer, opts ...recap.Option) (http.Handler, *logWriter) {
	t.Helper()
	return newHandlerConfig(t, sum, testConfig(), opts...)
}

// testConfig returns the Config of the flags' defaults, without
// authentication, allowing the Host of httptest.NewRequest (example.com).
func testConfig() Config {
	return Config{Timeout: time.Minute, SummarizeRate: DefaultSummarizeRate, SummarizeBurst: DefaultSummarizeBurst,
		MaxMessages: DefaultMaxMessages, MaxConcurrent: DefaultMaxConcurrent, QueueWait: DefaultQueueWait,
		AllowedHosts: []string{"example.com"}}
}

// newHandlerConfig is newHandler with cfg.
func newHandlerConfig(t *testing.T, sum recap.Summarizer, cfg Config, opts ...recap.Option) (http.Handler, *logWriter) {
	t.Helper()
	if sum == nil {
		counter, err := tokens.NewTiktoken(tokens.O200kBase)
		if err != nil {
			t.Fatal(err)
		}
		sum, _, _, err = setup.Summarizers(func(string) (string, bool) { return "", false }, counter, 100, newLLM)
		if err != nil {
			t.Fatal(err)
		}
	}
	logs := newLogWriter(nil)
	st := recap.NewMemoryStore()
	c, err := recap.New(sum, st, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return NewServer(newTestLogger(logs), cfg, c, st, sum), logs
}

// newTestLogger returns a logger like the server's, writing to w.
func newTestLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// serve sends one request to h and returns the recorded response.
func serve(h http.Handler, ctx context.Context, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// aiSDKBody is a request body exactly as the AI SDK's DefaultChatTransport
// (what useChat uses by default) posts it: its body option's fields, then
// id, messages, trigger and messageId (left out by JSON.stringify when
// undefined, as on a submit).
func aiSDKBody(t *testing.T, id, trigger, messageID string) string {
	t.Helper()
	var msgs []map[string]any
	for i := 1; i <= 6; i++ {
		msgs = append(msgs,
			map[string]any{"id": fmt.Sprintf("u%d", i), "role": "user", "parts": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Question %d about the payments service and deploy %d: what should we check?", i, i*7)}}},
			map[string]any{"id": fmt.Sprintf("a%d", i), "role": "assistant", "metadata": map[string]any{"model": "m"}, "parts": []any{
				map[string]any{"type": "step-start"},
				map[string]any{"type": "tool-getLogs", "toolCallId": fmt.Sprintf("c%d", i), "state": "output-available", "input": map[string]any{"service": "payments"}, "output": map[string]any{"errors": i * 13}},
				map[string]any{"type": "text", "text": fmt.Sprintf("Answer %d: the error rate rose to %d per minute; roll back v2.%d if it stays high.", i, i*13, i), "state": "done"},
			}})
	}
	msgs = append(msgs, map[string]any{"id": "now", "role": "user", "parts": []any{map[string]any{"type": "text", "text": "What did we decide?"}}})
	body := map[string]any{"userTimezone": "Europe/Lisbon", "id": id, "messages": msgs, "trigger": trigger}
	if messageID != "" {
		body["messageId"] = messageID
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAISDKTransportBody: the body of useChat's default transport is
// accepted on both payload routes and by /api/summarize; its id names the
// chat where the path does not, and fields the server does not use are
// ignored.
func TestAISDKTransportBody(t *testing.T) {
	base := startServer(t, nil, "-trigger", "100")
	tests := []struct {
		name, reason, path, body string
		status                   int
		want                     string // in the error, or the boundary
	}{
		{"BodyID", "the body's id names the chat", "/api/payload", aiSDKBody(t, "chat-a", "submit-message", ""), 200, "a5"},
		{"Regenerate", "a regenerate carries a messageId", "/api/payload", aiSDKBody(t, "chat-b", "regenerate-message", "a6"), 200, "a5"},
		{"PathAndBodyAgree", "the same id in the path and the body", "/api/chats/chat-c/payload", aiSDKBody(t, "chat-c", "submit-message", ""), 200, "a5"},
		{"PathOnly", "an empty body id leaves the path's", "/api/chats/chat-d/payload", aiSDKBody(t, "", "submit-message", ""), 200, "a5"},
		{"PathAndBodyDiffer", "two different ids are an error naming both", "/api/chats/chat-e/payload", aiSDKBody(t, "chat-f", "submit-message", ""), 400, `id: the body's "chat-f" differs from the path's "chat-e"`},
		{"NoID", "without a path, the body must name the chat", "/api/payload", aiSDKBody(t, "", "submit-message", ""), 400, "id: required"},
		{"LongID", "a chat id is at most 200 bytes", "/api/payload", aiSDKBody(t, strings.Repeat("x", 201), "submit-message", ""), 400, "id: must be 1 to 200 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := post(t, base+tt.path, tt.body)
			got := fmt.Sprint(out["error"])
			if status == 200 {
				got = fmt.Sprint(out["boundary"])
			}
			if status != tt.status || !strings.Contains(got, tt.want) {
				t.Errorf("%s: %d %v, want %d with %q", tt.reason, status, out, tt.status, tt.want)
			}
		})
	}
	// The bodies the real SDK posted, captured by examples/aisdk/gen.mjs
	// (in the repository, beside this module, not in the module alone).
	if _, err := os.Stat(filepath.Join("..", "aisdk", "testdata")); err != nil {
		t.Skipf("the AI SDK bodies are in the repository's examples/aisdk: %v", err)
	}
	bodies, err := filepath.Glob(filepath.Join("..", "aisdk", "testdata", "*.body.json"))
	if err != nil || len(bodies) == 0 {
		t.Fatalf("no AI SDK bodies in ../aisdk/testdata: %v", err)
	}
	for _, file := range bodies {
		t.Run(filepath.Base(file), func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			status, out := post(t, base+"/api/payload", string(body))
			if status != 200 || out["summarized"] != true {
				t.Errorf("the AI SDK's body: %d %v", status, out["error"])
			}
		})
	}
	t.Run("Summarize", func(t *testing.T) {
		status, out := post(t, base+"/api/summarize", aiSDKBody(t, "chat-g", "submit-message", ""))
		// The offline summarizer quotes the chat's messages.
		if status != 200 || !strings.Contains(fmt.Sprint(out["summary"]), `: "`) {
			t.Errorf("/api/summarize with the transport's body: %d %v", status, out)
		}
	})
}

// TestClientGone: a request whose client has gone is no server error: it
// is logged at Info as "client gone", never at ERROR, and answered 499.
func TestClientGone(t *testing.T) {
	sum := recap.SummarizerFunc(func(ctx context.Context, _ recap.SummarizeRequest) (string, error) {
		<-ctx.Done() // the client leaves while the summary is made
		return "", ctx.Err()
	})
	tests := []struct{ name, path, body string }{
		{"Payload", "/api/chats/gone/payload", chatJSON(t, 8)},
		{"Summarize", "/api/summarize", chatJSON(t, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, logs := newHandler(t, sum, recap.WithTriggerTokens(100))
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			w := serve(h, ctx, tt.path, tt.body)
			if w.Code != 499 || strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), `msg="client gone"`) {
				t.Errorf("cancelled request: %d %s\nlog:\n%s", w.Code, w.Body, logs)
			}
		})
	}
}

// TestErrorsQuoteLittle: an error message quotes at most a little of the
// request, so that a huge field is neither echoed back nor logged whole.
func TestErrorsQuoteLittle(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	tests := []struct{ name, path, body, want string }{
		{"ObjectID", "/api/chats/c/payload", `{"messages":[{"id":{"k":"` + huge + `"},"role":"user","content":"hi"}]}`, "messages[0]: "},
		{"NumberID", "/api/payload", `{"id":"c","messages":[{"id":1` + strings.Repeat("0", 1<<20) + `,"role":"user","content":"hi"}]}`, "messages[0]: "},
		{"Role", "/api/chats/c/payload", `{"messages":[{"id":"1","role":"` + huge + `","content":"hi"}]}`, `messages[0]: unknown role "xxx`},
		{"SummarizeRole", "/api/summarize", `{"messages":[{"id":"1","role":"` + huge + `","content":"hi"}]}`, `messages[0]: role: unknown role "xxx`},
		{"IDs", "/api/chats/" + strings.Repeat("p", 150) + "/payload", `{"id":"` + huge + `","messages":[{"id":"1","role":"user","content":"hi"}]}`, `id: the body's "xxx`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, logs := newHandler(t, nil)
			w := serve(h, context.Background(), tt.path, tt.body)
			var out errorResponse
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != 400 || !strings.HasPrefix(out.Error, tt.want) {
				t.Fatalf("%d %.300s, want 400 with %q", w.Code, w.Body, tt.want)
			}
			if len(out.Error) > 300 || !strings.Contains(out.Error, "…") && !strings.Contains(out.Error, "...") {
				t.Errorf("error of %d bytes, want at most 300, cut with …: %.400s", len(out.Error), out.Error)
			}
			if n := len(logs.String()); n > 1000 {
				t.Errorf("log of %d bytes, want at most 1000: %.1200s", n, logs)
			}
		})
	}
}

// TestPayloadScheduled: a payload answer says "scheduled": true while a
// background summarization of the chat is pending or running, and leaves
// the field out once it ran (its summary is then in the answer).
func TestPayloadScheduled(t *testing.T) {
	var tasks []func(context.Context)
	h, _ := newHandler(t, nil, recap.WithTriggerTokens(100),
		recap.WithBackground(func(task func(context.Context)) { tasks = append(tasks, task) }))
	answer := func(when string) map[string]any {
		t.Helper()
		w := serve(h, context.Background(), "/api/chats/c/payload", chatJSON(t, 8))
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != 200 {
			t.Fatalf("%s: %d %s", when, w.Code, w.Body)
		}
		return out
	}
	out := answer("trigger fires")
	if out["scheduled"] != true || out["summarized"] != false || len(tasks) != 1 {
		t.Fatalf("when the trigger fires: scheduled %v, summarized %v, %d tasks; want true, false, 1", out["scheduled"], out["summarized"], len(tasks))
	}
	if out := answer("task pending"); out["scheduled"] != true || len(tasks) != 1 {
		t.Errorf("while the task is pending: scheduled %v, %d tasks; want true and no second task", out["scheduled"], len(tasks))
	}
	tasks[0](context.Background())
	out = answer("task ran")
	if _, ok := out["scheduled"]; ok || out["boundary"] != "a7" {
		t.Errorf("after the task ran: scheduled %v, boundary %v; want no scheduled field and the task's summary (a7)", out["scheduled"], out["boundary"])
	}
}

// TestSummarizePrevious: /api/summarize takes the old summary from its
// "previous" field, or, without one, from a leading system message (the
// seed client's convention), and its answer says which ("previousFrom");
// "previous": "" says there is none, so that a chat opening with its
// system prompt is summarized with the prompt as a message.
func TestSummarizePrevious(t *testing.T) {
	const (
		system = `{"id":"s","role":"system","content":"You are a travel assistant."}`
		user   = `{"id":"u1","role":"user","content":"I am vegetarian. Where should I eat in Kyoto?"}`
		answer = `{"id":"a1","role":"assistant","content":"Try shojin ryori at Shigetsu."}`
	)
	tests := []struct {
		name, reason, body string
		wantPrevious       string   // what the summarizer is given as the old summary
		wantMessages       []string // the IDs of the messages it is given
		wantFrom           any      // the answer's previousFrom; nil: left out
	}{
		{"SeedConvention", "without previous, a leading system message is the old summary",
			`{"messages":[` + system + `,` + user + `,` + answer + `]}`, "You are a travel assistant.", []string{"u1", "a1"}, "messages[0]"},
		{"NullIsAbsent", "previous: null is no field",
			`{"previous":null,"messages":[` + system + `,` + user + `]}`, "You are a travel assistant.", []string{"u1"}, "messages[0]"},
		{"ExplicitlyEmpty", "previous: \"\": no old summary, the system prompt is a message to summarize",
			`{"previous":"","messages":[` + system + `,` + user + `,` + answer + `]}`, "", []string{"s", "u1", "a1"}, nil},
		{"OnlyTheSystemPrompt", "previous: \"\" with the system prompt alone summarizes it",
			`{"previous":"","messages":[` + system + `]}`, "", []string{"s"}, nil},
		{"Given", "previous given: it is the old summary, every message is summarized",
			`{"previous":"The user plans a trip to Japan.","messages":[` + system + `,` + user + `]}`, "The user plans a trip to Japan.", []string{"s", "u1"}, "previous"},
		{"NoSystem", "without previous or a system message there is no old summary",
			`{"messages":[` + user + `,` + answer + `]}`, "", []string{"u1", "a1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got recap.SummarizeRequest
			sum := recap.SummarizerFunc(func(_ context.Context, req recap.SummarizeRequest) (string, error) {
				got = req
				return "a new summary", nil
			})
			h, _ := newHandler(t, sum)
			w := serve(h, context.Background(), "/api/summarize", tt.body)
			var out map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != 200 || out["summary"] != "a new summary" {
				t.Fatalf("%s: %d %s", tt.reason, w.Code, w.Body)
			}
			var ids []string
			for _, m := range got.Messages {
				ids = append(ids, m.ID)
			}
			if got.Previous != tt.wantPrevious || fmt.Sprint(ids) != fmt.Sprint(tt.wantMessages) || out["previousFrom"] != tt.wantFrom {
				t.Errorf("%s: the summarizer got previous %q and messages %v, the answer says previousFrom %v; want %q, %v, %v",
					tt.reason, got.Previous, ids, out["previousFrom"], tt.wantPrevious, tt.wantMessages, tt.wantFrom)
			}
		})
	}
	t.Run("NotAString", func(t *testing.T) {
		h, _ := newHandler(t, nil)
		w := serve(h, context.Background(), "/api/summarize", `{"previous":42,"messages":[`+user+`]}`)
		if w.Code != 400 || !strings.Contains(w.Body.String(), "previous: expected a string or null, got JSON number") {
			t.Errorf("previous: 42: %d %s, want a 400 naming the field", w.Code, w.Body)
		}
	})
}
