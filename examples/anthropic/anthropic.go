// Package anthropic connects recap to Anthropic's Messages API
// (github.com/anthropics/anthropic-sdk-go): a [recap.Summarizer] on a
// Claude model, conversions between the SDK's request (system blocks and
// messages) and recap messages (FromMessages, ToMessages), and the exact
// token count of a payload (CountTokens) for a [recap.Calibrator].
//
// The Summarizer's prompt is recap's [recap.RenderPrompt]: the previous
// summary and the new messages, delimited and declared as data. Requests
// that fail with 408, 409, 429 or a 5xx status (including 529 overloaded),
// or on the network, are retried with exponential backoff that honours
// Retry-After, by the SDK; cancelling the context stops both the request
// and the wait. New builds the SDK client from an API key; NewWithClient
// takes one the caller configured.
//
// The conversions are pure functions: no network, no state.
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
	"github.com/recapgo/recap/internal/llm"
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

// ErrInvalidOption is matched by the errors of New and NewWithClient for
// an option that is nil, out of range, or, with NewWithClient, one that
// would build a client.
var ErrInvalidOption = errors.New("anthropic: invalid option")

// Summarizer summarizes with a Claude model. It is safe for concurrent use.
type Summarizer struct {
	client  sdk.Client
	cfg     llm.Config
	reqOpts []option.RequestOption // applied to every request
}

// config is what the options set.
type config struct {
	llm.Settings
	reqOpts []option.RequestOption
}

// An Option configures a Summarizer.
type Option func(*config)

// WithBaseURL sends requests to another endpoint, such as a proxy. The
// default is Anthropic's API.
func WithBaseURL(url string) Option {
	return func(c *config) { c.SetBaseURL(url) }
}

// WithModel sets the model. The default is DefaultModel.
func WithModel(model string) Option { return func(c *config) { c.Model = model } }

// WithMaxOutputTokens bounds the summary's length as the model counts it
// (max_tokens). A request's MaxTokens, when smaller, wins. The default is
// DefaultMaxOutputTokens.
func WithMaxOutputTokens(n int) Option { return func(c *config) { c.MaxOutput = n } }

// WithTemperature sets the sampling temperature. The default is the API's.
func WithTemperature(t float64) Option { return func(c *config) { c.Temperature = &t } }

// WithMaxRetries sets how often a failed request is retried. The default
// is DefaultMaxRetries.
func WithMaxRetries(n int) Option {
	return func(c *config) { c.SetMaxRetries(n) }
}

// WithHTTPClient sets the HTTP client. The default is http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.SetHTTPClient(hc) }
}

// WithInstructions replaces recap.DefaultInstructions as the system prompt.
func WithInstructions(s string) Option { return func(c *config) { c.Instructions = s } }

// WithRequestOptions adds request options of the SDK (headers, middleware
// for tracing or signing, a timeout, extra query parameters...) to every
// request, after the client's own. Of several WithRequestOptions, all
// apply, in order.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.reqOpts = append(c.reqOpts, opts...) }
}

// New returns a Summarizer that authenticates with apiKey, at
// DefaultBaseURL unless WithBaseURL says otherwise. The key, the base URL
// and the retries are set explicitly; the SDK's client still reads
// ANTHROPIC_AUTH_TOKEN from the environment. To use a client of your own (Azure, a
// proxy, your middleware), see NewWithClient.
func New(apiKey string, opts ...Option) (*Summarizer, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL // set, so that the SDK's own variable cannot redirect it
	}
	ropts := []option.RequestOption{option.WithAPIKey(apiKey), option.WithMaxRetries(cfg.Retries), option.WithBaseURL(cfg.BaseURL)}
	if cfg.HTTPClient != nil {
		ropts = append(ropts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Summarizer{client: sdk.NewClient(ropts...), cfg: cfg.Config, reqOpts: cfg.reqOpts}, nil
}

// NewWithClient returns a Summarizer that sends its requests through
// client, as the caller configured it: its authentication, base URL,
// HTTP client, retries and middleware. The options that would build a
// client (WithBaseURL, WithHTTPClient, WithMaxRetries) are an error here,
// matching ErrInvalidOption, rather than silently ignored: configure the
// client instead, or pass request options with WithRequestOptions.
func NewWithClient(client sdk.Client, opts ...Option) (*Summarizer, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := cfg.RefuseClientOptions("anthropic", ErrInvalidOption); err != nil {
		return nil, err
	}
	return &Summarizer{client: client, cfg: cfg.Config, reqOpts: cfg.reqOpts}, nil
}

// newConfig applies opts to the defaults and checks the result.
func newConfig(opts []Option) (config, error) {
	cfg := config{Settings: llm.Settings{Config: llm.Config{Model: DefaultModel, MaxOutput: DefaultMaxOutputTokens, Retries: DefaultMaxRetries}}}
	if err := llm.Apply("anthropic", ErrInvalidOption, &cfg, &cfg.Settings, opts); err != nil {
		return config{}, err
	}
	return cfg, nil
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
	msg, err := s.client.Messages.New(ctx, params, s.reqOpts...)
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
	return llm.Summary("anthropic", b.String())
}
