// Package chatapi is the CLI's LLM summarizer: a small client of the OpenAI
// Chat Completions API, which OpenAI, Anthropic
// (https://api.anthropic.com/v1/), Gemini
// (https://generativelanguage.googleapis.com/v1beta/openai/) and most local
// servers (Ollama, vLLM, llama.cpp) serve. It depends on the standard
// library alone, so that the CLI builds in seconds and links no provider
// SDK; a backend that wants an SDK's features uses the examples/openai,
// examples/anthropic or examples/gemini adapters instead.
package chatapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/llm"
)

// Defaults of a Config's zero fields.
const (
	DefaultBaseURL   = "https://api.openai.com/v1"
	DefaultMaxOutput = 1024 // the summary's token limit
	DefaultRetries   = 3
	// MaxRetryWait bounds the wait before a retry, also when the server
	// asks for a longer one: a call that would wait longer fails.
	MaxRetryWait = 60 * time.Second
	// maxResponse bounds the bytes of a response read.
	maxResponse = 8 << 20
)

// ErrTruncated reports a summary cut off at the output token limit
// (finish_reason "length"): recap then keeps its last summary.
var ErrTruncated = errors.New("chatapi: summary truncated at the output token limit")

// A StatusError is an answer other than 200 OK.
type StatusError struct {
	Code    int    // the HTTP status
	Message string // the API's error message, or the body's start
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("chatapi: %d %s: %s", e.Code, http.StatusText(e.Code), e.Message)
}

// Config configures a Summarizer. Only Model is required.
type Config struct {
	// BaseURL is the API's root, before "/chat/completions"
	// (default DefaultBaseURL).
	BaseURL string
	Key     string // sent as a bearer token; "" sends none
	Model   string
	// MaxOutput is the summary's token limit (default DefaultMaxOutput),
	// or the request's MaxTokens when that is smaller.
	MaxOutput int
	// TokenField names the request's output limit: "max_completion_tokens"
	// (the default, OpenAI's current name) or "max_tokens" (what older
	// servers read).
	TokenField string
	// Retries is how often a call that failed with 408, 409, 429, a 5xx
	// or a network error is tried again (0: never; -1: DefaultRetries).
	Retries int
	// HTTPClient makes the calls (default http.DefaultClient).
	HTTPClient *http.Client
	// Instructions replaces recap.DefaultInstructions when set.
	Instructions string
}

// A Summarizer summarizes with one model of an OpenAI-compatible API. It
// is safe for concurrent use by multiple goroutines.
type Summarizer struct {
	cfg   Config
	url   string
	sleep func(context.Context, time.Duration) error // waits before a retry
	now   func() time.Time
}

