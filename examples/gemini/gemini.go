// Package gemini is a [recap.Summarizer] on Google's Gemini models, through
// the Gen AI SDK (google.golang.org/genai), with conversions between the
// SDK's contents and recap messages (FromContents, ToContents) and the
// countTokens endpoint (CountTokens).
//
// The prompt is recap's [recap.RenderPrompt]: the previous summary and the
// new messages, delimited and declared as data, with the instructions as
// the system instruction. With New, requests that fail with 408, 429, 500,
// 502, 503 or 504, or on the network, are retried up to WithMaxRetries
// times, after the delay the server asks for (Retry-After, or the
// RetryInfo the Gemini API puts in a 429's details) or else with the SDK's
// exponential backoff (1 s doubling, plus up to 1 s of jitter, at most
// 60 s). A delay longer than 60 s, or than the context's deadline leaves,
// is not waited for: the failure returns at once, for recap's fallback to
// serve. (The SDK's own retries read neither; New's client does not use
// them unless WithHTTPOptions gives retry options, which then replace
// these.) With NewWithClient, the retries are the client's own (none
// unless its HTTPOptions.RetryOptions ask for them). Cancelling the
// context stops both the request and the wait.
package gemini

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/llm"
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
	// DefaultAPIVersion is the Gemini API version New pins: the SDK's
	// default, which its GOOGLE_GENAI_API_VERSION variable would change.
	DefaultAPIVersion = "v1"
)

// ErrTruncated reports a summary cut off at the output token limit (with
// a thinking model, thoughts count against it too; see
// WithThinkingBudget), which recap must not store as if it were whole.
var ErrTruncated = errors.New("gemini: summary truncated at the output token limit")

// ErrBlocked reports a prompt or a response that the model blocked (for
// safety, recitation, or another reason it gives).
var ErrBlocked = errors.New("gemini: blocked")

// Summarizer summarizes with a Gemini model. Make one with New or
// NewWithClient; it is safe for concurrent use by multiple goroutines.
type Summarizer struct {
	client   *genai.Client
	cfg      llm.Config
	thinking *int32
	http     *genai.HTTPOptions // per request, nil for none
	retry    *retryTransport    // New's client's transport; nil with NewWithClient
}

// config is what the options set.
type config struct {
	llm.Settings
	thinkingSet *int // WithThinkingBudget's, checked by newConfig
	thinking    *int32
	http        *genai.HTTPOptions
}

// An Option configures a Summarizer.
type Option func(*config)

// WithBaseURL sends requests to another endpoint, such as a proxy. The
// default is DefaultBaseURL.
func WithBaseURL(url string) Option {
	return func(c *config) { c.SetBaseURL(url) }
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

// WithMaxRetries sets how often New's client retries a failed request
// (see the package documentation for which). The default is
// DefaultMaxRetries; a negative count is an error. It configures the client,
// so NewWithClient rejects it.
func WithMaxRetries(n int) Option {
	return func(c *config) { c.SetMaxRetries(n) }
}

// WithHTTPClient sets the HTTP client. The default is the SDK's.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.SetHTTPClient(hc) }
}

// WithInstructions replaces recap.DefaultInstructions as the system
// instruction.
func WithInstructions(s string) Option { return func(c *config) { c.Instructions = s } }

// WithThinkingBudget sets the tokens a thinking model may think before it
// answers (0 turns thinking off where the model allows it). The default is
// the model's; -1 asks the model to choose. Thoughts count against the
// output limit. A budget below -1 or beyond int32 is an error.
func WithThinkingBudget(n int) Option {
	return func(c *config) { c.thinkingSet = &n }
}

// WithHTTPOptions sets the SDK's options of every Summarize request, over
// the client's as genai merges them: headers (added to the client's), a
// timeout, extra body members, retry options (which replace the client's
// and WithMaxRetries'), a base URL or an API version. It works with both
// constructors; given more than once, the last one wins. The default is
// none: the client's options alone.
func WithHTTPOptions(o genai.HTTPOptions) Option {
	o.Headers = o.Headers.Clone()
	return func(c *config) { c.http = &o }
}

