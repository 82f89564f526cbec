// Package gemini is a [recap.Summarizer] on Google's Gemini models, through
// the Gen AI SDK (google.golang.org/genai), with conversions between the
// SDK's contents and recap messages (FromContents, ToContents) and the
// countTokens endpoint (CountTokens).
//
// The prompt is recap's [recap.RenderPrompt]: the previous summary and the
// new messages, delimited and declared as data, with the instructions as
// the system instruction. Requests that fail with 408, 429 or a 5xx
// status, or on the network, are retried by the SDK with exponential
// backoff (1 s doubling, at most 60 s) up to WithMaxRetries times; the
// SDK does not read Retry-After. Cancelling the context stops both the
// request and the wait.
package gemini

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/internal/llm"
	"google.golang.org/genai"
)

// Defaults of the options.
const (
	// DefaultModel is a small, fast model that does not think unless asked
	// to, so that the output limit is all the summary's.
	DefaultModel           = "gemini-2.5-flash-lite"
	DefaultMaxOutputTokens = 1024
	DefaultMaxRetries      = 3
	DefaultBaseURL         = "https://generativelanguage.googleapis.com/"
)

// ErrTruncated reports a summary cut off at the output token limit (with
// a thinking model, thoughts count against it too; see
// WithThinkingBudget), which recap must not store as if it were whole.
var ErrTruncated = errors.New("gemini: summary truncated at the output token limit")

// ErrBlocked reports a prompt or a response that the model blocked (for
// safety, recitation, or another reason it gives).
var ErrBlocked = errors.New("gemini: blocked")

// Summarizer summarizes with a Gemini model. It is safe for concurrent
// use.
type Summarizer struct {
	client   *genai.Client
	cfg      llm.Config
	thinking *int32
	http     genai.HTTPOptions // per request
}

// config is what the options set.
type config struct {
	llm.Config
	thinking   *int32
	http       *genai.HTTPOptions
	clientOpts []string // the client-building options given, by name
}

// An Option configures a Summarizer.
type Option func(*config)

// WithBaseURL sends requests to another endpoint, such as a proxy. The
// default is DefaultBaseURL.
func WithBaseURL(url string) Option {
	return func(c *config) { c.BaseURL = url; c.clientOpts = append(c.clientOpts, "WithBaseURL") }
}

// WithModel sets the model. The default is DefaultModel.
func WithModel(model string) Option { return func(c *config) { c.Model = model } }

// WithMaxOutputTokens bounds the summary's length as the model counts it
// (maxOutputTokens). A request's MaxTokens, when smaller, wins. The default
// is DefaultMaxOutputTokens.
func WithMaxOutputTokens(n int) Option { return func(c *config) { c.MaxOutput = n } }

// WithTemperature sets the sampling temperature. The default is the
// model's.
func WithTemperature(t float64) Option { return func(c *config) { c.Temperature = &t } }

// WithMaxRetries sets how often a failed request is retried. The default
// is DefaultMaxRetries.
func WithMaxRetries(n int) Option { return func(c *config) { c.Retries = n } }

// WithHTTPClient sets the HTTP client. The default is the SDK's.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.HTTPClient = hc; c.clientOpts = append(c.clientOpts, "WithHTTPClient") }
}

// WithInstructions replaces recap.DefaultInstructions as the system
// instruction.
func WithInstructions(s string) Option { return func(c *config) { c.Instructions = s } }

// WithThinkingBudget sets the tokens a thinking model may think before it
// answers (0 turns thinking off where the model allows it). The default is
// the model's. Thoughts count against the output limit.
func WithThinkingBudget(n int) Option {
	return func(c *config) { b := int32(n); c.thinking = &b }
}

// WithHTTPOptions sets the SDK's options of every request: headers, a
// timeout, extra body members, retry options (which replace
// WithMaxRetries'), an API version.
func WithHTTPOptions(o genai.HTTPOptions) Option { return func(c *config) { c.http = &o } }