// New returns a Summarizer for cfg, or an error for a setting no request
// could use.
func New(cfg Config) (*Summarizer, error) {
	switch {
	case cfg.Model == "":
		return nil, errors.New("chatapi: empty model")
	case cfg.MaxOutput < 0:
		return nil, fmt.Errorf("chatapi: max output tokens %d is negative", cfg.MaxOutput)
	case cfg.Retries < -1:
		return nil, fmt.Errorf("chatapi: retries %d is negative", cfg.Retries)
	case cfg.TokenField != "" && cfg.TokenField != "max_tokens" && cfg.TokenField != "max_completion_tokens":
		return nil, fmt.Errorf("chatapi: token field %q: want max_tokens or max_completion_tokens", cfg.TokenField)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("chatapi: base URL %q: want http:// or https://", cfg.BaseURL)
	}
	if cfg.MaxOutput == 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	if cfg.TokenField == "" {
		cfg.TokenField = "max_completion_tokens"
	}
	if cfg.Retries == -1 {
		cfg.Retries = DefaultRetries
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	return &Summarizer{
		cfg:   cfg,
		url:   strings.TrimSuffix(cfg.BaseURL, "/") + "/chat/completions",
		sleep: sleep,
		now:   time.Now,
	}, nil
}

// Summarize asks the model for a summary of req, rendered by
// recap.RenderPrompt as a system and a user message. A summary cut off at
// the output limit is ErrTruncated; an answer other than 200 is a
// *StatusError, after the retries Config.Retries allows, each after the
// server's Retry-After or an exponential back-off with jitter.
func (s *Summarizer) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	p := recap.RenderPrompt(req, s.cfg.Instructions)
	limit := s.cfg.MaxOutput
	if req.MaxTokens > 0 && req.MaxTokens < limit {
		limit = req.MaxTokens
	}
	body, err := json.Marshal(map[string]any{
		"model": s.cfg.Model,
		"messages": []map[string]string{
			{"role": "system", "content": p.System},
			{"role": "user", "content": p.User},
		},
		s.cfg.TokenField: limit,
	})
	if err != nil {
		return "", fmt.Errorf("chatapi: %w", err)
	}
	for try := 0; ; try++ {
		text, wait, err := s.call(ctx, body)
		if err == nil || wait < 0 || try >= s.cfg.Retries {
			return text, err
		}
		if wait == 0 {
			wait = backoff(try)
		}
		if wait > MaxRetryWait {
			return "", fmt.Errorf("%w (the server asks to wait %v before retrying)", err, wait.Round(time.Second))
		}
		if d, ok := ctx.Deadline(); ok && s.now().Add(wait).After(d) {
			return "", err // the retry could not finish in time
		}
		if serr := s.sleep(ctx, wait); serr != nil {
			return "", err
		}
	}
}

// call makes one request. It returns the summary, or an error and the
// wait before a retry: 0 to back off, -1 when a retry cannot help.
func (s *Summarizer) call(ctx context.Context, body []byte) (string, time.Duration, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return "", -1, fmt.Errorf("chatapi: %w", err)
	}
	r.Header.Set("Content-Type", "application/json")
	if s.cfg.Key != "" {
		r.Header.Set("Authorization", "Bearer "+s.cfg.Key)
	}
	resp, err := s.cfg.HTTPClient.Do(r)
	if err != nil {
		if ctx.Err() != nil {
			return "", -1, ctx.Err()
		}
		return "", 0, fmt.Errorf("chatapi: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		if ctx.Err() != nil {
			return "", -1, ctx.Err()
		}
		return "", 0, fmt.Errorf("chatapi: reading the response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		e := &StatusError{Code: resp.StatusCode, Message: errorMessage(data)}
		switch c := resp.StatusCode; {
		case c == http.StatusRequestTimeout || c == http.StatusConflict || c == http.StatusTooManyRequests || c >= 500:
			wait, _ := llm.RetryAfter(resp.Header, s.now())
			return "", wait, e
		}
		return "", -1, e
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
				Refusal string  `json:"refusal"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return "", -1, fmt.Errorf("chatapi: decoding the response: %w", err)
	}
	switch {
	case len(out.Choices) == 0:
		return "", -1, errors.New("chatapi: the response has no choices")
	case out.Choices[0].FinishReason == "length":
		return "", -1, ErrTruncated
	case out.Choices[0].Message.Refusal != "":
		return "", -1, fmt.Errorf("chatapi: the model refused: %s", out.Choices[0].Message.Refusal)
	case out.Choices[0].Message.Content == nil:
		return "", -1, errors.New("chatapi: the response's message has no content")
	}
	return strings.TrimSpace(*out.Choices[0].Message.Content), 0, nil
}

// errorMessage returns the message of an API error body
// ({"error":{"message":...}}, also as a one-element array, as Gemini
// answers), or the body's first 200 bytes.
func errorMessage(body []byte) string {
	var one struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &one) == nil && one.Error.Message != "" {
		return one.Error.Message
	}
	var many []struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &many) == nil && len(many) > 0 && many[0].Error.Message != "" {
		return many[0].Error.Message
	}
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// backoff returns the wait before retry try+1: 0.5 s doubled per try, at
// most 8 s, less up to a quarter of it at random.
func backoff(try int) time.Duration {
	d := 500 * time.Millisecond << min(try, 4)
	return d - time.Duration(rand.Int63n(int64(d/4)+1))
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
