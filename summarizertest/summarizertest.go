// Package summarizertest checks that a [recap.Summarizer] keeps the
// contract recap relies on, as storetest does for a Store:
//
//   - it honours its context: a call whose context is cancelled while the
//     model has not answered returns an error matching context.Canceled,
//     and one whose deadline passes an error matching
//     context.DeadlineExceeded;
//   - it returns the model's summary, white space trimmed, and sends the
//     previous summary and every message's text;
//   - it refuses an empty answer with an error matching
//     [recap.ErrEmptySummary], never an empty summary;
//   - it reports a summary cut off at the output token limit with an error
//     (the adapter's own, given to [Run]), never the cut summary;
//   - a failure of the API is an error, not a summary.
//
// [Run] is for a Summarizer that calls a model over HTTP: the suite plays
// the model on a loopback server, and the adapter says how its API
// answers in each [Scenario]. [Check] is for one that needs no server
// (recap/extractive): it checks what applies without a model.
package summarizertest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recapgo/recap"
)

// A Scenario is what the model does with one request.
type Scenario int

const (
	// Reply answers with Summary, surrounded by white space.
	Reply Scenario = iota
	// Empty answers with white space only.
	Empty
	// Truncated stops at the output token limit, part of a summary said.
	Truncated
	// ServerError answers with an error status (500) and the API's error
	// body.
	ServerError
)

func (s Scenario) String() string {
	switch s {
	case Reply:
		return "Reply"
	case Empty:
		return "Empty"
	case Truncated:
		return "Truncated"
	case ServerError:
		return "ServerError"
	}
	return "Scenario(?)"
}

// Summary is the text the model answers in Reply, which the Summarizer
// must return (trimmed).
const Summary = "The user plans a trip to Lisbon in May; the budget is 2400 EUR."

// Request is what the suite asks the Summarizer to summarize. Its texts
// are plain words, so that they appear unescaped in any JSON request.
var Request = recap.SummarizeRequest{
	ChatID:   "summarizertest",
	Previous: "The user plans a trip to Lisbon",
	Messages: []recap.Message{
		{ID: "u1", Role: recap.RoleUser, Content: "We go in May and the budget is 2400 EUR"},
		{ID: "a1", Role: recap.RoleAssistant, Content: "Noted the month and the budget"},
	},
}

// A Model is how an adapter's API answers.
type Model struct {
	// Answer returns the status and JSON body of the API's answer in
	// scenario s: for Reply, a response whose text is text; for Empty, one
	// whose text is text (white space); for Truncated, one cut at the
	// output limit whose text is text; for ServerError, the API's error.
	Answer func(s Scenario, text string) (status int, body string)
	// New returns the Summarizer under test sending to baseURL, the
	// suite's loopback server (which answers on any path), with no
	// retries.
	New func(t *testing.T, baseURL string) recap.Summarizer
	// Truncated is the error that a truncated answer must match
	// (errors.Is).
	Truncated error
}

