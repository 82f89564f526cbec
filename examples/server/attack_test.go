package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/sqlstore"
	"github.com/recapgo/recap/internal/apitest"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// The service under attack (issue 23): each test plays one attack on
// loopback and asserts what the other clients still get, by counts.

// metricSeries returns the series /metrics serves (its lines that are not
// comments) and its text.
func metricSeries(t *testing.T, base string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	n := 0
	for _, line := range strings.Split(string(body), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			n++
		}
	}
	return n, string(body)
}

// TestMetricsNotLabelledByClients (F4): requests with made-up Host
// headers, paths, methods and keys, none authenticated or allowed, add no
// series to /metrics, which stays under 500 series whatever clients send,
// and holds none of what they made up. Before, HTTP metrics were recorded
// before the host check and labelled by the Host header (3,000 requests
// took /metrics from 162 to 106,056 series).
func TestMetricsNotLabelledByClients(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys")
	writeFile(t, keys, "acme key-of-acme-0123456789\n")
	base := startServer(t, nil, "-api-keys", keys)
	// One authenticated request, so that the HTTP server's metrics exist.
	req, _ := http.NewRequest("POST", base+"/api/chats/c1/payload", strings.NewReader(chatJSON(t, 4)))
	req.Header.Set("Authorization", "Bearer key-of-acme-0123456789")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	before, _ := metricSeries(t, base)
	methods := []string{"POST", "GET", "PUT", "FOO", "DELETE"}
	for i := 0; i < 600; i++ {
		req, _ := http.NewRequest(methods[i%len(methods)], fmt.Sprintf("%s/api/chats/made-up-%d/payload", base, i), strings.NewReader(`{}`))
		switch i % 3 {
		case 0:
			req.Host = fmt.Sprintf("made-up-host-%d.example", i)
		case 1:
			req.Host = fmt.Sprintf("made-up-host-%d.example", i)
			req.Header.Set("Authorization", "Bearer key-of-acme-0123456789")
		default:
			req.Header.Set("Authorization", fmt.Sprintf("Bearer made-up-key-%d", i))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Fatalf("request %d answered %s", i, resp.Status)
		}
	}
	after, text := metricSeries(t, base)
	t.Logf("/metrics: %d series before 600 rejected requests, %d after", before, after)
	if after > 500 || after > before+10 {
		t.Errorf("/metrics grew from %d to %d series with rejected requests (want at most 500, and no growth but a few outcome series)", before, after)
	}
	for _, made := range []string{"made-up", "FOO"} {
		if strings.Contains(text, made) {
			t.Errorf("/metrics holds %q, which a client made up", made)
		}
	}
}

// TestSpansCarryRouteTemplate (F8): a request's span is named by its
// route's template and none of its attributes holds the chat's ID or the
// client's Host; the handler still reads the chat's ID.
func TestSpansCarryRouteTemplate(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tel := &telemetry{tp: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), mp: metricnoop.NewMeterProvider()}
	var seen string
	mux := http.NewServeMux()
	mux.Handle("POST /api/chats/{id}/payload", tel.handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.PathValue("id")
	})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/api/chats/secret-chat-42/payload", strings.NewReader("{}"))
	req.Host = "made-up-host.example:1234"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if seen != "secret-chat-42" {
		t.Errorf("the handler read the chat ID %q", seen)
	}
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	if name := spans[0].Name(); name != "POST /api/chats/{id}/payload" {
		t.Errorf("span name %q, want the route's template", name)
	}
	for _, a := range spans[0].Attributes() {
		if v := a.Value.Emit(); strings.Contains(v, "secret-chat") || strings.Contains(v, "made-up") {
			t.Errorf("span attribute %s = %q holds what the client sent", a.Key, v)
		}
	}
}

// downStore fails every Load and Save, as a database that is down.
type downStore struct{}

func (downStore) Load(context.Context, string) (recap.Summary, error) {
	return recap.Summary{}, errors.New("connection refused")
}