// New returns a Summarizer on the Gemini Developer API that authenticates
// with apiKey, at DefaultBaseURL unless WithBaseURL says otherwise. It
// builds its client with genai.NewClient, which reads GEMINI_API_KEY,
// GOOGLE_API_KEY, GOOGLE_GENAI_USE_VERTEXAI (and _USE_ENTERPRISE),
// GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION (or _REGION),
// GOOGLE_GEMINI_BASE_URL and GOOGLE_GENAI_API_VERSION from the environment
// for what its config leaves unset; New sets the key, the backend, the base
// URL and the API version (DefaultAPIVersion) explicitly, so none of them
// redirects it. ctx is genai.NewClient's, which makes no request for the
// Developer API. An empty key or an invalid option is an error. For
// Vertex AI or a client of your own, see NewWithClient.
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
	// The transport retries (see retryTransport); the SDK sends once,
	// unless WithHTTPOptions gives it retry options.
	hc, retry := retryingClient(cfg.HTTPClient, cfg.Retries)
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: apiKey, Backend: genai.BackendGeminiAPI, HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL, APIVersion: DefaultAPIVersion},
	})
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	s := newSummarizer(client, cfg)
	s.retry = retry
	return s, nil
}

// NewWithClient returns a Summarizer that sends its requests through
// client, as the caller configured it: its backend (Vertex AI and its
// credentials), its HTTP client and middleware, its base URL, API version
// and retry options. WithBaseURL, WithHTTPClient and WithMaxRetries, which
// configure a client, are an error here (set them on the client, or per
// request with WithHTTPOptions); so is a nil client.
func NewWithClient(client *genai.Client, opts ...Option) (*Summarizer, error) {
	if client == nil {
		return nil, errors.New("gemini: nil client")
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := cfg.RefuseClientOptions("gemini", nil); err != nil {
		return nil, err
	}
	return newSummarizer(client, cfg), nil
}

func newConfig(opts []Option) (config, error) {
	cfg := config{Settings: llm.Settings{Config: llm.Config{Model: DefaultModel, MaxOutput: DefaultMaxOutputTokens, Retries: DefaultMaxRetries}}}
	if err := llm.Apply("gemini", nil, &cfg, &cfg.Settings, opts); err != nil {
		return config{}, err
	}
	// The API's fields are int32.
	if cfg.MaxOutput > math.MaxInt32 {
		return config{}, fmt.Errorf("gemini: max output tokens %d exceeds the API's int32", cfg.MaxOutput)
	}
	if n := cfg.thinkingSet; n != nil {
		if *n < -1 || *n > math.MaxInt32 {
			return config{}, fmt.Errorf("gemini: thinking budget %d is not -1 or an int32 count", *n)
		}
		b := int32(*n)
		cfg.thinking = &b
	}
	return cfg, nil
}

func newSummarizer(client *genai.Client, cfg config) *Summarizer {
	return &Summarizer{client: client, cfg: cfg.Config, thinking: cfg.thinking, http: cfg.http}
}

// Summarize asks the model to merge req.Previous and req.Messages. An API
// error keeps the server's status and message (see genai.APIError); a
// summary cut off at the token limit is ErrTruncated; a blocked prompt or
// answer matches ErrBlocked.
func (s *Summarizer) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	p := recap.RenderPrompt(req, s.cfg.Instructions)
	var httpOpts *genai.HTTPOptions
	if s.http != nil && s.http.RetryOptions != nil {
		ctx = context.WithValue(ctx, noRetryKey{}, true) // the SDK retries
	}
	if s.http != nil {
		// A copy per call: the SDK writes to it (an empty Headers).
		o := *s.http
		o.Headers = o.Headers.Clone()
		httpOpts = &o
	}
	config := &genai.GenerateContentConfig{
		HTTPOptions:       httpOpts,
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
	return llm.Summary("gemini", b.String())
}
