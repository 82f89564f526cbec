package openai_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/recapgo/recap/examples/openai"
)

// TestNewWithClient: a Summarizer on the caller's client sends through it
// (its key, base URL and middleware), adds WithRequestOptions to every
// request, and refuses the options that would build a client.
func TestNewWithClient(t *testing.T) {
	s := newServer(t, response{status: 200, body: completion("A summary.", "stop")})
	var seen []string
	client := oai.NewClient(option.WithAPIKey("sk-caller"), option.WithBaseURL(s.URL+"/v1"), option.WithMaxRetries(0),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			seen = append(seen, r.URL.Path)
			return next(r)
		}))
	sum, err := openai.NewWithClient(client, openai.WithModel("gpt-4.1-mini"),
		openai.WithRequestOptions(option.WithHeader("X-Tenant", "t1")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := sum.Summarize(context.Background(), request)
	if err != nil || got != "A summary." {
		t.Fatalf("Summarize = %q, %v", got, err)
	}
	if len(seen) != 1 || s.Header(0).Get("Authorization") != "Bearer sk-caller" || s.Header(0).Get("X-Tenant") != "t1" {
		t.Errorf("middleware saw %v; Authorization %q, X-Tenant %q", seen, s.Header(0).Get("Authorization"), s.Header(0).Get("X-Tenant"))
	}
	if s.Body(0)["model"] != "gpt-4.1-mini" {
		t.Errorf("model %v", s.Body(0)["model"])
	}

	for _, o := range []openai.Option{openai.WithBaseURL("http://x"), openai.WithHTTPClient(http.DefaultClient), openai.WithMaxRetries(1)} {
		if _, err := openai.NewWithClient(client, o); err == nil || !strings.Contains(err.Error(), "configure a client") {
			t.Errorf("NewWithClient with a client-building option = %v, want an error", err)
		}
	}
	if _, err := openai.NewWithClient(client, nil); err == nil {
		t.Error("nil Option accepted")
	}
	if _, err := openai.NewWithClient(oai.Client{}); err == nil || !strings.Contains(err.Error(), "zero client") {
		t.Errorf("NewWithClient with a zero client = %v, want an error", err)
	}
}

// TestRequestOptionsWithNew: WithRequestOptions also applies to the
// client New builds.
func TestRequestOptionsWithNew(t *testing.T) {
	s := newServer(t, response{status: 200, body: completion("A summary.", "stop")})
	sum, err := openai.New("sk-test", openai.WithBaseURL(s.URL+"/v1"), openai.WithRequestOptions(option.WithHeader("X-Trace", "abc")))
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
