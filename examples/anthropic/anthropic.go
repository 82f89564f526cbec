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
	"github.com/recapgo/recap/examples/internal/llm"
)

// Defaults of the options.
const (
	DefaultModel           = sdk.ModelClaudeHaiku4_5
	DefaultMaxOutputTokens = 1024
	DefaultMaxRetries      = 3
	DefaultBaseURL         = "https://api.anthropic.com/"
)

// ErrTruncated reports a summary cut off at the output token limit, which
// recap must not store as if it were whole.
var ErrTruncated = errors.New("anthropic: summary truncated at the output token limit")

// Summarizer summarizes with a Claude model. It is safe for concurrent use.
type Summarizer struct {
	client sdk.Client
	cfg    llm.Config
}

// An Option configures a Summarizer.
type Option func(*llm.Config)

// WithBaseURL sends requests to another endpoint, such as a proxy. The
// default is Anthropic's API.
func WithBaseURL(url string) Option { return func(c *llm.Config) { c.BaseURL = url } }

// WithModel sets the model. The default is DefaultModel.
func WithModel(model string) Option { return func(c *llm.Config) { c.Model = model } }

// WithMaxOutputTokens bounds the summary's length as the model counts it
// (max_tokens). A request's MaxTokens, when smaller, wins. The default is
// DefaultMaxOutputTokens.
func WithMaxOutputTokens(n int) Option { return func(c *llm.Config) { c.MaxOutput = n } }

// WithTemperature sets the sampling temperature. The default is the API's.
func WithTemperature(t float64) Option { return func(c *llm.Config) { c.Temperature = &t } }

// WithMaxRetries sets how often a failed request is retried. The default
// is DefaultMaxRetries.
func WithMaxRetries(n int) Option { return func(c *llm.Config) { c.Retries = n } }

// WithHTTPClient sets the HTTP client. The default is http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(c *llm.Config) { c.HTTPClient = hc } }

// WithInstructions replaces recap.DefaultInstructions as the system prompt.
func WithInstructions(s string) Option { return func(c *llm.Config) { c.Instructions = s } }

// New returns a Summarizer that authenticates with apiKey, at
// DefaultBaseURL unless WithBaseURL says otherwise. The key, the base URL
// and the retries are set explicitly; the SDK's client still reads
// ANTHROPIC_AUTH_TOKEN from the environment.
func New(apiKey string, opts ...Option) (*Summarizer, error) {
	cfg := llm.Config{Model: DefaultModel, MaxOutput: DefaultMaxOutputTokens, Retries: DefaultMaxRetries}
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.Check("anthropic"); err != nil {
		return nil, err
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL // set, so that the SDK's own variable cannot redirect it
	}
	ropts := []option.RequestOption{option.WithAPIKey(apiKey), option.WithMaxRetries(cfg.Retries), option.WithBaseURL(cfg.BaseURL)}
	if cfg.HTTPClient != nil {
		ropts = append(ropts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Summarizer{client: sdk.NewClient(ropts...), cfg: cfg}, nil
}

// Summarize asks the model to merge req.Previous and req.Messages. An API
// error keeps the server's status and body (see *sdk.Error); a summary cut
// off at the token limit is ErrTruncated.
func (s *Summarizer) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	p := recap.RenderPrompt(req, s.cfg.Instructions)
	max := s.cfg.OutputLimit(req)
	params := sdk.MessageNewParams{
		Model:     s.cfg.Model,
		MaxTokens: int64(max),
		System:    []sdk.TextBlockParam{{Text: p.System}},
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(p.User))},
	}
	if s.cfg.Temperature != nil {
		params.Temperature = sdk.Float(*s.cfg.Temperature)
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