// Run checks the Summarizer that m makes against the contract, each part a
// subtest.
func Run(t *testing.T, m Model) {
	t.Helper()
	if m.Answer == nil || m.New == nil || m.Truncated == nil {
		t.Fatal("summarizertest: Model needs Answer, New and Truncated")
	}
	t.Run("Reply", func(t *testing.T) {
		srv := newServer(t, m, Reply, "  \n"+Summary+"\n  ")
		got, err := m.New(t, srv.URL).Summarize(context.Background(), Request)
		if err != nil || got != Summary {
			t.Fatalf("Summarize = %q, %v; want %q", got, err, Summary)
		}
		body := srv.body(t)
		for _, text := range append([]string{Request.Previous}, texts(Request.Messages)...) {
			if !strings.Contains(body, text) {
				t.Errorf("the request sent lacks %q:\n%s", text, body)
			}
		}
	})
	t.Run("Empty", func(t *testing.T) {
		srv := newServer(t, m, Empty, " \n\t ")
		got, err := m.New(t, srv.URL).Summarize(context.Background(), Request)
		if !errors.Is(err, recap.ErrEmptySummary) {
			t.Fatalf("Summarize of an empty answer = %q, %v; want an error matching recap.ErrEmptySummary", got, err)
		}
	})
	t.Run("Truncated", func(t *testing.T) {
		srv := newServer(t, m, Truncated, "The user plans a trip to Lis")
		got, err := m.New(t, srv.URL).Summarize(context.Background(), Request)
		if !errors.Is(err, m.Truncated) {
			t.Fatalf("Summarize of a truncated answer = %q, %v; want an error matching %v", got, err, m.Truncated)
		}
	})
	t.Run("ServerError", func(t *testing.T) {
		srv := newServer(t, m, ServerError, "")
		got, err := m.New(t, srv.URL).Summarize(context.Background(), Request)
		if err == nil || errors.Is(err, recap.ErrEmptySummary) {
			t.Fatalf("Summarize of a server error = %q, %v; want an error", got, err)
		}
	})
	t.Run("Cancelled", func(t *testing.T) {
		srv := newHang(t)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-srv.arrived
			cancel()
		}()
		_, err := summarizeBounded(t, m.New(t, srv.URL), ctx)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Summarize cancelled while the model did not answer: %v; want an error matching context.Canceled", err)
		}
	})
	t.Run("Deadline", func(t *testing.T) {
		srv := newHang(t)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := summarizeBounded(t, m.New(t, srv.URL), ctx)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Summarize past its deadline while the model did not answer: %v; want an error matching context.DeadlineExceeded", err)
		}
	})
}

// Check checks what applies to a Summarizer that calls no model: it
// answers Request with a summary that is not empty, and a call whose
// context is done returns an error matching ctx.Err().
func Check(t *testing.T, s recap.Summarizer) {
	t.Helper()
	t.Run("Reply", func(t *testing.T) {
		got, err := s.Summarize(context.Background(), Request)
		if err != nil || strings.TrimSpace(got) == "" || got != strings.TrimSpace(got) {
			t.Fatalf("Summarize = %q, %v; want a summary, trimmed", got, err)
		}
	})
	t.Run("Cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if got, err := s.Summarize(ctx, Request); !errors.Is(err, context.Canceled) {
			t.Fatalf("Summarize with a cancelled context = %q, %v; want an error matching context.Canceled", got, err)
		}
	})
	t.Run("Deadline", func(t *testing.T) {
		ctx, cancel := context.WithDeadline(context.Background(), time.Unix(1, 0))
		defer cancel()
		if got, err := s.Summarize(ctx, Request); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Summarize past its deadline = %q, %v; want an error matching context.DeadlineExceeded", got, err)
		}
	})
}

// giveUp bounds how long the suite waits for a Summarizer that ignores its
// context: far longer than one that honours it takes, even on a busy
// machine; a Summarizer still running then fails the test.
const giveUp = 2 * time.Minute

// summarizeBounded calls s.Summarize(ctx, Request), failing t if it has
// not returned within giveUp.
func summarizeBounded(t *testing.T, s recap.Summarizer, ctx context.Context) (string, error) {
	t.Helper()
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, err := s.Summarize(ctx, Request)
		done <- result{text, err}
	}()
	select {
	case r := <-done:
		return r.text, r.err
	case <-time.After(giveUp):
		t.Fatalf("Summarize did not return %v after its context was done: it ignores its context", giveUp)
		return "", nil
	}
}

// server is a loopback model that answers every request alike and keeps
// the first request's body.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	first string
}

func newServer(t *testing.T, m Model, s Scenario, text string) *server {
	status, body := m.Answer(s, text)
	srv := &server{}
	srv.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		srv.mu.Lock()
		if srv.first == "" {
			srv.first = string(b)
		}
		srv.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// body returns the first request's body.
func (s *server) body(t *testing.T) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == "" {
		t.Fatal("the model got no request")
	}
	return s.first
}

// hang is a loopback model that never answers: it holds every request
// until the client goes away or the test ends.
type hang struct {
	*httptest.Server
	arrived chan struct{} // closed when the first request arrives
}

func newHang(t *testing.T) *hang {
	h := &hang{arrived: make(chan struct{})}
	release := make(chan struct{})
	var once sync.Once
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(h.arrived) })
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() {
		close(release)
		h.Close()
	})
	return h
}

// texts returns the texts of msgs.
func texts(msgs []recap.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Text()
	}
	return out
}
