package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	sdkanthropic "github.com/anthropics/anthropic-sdk-go"
	sdkopenai "github.com/openai/openai-go/v3"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/anthropic"
	"github.com/recapgo/recap/examples/breaker"
	"github.com/recapgo/recap/examples/gemini"
	"github.com/recapgo/recap/examples/openai"
	"github.com/recapgo/recap/internal/llm"
	"google.golang.org/genai"
)

// upstreamError is a provider's error answer, reduced to its status: the
// body (which may quote the request, the key's prefix, the account) is
// dropped.
type upstreamError struct {
	status     int
	retryAfter time.Duration // the answer's Retry-After, or 0
}

// RetryAfter returns how long the provider asked to wait (its
// Retry-After-Ms or Retry-After header), or 0; the breaker stays open that
// long (see breaker.RetryAfter).
func (e *upstreamError) RetryAfter() time.Duration { return e.retryAfter }

// retryAfter reads a response's Retry-After-Ms, or Retry-After in seconds
// or as an HTTP date, relative to now; 0 if there is none.
func retryAfter(resp *http.Response, now time.Time) time.Duration {
	if resp == nil {
		return 0
	}
	d, _ := llm.RetryAfter(resp.Header, now)
	return d
}

func (e *upstreamError) Error() string {
	return fmt.Sprintf("summarizer: HTTP %d %s", e.status, http.StatusText(e.status))
}

// StatusCode returns the provider's HTTP status.
func (e *upstreamError) StatusCode() int { return e.status }

// errUnreachable is a summarizer that could not be reached.
var errUnreachable = errors.New("summarizer: unreachable")

// shieldSummarizer returns s with errors that carry no provider text:
// what the recap logger, the hooks, the breaker and the clients see is
// the status and a short reason (see shieldError).
func shieldSummarizer(s recap.Summarizer) recap.Summarizer {
	return recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		text, err := s.Summarize(ctx, req)
		if err != nil {
			return "", shieldError(err)
		}
		return text, nil
	})
}

// shieldError reduces a summarizer's error to a short one: an API error to
// its status, a network error to errUnreachable, the adapters' and
// recap's sentinels and the context's errors to themselves (wrapped so
// that errors.Is still matches), anything else to "summarizer failed".
func shieldError(err error) error {
	var (
		oaiErr *sdkopenai.Error
		antErr *sdkanthropic.Error
		gemErr genai.APIError
		netErr net.Error
		urlErr *url.Error
	)
	for _, sentinel := range []error{context.Canceled, context.DeadlineExceeded, openai.ErrTruncated, anthropic.ErrTruncated,
		gemini.ErrTruncated, gemini.ErrBlocked, recap.ErrEmptySummary, recap.ErrSummaryTooLong, recap.ErrSummarizerPanic, errUnreachable, breaker.ErrOpen} {
		if errors.Is(err, sentinel) {
			return fmt.Errorf("summarizer: %w", sentinel)
		}
	}
	switch {
	case errors.As(err, &oaiErr):
		return &upstreamError{status: oaiErr.StatusCode, retryAfter: retryAfter(oaiErr.Response, time.Now())}
	case errors.As(err, &antErr):
		return &upstreamError{status: antErr.StatusCode, retryAfter: retryAfter(antErr.Response, time.Now())}
	case errors.As(err, &gemErr):
		return &upstreamError{status: gemErr.Code, retryAfter: gemini.RetryDelay(gemErr)} // its RetryInfo: the SDK keeps no headers
	case errors.As(err, &netErr), errors.As(err, &urlErr):
		return errUnreachable
	}
	var up *upstreamError
	if errors.As(err, &up) {
		return up
	}
	return errors.New("summarizer: failed")
}

// storeError marks a Store's failure, so that a client is told "store"
// and never the database's host, user or query (the log still has them).
type storeError struct {
	op  string
	err error
}

