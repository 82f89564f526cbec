package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/sqlstore"
)

// slowLLM is an OpenAI-compatible chat completions endpoint whose answers
// wait until release is closed (open), or until their caller gives up.
type slowLLM struct {
	*httptest.Server
	calls   events // requests received
	once    sync.Once
	release chan struct{}
}

func newSlowLLM(t *testing.T) *slowLLM {
	l := &slowLLM{release: make(chan struct{})}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		n := l.calls.add()
		select {
		case <-l.release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c%d","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"the LLM's summary %d"},"finish_reason":"stop"}]}`, n, n)
	}))
	t.Cleanup(func() {
		l.open()
		l.Close()
	})
	return l
}

// open lets the answers go, those waiting and all later ones.
func (l *slowLLM) open() { l.once.Do(func() { close(l.release) }) }

// released reports whether open was called.
func (l *slowLLM) released() bool {
	select {
	case <-l.release:
		return true
	default:
		return false
	}
}

// TestBackgroundRequestsDoNotWait: by default a request whose trigger
// fires does not wait for the LLM: ten requests for one chat all answer
// while the LLM hangs (the server's -timeout is longer than the test's
// hang guard, so a request that waited would never answer), unsummarized,
// without a warning, and each says that the summarization is scheduled;
// the LLM is called once, and its summary is saved once it answers.
func TestBackgroundRequestsDoNotWait(t *testing.T) {
	llm := newSlowLLM(t)
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test"}
	logs := newLogWriter(nil)
	base := startServerLogs(t, env, logs, "-trigger", "100", "-background", "-timeout", (10 * hangGuard).String())
	body := chatJSON(t, 8)
	client := &http.Client{Timeout: hangGuard}
	for i := range 10 {
		resp, err := client.Post(base+"/api/chats/c/payload", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("request %d waited for the LLM: %v", i, err)
		}
		var out payloadResponse
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		switch {
		case err != nil || resp.StatusCode != 200:
			t.Fatalf("request %d: %d %v", i, resp.StatusCode, err)
		case llm.released():
			t.Fatalf("request %d answered after the LLM was released", i)
		case out.Summarized || out.Warning != "" || !out.Scheduled:
			t.Errorf("request %d: summarized %v, warning %q, scheduled %v; want the unsummarized payload, the summarization scheduled",
				i, out.Summarized, out.Warning, out.Scheduled)
		}
	}
	llm.calls.wait(t, 1, "the background summarization's LLM call")
	llm.open()
	logs.waitLog(t, `msg="recap: summarized"`, 1)
	status, summary := get(t, base+"/api/chats/c/summary")
	if got := fmt.Sprint(summary["summary"]); status != 200 || !strings.Contains(got, "the LLM's summary 1") {
		t.Errorf("stored summary %d %s, want the LLM's", status, got)
	}
	if n := llm.calls.count(); n != 1 {
		t.Errorf("the LLM was called %d times, want 1", n)
	}
}

func get(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	data, _ := io.ReadAll(resp.Body)
	if len(data) > 0 {
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("response %d is not JSON: %s", resp.StatusCode, data)
		}
	}
	return resp.StatusCode, out
}

// TestShutdownDrains: a shutdown waits for the background summarization in
// flight, which is saved before run returns: the LLM is released only once
// the shutdown has begun, and run has not returned by then.
func TestShutdownDrains(t *testing.T) {
	llm := newSlowLLM(t)
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test"}
	db := filepath.Join(t.TempDir(), "recap.db")
	logs := newLogWriter(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// The grace period is the test's hang guard: the drain ends when
		// the summarization does.
		done <- run(ctx, []string{"-insecure-no-auth", "-addr", "127.0.0.1:0", "-db", db, "-trigger", "100", "-grace", hangGuard.String()},
			func(k string) string { return env[k] }, io.Discard, logs, time.Now)
	}()
	base := "http://" + received(t, logs.addr, "the server's address")
	if status, _ := post(t, base+"/api/chats/c/payload", chatJSON(t, 8)); status != 200 {
		t.Fatal(status)
	}
	llm.calls.wait(t, 1, "the background summarization's LLM call")
	cancel() // the first signal
	logs.waitLog(t, `"msg":"shutting down"`, 1)
	select {
	case err := <-done:
		t.Fatalf("run returned while a summarization was in flight: %v", err)
	default:
	}
	llm.open()
	if err := received(t, done, "run to return"); err != nil {
		t.Fatalf("run: %v\n%s", err, logs)
	}
	st, sqldb, err := sqlstore.OpenSQLite(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()
	sum, err := st.Load(context.Background(), storeKey("", "c"))
	if err != nil || !strings.Contains(sum.Text, "the LLM's summary") {
		t.Errorf("after the drain the store holds %+v, %v", sum, err)
	}
}

// TestShutdownGrace: when the grace period ends with a summarization still
// running (the LLM hangs), the server says so in its log, cancels it, and
// run returns an error saying so. The LLM is released once the log line
// is written, so that the test does not wait out the summarization's own
// time limit.
func TestShutdownGrace(t *testing.T) {
	llm := newSlowLLM(t)
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test"}
	logs := newLogWriter(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-insecure-no-auth", "-addr", "127.0.0.1:0", "-db", filepath.Join(t.TempDir(), "recap.db"), "-trigger", "100", "-grace", "200ms"},
			func(k string) string { return env[k] }, io.Discard, logs, time.Now)
	}()
	base := "http://" + received(t, logs.addr, "the server's address")
	post(t, base+"/api/chats/c/payload", chatJSON(t, 8))
	llm.calls.wait(t, 1, "the background summarization's LLM call")
	cancel()
	logs.waitLog(t, `"msg":"grace period over: cancelling the background summarizations still running","grace":"200ms"`, 1)
	llm.open()
	if err := received(t, done, "run to return"); err == nil || !strings.Contains(err.Error(), "background summarizations still running") {
		t.Errorf("run = %v, want the grace period exceeded", err)
	}
}

func TestOnSignals(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	var first, second atomic.Int32
	firstDone := make(chan struct{})
	done := make(chan bool)
	go func() {
		onSignals(sigs, func() { first.Add(1); close(firstDone) }, func() { second.Add(1) })
		done <- true
	}()
	sigs <- os.Interrupt
	received(t, firstDone, "the first signal's action")
	if second.Load() != 0 {
		t.Fatal("one signal exited")
	}
	sigs <- os.Interrupt
	received(t, done, "onSignals to return")
	if first.Load() != 1 || second.Load() != 1 {
		t.Fatalf("first %d, second %d", first.Load(), second.Load())
	}
}

// TestWorkersQueueFull: a task that finds the queue full ends at once
// without calling the summarizer, and its chat can be scheduled again.
func TestWorkersQueueFull(t *testing.T) {
	block := make(chan struct{})
	var calls events
	sum := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		calls.add()
		<-block
		return "summary of " + req.ChatID, nil
	})
	w := newWorkers(newTestLogger(io.Discard), 1, 1)
	c, err := recap.New(sum, recap.NewMemoryStore(), recap.WithTriggerTokens(100), recap.WithBackground(w.run))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	msgs := chatMessages(8)
	compress := func(chat string, scheduled bool) {
		t.Helper()
		res, err := c.Compress(ctx, chat, msgs)
		if err != nil || res.Scheduled != scheduled {
			t.Fatalf("%s: %v, scheduled %v, want %v", chat, err, res.Scheduled, scheduled)
		}
	}
	compress("a", true)
	calls.wait(t, 1, "a's summarization") // the worker is busy with a
	compress("b", true)                   // queued
	compress("c", false)                  // the queue is full: ended at once
	close(block)
	if err := c.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	// Scheduled again, and run: the free worker may have run it before
	// Compress returns, so Scheduled (pending or running after the call)
	// may be either; the third summarizer call shows it ran.
	if _, err := c.Compress(ctx, "c", msgs); err != nil {
		t.Fatal(err)
	}
	if err := c.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	w.stop()
	if n := calls.count(); n != 3 {
		t.Errorf("%d summarizer calls, want 3 (a, b, then c once scheduled again)", n)
	}
	if w.dropped != 1 {
		t.Errorf("%d tasks dropped, want 1", w.dropped)
	}
}

func chatMessages(n int) []recap.Message {
	var msgs []recap.Message
	for i := 1; i <= n; i++ {
		msgs = append(msgs,
			recap.Message{ID: fmt.Sprintf("u%d", i), Role: recap.RoleUser, Content: fmt.Sprintf("Question %d: what should we check on the payments service after deploy number %d?", i, i*7)},
			recap.Message{ID: fmt.Sprintf("a%d", i), Role: recap.RoleAssistant, Content: fmt.Sprintf("Answer %d: check the error rate, which rose to %d per minute.", i, i*13)})
	}
	return append(msgs, recap.Message{ID: "now", Role: recap.RoleUser, Content: "What did we decide?"})
}

// TestSaveBackoff: with a store whose saves always fail, 1,000 requests a
// second apart call the LLM a few dozen times, not 1,000:
// each failed save doubles the wait, up to a minute.
func TestSaveBackoff(t *testing.T) {
	now := time.Unix(0, 0)
	b := newSaveBackoff(newTestLogger(io.Discard), func() time.Time { return now })
	var llmCalls atomic.Int64
	llm := recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) {
		llmCalls.Add(1)
		return "an LLM summary", nil
	})
	fallback := recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return "an offline summary", nil })
	st := failingSaves{recap.NewMemoryStore()}
	c, err := recap.New(b.summarizer(llm), b.store(st), recap.WithTriggerTokens(100), recap.WithFallbackSummarizer(fallback))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		res, err := c.Compress(context.Background(), "c", chatMessages(8))
		if err != nil || res.Err == nil {
			t.Fatalf("request %d: %v %v", i, err, res.Err)
		}
		now = now.Add(time.Second)
	}
	// The save back-off lets the LLM be called after 1, 2, 4, ... 32 s,
	// then every 60 s (6 + 1000/60 = 23 calls); the requests it turns away
	// fail the Summarizer, so recap's own per-chat back-off makes the chat
	// sit out up to 16 further requests after each: fewer calls still.
	if n := llmCalls.Load(); n > 30 || n < 1 {
		t.Errorf("%d LLM calls over 1,000 s of failing saves, want 1 to 30", n)
	}
	// A save that succeeds ends the back-off.
	b.record(context.Background(), "c", nil)
	if !b.open("c") {
		t.Error("still backing off after a successful save")
	}
	// Conflicts and a caller's cancellation are not the store's failures.
	b.record(context.Background(), "c", recap.ErrConflict)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b.record(ctx, "c", errors.New("canceled"))
	if !b.open("c") {
		t.Error("a conflict or a cancellation started a back-off")
	}
}

// TestSaveBackoffPerChat (F5): a chat whose saves always fail backs off
// alone: other chats' LLM calls go on, and their successful saves do not
// end its back-off; saves of several chats failing in a row back off
// every chat (the store is failing) until one succeeds. Before, one
// back-off served every chat: another tenant's chat fell back to the
// offline summarizer, and its saves reset the failing chat's back-off.
func TestSaveBackoffPerChat(t *testing.T) {
	now := time.Unix(0, 0)
	b := newSaveBackoff(newTestLogger(io.Discard), func() time.Time { return now })
	boom := errors.New("value too long")
	b.record(context.Background(), "bad", boom)
	if b.open("bad") || !b.open("good") {
		t.Fatalf("after a failed save of one chat: open(bad) %v, open(good) %v; want false, true", b.open("bad"), b.open("good"))
	}
	b.record(context.Background(), "good", nil)
	if b.open("bad") {
		t.Error("another chat's successful save ended the failing chat's back-off")
	}
	now = now.Add(DefaultSaveBackoff)
	if !b.open("bad") {
		t.Error("the failing chat is still backing off after its back-off")
	}
	b.record(context.Background(), "bad", boom) // its second failure: 2 s
	now = now.Add(DefaultSaveBackoff)
	if b.open("bad") {
		t.Error("the back-off did not double")
	}
	// Three chats failing in a row: the store is down.
	b.record(context.Background(), "x", boom)
	b.record(context.Background(), "y", boom)
	if b.open("z") {
		t.Error("saves of three chats failed in a row, and a fourth chat may still call the LLM")
	}
	b.record(context.Background(), "z", nil)
	if !b.open("w") {
		t.Error("a successful save did not end the store-wide back-off")
	}
}

type failingSaves struct{ recap.Store }

func (failingSaves) Save(context.Context, string, recap.Summary, recap.Summary) error {
	return errors.New("disk full")
}