func (downStore) Save(context.Context, string, recap.Summary, recap.Summary) error {
	return errors.New("connection refused")
}

// TestProbesSplit (F8): /healthz says the process is alive whatever the
// store; /readyz says 503 while the store does not answer or every request
// slot is taken, 200 otherwise. Before, /healthz said 200 with PostgreSQL
// down and there was no readiness probe.
func TestProbesSplit(t *testing.T) {
	get := func(h http.Handler, path string) int {
		r := httptest.NewRequest("GET", path, nil)
		r.Host = "10.0.0.7:8080" // a probe addresses the pod by IP
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	up, _ := newHandler(t, nil)
	c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return "s", nil }), downStore{})
	if err != nil {
		t.Fatal(err)
	}
	down := NewServer(newTestLogger(io.Discard), testConfig(), c, downStore{}, nil)
	for _, tc := range []struct {
		name string
		h    http.Handler
		path string
		want int
	}{
		{"alive, store up", up, "/healthz", 200},
		{"ready, store up", up, "/readyz", 200},
		{"alive, store down", down, "/healthz", 200},
		{"not ready, store down", down, "/readyz", 503},
	} {
		if got := get(tc.h, tc.path); got != tc.want {
			t.Errorf("%s: %s answered %d, want %d", tc.name, tc.path, got, tc.want)
		}
	}
	full := make(chan struct{}, 2)
	full <- struct{}{}
	full <- struct{}{}
	if got := get(handleReadyz(recap.NewMemoryStore(), full), "/readyz"); got != 503 {
		t.Errorf("every slot taken: /readyz answered %d, want 503", got)
	}
	<-full
	if got := get(handleReadyz(recap.NewMemoryStore(), full), "/readyz"); got != 200 {
		t.Errorf("a slot free: /readyz answered %d, want 200", got)
	}
}

// TestLargeBodyAnswered (F8): a body over MaxBodyBytes is answered 413
// with a JSON error that the client reads, not a connection reset, for a
// body with a Content-Length and for a chunked one.
func TestLargeBodyAnswered(t *testing.T) {
	base := startServer(t, nil)
	big := strings.Repeat("x", 2*MaxBodyBytes)
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprint("chunked ", chunked), func(t *testing.T) {
			for i := 0; i < 5; i++ {
				var body io.Reader = strings.NewReader(`{"messages":[{"role":"user","content":"` + big + `"}]}`)
				if chunked {
					body = io.MultiReader(body) // no length known: sent chunked
				}
				resp, err := http.Post(base+"/api/chats/c1/payload", "application/json", body)
				if err != nil {
					t.Fatalf("request %d: %v; want a 413 answer", i, err)
				}
				msg, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(msg), "larger than") {
					t.Fatalf("request %d: %s %s; want 413", i, resp.Status, msg)
				}
			}
		})
	}
}

// TestLargeBodyRawClient (F8): a client that writes its whole request
// before it reads (as curl or a simple client does) still reads the 413.
func TestLargeBodyRawClient(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys")
	writeFile(t, keys, "acme key-of-acme-0123456789\n")
	base := startServer(t, nil, "-api-keys", keys)
	for i := 0; i < 6; i++ {
		auth := "Authorization: Bearer key-of-acme-0123456789\r\n"
		if i%2 == 1 {
			auth = "" // refused before its body is read
		}
		conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		body := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 2*MaxBodyBytes) + `"}]}`
		head := fmt.Sprintf("POST /api/chats/c1/payload HTTP/1.1\r\nHost: localhost\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", auth, len(body))
		go func() {
			conn.Write([]byte(head + body)) // fails once the server closes: what it read is answered
		}()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			conn.Close()
			t.Fatalf("request %d: reading the answer: %v; want 413", i, err)
		}
		resp.Body.Close()
		conn.Close()
		if want := []int{413, 401}[i%2]; resp.StatusCode != want {
			t.Fatalf("request %d: %s, want %d", i, resp.Status, want)
		}
	}
}