// New returns a Summarizer on the Gemini Developer API that authenticates
// with apiKey, at DefaultBaseURL unless WithBaseURL says otherwise. The key,
// the backend and the base URL are set explicitly, so that the SDK's
// environment variables (GEMINI_API_KEY, GOOGLE_API_KEY,
// GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GEMINI_BASE_URL) cannot redirect it.
// For Vertex AI or a client of your own, see NewWithClient.
func New(ctx context.Context, apiKey string, opts ...Option) (*Summarizer, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if apiKey == "" {
		return nil, errors.New("gemini: empty API key")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: apiKey, Backend: genai.BackendGeminiAPI, HTTPClient: cfg.HTTPClient,
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL},
	})
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return newSummarizer(client, cfg), nil
}

// NewWithClient returns a Summarizer that sends its requests through
// client, as the caller configured it (Vertex AI and its credentials, an
// HTTP client with your middleware, a base URL). WithBaseURL and
// WithHTTPClient, which would build a client, are an error here.
func NewWithClient(client *genai.Client, opts ...Option) (*Summarizer, error) {
	if client == nil {
		return nil, errors.New("gemini: nil client")
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if len(cfg.clientOpts) > 0 {
		return nil, fmt.Errorf("gemini: NewWithClient: %s configure a client, not a request: set them on the client", strings.Join(cfg.clientOpts, ", "))
	}
	return newSummarizer(client, cfg), nil
}

func newConfig(opts []Option) (config, error) {
	cfg := config{Config: llm.Config{Model: DefaultModel, MaxOutput: DefaultMaxOutputTokens, Retries: DefaultMaxRetries}}
	for _, o := range opts {
		if o == nil {
			return config{}, errors.New("gemini: nil Option")
		}
		o(&cfg)
	}
	if err := cfg.Check("gemini"); err != nil {
		return config{}, err
	}
	return cfg, nil
}

func newSummarizer(client *genai.Client, cfg config) *Summarizer {
	s := &Summarizer{client: client, cfg: cfg.Config, thinking: cfg.thinking}
	if cfg.http != nil {
		s.http = *cfg.http
	}
	if s.http.RetryOptions == nil {
		attempts := int32(cfg.Retries + 1)
		s.http.RetryOptions = &genai.HTTPRetryOptions{Attempts: &attempts}
	}
	return s
}

// Summarize asks the model to merge req.Previous and req.Messages. An API
// error keeps the server's status and message (see genai.APIError); a
// summary cut off at the token limit is ErrTruncated; a blocked prompt or
// answer matches ErrBlocked.
func (s *Summarizer) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	p := recap.RenderPrompt(req, s.cfg.Instructions)
	httpOpts := s.http
	config := &genai.GenerateContentConfig{
		HTTPOptions:       &httpOpts,
		SystemInstruction: genai.NewContentFromText(p.System, ""),
		MaxOutputTokens:   int32(s.cfg.OutputLimit(req)),
	}
	if s.cfg.Temperature != nil {
		t := float32(*s.cfg.Temperature)
		config.Temperature = &t
	}
	if s.thinking != nil {
		config.ThinkingConfig = &genai.ThinkingConfig{ThinkingBudget: s.thinking}
	}
	resp, err := s.client.Models.GenerateContent(ctx, s.cfg.Model, genai.Text(p.User), config)
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("gemini: %w", ctx.Err())
		}
		return "", fmt.Errorf("gemini: %w", err)
	}
	if f := resp.PromptFeedback; f != nil && f.BlockReason != "" {
		return "", fmt.Errorf("%w: prompt: %s %s", ErrBlocked, f.BlockReason, f.BlockReasonMessage)
	}
	if len(resp.Candidates) == 0 {
		return "", errors.New("gemini: response has no candidates")
	}
	switch r := resp.Candidates[0].FinishReason; r {
	case genai.FinishReasonStop, genai.FinishReasonUnspecified:
	case genai.FinishReasonMaxTokens:
		return "", ErrTruncated
	default:
		return "", fmt.Errorf("%w: finish reason %s %s", ErrBlocked, r, resp.Candidates[0].FinishMessage)
	}
	// The text parts, not thoughts; resp.Text() would log to the
	// standard logger about other parts.
	var b strings.Builder
	if c := resp.Candidates[0].Content; c != nil {
		for _, part := range c.Parts {
			if part != nil && !part.Thought {
				b.WriteString(part.Text)
			}
		}
	}
	return strings.TrimSpace(b.String()), nil
}
