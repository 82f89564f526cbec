package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/recapgo/recap/examples/anthropic"
)

// TestNewWithClient: a Summarizer on the caller's client sends through it
// (its key, base URL and middleware), adds WithRequestOptions to every
// request, and refuses the options that would build a client.
func TestNewWithClient(t *testing.T) {
	s := newServer(t, response{status: 200, body: message("A summary.", "end_turn")})
	var seen []string
	client := sdk.NewClient(option.WithAPIKey("sk-caller"), option.WithBaseURL(s.URL), option.WithMaxRetries(0),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			seen = append(seen, r.URL.Path)
			return next(r)
		}))
	sum, err := anthropic.NewWithClient(client, anthropic.WithModel("claude-sonnet-4-5"),
		anthropic.WithRequestOptions(option.WithHeader("X-Tenant", "t1")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := sum.Summarize(context.Background(), request)
	if err != nil || got != "A summary." {
		t.Fatalf("Summarize = %q, %v", got, err)
	}
	if len(seen) != 1 || s.Header(0).Get("X-Api-Key") != "sk-caller" || s.Header(0).Get("X-Tenant") != "t1" {
		t.Errorf("middleware saw %v; X-Api-Key %q, X-Tenant %q", seen, s.Header(0).Get("X-Api-Key"), s.Header(0).Get("X-Tenant"))
	}
	if s.Body(0)["model"] != "claude-sonnet-4-5" {
		t.Errorf("model %v", s.Body(0)["model"])
	}

	for _, o := range []anthropic.Option{anthropic.WithBaseURL("http://x"), anthropic.WithHTTPClient(http.DefaultClient), anthropic.WithMaxRetries(1)} {
		if _, err := anthropic.NewWithClient(client, o); !errors.Is(err, anthropic.ErrInvalidOption) || !strings.Contains(err.Error(), "configure the client") {
			t.Errorf("NewWithClient with a client-building option = %v, want ErrInvalidOption", err)
		}
	}
	if _, err := anthropic.NewWithClient(client, nil); !errors.Is(err, anthropic.ErrInvalidOption) {
		t.Errorf("NewWithClient(nil Option) = %v, want ErrInvalidOption", err)
	}
}

// TestRequestOptionsWithNew: WithRequestOptions also applies to the
// client New builds.
func TestRequestOptionsWithNew(t *testing.T) {
	s := newServer(t, response{status: 200, body: message("A summary.", "end_turn")})
	sum, err := anthropic.New("sk-test", anthropic.WithBaseURL(s.URL), anthropic.WithRequestOptions(option.WithHeader("X-Trace", "abc")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sum.Summarize(context.Background(), request); err != nil {
		t.Fatal(err)
	}
	if got := s.Header(0).Get("X-Trace"); got != "abc" {
		t.Errorf("X-Trace = %q", got)
	}
}