// TestUnstorableIDsRefused (F5, F6): a message ID that no store can keep
// (NUL, invalid UTF-8) or longer than -max-id-bytes is a 400 naming the
// message, before any LLM call; the same chat with plain IDs is
// summarized. Before, such a chat cost an LLM call on every request and
// its summary was never saved (PostgreSQL), and 7 KB IDs were stored.
func TestUnstorableIDsRefused(t *testing.T) {
	llm := apitest.New(t, "/chat/completions", apitest.Response{Status: 200, Body: chatCompletion("The user asked about the payments service.")})
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test", "RECAP_MODEL": "gpt-test"}
	base := startServer(t, env, "-trigger", "100", "-max-id-bytes", "40")
	for _, tc := range []struct{ name, id, want string }{
		{"NUL", "a3\x00x", "must not contain NUL"},
		{"invalid UTF-8", "a3\xff", "valid UTF-8"},
		{"too long", strings.Repeat("x", 41), "more than 40"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var chat map[string][]map[string]any
			if err := json.Unmarshal([]byte(chatJSON(t, 8)), &chat); err != nil {
				t.Fatal(err)
			}
			chat["messages"][5]["id"] = tc.id
			body, _ := json.Marshal(chat)
			if !utf8.ValidString(tc.id) {
				body = []byte(strings.Replace(string(body), `"a3\ufffd"`, "\"a3\xff\"", 1)) // encoding/json would replace the byte
			}
			status, out := post(t, base+"/api/chats/c-"+strings.ReplaceAll(tc.name, " ", "-")+"/payload", string(body))
			if status != 400 || !strings.Contains(fmt.Sprint(out["error"]), "messages[5]: ") || !strings.Contains(fmt.Sprint(out["error"]), tc.want) {
				t.Fatalf("%d %v; want 400 naming messages[5]'s id", status, out)
			}
		})
	}
	if n := llm.Requests.Load(); n != 0 {
		t.Errorf("%d LLM calls for refused requests, want 0", n)
	}
	if status, out := post(t, base+"/api/chats/plain/payload", chatJSON(t, 8)); status != 200 || out["summarized"] != true {
		t.Fatalf("the chat with plain IDs: %d %v", status, out)
	}
}