func (e *storeError) Error() string { return e.op + ": " + e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// markedStore is a Store whose failures, other than a conflict or the
// context's, are storeErrors.
type markedStore struct{ recap.Store }

func (s markedStore) Load(ctx context.Context, chatID string) (recap.Summary, error) {
	sum, err := s.Store.Load(ctx, chatID)
	return sum, markStore("load", err)
}

func (s markedStore) Save(ctx context.Context, chatID string, prev, next recap.Summary) error {
	return markStore("save", s.Store.Save(ctx, chatID, prev, next))
}

// AcquireLease and ReleaseLease forward to the Store if it is a
// recap.Leaser, so that wrapping it does not lose its leases; a Store
// that is not grants every lease.
func (s markedStore) AcquireLease(ctx context.Context, chatID, holder string, ttl time.Duration) error {
	l, ok := s.Store.(recap.Leaser)
	if !ok {
		return nil
	}
	err := l.AcquireLease(ctx, chatID, holder, ttl)
	if errors.Is(err, recap.ErrLeaseHeld) {
		return err
	}
	return markStore("lease", err)
}

func (s markedStore) ReleaseLease(ctx context.Context, chatID, holder string) error {
	if l, ok := s.Store.(recap.Leaser); ok {
		return markStore("lease release", l.ReleaseLease(ctx, chatID, holder))
	}
	return nil
}

func markStore(op string, err error) error {
	if err == nil || errors.Is(err, recap.ErrConflict) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &storeError{op: "store " + op, err: err}
}

// publicError returns what a client may be told of a failure recap
// absorbed or a summarizer returned: a short reason naming the part that
// failed, never a provider's body or a database's host or user.
func publicError(err error) string {
	var (
		st *storeError
		up *upstreamError
	)
	switch {
	case errors.As(err, &st):
		return st.op + " failed"
	case errors.As(err, &up):
		return up.Error()
	case errors.Is(err, breaker.ErrOpen):
		return "summarizer: not called while it keeps failing (circuit open)"
	case errors.Is(err, context.DeadlineExceeded):
		return "summarizer: timed out"
	case errors.Is(err, recap.ErrConflict):
		return "summary changed concurrently: the stored one is kept"
	case errors.Is(err, recap.ErrLeaseHeld):
		return "summarizing in another replica: the stored summary is used"
	}
	for _, sentinel := range []error{openai.ErrTruncated, anthropic.ErrTruncated, gemini.ErrTruncated, gemini.ErrBlocked, recap.ErrEmptySummary,
		recap.ErrSummaryTooLong, recap.ErrSummarizerPanic, errUnreachable,
		errStoredTooLarge, errSaveBackoff, errLLMBusy, errLLMStuck, errTenantLLMBudget, recap.ErrBackoff} {
		if errors.Is(err, sentinel) {
			return sentinel.Error()
		}
	}
	return "summarizer: failed"
}

// passwordKV matches a password in a key=value DSN.
var passwordKV = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// redact returns s with the passwords of the URLs in it (scheme://user:pass@)
// and of key=value DSNs (password=...) replaced by xxxxx, for logging a
// DSN, a base URL or an error that may quote one.
func redact(s string) string {
	s = passwordKV.ReplaceAllString(s, "${1}xxxxx")
	fields := strings.Fields(s)
	for _, f := range fields {
		f = strings.Trim(f, "`'\"()<>,;")
		if !strings.Contains(f, "://") || !strings.Contains(f, "@") {
			continue
		}
		if u, err := url.Parse(f); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				s = strings.ReplaceAll(s, f, u.Redacted())
			}
		}
	}
	return s
}

// redactError returns err with its text redacted and the secret, if any,
// removed wherever it appears.
func redactError(err error, secret string) error {
	if err == nil {
		return nil
	}
	msg := redact(err.Error())
	if secret != "" {
		msg = strings.ReplaceAll(msg, secret, "xxxxx")
	}
	return errors.New(msg)
}

// dsnPassword returns the password of a PostgreSQL DSN, URL or key=value.
func dsnPassword(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		p, _ := u.User.Password()
		return p
	}
	if m := passwordKV.FindStringSubmatch(dsn); m != nil {
		return strings.Trim(m[2], "'")
	}
	return ""
}
