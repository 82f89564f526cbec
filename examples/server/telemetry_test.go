package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

	"github.com/recapgo/recap/internal/apitest"
)

// TestRequestIDs: every response carries an X-Request-ID, a client's
// plain one is kept, anything else replaced; the JSON log lines about a
// request carry it.
func TestRequestIDs(t *testing.T) {
	logs := newLogWriter(nil)
	base := startServerLogs(t, nil, logs, "-log-format=json")
	tests := []struct {
		name, sent string
		kept       bool
	}{
		{"None", "", false},
		{"Plain", "req-42.a_b", true},
		{"TooLong", strings.Repeat("x", maxRequestID+1), false},
		{"Injection", "a\" b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", base+"/api/chats/c/payload", strings.NewReader(`{"messages":[]}`))
			if tt.sent != "" {
				req.Header.Set("X-Request-ID", tt.sent)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			id := resp.Header.Get("X-Request-ID")
			if tt.kept && id != tt.sent || !tt.kept && (id == tt.sent || !plainID(id)) {
				t.Fatalf("X-Request-ID %q for %q", id, tt.sent)
			}
			found := false
			sc := bufio.NewScanner(strings.NewReader(logs.String()))
			for sc.Scan() {
				var line map[string]any
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatalf("log line is not JSON: %s", sc.Text())
				}
				if line["msg"] == "request rejected" && line["request_id"] == id {
					found = true
				}
			}
			if !found {
				t.Errorf("no log line of the request with request_id %q:\n%s", id, logs)
			}
		})
	}
}

// TestMetricsEndpoint: /metrics serves recap's metrics and the HTTP
// server's for Prometheus, with no tenant or chat in them.
func TestMetricsEndpoint(t *testing.T) {
	llm := apitest.New(t, "/chat/completions", apitest.Response{Status: 200, Body: chatCompletion("The user asked about the payments service.")})
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test", "RECAP_MODEL": "gpt-test"}
	keys := filepath.Join(t.TempDir(), "keys")
	writeFile(t, keys, "acme-corp key-of-acme-0123456789\n")
	base := startServer(t, env, "-trigger", "100", "-api-keys", keys)
	req, _ := http.NewRequest("POST", base+"/api/chats/secret-chat/payload", strings.NewReader(chatJSON(t, 8)))
	req.Header.Set("Authorization", "Bearer key-of-acme-0123456789")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	resp, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	for _, want := range []string{
		`recap_compress_requests_total{`,
		`recap_outcome="summarized"`,
		`recap_summarizations_total{`,
		`recap_tokens_saved_total{`,
		`gen_ai_client_token_usage_bucket{`,
		`gen_ai_request_model="gpt-test"`,
		`gen_ai_client_operation_duration_seconds_bucket{`,
		`recap_circuit_state{`,
		`http_server_request_duration_seconds_bucket{`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, leak := range []string{"acme", "secret-chat", "key-of"} {
		if strings.Contains(text, leak) {
			t.Errorf("/metrics holds %q", leak)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

// TestTracesExported: with -otlp-endpoint, the request's span and the
// summarization's (its child, with the tenant and the chat) reach the
// collector, at the latest on shutdown.
func TestTracesExported(t *testing.T) {
	var mu sync.Mutex
	var got bytes.Buffer
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		mu.Lock()
		got.Write(data)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	llm := apitest.New(t, "/chat/completions", apitest.Response{Status: 200, Body: chatCompletion("The user asked about the payments service.")})
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test", "RECAP_MODEL": "gpt-test"}
	keys := filepath.Join(t.TempDir(), "keys")
	writeFile(t, keys, "acme-corp key-of-acme-0123456789\n")
	logs := newLogWriter(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		defer close(logs.addr)
		done <- run(ctx, []string{"-api-keys", keys, "-addr", "127.0.0.1:0", "-db", filepath.Join(t.TempDir(), "recap.db"),
			"-trigger", "100", "-background=false", "-otlp-endpoint", collector.URL}, func(k string) string { return env[k] }, io.Discard, logs, time.Now)
	}()
	addr, ok := <-logs.addr
	if !ok {
		t.Fatalf("server exited: %v\n%s", <-done, logs)
	}
	base := "http://" + addr
	req, _ := http.NewRequest("POST", base+"/api/chats/chat-7/payload", strings.NewReader(chatJSON(t, 8)))
	req.Header.Set("Authorization", "Bearer key-of-acme-0123456789")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"POST /api/chats/{id}/payload", "chat gpt-test", "gen_ai.conversation.id", "chat-7", "recap.tenant", "acme-corp", "gen_ai.usage.output_tokens"} {
		if !bytes.Contains(got.Bytes(), []byte(want)) {
			t.Errorf("the exported traces lack %q", want)
		}
	}
	if bytes.Contains(got.Bytes(), []byte("key-of-acme-0123456789")) {
		t.Error("a key reached the traces")
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// chatCompletion is an OpenAI chat completion answering text.
func chatCompletion(text string) string {
	b, _ := json.Marshal(text)
	return `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":` + string(b) + `},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`
}

// TestLogDurations: a duration is logged as its String() in both formats,
// not as nanoseconds (slog's JSON handler would write "grace":30000000000),
// whoever logs it: the server's own lines (the save back-off's here, the
// shutdown's in TestShutdownGrace), recap's, or any attribute in a group.
func TestLogDurations(t *testing.T) {
	tests := []struct {
		name, reason, format string
		log                  func(*slog.Logger)
		want                 string
	}{
		{"JSON", "an attribute of the JSON log", "json", func(l *slog.Logger) { l.Info("x", "timeout", 30*time.Second) }, `"timeout":"30s"`},
		{"Text", "an attribute of the text log", "text", func(l *slog.Logger) { l.Info("x", "timeout", 1500*time.Millisecond) }, `timeout=1.5s`},
		{"Typed", "a slog.Duration attribute", "json", func(l *slog.Logger) { l.Info("x", slog.Duration("wait", 250*time.Microsecond)) }, `"wait":"250µs"`},
		{"Group", "an attribute in a group", "json", func(l *slog.Logger) { l.WithGroup("lease").Info("x", "ttl", time.Minute) }, `"lease":{"ttl":"1m0s"}`},
		{"With", "an attribute of a derived logger", "json", func(l *slog.Logger) { l.With("grace", 2*time.Second).Info("x") }, `"grace":"2s"`},
		{"Backoff", "the save back-off's line", "json", func(l *slog.Logger) {
			newSaveBackoff(l, func() time.Time { return time.Time{} }).record(context.Background(), "c", errors.New("disk full"))
		}, `"backoff":"1s"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log, err := newLogger(&buf, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			tt.log(log)
			if !strings.Contains(buf.String(), tt.want) {
				t.Errorf("%s: logged %s, want %s", tt.reason, buf.String(), tt.want)
			}
		})
	}
}