// TestRejectionLogThrottled (F8): 20,000 rejected requests within 9.5 s
// write at most the burst and the rate's lines, each later line says how
// many it stands for, and other lines are never dropped. Before, each
// rejection wrote a line: 20,000 lines in 9.5 s.
func TestRejectionLogThrottled(t *testing.T) {
	var buf strings.Builder
	now := time.Unix(0, 0)
	log := slog.New(newThrottle(slog.NewTextHandler(&buf, nil), func() time.Time { return now }))
	for i := 0; i < 20000; i++ {
		log.Info("request rejected", "status", 401)
		if i%1000 == 0 {
			log.Warn("save failed") // not throttled
		}
		now = now.Add(475 * time.Microsecond) // 20,000 in 9.5 s
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	rejected, other, suppressed := 0, 0, 0
	for _, l := range lines {
		switch {
		case strings.Contains(l, "request rejected"):
			rejected++
			if _, after, ok := strings.Cut(l, "suppressed="); ok {
				n, _ := strconv.Atoi(strings.Fields(after)[0])
				suppressed += n
			}
		case strings.Contains(l, "save failed"):
			other++
		}
	}
	if max := rejectLogBurst + int(9.5*rejectLogRate) + 1; rejected > max {
		t.Errorf("%d lines of rejections in 9.5 s, want at most %d", rejected, max)
	}
	if other != 20 {
		t.Errorf("%d other lines, want all 20", other)
	}
	if rejected+suppressed < 19000 {
		t.Errorf("%d lines standing for %d suppressed: the count is lost", rejected, suppressed)
	}
}

// TestUsageTenants (F8): the Calibrator is shared by every tenant, so
// with several tenants only those of -usage-tenants may report usage; the
// others get a 403 and move nothing. Before, one tenant's reports changed
// every tenant's counts.
func TestUsageTenants(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys")
	writeFile(t, keys, "ops key-of-ops-0123456789\nacme key-of-acme-0123456789\n")
	base := startServer(t, nil, "-api-keys", keys, "-chat-model", "provider-x", "-usage-tenants", "ops")
	report := func(key string) (int, map[string]any) {
		msgs := chatMessagesJSON(t)
		req, _ := http.NewRequest("POST", base+"/api/usage", strings.NewReader(`{"messages":`+msgs+`,"inputTokens":60}`))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	if status, out := report("key-of-acme-0123456789"); status != 403 {
		t.Errorf("a tenant not in -usage-tenants: %d %v, want 403", status, out)
	}
	status, out := report("key-of-ops-0123456789")
	if status != 200 || out["observations"] != 1.0 {
		t.Errorf("a tenant of -usage-tenants: %d %v, want 200 and the first observation", status, out)
	}
}

// chatMessagesJSON returns a short chat's messages as a JSON array.
func chatMessagesJSON(t *testing.T) string {
	var chat map[string]json.RawMessage
	if err := json.Unmarshal([]byte(chatJSON(t, 2)), &chat); err != nil {
		t.Fatal(err)
	}
	return string(chat["messages"])
}

// TestStuckLLM (F3): the LLM never answers and every request summarizes
// in the foreground: at most -max-llm-calls requests wait for it; the
// others are summarized by the offline fallback at once and answered 200
// with a warning, while the stuck calls still hold on. Before, each
// request held one of -max-concurrent slots for the whole summarize
// timeout, and the others got 503 (170 of 174 in the first minute).
func TestStuckLLM(t *testing.T) {
	var arrived events
	release := make(chan struct{})
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.add()
		select { // stuck until the test is done with it
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer llm.Close()
	defer close(release)
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test", "RECAP_MODEL": "gpt-test"}
	base := startServer(t, env, "-trigger", "100", "-max-concurrent", "4", "-queue-wait", "20s",
		"-max-llm-calls", "1", "-timeout", (2 * hangGuard).String())
	const n = 20
	type answer struct {
		status  int
		warning string
	}
	answers := make(chan answer, n)
	for i := 0; i < n; i++ {
		go func() {
			status, out := post(t, fmt.Sprintf("%s/api/chats/stuck-%d/payload", base, i), chatJSON(t, 8))
			answers <- answer{status, fmt.Sprint(out["warning"])}
		}()
	}
	// Every request but the one the stuck LLM holds is answered while it
	// still holds it.
	for i := 0; i < n-1; i++ {
		select {
		case a := <-answers:
			if a.status != 200 || !strings.Contains(a.warning, "fallback") {
				t.Errorf("answer %d: %d %q; want 200 with the fallback's warning", i, a.status, a.warning)
			}
		case <-time.After(hangGuard):
			t.Fatalf("%d of %d requests answered while the LLM was stuck; want %d", i, n, n-1)
		}
	}
	if got := arrived.count(); got != 1 {
		t.Errorf("%d LLM calls in flight, want 1 (-max-llm-calls)", got)
	}
}

// TestTenantLLMBudget (F6): one tenant's requests, each folding a long
// backlog in many chunks, cost at most -tenant-llm-per-minute LLM calls
// in a minute (the offline fallback folds the rest), and another tenant's
// chats still get the LLM. Before, one 8 MB request cost 40 calls, with no
// limit per tenant on the payload routes.
func TestTenantLLMBudget(t *testing.T) {
	llm := apitest.New(t, "/chat/completions", apitest.Response{Status: 200, Body: chatCompletion("A summary of the payments service.")})
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test", "RECAP_MODEL": "gpt-test"}
	keys := filepath.Join(t.TempDir(), "keys")
	writeFile(t, keys, "flood key-of-flood-0123456789\nquiet key-of-quiet-0123456789\n")
	now := time.Unix(0, 0) // frozen: no token comes back during the test
	base := startServerClock(t, env, newLogWriter(nil), func() time.Time { return now },
		"-api-keys", keys, "-trigger", "100", "-max-summarize-input", "200", "-tenant-llm-per-minute", "5", "-max-llm-calls", "100")
	send := func(key, chat string, n int) (int, map[string]any) {
		req, _ := http.NewRequest("POST", base+"/api/chats/"+chat+"/payload", strings.NewReader(chatJSON(t, n)))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	for i := 0; i < 3; i++ {
		if status, out := send("key-of-flood-0123456789", fmt.Sprint("flood-", i), 40); status != 200 || out["summarized"] != true {
			t.Fatalf("flood %d: %d %v", i, status, out)
		}
	}
	if n := llm.Requests.Load(); n != 5 {
		t.Errorf("the flooding tenant cost %d LLM calls in a minute, want 5 (-tenant-llm-per-minute)", n)
	}
	if status, out := send("key-of-quiet-0123456789", "quiet", 8); status != 200 || out["summarized"] != true || out["warning"] != nil {
		t.Fatalf("the other tenant: %d %v; want summarized by the LLM, no warning", status, out)
	}
	if n := llm.Requests.Load(); n <= 5 {
		t.Errorf("%d LLM calls after the other tenant's request: it got none", n)
	}
}

// TestStoredBytesCap (F6): a chat whose summary would store more than
// -max-stored-bytes (long message IDs) is not saved: its requests are
// answered with a warning that says why, and the chat backs off the LLM
// (one call, not one per request). Before, 7 KB message IDs stored 6.7 MiB
// for one chat.
func TestStoredBytesCap(t *testing.T) {
	llm := apitest.New(t, "/chat/completions", apitest.Response{Status: 200, Body: chatCompletion("A summary of the payments service.")})
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test", "RECAP_MODEL": "gpt-test"}
	now := time.Unix(0, 0)
	base := startServerClock(t, env, newLogWriter(nil), func() time.Time { return now },
		"-trigger", "100", "-max-id-bytes", "1000", "-max-stored-bytes", "4000")
	var chat map[string][]map[string]any
	if err := json.Unmarshal([]byte(chatJSON(t, 8)), &chat); err != nil {
		t.Fatal(err)
	}
	for i, m := range chat["messages"] {
		m["id"] = fmt.Sprintf("%d-%s", i, strings.Repeat("x", 900))
	}
	body, _ := json.Marshal(chat)
	for i := 0; i < 5; i++ {
		status, out := post(t, base+"/api/chats/long-ids/payload", string(body))
		if status != 200 || !strings.Contains(fmt.Sprint(out["warning"]), "too large to store") && !strings.Contains(fmt.Sprint(out["warning"]), "backing off") {
			t.Fatalf("request %d: %d %v; want 200 with a warning that the summary is too large", i, status, out)
		}
	}
	if n := llm.Requests.Load(); n != 1 {
		t.Errorf("%d LLM calls for 5 requests of a chat that cannot be stored, want 1", n)
	}
	if status, out := post(t, base+"/api/chats/short-ids/payload", chatJSON(t, 8)); status != 200 || out["summarized"] != true || out["warning"] != nil {
		t.Errorf("another chat: %d %v", status, out)
	}
}

// TestAlternatingHistories (F6): two histories of one chat sent
// alternately (two tabs after an edit) cost each one summarization, not
// one a request: the Compressor plans each against the summary it made
// for it (see recap's branch memory). Before, 5 calls a request.
func TestAlternatingHistories(t *testing.T) {
	llm := apitest.New(t, "/chat/completions", apitest.Response{Status: 200, Body: chatCompletion("A summary of the payments service.")})
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test", "RECAP_MODEL": "gpt-test"}
	base := startServer(t, env, "-trigger", "100")
	a := chatJSON(t, 8)
	b := strings.Replace(a, "Question 2:", "Question 2 (edited):", 1)
	for i := 0; i < 20; i++ {
		body := a
		if i%2 == 1 {
			body = b
		}
		if status, out := post(t, base+"/api/chats/tabs/payload", body); status != 200 || out["warning"] != nil {
			t.Fatalf("request %d: %d %v", i, status, out)
		}
	}
	if n := llm.Requests.Load(); n > 2 {
		t.Errorf("20 requests alternating two histories cost %d LLM calls, want at most 2", n)
	}
}

// TestSlowUploadsFair (F2): one tenant opens 4 uploads that send their
// headers and then a byte now and then; another tenant's 25 requests are
// answered 200 meanwhile, since one tenant holds at most
// -tenant-max-concurrent (half of -max-concurrent) slots, and its uploads
// beyond wait for its share, holding none, then are refused. Before, the uploads held all 4 slots for the
// read timeout, and the other tenant got 503 on 15 of 25 requests.
func TestSlowUploadsFair(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys")
	writeFile(t, keys, "slow key-of-slow-0123456789\nfast key-of-fast-0123456789\n")
	base := startServer(t, nil, "-api-keys", keys, "-max-concurrent", "4", "-queue-wait", "2s")
	addr := strings.TrimPrefix(base, "http://")
	refused := make(chan int, 4)
	for i := 0; i < 4; i++ {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		fmt.Fprintf(conn, "POST /api/chats/up-%d/payload HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer key-of-slow-0123456789\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n{", i)
		go func() {
			// An upload that is refused is answered before its body.
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err == nil {
				resp.Body.Close()
				refused <- resp.StatusCode
			}
		}()
	}
	for i := 0; i < 2; i++ { // two of the four are refused after -queue-wait; two hold their slots
		select {
		case status := <-refused:
			if status != http.StatusTooManyRequests {
				t.Errorf("a slow upload beyond the tenant's share: %d, want 429", status)
			}
		case <-time.After(hangGuard):
			t.Fatal("no slow upload was refused")
		}
	}
	ok := 0
	for i := 0; i < 25; i++ {
		req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/chats/fast-%d/payload", base, i), strings.NewReader(chatJSON(t, 2)))
		req.Header.Set("Authorization", "Bearer key-of-fast-0123456789")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			ok++
		}
	}
	if ok < 24 {
		t.Errorf("%d of the other tenant's 25 requests answered 200 while the slow uploads ran, want at least 24 (95%%)", ok)
	}
}

// dialFrom opens a connection to addr from the loopback address from
// (127.0.0.x: a client of its own).
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// probe sends GET /healthz on c and reports whether it was answered 200.
func probe(c net.Conn) bool {
	c.Write([]byte("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"))
	c.SetReadDeadline(time.Now().Add(hangGuard))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// TestIdleConnectionsCannotStarve (F1): one address opens idle
// connections up to the whole -max-conns (more than -max-conns-per-ip are
// closed at once); clients at other addresses are still served at once,
// each time, by closing an idle connection to make room. Before, 5,000
// idle connections left new ones in the backlog for about 40 s.
func TestIdleConnectionsCannotStarve(t *testing.T) {
	base := startServer(t, nil, "-max-conns", "40", "-max-conns-per-ip", "20")
	addr := strings.TrimPrefix(base, "http://")
	var attack []net.Conn
	for i := 0; i < 30; i++ { // from one address: 20 kept, 10 closed at once
		attack = append(attack, dialFrom(t, "127.0.0.2", addr))
	}
	for i := 0; i < 30; i++ { // from a second: 20 more, the server is full
		attack = append(attack, dialFrom(t, "127.0.0.3", addr))
	}
	closed := 0
	for _, c := range attack[20:30] {
		c.SetReadDeadline(time.Now().Add(hangGuard))
		if n, err := c.Read(make([]byte, 1)); n == 0 && err != nil {
			closed++
		}
	}
	if closed != 10 {
		t.Errorf("%d of the 10 connections over -max-conns-per-ip were closed, want 10", closed)
	}
	served := 0
	for i := 0; i < 25; i++ {
		if probe(dialFrom(t, fmt.Sprintf("127.0.0.%d", 10+i), addr)) {
			served++
		}
	}
	if served != 25 {
		t.Errorf("%d of 25 probes from other addresses served while idle connections filled -max-conns, want 25", served)
	}
	_, text := metricSeries(t, base)
	for _, want := range []string{`recap_server_connections_closed_total{`, `reason="shed"`, `reason="refused"`} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestTenantRateEveryRoute (F2): with several tenants, one tenant's flood
// on a payload route is answered 429 with Retry-After beyond its rate, on
// the server's clock, while another tenant's requests go through; before,
// only /api/summarize had a per-tenant rate.
func TestTenantRateEveryRoute(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys")
	writeFile(t, keys, "flood key-of-flood-0123456789\nquiet key-of-quiet-0123456789\n")
	now := time.Unix(0, 0) // frozen: no token comes back during the test
	base := startServerClock(t, nil, newLogWriter(nil), func() time.Time { return now }, "-api-keys", keys, "-tenant-rate", "5")
	send := func(key string) int {
		req, _ := http.NewRequest("GET", base+"/api/chats/c1/summary", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
		return resp.StatusCode
	}
	limited := 0
	for i := 0; i < 30; i++ {
		if send("key-of-flood-0123456789") == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited != 20 { // a burst of 10 (twice the rate), then nothing comes back
		t.Errorf("%d of the flooding tenant's 30 requests answered 429, want 20", limited)
	}
	for i := 0; i < 5; i++ {
		if status := send("key-of-quiet-0123456789"); status == http.StatusTooManyRequests {
			t.Fatalf("the other tenant's request %d: 429", i)
		}
	}
}

// TestInstanceIDTakesOverItsLeases (F7): a server restarted with the
// -instance-id it had when it died holding a chat's lease summarizes that
// chat at once; without it the request waits for the lease (here, up to
// -lease-wait) and goes on unsummarized. Before, every request for those
// chats waited 10 s holding a slot, warned of another replica.
func TestInstanceIDTakesOverItsLeases(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		summarized bool
	}{
		{"same instance", []string{"-instance-id", "replica-a"}, true},
		{"no instance id", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "recap.db")
			st, sqldb, err := sqlstore.OpenSQLite(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			// The lease the previous incarnation held when it died.
			if err := st.AcquireLease(context.Background(), storeKey(devTenant, "c1"), "replica-a", time.Hour); err != nil {
				t.Fatal(err)
			}
			sqldb.Close()
			base := startServer(t, nil, append([]string{"-db", db, "-trigger", "100", "-lease-wait", "1s"}, tc.args...)...)
			status, out := post(t, base+"/api/chats/c1/payload", chatJSON(t, 8))
			if status != 200 || out["summarized"] != tc.summarized {
				t.Fatalf("%d %v; want summarized %v", status, out, tc.summarized)
			}
		})
	}
}

// TestPressureClosesIdleConnections (F1): with at least three quarters of
// -max-conns open, a new connection closes those idle (or still sending
// their headers) for longer than pressureIdle, on the limiter's clock;
// busy ones and recent ones stay; below the pressure, none is closed.
func TestPressureClosesIdleConnections(t *testing.T) {
	var now atomic.Int64 // the limiter's clock, in seconds; its accept loop reads it
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lim := newConnLimiter(ln, slog.New(slog.NewTextHandler(io.Discard, nil)), 8, 8, nil)
	defer lim.Close()
	lim.now = func() time.Time { return time.Unix(now.Load(), 0) }
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := lim.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	open := func() (client, server net.Conn) {
		client = dialFrom(t, "127.0.0.1", ln.Addr().String())
		return client, <-accepted
	}
	var clients []net.Conn
	var servers []net.Conn
	for i := 0; i < 5; i++ { // below the pressure (6 of 8)
		c, s := open()
		clients, servers = append(clients, c), append(servers, s)
	}
	lim.connState(servers[0], http.StateActive) // busy: never closed
	now.Add(10)
	c, s := open() // the sixth: 5 were open, under 6: nothing closed
	clients, servers = append(clients, c), append(servers, s)
	if shed, _ := lim.counts(); shed != 0 {
		t.Fatalf("%d closed below the pressure", shed)
	}
	c, s = open() // 6 open: pressure; the 4 old idle ones are closed, not the busy one nor the recent one
	clients, servers = append(clients, c), append(servers, s)
	if shed, _ := lim.counts(); shed != 4 {
		t.Errorf("%d connections closed under pressure, want the 4 idle for 10 s", shed)
	}
	for i, c := range clients[1:5] { // the closed ones read EOF
		c.SetReadDeadline(time.Now().Add(hangGuard))
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("idle connection %d: %v, want closed", i+1, err)
		}
	}
	if _, err := servers[0].Write([]byte("x")); err != nil { // the busy one is open
		t.Errorf("the busy connection: %v", err)
	}
}

// TestLoadStuckLLMLatency (F3, a load run: RECAP_TEST_LONG=1): 8 clients
// send 10 requests each, every one summarizing in the foreground, first
// with a healthy LLM, then with one that never answers; it logs both p95s
// (docs/service-attacks.md) and asserts by counts: at least 95% of the
// requests are answered 200 in each phase. The latencies are a figure,
// not an assertion: they depend on the machine.
func TestLoadStuckLLMLatency(t *testing.T) {
	requireLoad(t)
	var stuck atomic.Bool
	release := make(chan struct{})
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stuck.Load() {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, chatCompletion("A summary of the payments service."))
	}))
	defer llm.Close()
	defer close(release)
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test", "RECAP_MODEL": "gpt-test"}
	base := startServer(t, env, "-trigger", "100", "-max-concurrent", "4", "-queue-wait", "1m", "-timeout", "1m", "-tenant-llm-per-minute", "1000000")
	measure := func(phase string) (p95 time.Duration, ok int) {
		var mu sync.Mutex
		var took []time.Duration
		var wg sync.WaitGroup
		for c := 0; c < 8; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 10; i++ {
					start := time.Now()
					status, _ := post(t, fmt.Sprintf("%s/api/chats/%s-%d-%d/payload", base, phase, c, i), chatJSON(t, 8))
					mu.Lock()
					took = append(took, time.Since(start))
					if status == 200 {
						ok++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		slices.Sort(took)
		return took[len(took)*95/100-1], ok
	}
	healthy, okHealthy := measure("healthy")
	stuck.Store(true)
	stuckP95, okStuck := measure("stuck")
	t.Logf("p95 of 80 requests summarizing in the foreground: healthy LLM %v, stuck LLM %v (%.1fx); answered 200: %d and %d",
		healthy, stuckP95, float64(stuckP95)/float64(healthy), okHealthy, okStuck)
	if okHealthy < 76 || okStuck < 76 {
		t.Errorf("answered 200: %d with a healthy LLM, %d with a stuck one, of 80; want at least 76 (95%%)", okHealthy, okStuck)
	}
}

// TestLimitCallsOpensOnTimeouts (F3): after -max-llm-calls calls in a row
// end past their deadline, no call is made for the cooldown (on the
// server's clock); then calls resume, and a success resets the count.
func TestLimitCallsOpensOnTimeouts(t *testing.T) {
	now := time.Unix(0, 0)
	var calls int
	fail := true
	s := limitCalls(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) {
		calls++
		if fail {
			return "", fmt.Errorf("openai: %w", context.DeadlineExceeded)
		}
		return "a summary", nil
	}), 2, 30*time.Second, func() time.Time { return now })
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if _, err := s.Summarize(ctx, recap.SummarizeRequest{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if _, err := s.Summarize(ctx, recap.SummarizeRequest{}); !errors.Is(err, errLLMStuck) || calls != 2 {
		t.Fatalf("after 2 timeouts in a row: %v, %d calls; want errLLMStuck and no call", err, calls)
	}
	now = now.Add(30 * time.Second)
	fail = false
	if text, err := s.Summarize(ctx, recap.SummarizeRequest{}); err != nil || text != "a summary" || calls != 3 {
		t.Fatalf("after the cooldown: %q, %v, %d calls", text, err, calls)
	}
}
