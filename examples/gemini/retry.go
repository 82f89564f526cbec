package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"time"

	"github.com/recapgo/recap/internal/llm"
	"google.golang.org/genai"
)

// The SDK retries with its own backoff and reads neither Retry-After nor
// the RetryInfo that the Gemini API puts in a 429's body ("retryDelay":
// "32s"), so New's client retries in its transport instead: a retried
// request waits what the server asks, or backs off as the SDK would.

// Backoff of retries the server gives no delay for, as the SDK's default:
// 1 s doubling per retry, plus up to 1 s of jitter, at most 60 s.
const (
	retryInitialDelay = time.Second
	retryMaxDelay     = 60 * time.Second
	retryJitter       = time.Second
)

// maxErrorBody bounds what the transport reads of an error's body to find
// its RetryInfo.
const maxErrorBody = 1 << 20

// retryTransport retries requests that fail on the network or with 408,
// 429, 500, 502, 503 or 504 up to retries times. It waits the server's
// Retry-After or RetryInfo delay where there is one (at most
// retryMaxDelay), and otherwise the SDK's backoff. A delay that would
// outlast the request's deadline, or retryMaxDelay, is not waited for:
// the failure returns at once, so that a fallback can serve.
type retryTransport struct {
	base    http.RoundTripper
	retries int
	sleep   func(context.Context, time.Duration) error // nil: sleepCtx
}

// noRetryKey marks the context of a request whose retries are the SDK's
// (WithHTTPOptions with RetryOptions).
type noRetryKey struct{}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	retries := t.retries
	if ctx.Value(noRetryKey{}) != nil || req.Body != nil && req.GetBody == nil {
		retries = 0 // the SDK retries, or the body cannot be sent again
	}
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 && req.Body != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r = req.Clone(ctx)
			r.Body = body
		}
		resp, err := t.base.RoundTrip(r)
		if attempt >= retries || ctx.Err() != nil || !retryable(resp, err) {
			return resp, err
		}
		delay, ok := serverDelay(resp)
		if !ok {
			delay = backoff(attempt)
		}
		if delay > retryMaxDelay {
			return resp, err // longer than a summarization should wait
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < delay {
			return resp, err // the caller would give up first
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
		}
		sleep := t.sleep
		if sleep == nil {
			sleep = sleepCtx
		}
		if err := sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
}

// retryable reports whether a request that got resp or err is worth
// sending again: a network failure or one of the SDK's retried statuses.
func retryable(resp *http.Response, err error) bool {
	if err != nil {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// serverDelay returns the delay the server asks for before a retry: its
// Retry-After(-Ms) header (see llm.RetryAfter), or else the retryDelay of
// a google.rpc.RetryInfo in the error's details. It leaves resp's body
// readable.
func serverDelay(resp *http.Response) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	if d, ok := llm.RetryAfter(resp.Header, time.Now()); ok {
		return d, true
	}
	// Read the start of the body, and leave all of it readable.
	orig := resp.Body
	data, _ := io.ReadAll(io.LimitReader(orig, maxErrorBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), orig), orig}
	var body struct {
		Error struct {
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &body) != nil {
		return 0, false
	}
	for _, d := range body.Error.Details {
		if delay, ok := retryInfo(d.Type, d.RetryDelay); ok {
			return delay, true
		}
	}
	return 0, false
}

// retryInfo returns the delay of an error detail of type typ if it is a
// google.rpc.RetryInfo whose retryDelay, a protobuf Duration in JSON
// (seconds with an "s" suffix: "32s", "0.5s"), is delay.
func retryInfo(typ, delay string) (time.Duration, bool) {
	if !strings.HasSuffix(typ, "google.rpc.RetryInfo") {
		return 0, false
	}
	d, err := time.ParseDuration(delay)
	if err != nil || d < 0 {
		return 0, false
	}
	return d, true
}

// RetryDelay returns how long the Gemini API error in err's tree (a
// genai.APIError) asks its caller to wait before calling again: the
// retryDelay of the google.rpc.RetryInfo in its details, which the API
// sends with a 429 when a quota is spent; 0 if there is none. A circuit
// breaker can stay open that long (see examples/breaker).
func RetryDelay(err error) time.Duration {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		return 0
	}
	for _, d := range apiErr.Details {
		typ, _ := d["@type"].(string)
		delay, _ := d["retryDelay"].(string)
		if dur, ok := retryInfo(typ, delay); ok {
			return dur
		}
	}
	return 0
}

// backoff returns the SDK's delay before retry attempt+1.
func backoff(attempt int) time.Duration {
	d := retryInitialDelay << min(attempt, 16)
	return min(d+time.Duration(rand.Int63n(int64(retryJitter))), retryMaxDelay)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryingClient returns a copy of hc (http.DefaultClient's settings if
// nil) whose transport retries as retryTransport does.
func retryingClient(hc *http.Client, retries int) (*http.Client, *retryTransport) {
	c := &http.Client{}
	if hc != nil {
		*c = *hc
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	t := &retryTransport{base: base, retries: retries}
	c.Transport = t
	return c, t
}
