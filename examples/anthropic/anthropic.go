// Package anthropic is a [recap.Summarizer] on Anthropic's Messages API
// (github.com/anthropics/anthropic-sdk-go).
//
// The prompt is recap's [recap.RenderPrompt]: the previous summary and the
// new messages, delimited and declared as data. Requests that fail with 408,
// 409, 429 or a 5xx status (including 529 overloaded), or on the network,
// are retried with exponential backoff that honours Retry-After, by the
// SDK; cancelling the context stops both the request and the wait.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/recapgo/recap"
)

// Defaults of the options.
const (
	DefaultModel           = sdk.ModelClaudeHaiku4_5
	DefaultMaxOutputTokens = 1024
	DefaultMaxRetries      = 3
)

// ErrTruncated reports a summary cut off at the output token limit, which
// recap must not store as if it were whole.
var ErrTruncated = errors.New("anthropic: summary truncated at the output token limit")

// Summarizer summarizes with a Claude model. It is safe for concurrent use.
type Summarizer struct {
	client       sdk.Client
	model        string
	maxOutput    int
	temperature  *float64
	instructions string
}

type config struct {
	baseURL      string
	model        string
	maxOutput    int
	temperature  *float64
	retries      int
	httpClient   *http.Client
	instructions string
}

// An Option configures a Summarizer.
type Option func(*config)

// WithBaseURL sends requests to another endpoint, such as a proxy. The
// default is Anthropic's API.
func WithBaseURL(url string) Option { return func(c *config) { c.baseURL = url } }

// WithModel sets the model. The default is DefaultModel.
func WithModel(model string) Option { return func(c *config) { c.model = model } }

// WithMaxOutputTokens bounds the summary's length as the model counts it
// (max_tokens). A request's MaxTokens, when smaller, wins. The default is
// DefaultMaxOutputTokens.
func WithMaxOutputTokens(n int) Option { return func(c *config) { c.maxOutput = n } }

// WithTemperature sets the sampling temperature. The default is the API's.
func WithTemperature(t float64) Option { return func(c *config) { c.temperature = &t } }

// WithMaxRetries sets how often a failed request is retried. The default
// is DefaultMaxRetries.
func WithMaxRetries(n int) Option { return func(c *config) { c.retries = n } }

// WithHTTPClient sets the HTTP client. The default is http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithInstructions replaces recap.DefaultInstructions as the system prompt.
func WithInstructions(s string) Option { return func(c *config) { c.instructions = s } }

// New returns a Summarizer that authenticates with apiKey. Every setting
// comes from its arguments.
func New(apiKey string, opts ...Option) (*Summarizer, error) {
	cfg := config{model: DefaultModel, maxOutput: DefaultMaxOutputTokens, retries: DefaultMaxRetries}
	for _, o := range opts {
		o(&cfg)
	}
	switch {
	case cfg.model == "":
		return nil, errors.New("anthropic: empty model")
	case cfg.maxOutput < 1:
		return nil, fmt.Errorf("anthropic: max output tokens %d is not positive", cfg.maxOutput)
	case cfg.retries < 0:
		return nil, fmt.Errorf("anthropic: max retries %d is negative", cfg.retries)
	}
	ropts := []option.RequestOption{option.WithAPIKey(apiKey), option.WithMaxRetries(cfg.retries)}
	if cfg.baseURL != "" {
		ropts = append(ropts, option.WithBaseURL(cfg.baseURL))
	}
	if cfg.httpClient != nil {
		ropts = append(ropts, option.WithHTTPClient(cfg.httpClient))
	}
	return &Summarizer{
		client:       sdk.NewClient(ropts...),
		model:        cfg.model,
		maxOutput:    cfg.maxOutput,
		temperature:  cfg.temperature,
		instructions: cfg.instructions,
	}, nil
}

// Summarize asks the model to merge req.Previous and req.Messages. An API
// error keeps the server's status and body (see *sdk.Error); a summary cut
// off at the token limit is ErrTruncated.
func (s *Summarizer) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	p := recap.RenderPrompt(req, s.instructions)
	max := s.maxOutput
	if req.MaxTokens > 0 && req.MaxTokens < max {
		max = req.MaxTokens
	}
	params := sdk.MessageNewParams{
		Model:     s.model,
		MaxTokens: int64(max),
		System:    []sdk.TextBlockParam{{Text: p.System}},
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(p.User))},
	}
	if s.temperature != nil {
		params.Temperature = sdk.Float(*s.temperature)
	}
	msg, err := s.client.Messages.New(ctx, params)
	if err != nil {
		return "", fmt.Errorf("anthropic: %w", err)
	}
	if msg.StopReason == sdk.StopReasonMaxTokens {
		return "", ErrTruncated
	}
	var b strings.Builder
	for _, block := range msg.Content {
		if block.Type == "text" {
			b.WriteString(block.Text)
		}
	}
	if msg.StopReason == "refusal" {
		return "", fmt.Errorf("anthropic: model refused: %s", b.String())
	}
	return strings.TrimSpace(b.String()), nil
}
