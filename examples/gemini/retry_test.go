package gemini_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap/examples/gemini"
	"google.golang.org/genai"
)

// quota is a 429 of the Gemini API whose details say when to retry.
func quota(delay string) reply {
	return reply{status: 429, body: `{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[` +
		`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generate_content_free_tier_requests"}]},` +
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}]}}`}
}

// TestSummarizeRetryDelay: New's client waits what the server asks for
// (RetryInfo, Retry-After) before a retry, backs off as the SDK does when
// it asks nothing, and returns at once a failure whose delay is too long
// to wait.
func TestSummarizeRetryDelay(t *testing.T) {
	ok := reply{status: 200, body: answer("Lisbon.", "STOP")}
	unavailable := reply{status: 503, body: `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`}
	zero := 0.0
	for _, tc := range []struct {
		name     string
		replies  []reply
		opts     []gemini.Option
		deadline time.Duration // of the context, if set
		requests int
		status   int             // of the error; 0 for success
		delays   []time.Duration // asked of the sleep; -1: the backoff's range
	}{
		{name: "RetryInfo", replies: []reply{quota("7s"), ok}, requests: 2, delays: []time.Duration{7 * time.Second}},
		{name: "fractional RetryInfo", replies: []reply{quota("0.250s"), quota("1.5s"), ok}, requests: 3,
			delays: []time.Duration{250 * time.Millisecond, 1500 * time.Millisecond}},
		{name: "Retry-After seconds", replies: []reply{{status: 503, body: unavailable.body, retryAfter: "3"}, ok}, requests: 2,
			delays: []time.Duration{3 * time.Second}},
		{name: "Retry-After date passed", replies: []reply{{status: 503, body: unavailable.body, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT"}, ok},
			requests: 2, delays: []time.Duration{0}},
		{name: "backoff", replies: []reply{unavailable, unavailable, ok}, requests: 3, delays: []time.Duration{-1, -2}},
		{name: "too long to wait", replies: []reply{quota("120s"), ok}, requests: 1, status: 429},
		{name: "past the deadline", replies: []reply{quota("30s"), ok}, deadline: 10 * time.Second, requests: 1, status: 429},
		{name: "within the deadline", replies: []reply{quota("2s"), ok}, deadline: time.Minute, requests: 2, delays: []time.Duration{2 * time.Second}},
		{name: "retries spent", replies: []reply{quota("1s")}, opts: []gemini.Option{gemini.WithMaxRetries(2)}, requests: 3, status: 429,
			delays: []time.Duration{time.Second, time.Second}},
		{name: "not retried", replies: []reply{{status: 400, body: `{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}`}}, requests: 1, status: 400},
		{name: "the SDK's retries instead", replies: []reply{quota("9s"), quota("9s"), ok},
			opts: []gemini.Option{gemini.WithMaxRetries(5), gemini.WithHTTPOptions(genai.HTTPOptions{RetryOptions: &genai.HTTPRetryOptions{
				Attempts: new(int32(2)), InitialDelay: &zero, Jitter: &zero}})}, requests: 2, status: 429},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, tc.replies...)
			s, err := gemini.New(context.Background(), "k", append([]gemini.Option{gemini.WithBaseURL(api.URL)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var delays []time.Duration
			gemini.SetSleep(s, func(ctx context.Context, d time.Duration) error {
				mu.Lock()
				defer mu.Unlock()
				delays = append(delays, d)
				return nil
			})
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			got, err := s.Summarize(ctx, request)
			var apiErr genai.APIError
			switch {
			case api.requests() != tc.requests:
				t.Errorf("%d requests, want %d", api.requests(), tc.requests)
			case tc.status == 0 && (err != nil || got != "Lisbon."):
				t.Errorf("Summarize = %q, %v", got, err)
			case tc.status != 0 && (!errors.As(err, &apiErr) || apiErr.Code != tc.status || apiErr.Message == ""):
				t.Errorf("Summarize = %v, want an APIError of status %d with its message", err, tc.status)
			}
			want := append([]time.Duration(nil), tc.delays...)
			for i, d := range want {
				if d < 0 { // the backoff: 1 s doubling, plus up to 1 s of jitter
					base := time.Second << (-d - 1)
					if i < len(delays) && delays[i] >= base && delays[i] < base+time.Second {
						want[i] = delays[i]
					}
				}
			}
			if diff := cmp.Diff(want, delays); diff != "" {
				t.Errorf("delays waited (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetryWaitCancelled: cancelling the context during the wait before a
// retry ends Summarize with the cancellation, without another request.
func TestRetryWaitCancelled(t *testing.T) {
	api := newFakeAPI(t, quota("30s"), reply{status: 200, body: answer("Lisbon.", "STOP")})
	s, err := gemini.New(context.Background(), "k", gemini.WithBaseURL(api.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan struct{})
	go func() { <-waiting; cancel() }()
	gemini.SetSleep(s, func(ctx context.Context, d time.Duration) error {
		close(waiting)
		<-ctx.Done()
		return ctx.Err()
	})
	if _, err := s.Summarize(ctx, request); !errors.Is(err, context.Canceled) {
		t.Errorf("Summarize = %v, want the cancellation", err)
	}
	if api.requests() != 1 {
		t.Errorf("%d requests, want 1", api.requests())
	}
}

// TestRetryKeepsCallersTransport: WithHTTPClient's transport carries every
// attempt.
func TestRetryKeepsCallersTransport(t *testing.T) {
	api := newFakeAPI(t, quota("1s"), reply{status: 200, body: answer("Lisbon.", "STOP")})
	var seen int
	var mu sync.Mutex
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		seen++
		mu.Unlock()
		return http.DefaultTransport.RoundTrip(r)
	})}
	s, err := gemini.New(context.Background(), "k", gemini.WithBaseURL(api.URL), gemini.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	gemini.SetSleep(s, func(context.Context, time.Duration) error { return nil })
	if got, err := s.Summarize(context.Background(), request); err != nil || got != "Lisbon." {
		t.Fatalf("Summarize = %q, %v", got, err)
	}
	if seen != 2 || api.requests() != 2 {
		t.Errorf("the caller's transport saw %d requests, the server %d; want 2 and 2", seen, api.requests())
	}
	if _, ok := hc.Transport.(roundTripFunc); !ok {
		t.Errorf("the caller's client was changed: its transport is a %T", hc.Transport)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRetryDelay: the delay of a spent quota reaches the caller with the
// error, for a circuit breaker.
func TestRetryDelay(t *testing.T) {
	api := newFakeAPI(t, quota("120s"))
	s, err := gemini.New(context.Background(), "k", gemini.WithBaseURL(api.URL))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Summarize(context.Background(), request)
	if got := gemini.RetryDelay(err); got != 2*time.Minute {
		t.Errorf("RetryDelay(%v) = %v, want 2m", err, got)
	}
	for _, other := range []error{nil, errors.New("x"), genai.APIError{Code: 503}, genai.APIError{Code: 429, Details: []map[string]any{
		{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": 7}}}} {
		if got := gemini.RetryDelay(other); got != 0 {
			t.Errorf("RetryDelay(%v) = %v, want 0", other, got)
		}
	}
}
